# Shell helpers of the benchmark scripts (sourced). The caller sets $work (a
# folder for the run's files) first, and keep_work when the folder is the
# user's: otherwise it is removed at exit. start_sim runs $work/llm-sim when
# the script built its own programs there, else llm-sim from PATH.

# A command that fails under set -e ends the script: say where, and what
# unless it was a helper's return (logged has said what and why).
set -E
trap 'bench_failed $? "${BASH_SOURCE[0]:-$0}" "$LINENO" "$BASH_COMMAND"' ERR
bench_failed() {
	local what=": $4"
	[[ $4 == return* ]] && what=
	echo "bench: $2:$3: failed (exit $1)$what" >&2
}

# logged LOG CMD...: CMD with its stderr in the file LOG, kept out of the
# script's output (a log the script reads afterwards, or noise); when CMD
# fails, the end of LOG goes to the script's stderr with the command, and
# logged returns CMD's status, so a stage of a pipeline says why it failed.
# This is the one way a benchmark script sets a program's stderr aside.
logged() {
	local log=$1 rc=0
	shift
	"$@" 2>"$log" || rc=$?
	[ "$rc" = 0 ] && return
	local cmd=("$@")
	[ "$1" = timed ] && cmd=("${cmd[@]:1}")
	if [ "$rc" = 141 ]; then
		# SIGPIPE: what it wrote to stopped reading, and says why itself.
		echo "bench: stopped (exit 141, its reader is gone): ${cmd[*]}" >&2
		return "$rc"
	fi
	echo "bench: failed (exit $rc): ${cmd[*]}" >&2
	echo "bench: the end of its stderr ($log):" >&2
	tail -n 40 "$log" | sed 's/^/  /' >&2
	return "$rc"
}

sim_pid=
cleanup() {
	stop_sim
	[ -n "${keep_work:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

# start_sim FLAGS...: runs llm-sim on a free port, sets $url.
start_sim() {
	stop_sim
	local bin=llm-sim
	[ -x "$work/llm-sim" ] && bin=$work/llm-sim
	# The previous server's URL must not be read for this one's: the new
	# process may not have truncated the file yet when the loop below looks.
	rm -f "$work/sim.url"
	"$bin" --addr 127.0.0.1:0 "$@" >"$work/sim.url" 2>"$work/sim.err" &
	sim_pid=$!
	for _ in $(seq 200); do
		[ -s "$work/sim.url" ] && break
		sleep 0.05
	done
	url=$(head -1 "$work/sim.url")
	[ -n "$url" ] || { echo "bench: llm-sim did not start" >&2; cat "$work/sim.err" >&2; exit 1; }
}
stop_sim() {
	if [ -n "$sim_pid" ]; then
		kill "$sim_pid" 2>/dev/null || true
		wait "$sim_pid" 2>/dev/null || true
		sim_pid=
	fi
}

# timed CMD...: runs CMD under /usr/bin/time; sets wall, cpu (user+sys, s), rss (KB).
# It returns CMD's status; logged LOG timed CMD... keeps CMD's stderr aside.
timed() {
	/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" || return
	read -r wall user sys rss <"$work/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}
