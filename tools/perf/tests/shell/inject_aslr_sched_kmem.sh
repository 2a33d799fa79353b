#!/bin/bash
# perf inject --aslr: perf sched, perf kmem and perf script
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # err, tmpdir, ...: inject_aslr_setup sets them

shelldir=$(dirname "$0")
# shellcheck source=lib/inject_aslr.sh
. "${shelldir}/lib/inject_aslr.sh"
inject_aslr_setup

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
		skip "can't record the sched, kmem and syscall tracepoints"
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
if [ -n "${skip_kernel}" ]; then
	skip "tracepoints: ${skip_kernel}"
else
	test_tracepoints
fi

cleanup
exit ${err}
