#!/usr/bin/env bash
# The same sharding without a scheduler: N infer-batch processes, P at a time,
# each answering the records whose hash(id) mod N is its index, into
# OUTDIR/part-IIIII-of-NNNNN.jsonl.zst with a manifest beside it, as the Slurm
# array does (docs/cluster.md); rerunning continues every part (--resume), and
# OUTDIR is one input to the next stage, checked as a set (exit 3 naming a
# missing, unfinished or foreign part).
#
#   OPENAI_BASE_URL=http://gpu01:8000/v1 pipelines/xargs-shards.sh requests.jsonl.zst out/parts 8 4
#   judge out/parts/ | aggregate-ifs
#
# Arguments: REQUESTS OUTDIR [N shards, default 4] [P at a time, default N].
# Environment: JOBS (requests in flight per process, default 16; the server sees
# P × JOBS), MODEL, INFER_ARGS (more infer-batch flags).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
case ${1-} in -h | --help) ifkit_help; exit 0 ;; esac
(($# >= 2 && $# <= 4)) || ifkit_usage "want REQUESTS OUTDIR [N] [P], got $# arguments"
requests=$1 out=$2 n=${3:-4} p=${4:-${3:-4}}
[[ $n =~ ^[1-9][0-9]*$ ]] || ifkit_usage "N=$n: want a number of shards, 1 or more"
[[ $p =~ ^[1-9][0-9]*$ ]] || ifkit_usage "P=$p: want a number of processes, 1 or more"
ifkit_find_programs
mkdir -p "$out"
export requests out n MODEL="${MODEL:-}" JOBS="${JOBS:-16}" INFER_ARGS="${INFER_ARGS:-}"
# One process per shard, one writer per part (a second run of the same shard
# exits 2); xargs exits 123 when any of them failed.
seq 0 $((n - 1)) | xargs -P "$p" -I{} bash -c '
  # shellcheck disable=SC2086 # INFER_ARGS is a list of flags
  exec infer-batch --shard {}/"$n" --resume -j "$JOBS" ${MODEL:+--model "$MODEL"} \
    --progress never $INFER_ARGS -o "$out/" "$requests"'
