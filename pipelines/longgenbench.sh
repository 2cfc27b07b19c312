#!/usr/bin/env bash
# LongGenBench end to end: generate (or import) the tasks, have the model
# under test write the long documents, cut them into entries, judge every
# check with a judge model (or the offline lexical approximation), and report
# CR, STIC-1, STIC-2, wAvg, accuracy per instruction type and by position.
#
#   pipelines/longgenbench.sh --base-url http://gpu01:8000/v1 --model my-model \
#       --judge-base-url http://gpu02:8000/v1 --judge-model judge-model
#
# Endpoints also come from OPENAI_BASE_URL and JUDGE_BASE_URL (the judge
# defaults to the model's endpoint); keys from OPENAI_API_KEY / JUDGE_API_KEY.
# Each stage writes its file into the output directory (items.jsonl.zst,
# requests.jsonl.zst, responses.jsonl.zst, checks.jsonl.zst, judged.jsonl.zst,
# report.md, report.jsonl, report.html); inference and judging
# resume where an earlier, interrupted run stopped (delete the directory to
# start afresh).
#
# Size: by default 4 scenarios × 100 tasks of the short version, each asking for a long document:
# 400 requests, about 130,000 prompt tokens (o200k_base), then one judge request per check, about
# 6,800 judge requests (the official Dataset_short.json: 400 requests, about 230,000 prompt
# tokens, 6,205 judge requests). --limit 1, one task per scenario: 4 requests, about 1,300 prompt
# tokens, 63 judge requests.
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
  --judge MODE          llm (default) or lexical (offline approximation, labelled)
  --version V           short (16K-token outputs, default) or long (32K)
  --scenarios LIST      diary,menu,skyscraper,urban (default: all)
  --count N             tasks per scenario (default: 100)
  --seed S              generator seed (default: 0)
  --official FILE|DIR   import the official Dataset_short.json/Dataset_long.json instead; or,
                        from the folder of official files DIR (gen-context fetch-official), the
                        one of --version, verified
  --max-tokens N        cap the generation (default 16000 short, 32000 long; lower it for
                        models whose context cannot hold prompt + 16K/32K tokens)
TXT
	ifkit_common_help
}

base_url=${OPENAI_BASE_URL:-}
judge_url=${JUDGE_BASE_URL:-}
model="" judge_model="" judge_mode=llm version=short scenarios=diary,menu,skyscraper,urban
count=100 seed=0 official="" max_tokens="" jobs=16 judge_jobs=32 out=out/longgenbench max_failures=10%
while [ $# -gt 0 ]; do
	case $1 in
	--judge) ifkit_value "$@"; judge_mode=$2; shift 2 ;;
	--version) ifkit_value "$@"; version=$2; shift 2 ;;
	--scenarios) ifkit_value "$@"; scenarios=$2; shift 2 ;;
	--count) ifkit_value "$@"; count=$2; shift 2 ;;
	--seed) ifkit_value "$@"; seed=$2; shift 2 ;;
	--official) ifkit_value "$@"; official=$2; shift 2 ;;
	--max-tokens) ifkit_value "$@"; max_tokens=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) ifkit_judge_flag "$@" || ifkit_common_flag "$@" || { echo "longgenbench.sh: unknown argument $1 (see --help)" >&2; exit 2; }; shift "$ifkit_shift" ;;
	esac
done
ifkit_start
judge_url=${judge_url:-$base_url}

if [ -d "$official" ]; then
	ifkit_stage items.jsonl.zst gen-context longgenbench --official "$official" --version "$version"
elif [ -n "$official" ]; then
	ifkit_stage items.jsonl.zst gen-context longgenbench --official "$official"
else
	ifkit_stage items.jsonl.zst gen-context longgenbench --version "$version" --scenarios "$scenarios" --count "$count" --seed "$seed"
fi
expand=(expand-templates)
[ -n "$max_tokens" ] && expand+=(--max-tokens "$max_tokens")
ifkit_expand "${expand[@]}"

ifkit_infer
ifkit_split

judge=(judge --judge "$judge_mode")
if [ "$judge_mode" != lexical ]; then
	ifkit_judge_llm_flags
	judge+=("${ifkit_judge_llm[@]}")
else
	judge+=(--max-failures "$max_failures")
fi
ifkit_stage judged.jsonl.zst "${judge[@]}" "$out/checks.jsonl.zst"

ifkit_report
