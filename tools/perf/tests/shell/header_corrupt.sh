#!/bin/bash
# perf.data: corrupt input is refused, not crashed on
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2034,SC2154 # err, data, off, ...: shared with lib/perf_data_corrupt.sh

shelldir=$(dirname "$0")
# shellcheck source=lib/perf_data_corrupt.sh
. "${shelldir}/lib/perf_data_corrupt.sh"
perf_data_corrupt_setup

# HEADER_CMDLINE whose section says it is 64 TB: the arguments are still
# read (perf used to allocate the section size for them, and fail).
check_section_size() {
	local entry

	entry=$(feature_entry 11)
	if [ -z "${entry}" ]; then
		echo "CMDLINE: not in the recording, which perf record always writes [Failed]"
		err=1
		return
	fi
	cp "${data}" "${bad}"
	write_le $((entry + 8)) $((1 << 46)) 8
	if ! perf report -i "${bad}" --header-only > "${log}" 2>&1 ||
	   ! grep -q "^# cmdline : .*noploop" "${log}"; then
		tail -n 5 "${log}"
		echo "CMDLINE with a corrupt section size: not read [Failed]"
		err=1
	else
		echo "CMDLINE with a corrupt section size: read"
	fi
}
# HEADER_NUMA_TOPOLOGY: two nodes in the room of the one recorded, the
# first whole (CPU list "0"), the second with a CPU list of 64 KB: refused,
# without leaking the CPU map of the first (LeakSanitizer).
check_numa_nodes() {
	local off ret=0

	off=$(feature_offset 14)
	if [ -z "${off}" ]; then
		echo "NUMA_TOPOLOGY: not in this recording, not checked"
		return
	fi
	cp "${data}" "${bad}"
	# Nodes: number, memory total and free, CPU list (length, string).
	write_le "${off}" 2 4
	write_le $((off + 24)) 8 4
	write_le $((off + 28)) 0x30 8
	write_le $((off + 36)) 1 4
	write_le $((off + 56)) 0xffff 4
	perf report -i "${bad}" --header-only -v > "${log}" 2>&1 || ret=$?
	if [ "${ret}" != 0 ] || ! grep -q "65535 items of 1 bytes past its end" "${log}"; then
		tail -n 5 "${log}"
		echo "NUMA_TOPOLOGY node with a corrupt CPU list:" \
		     "not refused (exit ${ret}) [Failed]"
		err=1
	else
		echo "NUMA_TOPOLOGY node with a corrupt CPU list: refused"
	fi
}
# HEADER_MEM_TOPOLOGY: two nodes in the room of the one recorded, the first
# whole with a bitmap of no bits, the second with a bitmap of 2^40 bits:
# refused, without leaking the bitmap of the first (LeakSanitizer).
check_mem_nodes() {
	local off ret=0

	off=$(feature_offset 22)
	if [ -z "${off}" ]; then
		echo "MEM_TOPOLOGY: not in this recording, not checked"
		return
	fi
	cp "${data}" "${bad}"
	# After version and block size: count, then node, size, bitmap.
	write_le $((off + 16)) 2 8
	write_le $((off + 40)) 0 8
	write_le $((off + 64)) $((1 << 40)) 8
	perf report -i "${bad}" --header-only -v > "${log}" 2>&1 || ret=$?
	if killed "${ret}" || ! grep -q "17179869184 items of 8 bytes past its end" "${log}"; then
		tail -n 5 "${log}"
		echo "MEM_TOPOLOGY node with a corrupt bitmap: not refused (exit ${ret}) [Failed]"
		err=1
	else
		echo "MEM_TOPOLOGY node with a corrupt bitmap: refused"
	fi
}

# Features unknown to this perf, every bit from 32 (HEADER_LAST_FEATURE):
# perf inject, plain and --aslr, drops them (it used to call their writers,
# read past the end of feat_ops[]).
check_unknown_feature() {
	local ret=0 word how="perf inject${1:+ $*}"

	cp "${data}" "${bad}"
	# The table of feature sections after the data has an entry for each
	# bit: room for 224 more, read from what comes after it (perf looks
	# at the entries of the features it knows only).  Without the room,
	# a recording of few DSOs is a file cut short, which is refused.
	head -c 4096 /dev/zero >> "${bad}"
	word=$(read_le 72 8)
	write_le 72 $((word | ~((1 << 32) - 1))) 8
	write_le 80 -1 8
	write_le 88 -1 8
	write_le 96 -1 8
	perf inject "$@" -i "${bad}" -o "${out}" > "${log}" 2>&1 || ret=$?
	if [ "${ret}" != 0 ]; then
		tail -n 5 "${log}"
		echo "${how} with features 32-255: exit ${ret} [Failed]"
		err=1
	elif [ $(($(read_le 72 8 "${out}") >> 32)) != 0 ] ||
	     [ $(($(read_le 80 8 "${out}") | $(read_le 88 8 "${out}") |
		  $(read_le 96 8 "${out}"))) != 0 ]; then
		echo "${how} with features 32-255: written to the output [Failed]"
		err=1
	elif ! perf report -i "${out}" --header-only > "${log}" 2>&1; then
		echo "${how} with features 32-255: output unreadable [Failed]"
		err=1
	else
		echo "${how} with features 32-255: dropped"
	fi
}

# The attr record (pipe layout) says where its ids start with the size of
# its attr: one bigger than the record is refused (it made perf read ids
# from past the record).
check_attr_record() {
	local ret=0

	pipe_with_attr_first -e task-clock:u || return
	write_le 28 0xfff0 4
	perf report -i "${bad}" --stdio > "${log}" 2>&1 || ret=$?
	if killed "${ret}"; then
		echo "attr record with a corrupt attr size: perf report died (exit ${ret}) [Failed]"
		err=1
	elif ! grep -q "Corrupt attr record" "${log}"; then
		tail -n 5 "${log}"
		echo "attr record with a corrupt attr size: not reported as corrupt [Failed]"
		err=1
	else
		echo "attr record with a corrupt attr size: refused"
	fi
}

# The first records of the data section made a PERF_RECORD_HEADER_ATTR (64,
# as in a pipe: the attr of the first event with a new id) and a
# PERF_RECORD_FINISHED_ROUND (68) over the rest of them: perf inject adds
# the event, whose attr doesn't fit before the data it copied; it refuses
# to write the header (it wrote the attrs over the start of the data).
check_attr_in_data() {
	local attrs attr_size off size=0 ret=0

	attrs=$(read_le 24 8)
	attr_size=$(read_le $((attrs + 4)) 4)
	off=$(read_le 40 8)
	while [ "${size}" -lt $((8 + attr_size + 8 + 8)) ]; do
		size=$((size + $(read_le $((off + size + 6)) 2)))
	done
	cp "${data}" "${bad}"
	write_le "${off}" 64 4
	write_le $((off + 6)) $((8 + attr_size + 8)) 2
	dd if="${data}" of="${bad}" bs=1 skip="${attrs}" seek=$((off + 8)) \
		count="${attr_size}" conv=notrunc status=none
	write_le $((off + 8 + attr_size)) 0x7777 8
	off=$((off + 8 + attr_size + 8))
	write_le "${off}" 68 4
	write_le $((off + 6)) $((size - 8 - attr_size - 8)) 2
	perf inject -i "${bad}" -o "${out}" > "${log}" 2>&1 || ret=$?
	if [ "${ret}" = 0 ] || killed "${ret}" ||
	   ! grep -q "Can't write the header: the event attributes end at" "${log}"; then
		tail -n 3 "${log}"
		echo "an attr record in the data of a file: perf inject exit ${ret} [Failed]"
		err=1
	else
		echo "an attr record in the data of a file: refused"
	fi
	rm -f "${out}"
}

# The attr size in the file header bigger than the attrs section: no attr
# is read, perf report showed no sample and exited 0, perf inject wrote to
# an empty event list as if to an event.  Both refuse the file.
check_attr_size() {
	local ret=0

	cp "${data}" "${bad}"
	write_le 16 $(($(read_le 32 8) + 8)) 8
	perf report -i "${bad}" --stdio > "${log}" 2>&1 || ret=$?
	if [ "${ret}" = 0 ] || killed "${ret}" || ! grep -q "holds no whole attrs" "${log}"; then
		tail -n 3 "${log}"
		echo "attr size bigger than the attrs section: perf report exit ${ret} [Failed]"
		err=1
		return
	fi
	check_aslr_refuses "attr size bigger than the attrs section"
}

# The data section said 4 bytes shorter: its last record crosses its end.
# perf report and perf inject --aslr refuse it, saying where (perf unmapped
# the data to map the record again, under the events it had queued).
check_data_end() {
	local ret=0 want end

	cp "${data}" "${bad}"
	end=$(($(read_le 40 8) + $(read_le 48 8) - 4))
	write_le 48 $(($(read_le 48 8) - 4)) 8
	perf report -i "${bad}" --stdio > "${log}" 2>&1 || ret=$?
	want="the data section ends at $(printf '%#x' "${end}"), within this event"
	if killed "${ret}" || ! grep -q "${want}" "${log}"; then
		tail -n 5 "${log}"
		echo "last record across the end of the data section:" \
		     "not reported (exit ${ret}) [Failed]"
		err=1
		return
	fi
	check_aslr_refuses "last record across the end of the data section"
}

# The attr of the PERF_RECORD_HEADER_ATTR (64) of a pipe made 8 bytes bigger
# than this perf's, of a later perf (8 zero bytes after it, its size at 4
# in the attr and the record's at 6 made 8 bigger): perf reads the pipe,
# the attr as far as it knows it, and perf inject --aslr writes a file of
# it that perf report reads (perf wrote the attr it knows with the size of
# the later one: "file uses a more recent and unsupported ABI").
check_attr_of_later_perf() {
	local off size

	pipe_of perf record -q -o - -e task-clock:u -- true || return
	find_pipe_record 64 16 PERF_RECORD_HEADER_ATTR || return
	size=$(read_le $((off + 12)) 4 "${bad}")
	write_le $((off + 12)) $((size + 8)) 4
	write_le $((off + 6)) $(($(read_le $((off + 6)) 2 "${bad}") + 8)) 2
	insert_zeros $((off + 8 + size)) 8
	check_aslr_readable "attr of a later perf"
}

check_section_size
# HEADER_HOSTNAME: a string of 4 GB.
check_feature "string length" HOSTNAME 3 0 0xfffffff0 4
# HEADER_CMDLINE: 4 G arguments.
check_feature "argument count" CMDLINE 11 0 0xffffffff 4
# HEADER_EVENT_DESC: 4 G events.
check_feature "event count" EVENT_DESC 12 0 0xffffffff 4
# HEADER_EVENT_DESC: the attr size of the first event 0, which ended the
# array of events there (the events after it leaked).
check_feature "attr size" EVENT_DESC 12 12 0 4 "corrupt event description"
# HEADER_NUMA_TOPOLOGY: 4 G nodes.
check_feature "node count" NUMA_TOPOLOGY 14 0 0xffffffff 4

check_numa_nodes
# HEADER_CACHE: after its version, 4 G caches.
check_feature "cache count" CACHE 20 4 0xffffffff 4
# HEADER_MEM_TOPOLOGY: after version and block size, 2^61 + 1 nodes, whose
# size in bytes (24 each) wraps around to 24.
check_feature "node count" MEM_TOPOLOGY 22 16 $(((1 << 61) + 1)) 8

check_mem_nodes

check_unknown_feature
check_unknown_feature --aslr

check_attr_record

check_attr_in_data

check_attr_size

check_data_end

check_attr_of_later_perf

cleanup
exit ${err}
