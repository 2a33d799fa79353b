#!/bin/bash
# perf inject: a pipe has the header features of the recording
# SPDX-License-Identifier: GPL-2.0
#
# perf inject of a perf.data file to a pipe writes the header features
# (hostname, architecture, CPU, ...) of the machine that recorded the
# file, as it does to a file: not those of the machine running perf
# inject.  The recording gets another hostname, the same length, so that
# the two can be told apart.

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.inject_pipe_header.XXXXXX)
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

# shellcheck source=lib/setup_python.sh
. "$(dirname "$0")/lib/setup_python.sh"

if ! perf record -q -e task-clock -o "${data}" -- true > "${log}" 2>&1; then
	cat "${log}"
	echo "perf record failed [Failed]"
	cleanup
	exit 1
fi

# The hostname of the recording: as many x as this machine's has letters
host=$(perf report --header-only -i "${data}" 2> /dev/null | sed -n 's/^# hostname : //p')
other=$(printf '%s' "${host}" | tr -c '\n' x)
if [ -z "${host}" ] || [ "${host}" = "${other}" ]; then
	echo "no hostname to tell apart: '${host}' [Skip]"
	cleanup
	exit 2
fi
$PYTHON - "${data}" "${host}" "${other}" <<'EOF'
import sys
path, old, new = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
d = open(path, 'rb').read()
open(path, 'wb').write(d.replace(b'\0' + old + b'\0', b'\0' + new + b'\0'))
EOF

set -o pipefail
if ! perf inject -i "${data}" -o - 2> "${log}" |
     perf report --header-only -i - > "${tmpdir}/header" 2>> "${log}"; then
	cat "${log}"
	echo "perf inject to a pipe failed [Failed]"
	err=1
elif ! grep -q "^# hostname : ${other}$" "${tmpdir}/header"; then
	grep '^# hostname' "${tmpdir}/header"
	echo "the pipe has the hostname of this machine, not of the recording [Failed]"
	err=1
else
	echo "the pipe has the hostname of the recording"
fi

cleanup
exit ${err}
