#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The set-up and helpers of the tests of corrupt perf.data files.
#
# A count or a length in a feature section of perf.data is what the header
# readers allocate: one that claims more than its section holds must be
# refused before the allocation (perf report -v says so), not be allocated
# (gigabytes) nor overflow the size computation of the allocation.
# A feature this perf doesn't know (of a file of a later perf) is skipped
# when read and not written by perf inject.
# Records whose sizes don't hold what they say they have are refused.
# A record across the end of the data section is refused too.

# shellcheck disable=SC2034 # err, out, ...: used by the tests

# Set up a test of corrupt perf.data: err, data (a system wide
# recording), bad, out and log (files to write and read); skip the
# test where perf can't record system wide.
perf_data_corrupt_setup() {
	set -e
	# shellcheck source=lib/skip.sh
	. "$(dirname "$0")/lib/skip.sh"

	err=0
	data=$(mktemp /tmp/__perf_test.header_corrupt.XXXXXX)
	bad=$(mktemp /tmp/__perf_test.header_corrupt.XXXXXX)
	out=$(mktemp /tmp/__perf_test.header_corrupt.XXXXXX)
	log=$(mktemp /tmp/__perf_test.header_corrupt.XXXXXX)
	trap trap_cleanup EXIT TERM INT

	echo "Recording"
	# A system wide recording: it has an id index and the records of every CPU.
	if ! perf record -q -a -o /dev/null -- true > /dev/null 2>&1; then
		skip "perf record -a isn't permitted here (root or perf_event_paranoid <= 0)"
	fi
	if ! perf record -q -a -o "${data}" -- perf test -w noploop 1 > "${log}" 2>&1; then
		cat "${log}"
		echo "perf record failed [Failed]"
		cleanup
		exit 1
	fi
}

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
