#!/bin/bash
# Inlined functions in frame pointer call graphs
# SPDX-License-Identifier: GPL-2.0
#
# perf adds the functions inlined at each entry of a call graph it unwinds
# itself (--call-graph dwarf).  A call graph the kernel walked (frame
# pointers), or one unwound before the file was written, got only the
# function each entry is in.  --no-inline leaves them out.

set -e

err=0
tmpdir=$(mktemp -d /tmp/perf-callchain-inline.XXXXXX)

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

# inner() is inlined into outer(), which is not inlined: a sample in the
# loop is in outer(), at a line of inner().
cat > "${tmpdir}/inl.c" << 'EOF'
static volatile unsigned long sink;

static inline __attribute__((always_inline)) void inner(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

static __attribute__((noinline)) void outer(int n)
{
	inner(n);
	sink++;
}

int main(void)
{
	for (int i = 0; i < 100000; i++)
		outer(10000);
	return 0;
}
EOF
command -v cc > /dev/null || skip "no C compiler"
perf record -q -e task-clock:u -o /dev/null -- true > /dev/null 2>&1 ||
	skip "perf record -e task-clock:u isn't permitted here"
if ! cc -O2 -g -fno-omit-frame-pointer -o "${tmpdir}/inl" "${tmpdir}/inl.c"; then
	echo "FAIL: the workload doesn't build"
	cleanup
	exit 1
fi
if ! perf record -q -e task-clock:u -g -o "${tmpdir}/perf.data" -- "${tmpdir}/inl" \
		> /dev/null 2>&1; then
	echo "FAIL: perf record -e task-clock:u -g failed"
	cleanup
	exit 1
fi

# An entry in inner(), then one in outer() at the same address.
perf script -i "${tmpdir}/perf.data" -F ip,sym 2> /dev/null > "${tmpdir}/script.txt"
if ! awk '$2 == "inner" && $3 == "(inlined)" { ip = $1; next }
	  ip != "" && $1 == ip && $2 ~ /^outer/ { found = 1 }
	  { ip = "" }
	  END { exit !found }' "${tmpdir}/script.txt"; then
	echo "FAIL: perf script shows no inner (inlined) before outer in the call graphs"
	err=1
fi
if ! perf script -i "${tmpdir}/perf.data" -F ip,sym --no-inline \
		> "${tmpdir}/noinl.txt" 2> /dev/null ||
   ! grep -q ' outer' "${tmpdir}/noinl.txt"; then
	echo "FAIL: perf script --no-inline shows no outer"
	err=1
elif grep -q '(inlined)' "${tmpdir}/noinl.txt"; then
	echo "FAIL: perf script --no-inline shows inlined functions"
	err=1
fi
# In the call graph: after a branch ("--99.98%--inner (inlined)") or, when
# every sample of outer is in inner, on a line of its own.
if ! perf report -i "${tmpdir}/perf.data" --stdio --no-children -G 2> /dev/null |
		grep -q 'inner (inlined)'; then
	echo "FAIL: perf report shows no inner (inlined) in the call graph of outer"
	err=1
fi

cleanup
exit ${err}
