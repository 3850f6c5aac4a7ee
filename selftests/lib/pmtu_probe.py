#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pmtu_probe.py DST PORT [SECONDS]

Sends one UDP datagram that fills a 1500-byte packet to DST:PORT with the
Don't Fragment bit (IPv4) or without fragmentation (IPv6), then waits up
to SECONDS (default 10) for the path MTU the kernel learnt from an ICMP
"fragmentation needed" / "packet too big" answer, resending every 0.2 s,
and prints it (1500 if nothing came).
"""

import socket
import sys
import time

IP_MTU_DISCOVER, IP_PMTUDISC_DO, IP_MTU = 10, 2, 14
IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO, IPV6_MTU = 23, 2, 24


def main():
    dst, port = sys.argv[1], int(sys.argv[2])
    limit = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
    v6 = ":" in dst
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
    if v6:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO)
        level, opt, payload = socket.IPPROTO_IPV6, IPV6_MTU, 1500 - 48
    else:
        s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
        level, opt, payload = socket.IPPROTO_IP, IP_MTU, 1500 - 28
    s.connect((dst, port))
    end = time.monotonic() + limit
    mtu = 1500
    while time.monotonic() < end:
        mtu = s.getsockopt(level, opt)
        if mtu < 1500:
            break
        try:
            s.send(b"x" * payload)
        except OSError:
            pass  # EMSGSIZE once the route learnt the MTU
        time.sleep(0.2)
    print(mtu)


if __name__ == "__main__":
    main()
