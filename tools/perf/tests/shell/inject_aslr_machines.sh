#!/bin/bash
# perf inject --aslr: recordings of other machines
# SPDX-License-Identifier: GPL-2.0
#
# perf.data files of machines this one is not, written by
# lib/perf_data_synth.py: arm64 with 39 and 48-bit virtual addresses, i386
# and armv7 (32-bit layouts, kept within 32 bits), perf before 4.x (a
# kernel map from 0 or up to the top of the address space), anonymous
# memory and [vdso] whose pgoff is their address, raw data on a hardware
# event, stale bytes after file names (perf before 4.x).  Each is
# written: no address of the input in it (the check of
# perf inject, and lib/aslr_audit.py), the same perf report.  A 32-bit
# process recorded here, where this machine runs one.  What can't be laid
# out is refused, saying why, and nothing is left.

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.inject_aslr_machines.XXXXXX)
log="${tmpdir}/log"
lib="$(dirname "$0")/lib"

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

fail() {
	echo "$1 [Failed]"
	err=1
}

# shellcheck source=lib/setup_python.sh
. "${lib}/setup_python.sh"

# perf report of $1 by comm, DSO and symbol, without comments; more
# options after it.
report() {
	perf report -i "$1" "${@:2}" --stdio --no-children --sort comm,dso,sym -g none \
		2> /dev/null | grep -v '^#' | grep .
}

# perf inject --aslr of $1.data into $1.out: written, no address of the
# input in it, the same report ($2: more options of perf report).
check_written() {
	local name=$1 in="${tmpdir}/$1.data" out="${tmpdir}/$1.out"

	if ! perf inject --aslr -v -i "${in}" -o "${out}" > "${tmpdir}/${name}.log" 2>&1; then
		grep -v '^aslr: ' "${tmpdir}/${name}.log" | tail -n 3
		fail "${name}: perf inject --aslr refused it"
		return 1
	fi
	if ! $PYTHON "${lib}/aslr_audit.py" "${in}" "${out}" > "${log}" 2>&1; then
		tail -n 5 "${log}"
		fail "${name}: the output holds addresses of the input"
	elif ! diff <(report "${in}" "${@:2}") <(report "${out}" "${@:2}") > "${log}"; then
		cat "${log}"
		fail "${name}: perf report differs"
	else
		echo "${name}: written, no address of the input, the same report"
	fi
}

# The last line of perf inject --aslr -v of $1 holds $2.
check_said() {
	grep -q "$2" "${tmpdir}/$1.log" || fail "$1: perf inject -v doesn't say: $2"
}

for layout in aarch64-39 aarch64-48 i386 armv7 x86_64-old raw-hw; do
	$PYTHON "${lib}/perf_data_synth.py" "${layout}" "${tmpdir}/${layout}.data" \
		"${tmpdir}/${layout}.kallsyms"
	check_written "${layout}" --kallsyms="${tmpdir}/${layout}.kallsyms" || continue
	case "${layout}" in
	aarch64-*|i386|armv7|x86_64-old)
		check_said "${layout}" "kernel maps: 1 cut to what a kernel image can be";;
	raw-hw)
		check_said "${layout}" "raw data of an event that is not a tracepoint dropped";;
	esac
done

# The bytes perf before 4.x left after the file names: zeroed.
for layout in i386 armv7 x86_64-old; do
	[ -f "${tmpdir}/${layout}.out" ] || continue
	check_said "${layout}" "records with stale bytes after their name, zeroed"
	if ! grep -q -a ZqStale "${tmpdir}/${layout}.data"; then
		fail "${layout}: no stale bytes after the file names of the input"
	elif grep -q -a ZqStale "${tmpdir}/${layout}.out"; then
		fail "${layout}: the stale bytes after the file names are in the output"
	fi
done

# 32-bit recordings stay in 32 bits, where they are not mapped.
for layout in i386 armv7; do
	[ -f "${tmpdir}/${layout}.out" ] || continue
	if perf script -i "${tmpdir}/${layout}.out" --show-mmap-events -F ip 2> /dev/null |
	   grep -E '[0-9a-f]{9,}|\[0x[0-9a-f]{9,}\(' > "${log}"; then
		head -n 3 "${log}"
		fail "${layout}: addresses past 32 bits in the output"
	fi
done

# A leak planted in the outputs of 32 bits: the original ip of the first
# sample in place of the remapped one.  The audit must find it, in the
# kernel map of perf before 4.x (armv7: up to the top) too.
for layout in i386 armv7; do
	[ -f "${tmpdir}/${layout}.out" ] || continue
	orig=$(perf script -i "${tmpdir}/${layout}.data" -F ip 2> /dev/null |
	       awk 'NF { print $1; exit }')
	new=$(perf script -i "${tmpdir}/${layout}.out" -F ip 2> /dev/null |
	      awk 'NF { print $1; exit }')
	$PYTHON - "${tmpdir}/${layout}.out" "${tmpdir}/planted.out" "0x${new}" "0x${orig}" <<'EOF'
import struct
import sys
d = open(sys.argv[1], 'rb').read()
new, orig = (struct.pack('<Q', int(v, 0)) for v in sys.argv[3:5])
if new not in d:
    sys.exit('the remapped ip is not in the output')
open(sys.argv[2], 'wb').write(d.replace(new, orig, 1))
EOF
	if $PYTHON "${lib}/aslr_audit.py" "${tmpdir}/${layout}.data" "${tmpdir}/planted.out" \
	   > "${log}" 2>&1; then
		fail "${layout}: a planted address is not found"
	fi
done

# A 32-bit program of this machine: its mappings and stack below 4 GiB
if cc -m32 -O1 -fno-omit-frame-pointer -o "${tmpdir}/prog32" -x c - > /dev/null 2>&1 <<'EOF'
static volatile long sink;
__attribute__((noinline)) static void leaf(long n) { for (long i = 0; i < n; i++) sink += i; }
int main(void) { for (int i = 0; i < 100; i++) leaf(200000); return 0; }
EOF
then
	if ! "${tmpdir}/prog32" 2> /dev/null; then
		echo "32-bit program: this kernel runs no 32-bit x86 program [Skip]"
	elif ! perf record -q -e task-clock:u -g -o "${tmpdir}/prog32.data" \
	     "${tmpdir}/prog32" > "${log}" 2>&1; then
		cat "${log}"
		fail "32-bit program: perf record failed"
	else
		check_written prog32
	fi
else
	echo "32-bit program: cc -m32 builds none here [Skip]"
fi

# Refused, saying why, nothing left: an architecture --aslr has no layout
# for, a 32-bit recording in a pipe (laid out where it has no mapping: all
# of them must be known first), a record of size 0.
check_refused() {
	local name=$1 want=$2 in=$3 out="${tmpdir}/$1.refused" ret=0

	perf inject --aslr -i "${in}" -o "${out}" > "${log}" 2>&1 || ret=$?
	if [ "${ret}" = 0 ] || { [ "${ret}" -gt 128 ] && [ "${ret}" -lt 160 ]; } ||
	   ! grep -q "${want}" "${log}" || [ -e "${out}" ]; then
		tail -n 3 "${log}"
		fail "${name}: perf inject --aslr exit ${ret}, not refused saying why"
	else
		echo "${name}: refused, said why"
	fi
}

sed 's/x86_64/vax\x00\x00\x00/' "${tmpdir}/x86_64-old.data" > "${tmpdir}/vax.data"
check_refused vax "recorded on vax, an architecture --aslr has no layout for" \
	"${tmpdir}/vax.data"
set -o pipefail
if perf inject -i "${tmpdir}/i386.data" -o - > "${tmpdir}/i386.pipe" 2> "${log}"; then
	check_refused "i386 pipe" "a 32-bit recording is laid out where it has no mappings" \
		"${tmpdir}/i386.pipe"
else
	fail "perf inject of i386.data to a pipe failed"
fi
set +o pipefail
# A sample of its header only, after the others
$PYTHON - "${tmpdir}/x86_64-old.data" "${tmpdir}/short.data" <<'EOF'
import struct
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', d, 40)
struct.pack_into('<Q', d, 48, size + 8)
feats = bytearray(d[off + size:])
struct.pack_into('<Q', feats, 0, struct.unpack_from('<Q', feats, 0)[0] + 8)
open(sys.argv[2], 'wb').write(d[:off + size] + struct.pack('<IHH', 9, 2, 8) + feats)
EOF
check_refused "a sample of its header only" \
	"0x[0-9a-f]* \\[0x8\\]: failed to process type: 9" "${tmpdir}/short.data"

cleanup
exit ${err}
