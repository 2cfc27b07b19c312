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
# logs under each folder's logs/. Arguments are passed to every sbatch
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
requests=${REQUESTS:?set REQUESTS to the request file}
out=${OUT:-out/cluster}
out=${out%/}
n=${SHARDS:-16}
at_once=${AT_ONCE:-4}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
if [[ -x $root/bin/aggregate-ifs ]]; then PATH=$root/bin:$PATH; fi
mkdir -p "$out/logs"
export SHARDS=$n
infer=$(REQUESTS=$requests OUT=$out/parts sbatch --parsable "$@" \
  --array="0-$((n - 1))%$at_once" "$here/infer-array.sbatch")
infer=${infer%%;*}
judge=$(IN=$out/parts OUT=$out/judged sbatch --parsable "$@" --dependency="afterok:$infer" --kill-on-invalid-dep=yes \
  --array="0-$((n - 1))%$at_once" "$here/judge-array.sbatch")
judge=${judge%%;*}
report=$(sbatch --parsable "$@" --dependency="afterok:$judge" --kill-on-invalid-dep=yes --job-name=ifkit-report \
  --output="$out/logs/report-%j.log" \
  --wrap="aggregate-ifs -o '$out/report.txt' '$out/judged/'")
report=${report%%;*}
echo "inference array $infer, judge array $judge, report $report: $out/report.txt" >&2
echo "$infer $judge $report"
