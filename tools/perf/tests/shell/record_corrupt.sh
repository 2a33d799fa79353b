#!/bin/bash
# perf.data: corrupt records are refused, not crashed on
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2034,SC2154 # err, data, off, ...: shared with lib/perf_data_corrupt.sh

shelldir=$(dirname "$0")
# shellcheck source=lib/perf_data_corrupt.sh
. "${shelldir}/lib/perf_data_corrupt.sh"
perf_data_corrupt_setup

# An attr with a branch call stack (PERF_SAMPLE_BRANCH_CALL_STACK, bit 11
# of branch_sample_type, at 72 in the attr) whose samples hold no callchain
# (perf record -j any,call_stack without -g makes one) or a callchain but no
# branch stack (a corrupt file): perf inject -b, which walks the callchain
# of each sample, takes it for a plain one (it read the NULL callchain or
# branch stack of the sample: SIGSEGV).
check_lbr_call_stack() {
	local g what ret bst

	for g in "" -g; do
		what="branch call stack without callchain"
		[ -z "${g}" ] || what="branch call stack without branch stack"
		# shellcheck disable=SC2086
		pipe_with_attr_first -e task-clock:u ${g} || return
		# The attr follows the record header: branch_sample_type at 24 + 72.
		bst=$(read_le 96 8 "${bad}")
		write_le 96 $((bst | (1 << 11))) 8
		ret=0
		perf inject -b -i - -o "${out}" < "${bad}" > "${log}" 2>&1 || ret=$?
		if [ "${ret}" != 0 ]; then
			tail -n 3 "${log}"
			echo "${what}: perf inject -b exit ${ret} [Failed]"
			err=1
		else
			echo "${what}: read"
		fi
	done
}

# The first PERF_RECORD_FORK made an AUXTRACE (71) followed by $1 bytes of
# data, more than the file holds: perf inject --aslr, which skips the data,
# refuses it and ends.  2^63 + 256 MB, negative as the s64 a tool returns it
# in, was cut to a positive int: perf read the record again and again; 256
# MB made perf skip the rest of the file and exit 0.
check_auxtrace_size() {
	local size=$1 off ret=0

	find_record 7 PERF_RECORD_FORK || return
	cp "${data}" "${bad}"
	write_le "${off}" 71 4
	write_le $((off + 8)) "${size}" 8
	rm -f "${out}"
	timeout 60 perf inject --aslr -i "${bad}" -o "${out}" > "${log}" 2>&1 || ret=$?
	if [ "${ret}" = 0 ] || [ "${ret}" = 124 ] || killed "${ret}" || [ -e "${out}" ]; then
		tail -n 3 "${log}"
		echo "AUXTRACE of ${size} bytes: perf inject --aslr exit ${ret} [Failed]"
		err=1
	else
		echo "AUXTRACE of ${size} bytes: refused"
	fi
	rm -f "${out}"
}

# The first id of the PERF_RECORD_ID_INDEX (69) of a system-wide recording
# made one of no event: perf report refuses the file, perf inject --aslr,
# which wrote the index as it was, too (its output was as unreadable).
check_id_index() {
	local off

	find_record 69 PERF_RECORD_ID_INDEX || return
	cp "${data}" "${bad}"
	# header, nr, then the entries: id, idx, cpu, tid
	write_le $((off + 16)) 0xdeadbeef 8
	check_aslr_refuses "ID_INDEX with an id of no event"
}

# The first PERF_RECORD_MMAP2 (10) of a pipe, of the workload's binary, made
# a kernel one (cpumode 1 in the misc field, at 4) named [vdso] (at 72): the
# DSO perf makes of it, a module's, is the one of the workload's [vdso] map
# that follows, a user map without the room a kernel DSO's maps have after
# them (perf wrote past it).  The user map is skipped: perf inject --aslr
# drops its MMAP2 and says so.
check_user_map_of_kernel_dso() {
	local off

	pipe_of perf record -q -o - -e task-clock:u -- true || return
	find_pipe_record 10 16 PERF_RECORD_MMAP2 || return
	write_le $((off + 4)) 1 2
	write_le $((off + 72)) 0x5d6f7364765b 8
	check_aslr_drops "user [vdso] map of a kernel DSO" MMAP2 \
		"not a mapping perf tracks"
}

# Three PERF_RECORD_MMAP2s (10) of a pipe made kernel ones (misc 1, at 4):
# the first and the second (their executables taken for modules), the
# second's length (at 24) made to end it at 0 (its start at 16), and one
# with a name long enough (at 72) made [kernel.kallsyms]_text.  The kernel
# map, at 0 when added, came after a map whose end is before its start,
# and perf took the kernel maps for still sorted: it couldn't find the
# kernel map to update or remove it (perf report, perf script and perf
# inject --aslr died of SIGSEGV at exit: "Map missing from maps").
check_kernel_map_after_map_ending_at_0() {
	local off size ret=0

	pipe_of perf record -q -o - -e task-clock:u -- true || return
	find_pipe_record 10 16 PERF_RECORD_MMAP2 || return
	write_le $((off + 4)) 1 2
	find_pipe_record 10 $((off + $(read_le $((off + 6)) 2 "${bad}"))) \
		"second PERF_RECORD_MMAP2" || return
	write_le $((off + 4)) 1 2
	write_le $((off + 24)) $((-$(read_le $((off + 16)) 8 "${bad}"))) 8
	# the name, its sample id (24 bytes) and its 23 bytes after 72
	size=0
	while [ "${size}" -lt 119 ]; do
		find_pipe_record 10 $((off + $(read_le $((off + 6)) 2 "${bad}"))) \
			"PERF_RECORD_MMAP2 of a long name" || return
		size=$(read_le $((off + 6)) 2 "${bad}")
	done
	write_le $((off + 4)) 1 2
	printf '[kernel.kallsyms]_text\0' |
		dd of="${bad}" bs=1 seek=$((off + 72)) conv=notrunc status=none
	perf report -i "${bad}" --stdio > "${log}" 2>&1 || ret=$?
	if killed "${ret}"; then
		tail -n 3 "${log}"
		echo "kernel map after a map ending at 0: perf report exit ${ret} [Failed]"
		err=1
	fi
	check_aslr_readable "kernel map after a map ending at 0"
}

# The first PERF_RECORD_SAMPLE (9) of a pipe of a group read made one of no
# value (its number at 48: after the header, ip, pid and tid, time, id and
# period): a group has its leader.  perf report and perf inject --aslr
# refuse it (perf inject took the first value, past the values, for the
# sample's, and wrote a file of it; perf report refused the sample).
check_group_read_of_no_value() {
	local off

	pipe_of perf record -q -o - -e '{task-clock:u,cpu-clock:u}:S' -- \
		perf test -w noploop 1 || return
	find_pipe_record 9 16 PERF_RECORD_SAMPLE || return
	write_le $((off + 48)) 0 8
	check_refused "group read of no value" "Can't parse sample"
}

# The two PERF_RECORD_HEADER_ATTRs (64) of a pipe given branch counters
# (bit 19 of the branch sample type, at 80) and a branch stack (bit 11 of
# the sample type, at 32), their names dropped (each
# PERF_RECORD_EVENT_UPDATE (78) made a PERF_RECORD_FINISHED_ROUND (68),
# whose payload is ignored), and the first PERF_RECORD_SAMPLE (9) given a
# branch stack of no entry (8 zero bytes at its end).  perf report and perf
# inject --aslr don't die reading it (they compared the names of the
# events with branch counters, NULL: SIGSEGV).
check_branch_counters_of_unnamed_events() {
	local off size sample cmd ret

	pipe_of perf record -q -o - -e task-clock:u -e cpu-clock:u -- \
		perf test -w noploop 1 || return
	off=16
	for size in 1 2; do
		find_pipe_record 64 "${off}" PERF_RECORD_HEADER_ATTR || return
		write_le $((off + 32)) $(($(read_le $((off + 32)) 8 "${bad}") | 1 << 11)) 8
		write_le $((off + 80)) $(($(read_le $((off + 80)) 8 "${bad}") | 1 << 19)) 8
		off=$((off + $(read_le $((off + 6)) 2 "${bad}")))
	done
	# The event updates come before the first sample: look for them there
	# only (a walk of the whole pipe is one od a record).
	find_pipe_record 9 16 PERF_RECORD_SAMPLE || return
	sample=${off}
	while off=$(first_record 78 "${bad}" 16 "${sample}") && [ -n "${off}" ]; do
		write_le "${off}" 68 4
	done
	off=${sample}
	size=$(read_le $((off + 6)) 2 "${bad}")
	write_le $((off + 6)) $((size + 8)) 2
	insert_zeros $((off + size)) 8
	for cmd in "report --stdio" "inject --aslr -o ${out}"; do
		ret=0
		# shellcheck disable=SC2086
		perf ${cmd} -i "${bad}" > "${log}" 2>&1 || ret=$?
		if killed "${ret}"; then
			tail -n 3 "${log}"
			echo "branch counters of unnamed events:" \
				"perf ${cmd%% *} exit ${ret} [Failed]"
			err=1
		else
			echo "branch counters of unnamed events: perf ${cmd%% *} doesn't die"
		fi
	done
}

# The tracing data of a tracepoint recording made corrupt as the test
# "perf.data: corrupt tracing data is refused, not crashed on" does: cut
# short, past its section, a format of 2^62 bytes, a system name of 9000
# bytes.  perf inject --aslr refuses each, as perf report does.
check_aslr_tracing_data() {
	local edit what at

	edit="$(dirname "$0")/lib/tracing_data_edit.py"
	if ! command -v python3 > /dev/null || ! perf check feature -q libtraceevent ||
	   ! perf record -q -e sched:sched_process_exec -o /dev/null -- true > /dev/null 2>&1; then
		echo "corrupt tracing data: no python3, libtraceevent or tracepoint here," \
			"not checked"
		return
	fi
	for what in "cmdline-size 0x100000" "cmdline-size +8" "event-size $((1 << 62))" system; do
		if ! perf record -q -e sched:sched_process_exec -o "${bad}" -- true \
				> "${log}" 2>&1; then
			cat "${log}"
			echo "corrupt tracing data: perf record failed [Failed]"
			err=1
			return
		fi
		if [ "${what}" = system ]; then
			at=$(python3 "${edit}" "${bad}" offset system)
			python3 "${edit}" "${bad}" insert "${at}" 9000 0x61
		else
			# shellcheck disable=SC2086 # PART VALUE
			python3 "${edit}" "${bad}" set ${what}
		fi
		check_aslr_refuses "tracing data with ${what}"
	done
}

# The event of a pipe made a tracepoint (attr type 2, at 8 in the record),
# of no format: the pipe has no tracing data.  perf inject --aslr, which
# writes a file, refuses it (perf can't read a file of a tracepoint event
# without its format: --aslr wrote one).
check_tracepoint_without_format() {
	local off

	if ! perf check feature -q libtraceevent; then
		echo "tracepoint event of a pipe without tracing data:" \
			"perf without libtraceevent, not checked"
		return
	fi
	pipe_of perf record -q -o - -e task-clock:u -- true || return
	find_pipe_record 64 16 PERF_RECORD_HEADER_ATTR || return
	write_le $((off + 8)) 2 4
	check_aslr_refuses "tracepoint event of a pipe without tracing data" \
		"has no format in its tracing data"
}

# A PERF_RECORD_FORK (7, sample_id_all) cut to its fixed part (32 bytes:
# header, pid, ppid, tid, ptid, time): the sample id fields at its end,
# read backwards, are not in it (perf took fields of the fork, or from
# before it, for its sample id).
check_short_record 7 32 "FORK record too short for its sample id"
# A PERF_RECORD_MMAP2 (10) cut within its fixed fields (the address, the
# length, the file offset at 24): perf read the rest from the next record.
check_short_record 10 40 "MMAP2 record too short for its fields" \
	"record of type 10 too short for its fields or string"

check_lbr_call_stack

check_auxtrace_size 0x8000000010000000
check_auxtrace_size 0x10000000

check_id_index

# The PERF_RECORD_ID_INDEX (69) cut to its header: perf took the size of its
# entries for a negative number, read its count and entries from the next
# records (perf report died of SIGSEGV).
check_short_record 69 8 "ID_INDEX record too short for its count" \
	"failed to process type: 69 \\[Invalid argument\\]"

check_user_map_of_kernel_dso

check_kernel_map_after_map_ending_at_0

check_group_read_of_no_value

check_branch_counters_of_unnamed_events

check_aslr_tracing_data

check_tracepoint_without_format

cleanup
exit ${err}
