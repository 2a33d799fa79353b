#!/bin/bash
# perf symbol-elf: corrupt ELF images are read, not crashed on
# SPDX-License-Identifier: GPL-2.0
#
# The ELF images perf reads symbols from may come with a profile from
# another machine: what their headers say is checked against what they
# hold.  Each case below breaks an image in one way; perf probe -F loads
# the symbols of an image as perf report does (dso__load()).

set -u

if ! command -v cc > /dev/null; then
	echo "skip: no cc on this machine"
	exit 2
fi
# shellcheck source=lib/probe.sh
. "$(dirname "$0")"/lib/probe.sh
# setup_python.sh tests PYTHON, which may be unset (set -u)
PYTHON=${PYTHON:-}
# shellcheck source=lib/setup_python.sh
. "$(dirname "$0")"/lib/setup_python.sh
if ! skip_if_no_perf_probe; then
	echo "skip: this perf has no perf probe"
	exit 2
fi

tmpdir=$(mktemp -d /tmp/__perf_test.elf_corrupt.XXXXXX)
err=0

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	rm -rf "${tmpdir}"
}
trap cleanup EXIT
trap 'echo "Unexpected signal"; exit 1' TERM INT

cat > "${tmpdir}/prog.c" << 'EOF'
int __attribute__((noinline)) hot(int n) { return n * 3; }
int main(void) { return hot(1) == 3 ? 0 : 1; }
EOF
if ! cc -O1 -o "${tmpdir}/prog" "${tmpdir}/prog.c"; then
	echo "FAIL: cannot build the test program"
	exit 1
fi

# Copy image $2 to $3, broken as $1 says:
#   symbol-names  the st_name of every function symbol of .symtab past the
#                 end of its string table
#   plt-got-size  the sh_size of .plt.got far past the end of the file
#   symtab-entsize  the sh_entsize of .symtab 0
#   build-id-cut  the sh_size of .note.gnu.build-id 4 bytes short, the last
#                 note cut
#   debuglink-nobits  the sh_type of .gnu_debuglink SHT_NOBITS: no contents
# Exits 3 if the image has no such section.
break_image() {
	"${PYTHON}" - "$@" << 'EOF'
import struct, sys
how, src, dst = sys.argv[1:4]
d = bytearray(open(src, 'rb').read())
shoff = struct.unpack_from('<Q', d, 0x28)[0]
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
strtab = struct.unpack_from('<Q', d, shoff + shstrndx * shentsize + 0x18)[0]
found = False
for i in range(shnum):
    sh = shoff + i * shentsize
    sh_name, sh_type = struct.unpack_from('<II', d, sh)
    off, size = struct.unpack_from('<QQ', d, sh + 0x18)
    entsize = struct.unpack_from('<Q', d, sh + 0x38)[0]
    name = d[strtab + sh_name:d.index(0, strtab + sh_name)]
    if how == 'symbol-names' and name == b'.symtab' and entsize:
        for sym in range(off, off + size, entsize):
            if d[sym + 4] & 0xf == 2:                       # STT_FUNC
                struct.pack_into('<I', d, sym, 0x7ffffff0)
        found = True
    elif how == 'plt-got-size' and name == b'.plt.got':
        struct.pack_into('<Q', d, sh + 0x20, 0x10000000)
        found = True
    elif how == 'symtab-entsize' and name == b'.symtab':
        struct.pack_into('<Q', d, sh + 0x38, 0)
        found = True
    elif how == 'build-id-cut' and name == b'.note.gnu.build-id':
        struct.pack_into('<Q', d, sh + 0x20, size - 4)
        found = True
    elif how == 'debuglink-nobits' and name == b'.gnu_debuglink':
        struct.pack_into('<I', d, sh + 4, 8)
        found = True
if not found:
    sys.exit(3)
open(dst, 'wb').write(d)
EOF
}

# perf probe -F lists the functions of image $1, whatever their names, in
# a minute; with $3 "refused", it may also fail to (but not die of a signal).
check_funcs() {
	local image=$1 what=$2 how=${3:-} ret=0

	timeout 60 perf probe -x "${image}" -F > "${tmpdir}/funcs" 2>&1 || ret=$?
	if [ "${ret}" = 124 ]; then
		echo "FAIL: ${what}: perf probe -F still runs after a minute"
		err=1
	elif [ "${ret}" -gt 128 ] && [ "${ret}" -lt 160 ]; then
		echo "FAIL: ${what}: perf probe -F died of signal $((ret - 128))"
		err=1
	elif [ "${ret}" -ne 0 ] && [ "${how}" = refused ]; then
		echo "PASS: ${what} (refused)"
	elif [ "${ret}" -ne 0 ]; then
		echo "FAIL: ${what}: perf probe -F exited with ${ret}:"
		head -5 "${tmpdir}/funcs"
		err=1
	else
		echo "PASS: ${what}"
	fi
}

if ! perf probe -x "${tmpdir}/prog" -F | grep -q -x hot; then
	echo "FAIL: perf probe -F does not list hot() of the intact program"
	exit 1
fi

# Names of symbols and sections are offsets into a string table: none is
# read past the end of the table.
break_image symbol-names "${tmpdir}/prog" "${tmpdir}/bad-names"
check_funcs "${tmpdir}/bad-names" "symbol names past the end of .strtab"

# The .plt.got of a PIE: an entry per function called through the GOT; a
# size counting more entries than the file holds counts those it holds.
ret=0
break_image plt-got-size "${tmpdir}/prog" "${tmpdir}/bad-plt-got" || ret=$?
if [ "${ret}" = 3 ]; then
	echo "SKIP: .plt.got larger than the file: the test program has no .plt.got"
elif [ "${ret}" = 0 ]; then
	check_funcs "${tmpdir}/bad-plt-got" ".plt.got larger than the file"
else
	echo "FAIL: cannot make the image with a large .plt.got"
	err=1
fi

# Entries of size 0 count none (perf divided the section size by it).
break_image symtab-entsize "${tmpdir}/prog" "${tmpdir}/bad-entsize"
check_funcs "${tmpdir}/bad-entsize" ".symtab entries of size 0" refused

# A note cut by the end of its section is not read (perf read the build-id
# from past it); perf buildid-list -i reads the build-id of an image.
ret=0
break_image build-id-cut "${tmpdir}/prog" "${tmpdir}/bad-note" || ret=$?
if [ "${ret}" = 3 ]; then
	echo "SKIP: cut build-id note: the test program has no build-id"
elif [ "${ret}" != 0 ]; then
	echo "FAIL: cannot make the image with a cut build-id note"
	err=1
elif ! perf buildid-list -i "${tmpdir}/prog" 2> /dev/null | grep -q '^[0-9a-f]\{40\}$'; then
	echo "SKIP: cut build-id note: no 20-byte build-id read from the intact program"
else
	bid=$(perf buildid-list -i "${tmpdir}/bad-note" 2> /dev/null) || ret=$?
	if [ "${ret}" -gt 128 ] && [ "${ret}" -lt 160 ]; then
		echo "FAIL: cut build-id note: perf buildid-list died of signal $((ret - 128))"
		err=1
	elif grep -q '^[0-9a-f]\{40\}$' <<< "${bid}"; then
		echo "FAIL: cut build-id note: a build-id read from past its section"
		err=1
	else
		echo "PASS: cut build-id note"
	fi
fi

# A .gnu_debuglink of no contents names no debug file (perf read the name
# from NULL).
if ! command -v objcopy > /dev/null; then
	echo "SKIP: .gnu_debuglink of no contents: no objcopy on this machine"
elif objcopy --add-gnu-debuglink="${tmpdir}/prog.c" "${tmpdir}/prog" "${tmpdir}/prog-dl" &&
     break_image debuglink-nobits "${tmpdir}/prog-dl" "${tmpdir}/bad-debuglink"; then
	check_funcs "${tmpdir}/bad-debuglink" ".gnu_debuglink of no contents"
else
	echo "FAIL: cannot make the image with a .gnu_debuglink of no contents"
	err=1
fi

exit ${err}
