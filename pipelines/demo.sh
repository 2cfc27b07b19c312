#!/usr/bin/env bash
# make demo: every benchmark end to end against a local llm-sim, on small grids
# so it finishes in a few minutes on a laptop. llm-sim is a test double: the
# numbers describe the simulator (two simulated models, a strong and a weak
# one), not any real model. Results: OUT/<bench>/<model>/report.md, report.jsonl and
# report.html, OUT/<bench>/compare.md (both models side by side, sim-strong compared with
# sim-weak) with OUT/<bench>/flips.jsonl (the items whose score changed),
# OUT/summary.md with every report and OUT/report.html with every figure.
#
#   pipelines/demo.sh [OUT]      (finds or builds the programs itself: pipelines/lib.sh)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
case ${1-} in -h | --help) ifkit_help; exit 0 ;; esac
ifkit_find_programs
out=${1:-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

# Two simulated models on one server: "sim-strong" and "sim-weak", whose skill
# also decays with prompt length (by half at 4,096 tokens), so on this small
# grid the LIFBench scores fall with length (pipelines/demo_test.go checks it).
# An earlier demo's URL must not be read for this server's (bench/sim.sh).
rm -f "$out/llm-sim.url"
llm-sim --addr 127.0.0.1:0 --model sim-strong=0.95 --model sim-weak=0.6 --skill-decay 0.5 --skill-decay-tokens 4096 \
  --latency 5ms --tokens-per-sec 20000 --max-concurrency 64 --seed 7 \
  >"$out/llm-sim.url" 2>"$out/llm-sim.log" &
sim=$!
trap 'kill "$sim" 2>/dev/null; wait "$sim" 2>/dev/null || true' EXIT
for _ in $(seq 200); do [ -s "$out/llm-sim.url" ] && break; sleep 0.05; done
url=$(head -n 1 "$out/llm-sim.url")
[ -n "$url" ] || { echo "demo: llm-sim did not start (see $out/llm-sim.log)" >&2; exit 1; }
export OPENAI_BASE_URL=$url JUDGE_BASE_URL=$url
echo "demo: llm-sim at $url (a test double; the numbers describe the simulator)" >&2

for model in sim-strong sim-weak; do
  run() { # bench, args...
    local bench=$1; shift
    echo "demo: $bench with $model" >&2
    bash "$here/$bench.sh" --model "$model" --out "$out/$bench/$model" "$@" >/dev/null
  }
  run lifbench --lengths 1k,2k,4k
  run ifscale --densities 10,50,100,200 --seeds 0,1,2,3,4
  run longins --lengths 256,512,1024 --modes gist,list
  run longgenbench --version short --count 1 --judge-model sim-strong
  run eifbench --judge-model sim-strong
done

# Both models in one table per benchmark, compared item by item.
for bench in lifbench ifscale longins longgenbench eifbench; do
  aggregate-ifs --compare sim-weak --flips "$out/$bench/flips.jsonl" -o "$out/$bench/compare.md" \
    "$out/$bench"/sim-*/judged.jsonl.zst
done

{
  echo "# ifkit demo (llm-sim test double; not a real model)"
  for f in "$out"/*/compare.md "$out"/*/*/report.md; do
    printf '\n## %s\n\n' "${f#"$out"/}"
    cat "$f"
  done
} >"$out/summary.md"
# One page with every benchmark's figures, both models side by side, and the
# items behind them: its explorer opens on both models and their run diff.
aggregate-ifs --html "$out/report.html" "$out"/*/*/judged.jsonl.zst >/dev/null
echo "demo: reports in $out/*/*/report.md; all of them in $out/summary.md; figures in $out/report.html" >&2
