#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Classify the samples of a JIT workload by the function they really hit.

jit_classify.py SCRIPT_OUTPUT LAYOUT...

SCRIPT_OUTPUT is 'perf script -F pid,ip,sym'.  Each LAYOUT file
(layout-PID of jitwork) lists "N START SIZE jd|pm" for the functions of
process PID.  A sample in function N is right when perf named it jd_fnN
(jd) or pm_fnN (pm).  A function marked ov is no longer the JIT's (a file
was mapped over it): a sample there is right when it has neither name.
Prints: JD_RIGHT JD_TOTAL PM_RIGHT PM_TOTAL WRONG OV_RIGHT OV_TOTAL,
WRONG counting samples given the name of another function.
"""

import os
import re
import sys


def main():
    funcs = {}
    for path in sys.argv[2:]:
        pid = int(os.path.basename(path).split('-')[1])
        with open(path) as f:
            for line in f:
                n, start, size, src = line.split()
                funcs.setdefault(pid, []).append(
                    (int(start, 16), int(size, 16), int(n), src))
    right = {'jd': 0, 'pm': 0, 'ov': 0}
    total = {'jd': 0, 'pm': 0, 'ov': 0}
    wrong = 0
    names = re.compile(r'^(jd|pm)_fn(\d+)')
    with open(sys.argv[1], errors='replace') as f:
        for line in f:
            fields = line.split()
            if len(fields) < 3:
                continue
            try:
                pid, ip = int(fields[0]), int(fields[1], 16)
            except ValueError:
                continue
            sym = fields[2]
            for start, size, n, src in funcs.get(pid, []):
                if start <= ip < start + size:
                    break
            else:
                continue
            total[src] += 1
            if src == 'ov':
                if not names.match(sym):
                    right[src] += 1
            elif sym == f'{src}_fn{n}':
                right[src] += 1
            else:
                m = names.match(sym)
                if m and int(m.group(2)) != n:
                    wrong += 1
    print(right['jd'], total['jd'], right['pm'], total['pm'], wrong,
          right['ov'], total['ov'])


if __name__ == '__main__':
    main()
