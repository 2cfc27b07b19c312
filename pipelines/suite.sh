#!/usr/bin/env bash
# The five benchmarks against one model: each benchmark's script (pipelines/BENCH.sh) with the
# same endpoint, model and flags, into its own folder under the output directory, then one
# report over all of them.
#
#   export OPENAI_BASE_URL=http://gpu01:8000/v1 JUDGE_BASE_URL=http://gpu02:8000/v1
#   pipelines/suite.sh --model qwen2.5-7b --judge-model llama-3.3-70b --limit 1     # smoke run
#   pipelines/suite.sh --model qwen2.5-7b --judge-model llama-3.3-70b --official official/
#
# Writes OUT/BENCH/ (each script's files: docs/scripting.md), then OUT/report.md (the tables of
# every benchmark that finished, also printed on stdout), OUT/report.jsonl (their tidy rows) and
# OUT/report.html (their figures). The flags below go to every script; extra flags for one
# benchmark's script come from LIFBENCH_ARGS, IFSCALE_ARGS, LONGINS_ARGS, LONGGENBENCH_ARGS and
# EIFBENCH_ARGS (e.g. LIFBENCH_ARGS="--lengths 4k,8k"), and INFER_ARGS / JUDGE_ARGS reach every
# script's infer-batch and judge. LongGenBench and EifBench are scored by an LLM judge: without
# --judge-base-url or JUDGE_BASE_URL they are skipped, and the report says so. A benchmark that
# fails does not stop the others: the report covers those that finished, names the rest, and the
# suite exits with the first failure's code (a usage error or an interrupt stops it at once).
# Rerun the same command to continue: every script keeps what is complete and resumes the rest.
#
# Size: the five default runs together send 3,689 requests, about 112 million prompt tokens
# (o200k_base), and about 7,000 judge requests; --limit 1: 144 requests, about 2.8 million
# prompt tokens, 145 judge requests. Each script's --help has its own share.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# The benchmarks in lib/benches' order, and those an LLM judge scores
# (pipelines/suite_test.go checks both against the registry).
all_benches=(lifbench ifscale longins longgenbench eifbench)
judged_benches=(longgenbench eifbench)
all_list=$(IFS=,; echo "${all_benches[*]}")

usage() {
	ifkit_help
	cat <<TXT
Flags:
  --bench B,B,...       the benchmarks to run (default: $all_list)
  --official DIR        every benchmark on its official data: the folder gen-context fetch-official
                        fills (docs/official.md), given to each script's --official
TXT
	ifkit_judge_help "else LongGenBench and EifBench are skipped"
	ifkit_common_help
}

base_url=${OPENAI_BASE_URL:-}
judge_url=${JUDGE_BASE_URL:-}
model=""
out=out/suite
jobs=""
judge_jobs=32
max_failures=10%
benches=$all_list
official=""
while [ $# -gt 0 ]; do
	case $1 in
	--bench) ifkit_value "$@"; benches=$2; shift 2 ;;
	--official) ifkit_value "$@"; official=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) ifkit_judge_flag "$@" || ifkit_common_flag "$@" || { echo "suite.sh: unknown argument $1 (see --help)" >&2; exit 2; }; shift "$ifkit_shift" ;;
	esac
done
IFS=, read -r -a chosen <<<"$benches"
for b in "${chosen[@]}"; do
	[[ ",$all_list," == *",$b,"* ]] || ifkit_usage "--bench $b: want some of $all_list"
done
if [[ -n $official && ! -d $official ]]; then
	ifkit_usage "--official $official: want the folder of official files gen-context fetch-official fills"
fi
ifkit_start

# Each script runs with the flags the suite was given (ifkit_given), its own
# folder, --official and the judge's flags where they apply, and its
# BENCH_ARGS; its report goes to its folder, not to stdout.
ran=() notes=() first_failure=0
for b in "${all_benches[@]}"; do
	[[ ",$benches," == *",$b,"* ]] || continue
	args=(--out "$out/$b" "${ifkit_given[@]}")
	if [[ " ${judged_benches[*]} " == *" $b "* ]]; then
		if [[ -z $judge_url ]]; then
			echo "$ifkit_name: $b skipped: it is scored by an LLM judge and none was given (--judge-base-url or JUDGE_BASE_URL; the model's own endpoint will do)" >&2
			notes+=("$b: skipped, no LLM judge was given (--judge-base-url or JUDGE_BASE_URL).")
			continue
		fi
		args+=(--judge-base-url "$judge_url" "${ifkit_judge_given[@]}")
	fi
	[[ -z $official ]] || args+=(--official "$official")
	var=${b^^}_ARGS
	read -r -a extra <<<"${!var:-}"
	echo "$ifkit_name: $b into $out/$b" >&2
	rc=0
	"$ifkit_root/pipelines/$b.sh" "${args[@]}" "${extra[@]}" >/dev/null || rc=$?
	if ((rc == 0)); then
		ran+=("$b")
		ifkit_judged+=("$out/$b/judged.jsonl.zst")
		continue
	fi
	if ((rc == 2 || rc >= 128)); then
		echo "$ifkit_name: stopped at $b (exit $rc); rerun the same command to continue" >&2
		exit "$rc"
	fi
	((first_failure)) || first_failure=$rc
	notes+=("$b: failed (exit $rc; its script said why and what to do): rerun the same command to continue.")
done

if ((${#ran[@]} == 0)); then
	for n in "${notes[@]}"; do echo "$ifkit_name: $n" >&2; done
	if ((first_failure == 0)); then
		ifkit_usage "no benchmark to run"
	fi
	exit "$first_failure"
fi
ifkit_report
if ((${#notes[@]} > 0)); then
	{
		printf '\nNot in this report:\n\n'
		printf -- '- %s\n' "${notes[@]}"
	} | tee -a "$out/report.md"
fi
exit "$first_failure"
