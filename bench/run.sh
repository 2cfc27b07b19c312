#!/usr/bin/env bash
# make bench: every performance measurement, one after the other (they share
# the 2 cores, so never in parallel). The programs must be on PATH (make bench
# builds bin/ and puts it first). Results print to stdout; the dated numbers
# kept in bench/README.md are copied from such runs by hand, with the machine.
#
#   bench/run.sh [passthrough|infer|lifbench|ifscale|longins|batch|tokenizers|cache|stats|explorer]...   (default: all)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
all=(passthrough infer lifbench ifscale longins batch tokenizers cache stats explorer)
[ $# -gt 0 ] && all=("$@")
echo "# ifkit bench, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(go version | cut -d' ' -f3)"
for b in "${all[@]}"; do
  echo
  echo "## $b"
  bash "$here/$b/run.sh"
done
