#!/usr/bin/env bash
# The whole pipeline on a Slurm cluster, as three dependent jobs: the inference
# array (infer-array.sbatch), the judge array over the same parts
# (judge-array.sbatch, --dependency=afterok on the first), and the report
# (aggregate-ifs over the judged parts, afterok on the judge). Run it from the
# checkout; it prints the three job ids.
#
#   REQUESTS=out/eifbench/requests.jsonl.zst OUT=out/eifbench SHARDS=16 \
#     OPENAI_BASE_URL=http://gpu01:8000/v1 JUDGE_BASE_URL=http://gpu02:8000/v1 \
#     pipelines/slurm/pipeline.sh --partition=gpu
#
# Writes OUT/parts/ (answers), OUT/judged/ (scored checks), OUT/report.txt,
# logs under each folder's logs/ (the tasks' attempt logs, and Slurm's own
# slurm-<job>_<task>.out of each task). Arguments are passed to every sbatch
# (partition, account, time limit). A task that fails holds the later jobs
# (afterok) and is cancelled with them: fix the cause, re-run the failed tasks with the same variables
# (`sbatch --array=3 pipelines/slurm/infer-array.sbatch`), then run this
# script again; every part resumes where it stopped.
#
# Environment: REQUESTS (required), OUT (default out/cluster), SHARDS (N,
# default 16), AT_ONCE (array tasks running at once, default 4), and what the
# two array scripts read (JOBS, MODEL, INFER_ARGS, JUDGE_ARGS, JUDGE_MODEL,
# LOG_FORMAT, endpoints and keys).
set -euo pipefail
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
case ${1-} in -h | --help) ifkit_help; exit 0 ;; esac
requests=${REQUESTS:-}
[[ -n $requests ]] || ifkit_usage "set REQUESTS to the request file"
out=${OUT:-out/cluster}
out=${out%/}
n=${SHARDS:-16}
at_once=${AT_ONCE:-4}
[[ $n =~ ^[1-9][0-9]*$ ]] || ifkit_usage "SHARDS=$n: want a number of shards, 1 or more"
[[ $at_once =~ ^[1-9][0-9]*$ ]] || ifkit_usage "AT_ONCE=$at_once: want a number of tasks, 1 or more"
here=$(cd "$(dirname "$0")" && pwd)
ifkit_find_programs
# The jobs inherit this environment: the programs found here, and the
# checkout whose pipelines/lib.sh the array scripts source.
export IFKIT_ROOT=$ifkit_root SHARDS=$n
mkdir -p "$out/logs" "$out/parts/logs" "$out/judged/logs"
infer=$(REQUESTS=$requests OUT=$out/parts sbatch --parsable "$@" --output="$out/parts/logs/slurm-%A_%a.out" \
  --array="0-$((n - 1))%$at_once" "$here/infer-array.sbatch")
infer=${infer%%;*}
judge=$(IN=$out/parts OUT=$out/judged sbatch --parsable "$@" --output="$out/judged/logs/slurm-%A_%a.out" \
  --dependency="afterok:$infer" --kill-on-invalid-dep=yes \
  --array="0-$((n - 1))%$at_once" "$here/judge-array.sbatch")
judge=${judge%%;*}
report=$(sbatch --parsable "$@" --dependency="afterok:$judge" --kill-on-invalid-dep=yes --job-name=ifkit-report \
  --output="$out/logs/report-%j.log" \
  --wrap="aggregate-ifs -o '$out/report.txt' '$out/judged/'")
report=${report%%;*}
echo "inference array $infer, judge array $judge, report $report: $out/report.txt" >&2
echo "$infer $judge $report"
