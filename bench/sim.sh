# Shell helpers of the benchmarks that run llm-sim and infer-batch (sourced).
# The caller sets $work (a temporary folder with the built llm-sim) first.

sim_pid=
cleanup() {
	[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# start_sim FLAGS...: runs llm-sim on a free port, sets $url.
start_sim() {
	stop_sim
	"$work/llm-sim" --addr 127.0.0.1:0 "$@" >"$work/sim.url" 2>"$work/sim.err" &
	sim_pid=$!
	for _ in $(seq 100); do
		[ -s "$work/sim.url" ] && break
		sleep 0.05
	done
	url=$(head -1 "$work/sim.url")
	[ -n "$url" ] || { cat "$work/sim.err" >&2; exit 1; }
}
stop_sim() {
	if [ -n "$sim_pid" ]; then
		kill "$sim_pid" 2>/dev/null || true
		wait "$sim_pid" 2>/dev/null || true
		sim_pid=
	fi
}

# timed CMD...: runs CMD under /usr/bin/time; sets wall, cpu (user+sys, s), rss (KB).
timed() {
	/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@"
	read -r wall user sys rss <"$work/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}
