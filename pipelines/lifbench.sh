#!/usr/bin/env bash
# LIFBench end to end: contexts → prompts → replies → rubric scores → ARS/IFP/IFS.
#
#   pipelines/lifbench.sh [--base-url URL] [--model NAME] [--out DIR] [--lengths L] [--seed S]
#                         [--templates tasks.json] [--rubric official|strict] [-j N] [--max-failures N|P%] [--official FILE...]
#
# The endpoint comes from --base-url or OPENAI_BASE_URL (any OpenAI-compatible server: vLLM,
# SGLang, OpenAI, or llm-sim for a test run); OPENAI_API_KEY is read by infer-batch from the
# environment. Stage outputs are written to DIR (default out/lifbench):
#   contexts.jsonl.zst  requests.jsonl.zst  replies.jsonl.zst  judged.jsonl.zst
#   report.md  report.jsonl (tidy rows: ARS, IFP, IFS)
# --max-failures (default 10%): failed records infer-batch tolerates before the script exits 4.
# --retry-errors: the rerun also sends records that failed for good (transient failures are
# sent again by any rerun).
# --official FILE (repeatable) imports official context files (data/meta/*_input.json)
# instead of generating contexts. Extra infer-batch flags can go in INFER_ARGS, e.g.
#   INFER_ARGS="--max-model-len 131072 --truncate-context" pipelines/lifbench.sh ...
# Rerun with the same --out to resume: the replies already there are kept while the requests,
# the model and INFER_ARGS stay the same.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

base_url=${OPENAI_BASE_URL:-}
model=${MODEL:-}
out=out/lifbench
lengths=4k,8k,16k,32k,64k,128k
seed=0
templates=
rubric=official
jobs=${JOBS:-16}
max_failures=10%
official=()
while [ $# -gt 0 ]; do
  case $1 in
    --lengths) lengths=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --templates) templates=$2; shift 2 ;;
    --rubric) rubric=$2; shift 2 ;;
    --official) official+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) ifkit_common_flag "$@" || { echo "lifbench.sh: unknown argument $1 (see --help)" >&2; exit 2; }; shift "$ifkit_shift" ;;
  esac
done
if [ -z "$base_url" ]; then
  echo "lifbench.sh: give --base-url or set OPENAI_BASE_URL" >&2
  exit 2
fi
mkdir -p "$out"
if [ ${#official[@]} -gt 0 ]; then
  : > "$out/contexts.jsonl.zst"
  for f in "${official[@]}"; do # zstd frames concatenate
    gen-context lifbench --official "$f" --seed "$seed" --compress zstd >> "$out/contexts.jsonl.zst"
  done
else
  gen-context lifbench --lengths "$lengths" --seed "$seed" -o "$out/contexts.jsonl.zst"
fi

expand_args=(--seed "$seed")
[ -n "$templates" ] && expand_args+=(--templates "$templates")
expand-templates "${expand_args[@]}" -o "$out/requests.jsonl.zst" "$out/contexts.jsonl.zst"

# --resume reuses earlier replies to the same requests (and --model) only.
infer_args=(--base-url "$base_url" -j "$jobs" --max-failures "$max_failures" --resume ${retry_errors:+"$retry_errors"})
[ -n "$model" ] && infer_args+=(--model "$model")
# shellcheck disable=SC2086 # INFER_ARGS is a list of flags
infer-batch "${infer_args[@]}" ${INFER_ARGS:-} -o "$out/replies.jsonl.zst" "$out/requests.jsonl.zst"

judge --rubric "$rubric" -o "$out/judged.jsonl.zst" "$out/replies.jsonl.zst"
aggregate-ifs --format md --rows "$out/report.jsonl" --html "$out/report.html" -o "$out/report.md" "$out/judged.jsonl.zst"
cat "$out/report.md"
