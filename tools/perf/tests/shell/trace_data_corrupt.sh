#!/bin/bash
# perf.data: corrupt tracing data is refused, not crashed on
# SPDX-License-Identifier: GPL-2.0
#
# The tracing data of a tracepoint recording (its feature
# HEADER_TRACING_DATA) made corrupt with lib/tracing_data_edit.py: perf
# report and perf script refuse it, saying why, and don't die of a signal.

set -e

err=0
tracing_data_edit="$(dirname "$0")/lib/tracing_data_edit.py"
bad=$(mktemp /tmp/__perf_test.trace_data_corrupt.XXXXXX)
log=$(mktemp /tmp/__perf_test.trace_data_corrupt.XXXXXX)

cleanup() {
	rm -f "${bad}" "${log}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	echo "Unexpected signal in ${FUNCNAME[1]}"
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

# shellcheck source=lib/skip.sh
. "$(dirname "$0")/lib/skip.sh"

command -v python3 > /dev/null || skip "no python3 to edit the tracing data"
perf check feature -q libtraceevent || skip "perf is built without libtraceevent"
perf record -q -e sched:sched_process_exec -o /dev/null -- true > /dev/null 2>&1 ||
	skip "the tracepoint sched:sched_process_exec can't be recorded here"

# A recording of a tracepoint into ${bad}; fails if perf record fails.
tracepoint_recording() {
	if ! perf record -q -e sched:sched_process_exec -o "${bad}" -- true > "${log}" 2>&1; then
		cat "${log}"
		echo "$1: perf record failed [Failed]"
		err=1
		return 1
	fi
}

# perf report and perf script of ${bad} fail, not of a signal, saying $2 (a
# grep pattern) with -v; $1 names the case.
check_tracing_refused() {
	local what=$1 want=$2 cmd ret

	for cmd in "report --stdio" "script"; do
		ret=0
		# shellcheck disable=SC2086
		perf ${cmd} -v -i "${bad}" > "${log}" 2>&1 || ret=$?
		if [ "${ret}" = 0 ] || { [ "${ret}" -gt 128 ] && [ "${ret}" -lt 160 ]; } ||
		   ! grep -q -- "${want}" "${log}"; then
			tail -n 3 "${log}"
			echo "${what}: perf ${cmd%% *} exit ${ret} [Failed]"
			err=1
		else
			echo "${what}: perf ${cmd%% *} refuses it"
		fi
	done
}

# A tracepoint recording whose tracing data ends in the middle of its last
# part, the saved command lines (their size made 1 MB): perf report and
# perf script refuse it, saying the trace data is broken (perf freed the
# events it had read from it and went on to look the tracepoint up in
# them: SIGSEGV or garbage).
check_tracing_data_cut() {
	tracepoint_recording "tracing data cut short" || return 0
	python3 "${tracing_data_edit}" "${bad}" set cmdline-size 0x100000
	check_tracing_refused "tracing data cut short" "broken or missing trace data"
}

check_tracing_data_cut

# The saved command lines, the last part of the tracing data, given a size
# 8 bytes past the end of its section: perf report and perf script refuse
# it (perf read on into the next section of the file as if nothing were
# wrong).
check_tracing_data_past_section() {
	tracepoint_recording "tracing data past its section" || return 0
	python3 "${tracing_data_edit}" "${bad}" set cmdline-size +8
	check_tracing_refused "command lines past the tracing data" "past its end"
}

check_tracing_data_past_section

# The first system of events of the tracing data given a name of 9000 bytes
# (perf read it into 8 KB on the stack: stack smashing), and its first event
# format a size of 2^62 bytes (perf allocated what the file said, up to
# sizes an int cut short): refused, saying why.
check_tracing_data_sizes() {
	local at

	tracepoint_recording "tracing data sizes" || return 0
	python3 "${tracing_data_edit}" "${bad}" set event-size $((1 << 62))
	check_tracing_refused "event format of 2^62 bytes" "tracing data: a part of"
	tracepoint_recording "tracing data sizes" || return 0
	at=$(python3 "${tracing_data_edit}" "${bad}" offset system)
	python3 "${tracing_data_edit}" "${bad}" insert "${at}" 9000 0x61
	check_tracing_refused "system name of 9000 bytes" "tracing data: a string of"
}

check_tracing_data_sizes

# The printk formats of the tracing data made an empty format ("") and a
# line without the colon after its address: perf skips both, saying so
# with -v (libtraceevent read before the start of the first, perf past the
# end of the line of the second: AddressSanitizer sees both).
check_tracing_printk() {
	local at len ret=0

	tracepoint_recording "printk formats" || return 0
	read -r at len <<< "$(python3 "${tracing_data_edit}" "${bad}" offset printk)"
	if [ "${len}" -lt 16 ]; then
		echo "printk formats: none in this recording, not checked"
		return
	fi
	python3 -c 'import sys
f = open(sys.argv[1], "r+b")
n = int(sys.argv[3])
f.seek(int(sys.argv[2]))
f.write(b"0 : \"\"\n" + b"x" * (n - 8) + b"\n")' "${bad}" "${at}" "${len}"
	perf report --stdio -v -i "${bad}" > "${log}" 2>&1 || ret=$?
	if [ "${ret}" != 0 ] || [ "$(grep -c 'too short, skipped' "${log}")" != 2 ]; then
		tail -n 3 "${log}"
		echo "printk formats too short: perf report exit ${ret} [Failed]"
		err=1
	else
		echo "printk formats too short: skipped"
	fi
}

check_tracing_printk

cleanup
exit ${err}
