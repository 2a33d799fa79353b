#!/bin/bash
# perf inject --aslr tests
# SPDX-License-Identifier: GPL-2.0

set -e

err=0
skip_kernel=""
shelldir=$(dirname "$0")
audit="${shelldir}/lib/aslr_audit.py"
# shellcheck source=lib/setup_python.sh
. "${shelldir}/lib/setup_python.sh"
# The leak checker reads compressed records with the python zstandard
# module: prefer a python that has it.
audit_python=${PYTHON}
for py in "${PYTHON}" /usr/bin/python3; do
	if "${py}" -c 'import zstandard' 2> /dev/null; then
		audit_python=${py}
		break
	fi
done
tmpdir=$(mktemp -d /tmp/perf-inject-aslr.XXXXXX)

# The build-ids of the recordings go to a cache of the test's own: the
# reports find [vdso] there, whatever HOME is (or if it isn't set).
perf() {
	command perf --buildid-dir "${tmpdir}/debug" "$@"
}

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

# Unresolved symbols and callchain entries are printed as raw addresses,
# which --aslr changes.  An address in no mapping (a sample taken in exec,
# the garbage a frame pointer walk finds on the stack, of any value) is 0 in
# the --aslr output: printed as 0 in a callchain, zero padded as a symbol.
normalise() {
	sed -e 's/0x[0-9a-f]\+/ADDR/g' -e 's/ \+$//' \
	    -e 's/^\( *\(---\)\{0,1\}\)0$/\1ADDR/' \
	    -e 's/\(--[0-9.]*%--\)0$/\1ADDR/' \
	    -e 's/\(\[[.k]\] \)0\{16\}$/\1ADDR/'
}

# Call graphs as folded stacks with their sample counts (-g folded,0,...,count):
# a frame in no mapping is 0 in the --aslr output and its address in the
# reference, where stacks that differ only there are apart.  Such a frame
# is ADDR in both, the counts of the stacks that become alike are summed.
fold() {
	awk '
	/^[0-9]+ / {
		n = split(substr($0, index($0, " ") + 1), f, ";")
		s = ""
		for (i = 1; i <= n; i++)
			s = s (i > 1 ? ";" : "") (f[i] ~ /^(0|ADDR)$/ ? "ADDR" : f[i])
		count[head " | " s] += $1
		next
	}
	{ head = $0; print }
	END { for (k in count) print count[k], k }' | sort
}

report() {
	# $1: input file, $2: extra report options
	# shellcheck disable=SC2086
	perf report -i "$1" --stdio --no-children --sort comm,dso,sym -q $2 2>/dev/null |
		normalise | case "$2" in *folded*) fold ;; *) cat ;; esac
}

# Compare the report of the --aslr output to the one of perf inject -b.
# The reference report is made once per reference file and options.
check_report() {
	local name=$1 ref=$2 out=$3 opts=$4 ref_txt

	ref_txt="${ref}.$(printf '%s' "${opts}" | cksum | cut -d' ' -f1).txt"
	[ -f "${ref_txt}" ] || report "${ref}" "${opts}" > "${ref_txt}"
	report "${out}" "${opts}" > "${tmpdir}/${name}.out.txt"
	if [ ! -s "${ref_txt}" ]; then
		fail "${name}: empty reference report"
		return
	fi
	if ! cmp -s "${ref_txt}" "${tmpdir}/${name}.out.txt"; then
		fail "${name}: report differs"
		diff -u "${ref_txt}" "${tmpdir}/${name}.out.txt" | head -20
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

	if [ ! -f "${audit}" ]; then
		fail "${name}: no leak checker at ${audit}"
	elif ! "${audit_python}" "${audit}" "${orig}" "${out}"; then
		fail "${name}: ${audit} found a leak"
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

# The build-id table of $3 must be the one of $2 (perf inject -b): --aslr
# finds the DSOs hit as it remaps the samples.  Not for DWARF call graphs,
# which --aslr unwinds and -b doesn't (the unwound frames hit more DSOs), nor
# for compressed input, whose build-ids -b leaves empty.
check_build_ids() {
	local name=$1

	case "${name}" in
	dwarf-* | zstd-*) return ;;
	esac

	perf buildid-list -i "$2" 2> /dev/null | sort > "${tmpdir}/${name}.bids.ref"
	perf buildid-list -i "$3" 2> /dev/null | sort > "${tmpdir}/${name}.bids.out"
	if [ ! -s "${tmpdir}/${name}.bids.ref" ] ||
	   ! cmp -s "${tmpdir}/${name}.bids.ref" "${tmpdir}/${name}.bids.out"; then
		fail "${name}: the build-ids of the output are not those of perf inject -b"
		diff -u "${tmpdir}/${name}.bids.ref" "${tmpdir}/${name}.bids.out" | head -10
	fi
}

# Record $2 (a command line) as a file and as a pipe, then check all the
# file/pipe combinations of perf inject --aslr.
check_workload() {
	local name=$1 rec_opts=$2 report_opts=$3
	local d="${tmpdir}/${name}"

	shift 3
	mkdir "${d}"
	# User space only profiles need no BPF program events; perf record
	# waits up to a second at exit for the thread that collects them.
	case "${rec_opts}" in
	*:u*) rec_opts="--no-bpf-event ${rec_opts}" ;;
	esac

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
	check_build_ids "${name}-file-file" "${d}/ref.data" "${d}/out.data"

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
	(set -o pipefail
	 perf inject --aslr -b -i "${d}/orig.data" -o - | cat > "${d}/out-fp.pipe") ||
		fail "${name}-file-pipe: perf inject failed"
	check_report "${name}-file-pipe" "${d}/ref.data" "${d}/out-fp.pipe" "${report_opts}"
	check_leak "${name}-file-pipe" "${d}/orig.data" "${d}/out-fp.pipe"

	# pipe -> file
	cat "${d}/orig.pipe" | perf inject --aslr -b -o "${d}/out-pf.data"
	check_report "${name}-pipe-file" "${d}/ref-pipe.data" "${d}/out-pf.data" "${report_opts}"
	check_leak "${name}-pipe-file" "${d}/orig.pipe" "${d}/out-pf.data"
	check_build_ids "${name}-pipe-file" "${d}/ref-pipe.data" "${d}/out-pf.data"

	# pipe -> pipe
	(set -o pipefail
	 cat "${d}/orig.pipe" | perf inject --aslr | cat > "${d}/out-pp.pipe") ||
		fail "${name}-pipe-pipe: perf inject failed"
	check_report "${name}-pipe-pipe" "${d}/ref-pipe.data" "${d}/out-pp.pipe" "${report_opts}"
	check_leak "${name}-pipe-pipe" "${d}/orig.pipe" "${d}/out-pp.pipe"
}

# Build the workloads of the cases below, in ${tmpdir}/bin.
build_workloads() {
	local b="${tmpdir}/bin"

	mkdir "${b}"
	cat > "${b}/load.c" <<'EOF'
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* A global of a non-PIE binary: its address is known before it runs. */
volatile long counter;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void spin(double secs)
{
	double end = now() + secs;

	while (now() < end)
		counter++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "bp")) {
		for (long i = 0; i < 10000; i++)
			counter++;
	} else if (!strcmp(mode, "dlopen")) {
		void *h = dlopen(argv[2], RTLD_NOW);
		void (*lib_spin)(double);

		if (!h)
			return 1;
		lib_spin = (void (*)(double))dlsym(h, "lib_spin");
		if (!lib_spin)
			return 1;
		lib_spin(0.5);
	} else if (!strcmp(mode, "bigmap")) {
		size_t sz = 1UL << 30;
		char *p = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		for (size_t off = 0; off < sz; off += sz / 8)
			p[off] = 1;
		spin(0.5);
	} else if (!strcmp(mode, "execanon")) {
		/* dec %rdi; jnz .-3; ret */
		static const unsigned char loop[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
		unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
#ifdef __x86_64__
		memcpy(p, loop, sizeof(loop));
		((void (*)(long))p)(200000000);
#else
		(void)loop;
#endif
		spin(0.3);
	} else {
		return 1;
	}
	return 0;
}
EOF
	cat > "${b}/lib.c" <<'EOF'
#include <time.h>

volatile long lib_counter;

void lib_spin(double secs)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	do {
		lib_counter++;
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}
EOF
	cc -O1 -no-pie -fno-pie -o "${b}/load" "${b}/load.c" -ldl 2> /dev/null &&
		cc -O1 -shared -fPIC -o "${b}/libspin.so" "${b}/lib.c" 2> /dev/null
}

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

# A write/read breakpoint on a global: its address must be zeroed.
test_breakpoint() {
	local d="${tmpdir}/bp" load=$1 addr

	addr=$(nm "${load}" | awk '$3 == "counter" { print $1 }')
	mkdir "${d}"
	if [ -z "${addr}" ] || ! perf record -q -o "${d}/probe.data" -e "mem:0x${addr}:rw" -- \
		"${load}" bp > /dev/null 2>&1; then
		echo "Skip breakpoint: can't record mem:0x${addr}:rw"
		return
	fi
	# Some hypervisors take the event but never fire the debug registers.
	if [ -z "$(perf script -i "${d}/probe.data" 2> /dev/null | head -n 1)" ]; then
		echo "Skip breakpoint: mem:0x${addr}:rw gave no samples" \
		     "(no hardware breakpoints on this machine)"
		return
	fi
	rm -r "${d}"
	check_workload bp "-d -e mem:0x${addr}:rw" "" "${load}" bp
	[ -f "${d}/out.data" ] || return 0
	if ! perf evlist -i "${d}/out.data" | grep -q "^mem:0x0:rw"; then
		fail "bp: breakpoint address left in the event name"
		perf evlist -i "${d}/out.data"
	fi
	# the data addresses resolve to the same symbols
	check_report bp-daddr "${d}/ref.data" "${d}/out.data" \
		"--mem-mode --sort symbol_daddr,dso_daddr"

	# Physical addresses: the samples are kept, the field zeroed.
	if ! perf record -q -d --phys-data -e "mem:0x${addr}:rw" -o "${d}/phys.data" -- \
			"${load}" bp > /dev/null 2>&1; then
		echo "Skip physical addresses: can't record --phys-data"
		return
	fi
	perf inject --aslr -v -i "${d}/phys.data" -o "${d}/phys-out.data" 2> "${d}/phys.log"
	if ! grep -q "SAMPLE: .* with their physical address zeroed" "${d}/phys.log"; then
		fail "phys: perf inject -v doesn't say the physical addresses were zeroed"
	fi
	perf script -F phys_addr -i "${d}/phys.data" > "${d}/phys.txt" 2> /dev/null || true
	if ! grep -q '[1-9a-f]' "${d}/phys.txt"; then
		echo "Skip physical addresses: the recording has none (a VM?)"
		return
	fi
	if ! perf script -F phys_addr -i "${d}/phys-out.data" \
			> "${d}/phys-out.txt" 2> /dev/null; then
		fail "phys: perf script can't read the output"
	elif [ "$(wc -l < "${d}/phys.txt")" != "$(wc -l < "${d}/phys-out.txt")" ]; then
		fail "phys: samples with a physical address lost"
	elif grep -q '[1-9a-f]' "${d}/phys-out.txt"; then
		fail "phys: physical addresses left in the output"
	fi
}

# The tracepoint fields of perf script, addresses (hexadecimal numbers of 5
# digits or more, with or without 0x) masked.
tp_script() {
	perf script -i "$1" -F comm,tid,cpu,time,event,trace 2> /dev/null |
		sed -e 's/\(0x\)\{0,1\}[0-9a-f]\{5,\}/ADDR/g' -e 's/(nil)/ADDR/g'
}

# Tracepoints: their fields that hold addresses are remapped (or replaced by
# a stand-in when in no mapping), the others kept, the printk formats of the
# tracing data (kernel addresses) dropped.
test_tracepoints() {
	local d="${tmpdir}/tp" ref f
	local events="-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_process_fork
		-e kmem:kmalloc -e kmem:kfree -e kmem:kmem_cache_alloc -e kmem:kmem_cache_free
		-e raw_syscalls:sys_enter -e raw_syscalls:sys_exit
		-e syscalls:sys_enter_mmap -e syscalls:sys_exit_mmap"

	# shellcheck disable=SC2086
	if ! perf record -q -o /dev/null ${events} -- true > /dev/null 2>&1; then
		echo "Skip tracepoints: can't record the sched, kmem and syscall tracepoints"
		return
	fi
	check_workload tp "${events}" "" perf bench sched messaging -g 1 -l 5
	[ -f "${d}/out.data" ] || return 0
	for f in ref out out-fp ref-pipe out-pf out-pp; do
		ref=${d}/${f}.data
		# perf script names kernel call sites in files only
		if [ ! -f "${ref}" ] && ! perf inject -i "${d}/${f}.pipe" -o "${ref}"; then
			fail "tp: perf inject can't write ${f}.pipe to a file"
		fi
		tp_script "${ref}" > "${d}/${f}.script"
		# Not the count of all records: --aslr drops some header ones.
		perf sched latency -i "${ref}" 2>&1 |
			grep -v -e '^Processed .* events' -e 'lost events (' > "${d}/${f}.sched"
		perf kmem -i "${ref}" stat 2>&1 |
			grep -v -e '^Processed .* events' -e 'lost events (' > "${d}/${f}.kmem"
	done
	if ! grep -q "kmem:kmalloc: call_site=[a-z_]" "${d}/out.script"; then
		fail "tp: no kmalloc with a call site named in the output"
	fi
	# The tools must have read the recording: alike errors compare equal.
	if ! grep -q "Task  *|  *Runtime ms" "${d}/ref.sched"; then
		fail "tp: perf sched latency shows no task: $(tail -n 1 "${d}/ref.sched")"
	fi
	if ! grep -q "^SUMMARY (SLAB allocator)" "${d}/ref.kmem"; then
		fail "tp: perf kmem stat shows no summary: $(tail -n 1 "${d}/ref.kmem")"
	fi
	for f in out out-fp out-pf out-pp; do
		case "${f}" in
		out-p?) ref="ref-pipe" ;;
		*) ref=ref ;;
		esac
		if ! cmp -s "${d}/${ref}.script" "${d}/${f}.script"; then
			fail "tp: perf script shows other tracepoint fields in ${f}"
			diff -u "${d}/${ref}.script" "${d}/${f}.script" | head -10
		fi
		if ! cmp -s "${d}/${ref}.sched" "${d}/${f}.sched"; then
			fail "tp: perf sched latency differs in ${f}"
			diff -u "${d}/${ref}.sched" "${d}/${f}.sched" | head -10
		fi
		if ! cmp -s "${d}/${ref}.kmem" "${d}/${f}.kmem"; then
			fail "tp: perf kmem stat differs in ${f}"
			diff -u "${d}/${ref}.kmem" "${d}/${f}.kmem" | head -10
		fi
	done
	if ! perf inject --aslr -v -i "${d}/orig.data" -o "${d}/v.data" 2>&1 |
			grep -q "TRACING_DATA: .*dropped (printk formats"; then
		fail "tp: perf inject -v doesn't say the printk formats were dropped"
	fi
	test_tracing_data_size "${d}"
}

# A pipe whose tracing data record says 3.75 GB: refused as truncated,
# without allocating what it says (under a 1 GB address space limit, where
# perf runs: not with ASan).
test_tracing_data_size() {
	local d=$1

	"${audit_python}" -c '
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
pos = 16
while pos + 8 <= len(d):
    typ, _, size = struct.unpack_from("<IHH", d, pos)
    if typ == 66:  # PERF_RECORD_HEADER_TRACING_DATA: its size at 8
        struct.pack_into("<I", d, pos + 8, 0xf0000000)
        break
    pos += size
open(sys.argv[2], "wb").write(d)' "${d}/orig.pipe" "${d}/big.pipe"
	if ! (ulimit -v 1048576 && perf version) > /dev/null 2>&1; then
		echo "Skip tracing data size: perf doesn't run in 1 GB of address space (ASan?)"
	elif (ulimit -v 1048576 && perf inject --aslr -i - -o "${d}/big.data" \
			< "${d}/big.pipe" 2> "${d}/big.err"); then
		fail "tp: tracing data of 3.75 GB in a pipe accepted"
	elif ! grep -q "The tracing data of 4026531840 bytes is truncated" "${d}/big.err"; then
		fail "tp: tracing data of 3.75 GB in a pipe: no clear error"
		cat "${d}/big.err"
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

test_bad_input() {
	local d="${tmpdir}/bad" size

	mkdir "${d}"
	perf record -q --no-bpf-event -o "${d}/orig.data" -e task-clock:u -- \
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
	# Cut in the header sections after the data: perf reads what is left.
	head -c $((size - 64)) "${d}/orig.data" > "${d}/truncated.data"
	if perf inject --aslr -i "${d}/truncated.data" -o "${d}/out.data" 2> "${d}/err.txt"; then
		fail "input with a truncated header section accepted"
	elif ! grep -q "past the end of the file (.*): is it truncated?" "${d}/err.txt"; then
		fail "no clear error for a truncated header section"
		cat "${d}/err.txt"
	fi
	if [ -e "${d}/out.data" ]; then
		fail "output left behind on a truncated header section"
	fi
	# A header section whose offset plus size wraps around to 1.
	"${audit_python}" -c '
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
table = sum(struct.unpack_from("<QQ", d, 40))
off = struct.unpack_from("<Q", d, table)[0]
struct.pack_into("<Q", d, table + 8, (1 << 64) - off + 1)
open(sys.argv[2], "wb").write(d)' "${d}/orig.data" "${d}/wrapped.data"
	if perf inject --aslr -i "${d}/wrapped.data" -o "${d}/out.data" 2> "${d}/err.txt"; then
		fail "input with a header section wrapping around accepted"
	elif [ -e "${d}/out.data" ]; then
		fail "output left behind on a header section wrapping around"
	fi
	# A pipe cut within its last records: in a header or in the data.
	perf record -q --no-bpf-event -o - -e task-clock:u -- \
		perf test -w noploop 1 2> /dev/null > "${d}/pipe.data"
	size=$(stat -c %s "${d}/pipe.data")
	for cut in 4 12; do
		head -c $((size - cut)) "${d}/pipe.data" > "${d}/cut.data"
		if perf inject --aslr -i "${d}/cut.data" -o "${d}/out.data" 2> "${d}/err.txt"; then
			fail "a pipe cut ${cut} bytes before its end accepted"
		elif ! grep -q "ends within .* at offset .*: is it truncated?" "${d}/err.txt"; then
			fail "no clear error for a pipe cut ${cut} bytes before its end"
			cat "${d}/err.txt"
		fi
		if [ -e "${d}/out.data" ]; then
			fail "output left behind on a pipe cut ${cut} bytes before its end"
		fi
	done
}

# Corrupt a pipe mode file: the first MMAP2 gets len 0 (mmap) or a file name
# without NUL (filename), or a start of 64 KiB and a length that the
# canonical layout, which starts higher, can't hold without wrapping around
# (wrap);
# the first SAMPLE a callchain nr too big (callchain), or the attr claims a
# branch stack that the samples don't have (branch).
# Or the attr claims a physical address after their callchain (phys).
corrupt() {
	"${PYTHON}" - "$1" "$2" "$3" <<'PYEOF'
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
        if what == "branch":  # PERF_SAMPLE_BRANCH_STACK
            struct.pack_into("<Q", data, pos + 8 + 24, sample_type | (1 << 11))
            break
        if what == "phys":  # PERF_SAMPLE_PHYS_ADDR
            struct.pack_into("<Q", data, pos + 8 + 24, sample_type | (1 << 19))
            break
    if what == "mmap" and ev_type == 10:  # MMAP2: pid, tid, start, len
        struct.pack_into("<Q", data, pos + 24, 0)
        break
    if what == "wrap" and ev_type == 10:
        struct.pack_into("<QQ", data, pos + 16, 0x10000, 0xffffffffffe00000)
        break
    if what == "filename" and ev_type == 10:  # the name starts at 72
        data[pos + 72:pos + size] = b"A" * (size - 72)
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
	perf record -q --no-bpf-event -o - -e task-clock:u -g -- perf test -w noploop 1 \
		2> /dev/null > "${d}/orig.pipe"
	cases="mmap filename wrap callchain branch"
	cases="${cases} phys"
	for what in ${cases}; do
		corrupt "${what}" "${d}/orig.pipe" "${d}/${what}.pipe"
		if perf inject --aslr -i - -o "${d}/${what}.data" < "${d}/${what}.pipe" \
			2> "${d}/${what}.err"; then
			fail "corrupt ${what} accepted"
		fi
		# --aslr's "file offset N", or the reader's "N [SIZE]: "
		if ! grep -q "file offset\|^0x[0-9a-f]* \[0x[0-9a-f]*\]: " "${d}/${what}.err"; then
			fail "corrupt ${what}: no error naming the file offset"
			cat "${d}/${what}.err"
		fi
		if [ -e "${d}/${what}.data" ]; then
			fail "corrupt ${what}: output left behind on error"
		fi
	done
}

# A pipe of a group read by its leader ({task-clock:u,cpu-clock:u}:S: the
# samples of the leader hold the values read of both, each with its id),
# whose second event is given a branch stack (PERF_SAMPLE_BRANCH_STACK) and
# whose first sample gives its first value the id of the second: perf
# delivers the sample as the second event's, whose layout it hasn't got.
# perf inject --aslr rewrites it in the layout it was parsed with (in the
# second event's: SIGSEGV), perf report reads the output.
test_group_read() {
	local d="${tmpdir}/group"

	mkdir "${d}"
	if ! perf record -q --no-bpf-event -o - -e '{task-clock:u,cpu-clock:u}:S' -- \
			perf test -w noploop 1 2> /dev/null > "${d}/orig.pipe"; then
		fail "group read: perf record failed"
		return
	fi
	"${PYTHON}" - "${d}/orig.pipe" "${d}/bad.pipe" <<'PYEOF'
import struct
import sys

data = bytearray(open(sys.argv[1], "rb").read())
pos = 16
attrs = []
while pos + 8 <= len(data):
    ev_type, _, size = struct.unpack_from("<IHH", data, pos)
    if size < 8:
        break
    if ev_type == 64:  # HEADER_ATTR: sample_type at 24, read_format at 32
        attrs.append(pos + 8)
    if ev_type == 9 and len(attrs) == 2:
        sample_type = struct.unpack_from("<Q", data, attrs[1] + 24)[0]
        struct.pack_into("<Q", data, attrs[1] + 24, sample_type | (1 << 11))
        # IP, TID, TIME, ID, PERIOD, the number of values, the first value:
        # its id at 64; the next 16 bytes on, 24 with PERF_FORMAT_LOST.
        step = 24 if struct.unpack_from("<Q", data, attrs[1] + 32)[0] & 16 else 16
        struct.pack_into("<Q", data, pos + 64,
                         struct.unpack_from("<Q", data, pos + 64 + step)[0])
        break
    pos += size
else:
    sys.exit("no sample after two attrs")
open(sys.argv[2], "wb").write(data)
PYEOF
	if ! perf inject --aslr -i - -o "${d}/out.data" < "${d}/bad.pipe" 2> "${d}/err"; then
		fail "group read delivered as its second event: perf inject --aslr failed"
		tail -n 3 "${d}/err"
	elif ! perf report -i "${d}/out.data" --stdio > /dev/null 2> "${d}/err"; then
		fail "group read delivered as its second event: output unreadable"
		tail -n 3 "${d}/err"
	fi
}

# What a later perf may write, with an address of the recording in it: a
# header feature this perf doesn't know and attr fields past its own in a
# pipe (dropped, zeroed), sample_type bits it doesn't know (refused), and a
# kernel image MMAP named after _stext rather than _text (its pgoff, the
# address of _stext, remapped). The leak checker must find nothing.
later_perf() {
	"${PYTHON}" - "$1" "$2" "$3" <<'PYEOF'
import struct
import sys

what, src, dst = sys.argv[1:]
data = bytearray(open(src, "rb").read())
pos = 16
addr = None
while pos + 8 <= len(data):
    ev_type, misc, size = struct.unpack_from("<IHH", data, pos)
    if size < 8:
        break
    if ev_type == 10 and addr is None:  # MMAP2 start
        addr = struct.unpack_from("<Q", data, pos + 16)[0]
    if what == "stext" and ev_type == 1 and b"]_text\0" in data[pos:pos + size]:
        i = data.index(b"]_text\0", pos)
        if i + 8 > pos + size:
            sys.exit("no room for _stext")
        data[i:i + 8] = b"]_stext\0"
        break
    pos += size
if what in ("feature", "attr", "bits"):
    pos = 16
    while pos + 8 <= len(data):
        ev_type, misc, size = struct.unpack_from("<IHH", data, pos)
        if ev_type == 64:  # HEADER_ATTR
            break
        pos += size
    attr_size = struct.unpack_from("<I", data, pos + 8 + 4)[0]
    if what == "feature":  # HEADER_FEATURE of feat_id 250 after the attr
        feat = struct.pack("<IHHQQ", 80, 0, 24, 250, addr)
        data[pos + size:pos + size] = feat
    elif what == "attr":  # 8 more bytes of attr, holding the address
        end = pos + 8 + attr_size
        data[end:end] = struct.pack("<Q", addr)
        struct.pack_into("<I", data, pos + 8 + 4, attr_size + 8)
        struct.pack_into("<H", data, pos + 6, size + 8)
    else:  # sample_type bit 62
        sample_type = struct.unpack_from("<Q", data, pos + 8 + 24)[0]
        struct.pack_into("<Q", data, pos + 8 + 24, sample_type | (1 << 62))
open(dst, "wb").write(data)
PYEOF
}

test_later_perf() {
	local d="${tmpdir}/corrupt" what

	# To a pipe: a file has the features and attrs of this perf only.
	for what in feature attr; do
		later_perf "${what}" "${d}/orig.pipe" "${d}/${what}.pipe"
		if ! perf inject --aslr -v -i - -o - < "${d}/${what}.pipe" \
				> "${d}/${what}.data" 2> "${d}/${what}.err"; then
			fail "later perf ${what}: perf inject --aslr failed"
			cat "${d}/${what}.err"
			continue
		fi
		check_leak "later-${what}" "${d}/${what}.pipe" "${d}/${what}.data"
	done
	grep -q "header features this perf doesn't know" "${d}/feature.err" ||
		fail "later perf feature: -v doesn't say the feature was dropped"
	grep -q "with fields of a later perf zeroed" "${d}/attr.err" ||
		fail "later perf attr: -v doesn't say the attr fields were zeroed"

	later_perf bits "${d}/orig.pipe" "${d}/bits.pipe"
	if perf inject --aslr -i - -o "${d}/bits.data" < "${d}/bits.pipe" 2> "${d}/bits.err"; then
		fail "later perf sample_type bits accepted"
	elif ! grep -q "bits this perf doesn't know" "${d}/bits.err"; then
		fail "later perf sample_type bits: no clear error"
		cat "${d}/bits.err"
	fi

	if [ -n "${skip_kernel}" ] || [ ! -f "${tmpdir}/kernel/orig.pipe" ]; then
		echo "Skip kernel map named after _stext: no kernel recording"
		return
	fi
	d="${tmpdir}/kernel"
	if ! later_perf stext "${d}/orig.pipe" "${d}/stext.pipe"; then
		fail "later perf stext: can't rename the kernel map"
		return
	fi
	if ! perf inject --aslr -i - -o "${d}/stext.data" < "${d}/stext.pipe"; then
		fail "later perf stext: perf inject --aslr failed"
		return
	fi
	check_leak "stext" "${d}/stext.pipe" "${d}/stext.data"
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

# The check of its output that perf inject --aslr makes: an input whose host
# name holds an address of its own (--aslr keeps the host name) is refused,
# from and to a file and a pipe, with nothing left under the output name;
# --strip-host drops the name; --no-aslr-verify writes it all the same, and
# the leak checker finds it there.
test_verify() {
	local d="${tmpdir}/verify" addr rec f ret

	mkdir "${d}"
	if ! command -v setarch > /dev/null || ! command -v unshare > /dev/null; then
		echo "Skip the output check: no setarch or unshare to plant an address"
		return
	fi
	# Without randomization (setarch -R) the workload is where it was in
	# the first recording: name the host after an address of it.
	if ! setarch -R perf record -q -o "${d}/first.data" -e task-clock:u -- true \
			> /dev/null 2>&1; then
		echo "Skip the output check: setarch -R isn't permitted here"
		return
	fi
	addr=$(perf script -i "${d}/first.data" --show-mmap-events 2> /dev/null |
	       sed -n 's/.*MMAP2 .*: \[0x\([0-9a-f]*\)(.* r-xp .*\/true$/\1/p' | head -1)
	if [ -z "${addr}" ]; then
		fail "verify: no executable mapping of true in the recording"
		return
	fi
	addr=$(printf '%x' $((16#${addr} + 0x100)))
	rec="setarch -R perf record -q -e task-clock:u"
	if ! unshare -u sh -c "hostname h${addr} && ${rec} -o '${d}/orig.data' -- true &&
			${rec} -o - -- true > '${d}/orig.pipe'" > /dev/null 2>&1; then
		echo "Skip the output check: can't record under another host name (unshare -u)"
		return
	fi
	if ! perf report --header-only -i "${d}/orig.data" 2> /dev/null |
			grep -q "^# hostname : h${addr}$"; then
		fail "verify: the host name isn't planted"
		return
	fi

	for f in file-file pipe-file pipe-pipe; do
		local in="${d}/orig.data" out="${d}/out.data"

		[ "${f%-*}" = file ] || in=-
		[ "${f#*-}" = file ] || out=-
		if perf inject --aslr -i "${in}" -o "${out}" < "${d}/orig.pipe" \
				> "${d}/out.pipe" 2> "${d}/err.txt"; then
			fail "verify ${f}: an output with an address of the input written"
		elif ! grep -q "0x${addr}, an address of the input, .* as text" "${d}/err.txt"; then
			fail "verify ${f}: no clear error"
			cat "${d}/err.txt"
		fi
		if [ -e "${d}/out.data" ] || ls "${d}"/out.data.inject-tmp.* > /dev/null 2>&1; then
			fail "verify ${f}: output left behind"
			rm -f "${d}"/out.data*
		fi
	done

	if ! perf inject --aslr --strip-host -v -i "${d}/orig.data" -o "${d}/strip.data" \
			2> "${d}/err.txt"; then
		fail "verify: --strip-host refused"
	elif ! grep -q "aslr: verified the output: [1-9][0-9]* records" "${d}/err.txt"; then
		fail "verify: -v doesn't say what was verified"
	fi
	if ! perf inject --aslr --no-aslr-verify -i "${d}/orig.data" -o "${d}/unverified.data"; then
		fail "verify: --no-aslr-verify refused"
	else
		# 1: a leak found; 0 (none) or 2 (no check) would miss it.
		ret=0
		"${audit_python}" "${audit}" "${d}/orig.data" "${d}/unverified.data" \
			> /dev/null || ret=$?
		[ "${ret}" = 1 ] ||
			fail "verify: the leak checker doesn't find the host name (exit ${ret})"
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
test_strip_host
# Samples in ld.so at startup have broken frame pointer chains: those
# addresses become 0 with --aslr (see fold).
check_workload callchain "-e task-clock:u -g" "-g folded,0,caller,count" \
	perf test -w leafloop 1
check_workload threads "-e task-clock:u" "" perf test -w thloop 1
# A shell whose children fork without exec.
# shellcheck disable=SC2016
check_workload fork "-e task-clock:u" "" sh -c \
	'spin() { i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done; }; spin & spin & wait'
if [ -n "${skip_kernel}" ]; then
	echo "Skip kernel samples: ${skip_kernel}"
else
	check_workload kernel "-e cpu-clock -g" "-g folded,0,caller,count" \
		perf test -w sqrtloop 1
fi
# Off-CPU samples (BPF), written at the end of the recording, after the
# exit of their threads.
if [ -n "${skip_kernel}" ]; then
	echo "Skip off-CPU samples: ${skip_kernel}"
elif ! perf record -q --off-cpu -o /dev/null -- true > /dev/null 2>&1; then
	echo "Skip off-CPU samples: perf record --off-cpu failed (no BPF support or permission)"
else
	check_workload offcpu "-e task-clock --off-cpu -g" "-g folded,0,caller,count" \
		sh -c 'perf test -w sqrtloop 1; sleep 0.1'
fi
# DWARF call graphs: unwound during inject into remapped callchains, the
# user stack dumps and registers cut out, their inlined functions shown as
# perf shows them when it unwinds them itself.
if ! perf version --build-options | grep -q 'dwarf-unwind: \[ on'; then
	echo "Skip DWARF call graphs: perf is built without DWARF unwinding"
else
	check_workload dwarf "-e task-clock:u -F 500 --call-graph dwarf,4096" "-G" \
		perf test -w leafloop 1
	if ! perf evlist -v -i "${tmpdir}/dwarf/out.data" > "${tmpdir}/dwarf/evlist.txt" 2>&1; then
		fail "dwarf: perf evlist can't read the output"
	elif grep -q 'sample_type:.*\(STACK_USER\|REGS_USER\)' "${tmpdir}/dwarf/evlist.txt"; then
		fail "dwarf: the output attributes still have user stacks or registers"
	fi
	if ! perf inject --aslr -v -i "${tmpdir}/dwarf/orig.data" -o "${tmpdir}/dwarf/v.data" 2>&1 |
			grep -q "SAMPLE: .* with their user stack unwound"; then
		fail "dwarf: perf inject -v doesn't say the user stacks were unwound"
	fi
fi
# Data mmaps and sample addresses
check_workload data "-d -e task-clock:u" "" \
	sh -c "timeout 0.5 perf test -w datasym || true"
test_regs
test_exited
if [ -n "${skip_kernel}" ]; then
	echo "Skip tracepoints: ${skip_kernel}"
else
	test_tracepoints
fi
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
# A program built with -O2, its functions inlined into one another, recorded
# with DWARF call graphs: each sample has in the --aslr output the
# functions it has in the recording, inlined ones included (perf script -F
# ip,sym, the addresses left out).
test_dwarf_inline() {
	local d="${tmpdir}/dwarf-inline" f

	if ! perf version --build-options | grep -q 'dwarf-unwind: \[ on'; then
		echo "Skip DWARF call graphs of inlined functions: perf has no DWARF unwinding"
		return
	fi
	mkdir "${d}"
	cat > "${d}/inl.c" <<'EOF'
static volatile unsigned long sink;

static inline void leaf(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

static inline void middle(int n)
{
	leaf(n);
	sink ^= n;
}

static __attribute__((noinline)) void outer(int n)
{
	middle(n);
	sink++;
}

int main(void)
{
	for (int i = 0; i < 200000; i++)
		outer(5000);
	return 0;
}
EOF
	if ! cc -O2 -g -fomit-frame-pointer -o "${d}/inl" "${d}/inl.c"; then
		fail "dwarf-inline: cannot build the workload"
		return
	fi
	if ! perf record -q --no-bpf-event -e task-clock:u -F 500 --call-graph dwarf,4096 \
			-o "${d}/orig.data" -- "${d}/inl" > /dev/null 2>&1 ||
	   ! perf inject --aslr -i "${d}/orig.data" -o "${d}/out.data"; then
		fail "dwarf-inline: perf record or perf inject --aslr failed"
		return
	fi
	for f in orig out; do
		perf script -i "${d}/${f}.data" -F ip,sym 2> /dev/null |
			awk 'NF > 1 { $1 = ""; print }' | sort | uniq -c > "${d}/${f}.syms"
	done
	if ! grep -q 'leaf (inlined)' "${d}/orig.syms"; then
		fail "dwarf-inline: the recording shows no inlined function"
	elif ! cmp -s "${d}/orig.syms" "${d}/out.syms"; then
		fail "dwarf-inline: the functions of the samples differ after --aslr"
		diff -u "${d}/orig.syms" "${d}/out.syms" | head -20
	fi
	check_leak dwarf-inline "${d}/orig.data" "${d}/out.data"
}

if ! command -v cc > /dev/null; then
	echo "Skip breakpoint, dlopen, big and executable anonymous maps: no C compiler"
elif ! build_workloads; then
	fail "the test programs don't build"
else
	load="${tmpdir}/bin/load"
	test_dwarf_inline
	test_breakpoint "${load}"
	check_workload dlopen "-e task-clock:u" "" "${load}" dlopen "${tmpdir}/bin/libspin.so"
	check_workload bigmap "-d -e task-clock:u" "" "${load}" bigmap
	check_workload execanon "-e task-clock:u" "" "${load}" execanon
fi
test_directory
test_bad_input
test_corrupt
test_group_read
test_later_perf
test_refused
test_verify

cleanup
exit ${err}
