#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pmtu_probe.py [--size N] [--sport PORT] [--reply] DST PORT [SECONDS]

Sends one UDP datagram that fills a 1500-byte packet (N bytes with --size)
to DST:PORT with the Don't Fragment bit (IPv4) or without fragmentation
(IPv6), then waits up to SECONDS (default 10) for the path MTU the kernel
learnt from an ICMP "fragmentation needed" / "packet too big" answer,
resending every 0.2 s, and prints it (1500 if nothing came).

--reply goes on as an application that does path MTU discovery would:
each datagram is as large as the route's MTU allows (at most N), and it
ends when one is answered. It prints "mtu M size S reply TEXT": the path
MTU learnt, the size of the last packet sent and the first answer ("-"
if none came in SECONDS). --sport sends from that port (a flow the
caller chose).
"""

import argparse
import socket
import time

IP_MTU_DISCOVER, IP_PMTUDISC_DO, IP_MTU = 10, 2, 14
IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO, IPV6_MTU = 23, 2, 24


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=1500)
    p.add_argument("--sport", type=int, default=0)
    p.add_argument("--reply", action="store_true")
    p.add_argument("dst")
    p.add_argument("port", type=int)
    p.add_argument("seconds", type=float, nargs="?", default=10.0)
    a = p.parse_args()
    v6 = ":" in a.dst
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
    if v6:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO)
        level, opt, hdrs = socket.IPPROTO_IPV6, IPV6_MTU, 48
    else:
        s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
        level, opt, hdrs = socket.IPPROTO_IP, IP_MTU, 28
    if a.sport:
        s.bind(("::" if v6 else "0.0.0.0", a.sport))
    s.connect((a.dst, a.port))
    s.settimeout(0.2)
    end = time.monotonic() + a.seconds
    mtu = size = 1500
    reply = "-"
    while time.monotonic() < end:
        mtu = s.getsockopt(level, opt)
        if mtu < 1500 and not a.reply:
            break
        size = min(a.size, mtu)
        try:
            s.send(b"x" * (size - hdrs))
        except OSError:
            pass  # EMSGSIZE once the route learnt the MTU
        if not a.reply:
            time.sleep(0.2)
            continue
        try:
            reply = s.recv(2048).decode(errors="replace").strip()
            break
        except OSError:
            pass  # no answer yet, or an ICMP error reported on the socket
    if a.reply:
        print("mtu %d size %d reply %s" % (mtu, size, reply))
    else:
        print(mtu)


if __name__ == "__main__":
    main()
