#!/bin/bash
# perf report --no-itrace reads past the AUX area data of a pipe
# SPDX-License-Identifier: GPL-2.0
#
# In a pipe, the data of a PERF_RECORD_AUXTRACE (Intel PT, ARM SPE, ...)
# follows the record.  Not decoding it (--no-itrace), perf report must
# still read past it to the records after it.  The AUX area data is put in
# a recording of a software event with lib/perf_data_records.py: no
# hardware is needed to trace.

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.pipe_auxtrace.XXXXXX)
data="${tmpdir}/pipe.data"
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

# shellcheck source=lib/setup_python.sh
. "$(dirname "$0")/lib/setup_python.sh"

set -o pipefail
if ! perf record -q -e task-clock -o - -- perf test -w noploop 1 2> "${log}" > "${data}"; then
	cat "${log}"
	echo "perf record to a pipe failed [Failed]"
	cleanup
	exit 1
fi
set +o pipefail

# The samples of $1 by comm and DSO, perf report's lines without comments.
report() {
	perf report -i "$1" --stdio --sort comm,dso "${@:2}" 2> "${log}" | grep -v '^#' | grep .
}

$PYTHON "${records}" "${data}" "${edited}" auxtrace 4096
if ! diff <(report "${data}") <(report "${edited}" --no-itrace) > "${tmpdir}/diff"; then
	cat "${tmpdir}/diff" "${log}"
	echo "perf report --no-itrace of a pipe with AUX area data lost what follows it [Failed]"
	err=1
else
	echo "perf report --no-itrace of a pipe with AUX area data: the same samples"
fi

cleanup
exit ${err}
