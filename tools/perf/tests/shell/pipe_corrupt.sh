#!/bin/bash
# perf.data: corrupt pipes are refused, not crashed on
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2034,SC2154 # err, data, off, ...: shared with lib/perf_data_corrupt.sh

shelldir=$(dirname "$0")
# shellcheck source=lib/perf_data_corrupt.sh
. "${shelldir}/lib/perf_data_corrupt.sh"
perf_data_corrupt_setup

# The second event of a pipe of two lost PERF_SAMPLE_ID and IDENTIFIER from
# its sample type: the samples of the two can't be told apart.  perf report and
# perf inject --aslr refuse the pipe as they refuse such a file (perf
# inject --aslr wrote the events into a file header, the file unreadable).
check_pipe_sample_types() {
	local off

	pipe_of perf record -q -o - -e task-clock:u -e cpu-clock:u -- true || return
	strip_sample_id 2 || return
	check_refused "pipe of events whose sample types don't match" "non matching sample_type"
}

# The first PERF_RECORD_EVENT_UPDATE (78) of a pipe made one of a type this
# perf doesn't know (4, at 8), of a later perf: perf inject --aslr, which
# can't tell what it holds, drops it and says so (it passed it on).
check_event_update_type() {
	local off

	pipe_of perf record -q -o - -e task-clock:u -- true || return
	find_pipe_record 78 16 PERF_RECORD_EVENT_UPDATE || return
	write_le $((off + 8)) 4 8
	check_aslr_drops "EVENT_UPDATE of an unknown type" EVENT_UPDATE \
		"of types this perf doesn't know"
}

# The first PERF_RECORD_EVENT_UPDATE (78) of a pipe of $1 events made one of
# no event (its id at 16): perf report refuses it (of one event, takes any
# id for that one's), perf inject --aslr too (it passed it on, its output
# as unreadable: a pipe's first event update may come before the attr of
# its second event, which the file written of the pipe has).
check_event_update() {
	local nr=$1 off

	if [ "${nr}" = 1 ]; then
		pipe_of perf record -q -o - -e task-clock:u -- true || return
	else
		pipe_of perf record -q -o - -e task-clock:u -e cpu-clock:u -- true || return
	fi
	find_pipe_record 78 16 PERF_RECORD_EVENT_UPDATE || return
	write_le $((off + 16)) 0xdeadbeef 8
	check_aslr_refuses "EVENT_UPDATE of no event, ${nr} event(s)" \
		"An event update of id 3735928559, of no event"
}

# The events of a pipe of two, without their sample ids, the pipe cut
# after them (the records that follow have the ids): perf reads such a pipe
# (the samples all of the first event), not such a file.  perf inject
# --aslr refuses to write a file of it (it wrote one perf report refused:
# "non matching sample_type").
check_pipe_without_sample_ids() {
	local off

	pipe_of perf record -q -o - -e task-clock:u -e cpu-clock:u -- true || return
	strip_sample_id 1 && strip_sample_id 2 || return
	head -c "${off}" "${bad}" > "${out}"
	mv "${out}" "${bad}"
	check_aslr_refuses "pipe of events without sample ids into a file" \
		"no sample id to tell their records apart"
}

# A pipe of perf stat record whose PERF_RECORD_THREAD_MAP (73) and
# PERF_RECORD_STAT (76) are made PERF_RECORD_FINISHED_ROUND (68, whose
# payload is ignored): its stat round comes before the counters are set up.
# perf script and perf stat report refuse it (they died of SIGSEGV).
check_stat_round() {
	local off type cmd ret

	pipe_of perf stat record -o - -e task-clock -- true || return
	for type in 73 76; do
		find_pipe_record "${type}" 16 "record of type ${type}" || return
		write_le "${off}" 68 4
	done
	for cmd in script "stat report"; do
		ret=0
		# shellcheck disable=SC2086
		perf ${cmd} -i "${bad}" > "${log}" 2>&1 || ret=$?
		if [ "${ret}" = 0 ] || killed "${ret}" ||
		   ! grep -q "A stat round before the thread and CPU maps" "${log}"; then
			tail -n 5 "${log}"
			echo "stat round before the maps: perf ${cmd} exit ${ret} [Failed]"
			err=1
		else
			echo "stat round before the maps: perf ${cmd} refuses it"
		fi
	done
}

# The first record of type $1 (named $2) of a pipe moved before its attrs:
# perf report and perf inject --aslr refuse it (they took the list head of
# the empty event list for its first event, and an EVENT_UPDATE wrote its
# name or unit into the event list).
check_record_before_attr() {
	local type=$1 name=$2 off size want

	pipe_of perf record -q -o - -e task-clock:u -- true || return
	find_pipe_record "${type}" 16 "${name}" || return
	size=$(read_le $((off + 6)) 2 "${bad}")
	want=" $(printf '\\[%#x\\]' "${size}"): failed to process type: ${type}"
	move_record "${off}" "${size}" 16
	check_refused "${name} before the attrs of a pipe" "${want}"
}

# The first PERF_RECORD_EVENT_UPDATE (78) of a pipe made one of CPUs (type 3
# at 8), a list (type 0 at 24) of 64 K CPUs in its few bytes: perf report
# and perf inject --aslr refuse it (they read the CPUs past the record).
check_event_update_cpus() {
	local off

	pipe_of perf record -q -o - -e task-clock:u -- true || return
	find_pipe_record 78 16 PERF_RECORD_EVENT_UPDATE || return
	write_le $((off + 8)) 3 8
	write_le $((off + 24)) 0 2
	write_le $((off + 26)) 0xffff 2
	check_refused "EVENT_UPDATE of 64 K CPUs in a few bytes" \
		"Corrupt event update record of type 3: .* bytes don't hold it"
}

# The first PERF_RECORD_COMM (3) of a pipe given a size (at 6) under its
# header's: perf report and perf inject --aslr refuse it naming its offset
# in the stream (after the pipe header), size and type (they said "bad
# event header size" only, and exited with the size of the header read).
check_pipe_record_under_header_size() {
	local off

	pipe_of perf record -q -o - -e task-clock:u -- true || return
	find_pipe_record 3 16 PERF_RECORD_COMM || return
	write_le $((off + 6)) 4 2
	check_refused "pipe record under its header size" \
		"$(printf '%#x \\[0x4\\]' $((off - 16))): failed to process type: 3"
}

# The first PERF_RECORD_MMAP2 (10) of a pipe of two events moved between
# their PERF_RECORD_HEADER_ATTRs (64), when the pipe has one event, its time
# (8 bytes before its sample id, which ends it) made 0: perf delivers it at
# once, not in time order, with the attrs after it.  With $1, its sample id
# made $1, of no event.  perf reads such a pipe, the record taken for the
# one event's whatever its id, and perf inject --aslr writes a file of both
# events: of the first event's id, the record is rewritten; of no event's,
# refused (it wrote a file that perf report refused: "failed to process
# type: 10").
check_record_before_second_attr() {
	local id=${1:-} off attr size

	pipe_of perf record -q -o - -e task-clock:u -e cpu-clock:u -- true || return
	find_pipe_record 64 16 PERF_RECORD_HEADER_ATTR || return
	attr=$((off + $(read_le $((off + 6)) 2 "${bad}")))
	find_pipe_record 10 16 PERF_RECORD_MMAP2 || return
	size=$(read_le $((off + 6)) 2 "${bad}")
	write_le $((off + size - 16)) 0 8
	[ -z "${id}" ] || write_le $((off + size - 8)) "${id}" 8
	move_record "${off}" "${size}" "${attr}"
	if [ -z "${id}" ]; then
		check_aslr_readable "record of the first event before the second attr"
	else
		check_aslr_refuses "record of no event before the second attr" \
			"names no event of the input"
	fi
}

check_pipe_sample_types

check_event_update_type

check_event_update 1
check_event_update 2

check_pipe_without_sample_ids

check_stat_round

check_record_before_attr 3 PERF_RECORD_COMM
check_record_before_attr 78 PERF_RECORD_EVENT_UPDATE

check_event_update_cpus

check_pipe_record_under_header_size

check_record_before_second_attr
check_record_before_second_attr 0xdeadbeef

cleanup
exit ${err}
