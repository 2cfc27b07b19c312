# Shell helpers of the benchmarks that run llm-sim (sourced). The caller sets
# $work (a folder for the run's files) first, and keep_work when the folder
# is the user's: otherwise it is removed at exit. start_sim runs
# $work/llm-sim when the script built its own programs there, else llm-sim
# from PATH.

# A command that fails under set -e ends the script: say which, where (a
# pipeline whose stderr goes to /dev/null would otherwise end it without a
# word).
set -E
trap 'rc=$?; echo "bench: ${BASH_SOURCE[0]}:$LINENO: failed (exit $rc): $BASH_COMMAND" >&2' ERR

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
# A command that fails ends the benchmark with the end of its stderr
# ($work/ib.err, where the scripts send infer-batch's).
timed() {
	if ! /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@"; then
		echo "bench: failed: $*" >&2
		tail -20 "$work/ib.err" >&2 2>/dev/null || true
		exit 1
	fi
	read -r wall user sys rss <"$work/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}
