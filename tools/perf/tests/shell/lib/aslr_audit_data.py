#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a minimal synthetic perf.data: one attr, a kernel MMAP per --kmap,
an MMAP2 per --map, one SAMPLE whose callchain holds the --word values,
a record per --odd-word holding it at a file offset of 4 mod 8 (as raw
tracepoint data does) and the HOSTNAME (--hostname) and SAMPLE_TIME
features; the latter
holds the --feature-word value and, as HOSTNAME is 68 bytes long, does
not start 8-byte aligned.  With --tp-hole, the event is a tracepoint
whose format (in the TRACING_DATA feature) leaves 4 bytes in no field,
holding that value in the SAMPLE; --tp-at OFF VAL writes VAL at OFF of
its raw data.  Prints the file offsets of the words.

usage: aslr_audit_data.py FILE [OPTIONS]
"""
import struct
import sys

args = sys.argv[1:]
path = args.pop(0)
endian = '<'
host = 'aslr-test'
maps, kmaps, words, fwords, owords = [], [], [], [], []
hole = None
tp_at = []
while args:
    opt = args.pop(0)
    if opt == '--be':
        endian = '>'
        continue
    if opt == '--hostname':
        host = args.pop(0)
        continue
    val = int(args.pop(0), 0)
    if opt == '--tp-at':
        tp_at.append((val, int(args.pop(0), 0)))
        hole = hole or 0
        continue
    if opt == '--map':
        maps.append((val, int(args.pop(0), 0)))
    elif opt == '--kmap':
        kmaps.append((val, int(args.pop(0), 0)))
    elif opt == '--word':
        words.append(val)
    elif opt == '--odd-word':
        owords.append(val)
    elif opt == '--tp-hole':
        hole = val
    else:
        fwords.append(val)


def pk(fmt, *vals):
    return struct.pack(endian + fmt, *vals)


def name(text):
    raw = text.encode() + b'\0'
    return raw + b'\0' * (-len(raw) % 8)


def record(rtype, misc, body):
    return pk('IHH', rtype, misc, 8 + len(body)) + body


ATTR = 104
DATA = ATTR + 144 + 8
if hole is None:
    attr = pk('IIQQQ', 1, 128, 0, 4000, 0x1 | 0x2 | 0x4 | 0x20)
else:
    attr = pk('IIQQQ', 2, 128, 42, 1, 0x1 | 0x2 | 0x400)
attr = attr.ljust(128, b'\0')
attr += pk('QQ', ATTR + 144, 8)
data = b''
for start, length in kmaps:
    data += record(1, 1, pk('IIQQQ', 0xffffffff, 0, start, length, start) +
                   name('[kernel.kallsyms]_text'))
for start, length in maps:
    data += record(10, 2, pk('IIQQQIIQQII', 1234, 1234, start, length, 0,
                             0, 0, 0, 0, 5, 2) + name('/usr/bin/true'))
sample = DATA + len(data)
if hole is None:
    data += record(9, 2, pk('QIIQQ', 0x2000, 1234, 1234, 1000, len(words)) +
                   b''.join(pk('Q', w) for w in words))
else:
    # common fields, __syscall_nr, the hole, two arguments, the padding
    print('hole', sample + 28 + 12)
    raw = bytearray(pk('HBBiiIQQI', 42, 0, 0, 1234, 9, hole, 0, 0, 0))
    for off, val in tp_at:
        print('at', off, sample + 28 + off)
        raw[off:off + 8] = pk('Q', val)
    data += record(9, 2, pk('QIII', 0x2000, 1234, 1234, len(raw)) + raw)
for i in range(len(words)):
    print('word', i, sample + 40 + 8 * i)
for w in owords:
    print('odd', DATA + len(data) + 12)
    data += record(14, 0, pk('IQI', 0, w, 0))
FIELD = '\tfield:{};\toffset:{};\tsize:{};\tsigned:0;\n'
tracing = ''.join(FIELD.format(*f) for f in (
    ('unsigned short common_type', 0, 2), ('unsigned char common_flags', 2, 1),
    ('unsigned char common_preempt_count', 3, 1), ('int common_pid', 4, 4)))
tracing = ('name: sys_enter_test\nID: 42\nformat:\n' + tracing + '\n' +
           FIELD.format('int __syscall_nr', 8, 4) +
           FIELD.format('unsigned long arg', 16, 8) +
           FIELD.format('unsigned long arg2', 24, 8) + '\nprint fmt: ""\n')
# (feature bit, contents), in the order of the bits
feats = [(1, tracing.encode())] if hole is not None else []
feats += [(3, pk('I', 64) + host.encode().ljust(64, b'\0')),
          (21, pk('QQ', (fwords + [0])[0], 0))]
table = DATA + len(data)
offset = table + 16 * len(feats)
sections = b''
for bit, contents in feats:
    if bit == 3:
        print('hostname', offset + 4)
    elif bit == 21:
        print('feature', offset)
    sections += pk('QQ', offset, len(contents))
    offset += len(contents)
header = pk('QQQQQQQQQ', 0x32454c4946524550, 104, 144, ATTR, 144,
            DATA, len(data), 0, 0)
header += pk('QQQQ', sum(1 << bit for bit, _ in feats), 0, 0, 0)
with open(path, 'wb') as file:
    file.write(header + attr + pk('Q', 1) + data + sections +
               b''.join(contents for _, contents in feats))
