#!/usr/bin/env bash
# Times gen-context longins | expand-templates for all seven lengths
# (256..16384 tokens) on a synthetic source of 1,400 tasks, the paper's
# scale (1,409 tasks per length). Issue 5 asks for under 30 s. The task
# source is written by awk: 1,400 tasks x 80 instances of 15-60 words.
#
#   make build && PATH=$PWD/bin:$PATH bench/longins/run.sh [WORKDIR] [MODES]
#
# Environment: TASKS and INSTANCES (the synthetic source, default 1400 x 80),
# LONGINS_LENGTHS (gen-context --lengths, default all seven).
set -euo pipefail
work=${1:-$(mktemp -d)} keep_work=${1:-}
. "$(dirname "$0")/../sim.sh"
modes=${2:-gist}
mkdir -p "$work"
awk -v tasks="${TASKS:-1400}" -v instances="${INSTANCES:-80}" 'BEGIN {
	srand(1)
	n = split("market price order report share value growth client board plan risk asset fund loan bank cost sale trade stock rate tax firm deal term unit goal team data policy budget credit", w, " ")
	for (t = 0; t < tasks; t++) {
		printf "{\"Name\":\"synthetic_task%04d\",\"Definition\":[\"Synthetic task %d: read the passage and give the word it names.\"],\"Categories\":[\"Synthetic\"],\"Instances\":[", t, t
		for (i = 0; i < instances; i++) {
			len = 15 + int(rand() * 46)
			s = ""
			for (k = 0; k < len; k++) s = s (k ? " " : "") w[1 + int(rand() * n)]
			printf "%s{\"input\":\"%s\",\"output\":[\"%s\"]}", (i ? "," : ""), s, w[1 + int(rand() * n)]
		}
		print "]}"
	}
}' >"$work/tasks.jsonl"
echo "task source: $(wc -l <"$work/tasks.jsonl") tasks, $(du -h "$work/tasks.jsonl" | cut -f1)"

start=$(date +%s.%N)
logged "$work/gen.log" gen-context longins ${LONGINS_LENGTHS:+--lengths "$LONGINS_LENGTHS"} --progress never --tasks "$work/tasks.jsonl" --modes "$modes" |
	logged "$work/expand.log" expand-templates --progress never -o "$work/requests.jsonl.zst"
end=$(date +%s.%N)
echo "modes $modes: $(grep -o 'written=[0-9]*' "$work/gen.log") exams, $(du -h "$work/requests.jsonl.zst" | cut -f1) zstd," \
	"$(echo "$end - $start" | bc) s ($(nproc) cores, $(date -u +%F))"
