#!/bin/bash
# perf inject --aslr tests
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # err, tmpdir, ...: inject_aslr_setup sets them

shelldir=$(dirname "$0")
# shellcheck source=lib/inject_aslr.sh
. "${shelldir}/lib/inject_aslr.sh"
inject_aslr_setup

# Samples with user and interrupt registers: kept, registers stripped.
# A thread is dropped a second after its exit, with the layout of its
# process: a sample half a second after the exit of its process is
# remapped (a task is sampled as it exits, after its PERF_RECORD_EXIT), one
# two seconds after has its address zeroed.  Off-CPU samples, written at
# the end of the recording, keep them all (the offcpu case).
test_exited() {
	local d="${tmpdir}/exited" ips

	mkdir "${d}"
	perf record -q --no-bpf-event -o - -e task-clock:u -- perf test -w noploop 1 \
		2> /dev/null > "${d}/orig.pipe"
	if ! "${PYTHON}" - "${d}/orig.pipe" "${d}/late.pipe" <<'PYEOF'
import struct
import sys

src, dst = sys.argv[1:]
data = bytearray(open(src, "rb").read())
pos = 16
sample_type = None
last = None
exits = {}
while pos + 8 <= len(data):
    ev_type, _, size = struct.unpack_from("<IHH", data, pos)
    if size < 8:
        break
    if ev_type == 64 and sample_type is None:  # HEADER_ATTR
        sample_type = struct.unpack_from("<Q", data, pos + 8 + 24)[0]
    if ev_type == 9 and sample_type & 7 == 7:  # SAMPLE with IP, TID, TIME
        off = pos + 8 + (8 if sample_type & (1 << 16) else 0) + 8
        time = struct.unpack_from("<Q", data, off + 8)[0]
        # the last in time: the buffers of the CPUs are one after the other
        if not last or time > last[4]:
            last = (pos, size, struct.unpack_from("<I", data, off)[0], off + 8 - pos, time)
    if ev_type == 4:  # EXIT: pid, ppid, tid, ptid, time
        pid, _, tid, _, time = struct.unpack_from("<IIIIQ", data, pos + 8)
        if pid == tid:
            exits[pid] = time
    pos += size
if not last or last[2] not in exits:
    sys.exit("no sample of a process that exited")
for late in (500000000, 2000000000):
    sample = bytearray(data[last[0]:last[0] + last[1]])
    struct.pack_into("<Q", sample, last[3], exits[last[2]] + late)
    data += sample
open(dst, "wb").write(data)
PYEOF
	then
		fail "exited: can't make samples after the exit of their process"
		return
	fi
	if ! perf inject --aslr -v -i - -o "${d}/out.data" < "${d}/late.pipe" 2> "${d}/v.log"; then
		fail "exited: perf inject --aslr failed"
		cat "${d}/v.log"
		return
	fi
	# The last sample of the process, then the two after its exit.
	ips=$(perf script -i "${d}/out.data" -F ip 2> /dev/null | tail -n 3 |
	      tr -d ' ' | tr '\n' ' ')
	case "${ips}" in
	"0 "* | *" 0 "*" 0 ")
		fail "exited: a sample half a second after the exit lost its address (${ips})"
		;;
	*" 0 ") ;;
	*)
		fail "exited: a sample two seconds after the exit kept its address (${ips})"
		;;
	esac
	read -r a b _ <<< "${ips}"
	if [ "${a}" != "${b}" ]; then
		fail "exited: a sample half a second after the exit remapped elsewhere (${ips})"
	fi
	if ! grep -q "threads that exited: [0-9]* dropped a second after their exit" \
			"${d}/v.log"; then
		fail "exited: -v doesn't say exited threads were dropped"
	fi
}

test_regs() {
	local d="${tmpdir}/regs"

	# ip and sp are x86 names; -I may be refused (lockdown).
	case "$(uname -m)" in
	x86_64|i?86) ;;
	*) echo "Skip regs: --user-regs=ip,sp names x86 registers"; return ;;
	esac
	if ! perf record -q -o /dev/null -e task-clock:u --user-regs=ip,sp -I -- true \
			> /dev/null 2>&1; then
		echo "Skip regs: sampling registers isn't permitted here"
		return
	fi
	check_workload regs "-e task-clock:u --user-regs=ip,sp -I" "" perf test -w noploop 1
	[ -f "${d}/out.data" ] || return 0
	if ! perf script -i "${d}/orig.data" -F ip,uregs 2>&1 | grep -q "IP:"; then
		fail "regs: the input has no user registers"
	fi
	if ! perf evlist -v -i "${d}/out.data" > "${d}/evlist.txt" 2>&1; then
		fail "regs: perf evlist can't read the output"
	elif grep -q "REGS\|sample_regs" "${d}/evlist.txt"; then
		fail "regs: the attributes still have registers"
	fi
	if ! perf inject -v --aslr -i "${d}/orig.data" -o "${d}/v.data" 2>&1 | \
		grep -q "aslr: SAMPLE: .* stripped of their registers"; then
		fail "regs: no summary of the stripped samples with -v"
	fi
}

# A perf.data directory (perf record --threads) without kcore: rewritten
# like a file.
test_directory() {
	local d="${tmpdir}/dir"

	mkdir "${d}"
	if ! perf record -q --no-bpf-event --threads -e task-clock:u -o "${d}/orig.data" -- \
			perf test -w noploop 1 > /dev/null 2>&1; then
		fail "dir: perf record --threads failed"
		return
	fi
	perf inject -b -i "${d}/orig.data" -o "${d}/ref.data"
	if ! perf inject --aslr -i "${d}/orig.data" -o "${d}/out.data"; then
		fail "dir: perf inject --aslr failed on a perf.data directory"
		return
	fi
	check_report dir "${d}/ref.data" "${d}/out.data" ""
	# The leak checker reads files: the directory's records as one file.
	perf inject -i "${d}/orig.data" -o "${d}/orig-file.data"
	check_leak dir "${d}/orig-file.data" "${d}/out.data"
}

test_refused() {
	local d="${tmpdir}/refused"

	mkdir "${d}"
	if ! perf record -q --no-bpf-event -o "${d}/orig.data" -e task-clock:u -R \
			-- perf test -w noploop 1 > /dev/null 2>&1; then
		fail "refused: perf record -R failed"
		return
	fi
	# The raw data of an event that is not a tracepoint: its layout is
	# not known, it is dropped, the samples are kept.
	if ! perf inject --aslr -v -i "${d}/orig.data" -o "${d}/out.data" 2> "${d}/err.txt"; then
		fail "raw data refused"
	elif ! grep -q "raw data of an event that is not a tracepoint dropped" "${d}/err.txt"; then
		fail "raw data not said dropped"
	elif perf evlist -v -i "${d}/out.data" 2>&1 | grep -q 'sample_type:.*RAW'; then
		fail "raw data still in the attributes of the output"
	fi
	rm -f "${d}/out.data"

	# Options that write events around the rewriting, refused before any
	# output is written.
	for opt in --buildid-all --mmap2-buildids --mmap2-buildid-all --sched-stat \
			--vm-time-correlation --itrace "--guest-data=${d}/orig.data,1"; do
		if perf inject --aslr "${opt}" -i "${d}/orig.data" -o "${d}/out.data" \
				2> "${d}/err.txt" > /dev/null; then
			fail "--aslr accepted with ${opt}"
		elif ! grep -q -- "--aslr can't be used with ${opt%%=*}" "${d}/err.txt"; then
			fail "no clear error for --aslr with ${opt}"
			cat "${d}/err.txt"
		fi
		if [ -e "${d}/out.data" ]; then
			fail "output left behind after refusing --aslr with ${opt}"
		fi
	done

	# A perf.data directory with kcore: kcore holds the kernel layout.
	# The directory of test_directory, with an (empty) kcore_dir: /proc/kcore
	# is not readable everywhere.
	if [ ! -d "${tmpdir}/dir/orig.data" ]; then
		echo "Skip kcore: no perf.data directory"
		return
	fi
	cp -r "${tmpdir}/dir/orig.data" "${d}/kcore.data"
	mkdir "${d}/kcore.data/kcore_dir"
	if perf inject --aslr -i "${d}/kcore.data" -o "${d}/kcore-out.data" 2> "${d}/err.txt"; then
		fail "--aslr accepted a perf.data directory with kcore"
	elif ! grep -q "doesn't support perf.data directories with kcore" "${d}/err.txt"; then
		fail "no clear error for a perf.data directory with kcore"
		cat "${d}/err.txt"
	fi
}

# --strip-host: neither the hostname nor the command line in the header of
# a file or a pipe output, the same report. Uses the "user" recordings.
test_strip_host() {
	local d="${tmpdir}/user" f

	if ! perf report --header-only -i "${d}/orig.data" 2> /dev/null |
			grep -q '^# hostname :'; then
		fail "strip-host: the input has no hostname to strip"
	fi
	perf inject --aslr --strip-host -i "${d}/orig.data" -o "${d}/strip.data"
	(set -o pipefail; perf inject --aslr --strip-host -i - -o - < "${d}/orig.pipe" |
		perf inject -i - -o "${d}/strip-pipe.data") ||
		fail "strip-host: perf inject of a pipe failed"
	for f in strip.data strip-pipe.data; do
		if ! perf report --header-only -i "${d}/${f}" \
				> "${d}/${f}.header" 2> /dev/null; then
			fail "strip-host: perf report can't read the header of ${f}"
		elif grep -q -E '^# (hostname|cmdline) :' "${d}/${f}.header"; then
			fail "strip-host: ${f} has the hostname or the command line"
		fi
	done
	check_report strip-host "${d}/ref.data" "${d}/strip.data" ""
	if perf inject --strip-host -i "${d}/orig.data" -o "${d}/no-aslr.data" 2> /dev/null; then
		fail "strip-host: accepted without --aslr"
	fi
}

check_workload user "-e task-clock:u" "" perf test -w noploop 1
test_strip_host
check_workload threads "-e task-clock:u" "" perf test -w thloop 1
# A shell whose children fork without exec.
# shellcheck disable=SC2016
check_workload fork "-e task-clock:u" "" sh -c \
	'spin() { i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done; }; spin & spin & wait'
# Data mmaps and sample addresses
check_workload data "-d -e task-clock:u" "" \
	sh -c "timeout 0.5 perf test -w datasym || true"
test_regs
test_exited
# Compressed input: decompressed, rewritten and written uncompressed.
if ! perf version --build-options | grep -q 'zstd: \[ on'; then
	echo "Skip compressed input: perf is built without zstd"
elif ! "${audit_python}" -c 'import zstandard' 2> /dev/null; then
	echo "Skip compressed input: the leak checker needs python3-zstandard"
else
	check_workload zstd "-z -e task-clock:u" "" perf test -w noploop 1
	for f in "${tmpdir}"/zstd/out*; do
		if ! "${audit_python}" "${audit}" -v "${tmpdir}/zstd/orig.data" "${f}" |
				grep -q "^canonical ranges: .* 0 compressed,"; then
			fail "zstd: compressed records in ${f}"
		fi
	done
	if ! perf report --header-only -i "${tmpdir}/zstd/out.data" \
			> "${tmpdir}/zstd/header.txt" 2> /dev/null; then
		fail "zstd: perf report can't read the header of the output"
	elif grep -q '^# compressed' "${tmpdir}/zstd/header.txt"; then
		fail "zstd: the output header says it is compressed"
	fi
fi
test_directory
test_refused

cleanup
exit ${err}
