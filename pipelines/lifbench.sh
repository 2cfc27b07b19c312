#!/usr/bin/env bash
# LIFBench end to end: contexts → prompts → replies → rubric scores → ARS/IFP/IFS.
#
#   OPENAI_BASE_URL=http://gpu01:8000/v1 pipelines/lifbench.sh --model qwen2.5-7b --lengths 4k,8k
#   INFER_ARGS="--max-model-len 131072 --truncate-context" pipelines/lifbench.sh ...
#
# The endpoint comes from --base-url or OPENAI_BASE_URL (any OpenAI-compatible server: vLLM,
# SGLang, OpenAI, or llm-sim for a test run); OPENAI_API_KEY is read by infer-batch from the
# environment. Stage outputs are written to the output directory (default out/lifbench):
#   items.jsonl.zst  requests.jsonl.zst  responses.jsonl.zst  judged.jsonl.zst
#   report.md  report.jsonl (tidy rows: ARS, IFP, IFS)  report.html (figures)
# Extra flags for infer-batch and judge: INFER_ARGS, JUDGE_ARGS.
# Rerun with the same --out to resume: the replies already there are kept while the requests,
# the model and INFER_ARGS stay the same.
#
# Size: by default 3 scenarios × 6 lengths (4k, 8k, 16k, 32k, 64k, 128k: the paper's) and their
# 11 tasks: 2,802 requests, about 110 million prompt tokens (o200k_base; 368 MB of requests as
# JSON). --limit 1, one request per length × task: 66 requests, about 2.6 million prompt tokens.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	ifkit_help
	cat <<'TXT'
Flags:
  --lengths L,L,...     context budgets: 4k…128k (official), Nk, or tokens (default:
                        4k,8k,16k,32k,64k,128k)
  --seed S              seed of the contexts and of the prompts' variables (default: 0)
  --templates FILE      templates (the official tasks.json layout) instead of the embedded ones
  --rubric R            official (the official scorer, quirks included, the default) or strict
  --official FILE|DIR   official context file (data/meta/*_input.json; repeatable) instead of
                        generating contexts; or the folder of official files DIR (gen-context
                        fetch-official): its contexts and templates, each verified
TXT
	ifkit_common_help
}

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
    -h|--help) usage; exit 0 ;;
    *) ifkit_common_flag "$@" || { echo "lifbench.sh: unknown argument $1 (see --help)" >&2; exit 2; }; shift "$ifkit_shift" ;;
  esac
done
ifkit_start
# A folder of official files (docs/official.md) holds the official templates
# too: expand-templates --templates DIR verifies and uses its tasks.json.
if [[ ${#official[@]} -eq 1 && -d ${official[0]} && -z $templates ]]; then
  templates=${official[0]}
fi
gen=(gen-context lifbench --seed "$seed")
if [ ${#official[@]} -gt 0 ]; then
  for f in "${official[@]}"; do gen+=(--official "$f"); done
else
  gen+=(--lengths "$lengths")
fi
ifkit_stage items.jsonl.zst "${gen[@]}"

expand=(expand-templates --seed "$seed")
[ -n "$templates" ] && expand+=(--templates "$templates")
ifkit_expand "${expand[@]}"

ifkit_infer

ifkit_stage judged.jsonl.zst judge --rubric "$rubric" "${ifkit_judge_args[@]}" "$out/responses.jsonl.zst"
ifkit_report
