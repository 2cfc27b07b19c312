#!/usr/bin/env bash
# The same sharding without a scheduler: N infer-batch processes, P at a time,
# each answering the records whose hash(id) mod N is its index, into its own
# part file; rerunning continues every part (--resume). The union of the parts
# is exactly the input, and the parts concatenate.
#
#   OPENAI_BASE_URL=http://gpu01:8000/v1 pipelines/xargs-shards.sh requests.jsonl.zst out/parts 8 4
#   cat out/parts/part-*.jsonl.zst | judge | aggregate-ifs
#
# Arguments: REQUESTS OUTDIR [N shards, default 4] [P at a time, default N].
# Environment: JOBS (requests in flight per process, default 16; the server sees
# P × JOBS), MODEL, INFER_ARGS (more infer-batch flags).
set -euo pipefail
requests=${1:?usage: xargs-shards.sh REQUESTS OUTDIR [N] [P]}
out=${2:?usage: xargs-shards.sh REQUESTS OUTDIR [N] [P]}
n=${3:-4}
p=${4:-$n}
mkdir -p "$out"
export requests out n MODEL="${MODEL:-}" JOBS="${JOBS:-16}" INFER_ARGS="${INFER_ARGS:-}"
seq 0 $((n - 1)) | xargs -P "$p" -I{} bash -c '
  part=$(printf "%s/part-%05d-of-%05d.jsonl.zst" "$out" {} "$n")
  # shellcheck disable=SC2086 # INFER_ARGS is a list of flags
  exec infer-batch --shard {}/"$n" --resume -j "$JOBS" ${MODEL:+--model "$MODEL"} \
    --progress never $INFER_ARGS -o "$part" "$requests"'
