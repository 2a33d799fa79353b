#!/bin/bash
# perf inject -b: events written round by round
# SPDX-License-Identifier: GPL-2.0
#
# perf inject orders the events (-b, --sched-stat, --jit) as perf report
# does: a FINISHED_ROUND record says that the events before it can be
# delivered.  perf inject wrote the rounds as they came but kept every event
# queued to the end: the output had all its rounds before its first sample,
# and the queue grew with the number of events.  The events of a round must
# come before the round that closes them.

set -e

err=0
tmpdir=$(mktemp -d /tmp/perf-inject-rounds.XXXXXX)

cleanup() {
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	echo "Unexpected signal in ${FUNCNAME[1]}"
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

# The file offsets of the first sample and of the last round of $1.
first_sample_last_round() {
	local off type first="" last=""
	local re='^[0-9]* \(0x[0-9a-f]*\) \[0x[0-9a-f]*\]: PERF_RECORD_\(SAMPLE\|FINISHED_ROUND\).*'

	while read -r off type; do
		if [ "${type}" = SAMPLE ]; then
			if [ -z "${first}" ] || [ $((off)) -lt $((first)) ]; then
				first=${off}
			fi
		elif [ -z "${last}" ] || [ $((off)) -gt $((last)) ]; then
			last=${off}
		fi
	done < <(perf report -D -i "$1" 2> /dev/null | sed -n "s/${re}/\\1 \\2/p")
	echo "${first:-none} ${last:-none}"
}

if ! perf record -q -e task-clock -o /dev/null -- true > /dev/null 2>&1; then
	echo "Skip: perf record -e task-clock isn't permitted here (perf_event_paranoid?)"
	cleanup
	exit 2
fi
# Small buffers: perf record reads them, and closes a round, many times.
if ! perf record -q -m 8 -e task-clock -c 100000 -o "${tmpdir}/in.data" -- \
		perf test -w noploop 1 > /dev/null 2>&1; then
	echo "FAIL: perf record -m 8 -e task-clock failed"
	cleanup
	exit 1
fi
read -r in_sample in_round <<< "$(first_sample_last_round "${tmpdir}/in.data")"
if [ "${in_sample}" = none ] || [ "${in_round}" = none ] ||
   [ $((in_sample)) -gt $((in_round)) ]; then
	echo "FAIL: the recording has no sample before its last round"
	cleanup
	exit 1
fi

perf inject -b -i "${tmpdir}/in.data" -o "${tmpdir}/out.data"
read -r out_sample out_round <<< "$(first_sample_last_round "${tmpdir}/out.data")"
if [ "${out_sample}" = none ] || [ "${out_round}" = none ] ||
   [ $((out_sample)) -gt $((out_round)) ]; then
	echo "FAIL: perf inject -b wrote all its rounds (last at ${out_round})" \
	     "before its first sample (${out_sample})"
	err=1
fi

# The same samples, in the same order perf report gives them.
perf script -i "${tmpdir}/in.data" -F tid,time,ip > "${tmpdir}/in.script" 2> /dev/null
perf script -i "${tmpdir}/out.data" -F tid,time,ip > "${tmpdir}/out.script" 2> /dev/null
if [ ! -s "${tmpdir}/in.script" ] || ! cmp -s "${tmpdir}/in.script" "${tmpdir}/out.script"; then
	echo "FAIL: perf script shows other samples in the output of perf inject -b"
	err=1
fi

# --jit writes no rounds (the mmaps of jitted code it injects are older than
# the events before them) but delivers the events of each round all the same.
if perf version --build-options | grep -q 'libelf: .*on'; then
	perf inject --jit -i "${tmpdir}/in.data" -o "${tmpdir}/jit.data"
	perf script -i "${tmpdir}/jit.data" -F tid,time,ip > "${tmpdir}/jit.script" 2> /dev/null
	if ! cmp -s "${tmpdir}/in.script" "${tmpdir}/jit.script"; then
		echo "FAIL: perf script shows other samples in the output of perf inject --jit"
		err=1
	fi
fi

cleanup
exit ${err}
