#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rs_churn.py SECONDS FILE

Sends the requests of FILE (one a line, in rsnl.py's syntax) over one
generic netlink socket, over and over, for SECONDS, as fast as the kernel
answers them: one process, so the rate is the kernel's and not process
start-up's. Prints "N changes in S s, R a second" and exits 1 at the first
request that is not acked, naming it.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import rsnl  # noqa: E402


def main():
    seconds = float(sys.argv[1])
    with open(sys.argv[2]) as f:
        cycle = [line.split() for line in f if line.strip()]
    g = rsnl.Genl()
    g.resolve()
    start = time.monotonic()
    n = 0
    while time.monotonic() - start < seconds:
        for argv in cycle:
            res = g.run(argv)
            if res != "OK":
                sys.exit("rs_churn: %s: %s" % (" ".join(argv), res))
            n += 1
    el = time.monotonic() - start
    print("%d changes in %.1f s, %.0f a second" % (n, el, n / el))


if __name__ == "__main__":
    main()
