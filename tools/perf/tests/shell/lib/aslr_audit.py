#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a perf.data file for addresses of the machine it was recorded on.

Usage: aslr_audit.py [-q | -v] ORIG.data OUT.data

ORIG is the file as recorded, OUT the file meant to be shared (e.g. the
output of a tool that rewrites addresses into a canonical layout).  The
address ranges of the recording machine are taken from the MMAP, MMAP2,
KSYMBOL and TEXT_POKE records of ORIG (user maps of every pid, the kernel
map, modules, BPF programs and trampolines).  The canonical ranges are
taken from the same records of OUT.

Every 8-byte word of OUT (the whole file: header, attrs, data section,
feature sections) is read and each value that lies in an ORIG range is
reported as a leak: in the byte order of OUT at every 4-byte aligned file
offset (fields are 4-byte aligned, raw tracepoint data puts 8-byte fields
at 4 mod 8), and in the other byte order at 8-byte aligned offsets.  In
regions that do not start 4-byte aligned (e.g. build-id entries, feature
sections, records after an odd-sized feature record in pipe mode) the
offsets are counted from the start of the region, as the fields there
are.  Hexadecimal numbers in text, whatever is around them (e.g.
/proc/kallsyms copied
into tracing data, a host name h555555556100, a probe abs_7f3a12341234)
are checked too.

Bytes of the raw data of a tracepoint sample that are in no field of its
format (the padding after the system call number of syscalls:sys_enter_*,
after the code of signal:signal_deliver, after the last field) hold what
the kernel left there, often the high half of an address, which no 8-byte
value shows: in OUT, any of them that is not zero is reported.  The
formats are read from the tracing data of OUT.

Not reported, as they are not leaks:
 - values below 0x10000 (or --min-addr): nothing can be mapped there
   (vm.mmap_min_addr), while sizes, counts, pids and flags are small
   numbers.  Non-PIE executables are mapped at fixed low addresses
   (0x400000 on x86-64): ordinary numbers may then match; their address
   is not randomized anyway, --min-addr 0x100000000 ignores them,
 - PERF_CONTEXT_* callchain markers (values >= (u64)-4095),
 - the x86-64 vsyscall page, at the same address on every machine,
 - values inside OUT's own (canonical) ranges; when a canonical range
   overlaps an original range a warning says so, values there cannot be
   told apart,
 - words overlapping build-id bytes, which are hashes, not addresses,
 - values inside original mappings of 1 TiB or more (e.g. the shadow
   memory of a program built with AddressSanitizer): they cover most of
   the user address space, so that data can't be told apart from
   addresses there; a warning names them.

The data of PERF_RECORD_COMPRESSED records (perf record -z) is
decompressed and the records it holds are read and scanned like the
others; this needs the python zstandard module (python3-zstandard).

Exit status: 0 no leak found, 1 leaks found, 2 unreadable/corrupt input.
"""

import argparse
import bisect
import os
import re
import struct
import sys
from collections import namedtuple

try:
    import zstandard
except ImportError:
    zstandard = None

MIN_ADDR = 0x10000
# Mappings this big (sanitizer shadow memory, address space reservations)
# cover most of the user address space: any number may fall in them.
HUGE_MAP = 1 << 40
CONTEXT_MAX = (1 << 64) - 4095
VSYSCALL = (0xffffffffff600000, 0xffffffffff601000)
MAX_HITS = 50
SCAN_CHUNK = 1 << 20
U64_MAX = (1 << 64) - 1

MAGIC = b'PERFILE2'
MAGIC_SWAPPED = b'2ELIFREP'
FILE_HEADER_SIZE = 104
PIPE_HEADER_SIZE = 16

RECORD_NAMES = {
    1: 'MMAP', 2: 'LOST', 3: 'COMM', 4: 'EXIT', 5: 'THROTTLE',
    6: 'UNTHROTTLE', 7: 'FORK', 8: 'READ', 9: 'SAMPLE', 10: 'MMAP2',
    11: 'AUX', 12: 'ITRACE_START', 13: 'LOST_SAMPLES', 14: 'SWITCH',
    15: 'SWITCH_CPU_WIDE', 16: 'NAMESPACES', 17: 'KSYMBOL',
    18: 'BPF_EVENT', 19: 'CGROUP', 20: 'TEXT_POKE',
    21: 'AUX_OUTPUT_HW_ID',
    64: 'HEADER_ATTR', 65: 'HEADER_EVENT_TYPE',
    66: 'HEADER_TRACING_DATA', 67: 'HEADER_BUILD_ID',
    68: 'FINISHED_ROUND', 69: 'ID_INDEX', 70: 'AUXTRACE_INFO',
    71: 'AUXTRACE', 72: 'AUXTRACE_ERROR', 73: 'THREAD_MAP',
    74: 'CPU_MAP', 75: 'STAT_CONFIG', 76: 'STAT', 77: 'STAT_ROUND',
    78: 'EVENT_UPDATE', 79: 'TIME_CONV', 80: 'HEADER_FEATURE',
    81: 'COMPRESSED', 82: 'FINISHED_INIT',
}
REC_MMAP = 1
REC_COMM = 3
REC_SAMPLE = 9
REC_ATTR = 64
REC_MMAP2 = 10
REC_KSYMBOL = 17
REC_TEXT_POKE = 20
REC_TRACING_DATA = 66
REC_BUILD_ID = 67
REC_AUXTRACE = 71
REC_FEATURE = 80
REC_COMPRESSED = 81
# Records whose fields are all numbers, by the file format: counts, times,
# pids, ids, counter values, the clock conversion.
REC_NUMBERS = (2, 4, 5, 6, 7, 8, 13, 69, 75, 76, 77, 79)

# enum in tools/perf/util/header.h
FEATURE_NAMES = [
    'HEADER_RESERVED', 'HEADER_TRACING_DATA', 'HEADER_BUILD_ID',
    'HEADER_HOSTNAME', 'HEADER_OSRELEASE', 'HEADER_VERSION', 'HEADER_ARCH',
    'HEADER_NRCPUS', 'HEADER_CPUDESC', 'HEADER_CPUID', 'HEADER_TOTAL_MEM',
    'HEADER_CMDLINE', 'HEADER_EVENT_DESC', 'HEADER_CPU_TOPOLOGY',
    'HEADER_NUMA_TOPOLOGY', 'HEADER_BRANCH_STACK', 'HEADER_PMU_MAPPINGS',
    'HEADER_GROUP_DESC', 'HEADER_AUXTRACE', 'HEADER_STAT', 'HEADER_CACHE',
    'HEADER_SAMPLE_TIME', 'HEADER_MEM_TOPOLOGY', 'HEADER_CLOCKID',
    'HEADER_DIR_FORMAT', 'HEADER_BPF_PROG_INFO', 'HEADER_BPF_BTF',
    'HEADER_COMPRESSED', 'HEADER_CPU_PMU_CAPS', 'HEADER_CLOCK_DATA',
    'HEADER_HYBRID_TOPOLOGY', 'HEADER_PMU_CAPS',
]
FEAT_TRACING_DATA = 1
FEAT_BUILD_ID = 2
FEAT_ARCH = 6
# 32-bit architectures, as uname -m names them
ARCH32_RE = re.compile(r'^(i[3-6]86|arm(?!64)|armv\d.*|ppc|powerpc|mips|s390|riscv32|sh\d)')
LOW_MAX = 1 << 32

PERF_TYPE_TRACEPOINT = 2
PERF_TYPE_BREAKPOINT = 5
# dynamic PMUs (kprobe, uprobe, ...) from there up
PERF_TYPE_MAX = 6
# perf_event_attr.sample_type bits, in the order of the fields of a sample
# up to the raw data; READ and CALLCHAIN are of variable size.
SAMPLE_IDENTIFIER = 1 << 16
SAMPLE_ID = 1 << 6
SAMPLE_READ = 1 << 4
SAMPLE_CALLCHAIN = 1 << 5
SAMPLE_RAW = 1 << 10
SAMPLE_IP = 1 << 0
SAMPLE_TID = 1 << 1
SAMPLE_TIME = 1 << 2
SAMPLE_ADDR = 1 << 3
SAMPLE_STREAM_ID = 1 << 9
SAMPLE_CPU = 1 << 7
SAMPLE_PERIOD = 1 << 8
SAMPLE_BRANCH_STACK = 1 << 11
SAMPLE_REGS_USER = 1 << 12
SAMPLE_STACK_USER = 1 << 13
SAMPLE_WEIGHT = 1 << 14
SAMPLE_DATA_SRC = 1 << 15
SAMPLE_TRANSACTION = 1 << 17
SAMPLE_REGS_INTR = 1 << 18
SAMPLE_PHYS_ADDR = 1 << 19
SAMPLE_AUX = 1 << 20
SAMPLE_CGROUP = 1 << 21
SAMPLE_DATA_PAGE_SIZE = 1 << 22
SAMPLE_CODE_PAGE_SIZE = 1 << 23
SAMPLE_WEIGHT_STRUCT = 1 << 24
BRANCH_HW_INDEX = 1 << 17
BRANCH_COUNTERS = 1 << 19
SAMPLE_U64_FIELDS = (SAMPLE_IDENTIFIER, 1 << 0, 1 << 1, 1 << 2, 1 << 3,
                     SAMPLE_ID, 1 << 9, 1 << 7, 1 << 8)
FORMAT_TIMES = 1 | 2
FORMAT_ID = 4
FORMAT_GROUP = 8
FORMAT_LOST = 16

# The format of an event in tracing data, and its fields.
TP_FORMAT_RE = re.compile(rb'name: ([^\n]*)\nID: (\d+)\nformat:\n(.*?)\nprint fmt:',
                          re.DOTALL)
TP_FIELD_RE = re.compile(rb'field:([^;]*);\s*offset:(\d+);\s*size:(\d+);')

CPUMODE_KERNEL = 1
CPUMODE_GUEST_KERNEL = 4
MISC_MMAP_BUILD_ID = 1 << 14

# A run of hexadecimal digits, whatever is around it (h555555554000,
# abs_7f3a12341234, 0x...): the whole of it, or of a longer run the numbers
# of 8 to 16 digits at its start and at its end, an address glued to other
# digits.
HEX_RE = re.compile(rb'[0-9a-fA-F]{8,}')


class AuditError(Exception):
    """Unreadable or corrupt input."""


def record_name(rtype):
    """Name of a perf record type."""
    name = RECORD_NAMES.get(rtype)
    return f'PERF_RECORD_{name}' if name else f'record type {rtype}'


def feature_name(feat):
    """Name of a header feature bit."""
    if 0 <= feat < len(FEATURE_NAMES):
        return FEATURE_NAMES[feat]
    return f'header feature {feat}'


def cstring(buf, start, end):
    """NUL terminated string in buf[start:end]."""
    raw = buf[start:end].split(b'\0', 1)[0]
    return raw.decode('utf-8', 'replace')


# An event of a file: its perf_event_attr fields the layout of a sample
# depends on, and its ids.
Attr = namedtuple('Attr', 'type config sample_type read_format flags config1 '
                  'config2 branch_sample_type regs_user regs_intr ids')
ATTR_SAMPLE_ID_ALL = 1 << 18


class Mapping(namedtuple('Mapping', 'start end what pid')):
    """An address range found in a perf.data file."""

    def describe(self, with_range=True):
        """Human readable description of the range."""
        owner = 'kernel' if self.pid in (None, 0xffffffff) else \
            f'pid {self.pid}'
        if not with_range:
            return f'{self.what} ({owner})'
        return f'{self.what} ({owner}) [{self.start:#x}-{self.end:#x})'


class Ranges:
    """Set of address ranges with fast membership lookup."""

    def __init__(self, maps):
        self.maps = sorted(maps, key=lambda m: (m.start, m.end))
        merged = []
        for mapping in self.maps:
            if merged and mapping.start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], mapping.end)
            else:
                merged.append([mapping.start, mapping.end])
        self.merged = merged
        self.starts = [r[0] for r in merged]
        self.lowest = merged[0][0] if merged else U64_MAX + 1

    def __contains__(self, value):
        i = bisect.bisect_right(self.starts, value) - 1
        return i >= 0 and value < self.merged[i][1]

    def find(self, value):
        """The first mapping containing value."""
        for mapping in self.maps:
            if mapping.start > value:
                break
            if value < mapping.end:
                return mapping
        return None

    def overlap(self, other):
        """Intersections of two range sets."""
        out = []
        for start, end in self.merged:
            for ostart, oend in other.merged:
                low, high = max(start, ostart), min(end, oend)
                if low < high:
                    out.append((low, high))
        return out


class TpFormat:  # pylint: disable=too-few-public-methods
    """The bytes of a tracepoint's raw data that no field holds, and the
    8 bytes that are the end of one field and the start of the next."""

    def __init__(self, name, fields, long_size):
        self.name = name
        self.fields = fields
        self.long_size = long_size
        self.holes = []
        # (offset of the __data_loc or __rel_loc word, relative)
        self.dynamic = []
        pos = 0
        for decl, offset, size in sorted(fields, key=lambda f: f[1]):
            if offset > pos:
                self.holes.append((pos, offset))
            pos = max(pos, offset + size)
            if decl.startswith(b'__data_loc') or decl.startswith(b'__rel_loc'):
                self.dynamic.append((offset, decl.startswith(b'__rel_loc')))
        self.fixed_end = pos
        # Halves of two values (the high half of a call site and the low
        # half of the pointer after it), no value: an address is in one
        # field, read where the field starts.
        self.across = []
        spans = sorted((offset, offset + size) for _, offset, size in fields)
        for (start, end), (nstart, nend) in zip(spans, spans[1:]):
            if nstart == end:
                self.across += [pos for pos in range(start + 1, end)
                                if end < pos + 8 <= nend]

    def stale(self, raw, endian):
        """The ranges of raw (the raw data) in no field that are not zero."""
        size = len(raw)
        spans = [(start, min(end, size)) for start, end in self.holes
                 if start < size]
        used = []
        for offset, relative in self.dynamic:
            if offset + 4 > size:
                continue
            (loc,) = struct.unpack_from(endian + 'I', raw, offset)
            start = (loc & 0xffff) + (offset + 4 if relative else 0)
            used.append((start, start + (loc >> 16)))
        pos = self.fixed_end
        for start, end in sorted(used) + [(size, size)]:
            if start > pos:
                spans.append((pos, min(start, size)))
            pos = max(pos, end)
        return [(start, end) for start, end in spans
                if start < end and any(raw[start:end])]


def tp_formats(tracing):
    """The formats of the events in tracing data, by their id."""
    formats = {}
    tracing = tracing or b''
    # "\x17\x08Dtracing", the version, then the byte order and long size
    version_end = tracing.find(b'\0', 10)
    long_size = tracing[version_end + 2] if 0 < version_end < len(tracing) - 2 else 8
    for match in TP_FORMAT_RE.finditer(tracing):
        fields = [(decl.strip(), int(offset), int(size))
                  for decl, offset, size in TP_FIELD_RE.findall(match.group(3))]
        formats[int(match.group(2))] = TpFormat(
            match.group(1).decode('utf-8', 'replace'), fields, long_size)
    return formats


class PerfData:  # pylint: disable=too-many-instance-attributes
    """Minimal perf.data parser: records, feature sections, mappings."""

    def __init__(self, path, records=None, endian='<'):
        """Read the file at path, or the records in the bytes records."""
        self.path = path
        self.buf = records
        try:
            if records is not None:
                pass
            elif os.path.isdir(path):
                raise AuditError(f'{path}: directory (perf record --threads) '
                                 'format is not supported')
            else:
                with open(path, 'rb') as file:
                    self.buf = file.read()
        except OSError as err:
            raise AuditError(f'{path}: {err.strerror}') from err
        self.endian = endian
        self.pipe = records is not None
        self.data_offset = 0
        # (start, end, description, record index or None)
        self.regions = []
        self.opaque = []
        self.maps = []
        self.nr_records = 0
        # the data of the COMPRESSED records, and what it decompresses to
        self.compressed = []
        self.decompressed = None
        # the Attr of each event, and where it is
        self.attrs = []
        self.attr_offsets = []
        # (offset, type, misc, size) of each record
        self.records = []
        # uname -m of the recording machine, if the file says
        self.arch = None
        self.tracing = None
        # (offset, size) of each SAMPLE record
        self.samples = []
        if records is not None:
            self.parse_records(0, len(self.buf), True)
        else:
            self.parse()
        self.decompress()
        self.regions.sort(key=lambda r: r[0])
        self.region_starts = [r[0] for r in self.regions]
        self.opaque.sort()
        self.opaque_longest = None

    def error(self, offset, msg):
        """Raise a corruption error located at offset."""
        raise AuditError(f'{self.path}: offset {offset:#x}: {msg}')

    def unpack(self, fmt, offset):
        """struct.unpack_from with the file's endianness and bounds check."""
        fmt = self.endian + fmt
        if offset < 0 or offset + struct.calcsize(fmt) > len(self.buf):
            self.error(offset, 'truncated file')
        return struct.unpack_from(fmt, self.buf, offset)

    def parse(self):
        """Parse the file or pipe header and everything it points to."""
        if len(self.buf) < PIPE_HEADER_SIZE:
            self.error(0, f'file too small ({len(self.buf)} bytes) '
                       'for a perf.data header')
        magic = self.buf[:8]
        if magic == MAGIC:
            self.endian = '<'
        elif magic == MAGIC_SWAPPED:
            self.endian = '>'
        else:
            self.error(0, 'bad magic, not a perf.data file (PERFILE2)')
        (size,) = self.unpack('Q', 8)
        if size == PIPE_HEADER_SIZE:
            self.pipe = True
            self.regions.append((0, PIPE_HEADER_SIZE, 'pipe header', None))
            self.parse_records(PIPE_HEADER_SIZE, len(self.buf), True)
        elif size == FILE_HEADER_SIZE:
            self.parse_file()
        else:
            self.error(8, f'unsupported header size {size}')

    def section(self, offset, what):
        """Read and bounds check a perf_file_section."""
        start, size = self.unpack('QQ', offset)
        if start > len(self.buf) or size > len(self.buf) - start:
            self.error(offset, f'{what} section [{start:#x}, +{size:#x}) '
                       f'runs past the end of the file ({len(self.buf):#x})')
        return start, size

    def parse_file(self):
        """Parse the PERFILE2 header, attrs, data and feature sections."""
        self.regions.append((0, FILE_HEADER_SIZE, 'file header', None))
        (attr_size,) = self.unpack('Q', 16)
        attrs, attrs_size = self.section(24, 'attr')
        data, data_size = self.section(40, 'data')
        evtypes, evtypes_size = self.section(56, 'event types')
        flags = self.unpack('4Q', 72)
        if attrs_size:
            if attr_size < 16 or attrs_size % attr_size:
                self.error(16, f'bad attr size {attr_size}')
            for i in range(attrs_size // attr_size):
                entry = attrs + i * attr_size
                self.regions.append((entry, entry + attr_size,
                                     f'attr section (attr #{i})', None))
                ids, ids_size = self.section(entry + attr_size - 16,
                                             f'attr #{i} ids')
                self.add_attr(entry, ids, ids_size)
                if ids_size:
                    self.regions.append((ids, ids + ids_size,
                                         f'attr section (attr #{i} ids)',
                                         None))
        if evtypes_size:
            self.regions.append((evtypes, evtypes + evtypes_size,
                                 'event types section', None))
        self.data_offset = data
        self.parse_records(data, data + data_size, False)
        self.parse_features(data + data_size, flags)

    def parse_features(self, table, flags):
        """Parse the feature sections listed at table."""
        feats = [bit for bit in range(1, 256)
                 if flags[bit // 64] & (1 << (bit % 64))]
        if feats:
            self.regions.append((table, table + 16 * len(feats),
                                 'feature section table', None))
        for i, feat in enumerate(feats):
            name = feature_name(feat)
            start, size = self.section(table + 16 * i, name)
            if not size:
                continue
            self.regions.append((start, start + size,
                                 f'header feature section {name}', None))
            if feat == FEAT_BUILD_ID:
                self.parse_build_ids(start, start + size)
            elif feat == FEAT_TRACING_DATA:
                self.tracing = self.buf[start:start + size]
            elif feat == FEAT_ARCH:
                self.arch = cstring(self.buf, start + 4, start + size)

    def add_attr(self, attr, ids, ids_size):
        """Note the event of the attr at attr, of the ids_size bytes of ids."""
        etype, size, config, _, sample_type, read_format, flags = \
            self.unpack('IIQQQQQ', attr)
        # config1, config2, branch_sample_type, sample_regs_user and
        # sample_regs_intr, as far as the attr has them
        more = [0] * 5
        for i, at in enumerate((56, 64, 72, 80, 96)):
            if at + 8 <= size and attr + at + 8 <= len(self.buf):
                (more[i],) = self.unpack('Q', attr + at)
        nr_ids = ids_size // 8
        self.attrs.append(Attr(etype, config, sample_type, read_format, flags, *more,
                               self.unpack(f'{nr_ids}Q', ids) if nr_ids else ()))
        self.attr_offsets.append(attr)

    def parse_build_ids(self, start, end):
        """Mark the build-id bytes of a build_id event sequence as opaque."""
        offset = start
        while offset + 8 <= end:
            (size,) = self.unpack('H', offset + 6)
            if size < 36 or offset + size > end:
                self.error(offset, f'bad build-id entry size {size}')
            # the header, the pid and the build-id: numbers and a hash
            self.opaque.append((offset, offset + 36))
            # entries need not be 8-byte aligned, scan them on their own
            self.regions.append((offset, offset + size,
                                 'build-id entry ' + cstring(
                                     self.buf, offset + 36, offset + size),
                                 -1))
            offset += size

    def parse_records(self, offset, end, pipe):
        """Walk the perf_event_header records in [offset, end)."""
        index = 0
        while offset < end:
            if offset + 8 > end:
                self.error(offset, 'truncated record header')
            rtype, misc, size = self.unpack('IHH', offset)
            if size < 8:
                self.error(offset, f'record #{index} ({record_name(rtype)}) '
                           f'has invalid size {size}')
            if offset + size > end:
                self.error(offset, f'record #{index} ({record_name(rtype)}) '
                           f'of size {size} runs past the end of the '
                           f'{"file" if pipe else "data section"}')
            desc = record_name(rtype)
            self.regions.append((offset, offset + size, desc, index))
            self.records.append((offset, rtype, misc, size))
            self.parse_record(offset, rtype, misc, size)
            payload = self.payload_size(offset, rtype, size)
            if payload:
                start = offset + size
                if payload > end - start:
                    self.error(offset, f'{desc} payload of {payload} bytes '
                               'runs past the end of the data')
                self.regions.append((start, start + payload,
                                     f'{desc} payload', index))
                if rtype == REC_TRACING_DATA:
                    self.tracing = self.buf[start:start + payload]
            offset += size + payload
            index += 1
        self.nr_records = index

    def payload_size(self, offset, rtype, size):
        """Size of the data following a record outside of its size."""
        if rtype == REC_TRACING_DATA and size >= 12:
            (payload,) = self.unpack('I', offset + 8)
            return (payload + 7) & ~7
        if rtype == REC_AUXTRACE and size >= 16:
            (payload,) = self.unpack('Q', offset + 8)
            return payload
        return 0

    def parse_mmap(self, offset, rtype, misc, size):
        """Collect the range of an MMAP or MMAP2 record."""
        fixed = 40 if rtype == REC_MMAP else 72
        if size < fixed:
            self.error(offset, f'{record_name(rtype)} too small ({size})')
        pid, _, start, length, pgoff = self.unpack('IIQQQ', offset + 8)
        name = cstring(self.buf, offset + fixed, offset + size)
        self.add_map(start, length, name, pid)
        if misc & 7 in (CPUMODE_KERNEL, CPUMODE_GUEST_KERNEL) and \
           name.startswith('[') and pgoff != start and pgoff >= MIN_ADDR:
            # [kernel.kallsyms]_text: pgoff is the address of _text
            self.add_map(pgoff, max(length, 1), name + ' (pgoff)', pid)
        if rtype == REC_MMAP2 and misc & MISC_MMAP_BUILD_ID:
            self.opaque.append((offset + 44, offset + 64))

    def parse_record(self, offset, rtype, misc, size):
        """Collect mappings and opaque bytes from one record."""
        if rtype in (REC_MMAP, REC_MMAP2):
            self.parse_mmap(offset, rtype, misc, size)
        elif rtype == REC_KSYMBOL:
            if size < 24:
                self.error(offset, f'PERF_RECORD_KSYMBOL too small ({size})')
            addr, length = self.unpack('QI', offset + 8)
            name = cstring(self.buf, offset + 24, offset + size)
            self.add_map(addr, max(length, 1), 'ksymbol ' + name, None)
        elif rtype == REC_TEXT_POKE and size >= 20:
            addr, old_len, new_len = self.unpack('QHH', offset + 8)
            self.add_map(addr, max(old_len, new_len, 1), 'text poke', None)
        elif rtype == REC_SAMPLE:
            self.samples.append((offset, size))
        elif rtype == REC_ATTR and size >= 8 + 48:
            (attr_size,) = self.unpack('I', offset + 12)
            attr_size = min(max(attr_size, 48), size - 8)
            self.add_attr(offset + 8, offset + 8 + attr_size,
                          size - 8 - attr_size)
        elif rtype == REC_BUILD_ID:
            self.opaque.append((offset + 12, offset + 36))
        elif rtype in REC_NUMBERS:
            self.opaque.append((offset + 8, offset + size))
        elif rtype == REC_FEATURE and size >= 16:
            (feat,) = self.unpack('Q', offset + 8)
            self.regions[-1] = (offset, offset + size,
                                f'{record_name(rtype)} ({feature_name(feat)})',
                                self.regions[-1][3])
            if feat == FEAT_BUILD_ID:
                self.parse_build_ids(offset + 16, offset + size)
            elif feat == FEAT_ARCH:
                self.arch = cstring(self.buf, offset + 20, offset + size)
        elif rtype == REC_COMPRESSED:
            if not zstandard:
                self.error(offset, 'PERF_RECORD_COMPRESSED (perf record -z):'
                           ' reading compressed data needs the python '
                           'zstandard module (python3-zstandard)')
            self.compressed.append(self.buf[offset + 8:offset + size])

    def decompress(self):
        """Read the records held by the COMPRESSED records, as one stream."""
        if not self.compressed:
            return
        try:
            data = zstandard.ZstdDecompressor().decompressobj().decompress(
                b''.join(self.compressed))
        except zstandard.ZstdError as err:
            raise AuditError(f'{self.path}: compressed data: {err}') from err
        self.decompressed = PerfData(f'{self.path} (decompressed records)',
                                     data, self.endian)
        self.decompressed.attrs += self.attrs
        self.decompressed.tracing = self.tracing
        self.maps += self.decompressed.maps
        self.nr_records += self.decompressed.nr_records

    def add_map(self, start, length, what, pid):
        """Add an address range, ignoring empty and bogus ones."""
        end = min(start + length, U64_MAX + 1)
        if end > start >= MIN_ADDR:
            self.maps.append(Mapping(start, end, what, pid))

    def locate(self, offset):
        """Describe what sits at a file offset."""
        i = bisect.bisect_right(self.region_starts, offset) - 1
        # regions may nest (build-id entries in a feature section)
        while i >= 0:
            start, end, desc, index = self.regions[i]
            if start <= offset < end:
                if index is None:
                    return f'{desc} (+{offset - start:#x})'
                if index < 0:
                    return f'{desc} at +{offset - start:#x}'
                return (f'{desc} #{index} at data offset '
                        f'{start - self.data_offset:#x} '
                        f'(+{offset - start:#x})')
            i -= 1
        return 'outside any known section'

    def sample_attr(self, offset, size):
        """The attr of the SAMPLE record at offset, None if not known."""
        if len(self.attrs) == 1:
            return self.attrs[0]
        if not self.attrs:
            return None
        first = self.attrs[0][2]
        if first & SAMPLE_IDENTIFIER:
            pos = 8
        elif first & SAMPLE_ID:
            pos = 8 + 8 * bin(first & 0xf).count('1')
        else:
            return None
        if pos + 8 > size:
            return None
        (sid,) = self.unpack('Q', offset + pos)
        for attr in self.attrs:
            if sid in attr.ids:
                return attr
        return None

    def raw_data(self, offset, size):
        """The id of the tracepoint and the raw data of a SAMPLE record."""
        attr = self.sample_attr(offset, size)
        if not attr or attr.type != PERF_TYPE_TRACEPOINT or \
           not attr.sample_type & SAMPLE_RAW:
            return None, None, 0
        sample_type, read_format = attr.sample_type, attr.read_format
        pos = offset + 8 + 8 * sum(1 for bit in SAMPLE_U64_FIELDS
                                   if sample_type & bit)
        end = offset + size
        if sample_type & SAMPLE_READ:
            times = bin(read_format & FORMAT_TIMES).count('1')
            each = 1 + bool(read_format & FORMAT_ID) + \
                bool(read_format & FORMAT_LOST)
            if read_format & FORMAT_GROUP:
                if pos + 8 > end:
                    return None, None, 0
                (nr,) = self.unpack('Q', pos)
                pos += 8 * (1 + times + min(nr, size) * each)
            else:
                pos += 8 * (times + each)
        if sample_type & SAMPLE_CALLCHAIN:
            if pos + 8 > end:
                return None, None, 0
            (nr,) = self.unpack('Q', pos)
            pos += 8 * (1 + min(nr, size))
        if pos + 4 > end:
            return None, None, 0
        (raw_size,) = self.unpack('I', pos)
        if pos + 4 + raw_size > end:
            return None, None, 0
        return attr.config, self.buf[pos + 4:pos + 4 + raw_size], pos + 4

    def mark_numbers(self):
        """Bytes of the fields that hold numbers, by the file format: pids,
        tids, lengths, times, periods, ids of records and samples.  Any two
        numbers side by side can make a value in an address range (a pid
        of -1 and what follows it in the kernel's top 4 GiB)."""
        first = self.attrs[0] if self.attrs else None
        # the sample id fields after the records the kernel writes
        id_size = 8 * sum(1 for bit in (SAMPLE_TID, SAMPLE_TIME, SAMPLE_ID, SAMPLE_STREAM_ID,
                                        SAMPLE_CPU, SAMPLE_IDENTIFIER)
                          if first and first.sample_type & bit)
        for offset, rtype, _, size in self.records:
            if first and first.flags & ATTR_SAMPLE_ID_ALL and \
               rtype < 64 and rtype != REC_SAMPLE and size >= 8 + id_size:
                self.opaque.append((offset + size - id_size, offset + size))
            if rtype in (REC_MMAP, REC_MMAP2) and size >= 40:
                self.opaque += [(offset + 8, offset + 16), (offset + 24, offset + 32)]
                if rtype == REC_MMAP2 and size >= 72:
                    self.opaque.append((offset + 40, offset + 72))
            elif rtype in (REC_COMM, REC_BUILD_ID) and size >= 16:
                self.opaque.append((offset + 8, offset + (16 if rtype == REC_COMM else 12)))
            elif rtype == REC_SAMPLE:
                attr = self.sample_attr(offset, size)
                pos = offset + 8
                for bit, number in ((SAMPLE_IDENTIFIER, True), (SAMPLE_IP, False),
                                    (SAMPLE_TID, True), (SAMPLE_TIME, True),
                                    (SAMPLE_ADDR, False), (SAMPLE_ID, True),
                                    (SAMPLE_STREAM_ID, True), (SAMPLE_CPU, True),
                                    (SAMPLE_PERIOD, True)):
                    if attr and attr.sample_type & bit:
                        if number and pos + 8 <= offset + size:
                            self.opaque.append((pos, pos + 8))
                        pos += 8
        self.opaque.sort()
        self.opaque_longest = None

    def is_file_mapping(self, offset, name_at, size):
        """Is the pgoff of the user MMAP at offset a file offset?"""
        name = cstring(self.buf, offset + name_at, offset + size)
        return name.startswith('/') and not name.startswith(
            ('//anon', '/dev/zero', '/anon_hugepage'))

    def address_fields(self, formats):
        """(file offset, size, field) of each field that holds addresses."""
        for offset, attr in zip(self.attr_offsets, self.attrs):
            if attr.type == PERF_TYPE_BREAKPOINT:
                yield offset + 56, 8, 8, 'bp_addr'
            elif attr.type >= PERF_TYPE_MAX:
                yield offset + 56, 8, 8, 'config1'
                yield offset + 64, 8, 8, 'config2'
        for offset, rtype, misc, size in self.records:
            if rtype in (REC_MMAP, REC_MMAP2) and size >= 40:
                yield offset + 16, 8, 8, 'start'
                name_at = 40 if rtype == REC_MMAP else 72
                if misc & 7 in (CPUMODE_KERNEL, CPUMODE_GUEST_KERNEL) or \
                   not self.is_file_mapping(offset, name_at, size):
                    yield offset + 32, 8, 8, 'pgoff'
            elif rtype in (REC_KSYMBOL, REC_TEXT_POKE) and size >= 16:
                yield offset + 8, 8, 8, 'addr'
            elif rtype == REC_SAMPLE:
                yield from self.sample_fields(offset, size, formats)

    def sample_fields(self, offset, size, formats):
        """The fields of the SAMPLE record at offset that hold addresses.

        Whatever this can't read (registers, stacks, AUX data, data of no
        field) is given as holding addresses.
        """
        attr = self.sample_attr(offset, size)
        if not attr:
            yield offset + 8, size - 8, 8, 'sample of an unknown event'
            return
        st, end, pos = attr.sample_type, offset + size, offset + 8
        for bit, name in ((SAMPLE_IDENTIFIER, None), (SAMPLE_IP, 'ip'),
                          (SAMPLE_TID, None), (SAMPLE_TIME, None),
                          (SAMPLE_ADDR, 'addr'), (SAMPLE_ID, None),
                          (SAMPLE_STREAM_ID, None), (SAMPLE_CPU, None),
                          (SAMPLE_PERIOD, None)):
            if st & bit:
                if name:
                    yield pos, 8, 8, name
                pos += 8
        if st & SAMPLE_READ:
            rf = attr.read_format
            times = bin(rf & FORMAT_TIMES).count('1')
            each = 1 + bool(rf & FORMAT_ID) + bool(rf & FORMAT_LOST)
            if rf & FORMAT_GROUP:
                (nr,) = self.unpack('Q', pos) if pos + 8 <= end else (0,)
                pos += 8 * (1 + times + min(nr, size) * each)
            else:
                pos += 8 * (1 + times + each - 1)
        if st & SAMPLE_CALLCHAIN:
            (nr,) = self.unpack('Q', pos) if pos + 8 <= end else (0,)
            nr = min(nr, size // 8)
            yield pos + 8, 8 * nr, 8, 'callchain'
            pos += 8 * (1 + nr)
        if st & SAMPLE_RAW and pos + 4 <= end:
            (raw_size,) = self.unpack('I', pos)
            yield from self.raw_fields(attr, pos + 4, min(raw_size, end - pos - 4),
                                       formats)
            pos += 4 + raw_size
        if st & SAMPLE_BRANCH_STACK and pos + 8 <= end:
            (nr,) = self.unpack('Q', pos)
            nr = min(nr, size // 24)
            pos += 8 * (1 + bool(attr.branch_sample_type & BRANCH_HW_INDEX))
            for i in range(nr):
                yield pos + 24 * i, 16, 8, 'branch from and to'
            pos += 24 * nr
            if attr.branch_sample_type & BRANCH_COUNTERS:
                pos += 8 * nr
        # Registers, a stack, AUX data: addresses, all of what follows
        if st & (SAMPLE_REGS_USER | SAMPLE_STACK_USER | SAMPLE_REGS_INTR | SAMPLE_AUX):
            yield pos, end - pos, 8, 'registers, stack or AUX data'
            return
        pos += 8 * sum(1 for bit in (SAMPLE_WEIGHT | SAMPLE_WEIGHT_STRUCT,
                                     SAMPLE_DATA_SRC, SAMPLE_TRANSACTION)
                       if st & bit)
        if st & SAMPLE_PHYS_ADDR:
            yield pos, 8, 8, 'phys_addr'

    def raw_fields(self, attr, pos, size, formats):
        """The fields of tracepoint raw data that may hold addresses: by
        their type, pointers, longs and integers of 8 bytes, and anything
        of a tracepoint or an event this can't read the format of."""
        fmt = formats.get(attr.config) if attr.type == PERF_TYPE_TRACEPOINT else None
        if not fmt:
            yield pos, size, 4, 'raw data of no known format'
            return
        for decl, offset, length in fmt.fields:
            if offset + length > size or decl.startswith(b'__data_loc') or \
               decl.startswith(b'__rel_loc') or b'char' in decl:
                continue
            addr = b'*' in decl or b'long' in decl
            if addr or length == 8:
                elem = 4 if addr and fmt.long_size == 4 else 8
                yield pos + offset, length, elem, 'raw data field ' + \
                    decl.split()[-1].decode('utf-8', 'replace')

    def is_opaque(self, offset, length):
        """Does [offset, offset + length) overlap build-id bytes or a
        record of numbers?"""
        longest = max((end - start for start, end in self.opaque), default=0) \
            if self.opaque_longest is None else self.opaque_longest
        self.opaque_longest = longest
        i = bisect.bisect_right(self.opaque, (offset + length,)) - 1
        while i >= 0:
            start, end = self.opaque[i]
            if end > offset:
                return True
            if start + longest < offset:
                break
            i -= 1
        return False


class Auditor:
    """Scan OUT for values in ORIG's ranges."""

    def __init__(self, orig, out, min_addr=MIN_ADDR):
        self.orig = orig
        self.out = out
        out.mark_numbers()
        self.min_addr = max(min_addr, MIN_ADDR)
        # A 32-bit recording: all of its addresses are below 4 GiB, where
        # any number or text read as a value may be one, and its kernel
        # map may reach the top of the 64-bit address space (perf < 4.x).
        if orig.arch:
            self.addr32 = bool(ARCH32_RE.match(orig.arch))
        else:
            self.addr32 = bool(orig.maps) and \
                all(m.start < LOW_MAX for m in orig.maps)
        maps = orig.maps
        if self.addr32:
            maps = [m._replace(end=min(m.end, LOW_MAX)) for m in maps
                    if m.start < LOW_MAX]
        # Below 4 GiB only the fields that hold addresses are read.
        self.untyped_min = max(self.min_addr, LOW_MAX)
        self.huge = [m for m in maps if m.end - m.start >= HUGE_MAP]
        self.orig_ranges = Ranges([m for m in maps
                                   if m.end - m.start < HUGE_MAP])
        # A range of OUT found at the very same place in ORIG was not
        # remapped: it is not canonical, values in it still leak.
        orig_keys = {(m.start, m.end) for m in orig.maps}
        self.kept = [m for m in out.maps if (m.start, m.end) in orig_keys]
        self.out_ranges = Ranges([m for m in out.maps
                                  if (m.start, m.end) not in orig_keys])
        self.hits = {}
        self.across = set()

    def is_leak(self, value):
        """Is value an original address that is not excused?"""
        if value < self.min_addr or value >= CONTEXT_MAX:
            return False
        if value < self.orig_ranges.lowest:
            return False
        if VSYSCALL[0] <= value < VSYSCALL[1]:
            return False
        if value not in self.orig_ranges:
            return False
        return value not in self.out_ranges

    def check(self, offset, value, how, length=8):
        """Record a hit unless excused or already known."""
        if offset in self.hits or offset in self.across or \
           not self.is_leak(value):
            return
        if self.out.is_opaque(offset, length):
            return
        self.hits[offset] = (value, how)

    def scan_words(self, start, end):
        """Check the 8-byte words from start below end.

        In the byte order of the file at every 4-byte step: records and
        their fields are 4-byte aligned, not always 8-byte aligned (raw
        tracepoint data puts its 8-byte fields at 4 mod 8).  In the other
        byte order at 8-byte steps.
        """
        buf = self.out.buf
        lowest = max(self.orig_ranges.lowest, self.untyped_min)
        order = self.out.endian
        other = '>' if order == '<' else '<'
        names = {'<': 'LE', '>': 'BE'}
        # in chunks, to bound the memory used on big files
        for chunk in range(start, end, 8 * SCAN_CHUNK):
            count = min(SCAN_CHUNK, (end - chunk) // 8)
            if count <= 0:
                return
            odd = min(count, (end - chunk - 4) // 8)
            for base, fmt, nr, how in ((chunk, order, count, names[order]),
                                       (chunk + 4, order, odd, names[order]),
                                       (chunk, other, count, names[other])):
                if nr <= 0:
                    continue
                values = struct.unpack_from(f'{fmt}{nr}Q', buf, base)
                for i, value in enumerate(values):
                    if value >= lowest:
                        self.check(base + 8 * i, value, how)

    def scan_fields(self):
        """Check the fields that hold addresses, whatever their value."""
        formats = tp_formats(self.out.tracing)
        order = self.out.endian
        for offset, size, elem, name in self.out.address_fields(formats):
            fmt = order + ('Q' if elem == 8 else 'I')
            for pos in range(offset, offset + size - elem + 1, elem):
                if pos + elem > len(self.out.buf):
                    break
                (value,) = struct.unpack_from(fmt, self.out.buf, pos)
                self.check(pos, value, f'{"LE" if order == "<" else "BE"}, '
                           f'field {name}', elem)

    def scan_text(self):
        """Check hexadecimal numbers written as text."""
        # Above 4 GiB but in 32-bit recordings, where whole numbers of 8
        # digits at least are read as well.
        least = self.min_addr if self.addr32 else self.untyped_min
        for match in HEX_RE.finditer(self.out.buf):
            run = match.group(0)
            start = match.start()
            if len(run) <= 16:
                numbers = [(start, run)]
            else:
                numbers = [(start, run[:n]) for n in range(8, 17)] + \
                          [(match.end() - n, run[-n:]) for n in range(8, 17)]
            for offset, digits in numbers:
                value = int(digits, 16)
                if value < least:
                    continue
                if offset not in self.hits and self.is_leak(value):
                    self.hits[offset] = (value, f'text "{digits.decode()}"')

    def run(self):
        """Scan all of OUT, then what its compressed records hold."""
        hits = [(self.out, offset, hit) for offset, hit in self.scan()]
        if self.out.decompressed:
            inner = Auditor(self.orig, self.out.decompressed, self.min_addr)
            inner.out_ranges = self.out_ranges
            hits += [(inner.out, offset, hit) for offset, hit in inner.scan()]
        return hits

    def scan(self):
        """Scan all of the bytes of OUT."""
        self.hits = {}
        self.across = self.fields_across()
        size = len(self.out.buf)
        # A region that does not start 8-byte aligned (records after a
        # feature record of odd size in pipe mode, build-id entries) is
        # read on its own grid only: on the file's grid a word straddles
        # two fields, and its big endian reading can make up an address.
        odd = sorted((start, min(end, size))
                     for start, end, _, _ in self.out.regions if start % 8)
        offset = 0
        for start, end in odd:
            if start > offset:
                self.scan_words(offset, start)
            self.scan_words(start, end)
            offset = max(offset, (end + 7) & ~7)
        self.scan_words(offset, size)
        self.scan_fields()
        self.scan_text()
        self.scan_tp_holes()
        return sorted(self.hits.items())

    def fields_across(self):
        """The file offsets of the words of tracepoint raw data across two
        fields (TpFormat.across)."""
        across = set()
        formats = tp_formats(self.out.tracing)
        for offset, size in self.out.samples if formats else ():
            tp_id, raw, raw_offset = self.out.raw_data(offset, size)
            fmt = formats.get(tp_id)
            if fmt:
                across.update(raw_offset + pos for pos in fmt.across
                              if pos + 8 <= len(raw))
        return across

    def scan_tp_holes(self):
        """Check that the bytes of tracepoint raw data in no field are 0."""
        formats = tp_formats(self.out.tracing)
        for offset, size in self.out.samples if formats else ():
            tp_id, raw, raw_offset = self.out.raw_data(offset, size)
            fmt = formats.get(tp_id)
            if not fmt:
                continue
            for start, end in fmt.stale(raw, self.out.endian):
                self.hits[raw_offset + start] = (
                    None, f'{end - start} byte(s) {raw[start:end][:8].hex()} '
                    f'in no field of {fmt.name} (raw data +{start:#x})')


def print_ranges(title, perf, ranges):
    """Print the address ranges collected from a file (-v)."""
    kind = 'pipe' if perf.pipe else 'file'
    endian = 'little' if perf.endian == '<' else 'big'
    print(f'{title}: {perf.path} ({kind} mode, {endian} endian, '
          f'{perf.nr_records} records, {len(perf.compressed)} compressed, '
          f'{len(ranges.maps)} ranges)')
    for mapping in ranges.maps:
        print(f'  {mapping.describe()}')


def main():
    """Entry point."""
    parser = argparse.ArgumentParser(
        description='Report addresses of the recording machine (taken from '
        'ORIG) that are still present in OUT.',
        epilog='Exit status: 0 no leak, 1 leaks found, 2 bad input.')
    parser.add_argument('-q', '--quiet', action='store_true',
                        help='only print the number of leaks')
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='print the address ranges collected')
    parser.add_argument('--min-addr', metavar='ADDR', default=MIN_ADDR,
                        type=lambda arg: int(arg, 0),
                        help='ignore values below ADDR (default %(default)#x)'
                        ', e.g. 0x100000000 when non-PIE executables mapped '
                        'at fixed low addresses make small numbers match')
    parser.add_argument('orig', metavar='ORIG.data',
                        help='perf.data as recorded')
    parser.add_argument('out', metavar='OUT.data',
                        help='perf.data to be shared')
    args = parser.parse_args()

    try:
        orig = PerfData(args.orig)
        out = PerfData(args.out)
    except AuditError as err:
        print(f'aslr_audit: error: {err}', file=sys.stderr)
        return 2

    auditor = Auditor(orig, out, args.min_addr)
    if args.verbose:
        print_ranges('original ranges', orig, auditor.orig_ranges)
        print_ranges('canonical ranges', out, auditor.out_ranges)
        print(f'not remapped ranges in {out.path}: {len(auditor.kept)}')
        for mapping in auditor.kept:
            print(f'  {mapping.describe()}')
    if not orig.maps:
        # Nothing to look for: "no leak" would be a check that can't fail.
        print(f'aslr_audit: error: no address ranges found in {orig.path}',
              file=sys.stderr)
        return 2
    if auditor.huge and not args.quiet:
        desc = ', '.join(m.describe() for m in auditor.huge[:3])
        print(f'aslr_audit: warning: {len(auditor.huge)} mapping(s) of 1 TiB'
              f' or more in {orig.path} not checked, any value may fall in '
              f'them: {desc}', file=sys.stderr)
    overlap = auditor.orig_ranges.overlap(auditor.out_ranges)
    if overlap and not args.quiet:
        desc = ', '.join(f'[{low:#x}-{high:#x})'
                         for low, high in overlap[:5])
        more = f' and {len(overlap) - 5} more' if len(overlap) > 5 else ''
        print('aslr_audit: warning: canonical ranges overlap original ranges '
              f'at {desc}{more}; values there cannot be told apart and are '
              'not reported', file=sys.stderr)

    hits = auditor.run()
    if args.quiet:
        print(len(hits))
        return 1 if hits else 0
    for perf, offset, (value, how) in hits[:MAX_HITS]:
        where = '' if perf is out else f' of {perf.path}'
        if value is None:
            print(f'{offset:#010x}{where}: {how} in {perf.locate(offset)}')
            continue
        mapping = auditor.orig_ranges.find(value)
        print(f'{offset:#010x}{where}: {value:#018x} {how} in '
              f'{mapping.describe(False) if mapping else "?"} '
              f'in {perf.locate(offset)}')
    if len(hits) > MAX_HITS:
        print(f'... {len(hits) - MAX_HITS} more')
    print(f'{len(hits)} leak(s) of {orig.path} addresses found in {out.path}')
    holes = sum(1 for _, _, (value, _) in hits if value is None)
    if holes:
        print(f'{holes} of them: bytes of tracepoint data in no field')
    return 1 if hits else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(2)
