#!/usr/bin/env bash
# LongIns end to end: exams of question/answer pairs (about 10% answered
# wrongly) per mode and length -> one grading prompt each -> the model under
# test -> ID-set F1 against the wrong answers -> F1 x 100 by length (the
# paper's Table 3) and the depth x length map of wrong answers found.
#
#   OPENAI_BASE_URL=http://gpu01:8000/v1 pipelines/longins.sh --model qwen2.5-7b
#   pipelines/longins.sh --official data/GIST/256.json --official data/GIST/1024.json
#
# Each stage writes its file under the output directory (default out/longins):
# items.jsonl.zst, requests.jsonl.zst, responses.jsonl.zst, judged.jsonl.zst,
# report.md, report.jsonl, report.html. Without --official or --tasks the project's own
# checkable tasks are used. The API key comes from OPENAI_API_KEY. Extra flags
# for infer-batch: INFER_ARGS (e.g. "--max-model-len 32768"). Rerun with the
# same --out to resume: the replies already there are kept while the
# requests, the model and INFER_ARGS stay the same.
#
# Size: by default 3 modes × 7 lengths (256 ... 16384 tokens) × the project's 11 tasks: 231
# requests, about 1.1 million prompt tokens (o200k_base); the official GIST_256.json alone:
# 1,419 requests, about 550,000 prompt tokens. --limit 1, one exam per mode × length: 21
# requests, about 100,000 prompt tokens.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	ifkit_help
	cat <<'TXT'
Flags:
  --lengths L,L,...     exam lengths in tokens (default: 256,512,...,16384)
  --modes M,M,...       gist, list, limt (default: all three)
  --seed S              seed for question order and wrong answers (default: 0)
  --error-rate R        share of wrongly answered questions (default: 0.1)
  --tasks FILE          task source (Super-NaturalInstructions layout; repeatable)
  --official FILE|DIR   official exam file, e.g. GIST_256.json (repeatable); replaces generation;
                        or the folder of official files DIR (gen-context fetch-official): the
                        exams of --modes × --lengths there, by default every one there
  --max-tokens N        reply budget (default: 10000, the official runs')
  --temperature T       sampling temperature (default: the endpoint's, as the official runs)
TXT
	ifkit_common_help
}

base_url=${OPENAI_BASE_URL:-}
model=""
out=out/longins
jobs=16
max_failures=10%
gen=(gen-context longins)
expand=(expand-templates)
while [ $# -gt 0 ]; do
	case "$1" in
	--lengths | --modes | --seed | --error-rate | --tasks | --official) ifkit_value "$@"; gen+=("$1" "$2"); shift 2 ;;
	--max-tokens | --temperature) ifkit_value "$@"; expand+=("$1" "$2"); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) ifkit_common_flag "$@" || { echo "longins.sh: unknown argument $1 (see --help)" >&2; exit 2; }; shift "$ifkit_shift" ;;
	esac
done
ifkit_start
ifkit_stage items.jsonl.zst "${gen[@]}"
ifkit_expand "${expand[@]}"
ifkit_infer
ifkit_stage judged.jsonl.zst judge "${ifkit_judge_args[@]}" "$out/responses.jsonl.zst"
ifkit_report
