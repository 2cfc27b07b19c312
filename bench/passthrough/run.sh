#!/usr/bin/env bash
# Pass-through throughput (issue 2): read a zstd JSONL stream, parse every
# record, add a field, write zstd level 1, side by side with
#   zstd -dc | jq -c '. + {x: 1}' | zstd -1     (the usual shell pipeline)
#   zstd -dc > /dev/null                         (the ceiling: decompression alone)
# and a pure pass-through through a real stage (split-subtasks keeps records of
# benchmarks it does not split unchanged). MB/s are MB (10^6 bytes) of
# uncompressed JSONL per wall-clock second; RSS is the peak of the largest process.
#
#   bench/passthrough/run.sh [MiB]        # default 1024: a ~1 GB corpus
#
# The corpus is generated once (seeded) under bench/data/ (git-ignored).
# Environment: REPEAT (runs per command, best time kept; default 3), SEED (1),
# DATA (the folder of the corpus and the results, default bench/data).
set -euo pipefail
cd "$(dirname "$0")/../.."
mib=${1:-1024}
repeat=${REPEAT:-3}
seed=${SEED:-1}
for cmd in zstd jq /usr/bin/time; do
	command -v "$cmd" >/dev/null || { echo "run.sh: needs $cmd (apt-get install zstd jq time)" >&2; exit 2; }
done

work=$(mktemp -d)
. bench/sim.sh
go build -o "$work/" ./tools/... ./bench/passthrough/addfield ./bench/passthrough/gen

dir=${DATA:-bench/data}
mkdir -p "$dir"
data=$dir/passthrough-${mib}m-s${seed}.jsonl.zst
if [ ! -s "$data" ]; then
	echo "generating $data ..." >&2
	"$work/gen" -mb "$mib" -seed "$seed" | zstd -1 -q -T2 -o "$data.tmp"
	mv "$data.tmp" "$data"
fi
bytes=$(zstd -dc "$data" | wc -c)
records=$(zstd -dc "$data" | wc -l)

# The programs must do the work, not just run: check their output. They are
# told to write zstd: --compress auto writes plain JSONL to a pipe or /dev/null.
n=$(logged "$work/addfield.err" "$work/addfield" --progress never --compress zstd "$data" | zstd -dc | grep -c ',"x":1}$')
[ "$n" = "$records" ] || { echo "run.sh: addfield added the field to $n of $records records" >&2; exit 1; }
n=$(logged "$work/split.err" "$work/split-subtasks" --progress never --compress zstd "$data" | zstd -dc | wc -l)
[ "$n" = "$records" ] || { echo "run.sh: split-subtasks wrote $n of $records records" >&2; exit 1; }

# measure NAME COMMAND: best wall time of $repeat runs, and the peak RSS.
measure() {
	local name=$1 cmd=$2 best="" peak=0
	for _ in $(seq "$repeat"); do
		logged "$work/err" timed bash -o pipefail -c "$cmd" >/dev/null
		if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$wall; fi
		[ "$rss" -gt "$peak" ] && peak=$rss
	done
	printf '%s\t%s\t%s\n' "$name" "$best" "$peak" >>"$work/results"
}

measure "ceiling: zstd -dc > /dev/null" "zstd -dc '$data'"
measure "ifkit: addfield (parse, Set x, zstd -1 out)" "'$work/addfield' --progress never --compress zstd '$data'"
measure "ifkit: split-subtasks (pass-through, zstd -1 out)" "'$work/split-subtasks' --progress never --compress zstd '$data'"
measure "baseline: zstd -dc \\| jq -c '. + {x: 1}' \\| zstd -1" "zstd -dc '$data' | jq -c '. + {x: 1}' | zstd -1 -q"

{
	echo "Pass-through, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(go version | cut -d' ' -f3), $(zstd --version | grep -o 'v[0-9.]*'), $(jq --version)"
	echo "input: $data, $((bytes / 1000000)) MB of JSONL ($records records), $(($(stat -c %s "$data") / 1000000)) MB zstd; best of $repeat runs"
	echo
	echo "| command | seconds | MB/s | peak RSS (MB) |"
	echo "|---|---:|---:|---:|"
	awk -F'\t' -v bytes="$bytes" '{printf "| %s | %.2f | %.0f | %.0f |\n", $1, $2, bytes/1e6/$2, $3/1024}' "$work/results"
	echo
	awk -F'\t' 'NR==1{c=$2} NR==2{a=$2} NR==3{s=$2} NR==4{j=$2} END{
		printf "addfield vs jq pipeline: %.1fx faster; split-subtasks vs jq: %.1fx; addfield at %.0f%% of the zstd -dc ceiling\n", j/a, j/s, 100*c/a}' "$work/results"
} | tee "$dir/passthrough-results-$(date -u +%Y%m%d-%H%M).md"
