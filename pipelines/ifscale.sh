#!/usr/bin/env bash
# IFScale end to end: keyword lists per density and seed -> one business-report
# prompt each -> the model under test -> keyword classification (exact,
# modification, omission) -> accuracy, stdev, error shares, primacy by density.
#
#   OPENAI_BASE_URL=http://gpu01:8000/v1 pipelines/ifscale.sh --model qwen2.5-7b
#   pipelines/ifscale.sh --base-url http://127.0.0.1:PORT/v1 --densities 10,50,100 --seeds 0,1
#
# Each stage writes its file under the output directory (default out/ifscale):
# items.jsonl.zst, requests.jsonl.zst, responses.jsonl.zst, judged.jsonl.zst,
# report.md, report.jsonl, report.html. The API key comes from OPENAI_API_KEY. Extra
# flags for infer-batch: INFER_ARGS (e.g. "--timeout-first-byte 30m" for reasoning models).
# Rerun with the same --out to resume: the replies already there are kept while the requests,
# the model and INFER_ARGS stay the same.
#
# Size: by default 50 densities (10, 20, ..., 500) × 5 seeds: 250 requests, about 730,000 prompt
# tokens (o200k_base). --limit 1, seed 0 of each density: 50 requests, about 145,000 prompt tokens.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	ifkit_help
	cat <<'TXT'
Flags:
  --densities N,N,...   numbers of keywords (default: 10,20,...,500)
  --seeds S,S,...       seeds, one keyword order each (default: 0,1,2,3,4)
  --vocab FILE          vocabulary (e.g. the official pruned_rules.csv); default: the project's
  --official DIR        the official keyword lists: the vocabulary from the folder of official
                        files DIR (gen-context fetch-official), verified, in numpy's order
  --numpy-compat        the official keyword order (numpy's legacy RandomState permutation)
  --template FILE       task text to put before the constraints, instead of the project's
  --max-tokens N        reply budget (default: 8192, ifkit's; the official runner sends none)
  --temperature T       sampling temperature (default: the endpoint's, as the official runner)
TXT
	ifkit_common_help
}

base_url=${OPENAI_BASE_URL:-}
model=""
out=out/ifscale
jobs=8
max_failures=10%
gen=(gen-context ifscale)
expand=(expand-templates)
while [ $# -gt 0 ]; do
	case "$1" in
	--densities | --seeds | --vocab | --official) ifkit_value "$@"; gen+=("$1" "$2"); shift 2 ;;
	--numpy-compat) gen+=("$1"); shift ;;
	--template | --max-tokens | --temperature) ifkit_value "$@"; expand+=("$1" "$2"); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) ifkit_common_flag "$@" || { echo "ifscale.sh: unknown argument $1 (see --help)" >&2; exit 2; }; shift "$ifkit_shift" ;;
	esac
done
ifkit_start
ifkit_stage items.jsonl.zst "${gen[@]}"
ifkit_expand "${expand[@]}"
ifkit_infer
ifkit_stage judged.jsonl.zst judge "${ifkit_judge_args[@]}" "$out/responses.jsonl.zst"
ifkit_report
