#!/bin/bash
# perf.data: corrupt input is refused, not crashed on
# SPDX-License-Identifier: GPL-2.0
#
# A count or a length in a feature section of perf.data is what the header
# readers allocate: one that claims more than its section holds must be
# refused before the allocation (perf report -v says so), not be allocated
# (gigabytes) nor overflow the size computation of the allocation.
# A feature this perf doesn't know (of a file of a later perf) is skipped
# when read and not written by perf inject.
# Records whose sizes don't hold what they say they have are refused.
# A record across the end of the data section is refused too.

set -e

err=0
data=$(mktemp /tmp/__perf_test.header_corrupt.XXXXXX)
bad=$(mktemp /tmp/__perf_test.header_corrupt.XXXXXX)
out=$(mktemp /tmp/__perf_test.header_corrupt.XXXXXX)
log=$(mktemp /tmp/__perf_test.header_corrupt.XXXXXX)

cleanup() {
	rm -f "${data}" "${bad}" "${log}"
	rm -f "${out}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	echo "Unexpected signal in ${FUNCNAME[1]}"
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

# The unsigned little endian integer of $2 bytes at offset $1 of file $3,
# ${data} by default.
read_le() {
	od -An -t "u$2" -j "$1" -N "$2" "${3:-${data}}" | tr -d ' '
}

# The file offset of the (offset, size) pair of header feature $1 of
# ${data}, empty if the file has no such feature.  The pairs follow the
# data, one for each bit set in the feature bitmap at offset 72.
feature_entry() {
	local feat=$1 bit=1 nr=0 word

	while [ "${bit}" -lt "${feat}" ]; do
		word=$(read_le $((72 + (bit / 64) * 8)) 8)
		[ $(((word >> (bit % 64)) & 1)) = 0 ] || nr=$((nr + 1))
		bit=$((bit + 1))
	done
	word=$(read_le $((72 + (feat / 64) * 8)) 8)
	[ $(((word >> (feat % 64)) & 1)) = 1 ] || return 0
	echo $(($(read_le 40 8) + $(read_le 48 8) + nr * 16))
}

# The file offset of the section of header feature $1 of ${data}, empty if
# the file has no such feature.
feature_offset() {
	local entry

	entry=$(feature_entry "$1")
	[ -z "${entry}" ] || read_le "${entry}" 8
}

# Write the $3 bytes little endian value $2 at offset $1 of ${bad}.
write_le() {
	local off=$1 val=$2 len=$3 bytes="" i

	for ((i = 0; i < len; i++)); do
		bytes="${bytes}$(printf '\\x%02x' $(((val >> (8 * i)) & 255)))"
	done
	printf '%b' "${bytes}" | dd of="${bad}" bs=1 seek="${off}" conv=notrunc status=none
}

# Whether exit status $1 is of a signal (perf exits with a negative errno,
# 242 for -EFAULT, on an error).
killed() {
	[ "$1" -gt 128 ] && [ "$1" -lt 160 ]
}

# Feature $2 (number $3): write the $6 bytes value $5 at offset $4 of its
# section, the field named $1, then check perf report refuses it, saying $7
# ("corrupt feature section" by default).
check_feature() {
	local field=$1 name=$2 feat=$3 at=$4 val=$5 len=$6 off ret=0
	local msg=${7:-corrupt feature section}

	off=$(feature_offset "${feat}")
	if [ -z "${off}" ]; then
		case "${feat}" in
		3|11|12)	# perf record always writes them
			echo "${name}: not in the recording [Failed]"
			err=1 ;;
		*)
			echo "${name}: not in this recording, not checked" ;;
		esac
		return
	fi
	cp "${data}" "${bad}"
	write_le $((off + at)) "${val}" "${len}"
	perf report -i "${bad}" --header-only -v > "${log}" 2>&1 || ret=$?
	if killed "${ret}"; then
		echo "${name} with a corrupt ${field}: perf report died (exit ${ret}) [Failed]"
		err=1
	elif ! grep -q "${msg}" "${log}"; then
		echo "${name} with a corrupt ${field}: not reported as corrupt [Failed]"
		tail -n 5 "${log}"
		err=1
	else
		echo "${name} with a corrupt ${field}: refused"
	fi
}

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

echo "Recording"
# A system wide recording: it has an id index and the records of every CPU.
if ! perf record -q -a -o /dev/null -- true > /dev/null 2>&1; then
	echo "perf record -a isn't permitted here (root or perf_event_paranoid <= 0) [Skip]"
	cleanup
	exit 2
fi
if ! perf record -q -a -o "${data}" -- perf test -w noploop 1 > "${log}" 2>&1; then
	cat "${log}"
	echo "perf record failed [Failed]"
	cleanup
	exit 1
fi

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

check_numa_nodes
# HEADER_CACHE: after its version, 4 G caches.
check_feature "cache count" CACHE 20 4 0xffffffff 4
# HEADER_MEM_TOPOLOGY: after version and block size, 2^61 + 1 nodes, whose
# size in bytes (24 each) wraps around to 24.
check_feature "node count" MEM_TOPOLOGY 22 16 $(((1 << 61) + 1)) 8
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

check_mem_nodes

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

check_unknown_feature
check_unknown_feature --aslr

# A pipe recording of perf test -w noploop (perf record options $@) in
# ${bad}, whose first record, after the pipe header of 16 bytes, is the
# attr of the event: its perf_event_header, then the attr (whose size is
# at 4).  Fails saying so if not.
pipe_with_attr_first() {
	if ! perf record -q "$@" -o - -- perf test -w noploop 1 > "${bad}" 2> "${log}"; then
		cat "${log}"
		echo "perf record $* -o - failed [Failed]"
		err=1
		return 1
	fi
	if [ "$(read_le 16 4 "${bad}")" != 64 ]; then
		echo "pipe recording: no attr record first [Failed]"
		err=1
		return 1
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

check_attr_record

# perf inject --aslr of ${bad} fails, not of a signal, and leaves no output;
# $1 names the case; with $2, its error says that (a grep pattern).
check_aslr_refuses() {
	local what=$1 want=${2:-} ret=0

	rm -f "${out}"
	perf inject --aslr -i "${bad}" -o "${out}" > "${log}" 2>&1 || ret=$?
	if [ "${ret}" = 0 ] || killed "${ret}" || [ -e "${out}" ]; then
		echo "${what}: perf inject --aslr exit ${ret} [Failed]"
		err=1
	elif [ -n "${want}" ] && ! grep -q -- "${want}" "${log}"; then
		tail -n 3 "${log}"
		echo "${what}: no clear error [Failed]"
		err=1
	else
		echo "${what}: refused"
	fi
}

# perf inject --aslr -v of ${bad} succeeds and counts one record of type $2
# (as perf inject -v names it) dropped for reason $3 (a grep pattern); $1
# names the case.
check_aslr_drops() {
	local what=$1 type=$2 why=$3

	rm -f "${out}"
	if ! perf inject --aslr -v -i "${bad}" -o "${out}" > "${log}" 2>&1; then
		tail -n 3 "${log}"
		echo "${what}: perf inject --aslr failed [Failed]"
		err=1
	elif ! grep -q "${type}: \(.* \)\?1 dropped (${why}" "${log}"; then
		grep "${type}: " "${log}" || true
		echo "${what}: not dropped [Failed]"
		err=1
	else
		echo "${what}: dropped"
	fi
}

# perf inject --aslr of ${bad} succeeds and perf report reads its output;
# $1 names the case.
check_aslr_readable() {
	local what=$1

	rm -f "${out}"
	if ! perf inject --aslr -i "${bad}" -o "${out}" > "${log}" 2>&1; then
		tail -n 3 "${log}"
		echo "${what}: perf inject --aslr failed [Failed]"
		err=1
	elif ! perf report -i "${out}" --stdio > "${log}" 2>&1; then
		tail -n 3 "${log}"
		echo "${what}: output unreadable [Failed]"
		err=1
	else
		echo "${what}: rewritten"
	fi
}

# perf report of ${bad} says $2 (a grep pattern) and doesn't die, perf
# inject --aslr refuses it; $1 names the case.
check_refused() {
	local what=$1 want=$2 ret=0

	perf report -i "${bad}" --stdio > "${log}" 2>&1 || ret=$?
	if killed "${ret}" || ! grep -q -- "${want}" "${log}"; then
		tail -n 5 "${log}"
		echo "${what}: not reported [Failed]"
		err=1
		return
	fi
	check_aslr_refuses "${what}"
}

# The file offset of the first record of type $1 of file $2 from offset $3
# to $4, empty if there is none.
first_record() {
	local type=$1 file=$2 off=$3 end=$4 size

	while [ "${off}" -lt "${end}" ]; do
		if [ "$(read_le "${off}" 4 "${file}")" = "${type}" ]; then
			echo "${off}"
			return
		fi
		size=$(read_le $((off + 6)) 2 "${file}")
		[ "${size}" != 0 ] || return
		off=$((off + size))
	done
}

# The file offset of the first record of type $1 in the data section of
# ${data}, empty if there is none.
record_offset() {
	local start

	start=$(read_le 40 8)
	first_record "$1" "${data}" "${start}" $((start + $(read_le 48 8)))
}

# Set ${off} (a local of the caller) to the file offset of the first record
# of type $1 of ${data}; if there is none, fail saying there is no $2.
find_record() {
	off=$(record_offset "$1")
	[ -z "${off}" ] || return 0
	echo "no $2 in the recording [Failed]"
	err=1
	return 1
}

# The first record of type $1 cut to $2 bytes, the rest made a record of
# its own: perf report names the record (with message $4 if given), perf
# inject --aslr fails and leaves no output; $3 says what is missing.
check_short_record() {
	local type=$1 cut=$2 what="$3" msg="${4:-failed to process type: $1}"
	local off size

	find_record "${type}" "record of type ${type}" || return
	size=$(read_le $((off + 6)) 2)
	cp "${data}" "${bad}"
	write_le $((off + 6)) "${cut}" 2
	# The rest: PERF_RECORD_FINISHED_ROUND (68), whose payload is ignored.
	write_le $((off + cut)) 68 4
	write_le $((off + cut + 6)) $((size - cut)) 2
	check_refused "${what}" "$(printf '%#x \\[%#x\\]' "${off}" "${cut}"): ${msg}"
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

check_lbr_call_stack

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

check_auxtrace_size 0x8000000010000000
check_auxtrace_size 0x10000000

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

check_id_index

# The PERF_RECORD_ID_INDEX (69) cut to its header: perf took the size of its
# entries for a negative number, read its count and entries from the next
# records (perf report died of SIGSEGV).
check_short_record 69 8 "ID_INDEX record too short for its count" \
	"failed to process type: 69 \\[Invalid argument\\]"

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

check_attr_in_data

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

check_attr_size

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

check_data_end

# ${bad}: what command $@ writes to its standard output, a pipe of perf.data;
# if it fails, fail saying so.
pipe_of() {
	if "$@" > "${bad}" 2> "${log}"; then
		return 0
	fi
	tail -n 5 "${log}"
	echo "$*: failed [Failed]"
	err=1
	return 1
}

# Set ${off} (a local of the caller) to the file offset of the first record
# of type $1 of the pipe ${bad} after offset $2 (the pipe header by
# default); if there is none, fail saying there is no $3.
find_pipe_record() {
	off=$(first_record "$1" "${bad}" "${2:-16}" "$(stat -c %s "${bad}")")
	[ -z "${off}" ] || return 0
	echo "no $3 in the pipe [Failed]"
	err=1
	return 1
}

# Strip PERF_SAMPLE_ID and IDENTIFIER from the sample type (at 24 in the
# attr, after the header of the record) of event $1 (1 or 2) of the pipe
# ${bad}; set ${off} (a local of the caller) to the end of its record.
strip_sample_id() {
	local type

	find_pipe_record 64 16 PERF_RECORD_HEADER_ATTR || return
	if [ "$1" = 2 ]; then
		find_pipe_record 64 $((off + $(read_le $((off + 6)) 2 "${bad}"))) \
			"second PERF_RECORD_HEADER_ATTR" || return
	fi
	type=$(read_le $((off + 32)) 8 "${bad}")
	write_le $((off + 32)) $((type & ~(1 << 6 | 1 << 16))) 8
	off=$((off + $(read_le $((off + 6)) 2 "${bad}")))
}

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

check_pipe_sample_types

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

check_event_update_type

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

check_event_update 1
check_event_update 2

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

check_pipe_without_sample_ids

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

check_stat_round

# Move the record at offset $1 of ${bad}, of $2 bytes, to offset $3 before
# it, the bytes from $3 to $1 after it.
move_record() {
	local from=$1 size=$2 to=$3

	{
		head -c "${to}" "${bad}"
		tail -c +$((from + 1)) "${bad}" | head -c "${size}"
		head -c "${from}" "${bad}" | tail -c +$((to + 1))
		tail -c +$((from + size + 1)) "${bad}"
	} > "${out}"
	mv "${out}" "${bad}"
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

check_record_before_attr 3 PERF_RECORD_COMM
check_record_before_attr 78 PERF_RECORD_EVENT_UPDATE

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

check_event_update_cpus

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

check_user_map_of_kernel_dso

# Insert $2 zero bytes at offset $1 of ${bad}.
insert_zeros() {
	local at=$1 nr=$2

	{
		head -c "${at}" "${bad}"
		head -c "${nr}" /dev/zero
		tail -c +$((at + 1)) "${bad}"
	} > "${out}"
	mv "${out}" "${bad}"
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

check_attr_of_later_perf

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

check_kernel_map_after_map_ending_at_0

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

check_group_read_of_no_value

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

check_branch_counters_of_unnamed_events

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

check_pipe_record_under_header_size

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

check_aslr_tracing_data

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

check_tracepoint_without_format

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

check_record_before_second_attr
check_record_before_second_attr 0xdeadbeef

cleanup
exit ${err}
