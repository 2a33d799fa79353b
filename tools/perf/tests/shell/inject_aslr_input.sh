#!/bin/bash
# perf inject --aslr: corrupt and unusual input
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # err, tmpdir, ...: inject_aslr_setup sets them

shelldir=$(dirname "$0")
# shellcheck source=lib/inject_aslr.sh
. "${shelldir}/lib/inject_aslr.sh"
inject_aslr_setup

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

	if [ -n "${skip_kernel}" ]; then
		echo "Skip kernel map named after _stext: ${skip_kernel}"
		return
	fi
	d="${tmpdir}/kernel"
	mkdir "${d}"
	perf record -q -o - -e cpu-clock -- perf test -w sqrtloop 1 \
		2> /dev/null > "${d}/orig.pipe"
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
test_bad_input
test_corrupt
test_group_read
test_later_perf

cleanup
exit ${err}
