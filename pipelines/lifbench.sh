#!/usr/bin/env bash
# LIFBench end to end: contexts → prompts → replies → rubric scores → ARS/IFP/IFS.
#
#   pipelines/lifbench.sh [--base-url URL] [--model NAME] [--out DIR] [--lengths L] [--seed S]
#                         [--templates tasks.json] [--rubric official|strict] [-j N] [--max-failures N|P%] [--official FILE...]
#
# The endpoint comes from --base-url or OPENAI_BASE_URL (any OpenAI-compatible server: vLLM,
# SGLang, OpenAI, or llm-sim for a test run); OPENAI_API_KEY is read by infer-batch from the
# environment. Stage outputs are written to DIR (default out/lifbench):
#   items.jsonl.zst  requests.jsonl.zst  responses.jsonl.zst  judged.jsonl.zst
#   report.md  report.jsonl (tidy rows: ARS, IFP, IFS)  report.html (figures)
# --max-failures (default 10%): failed records infer-batch tolerates before the script exits 4.
# --retry-errors: the rerun also sends records that failed for good (transient failures are
# sent again by any rerun).
# --official FILE (repeatable) imports official context files (data/meta/*_input.json)
# instead of generating contexts. Extra infer-batch flags can go in INFER_ARGS (judge flags in JUDGE_ARGS), e.g.
#   INFER_ARGS="--max-model-len 131072 --truncate-context" pipelines/lifbench.sh ...
# Rerun with the same --out to resume: the replies already there are kept while the requests,
# the model and INFER_ARGS stay the same.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

base_url=${OPENAI_BASE_URL:-}
model=""
out=out/lifbench
lengths=4k,8k,16k,32k,64k,128k
seed=0
templates=
rubric=official
jobs=16
max_failures=10%
official=()
while [ $# -gt 0 ]; do
  case $1 in
    --lengths) ifkit_value "$@"; lengths=$2; shift 2 ;;
    --seed) ifkit_value "$@"; seed=$2; shift 2 ;;
    --templates) ifkit_value "$@"; templates=$2; shift 2 ;;
    --rubric) ifkit_value "$@"; rubric=$2; shift 2 ;;
    --official) ifkit_value "$@"; official+=("$2"); shift 2 ;;
    -h|--help) ifkit_help; exit 0 ;;
    *) ifkit_common_flag "$@" || { echo "lifbench.sh: unknown argument $1 (see --help)" >&2; exit 2; }; shift "$ifkit_shift" ;;
  esac
done
ifkit_start
gen=(gen-context lifbench --seed "$seed")
if [ ${#official[@]} -gt 0 ]; then
  for f in "${official[@]}"; do gen+=(--official "$f"); done
else
  gen+=(--lengths "$lengths")
fi
ifkit_stage items.jsonl.zst "${gen[@]}"

expand=(expand-templates --seed "$seed")
[ -n "$templates" ] && expand+=(--templates "$templates")
ifkit_stage requests.jsonl.zst "${expand[@]}" "$out/items.jsonl.zst"

ifkit_infer

ifkit_stage judged.jsonl.zst judge --rubric "$rubric" "${ifkit_judge_args[@]}" "$out/responses.jsonl.zst"
ifkit_report
