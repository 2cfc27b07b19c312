# pipelines/lib.sh: sourced by every pipeline script (source "$(dirname "$0")/lib.sh").
#
# It finds the ifkit programs so a script runs as the README shows it, from a
# clean PATH: IFKIT_BIN when set; else the checkout's bin/ beside the scripts;
# else the programs already on PATH; else, in a checkout with Go, it builds
# bin/ first (`go build -o bin/ ./tools/...`, as `make build` does). When none
# of these works it exits 2 saying what to do.
ifkit_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ifkit_programs=(gen-context expand-templates infer-batch split-subtasks judge aggregate-ifs)

ifkit_find_programs() {
	local p
	if [[ -n ${IFKIT_BIN:-} ]]; then
		PATH=$IFKIT_BIN:$PATH
	elif [[ -x $ifkit_root/bin/infer-batch ]]; then
		PATH=$ifkit_root/bin:$PATH
	elif ! command -v infer-batch >/dev/null && [[ -f $ifkit_root/go.mod ]] && command -v go >/dev/null; then
		echo "$(basename "$0"): building the ifkit programs into $ifkit_root/bin (once)" >&2
		(cd "$ifkit_root" && go build -trimpath -o bin/ ./tools/...) >&2 || exit 1
		PATH=$ifkit_root/bin:$PATH
	fi
	for p in "${ifkit_programs[@]}"; do
		if ! command -v "$p" >/dev/null; then
			echo "$(basename "$0"): $p not found: run \`make build\` in the ifkit checkout, set IFKIT_BIN to the folder of the programs, or put them on PATH" >&2
			exit 2
		fi
	done
	export PATH
}

# ifkit_help prints the script's header comment (line 2 up to `set -euo`) as
# the start of its usage, then a blank line.
ifkit_help() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	echo
}

# ifkit_common_help prints the flags every script accepts, each with this
# script's default ($out, $jobs, $max_failures): a script's usage is its
# header (ifkit_help), its own flags, then these.
ifkit_common_help() {
	local j=${jobs:-"each benchmark's own"}
	cat <<TXT
  --base-url URL        endpoint of the model under test (default: \$OPENAI_BASE_URL)
  --model NAME          model under test (default: the endpoint's only model)
  --out DIR             output directory (default: $out)
  -j N                  requests in flight to the model (default: $j)
  --max-failures N|P%   failed records a stage tolerates before the script exits 4 (default: $max_failures)
  --retry-errors        the rerun also sends records that failed for good (transient failures are
                        sent again by any rerun); INFER_ARGS / JUDGE_ARGS add flags to those stages
  --cache DIR           every stage that calls a model answers from and keeps its replies in the
                        cache DIR (docs/cache.md); also IFKIT_CACHE
  --limit N             only the first N items of each cell of the tables (gen-context --limit):
                        a smoke run that fills every table; its reports say so
  --reasoning-budget N  add N tokens to every request's max_tokens, for a model that thinks
                        before it answers (expand-templates --reasoning-budget; the report notes it)
  --reasoning MODE      a reasoning trace in the replies: strip (default: scored on the answer
                        after it), opened (DeepSeek-R1, QwQ templates) or keep (scored as received)
TXT
}

# The flags every script accepts the same way. In a script's argument loop,
#   *) ifkit_common_flag "$@" || { echo "x.sh: unknown argument $1" >&2; exit 2; }; shift "$ifkit_shift" ;;
# sets base_url, model, out, jobs, max_failures, retry_errors, cache, limit,
# reasoning_budget or reasoning from $1 (and $2) and ifkit_shift to the words
# used, and adds those words but --out's to ifkit_given (what
# pipelines/suite.sh passes on to each benchmark's script); it fails when $1
# is not one of them.
#   --retry-errors  the rerun also sends the records that failed for good
#                   (400/401/403/404/413/422, other 4xx, context_length); transient failures
#                   are sent again by any rerun
#   --cache DIR     every stage that calls a model (inference, an LLM judge) answers from
#                   and keeps its replies in the cache DIR (docs/cache.md); also IFKIT_CACHE
#   --reasoning-budget N  expand-templates adds N to every request's max_tokens (ifkit_expand)
#   --reasoning MODE      infer-batch, split-subtasks and judge read reasoning traces so
# Extra infer-batch and judge flags come from INFER_ARGS and JUDGE_ARGS.
ifkit_common_flag() {
	ifkit_shift=2
	case $1 in
	--base-url) base_url=${2-} ;;
	--model) model=${2-} ;;
	--out) out=${2-} ;;
	-j) jobs=${2-} ;;
	--max-failures) max_failures=${2-} ;;
	--retry-errors) retry_errors=--retry-errors; ifkit_shift=1 ;;
	--cache) cache=${2-} ;;
	--limit) limit=${2-} ;;
	--reasoning-budget) reasoning_budget=${2-} ;;
	--reasoning) reasoning=${2-}; ifkit_judge_args+=(--reasoning "${2-}") ;;
	*) return 1 ;;
	esac
	if [[ $ifkit_shift == 2 ]]; then
		ifkit_value "$@"
	fi
	if [[ $1 != --out ]]; then
		ifkit_given+=("${@:1:ifkit_shift}")
	fi
}
ifkit_given=()

# ifkit_judge_flag "$@" is ifkit_common_flag for the flags of a script whose
# checks go to an LLM judge: it sets judge_url, judge_model or judge_jobs and
# adds the words to ifkit_judge_given.
ifkit_judge_flag() {
	ifkit_shift=2
	case $1 in
	--judge-base-url) judge_url=${2-} ;;
	--judge-model) judge_model=${2-} ;;
	--judge-j) judge_jobs=${2-} ;;
	*) return 1 ;;
	esac
	ifkit_value "$@"
	ifkit_judge_given+=("$1" "$2")
}
ifkit_judge_given=()

# ifkit_judge_help WHERE prints those flags, WHERE saying which judge endpoint
# is used without either (after "default: $JUDGE_BASE_URL, ").
ifkit_judge_help() {
	cat <<TXT
  --judge-base-url URL  judge endpoint (default: \$JUDGE_BASE_URL, $1)
  --judge-model NAME    judge model (default: the judge endpoint's only model)
  --judge-j N           judge requests in flight (default: $judge_jobs)
TXT
}

# ifkit_usage MESSAGE ends a script whose arguments or environment are wrong:
# the message, where to read the usage, exit 2.
ifkit_usage() {
	echo "$ifkit_name: $1 (see $ifkit_name --help)" >&2
	exit 2
}

# ifkit_value "$@": a flag given last, without its value, is a usage error
# (exit 2), not an "unbound variable" at the first use of $2.
ifkit_value() {
	if [[ $# -lt 2 ]]; then
		echo "$(basename "$0"): $1 needs a value" >&2
		exit 2
	fi
}
retry_errors=
cache=
limit=
reasoning_budget=
reasoning=

# One set of file names for every script: each stage writes one file in $out.
#   items.jsonl.zst      gen-context      (what each item is about)
#   requests.jsonl.zst   expand-templates (the prompts)
#   responses.jsonl.zst  infer-batch      (the model's answers)
#   checks.jsonl.zst     split-subtasks   (one record per check; LongGenBench, EifBench)
#   judged.jsonl.zst     judge            (scores)
#   report.md            aggregate-ifs    (the tables, also printed on stdout)
#   report.jsonl         aggregate-ifs    (tidy metric rows, same pass)
#   report.html          aggregate-ifs    (the figures, same pass)
ifkit_name=$(basename "$0")

# ifkit_start finds the programs (after the arguments are read, so --help
# needs none), checks the endpoint and makes the output folder.
ifkit_start() {
	ifkit_find_programs
	if [[ -z ${base_url:-} ]]; then
		echo "$ifkit_name: no endpoint for the model under test: set OPENAI_BASE_URL or give --base-url" >&2
		exit 2
	fi
	mkdir -p "$out"
}

# ifkit_stage FILE PROGRAM [ARGS...] runs one stage into $out/FILE (-o goes
# after PROGRAM, or after gen-context's benchmark, which also gets --limit
# when the script was given it). A stage that recomputes
# its output is skipped when $out/FILE is complete, made by the same command
# line and newer than every file argument: a rerun then goes straight to the
# stage that stopped. A stage given --resume always runs: that is how a rerun
# finishes inference or judging (only what is missing or failed transiently
# is sent). A stage that fails ends the script with its exit code and says
# what to do.
ifkit_stage() {
	local file=$1 dest=$out/$1 stamp=$out/.$1.cmd cmd a
	shift
	if [[ $1 == gen-context && -n $limit ]]; then
		set -- "$@" --limit "$limit"
	fi
	cmd=$(printf '%q ' "$@")
	if [[ " $* " != *" --resume "* && -f $dest && -f $stamp && $(<"$stamp") == "$cmd" ]]; then
		local fresh=1
		for a in "$@"; do
			if [[ -f $a && $a -nt $dest ]]; then
				fresh=
			fi
		done
		if [[ -n $fresh ]]; then
			echo "$ifkit_name: $file is complete (same command, inputs unchanged): kept" >&2
			return 0
		fi
	fi
	rm -f "$stamp"
	if [[ $1 == gen-context ]]; then
		ifkit_run "$1" "$2" -o "$dest" "${@:3}"
	else
		ifkit_run "$1" -o "$dest" "${@:2}"
	fi
	printf '%s' "$cmd" >"$stamp"
}

# ifkit_run PROGRAM [ARGS...] runs one program; when it fails, the script
# exits with its code after one line saying what to do next.
ifkit_run() {
	local rc=0
	"$@" || rc=$?
	((rc == 0)) && return 0
	case $rc in
	2) echo "$ifkit_name: $1 refused its command line (exit 2, see above)" >&2 ;;
	3) echo "$ifkit_name: $1 found bad input (exit 3, see above): fix or regenerate it, or delete $out to start afresh" >&2 ;;
	4) echo "$ifkit_name: $1 finished, but more records failed than --max-failures ${max_failures:-0} allows (exit 4; the summary above says why): rerun the same command to send the transient failures again, with --retry-errors to send every failed record again" >&2 ;;
	1[2-9][0-9]) echo "$ifkit_name: $1 was stopped (exit $rc): rerun the same command to continue" >&2 ;;
	*) echo "$ifkit_name: $1 failed (exit $rc, see above): rerun the same command to continue once the cause is fixed" >&2 ;;
	esac
	exit "$rc"
}

# ifkit_expand [EXPAND...] runs the expand-templates command EXPAND (the
# program and the script's flags) on $out/items.jsonl.zst into
# requests.jsonl.zst, with --reasoning-budget when given.
ifkit_expand() {
	ifkit_stage requests.jsonl.zst "$@" ${reasoning_budget:+--reasoning-budget "$reasoning_budget"} "$out/items.jsonl.zst"
}

# ifkit_split cuts $out/responses.jsonl.zst into checks.jsonl.zst, reading
# reasoning traces as --reasoning says.
ifkit_split() {
	ifkit_stage checks.jsonl.zst split-subtasks ${reasoning:+--reasoning "$reasoning"} "$out/responses.jsonl.zst"
}

# ifkit_infer sends $out/requests.jsonl.zst to the model under test into
# responses.jsonl.zst with the common flags and INFER_ARGS. --resume reuses
# earlier replies to the same requests (and --model) only.
ifkit_infer() {
	local extra
	read -r -a extra <<<"${INFER_ARGS:-}"
	ifkit_stage responses.jsonl.zst infer-batch --base-url "$base_url" ${model:+--model "$model"} -j "$jobs" \
		--max-failures "$max_failures" --resume ${retry_errors:+"$retry_errors"} ${cache:+--cache "$cache"} \
		${reasoning:+--reasoning "$reasoning"} "${extra[@]}" "$out/requests.jsonl.zst"
}

# ifkit_judge_llm_flags sets ifkit_judge_llm to the judge flags of a script
# whose checks go to an LLM judge: $judge_url, $judge_model, $judge_jobs,
# the common --max-failures and --retry-errors, --resume, and JUDGE_ARGS.
ifkit_judge_llm_flags() {
	ifkit_judge_llm=(--judge-base-url "$judge_url" ${judge_model:+--judge-model "$judge_model"} -j "$judge_jobs"
		--max-failures "$max_failures" --resume ${retry_errors:+"$retry_errors"} ${cache:+--cache "$cache"} "${ifkit_judge_args[@]}")
}

# ifkit_judge_args: JUDGE_ARGS as words, for every script's judge stage (the
# deterministic scorers take them too, e.g. --rubric strict, --skip-invalid).
read -r -a ifkit_judge_args <<<"${JUDGE_ARGS:-}"

# ifkit_report [FLAGS...] turns $out/judged.jsonl.zst (or the files in
# ifkit_judged: the suite's benchmarks) into report.md, the tidy rows
# report.jsonl and the page report.html in one pass (FLAGS go to
# aggregate-ifs), and prints report.md. It always runs: it is cheap and says
# how complete the run is.
ifkit_report() {
	local judged=("${ifkit_judged[@]}")
	if [[ ${#judged[@]} -eq 0 ]]; then
		judged=("$out/judged.jsonl.zst")
	fi
	ifkit_run aggregate-ifs --format md --rows "$out/report.jsonl" --html "$out/report.html" -o "$out/report.md" "$@" "${judged[@]}"
	cat "$out/report.md"
}
ifkit_judged=()

# ifkit_task_log NAME DIR TASK JOB [ATTEMPT] sends the rest of an array
# task's stderr to its own log, DIR/logs/<job>_<task>[.attempt<n>].log (Slurm
# gives the attempt, so a requeue never overwrites the first attempt's log;
# the other schedulers' reruns append after a line naming the run); one line
# in the scheduler's own output says where.
ifkit_task_log() {
	mkdir -p "$2/logs"
	local log=$2/logs/${4}_${3}${5:+.attempt$5}.log
	echo "$1: task $3 of job $4 on $(hostname)${5:+, attempt $5}; log $log" >&2
	echo "--- $(date -u +%FT%TZ) task $3 of job $4 on $(hostname)${5:+, attempt $5}" >>"$log"
	exec 2>>"$log"
}
