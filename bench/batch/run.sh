#!/usr/bin/env bash
# Issue 17 benchmarks, against llm-sim on loopback (it shares the 2 cores):
#   long   saturation with ~100k-token prompts (455 KB bodies): llm-sim capped
#          at 64 in flight × 200 ms, infer-batch -j 64, as a share of capacity,
#          and client CPU per request; this branch and BASE (default 0eae7f4,
#          before the fixes) side by side
#   short  saturation with short prompts: 256 × 50 ms, -j 256, SHORT_N records
#          (default 20,000; 60,000 for a run that startup weighs less on)
#   prefix LIFBench 8k+16k grid against llm-sim with a prefix cache:
#          --dispatch prefix vs input, wall time and prefix-cache hit share
#   batch  LIFBench 4k grid through --batch-api on llm-sim vs an online run:
#          wall time, and whether the records are the same
#
#   bench/batch/run.sh [long|short|prefix|batch|all]    # default all
#
# Environment: BASE (the commit compared with, built from git; empty: none),
# LONG_N, SHORT_N, PREFIX_LENGTHS (default 8k,16k), BATCH_LENGTHS (default 4k).
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
BASE=${BASE-0eae7f4}
LONG_N=${LONG_N:-960}
SHORT_N=${SHORT_N:-20000}
for cmd in curl jq awk zstd /usr/bin/time; do
	command -v "$cmd" >/dev/null || { echo "run.sh: needs $cmd" >&2; exit 2; }
done
work=$(mktemp -d)
. bench/sim.sh
go build -o "$work/" ./tools/infer-batch ./tools/llm-sim ./tools/gen-context ./tools/expand-templates

metric() { curl -sf "${url%/v1}/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

# lif LENGTHS OUT: the LIFBench grid of LENGTHS as prompts, in OUT.
lif() {
	logged "$work/gen.err" "$work/gen-context" lifbench --lengths "$1" --progress never |
		logged "$work/expand.err" "$work/expand-templates" --progress never >"$2"
}

echo "# issue 17 bench — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(go version | awk '{print $3}'), load $(cut -d' ' -f1-3 /proc/loadavg)"

clients=(infer-batch)
case "$what" in all | long | short)
	# The base client, against the same llm-sim.
	if [ -n "$BASE" ]; then
		mkdir -p "$work/base"
		git archive "$BASE" | tar -x -C "$work/base"
		(cd "$work/base" && go build -o "$work/base-infer-batch" ./tools/infer-batch)
		clients=(base-infer-batch infer-batch)
	fi
	;;
esac

if [ "$what" = all ] || [ "$what" = long ]; then
	awk -v n="$LONG_N" 'BEGIN {
		s = "the quick brown fox jumps over a lazy dog near the river bank "
		while (length(s) < 455000) s = s s
		s = substr(s, 1, 455000)
		for (i = 0; i < n; i++) printf "{\"id\":\"big%04d\",\"request\":{\"messages\":[{\"role\":\"user\",\"content\":\"%d %s\\n\\nInstruction: summarise.\"}],\"max_tokens\":8}}\n", i, i, s
	}' >"$work/long.jsonl"
	ideal=$(awk -v n="$LONG_N" 'BEGIN { printf "%.2f", n / 64 * 0.2 }')
	for bin in "${clients[@]}"; do
		start_sim --max-concurrency 64 --latency 200ms
		logged "$work/ib.err" timed "$work/$bin" --base-url "$url" --model llm-sim -j 64 --progress never -o "$work/long.out.jsonl.zst" "$work/long.jsonl"
		ok=$(zstd -dc "$work/long.out.jsonl.zst" | grep -c '"response"' || true)
		echo "| long | $bin | $LONG_N × 455 KB | ${wall}s (ideal ${ideal}s) | $(awk -v i="$ideal" -v w="$wall" 'BEGIN { printf "%.3f", i / w }') of capacity | cpu $(awk -v c="$cpu" -v n="$LONG_N" 'BEGIN { printf "%.2f", c * 1000 / n }') ms/request | rss $((rss / 1024)) MB | $ok ok |"
	done
	# Without -o there is no journal: its share of the loss.
	start_sim --max-concurrency 64 --latency 200ms
	logged "$work/ib.err" timed bash -o pipefail -c "'$work/infer-batch' --base-url '$url' --model llm-sim -j 64 --progress never '$work/long.jsonl' | zstd -1 -q >'$work/long.stdout.zst'"
	echo "| long | infer-batch to stdout (no journal) | $LONG_N × 455 KB | ${wall}s (ideal ${ideal}s) | $(awk -v i="$ideal" -v w="$wall" 'BEGIN { printf "%.3f", i / w }') of capacity |"
fi

if [ "$what" = all ] || [ "$what" = short ]; then
	awk -v n="$SHORT_N" 'BEGIN { for (i = 0; i < n; i++) printf "{\"id\":\"q%06d\",\"request\":{\"messages\":[{\"role\":\"user\",\"content\":\"Question %d: name a colour.\"}],\"max_tokens\":8}}\n", i, i }' >"$work/short.jsonl"
	ideal=$(awk -v n="$SHORT_N" 'BEGIN { printf "%.2f", n / 256 * 0.05 }')
	for bin in "${clients[@]}"; do
		start_sim --max-concurrency 256 --latency 50ms
		logged "$work/ib.err" timed "$work/$bin" --base-url "$url" --model llm-sim -j 256 --progress never -o "$work/short.out.jsonl" "$work/short.jsonl"
		echo "| short | $bin -j 256 | $SHORT_N records | ${wall}s (ideal ${ideal}s) | $(awk -v i="$ideal" -v w="$wall" 'BEGIN { printf "%.3f", i / w }') of capacity | cpu $(awk -v c="$cpu" -v n="$SHORT_N" 'BEGIN { printf "%.3f", c * 1000 / n }') ms/request |"
	done
fi

if [ "$what" = all ] || [ "$what" = prefix ]; then
	lif "${PREFIX_LENGTHS:-8k,16k}" "$work/lif.jsonl"
	n=$(wc -l <"$work/lif.jsonl")
	# The grid as generated (one context's prompts next to each other) and
	# shuffled (seeded), as after merging shards or sorting by another key.
	awk 'BEGIN { srand(17) } { printf "%.9f\t%s\n", rand(), $0 }' "$work/lif.jsonl" | sort -k1,1 | cut -f2- >"$work/lif.shuf.jsonl"
	for order in lif lif.shuf; do
		for d in input prefix; do
			# A cache of 16k tokens: one 16k context or two 8k ones (6 in the grid); prefill at 100k tokens/s.
			start_sim --max-concurrency 64 --latency 20ms --prefill-tokens-per-sec 100000 --prefix-cache-tokens 16384
			logged "$work/ib.err" timed "$work/infer-batch" --dispatch "$d" --base-url "$url" --model llm-sim -j 64 --progress never -o "$work/$order.$d.out.jsonl" "$work/$order.jsonl"
			hit=$(metric prefix_cache_hit_tokens)
			reuse=$(metric prefix_cache_reusable_tokens)
			prompt=$(metric prompt_tokens)
			echo "| prefix | $order.jsonl, --dispatch $d | $n LIFBench ${PREFIX_LENGTHS:-8k,16k} prompts | ${wall}s | hit $hit of reusable $reuse tokens = $(awk -v h="$hit" -v r="$reuse" 'BEGIN { printf "%.3f", h / r }') | prompt tokens $prompt |"
		done
		cmp <(jq -c '[.id, .response.text]' "$work/$order.input.out.jsonl") <(jq -c '[.id, .response.text]' "$work/$order.prefix.out.jsonl") && echo "| prefix | $order.jsonl: outputs of both orders identical (ids, order, replies) |"
	done
fi

if [ "$what" = all ] || [ "$what" = batch ]; then
	lif "${BATCH_LENGTHS:-4k}" "$work/lif4.jsonl"
	n=$(wc -l <"$work/lif4.jsonl")
	start_sim --max-concurrency 64 --latency 20ms
	logged "$work/ib.err" timed "$work/infer-batch" --base-url "$url" --model llm-sim -j 64 --progress never -o "$work/lif4.online.jsonl" "$work/lif4.jsonl"
	echo "| batch | online -j 64 | $n LIFBench 4k prompts | ${wall}s |"
	logged "$work/ib.err" timed "$work/infer-batch" --batch-api --batch-poll 2s --base-url "$url" --model llm-sim --progress never -o "$work/lif4.batch.jsonl" "$work/lif4.jsonl"
	same=no
	cmp -s <(jq -c '[.id, .response.text, .response.finish_reason, .response.usage]' "$work/lif4.online.jsonl") \
		<(jq -c '[.id, .response.text, .response.finish_reason, .response.usage]' "$work/lif4.batch.jsonl") && same=yes
	echo "| batch | --batch-api (upload, create, poll, download) | $n LIFBench 4k prompts | ${wall}s | records identical to online: $same |"
fi
