#!/usr/bin/env bash
# Issue 26: the LIFBench 4k pipeline run twice with --cache into two output
# folders, against llm-sim playing a GPU server (16 sequences at once, 100 ms
# to the first token plus prefill at 20,000 tokens/s, 60 tokens/s each). The
# second run should send no request: requests are llm-sim's /metrics
# completion_requests, wall time is the whole pipeline script's and the
# inference stage's (its summary), the cache's size on disk is du's.
#
#   bench/cache/run.sh          # CACHE_LENGTHS (4k): the grid's lengths
set -euo pipefail
cd "$(dirname "$0")/../.."
for cmd in curl awk du /usr/bin/time; do
	command -v "$cmd" >/dev/null || { echo "run.sh: needs $cmd" >&2; exit 2; }
done
work=$(mktemp -d)
. bench/sim.sh
go build -o "$work/" ./tools/...
export IFKIT_BIN=$work

metric() { curl -sf "${url%/v1}/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

echo "# issue 26 bench — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(go version | awk '{print $3}'), load $(cut -d' ' -f1-3 /proc/loadavg)"
start_sim --max-concurrency 16 --latency 100ms --prefill-tokens-per-sec 20000 --tokens-per-sec 60
echo "| run | requests sent | pipeline wall | inference stage | answers from the cache |"
echo "|---|---:|---:|---:|---:|"
for run in first second; do
	before=$(metric completion_requests)
	logged "$work/$run.err" timed env OPENAI_BASE_URL="$url" bash pipelines/lifbench.sh --lengths "${CACHE_LENGTHS:-4k}" -j 16 --cache "$work/cache" --out "$work/$run" >/dev/null
	sent=$(($(metric completion_requests) - before))
	stage=$(awk '/msg=summary tool=infer-batch/ { for (i = 1; i <= NF; i++) if ($i ~ /^seconds=/) { sub("seconds=", "", $i); print $i } }' "$work/$run.err")
	hits=$(awk '/msg=inference tool=infer-batch/ { for (i = 1; i <= NF; i++) if ($i ~ /^from_cache=/) { sub("from_cache=", "", $i); print $i } }' "$work/$run.err")
	echo "| $run | $sent | ${wall}s | ${stage}s | $hits |"
done
echo
echo "cache: $(find "$work/cache" -name '*.zst' | wc -l) entries, $(du -sh "$work/cache" | cut -f1) on disk"
# The reports must agree but for the cache's note and the run's ID (a hash
# of its inputs: the second run's records say their answers came from the
# cache).
same() { grep -v '^Cache:\|^$' "$1" | sed -E 's/\| [0-9a-f]{16} \|/| RUN |/'; }
if ! diff <(same "$work/first/report.md") <(same "$work/second/report.md") >"$work/reports.diff"; then
	echo "the two reports differ beyond the cache's note:" >&2
	cat "$work/reports.diff" >&2
	exit 1
fi
grep '^Cache:' "$work/second/report.md" | head -1
