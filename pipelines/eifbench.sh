#!/usr/bin/env bash
# EifBench end to end: items -> one prompt per task -> the model under test ->
# one check per (sub-instruction, constraint) -> an LLM judge -> ILA/CLA tables.
#
#   OPENAI_BASE_URL=http://gpu01:8000/v1 JUDGE_BASE_URL=http://judge:8000/v1 \
#     pipelines/eifbench.sh --model qwen2.5-7b --judge-model qwen2.5-72b [--official data/sorted_party100.json]
#
# Each stage writes its file under the output directory (default out/eifbench):
# items.jsonl.zst, requests.jsonl.zst, responses.jsonl.zst, checks.jsonl.zst,
# judged.jsonl.zst, report.md, report.jsonl, report.html. Without --official the
# project's English sample set is used. API keys come from OPENAI_API_KEY and
# JUDGE_API_KEY. Extra flags for infer-batch and judge: INFER_ARGS, JUDGE_ARGS.
# Inference and judging resume where an interrupted run stopped (delete the
# output directory to start afresh).
#
# Size: by default the project's English sample set, 6 tasks (2 per subset): 6 requests, about
# 7,700 prompt tokens (o200k_base), then one judge request per constraint, 193 judge requests.
# --limit 1, one task per subset: 3 requests, about 3,500 prompt tokens, 82 judge requests.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	ifkit_help
	cat <<'TXT'
Flags:
TXT
	ifkit_judge_help "else --base-url"
	cat <<'TXT'
  --official FILE|DIR   official EifBench file (repeatable), or the folder of official files DIR
                        (gen-context fetch-official): its three files (or --subset's), each
                        verified; default: the sample set
  --subset NAME         plain_text, dyadic or multi_party (see gen-context eifbench --help)
  --max-tokens N        max_tokens of each answer (default: 8192; lower it for short-context servers)
TXT
	ifkit_common_help
}

base_url=${OPENAI_BASE_URL:-}
judge_url=${JUDGE_BASE_URL:-}
model=""
judge_model=""
out=out/eifbench
jobs=16
judge_jobs=32
max_failures=10%
gen=(gen-context eifbench)
expand=(expand-templates)
while [ $# -gt 0 ]; do
	case "$1" in
	--official | --subset) ifkit_value "$@"; gen+=("$1" "$2"); shift 2 ;;
	--max-tokens) ifkit_value "$@"; expand+=(--max-tokens "$2"); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) ifkit_judge_flag "$@" || ifkit_common_flag "$@" || { echo "eifbench.sh: unknown argument $1 (see --help)" >&2; exit 2; }; shift "$ifkit_shift" ;;
	esac
done
ifkit_start
if [ -z "$judge_url" ]; then
	echo "eifbench.sh: no JUDGE_BASE_URL or --judge-base-url: the judge runs on the model's endpoint $base_url" >&2
	judge_url=$base_url
fi

ifkit_stage items.jsonl.zst "${gen[@]}"
ifkit_expand "${expand[@]}"
ifkit_infer
ifkit_split
ifkit_judge_llm_flags
ifkit_stage judged.jsonl.zst judge "${ifkit_judge_llm[@]}" "$out/checks.jsonl.zst"
ifkit_report --decimals 4
