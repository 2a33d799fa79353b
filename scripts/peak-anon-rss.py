#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run a command, print "WALL_S CPU_S PEAK_ANON_KB WRITES" on stderr's last line.

Peak anonymous RSS: the largest RssAnon of the command's /proc status,
polled every 10 ms (GNU time's %M is the peak of all resident pages,
which counts the pages of a mmap'd input file as well).  CPU: user +
system time of the command (wait4).  WRITES: its write system calls
(syscw of /proc/PID/io, read once it exited, before it is reaped).
Exit status: the command's.

Usage: peak-anon-rss.py [-o FILE] COMMAND [ARG...]   (-o: write the line there)
"""
import os
import sys
import time


def rss_anon(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def writes(pid):
    try:
        with open(f"/proc/{pid}/io") as f:
            for line in f:
                if line.startswith("syscw:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def main():
    args = sys.argv[1:]
    out = None
    if len(args) >= 2 and args[0] == "-o":
        out, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(args[0], args)
        finally:
            os._exit(127)
    peak = 0
    # Exited, not reaped yet: its /proc/PID/io is still there.
    while not os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
        peak = max(peak, rss_anon(pid))
        time.sleep(0.01)
    wall = time.monotonic() - start
    nr_writes = writes(pid)
    _, status, usage = os.wait4(pid, 0)
    line = f"{wall:.2f} {usage.ru_utime + usage.ru_stime:.2f} {peak} {nr_writes}\n"
    if out:
        with open(out, "w") as f:
            f.write(line)
    else:
        sys.stderr.write(line)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
