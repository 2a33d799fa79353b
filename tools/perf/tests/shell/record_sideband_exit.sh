#!/bin/bash
# perf record: the side-band thread is woken when recording ends
# SPDX-License-Identifier: GPL-2.0
#
# perf record reads side-band events (BPF programs loaded and unloaded) in
# a thread of its own, which polls their ring buffers with a timeout of a
# second.  When the workload ends, perf record must wake that thread, not
# wait for its poll() to time out: perf record of a workload of a
# millisecond took more than a second.  Seen with strace: the last poll()
# of the thread (the one that unshares its fs first) must not time out.

set -e

err=0
tmpdir=$(mktemp -d /tmp/perf-record-sideband.XXXXXX)

cleanup() {
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}
trap 'echo "Unexpected signal"; cleanup; exit 1' TERM INT
trap cleanup EXIT

if ! command -v strace > /dev/null; then
	echo "Skip: no strace to watch the side-band thread"
	exit 2
fi

# Of the kernel too: perf record may start the thread only then.
if ! perf record -q -o "${tmpdir}/perf.data" -e cpu-clock -- true > /dev/null 2>&1; then
	echo "Skip: can't record cpu-clock of the kernel here"
	exit 2
fi

if ! strace -f -qq -o "${tmpdir}/strace.log" -e trace=unshare,poll,ppoll \
		perf record -q -o "${tmpdir}/perf.data" -e cpu-clock -- true \
		> /dev/null 2> "${tmpdir}/record.err"; then
	echo "FAIL: perf record failed"
	cat "${tmpdir}/record.err"
	exit 1
fi

tid=$(awk '/unshare\(CLONE_FS\)/ { print $1; exit }' "${tmpdir}/strace.log")
if [ -z "${tid}" ]; then
	echo "Skip: perf record started no side-band thread (perf without libbpf)"
	exit 2
fi

last=$(awk -v tid="${tid}" '$1 == tid && /poll/' "${tmpdir}/strace.log" | tail -n 1)
case "${last}" in
"")
	echo "FAIL: the side-band thread didn't poll"
	err=1
	;;
*"(Timeout)"*)
	echo "FAIL: the side-band thread ended at the timeout of its poll(), not woken"
	echo "${last}"
	err=1
	;;
esac

exit ${err}
