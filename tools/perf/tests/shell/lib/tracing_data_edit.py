#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Find and edit the parts of the tracing data of a perf.data file.

tracing_data_edit.py FILE offset PART
    prints the file offset of PART of the tracing data (feature
    HEADER_TRACING_DATA): cmdline-size (the size of the saved command
    lines), printk (the printk formats, its offset and length), system
    (the name of the first system of events), event-size (the size of
    its first event format)
tracing_data_edit.py FILE set PART VALUE
    writes VALUE (a number), or what is there plus N for a VALUE of +N, as
    the 8 bytes little endian size at PART (cmdline-size, event-size)
tracing_data_edit.py FILE insert OFFSET COUNT BYTE
    inserts COUNT times BYTE (a number) at OFFSET, inside the tracing data:
    the section grows, the sections after it move (the table of feature
    sections is updated)
"""

import struct
import sys

HEADER_TRACING_DATA = 1


def sections(d):
    """(index in the table, offset, size) of each feature section."""
    data_off, data_size = struct.unpack_from('<QQ', d, 40)
    bits = int.from_bytes(d[72:104], 'little')
    table = data_off + data_size
    out = []
    for feat in range(256):
        if bits >> feat & 1:
            off, size = struct.unpack_from('<QQ', d, table + 16 * len(out))
            out.append((feat, table + 16 * len(out), off, size))
    return out


def walk(d):
    """The offsets of the parts of the tracing data."""
    feat = [s for s in sections(d) if s[0] == HEADER_TRACING_DATA]
    if not feat:
        sys.exit('no tracing data')
    p = feat[0][2] + 10                 # "\x17\x08\x44tracing"
    p = d.index(b'\0', p) + 1 + 6       # version, endianness, long and page size
    for name in (b'header_page\0', b'header_event\0'):
        p += len(name)
        p += 8 + struct.unpack_from('<Q', d, p)[0]
    n = struct.unpack_from('<I', d, p)[0]
    p += 4
    for _ in range(n):
        p += 8 + struct.unpack_from('<Q', d, p)[0]
    parts = {}
    n = struct.unpack_from('<I', d, p)[0]
    p += 4
    for i in range(n):
        if i == 0:
            parts['system'] = p
        p = d.index(b'\0', p) + 1
        c = struct.unpack_from('<I', d, p)[0]
        p += 4
        if i == 0 and c:
            parts['event-size'] = p
        for _ in range(c):
            p += 8 + struct.unpack_from('<Q', d, p)[0]
    p += 4 + struct.unpack_from('<I', d, p)[0]          # kallsyms
    size = struct.unpack_from('<I', d, p)[0]
    parts['printk'] = f'{p + 4} {size}'
    p += 4 + size
    parts['cmdline-size'] = p
    return parts


def main():
    path, cmd = sys.argv[1], sys.argv[2]
    d = bytearray(open(path, 'rb').read())
    if cmd == 'offset':
        print(walk(d)[sys.argv[3]])
        return
    if cmd == 'set':
        at, val = walk(d)[sys.argv[3]], sys.argv[4]
        new = int(val, 0)
        if val.startswith('+'):
            new += struct.unpack_from('<Q', d, at)[0]
        struct.pack_into('<Q', d, at, new)
        open(path, 'wb').write(d)
        return
    at, count, byte = (int(x, 0) for x in sys.argv[3:6])
    for feat, entry, off, size in sections(d):
        if off > at:
            struct.pack_into('<Q', d, entry, off + count)
        elif off <= at < off + size:
            struct.pack_into('<Q', d, entry + 8, size + count)
    d[at:at] = bytes([byte]) * count
    open(path, 'wb').write(d)


if __name__ == '__main__':
    main()
