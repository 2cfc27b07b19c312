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

ifkit_find_programs
