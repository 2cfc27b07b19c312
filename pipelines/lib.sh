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

# The flags every script accepts the same way. In a script's argument loop,
#   *) ifkit_common_flag "$@" || { echo "x.sh: unknown argument $1" >&2; exit 2; }; shift "$ifkit_shift" ;;
# sets base_url, model, out, jobs, max_failures or retry_errors from $1 (and
# $2) and ifkit_shift to the words used; it fails when $1 is not one of them.
#   --retry-errors  the rerun also sends the records that failed for good
#                   (400/401/403/404/422, context_length); transient failures
#                   are sent again by any rerun
# Extra infer-batch and judge flags come from INFER_ARGS and JUDGE_ARGS.
ifkit_common_flag() {
	ifkit_shift=2
	case $1 in
	--base-url) base_url=$2 ;;
	--model) model=$2 ;;
	--out) out=$2 ;;
	-j) jobs=$2 ;;
	--max-failures) max_failures=$2 ;;
	--retry-errors) retry_errors=--retry-errors; ifkit_shift=1 ;;
	*) return 1 ;;
	esac
	if [[ $ifkit_shift == 2 && $# -lt 2 ]]; then
		echo "$(basename "$0"): $1 needs a value" >&2
		exit 2
	fi
}
retry_errors=
