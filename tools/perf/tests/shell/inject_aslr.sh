#!/bin/bash
# perf inject --aslr tests
# SPDX-License-Identifier: GPL-2.0

set -e

err=0
skip_kernel=""
shelldir=$(dirname "$0")
audit="${shelldir}/lib/aslr_audit.py"
tmpdir=$(mktemp -d /tmp/perf-inject-aslr.XXXXXX)

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
	echo "FAIL: $*"
	err=1
}

# Unresolved symbols are printed as raw addresses, which --aslr changes.
normalise() {
	sed -e 's/0x[0-9a-f]\{4,\}/ADDR/g' -e 's/ \+$//'
}

report() {
	# $1: input file, $2: extra report options
	# shellcheck disable=SC2086
	perf report -i "$1" --stdio --no-children --sort comm,dso,sym -q $2 2>/dev/null | normalise
}

# Compare the report of the --aslr output to the one of perf inject -b.
check_report() {
	local name=$1 ref=$2 out=$3 opts=$4

	report "${ref}" "${opts}" > "${tmpdir}/${name}.ref.txt"
	report "${out}" "${opts}" > "${tmpdir}/${name}.out.txt"
	if [ ! -s "${tmpdir}/${name}.ref.txt" ]; then
		fail "${name}: empty reference report"
		return
	fi
	if ! cmp -s "${tmpdir}/${name}.ref.txt" "${tmpdir}/${name}.out.txt"; then
		fail "${name}: report differs"
		diff -u "${tmpdir}/${name}.ref.txt" "${tmpdir}/${name}.out.txt" | head -20
	fi
}

# User mappings must all have moved.
mmap_starts() {
	perf script -i "$1" --show-mmap-events -F comm 2>/dev/null | \
		grep 'PERF_RECORD_MMAP' | grep -v ' -1/' | \
		sed -n 's/.*: \[\(0x[0-9a-f]*\)(.*/\1/p' | sort -u
}

check_leak() {
	local name=$1 orig=$2 out=$3

	if [ -f "${audit}" ]; then
		if ! python3 "${audit}" "${orig}" "${out}"; then
			fail "${name}: ${audit} found a leak"
		fi
	fi
	mmap_starts "${orig}" > "${tmpdir}/${name}.orig.starts"
	mmap_starts "${out}" > "${tmpdir}/${name}.out.starts"
	if [ ! -s "${tmpdir}/${name}.out.starts" ]; then
		fail "${name}: no user mmap events in the output"
		return
	fi
	if comm -12 "${tmpdir}/${name}.orig.starts" "${tmpdir}/${name}.out.starts" | grep -q .; then
		fail "${name}: original mmap start addresses in the output"
	fi
}

# Record $2 (a command line) as a file and as a pipe, then check all the
# file/pipe combinations of perf inject --aslr.
check_workload() {
	local name=$1 rec_opts=$2 report_opts=$3
	local d="${tmpdir}/${name}"

	shift 3
	mkdir "${d}"

	# shellcheck disable=SC2086
	if ! perf record -q -o "${d}/orig.data" ${rec_opts} -- "$@" > /dev/null 2>&1; then
		fail "${name}: perf record failed"
		return
	fi
	# shellcheck disable=SC2086
	perf record -q -o - ${rec_opts} -- "$@" 2> /dev/null > "${d}/orig.pipe"

	perf inject -b -i "${d}/orig.data" -o "${d}/ref.data"
	perf inject -b -i - -o "${d}/ref-pipe.data" < "${d}/orig.pipe"

	# file -> file
	if ! perf inject --aslr -b -i "${d}/orig.data" -o "${d}/out.data"; then
		fail "${name}: file to file inject failed"
		return
	fi
	check_report "${name}-file-file" "${d}/ref.data" "${d}/out.data" "${report_opts}"
	check_leak "${name}-file-file" "${d}/orig.data" "${d}/out.data"

	# determinism, the output name is in the header (cmdline)
	mv "${d}/out.data" "${d}/out1.data"
	perf inject --aslr -b -i "${d}/orig.data" -o "${d}/out.data"
	if ! cmp -s "${d}/out.data" "${d}/out1.data"; then
		fail "${name}: output isn't deterministic"
	fi
	# the output injected again gives the same report
	perf inject --aslr -b -i "${d}/out.data" -o "${d}/out3.data"
	check_report "${name}-again" "${d}/ref.data" "${d}/out3.data" "${report_opts}"

	# file -> pipe
	perf inject --aslr -b -i "${d}/orig.data" -o - | cat > "${d}/out-fp.pipe"
	check_report "${name}-file-pipe" "${d}/ref.data" "${d}/out-fp.pipe" "${report_opts}"
	check_leak "${name}-file-pipe" "${d}/orig.data" "${d}/out-fp.pipe"

	# pipe -> file
	cat "${d}/orig.pipe" | perf inject --aslr -b -o "${d}/out-pf.data"
	check_report "${name}-pipe-file" "${d}/ref-pipe.data" "${d}/out-pf.data" "${report_opts}"
	check_leak "${name}-pipe-file" "${d}/orig.pipe" "${d}/out-pf.data"

	# pipe -> pipe
	cat "${d}/orig.pipe" | perf inject --aslr | cat > "${d}/out-pp.pipe"
	check_report "${name}-pipe-pipe" "${d}/ref-pipe.data" "${d}/out-pp.pipe" "${report_opts}"
	check_leak "${name}-pipe-pipe" "${d}/orig.pipe" "${d}/out-pp.pipe"
}

test_bad_input() {
	local d="${tmpdir}/bad" size

	mkdir "${d}"
	perf record -q -o "${d}/orig.data" -e task-clock:u -- \
		perf test -w noploop 1 > /dev/null 2>&1
	size=$(stat -c %s "${d}/orig.data")
	head -c $((size / 2)) "${d}/orig.data" > "${d}/truncated.data"
	if perf inject --aslr -i "${d}/truncated.data" -o "${d}/out.data" 2> /dev/null; then
		fail "truncated input accepted"
	fi
	if [ -e "${d}/out.data" ]; then
		fail "output left behind on error"
	fi
	if ls "${d}"/out.data.* > /dev/null 2>&1; then
		fail "temporary output left behind on error"
	fi
}

# Corrupt the first MMAP2 (len = 0) or SAMPLE (callchain nr too big) record
# of a pipe mode file.
corrupt() {
	python3 - "$1" "$2" "$3" <<'PYEOF'
import struct
import sys

what, src, dst = sys.argv[1:]
data = bytearray(open(src, "rb").read())
pos = 16
sample_type = 0
while pos + 8 <= len(data):
    ev_type, _, size = struct.unpack_from("<IHH", data, pos)
    if size < 8:
        break
    if ev_type == 64 and not sample_type:  # HEADER_ATTR
        sample_type = struct.unpack_from("<Q", data, pos + 8 + 24)[0]
    if what == "mmap" and ev_type == 10:  # MMAP2: pid, tid, start, len
        struct.pack_into("<Q", data, pos + 24, 0)
        break
    if what == "callchain" and ev_type == 9:
        off = pos + 8
        # IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD
        for bit in (1 << 16, 1, 2, 4, 8, 64, 512, 128, 256):
            if sample_type & bit:
                off += 8
        struct.pack_into("<Q", data, off, 0xffff)
        break
    pos += size
open(dst, "wb").write(data)
PYEOF
}

test_corrupt() {
	local d="${tmpdir}/corrupt" what

	mkdir "${d}"
	perf record -q -o - -e task-clock:u -g -- perf test -w noploop 1 \
		2> /dev/null > "${d}/orig.pipe"
	for what in mmap callchain; do
		corrupt "${what}" "${d}/orig.pipe" "${d}/${what}.pipe"
		if perf inject --aslr -i - -o "${d}/${what}.data" < "${d}/${what}.pipe" \
			2> "${d}/${what}.err"; then
			fail "corrupt ${what} accepted"
		fi
		if ! grep -q "file offset" "${d}/${what}.err"; then
			fail "corrupt ${what}: no error naming the file offset"
			cat "${d}/${what}.err"
		fi
		if [ -e "${d}/${what}.data" ]; then
			fail "corrupt ${what}: output left behind on error"
		fi
	done
}

test_refused() {
	local d="${tmpdir}/refused"

	mkdir "${d}"
	perf record -q -o "${d}/orig.data" -e task-clock:u --user-regs=ip \
		-- perf test -w noploop 1 > /dev/null 2>&1 || return 0
	if perf inject --aslr -i "${d}/orig.data" -o "${d}/out.data" 2> "${d}/err.txt"; then
		fail "user registers accepted"
	fi
	if ! grep -q "does not support PERF_SAMPLE_REGS_USER" "${d}/err.txt"; then
		fail "no clear error for user registers"
	fi
	if [ -e "${d}/out.data" ]; then
		fail "output left behind after refusing the input"
	fi
}

if ! perf record -q -o /dev/null -e task-clock:u -- true > /dev/null 2>&1; then
	echo "Skip: perf record -e task-clock:u isn't permitted on this machine"
	cleanup
	exit 2
fi

if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	skip_kernel="perf_event_paranoid > 1 forbids kernel samples"
elif ! awk '$3 == "_text" { if ($1 ~ /^0+$/) exit 1; found = 1 } END { exit !found }' \
		/proc/kallsyms; then
	skip_kernel="kptr_restrict hides kernel addresses"
fi

check_workload user "-e task-clock:u" "" perf test -w noploop 1
check_workload callchain "-e task-clock:u -g" "-G" perf test -w leafloop 1
check_workload threads "-e task-clock:u" "" perf test -w thloop 1
# A shell whose children fork without exec.
# shellcheck disable=SC2016
check_workload fork "-e task-clock:u" "" sh -c \
	'spin() { i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done; }; spin & spin & wait'
if [ -n "${skip_kernel}" ]; then
	echo "Skip kernel samples: ${skip_kernel}"
else
	check_workload kernel "-e cpu-clock -g" "-G" perf test -w sqrtloop 1
fi
test_bad_input
if command -v python3 > /dev/null; then
	test_corrupt
fi
test_refused

cleanup
exit ${err}
