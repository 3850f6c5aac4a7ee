#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""How steady this CPU's speed is: speed.py WINDOW N counts a fixed busy
loop's iterations in N windows of WINDOW seconds each, and prints the
slowest, the median and the fastest window's count.

The benchmark's ratios compare measurements a few seconds apart. Under
emulation a guest CPU runs as fast as its host thread is given time, and
on a shared host that moved by a factor of two within seconds on
2026-12-05 (bench-results/2026-12-05-peers-noisy-host/NOTES.md), which no
number of rounds averages to within 5%. datapath.sh runs this on each CPU before and after its phases
so that report.py can say when a run cannot be read; its windows are
as long as one measurement, since what matters is whether two of them
seconds apart saw the same speed.
"""

import statistics
import sys
import time


def window(seconds):
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(1000):
            pass
        n += 1
    return n


def main():
    seconds, n = float(sys.argv[1]), int(sys.argv[2])
    counts = [window(seconds) for _ in range(n)]
    print(min(counts), int(statistics.median(counts)), max(counts))


if __name__ == "__main__":
    main()
