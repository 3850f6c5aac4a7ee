#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""chain_gue.py send|listen ...: GUE packets with an owner chain's hops.

  send DST PORT INNER_SRC INNER_DST [options]
      One GUE packet in a UDP datagram to DST:PORT (a plain UDP socket:
      the outer IP and UDP headers, checksum included, are the kernel's),
      carrying the chain (doc/fleet.md, "Owner chain") and one inner TCP or
      UDP packet INNER_SRC -> INNER_DST (ADDR:PORT, [v6]:PORT), its L4
      checksum right. The chain's type follows DST's family.
        --hops A,B,...   the hops (addresses of DST's family; default none)
        --next N         next hop index (default 0)
        --tcp FLAGS      syn, ack, rst... joined by "+" (default ack);
                         --udp sends a UDP datagram instead
        --ttl N          the outer TTL (hop limit)
        --mangle OFF=VAL set byte OFF of the GUE header (after encoding) to
                         VAL; repeatable. --count N overrides the hop
                         count byte, --type T the type, --truncate N cuts
                         the UDP payload to N bytes
        --plain          a GUE header without private data (hlen 0)
      Prints the UDP payload sent, in hex.
  listen ADDR,... PORT SECONDS
      Prints "SRC HEX" for each datagram to ADDR:PORT in SECONDS.
"""

import argparse
import select
import socket
import struct
import sys
import time

from frames import l4
from icmp_quote import csum

TCP_FLAGS = {"fin": 1, "syn": 2, "rst": 4, "psh": 8, "ack": 16}


def split(hostport):
    host, _, port = hostport.rpartition(":")
    return host.strip("[]"), int(port)


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def tcp_checksummed(s, d, seg, v6):
    """seg (checksum field zero) with its TCP checksum over the pseudo-header."""
    if v6:
        pseudo = s + d + struct.pack("!IxxxB", len(seg), socket.IPPROTO_TCP)
    else:
        pseudo = s + d + struct.pack("!xBH", socket.IPPROTO_TCP, len(seg))
    return seg[:16] + struct.pack("!H", csum(pseudo + seg)) + seg[18:]


def inner_packet(src, dst, udp, flags):
    """GUE's proto/ctype and the inner IP packet."""
    (sa, sp), (da, dp) = split(src), split(dst)
    fam = family(sa)
    v6 = fam == socket.AF_INET6
    s, d = socket.inet_pton(fam, sa), socket.inet_pton(fam, da)
    if udp:
        proto = socket.IPPROTO_UDP
        seg = l4(proto, s, d, sp, dp, b"chain", v6)
    else:
        proto = socket.IPPROTO_TCP
        bits = sum(TCP_FLAGS[f] for f in flags.split("+"))
        seg = struct.pack("!HHIIBBHHH", sp, dp, 1000, 2000, 5 << 4, bits, 65535, 0, 0)
        seg = tcp_checksummed(s, d, seg + (b"" if bits & 2 else b"chain"), v6)
    if v6:
        return 41, struct.pack("!IHBB", 6 << 28, len(seg), proto, 64) + s + d + seg
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(seg), 1, 0, 64, proto, 0, s, d)
    return 4, ip[:10] + struct.pack("!H", csum(ip)) + ip[12:] + seg


def gue(a, ctype):
    fam = family(a.dst)
    if a.plain:
        return struct.pack("!BBH", 0, ctype, 0)
    hops = [socket.inet_pton(fam, h) for h in a.hops.split(",")] if a.hops else []
    alen = 16 if fam == socket.AF_INET6 else 4
    hlen = 1 + len(hops) * alen // 4
    typ = 1 if fam == socket.AF_INET6 else 0
    hdr = bytearray(struct.pack("!BBHHBB", hlen, ctype, 0, typ, a.next, len(hops)) +
                    b"".join(hops))
    if a.count is not None:
        hdr[7] = a.count
    if a.type is not None:
        hdr[4:6] = struct.pack("!H", a.type)
    for m in a.mangle:
        off, val = (int(x, 0) for x in m.split("="))
        hdr[off] = val
    return bytes(hdr)


def send(a):
    ctype, inner = inner_packet(a.inner_src, a.inner_dst, a.udp, a.tcp)
    payload = gue(a, ctype) + inner
    if a.truncate is not None:
        payload = payload[:a.truncate]
    fam = family(a.dst)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if a.ttl:
        if fam == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, a.ttl)
        else:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, a.ttl)
    s.sendto(payload, (a.dst, a.port))
    print(payload.hex())


def listen(a):
    socks = []
    for addr in a.addrs.split(","):
        s = socket.socket(family(addr), socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((addr, a.port))
        socks.append(s)
    print("listening", flush=True)
    end = time.monotonic() + a.seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        for s in select.select(socks, [], [], left)[0]:
            data, src = s.recvfrom(65535)
            print("%s %s" % (src[0], data.hex()), flush=True)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("dst")
    s.add_argument("port", type=int)
    s.add_argument("inner_src")
    s.add_argument("inner_dst")
    s.add_argument("--hops", default="")
    s.add_argument("--next", type=int, default=0)
    s.add_argument("--tcp", default="ack")
    s.add_argument("--udp", action="store_true")
    s.add_argument("--ttl", type=int, default=0)
    s.add_argument("--mangle", action="append", default=[])
    s.add_argument("--count", type=int)
    s.add_argument("--type", type=int)
    s.add_argument("--truncate", type=int)
    s.add_argument("--plain", action="store_true")
    lp = sub.add_parser("listen")
    lp.add_argument("addrs")
    lp.add_argument("port", type=int)
    lp.add_argument("seconds", type=float)
    a = p.parse_args()
    send(a) if a.cmd == "send" else listen(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
