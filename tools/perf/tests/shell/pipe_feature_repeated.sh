#!/bin/bash
# perf report: a header feature repeated in a pipe is read once
# SPDX-License-Identifier: GPL-2.0
#
# A pipe whose HEADER_HOSTNAME feature comes twice, the second with another
# hostname: perf reads the first and says that the second is ignored (read
# over the first, it leaked what the first had set).

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.pipe_feature_repeated.XXXXXX)
pipe="${tmpdir}/pipe.data"
edited="${tmpdir}/edited.data"
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

if ! perf record -q -e task-clock -o - -- true > "${pipe}" 2> "${log}"; then
	cat "${log}"
	echo "perf record to a pipe failed [Failed]"
	cleanup
	exit 1
fi

# The HEADER_HOSTNAME (3) feature record again after itself, its hostname
# made of as many x.
if ! $PYTHON - "${pipe}" "${edited}" <<'PYEOF'
import struct
import sys

d = open(sys.argv[1], 'rb').read()
pos = 16
while pos + 8 <= len(d):
    rtype, _, size = struct.unpack_from('<IHH', d, pos)
    if size < 8:
        break
    if rtype == 80 and struct.unpack_from('<Q', d, pos + 8)[0] == 3:
        rec = bytearray(d[pos:pos + size])
        length = struct.unpack_from('<I', rec, 16)[0]
        name = bytes(rec[20:20 + length]).split(b'\0')[0]
        rec[20:20 + len(name)] = b'x' * len(name)
        open(sys.argv[2], 'wb').write(d[:pos + size] + rec + d[pos + size:])
        sys.exit(0)
    pos += size
sys.exit('no hostname feature in the pipe')
PYEOF
then
	echo "no hostname feature to repeat [Failed]"
	cleanup
	exit 1
fi

host=$(perf report --header-only -i - < "${pipe}" 2> /dev/null | sed -n 's/^# hostname : //p')
other=$(printf '%s' "${host}" | tr -c '\n' x)
if ! perf report --header-only -i - < "${edited}" > "${tmpdir}/header" 2> "${log}"; then
	cat "${log}"
	echo "perf report of the pipe failed [Failed]"
	err=1
elif ! grep -q "^# hostname : ${host}$" "${tmpdir}/header" ||
     grep -q "^# hostname : ${other}$" "${tmpdir}/header"; then
	grep '^# hostname' "${tmpdir}/header"
	echo "the second hostname feature was read over the first [Failed]"
	err=1
elif ! grep -q "header feature HOSTNAME repeated in pipe-mode, ignored" "${log}"; then
	cat "${log}"
	echo "perf didn't say the second feature was ignored [Failed]"
	err=1
else
	echo "the first hostname feature read, the second ignored"
fi

cleanup
exit ${err}
