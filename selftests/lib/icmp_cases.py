#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""icmp_cases.py CASE [options] IFACE DMAC SRC DST ...

Hand-made frames (AF_PACKET on IFACE, to DMAC) for what a load balancer's
ICMP handling must survive; frames.py has the plain ones.

  flood IFACE DMAC FLOODSRC PROBESRC DST [--count N] [--watch S]
      N TCP segments with TTL (hop limit) 1 from FLOODSRC to DST:80, then
      at once one 1500-byte segment from PROBESRC (DF over IPv4); then
      listens S seconds on IFACE and prints the ICMP errors that arrive,
      as frames.py does ("icmp 3/4 SRC > DST mtu N", "icmp6 ...").
  frags IFACE DMAC SRC DST [--count N] [--sport P]
      N UDP datagrams of 2000 bytes to DST:80, each in two IPv4 fragments
      that both carry DF (RFC 791 allows it): reassembled, the datagram
      has DF, its fragments are small, and it is not.
  forge IFACE DMAC SRC DST QSRC QDST [--mtu M] [--bad-csum]
      An ICMP "fragmentation needed" (IPv6: "packet too big") from SRC to
      DST, as a router on the way to QDST would send it about an outer
      packet QSRC > QDST (ipip, ip6ip6) of the load balancer's, with MTU M
      (default 1300); --bad-csum spoils its ICMP checksum.

Needs root (CAP_NET_RAW).
"""

import argparse
import select
import socket
import struct
import time

from frames import (ETH_P_IP, ETH_P_IPV6, IP_DF, PACKET_OUTGOING, SO_RCVBUFFORCE,
                    icmp_line, l4, mac_bytes)
from icmp_quote import csum


def ip4(src, dst, proto, payload, ttl=64, ident=1, frag_off=IP_DF):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, frag_off,
                      ttl, proto, 0, socket.inet_aton(src), socket.inet_aton(dst))
    return hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:] + payload


def ip6(src, dst, nexthdr, payload, hops=64):
    return struct.pack("!IHBB16s16s", 6 << 28, len(payload), nexthdr, hops,
                       socket.inet_pton(socket.AF_INET6, src),
                       socket.inet_pton(socket.AF_INET6, dst)) + payload


def tcp_packet(src, dst, size, ttl):
    v6 = ":" in src
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    s, d = socket.inet_pton(fam, src), socket.inet_pton(fam, dst)
    hl = 40 if v6 else 20
    seg = l4(socket.IPPROTO_TCP, s, d, 40000, 80, b"x" * max(size - hl - 20, 8), v6)
    if v6:
        return ETH_P_IPV6, ip6(src, dst, socket.IPPROTO_TCP, seg, ttl)
    return ETH_P_IP, ip4(src, dst, socket.IPPROTO_TCP, seg, ttl)


def frame(tx, dmac, et, pkt):
    return mac_bytes(dmac) + tx.getsockname()[4] + struct.pack("!H", et) + pkt


def watch(iface):
    rx = []
    for et in (ETH_P_IP, ETH_P_IPV6):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(et))
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
        s.bind((iface, et))
        rx.append(s)
    return rx


def listen(rx, seconds):
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        for s in select.select(rx, [], [], left)[0]:
            data, addr = s.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING:
                continue
            line = icmp_line(data)
            if line:
                print(line, flush=True)


def flood(a, tx):
    rx = watch(a.iface)
    frames = [frame(tx, a.dmac, *tcp_packet(a.src, a.dst, 0, 1))] * a.count
    frames.append(frame(tx, a.dmac, *tcp_packet(a.args[0], a.dst, 1500, 64)))
    for f in frames:
        tx.send(f)
    listen(rx, a.watch)
    print("sent %d" % len(frames))


def frags(a, tx):
    s, d = socket.inet_aton(a.src), socket.inet_aton(a.dst)
    for i in range(a.count):
        dgram = l4(socket.IPPROTO_UDP, s, d, a.sport, 80, b"y" * 1992, False)
        half = 1000  # a multiple of 8
        ident = 0x4000 + i
        tx.send(frame(tx, a.dmac, ETH_P_IP, ip4(a.src, a.dst, socket.IPPROTO_UDP,
                                                 dgram[:half], ident=ident,
                                                 frag_off=IP_DF | 0x2000)))
        tx.send(frame(tx, a.dmac, ETH_P_IP, ip4(a.src, a.dst, socket.IPPROTO_UDP,
                                                 dgram[half:], ident=ident,
                                                 frag_off=IP_DF | (half >> 3))))
    print("sent %d" % a.count)


def forge(a, tx):
    qsrc, qdst = a.args
    if ":" in a.src:
        inner = ip6("fd01::2", "fd00::100", socket.IPPROTO_UDP, b"\0" * 16)
        quoted = ip6(qsrc, qdst, 41, inner)
        body = struct.pack("!BBHI", 2, 0, 0, a.mtu) + quoted
        pseudo = (socket.inet_pton(socket.AF_INET6, a.src) +
                  socket.inet_pton(socket.AF_INET6, a.dst) +
                  struct.pack("!IxxxB", len(body), socket.IPPROTO_ICMPV6))
        ck = csum(pseudo + body)
    else:
        inner = ip4("10.1.0.2", "10.0.0.100", socket.IPPROTO_UDP, b"\0" * 16)
        quoted = ip4(qsrc, qdst, socket.IPPROTO_IPIP, inner)
        body = struct.pack("!BBHHH", 3, 4, 0, 0, a.mtu) + quoted
        ck = csum(body)
    if a.bad_csum:
        ck ^= 0x5a5a
    body = body[:2] + struct.pack("!H", ck) + body[4:]
    if ":" in a.src:
        pkt = ETH_P_IPV6, ip6(a.src, a.dst, socket.IPPROTO_ICMPV6, body)
    else:
        pkt = ETH_P_IP, ip4(a.src, a.dst, socket.IPPROTO_ICMP, body)
    tx.send(frame(tx, a.dmac, *pkt))
    print("sent 1")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=("flood", "frags", "forge"))
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--watch", type=float, default=1.0)
    p.add_argument("--sport", type=int, default=41002)
    p.add_argument("--mtu", type=int, default=1300)
    p.add_argument("--bad-csum", action="store_true")
    p.add_argument("iface")
    p.add_argument("dmac")
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("args", nargs="*")
    a = p.parse_args()
    # flood: SRC is the flooder, then PROBESRC DST; the rest: SRC DST ...
    if a.case == "flood":
        a.args, a.dst = [a.dst], a.args[0]
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((a.iface, 0))
    {"flood": flood, "frags": frags, "forge": forge}[a.case](a, tx)


if __name__ == "__main__":
    main()
