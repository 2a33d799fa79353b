#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Rewrite the records of the data section of a perf.data file.

perf_data_records.py IN OUT compressed2
    writes IN to OUT with each PERF_RECORD_COMPRESSED (perf record -z) as
    the PERF_RECORD_COMPRESSED2 a later perf writes: the header, the size
    of the compressed data as a u64, the data, padding to 8 bytes
perf_data_records.py IN OUT append TYPE
    writes IN to OUT with a record of type TYPE after the last one: its
    header and 64 bytes of zeros (room for the sample id fields of the
    event of a kernel record)
perf_data_records.py IN OUT auxtrace SIZE
    writes IN to OUT with a PERF_RECORD_AUXTRACE before its first sample,
    followed by SIZE bytes of AUX area data (0xff)

The feature sections after the data section move with its end.  IN must
be of this machine's byte order.
"""

import struct
import sys

PERF_RECORD_COMPRESSED = 81
PERF_RECORD_COMPRESSED2 = 83
HEADER_SIZE = 104
PIPE_HEADER_SIZE = 16
PERF_RECORD_SAMPLE = 9
PERF_RECORD_HEADER_TRACING_DATA = 66
PERF_RECORD_AUXTRACE = 71


def payload(d, start, rtype):
    """The size of the data that follows a record out of its size."""
    if rtype == PERF_RECORD_AUXTRACE:
        return struct.unpack_from('<Q', d, start + 8)[0]
    if rtype == PERF_RECORD_HEADER_TRACING_DATA:
        return -struct.unpack_from('<I', d, start + 8)[0] % 8 + \
            struct.unpack_from('<I', d, start + 8)[0]
    return 0


def records(d, start, end):
    """(type, misc, bytes) of each record in d[start:end]."""
    out = []
    while start < end:
        rtype, misc, size = struct.unpack_from('<IHH', d, start)
        if size < 8:
            sys.exit(f'bad record size {size} at {start:#x}')
        # and the data that follows it out of its size
        size += payload(d, start, rtype)
        out.append((rtype, misc, d[start:start + size]))
        start += size
    return out


def append(recs, rtype):
    """The records and one of type rtype after them."""
    return b''.join(r[2] for r in recs) + \
        struct.pack('<IHH', int(rtype, 0), 0, 72) + bytes(64)


def compressed2(recs):
    """The records, each COMPRESSED one as COMPRESSED2; prints how many."""
    out = []
    for rtype, misc, raw in recs:
        if rtype == PERF_RECORD_COMPRESSED:
            data = raw[8:]
            pad = -len(data) % 8
            raw = struct.pack('<IHHQ', PERF_RECORD_COMPRESSED2, misc,
                              16 + len(data) + pad, len(data)) + data + bytes(pad)
        out.append(raw)
    print(sum(1 for r in recs if r[0] == PERF_RECORD_COMPRESSED))
    return b''.join(out)


def auxtrace(recs, size):
    """The records, with an AUXTRACE record and its data before the first
    sample."""
    size = int(size, 0)
    rec = struct.pack('<IHHQQQIIII', PERF_RECORD_AUXTRACE, 0, 48, size, 0, 0,
                      0, 0, 0, 0) + b'\xff' * size
    first = next(i for i, r in enumerate(recs) if r[0] == PERF_RECORD_SAMPLE)
    return b''.join(r[2] for r in recs[:first]) + rec + \
        b''.join(r[2] for r in recs[first:])


COMMANDS = {
    'append': append,
    'compressed2': compressed2,
    'auxtrace': auxtrace,
}


def write_pipe(d, dst, cmd):
    """Write the records of a pipe, d, as cmd says."""
    recs = records(d, PIPE_HEADER_SIZE, len(d))
    open(dst, 'wb').write(d[:PIPE_HEADER_SIZE] + COMMANDS[cmd](recs, *sys.argv[4:]))


def main():
    src, dst, cmd = sys.argv[1:4]
    d = open(src, 'rb').read()
    if cmd not in COMMANDS:
        sys.exit(__doc__)
    if d[:8] == b'PERFILE2' and struct.unpack_from('<Q', d, 8)[0] == PIPE_HEADER_SIZE:
        write_pipe(d, dst, cmd)
        return
    if d[:8] != b'PERFILE2' or struct.unpack_from('<Q', d, 8)[0] != HEADER_SIZE:
        sys.exit(f'{src}: not a perf.data file of this byte order')
    data_off, data_size = struct.unpack_from('<QQ', d, 40)
    recs = records(d, data_off, data_off + data_size)
    body = COMMANDS[cmd](recs, *sys.argv[4:])
    shift = len(body) - data_size
    head = bytearray(d[:data_off])
    struct.pack_into('<Q', head, 48, len(body))
    rest = bytearray(d[data_off + data_size:])
    bits = int.from_bytes(d[72:104], 'little')
    # The table of feature sections: offset and size of each
    for i in range(bin(bits).count('1')):
        off = struct.unpack_from('<Q', rest, 16 * i)[0]
        struct.pack_into('<Q', rest, 16 * i, off + shift)
    open(dst, 'wb').write(head + body + rest)

if __name__ == '__main__':
    main()
