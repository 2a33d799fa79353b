#!/bin/bash
# perf report: each header feature is read once
# SPDX-License-Identifier: GPL-2.0
#
# A pipe whose HEADER_HOSTNAME feature comes twice, the second with another
# hostname: perf reads the first and says that the second is ignored (read
# over the first, it leaked what the first had set).  So does a file whose
# data holds a HEADER_HOSTNAME record, where its header has the feature.

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.pipe_feature_repeated.XXXXXX)
pipe="${tmpdir}/pipe.data"
edited="${tmpdir}/edited.data"
file="${tmpdir}/file.data"
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

# The hostname record of the pipe, its hostname made of x, as the first
# record of the data of a file recording: the feature sections after the
# data move by its size.
if ! perf record -q -e task-clock -o "${file}" -- true 2> "${log}"; then
	cat "${log}"
	echo "perf record to a file failed [Failed]"
	cleanup
	exit 1
fi
if ! $PYTHON - "${edited}" "${file}" "${edited}.file" <<'PYEOF'
import struct
import sys

p = open(sys.argv[1], 'rb').read()
f = bytearray(open(sys.argv[2], 'rb').read())
pos, rec = 16, None
while pos + 8 <= len(p):
    rtype, _, size = struct.unpack_from('<IHH', p, pos)
    if size < 8:
        break
    if rtype == 80 and struct.unpack_from('<Q', p, pos + 8)[0] == 3:
        rec = p[pos:pos + size]
    pos += size
data_off, data_size = struct.unpack_from('<QQ', f, 40)
feats = bin(int.from_bytes(f[72:104], 'little')).count('1')
table = data_off + data_size
for i in range(feats):
    off = struct.unpack_from('<Q', f, table + 16 * i)[0]
    struct.pack_into('<Q', f, table + 16 * i, off + len(rec))
struct.pack_into('<Q', f, 48, data_size + len(rec))
open(sys.argv[3], 'wb').write(f[:data_off] + rec + f[data_off:])
PYEOF
then
	echo "no hostname record to put in a file [Failed]"
	cleanup
	exit 1
fi

if ! perf report -i "${edited}.file" --stdio > /dev/null 2> "${log}"; then
	cat "${log}"
	echo "perf report of the file failed [Failed]"
	err=1
elif ! grep -q "header feature HOSTNAME repeated in the file, ignored" "${log}"; then
	cat "${log}"
	echo "perf didn't say the hostname record of the file was ignored [Failed]"
	err=1
else
	echo "the hostname feature of the file's header read, its record ignored"
fi

cleanup
exit ${err}
