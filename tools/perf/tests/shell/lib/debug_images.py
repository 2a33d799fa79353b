#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the symbols perf script gave against the unstripped images.

debug_images.py SCRIPT_OUTPUT RECORDED_PATH=UNSTRIPPED_FILE...

SCRIPT_OUTPUT is 'perf script --show-mmap-events -F comm,ip,sym,dso' with
frame-pointer callchains.  Every frame (sample IP and callchain entry) that
falls in a mapping of RECORDED_PATH, whatever DSO perf printed for it, is
translated to a link-time address of UNSTRIPPED_FILE with its program
headers (runtime file offset -> p_vaddr) and looked up in its 'nm' symbols:
the frame is right when perf printed RECORDED_PATH and one of the names at
that address.  Frames whose address is in no sized function symbol (PLT
stubs, padding) are not counted.

Prints one line: RIGHT TOTAL HOT50 HOT30 HOT20 CHAINS, where HOTnn are the
sample counts perf attributed to hotNN and CHAINS the number of samples in
a hot function whose next two frames perf resolved as driver and main.

debug_images.py --srcline SCRIPT_OUTPUT RECORDED_PATH=UNSTRIPPED_FILE...

SCRIPT_OUTPUT is 'perf script -G --show-mmap-events -F ip,sym,dso,srcline'.
The source line perf gave for each sample in a hot function is checked
against 'addr2line' on the unstripped file.  Prints: RIGHT TOTAL.
"""

import re
import struct
import subprocess
import sys


def load_phdrs(path):
    """The PT_LOAD segments of an ELF file: (offset, vaddr, filesz)."""
    with open(path, 'rb') as f:
        data = f.read(1 << 16)
    is64 = data[4] == 2
    end = '<' if data[5] == 1 else '>'
    if is64:
        phoff, = struct.unpack_from(end + 'Q', data, 0x20)
        phentsize, phnum = struct.unpack_from(end + 'HH', data, 0x36)
    else:
        phoff, = struct.unpack_from(end + 'I', data, 0x1c)
        phentsize, phnum = struct.unpack_from(end + 'HH', data, 0x2a)
    segs = []
    for i in range(phnum):
        o = phoff + i * phentsize
        if is64:
            p_type, _, p_offset, p_vaddr, _, p_filesz = \
                struct.unpack_from(end + 'IIQQQQ', data, o)
        else:
            p_type, p_offset, p_vaddr, _, p_filesz = \
                struct.unpack_from(end + 'IIIII', data, o)
        if p_type == 1 and p_filesz:
            segs.append((p_offset, p_vaddr, p_filesz))
    return segs


def load_syms(path):
    """Sized function symbols of an ELF file: [(start, end, name)]."""
    out = subprocess.run(['nm', '--defined-only', '-S', path],
                         capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) != 4 or f[2] not in 'TtWwi':
            continue
        start, size = int(f[0], 16), int(f[1], 16)
        if size:
            syms.append((start, start + size, f[3]))
    return syms


class Image:
    """A recorded image and the ground truth of its unstripped build."""

    def __init__(self, path):
        self.path = path
        self.segs = load_phdrs(path)
        self.syms = load_syms(path)
        self.maps = []
        self.names = {}

    def vaddr(self, ip):
        """The link-time address of ip; None if not in one of ours."""
        for start, end, pgoff in self.maps:
            if start <= ip < end:
                off = ip - start + pgoff
                break
        else:
            return None
        for p_offset, p_vaddr, p_filesz in self.segs:
            if p_offset <= off < p_offset + p_filesz:
                return off - p_offset + p_vaddr
        return None

    def truth(self, ip):
        """Names of the function at ip; None if not in one of ours."""
        if ip not in self.names:
            vaddr = self.vaddr(ip)
            names = None
            if vaddr is not None:
                names = {n for s, e, n in self.syms if s <= vaddr < e}
            self.names[ip] = names or None
        return self.names[ip]


MMAP = re.compile(r'PERF_RECORD_MMAP2? .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) '
                  r'@ (0x[0-9a-f]+|\d+)[ \]].*\]: \S+ (\S+)$')
FRAME = re.compile(r'^\s+([0-9a-f]+) (.*) \((.*)\)$')


def load_images(args):
    """{recorded path: Image} from RECORDED_PATH=UNSTRIPPED_FILE args."""
    images = {}
    for arg in args:
        recorded, unstripped = arg.split('=', 1)
        images[recorded] = Image(unstripped)
    return images


def add_mmap(images, line):
    """Note the mapping of an MMAP line of one of our images; False if
    line is no MMAP line."""
    m = 'PERF_RECORD_MMAP' in line and MMAP.search(line)
    if not m:
        return False
    start, length = int(m.group(1), 16), int(m.group(2), 16)
    img = images.get(m.group(4))
    if img:
        img.maps.append((start, start + length, int(m.group(3), 0)))
        img.names.clear()
    return True


def addr2line(path, addrs):
    """{address: 'file:line'} of the addresses in the file path."""
    out = subprocess.run(['addr2line', '-e', path] +
                         [hex(a) for a in addrs],
                         capture_output=True, text=True, check=True).stdout
    lines = [l.split(' ')[0].rsplit('/', 1)[-1] for l in out.splitlines()]
    return dict(zip(addrs, lines))


def check_srclines(script_output, images):
    """Print RIGHT TOTAL for the source lines of hot function samples."""
    samples = []
    pending = None
    with open(script_output, errors='replace') as f:
        for line in f:
            if add_mmap(images, line):
                pending = None
                continue
            m = FRAME.match(line)
            if m:
                pending = None
                sym = re.sub(r'\+0x[0-9a-f]+$', '', m.group(2))
                img = images.get(m.group(3))
                if sym in ('hot50', 'hot30', 'hot20') and img:
                    vaddr = img.vaddr(int(m.group(1), 16))
                    if vaddr is not None:
                        pending = (img, vaddr)
                continue
            if pending:
                samples.append(pending + (line.strip(),))
                pending = None
    truth = {}
    for img in {s[0] for s in samples}:
        addrs = sorted({s[1] for s in samples if s[0] is img})
        truth[img] = addr2line(img.path, addrs)
    right = sum(1 for img, vaddr, got in samples
                if got.rsplit('/', 1)[-1] == truth[img][vaddr])
    print(right, len(samples))


def main():
    if sys.argv[1] == '--srcline':
        check_srclines(sys.argv[2], load_images(sys.argv[3:]))
        return
    images = load_images(sys.argv[2:])

    right = total = chains = 0
    hot = {'hot50': 0, 'hot30': 0, 'hot20': 0}
    frames = []

    def sample_done():
        nonlocal chains
        if not frames:
            return
        leaf = frames[0]
        if leaf in hot:
            hot[leaf] += 1
            if frames[1:3] == ['driver', 'main']:
                chains += 1
        frames.clear()

    with open(sys.argv[1], errors='replace') as f:
        for line in f:
            if add_mmap(images, line):
                sample_done()
                continue
            m = FRAME.match(line)
            if not m:
                sample_done()
                continue
            ip, sym, dso = int(m.group(1), 16), m.group(2), m.group(3)
            sym = re.sub(r'\+0x[0-9a-f]+$', '', sym)
            frames.append(sym)
            # An inlined function perf adds to a frame: its frame is counted.
            if dso == 'inlined':
                continue
            # The image by the address, not by the DSO perf printed: a
            # frame perf put in another DSO is a wrong one.
            for recorded, img in images.items():
                names = img.truth(ip)
                if names is not None:
                    break
            else:
                continue
            total += 1
            if dso == recorded and sym in names:
                right += 1
    sample_done()
    print(right, total, hot['hot50'], hot['hot30'], hot['hot20'], chains)


if __name__ == '__main__':
    main()
