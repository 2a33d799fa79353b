#!/bin/bash
# perf inject: the output to a pipe and to a file
# SPDX-License-Identifier: GPL-2.0
#
# perf inject of a perf.data file to a pipe writes the tracing data of its
# tracepoint events after their PERF_RECORD_HEADER_TRACING_DATA record: the
# data went to the file descriptor of the output, the record into the stdio
# buffer in front of it, and the reader of the pipe found the data where it
# expected a record.
#
# perf inject buffers its output: the reader of a pipe gets each round of
# events as it ends, while they are recorded, and a file written through
# the buffer reads as the input.

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.inject_pipe_output.XXXXXX)
data="${tmpdir}/perf.data"
log="${tmpdir}/log"

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

if ! perf record -q -o "${data}" -e sched:sched_process_exec -e sched:sched_process_exit \
	-- sh -c 'ls > /dev/null; true' > "${log}" 2>&1; then
	cat "${log}"
	echo "perf record of tracepoints failed: no tracefs? [Skip]"
	cleanup
	exit 2
fi

test_tracing_data() {
	echo "Tracepoint events of a file to a pipe"
	perf script -i "${data}" > "${tmpdir}/file.txt" 2> "${log}"
	if ! grep -q sched_process_exec "${tmpdir}/file.txt"; then
		cat "${log}"
		echo "no sched_process_exec event in the recording [Failed]"
		err=1
		return
	fi
	set -o pipefail
	if ! perf inject -i "${data}" -o - 2> "${log}" |
	     perf script -i - > "${tmpdir}/pipe.txt" 2>> "${log}"; then
		cat "${log}"
		echo "perf inject to a pipe or perf script of it failed [Failed]"
		err=1
	elif ! cmp -s "${tmpdir}/file.txt" "${tmpdir}/pipe.txt"; then
		diff -u "${tmpdir}/file.txt" "${tmpdir}/pipe.txt" | head -20 || true
		echo "perf script of the pipe differs from that of the file [Failed]"
		err=1
	fi
	set +o pipefail
}

# perf record | perf inject: the events of the recording are seen downstream
# while it runs.  Two of them, a few hundred bytes: never enough to fill a
# buffer.
test_live() {
	local live="${tmpdir}/live.data" pid seen=0

	echo "A pipe read while it is written"
	# perf record exits with the status of its workload, killed below.
	perf record -q --no-buffering -e sched:sched_process_exec -o - -- \
		sh -c "echo \$\$ > ${tmpdir}/pid; exec sleep 60" 2> "${log}" |
		perf inject -i - -o - 2>> "${log}" > "${live}" &
	pid=$!
	for _ in $(seq 50); do
		if perf script -i "${live}" 2> /dev/null | grep -q sched_process_exec; then
			seen=1
			break
		fi
		sleep 0.1
	done
	for _ in $(seq 50); do
		[ -s "${tmpdir}/pid" ] && break
		sleep 0.1
	done
	kill "$(cat "${tmpdir}/pid")"
	if ! wait "${pid}"; then
		cat "${log}"
		echo "perf inject to a pipe failed [Failed]"
		err=1
	elif [ "${seen}" = 0 ]; then
		echo "no event of the recording downstream in 5 s [Failed]"
		err=1
	fi
}

# A file output bigger than the buffer, and its header written at the end.
test_file() {
	local big="${tmpdir}/big.data" out="${tmpdir}/out.data"

	echo "A file bigger than the buffer of the output"
	# A sample a read: as big on a loaded machine as on an idle one
	if ! perf record -q -e syscalls:sys_enter_read -g -o "${big}" -- \
		dd if=/dev/zero of=/dev/null bs=1 count=20000 > "${log}" 2>&1; then
		cat "${log}"
		echo "perf record failed [Failed]"
		err=1
		return
	fi
	if ! perf inject -i "${big}" -o "${out}" > "${log}" 2>&1; then
		cat "${log}"
		echo "perf inject failed [Failed]"
		err=1
		return
	fi
	perf script -i "${big}" > "${tmpdir}/in.txt" 2> /dev/null
	perf script -i "${out}" > "${tmpdir}/out.txt" 2> /dev/null
	if [ "$(stat -c %s "${out}")" -lt $((1024 * 1024)) ] ||
	   ! cmp -s "${tmpdir}/in.txt" "${tmpdir}/out.txt"; then
		ls -l "${big}" "${out}"
		echo "perf script of the output differs from that of the input [Failed]"
		err=1
	fi
}

test_tracing_data
test_live
test_file

cleanup
exit ${err}
