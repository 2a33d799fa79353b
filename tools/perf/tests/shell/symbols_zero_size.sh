#!/bin/bash
# perf report: a zero-size symbol ends before a .dynsym symbol
# SPDX-License-Identifier: GPL-2.0
#
# perf gives a symbol of size 0 (hand-written assembly, crt's) the end of
# the next symbol.  It did so for the symbols of .symtab before adding
# those of .dynsym: a function of .dynsym only (exported, of a .symtab
# that leaves it out) after a zero-size symbol of .symtab was inside it,
# and its samples went to the zero-size symbol.

set -u

if ! command -v cc > /dev/null || ! command -v objcopy > /dev/null; then
	echo "skip: no cc or objcopy on this machine"
	exit 2
fi

tmpdir=$(mktemp -d /tmp/__perf_test.symbols_zero_size.XXXXXX)

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	rm -rf "${tmpdir}"
}
trap cleanup EXIT
trap 'echo "Unexpected signal"; exit 1' TERM INT

cat > "${tmpdir}/prog.c" << 'EOF'
#include <stdlib.h>

/* A local symbol of no size right before exported() */
__asm__(".text\n.type zero_size, @function\nzero_size:\n\tret\n");

int exported(int n)
{
	volatile int s = 0;

	for (int i = 0; i < n; i++)
		s += i;
	return s;
}

int main(int argc, char **argv)
{
	return exported(argc > 1 ? atoi(argv[1]) : 100000000) & 1;
}
EOF
# -rdynamic: exported() in .dynsym; then out of .symtab
if ! cc -O1 -rdynamic -fno-toplevel-reorder -o "${tmpdir}/prog.full" "${tmpdir}/prog.c" ||
   ! objcopy --strip-symbol=exported "${tmpdir}/prog.full" "${tmpdir}/prog"; then
	echo "skip: cc can't build the program"
	exit 2
fi

if ! perf record -q -e task-clock:u -o "${tmpdir}/perf.data" -- "${tmpdir}/prog" \
	> "${tmpdir}/log" 2>&1; then
	cat "${tmpdir}/log"
	echo "perf record failed [Failed]"
	exit 1
fi
perf report -i "${tmpdir}/perf.data" --stdio --sort sym -q > "${tmpdir}/report" 2>&1
top=$(awk 'NF { print $NF; exit }' "${tmpdir}/report")
if [ "${top}" != exported ]; then
	cat "${tmpdir}/report"
	echo "samples of exported() reported in ${top:-nothing} [Failed]"
	exit 1
fi
echo "samples of exported() in exported()"
exit 0
