#!/usr/bin/env bash
# infer-batch performance (issue 3), against llm-sim on loopback:
#   1. saturation: llm-sim admits 256 requests at once, 50 ms each (capacity
#      256 / 0.05 s = 5120 req/s); infer-batch -j 256 over 20,000 records, as a
#      ratio of that capacity, side by side with xargs -P 256 running curl.
#   2. client CPU per request: user + sys of infer-batch / requests, 10,000 short
#      requests at -j 64 against an llm-sim with no latency.
#   3. memory: 64 in flight with ~500 KB prompts (about 100k-128k tokens each),
#      peak RSS of infer-batch.
#
#   bench/infer/run.sh [saturation|cpu|rss|all]     # default all
#
# Environment: N (records for 1, default 20000), CURL_N (records for the curl
# baseline, default N), REPEAT (runs of 1 and 2, best kept; default 1), CPU_N
# (requests for 2, default 10000), BIG_N and BIG_KB (records and prompt size
# for 3, default 256 of 500 KB).
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
N=${N:-20000}
CURL_N=${CURL_N:-$N}
REPEAT=${REPEAT:-1}
CPU_N=${CPU_N:-10000}
BIG_N=${BIG_N:-256}
BIG_KB=${BIG_KB:-500}
for cmd in curl xargs awk /usr/bin/time; do
	command -v "$cmd" >/dev/null || { echo "run.sh: needs $cmd" >&2; exit 2; }
done

work=$(mktemp -d)
. bench/sim.sh
go build -o "$work/" ./tools/infer-batch ./tools/llm-sim

# requests N MAXTOK: short chat requests, one record per line.
requests() {
	awk -v n="$1" -v mt="$2" 'BEGIN { for (i = 0; i < n; i++) printf "{\"id\":\"q%06d\",\"request\":{\"messages\":[{\"role\":\"user\",\"content\":\"Question %d: name a colour.\"}],\"max_tokens\":%d}}\n", i, i, mt }'
}

count_ok() { grep -c '"response"' "$1" || true; }

echo "# infer-batch bench — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uname -sr), $(go version | awk '{print $3}')"
echo "# cpu: $(awk -F: '/model name/ { print $2; exit }' /proc/cpuinfo | sed 's/^ *//')"

if [ "$what" = all ] || [ "$what" = saturation ]; then
	start_sim --max-concurrency 256 --latency 50ms
	requests "$N" 8 >"$work/sat.jsonl"
	best=
	for _ in $(seq "$REPEAT"); do
		logged "$work/ib.err" timed "$work/infer-batch" --base-url "$url" --model llm-sim -j 256 --progress never -o "$work/sat.out.jsonl" "$work/sat.jsonl"
		if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$wall; bcpu=$cpu; brss=$rss; fi
	done
	ok=$(count_ok "$work/sat.out.jsonl")
	rate=$(awk -v n="$N" -v w="$best" 'BEGIN { printf "%.0f", n / w }')
	ratio=$(awk -v r="$rate" 'BEGIN { printf "%.3f", r / (256 / 0.05) }')
	echo "| saturation | infer-batch -j 256 | $N records | ${best}s | $rate req/s | ${ratio} of 5120 | $ok ok | cpu ${bcpu}s | rss $((brss / 1024)) MB |"

	# The curl baseline: one process per request, the same bodies with "model".
	requests "$CURL_N" 8 | awk '{ sub(/^.*"request":\{/, "{\"model\":\"llm-sim\","); sub(/\}$/, ""); print }' >"$work/bodies"
	start_sim --max-concurrency 256 --latency 50ms
	timed sh -c "xargs -d '\n' -P 256 -n 1 curl -s -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' '$url/chat/completions' -d <'$work/bodies' >'$work/curl.codes'"
	ok=$(grep -c '^200$' "$work/curl.codes" || true)
	rate=$(awk -v n="$CURL_N" -v w="$wall" 'BEGIN { printf "%.0f", n / w }')
	ratio=$(awk -v r="$rate" 'BEGIN { printf "%.3f", r / (256 / 0.05) }')
	echo "| saturation | xargs -P 256 curl | $CURL_N records | ${wall}s | $rate req/s | ${ratio} of 5120 | $ok ok | cpu ${cpu}s (all curls) | — |"
fi

if [ "$what" = all ] || [ "$what" = cpu ]; then
	start_sim
	requests "$CPU_N" 4 >"$work/cpu.jsonl"
	best=
	for _ in $(seq "$REPEAT"); do
		logged "$work/ib.err" timed "$work/infer-batch" --base-url "$url" --model llm-sim -j 64 --progress never -o "$work/cpu.out.jsonl" "$work/cpu.jsonl"
		if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$cpu; bwall=$wall; fi
	done
	ok=$(count_ok "$work/cpu.out.jsonl")
	per=$(awk -v c="$best" -v n="$CPU_N" 'BEGIN { printf "%.3f", c * 1000 / n }')
	echo "| cpu | infer-batch -j 64 | $CPU_N requests | ${bwall}s | user+sys ${best}s | ${per} ms/request | $ok ok |"
fi

if [ "$what" = all ] || [ "$what" = rss ]; then
	start_sim --latency 2s
	# BIG_N records with BIG_KB prompts: a filler built by doubling.
	awk -v n="$BIG_N" -v size="$((BIG_KB * 1000))" 'BEGIN {
		s = "the quick brown fox jumps over a lazy dog near the river bank "
		while (length(s) < size) s = s s
		s = substr(s, 1, size)
		for (i = 0; i < n; i++) printf "{\"id\":\"big%03d\",\"request\":{\"messages\":[{\"role\":\"user\",\"content\":\"%d %s\\n\\nInstruction: summarise.\"}],\"max_tokens\":8}}\n", i, i, s
	}' >"$work/big.jsonl"
	logged "$work/ib.err" timed "$work/infer-batch" --base-url "$url" --model llm-sim -j 64 --progress never -o "$work/big.out.jsonl.zst" "$work/big.jsonl"
	ok=$(zstd -dc "$work/big.out.jsonl.zst" | grep -c '"response"' || true)
	echo "| rss | infer-batch -j 64, $BIG_N × $BIG_KB KB prompts | $(du -m "$work/big.jsonl" | cut -f1) MB input | ${wall}s | peak RSS $((rss / 1024)) MB | $ok ok |"
fi
