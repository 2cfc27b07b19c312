#!/usr/bin/env bash
# The HTML report's item explorer (issue 25): the full LIFBench grid (6 lengths
# 4k…128k × 11 tasks = 2,802 prompts of up to 120k context tokens) answered by
# two llm-sim models, 5,604 items in one page.
#   1. aggregate-ifs --html over both models: wall time, peak RSS and the page's
#      size (target: under ~25 MB)
#   2. the page in headless chromium (tests/browser TestOpenTime): time until
#      the explorer is ready (target: within 2 s), its JavaScript heap, a
#      figure's mark clicked, an item opened, the run diff, the longest task
#   3. the same with --html-contexts excerpts and full
#   4. a larger input: the two models' records copied as COPIES more runs
#      (default 20: 22 × 2,802 = 61,644 items), past the page's budget for
#      item details: it must degrade, say so, and still open quickly
# Beside each page, aggregate-ifs without --html on the same input (the
# explorer's cost) and what the page holds: the index, the item details and
# the whole contexts (base64 of gzip).
#
#   make build && PATH=$PWD/bin:$PATH bench/explorer/run.sh [WORKDIR]
#
# Environment: LIFBENCH_LENGTHS (gen-context --lengths, default the official
# six), COPIES (step 4), BROWSER=no leaves out the chromium steps (also left
# out, saying so, without chromium).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$(mktemp -d)} keep_work=${1:-}
. "$here/../sim.sh"
mkdir -p "$work"
rm -rf "$work"/*.zst "$work"/run-* "$work"/*.html "$work/sim.url"
lengths=(${LIFBENCH_LENGTHS:+--lengths "$LIFBENCH_LENGTHS"})
copies=${COPIES:-20}

browser=yes
if [ "${BROWSER:-}" = no ]; then
	browser="no (BROWSER=no)"
elif ! command -v chromium >/dev/null 2>&1; then
	browser="no (no chromium on PATH)"
fi

logged "$work/gen.err" gen-context lifbench "${lengths[@]}" --progress never |
	logged "$work/expand.err" expand-templates --progress never -o "$work/requests.jsonl.zst"
n=$(zstd -dc "$work/requests.jsonl.zst" | wc -l)
echo "prompts: $n per model"

# Each model's judged records in a folder of their own: two runs, read side by side.
start_sim --model sim-strong=0.95 --model sim-weak=0.6 --seed 7
for model in sim-strong sim-weak; do
	logged "$work/ib.err" infer-batch --base-url "$url" --model "$model" -j 8 --progress never \
		-o "$work/$model.jsonl.zst" "$work/requests.jsonl.zst"
	logged "$work/judge.err" judge --progress never -o "$work/run-$model/" --partition-by bench "$work/$model.jsonl.zst"
done
stop_sim

# parts FILE: the MB of the page's index, item details and whole contexts.
parts() {
	grep -o 'id="x-[^"]*">[^<]*' "$1" | awk -F'">' '
		$1 == "id=\"x-index" { i += length($2) }
		$1 ~ /^id="x-b[0-9]/ { d += length($2) }
		$1 ~ /^id="x-c-/ { c += length($2) }
		END { printf "index %.1f, details %.1f, contexts %.1f", i / 1e6, d / 1e6, c / 1e6 }'
}

# page NAME MODE DIR...: aggregate-ifs --html $work/NAME.html --html-contexts
# MODE over the folders, timed (beside aggregate-ifs without --html on them, for
# MODE auto); prints the page's size and what it says it left out, then opens
# it in chromium.
page() {
	local name=$1 mode=$2
	shift 2
	if [ "$mode" = auto ]; then
		logged "$work/aggregate.err" timed aggregate-ifs --progress never -o "$work/$name.md" "$@"
		echo "| $name | aggregate-ifs (no --html) | ${wall} s wall, ${cpu} s CPU, peak RSS $((rss / 1024)) MB | |"
	fi
	logged "$work/aggregate.err" timed aggregate-ifs --progress never --html "$work/$name.html" --html-contexts "$mode" -o "$work/$name.md" "$@"
	local mb
	mb=$(awk -v b="$(stat -c %s "$work/$name.html")" 'BEGIN { printf "%.1f", b / 1e6 }')
	echo "| $name | aggregate-ifs --html --html-contexts $mode | ${wall} s wall, ${cpu} s CPU, peak RSS $((rss / 1024)) MB | page ${mb} MB: $(parts "$work/$name.html") |"
	grep -o '<p class="warn x-note">[^<]*' "$work/$name.html" | sed 's/<p class="warn x-note">/  note: /' || true
	if [ "$browser" = yes ]; then
		(cd "$here/../../tests/browser" && EXPLORER_PAGE="$work/$name.html" go test -count=1 -run '^TestOpenTime$' -v . 2>&1) |
			grep -E '^explorer page:|FAIL|Error|error' | sed "s/^/| $name | chromium | /" || true
	fi
}
page two-models auto "$work/run-sim-strong" "$work/run-sim-weak"
page excerpts excerpts "$work/run-sim-strong" "$work/run-sim-weak"
page full full "$work/run-sim-strong" "$work/run-sim-weak"

# COPIES more runs of the same records under other model names: more items
# than the page's budget for details holds.
copies_dirs=()
for i in $(seq "$copies"); do
	from=sim-strong
	[ $((i % 2)) = 0 ] && from=sim-weak
	zstd -dc "$work/$from.jsonl.zst" | sed "s/\"model\":\"$from\"/\"model\":\"copy-$i\"/" |
		logged "$work/judge.err" judge --progress never -o "$work/run-copy-$i/" --partition-by bench
	copies_dirs+=("$work/run-copy-$i")
done
page larger auto "$work/run-sim-strong" "$work/run-sim-weak" "${copies_dirs[@]}"
echo "chromium: $browser"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%F)"
