#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write small perf.data files of machines this one is not.

perf_data_synth.py LAYOUT OUT.data OUT.kallsyms

LAYOUT is one of the layouts below: the architecture in HEADER_ARCH, the
kernel map (as perf of that time and architecture wrote it: from 0, up to
the top of the address space, ...), modules, processes with their
mappings and samples in the kernel and in their mappings.  OUT.kallsyms
is a /proc/kallsyms of that kernel, for perf report --kallsyms.  Samples
land where perf can name them without the files: at symbols of the
kernel, at offsets in the files of processes.
"""

import struct
import sys

# perf_event_attr.sample_type bits
IP, TID, TIME, CALLCHAIN, PERIOD, RAW = 1, 2, 4, 32, 256, 1024
SAMPLE_ID_ALL, MMAP2_BIT = 1 << 18, 1 << 23
MISC_KERNEL, MISC_USER = 1, 2
CONTEXT_KERNEL, CONTEXT_USER = (1 << 64) - 128, (1 << 64) - 512
FEAT_ARCH = 6
TOP = 1 << 64


def layout(arch, kernel, text, modules, procs, raw=False, stale=False):
    """A recording: kernel (start, len, name), _text, modules (start,
    len, name), procs: (pid, comm, [(start, len, pgoff, name)]); stale:
    the kernel of perf before 4.x left bytes after the file names."""
    return {'arch': arch, 'kernel': kernel, 'text': text, 'modules': modules,
            'procs': procs, 'raw': raw, 'stale': stale}


def libs(base, exe):
    """An executable and two libraries mapped from base, [vdso] after."""
    return [(base, 0x5000, 0x1000, exe),
            (base + 0x100000, 0x20000, 0x2000, '/lib/libc.so.6'),
            (base + 0x200000, 0x8000, 0, '/lib/libm.so.6'),
            # anonymous memory and [vdso]: pgoff is their address
            (base + 0x300000, 0x4000, base + 0x300000, '//anon'),
            (base + 0x400000, 0x2000, base + 0x400000, '[vdso]')]


LAYOUTS = {
    # arm64, 39-bit VA: the kernel map reaches the top
    'aarch64-39': layout('aarch64', (0xffffffc008000000, TOP - 1 - 0xffffffc008000000,
                                     '[kernel.kallsyms]_text'), 0xffffffc008000000,
                         [(0xffffffbffc000000, 0x8000, '/lib/modules/6.1/kernel/x.ko')],
                         [(700, 'app-39', libs(0x7f8a400000, '/usr/bin/app'))]),
    # arm64, 48-bit VA
    'aarch64-48': layout('aarch64', (0xffff800008000000, TOP - 1 - 0xffff800008000000,
                                     '[kernel.kallsyms]_text'), 0xffff800008000000,
                         [(0xffff800001000000, 0x8000, '/lib/modules/6.1/kernel/x.ko')],
                         [(701, 'app-48', libs(0xffffa3400000, '/usr/bin/app'))]),
    # i386, 3G/1G: the kernel map up to the first module
    'i386': layout('i686', (0xc1000000, 0xf8000000 - 0xc1000000, '[kernel.kallsyms]_text'),
                   0xc1000000, [(0xf8000000, 0x6000, '/lib/modules/3.4/kernel/x.ko')],
                   [(702, 'app-i386', libs(0xb7600000, '/usr/bin/app')),
                    (703, 'exe-i386', [(0x08048000, 0x5000, 0, '/usr/bin/exe')])],
                   stale=True),
    # armv7, 3G/1G: the kernel map reaches the top of 64 bits, modules below
    'armv7': layout('armv7l', (0xc0008000, TOP - 1 - 0xc0008000, '[kernel.kallsyms]_text'),
                    0xc0008000, [(0xbf000000, 0x6000, '/lib/modules/3.8/kernel/x.ko')],
                    [(704, 'app-armv7', libs(0xb6d00000, '/usr/bin/app'))], stale=True),
    # x86-64 with perf 3.x: the kernel map from 0 up to the first module
    'x86_64-old': layout('x86_64', (0, 0xffffffffa0000000, '[kernel.kallsyms]_stext'),
                         0xffffffff81000190,
                         [(0xffffffffa0000000, 0x6000, '/lib/modules/3.4/kernel/x.ko')],
                         [(705, 'app-old', libs(0x7f3a12000000, '/usr/bin/app'))],
                         stale=True),
    # raw data on a hardware event (perf record -R of old): its layout is
    # not known, it holds an address
    'raw-hw': layout('x86_64', (0xffffffff81000000, 0x1000000, '[kernel.kallsyms]_text'),
                     0xffffffff81000000, [],
                     [(706, 'app-raw', libs(0x7f3a12000000, '/usr/bin/app'))], raw=True),
}

# Symbols of the kernel, at these offsets from _text
KSYMS = [(0, '_text'), (0, '_stext'), (0x1000, 'kfunc_one'), (0x2000, 'kfunc_two'),
         (0x3000, 'kfunc_end')]


class Writer:
    """Records of a perf.data file, little endian."""

    def __init__(self, lay):
        self.lay = lay
        self.sample_type = IP | TID | TIME | PERIOD | CALLCHAIN | (RAW if lay['raw'] else 0)
        self.recs = []
        self.time = 1000000

    def id_fields(self, pid):
        """The sample id fields of a record: pid/tid, time."""
        self.time += 1000
        return struct.pack('<IIQ', pid, pid, self.time)

    def add(self, rtype, misc, body):
        self.recs.append(struct.pack('<IHH', rtype, misc, 8 + len(body)) + body)

    def name(self, name):
        """A file name, NUL terminated and padded to 8 bytes."""
        name = name.encode() + b'\0'
        if self.lay['stale']:
            name += b'ZqStale\0'
        return name + bytes(-len(name) % 8)

    def mmap(self, misc, pid, start, length, pgoff, name):
        name = self.name(name)
        self.add(1, misc, struct.pack('<IIQQQ', pid, pid, start, length, pgoff) +
                 name + self.id_fields(pid))

    def mmap2(self, pid, start, length, pgoff, name):
        name = self.name(name)
        prot, flags = 5, 2  # PROT_READ|PROT_EXEC, MAP_PRIVATE
        self.add(10, MISC_USER, struct.pack('<IIQQQIIQQII', pid, pid, start, length, pgoff,
                                            8, 1, 1234, 0, prot, flags) +
                 name + self.id_fields(pid))

    def comm(self, pid, comm):
        comm = comm.encode() + b'\0'
        comm += bytes(-len(comm) % 8)
        self.add(3, 0, struct.pack('<II', pid, pid) + comm + self.id_fields(pid))

    def sample(self, misc, pid, ip, chain):
        self.time += 1000
        body = struct.pack('<QIIQQ', ip, pid, pid, self.time, 1000)
        body += struct.pack('<Q', len(chain)) + b''.join(struct.pack('<Q', c) for c in chain)
        if self.lay['raw']:
            # 4 + 28 bytes: the size, then an address among numbers
            body += struct.pack('<I', 28) + struct.pack('<IIIQQ', 1, 2, 3, ip, 0)
        self.add(9, misc, body)

    def records(self):
        """The mappings, then samples in each, by kernel then by process."""
        lay = self.lay
        start, length, name = lay['kernel']
        self.mmap(MISC_KERNEL, 0xffffffff, start, length, lay['text'], name)
        for start, length, name in lay['modules']:
            self.mmap(MISC_KERNEL, 0xffffffff, start, length, 0, name)
        for pid, comm, maps in lay['procs']:
            self.comm(pid, comm)
            for start, length, pgoff, name in maps:
                self.mmap2(pid, start, length, pgoff, name)
            for _ in range(3):
                for off, _ in KSYMS[2:4]:
                    k = lay['text'] + off + 0x10
                    self.sample(MISC_KERNEL, pid, k,
                                [CONTEXT_KERNEL, k, k + 0x1000, CONTEXT_USER, maps[0][0] + 0x100])
                # not in anonymous memory: perf names no symbol there
                for start, length, _, _ in (m for m in maps if m[3] != '//anon'):
                    self.sample(MISC_USER, pid, start + 0x40,
                                [CONTEXT_USER, start + 0x40, maps[0][0] + 0x200])
        return b''.join(self.recs)


def attr(sample_type):
    """perf_event_attr of size 128: cycles, the sample fields, mmap2."""
    flags = SAMPLE_ID_ALL | MMAP2_BIT | (1 << 8) | (1 << 9)  # mmap, comm
    a = struct.pack('<IIQQQQQ', 0, 128, 0, 4000, sample_type, 0, flags)
    return a + bytes(128 - len(a))


def feature_arch(arch):
    """HEADER_ARCH: a u32 length, the string padded to 64 bytes."""
    s = arch.encode() + b'\0'
    s += bytes(-len(s) % 64)
    return struct.pack('<I', len(s)) + s


def write(lay, path):
    """The perf.data file of a layout."""
    w = Writer(lay)
    data = w.records()
    ids = struct.pack('<Q', 1)
    # header, attr and its ids section, the ids, the data, the features
    attr_off = 104
    ids_off = attr_off + 128 + 16
    data_off = ids_off + len(ids)
    feat = feature_arch(lay['arch'])
    table_off = data_off + len(data)
    feat_off = table_off + 16
    bits = 1 << FEAT_ARCH
    header = b'PERFILE2' + struct.pack('<QQQQQQQQ', 104, 128 + 16, attr_off, 128 + 16,
                                       data_off, len(data), 0, 0)
    header += bits.to_bytes(32, 'little')
    out = header + attr(w.sample_type) + struct.pack('<QQ', ids_off, len(ids)) + ids
    out += data + struct.pack('<QQ', feat_off, len(feat)) + feat
    with open(path, 'wb') as f:
        f.write(out)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in LAYOUTS:
        sys.exit(__doc__ + '\nLAYOUT: ' + ' '.join(LAYOUTS))
    lay = LAYOUTS[sys.argv[1]]
    write(lay, sys.argv[2])
    with open(sys.argv[3], 'w') as f:
        for off, name in KSYMS:
            f.write(f"{lay['text'] + off:x} T {name}\n")


if __name__ == '__main__':
    main()
