#!/bin/bash
# perf inject --aslr: tracepoint and probe fields
# SPDX-License-Identifier: GPL-2.0
#
# Tracepoints whose fields hold user and kernel addresses that no list of
# address fields names (a signal handler, the address of a uprobe, the
# callback of a timer or a work item, the faulting address) must come out
# of perf inject --aslr with no address of the recording: the leak checker
# finds none, the fields that were addresses are remapped exactly (same
# offset in the same mapping), the others are as they were.
# perf inject's own check of its output (--aslr-verify) finds none either.
# A probe named after an address (as perf probe names a probe made at one,
# abs_<addr>) gets another name.

set -e

shelldir=$(dirname "$0")
# shellcheck source=lib/probe.sh
. "${shelldir}"/lib/probe.sh
# shellcheck source=lib/setup_python.sh
. "${shelldir}"/lib/setup_python.sh
audit="${shelldir}/lib/aslr_audit.py"

err=0
tmpdir=$(mktemp -d /tmp/perf-inject-aslr-tp.XXXXXX)
probe_added=""

cleanup() {
	local p

	for p in ${probe_added}; do
		perf probe -q -d "${p}" 2> /dev/null || true
	done
	[ -n "${KEEP:-}" ] || rm -rf "${tmpdir}"
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

# shellcheck source=lib/skip.sh
. "$(dirname "$0")/lib/skip.sh"

# A PIE that handles signals and calls a function to probe.
build_prog() {
	cat > "${tmpdir}/sigprog.c" <<'EOF'
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile int hits;

static void handler(int sig)
{
	hits += sig;
}

void __attribute__((noinline)) probed(int i)
{
	hits += i;
}

int main(void)
{
	struct timespec ts = { .tv_nsec = 1000000 };

	signal(SIGUSR1, handler);
	for (int i = 0; i < 50; i++) {
		void *p = malloc(1 << 20);

		raise(SIGUSR1);
		probed(i);
		((volatile char *)p)[4096 * i] = 1;
		free(p);
		nanosleep(&ts, NULL);
	}
	return 0;
}
EOF
	cc -O1 -fPIE -pie -o "${tmpdir}/sigprog" "${tmpdir}/sigprog.c"
}

# The hexadecimal values perf script prints for event $3 of sigprog in $1
# as $2 (a field name, or "(" for the probe address of a uprobe), one per
# line.
field() {
	local pat="^$2=\(0x\)\{0,1\}\([0-9a-f]*\)$"

	[ "$2" != "(" ] || pat='^(\(\)\([0-9a-f]*\))$'
	grep -F " $3: " "$1" | grep '^ *sigprog ' | tr ' ' '\n' | sed -n "s/${pat}/\2/p"
}

# Start and pgoff of the first executable mapping of sigprog in $1.
prog_map() {
	perf script -i "$1" --show-mmap-events -F comm 2> /dev/null |
		grep 'PERF_RECORD_MMAP2.*r-xp.*/sigprog$' | head -1 |
		sed -n 's/.*: \[0x\([0-9a-f]*\)(0x[0-9a-f]*) @ 0x\([0-9a-f]*\) .*/\1 \2/p'
}

# The values of field $2 of event $3 must have moved with sigprog's mapping.
check_moved() {
	local name=$1 fld=$2 ev=$3 orig_map out_map o n

	read -r -a orig_map <<< "$(prog_map "${tmpdir}/orig.data")"
	read -r -a out_map <<< "$(prog_map "${tmpdir}/out.data")"
	if [ ${#orig_map[@]} != 2 ] || [ ${#out_map[@]} != 2 ]; then
		fail "${name}: no executable mapping of sigprog in the input or the output"
		return
	fi
	field "${tmpdir}/orig.script" "${fld}" "${ev}" > "${tmpdir}/${name}.orig"
	field "${tmpdir}/out.script" "${fld}" "${ev}" > "${tmpdir}/${name}.out"
	if [ ! -s "${tmpdir}/${name}.orig" ]; then
		fail "${name}: no ${ev} sample with ${fld} recorded"
		return
	fi
	paste "${tmpdir}/${name}.orig" "${tmpdir}/${name}.out" > "${tmpdir}/${name}.pairs"
	while read -r o n; do
		if [ -z "${n}" ] || [ $((16#${o})) = $((16#${n})) ] ||
		   [ $((16#${o} - 16#${orig_map[0]})) != $((16#${n} - 16#${out_map[0]})) ]; then
			fail "${name}: ${fld} of ${ev} not moved with sigprog: ${o} -> ${n}"
			return
		fi
	done < "${tmpdir}/${name}.pairs"
}

# perf script of the tracepoint fields, hexadecimal numbers (addresses,
# pointers, stand-ins) masked.
# The processes of the recording $1 with a mapping below 4 GiB (a non-PIE
# executable), and their children (which have it until they exec), one
# pid a line.
low_pids() {
	perf script -i "$1" --show-mmap-events --show-task-events -F pid 2> /dev/null |
		awk '/PERF_RECORD_MMAP/ {
			s = $0; sub(/.*PERF_RECORD_MMAP2? /, "", s); split(s, a, "/")
			if (match(s, /\[0x[0-9a-f]+\(/) && RLENGTH - 4 <= 8) low[a[1]] = 1
		     }
		     /PERF_RECORD_FORK\(/ {
			s = $0; sub(/.*PERF_RECORD_FORK\(/, "", s); split(s, a, /[:()]+/)
			if (a[3] in low) low[a[1]] = 1
		     }
		     END { for (p in low) print p }' | sort -u
}

# The samples of $1, their addresses masked, but for the processes in the
# file $2: their 8-byte numbers (gfp_flags of a page allocation) may be in
# one of their mappings, and then they are remapped (deny by default).
tp_script() {
	perf script -i "$1" -F comm,pid,tid,cpu,time,event,trace 2> /dev/null |
		awk -v pids="$(cat "$2")" \
			'BEGIN { n = split(pids, p); for (i = 1; i <= n; i++) low[p[i]] = 1 }
			 { pid = $0; sub(/\/[0-9]+ +\[.*/, "", pid); sub(/.* /, "", pid) }
			 !(pid in low)' |
		sed -e 's/\(0x\)\{0,1\}[0-9a-f]\{5,\}/ADDR/g' -e 's/(nil)/ADDR/g'
}

if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt -1 ]; then
	skip "recording tracepoints of the whole system needs root or perf_event_paranoid -1"
fi
command -v cc > /dev/null || skip "no C compiler to build the workload"
build_prog || skip "cc can't build a PIE"

events=""
for ev in signal:signal_deliver exceptions:page_fault_user \
	  syscalls:sys_enter_mmap syscalls:sys_exit_mmap syscalls:sys_enter_munmap \
	  syscalls:sys_enter_brk syscalls:sys_exit_brk timer:timer_start \
	  timer:hrtimer_start workqueue:workqueue_queue_work kmem:mm_page_alloc \
	  rseq:rseq_update; do
	if perf record -q -o /dev/null -e "${ev}" -- true > /dev/null 2>&1; then
		events="${events} -e ${ev}"
	else
		echo "Not recorded, not available here: ${ev}"
	fi
done
case "${events}" in
*signal:signal_deliver*) ;;
*) skip "can't record signal:signal_deliver" ;;
esac

probe=""
if skip_if_no_perf_probe && perf probe -q -x "${tmpdir}/sigprog" probed 2> /dev/null; then
	probe_added="probe_sigprog:probed"
	probe=" -e probe_sigprog:probed"
	# The kernel's text address: the name is an address of the recording.
	ktext=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
	abs="abs_${ktext}"
	if [ -n "${ktext}" ] && [ $((16#${ktext})) != 0 ] &&
	   perf probe -q -x "${tmpdir}/sigprog" "${abs}=probed" 2> /dev/null; then
		probe_added="${probe_added} probe_sigprog:${abs}"
		probe="${probe} -e probe_sigprog:${abs}"
	else
		abs=""
		echo "Not recorded: a probe named after the kernel's address" \
		     "(no _text in /proc/kallsyms, or perf probe failed)"
	fi
else
	echo "Not recorded: perf probe can't add a uprobe to the workload here"
fi

# shellcheck disable=SC2086
if ! perf record -q -a -o "${tmpdir}/orig.data" ${events}${probe} -- \
		"${tmpdir}/sigprog" > /dev/null 2>&1 ||
   ! perf record -q -a -o - ${events}${probe} -- "${tmpdir}/sigprog" \
		> "${tmpdir}/orig.pipe" 2> /dev/null; then
	fail "perf record of the tracepoints failed"
	cleanup
	exit 1
fi
perf inject -b -i "${tmpdir}/orig.data" -o "${tmpdir}/ref.data"
# perf inject checks its output itself (--aslr-verify, on by default).
if ! perf inject --aslr -v -i "${tmpdir}/orig.data" -o "${tmpdir}/out.data" \
		2> "${tmpdir}/inject.log"; then
	fail "perf inject --aslr failed"
	tail -n 20 "${tmpdir}/inject.log"
	cleanup
	exit 1
fi
grep -q "aslr: verified the output: [1-9][0-9]* records" "${tmpdir}/inject.log" ||
	fail "perf inject --aslr -v doesn't say it verified the output"
perf inject --aslr -i - -o - < "${tmpdir}/orig.pipe" > "${tmpdir}/out.pipe" ||
	fail "perf inject --aslr of a pipe failed"

# The kernel leaves what was in its buffer in the bytes of some tracepoints
# that no field holds (after the system call number of sys_enter_munmap,
# after the code of signal_deliver): here the high half of the address of
# the page fault before. The leak checker wants them zero in the output.
"${PYTHON}" "${audit}" "${tmpdir}/orig.data" "${tmpdir}/orig.data" > "${tmpdir}/self.txt" || true
grep 'bytes of tracepoint data in no field' "${tmpdir}/self.txt" ||
	echo "Not exercised: no stale bytes in tracepoint data in no field here"

# The whole system is recorded: non-PIE executables (not randomized) are
# mapped below 4 GiB, where command names and other numbers read as their
# addresses; the workload and the libraries are above.
for f in data pipe; do
	if ! "${PYTHON}" "${audit}" --min-addr 0x100000000 "${tmpdir}/orig.${f}" \
			"${tmpdir}/out.${f}" > "${tmpdir}/audit.txt"; then
		fail "the leak checker found addresses of the recording in ${f}"
		head -20 "${tmpdir}/audit.txt"
	fi
done

perf script -i "${tmpdir}/orig.data" -F comm,event,trace > "${tmpdir}/orig.script" 2> /dev/null
perf script -i "${tmpdir}/out.data" -F comm,event,trace > "${tmpdir}/out.script" 2> /dev/null
check_moved signal sa_handler signal:signal_deliver
if [ -n "${probe}" ]; then
	check_moved uprobe "(" probe_sigprog:probed
fi
# The probe named after an address has another name, one for all its samples.
if [ -n "${abs:-}" ]; then
	for f in data pipe; do
		perf script -i "${tmpdir}/out.${f}" -F event 2> /dev/null | sort | uniq -c |
			grep ' probe_sigprog:abs_' > "${tmpdir}/abs.${f}" || true
		if grep -q "${abs}" "${tmpdir}/abs.${f}" ||
		   [ "$(wc -l < "${tmpdir}/abs.${f}")" != 1 ] ||
		   [ "$(awk '{ print $1 }' "${tmpdir}/abs.${f}")" != \
		     "$(perf script -i "${tmpdir}/orig.${f}" -F event 2> /dev/null |
			grep -c "probe_sigprog:${abs}:")" ]; then
			fail "${f}: the samples of ${abs} are not all under one other name"
			cat "${tmpdir}/abs.${f}"
		fi
	done
fi

low_pids "${tmpdir}/orig.data" > "${tmpdir}/low.pids"
tp_script "${tmpdir}/ref.data" "${tmpdir}/low.pids" > "${tmpdir}/ref.tp"
tp_script "${tmpdir}/out.data" "${tmpdir}/low.pids" > "${tmpdir}/out.tp"
if ! cmp -s "${tmpdir}/ref.tp" "${tmpdir}/out.tp"; then
	fail "perf script shows other values in the fields that are not addresses"
	diff -u "${tmpdir}/ref.tp" "${tmpdir}/out.tp" | head -20
fi

cleanup
exit ${err}
