#!/bin/bash
# perf.data: records of the types a later perf writes
# SPDX-License-Identifier: GPL-2.0
#
# The records are made with lib/perf_data_records.py from recordings of
# this perf.  A record of a type perf doesn't know makes perf script stop
# and say that a later perf wrote the file.
# perf record -z of perf 6.16 and later writes PERF_RECORD_COMPRESSED2
# (83): perf report reads it as it reads PERF_RECORD_COMPRESSED.

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.record_types.XXXXXX)
data="${tmpdir}/perf.data"
zdata="${tmpdir}/z.data"
edited="${tmpdir}/edited.data"
log="${tmpdir}/log"
records="$(dirname "$0")/lib/perf_data_records.py"

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

# shellcheck source=lib/skip.sh
. "$(dirname "$0")/lib/skip.sh"

# shellcheck source=lib/setup_python.sh
. "$(dirname "$0")/lib/setup_python.sh"

if ! perf record -q -e task-clock -o "${data}" -- perf test -w noploop 1 > "${log}" 2>&1; then
	cat "${log}"
	echo "perf record failed [Failed]"
	cleanup
	exit 1
fi

# Types of a later kernel and of a later perf record.
for type in 30 90; do
	$PYTHON "${records}" "${data}" "${edited}" append "${type}"
	ret=0
	perf script -i "${edited}" > "${log}" 2>&1 || ret=$?
	if [ "${ret}" = 0 ] || { [ "${ret}" -gt 128 ] && [ "${ret}" -lt 160 ]; } ||
	   ! grep -q "unknown record type ${type}, of a later perf: use a newer perf" "${log}"; then
		tail -n 3 "${log}"
		echo "perf script of a record of type ${type}: exit ${ret} [Failed]"
		err=1
	else
		echo "perf script of a record of type ${type}: refused, said why"
	fi
done

# The lines of perf report of $1, without comments: its samples by comm
# and DSO, and how many of each record type it read but the compressed
# ones, counted apart.
report() {
	perf report -i "$1" --stdio --sort comm,dso 2>&1 | grep -v '^#' | grep .
	perf report -i "$1" --stats 2>&1 | grep ' events: ' | tr -s ' ' |
		sed 's/COMPRESSED2\? events/compressed events/' | sort
}

if ! perf check feature -q zstd; then
	echo "COMPRESSED2: perf is built without zstd, for perf record -z [Skip]"
elif ! perf record -q -z -e task-clock -o "${zdata}" -- perf test -w noploop 1 > "${log}" 2>&1; then
	cat "${log}"
	echo "perf record -z failed [Failed]"
	err=1
elif ! nr=$($PYTHON "${records}" "${zdata}" "${edited}" compressed2) || [ "${nr}" = 0 ]; then
	echo "perf record -z wrote no PERF_RECORD_COMPRESSED [Failed]"
	err=1
elif ! diff <(report "${zdata}") <(report "${edited}") > "${log}"; then
	cat "${log}"
	echo "perf report of COMPRESSED2 records differs from that of COMPRESSED [Failed]"
	err=1
else
	echo "perf report of COMPRESSED2 records: the same"
fi

cleanup
exit ${err}
