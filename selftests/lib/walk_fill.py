#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""walk_fill.py SECONDS PROCS PREFIX: queue conntrack walks as fast as it can.

For SECONDS, PROCS processes each add NAT services (UDP, vnodes 1, VIPs
PREFIX.N.M:80, no backend) to the namespace of their socket until the
kernel refuses one, then flush: without walk credit, every add and every
flushed service queues a walk target, so the namespace's queue of walks
fills as fast as requests go. Several processes, because a request the
kernel makes wait (a flush, on kernels that waited for the walk inside the
request) must not stop the others.

Prints one line per errno the kernel answered, summed over the processes:
"ERRNO COUNT first extack message", "OK" being the acked requests.
"""

import collections
import errno
import multiprocessing
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsnl  # noqa: E402


def fill(seconds, prefix, proc, out):
    g = rsnl.Genl()
    g.resolve()
    add = rsnl.CMDS.index("SERVICE_NEW")
    flush = rsnl.CMDS.index("FLUSH")
    seen = collections.Counter()
    first = {}
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        # 256 services at most: refused (E2BIG, or EAGAIN when the queue
        # is full), then a flush.
        for _ in range(300):
            n += 1
            vip = "%s.%d.%d:80/udp" % (prefix, 1 + proc * 8 + (n >> 8) % 8, n % 250 + 1)
            tree = rsnl.build(["svc=" + vip, "service.vnodes=u32:1"])
            err, msg, _, _ = g.request(g.family, add, 1, tree)
            name = errno.errorcode.get(err, "OK") if err else "OK"
            seen[name] += 1
            first.setdefault(name, msg or "-")
            if err or time.monotonic() >= end:
                break
        err, msg, _, _ = g.request(g.family, flush, 1, rsnl.Tree())
        name = errno.errorcode.get(err, "OK") if err else "OK"
        seen[name] += 1
        first.setdefault(name, msg or "-")
    out.put((seen, first))


def main():
    seconds, procs, prefix = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    q = multiprocessing.Queue()
    ps = [multiprocessing.Process(target=fill, args=(seconds, prefix, i, q))
          for i in range(procs)]
    for p in ps:
        p.start()
    total = collections.Counter()
    first = {}
    for _ in ps:
        seen, f = q.get()
        total.update(seen)
        for k, v in f.items():
            first.setdefault(k, v)
    for p in ps:
        p.join()
    for name, count in sorted(total.items()):
        print(name, count, first[name] if name != "OK" else "")


if __name__ == "__main__":
    main()
