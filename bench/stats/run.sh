#!/usr/bin/env bash
# Confidence intervals (issue 24). First what they cost: aggregate-ifs over two
# llm-sim models' judged records, with --ci none, with the default intervals
# (2,000 resamples each) and with --compare, on the LIFBench grid of 2,802
# prompts (18 contexts: six lengths, at 1k-6k tokens so the files stay small; the
# intervals' work depends on the prompts and contexts, not on the text's length)
# and on the IFScale grid of 50 densities x 5 seeds. Then the study of the
# intervals and comparisons against known truth, STUDY_RUNS small runs per
# benchmark (bench/study_test.go; default 200, 0 skips it).
#
#   make build && PATH=$PWD/bin:$PATH bench/stats/run.sh [WORKDIR]
#
# Environment: LIFBENCH_LENGTHS (1k,2k,3k,4k,5k,6k), DENSITIES and SEEDS
# (gen-context ifscale's, default the full grid), RUNS (timed runs, best of,
# default 3), STUDY_RUNS.
set -euo pipefail
work=${1:-$(mktemp -d)} keep_work=${1:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../sim.sh"
mkdir -p "$work"
start_sim --model sim-a=0.7 --model sim-b=0.75 --seed 3

judged() { # bench, gen-context flags...
	local bench=$1
	shift
	logged "$work/gen.err" gen-context "$bench" "$@" --progress never |
		logged "$work/expand.err" expand-templates --progress never >"$work/$bench.req.jsonl"
	for m in sim-a sim-b; do
		logged "$work/ib.err" infer-batch --base-url "$url" --model "$m" -j 8 --progress never "$work/$bench.req.jsonl" |
			logged "$work/judge.err" judge --progress never | jq -c 'del(.request)' >"$work/$bench.$m.jsonl"
	done
	echo "$bench: $(wc -l <"$work/$bench.sim-a.jsonl") records per model, $(wc -l <"$work/$bench.req.jsonl") requests"
}
judged lifbench --lengths "${LIFBENCH_LENGTHS:-1k,2k,3k,4k,5k,6k}"
judged ifscale ${DENSITIES:+--densities "$DENSITIES"} ${SEEDS:+--seeds "$SEEDS"}

echo
echo "| grid | aggregate-ifs | wall s | cpu s | RSS MB |"
echo "|---|---|---|---|---|"
for bench in lifbench ifscale; do
	for flags in "--ci none" "" "--compare sim-a"; do
		best=""
		for _ in $(seq "${RUNS:-3}"); do
			# shellcheck disable=SC2086
			logged "$work/agg.err" timed aggregate-ifs --progress never $flags --format jsonl -o "$work/rows.jsonl" "$work/$bench.sim-a.jsonl" "$work/$bench.sim-b.jsonl"
			if [ -z "$best" ] || [ "$(echo "$wall < $best" | bc)" = 1 ]; then best=$wall bcpu=$cpu brss=$rss; fi
		done
		echo "| $bench | ${flags:-(intervals)} | $best | $bcpu | $((brss / 1024)) |"
	done
done
echo "rows with an interval: $(grep -c '"ci_low":[-0-9]' "$work/rows.jsonl") of $(wc -l <"$work/rows.jsonl") ($(date -u +%F), $(nproc) cores)"

if [ "${STUDY_RUNS:-200}" != 0 ]; then
	echo
	echo "| bench | runs | units | coverage | equal called | Δ truth | detected | predicted | seconds |"
	echo "|---|---|---|---|---|---|---|---|---|"
	(cd "$here/../.." && STUDY_RUNS=${STUDY_RUNS:-200} go test ./bench -run TestIntervalStudy -count=1 -v -timeout 6h) \
		| sed -n 's/^ *study_test.go:[0-9]*: //p'
fi
