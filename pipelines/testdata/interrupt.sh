#!/usr/bin/env bash
# interrupt.sh stands for every ifkit program in a pipeline script under test
# (IFKIT_BIN is a folder of links to it, named like the programs). It runs the
# real program from IFKIT_REAL_BIN, except the first time the program named
# INTERRUPT_STAGE runs: then it is Ctrl-C in the middle of that stage. The
# stage's input (its last argument) reaches it through a FIFO that holds back
# the second half of its lines; once the stage has started its output
# (FILE.partial, when INTERRUPT_WAIT_PARTIAL is set) SIGINT goes to the whole
# process group, as a terminal sends it, and the rest of the input is cut off
# only after the program said it got the signal. A stage without an input
# file (gen-context) gets the SIGINT as it ends.
set -u
prog=${0##*/}
real=$IFKIT_REAL_BIN/$prog
if [[ $prog != "$INTERRUPT_STAGE" || -e $INTERRUPT_TMP/done ]]; then
	exec "$real" "$@"
fi
: >"$INTERRUPT_TMP/done"
read -r _ _ _ _ pgid _ </proc/$$/stat
out= prev=
for a in "$@"; do
	[[ $prev == -o ]] && out=$a
	prev=$a
done
in=${!#}
if [[ ! -f $in ]]; then
	# A generator is done in milliseconds: the Ctrl-C comes as it ends,
	# before the script can record its output as complete.
	"$real" "$@"
	kill -INT -- "-$pgid"
	exit 130
fi
fifo=$INTERRUPT_TMP/fifo
mkfifo "$fifo"
(
	trap '' INT
	zstd -dcqf "$in" >"$INTERRUPT_TMP/plain"
	lines=$(wc -l <"$INTERRUPT_TMP/plain")
	exec 3>"$fifo"
	head -n $((lines / 2)) "$INTERRUPT_TMP/plain" >&3
	if [[ -n ${INTERRUPT_WAIT_PARTIAL:-} ]]; then
		until [[ -e $out.partial ]]; do sleep 0.02; done
	fi
	kill -INT -- "-$pgid"
	until [[ -e $INTERRUPT_TMP/signalled ]]; do sleep 0.02; done
	exec 3>&-
) &
"$real" "${@:1:$#-1}" "$fifo" 2> >(trap '' INT; tee /dev/stderr | {
	grep -q 'signal received' && : >"$INTERRUPT_TMP/signalled"
	cat >/dev/null
})
