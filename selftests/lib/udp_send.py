#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udp_send.py [--sport PORT] [--rate N] [--seconds S] [--count-file F] DST DPORT [DST DPORT]...

A one-way UDP sender for the scenario scripts. Without --sport every
datagram leaves from a fresh socket, so from a random source port: each is
a new flow for conntrack, the first packet of which the NAT hooks see. With
--sport every datagram leaves from that one port: one flow. Destinations
are used in turn. Sends about N datagrams a second (0: as fast as it can)
for S seconds (0: until killed); writes the number sent to F once a second
and at the end, so a caller can check that traffic was flowing.
"""

import argparse
import os
import socket
import time


def write_count(path, sent):
    """Replaces the file whole: a reader never sees it empty, as it would
    between open(path, "w") and the write."""
    with open(path + ".tmp", "w") as f:
        f.write("%d\n" % sent)
    os.replace(path + ".tmp", path)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sport", type=int, default=0)
    p.add_argument("--rate", type=float, default=0)
    p.add_argument("--seconds", type=float, default=0)
    p.add_argument("--count-file")
    p.add_argument("dests", nargs="+")
    a = p.parse_args()
    dests = [(a.dests[i], int(a.dests[i + 1])) for i in range(0, len(a.dests), 2)]
    fixed = {}
    if a.sport:
        for d, _ in dests:
            fam = socket.AF_INET6 if ":" in d else socket.AF_INET
            if fam not in fixed:
                s = socket.socket(fam, socket.SOCK_DGRAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", a.sport))
                fixed[fam] = s
    start = last = time.monotonic()
    sent = 0
    while not a.seconds or time.monotonic() - start < a.seconds:
        d = dests[sent % len(dests)]
        fam = socket.AF_INET6 if ":" in d[0] else socket.AF_INET
        try:
            if a.sport:
                fixed[fam].sendto(b"x", d)
            else:
                with socket.socket(fam, socket.SOCK_DGRAM) as s:
                    s.sendto(b"x", d)
            sent += 1
        except OSError:
            pass
        now = time.monotonic()
        if a.count_file and now - last >= 1:
            last = now
            write_count(a.count_file, sent)
        if a.rate:
            delay = start + sent / a.rate - now
            if delay > 0:
                time.sleep(delay)
    if a.count_file:
        write_count(a.count_file, sent)


if __name__ == "__main__":
    main()
