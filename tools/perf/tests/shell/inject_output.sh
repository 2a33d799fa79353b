#!/bin/bash
# perf inject: no output file is left when it fails
# SPDX-License-Identifier: GPL-2.0
#
# perf inject writes its output under a temporary name next to it and
# renames it when it succeeds: an input it can't open or read leaves
# nothing under the output name (it left an empty or a partial file).  An
# output already there is moved to NAME.old, as perf record does, and one
# that is not a regular file (a FIFO, a symlink) is written, not replaced.

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.inject_output.XXXXXX)
data="${tmpdir}/perf.data"
bad="${tmpdir}/bad.data"
out="${tmpdir}/out.data"
log="${tmpdir}/log"

cleanup() {
	# The reader of the FIFO waits for a writer forever if perf inject
	# never opened it.
	kill "${reader:-}" 2> /dev/null || true
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	echo "Unexpected signal in ${FUNCNAME[1]}"
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

if ! perf record -q -e task-clock -o "${data}" -- perf test -w noploop 1 > "${log}" 2>&1; then
	cat "${log}"
	echo "perf record of a software event failed [Failed]"
	cleanup
	exit 1
fi

# The unsigned little endian integer of $2 bytes at offset $1 of ${data}.
read_le() {
	od -An -t "u$2" -j "$1" -N "$2" "${data}" | tr -d ' '
}

# perf inject of ${bad} fails, not of a signal, and leaves nothing under
# the output name nor a temporary file next to it; $1 names the case.
check_no_output() {
	local what=$1 ret=0

	rm -f "${out}"
	perf inject -i "${bad}" -o "${out}" > "${log}" 2>&1 || ret=$?
	if [ "${ret}" = 0 ] || { [ "${ret}" -gt 128 ] && [ "${ret}" -lt 160 ]; } ||
	   [ -e "${out}" ] || compgen -G "${out}.inject-tmp.*" > /dev/null; then
		tail -n 3 "${log}"
		echo "perf inject of ${what}: exit ${ret}, output left [Failed]"
		err=1
	else
		echo "perf inject of ${what}: no output"
	fi
}

rm -f "${bad}"
check_no_output "a missing input"
echo "not a perf.data file" > "${bad}"
check_no_output "a file that is not perf.data"
# Cut in the middle of its data: the header sections after the data are
# missing.
head -c $(($(read_le 40 8) + $(read_le 48 8) / 2)) "${data}" > "${bad}"
check_no_output "a recording cut short"

# A good input: the output there before is moved to NAME.old.
cp "${data}" "${out}"
if ! perf inject -i "${data}" -o "${out}" > "${log}" 2>&1 ||
   ! cmp -s "${data}" "${out}.old" || [ ! -s "${out}" ] ||
   ! perf report -i "${out}" --stdio > "${log}" 2>&1; then
	tail -n 3 "${log}"
	echo "perf inject over an output there: not moved to .old [Failed]"
	err=1
else
	echo "perf inject over an output there: moved to .old"
fi

# Not a regular file: written where it is, not replaced by a file.
rm -f "${out}" "${out}.old"
mkfifo "${out}"
cat "${out}" > "${log}.fifo" &
reader=$!
if ! perf inject -i "${data}" -o "${out}" > "${log}" 2>&1 || [ ! -p "${out}" ]; then
	tail -n 3 "${log}"
	echo "perf inject into a FIFO: replaced by a file [Failed]"
	err=1
else
	wait "${reader}" || true
	if [ ! -s "${log}.fifo" ]; then
		echo "perf inject into a FIFO: nothing written [Failed]"
		err=1
	else
		echo "perf inject into a FIFO: written"
	fi
fi
reader=

# A symlink (/dev/stdout is one): written through, not replaced by a file.
rm -f "${out}"
: > "${tmpdir}/target.data"
ln -s target.data "${out}"
if ! perf inject -i "${data}" -o "${out}" > "${log}" 2>&1 || [ ! -L "${out}" ] ||
   ! perf report -i "${tmpdir}/target.data" --stdio > "${log}" 2>&1; then
	tail -n 3 "${log}"
	echo "perf inject into a symlink: replaced by a file [Failed]"
	err=1
else
	echo "perf inject into a symlink: written through"
fi

cleanup
exit ${err}
