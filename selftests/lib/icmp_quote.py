#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""icmp_quote.py [--udp] [--frag OFFSET] VIP VPORT CLIENT CPORT [MTU]

Sends, from this host, an ICMP "fragmentation needed" (IPv4) or "packet
too big" (IPv6) error to VIP, as a router on a backend's reply path would:
it quotes a TCP segment (with --udp a UDP datagram) from VIP:VPORT to
CLIENT:CPORT, and gives MTU (default 1400).

--frag OFFSET quotes a fragment of that packet instead: at OFFSET 0 the
first one (more fragments set: it holds the ports), at another offset (a
multiple of 8) a later one, which holds only payload. IPv6 quotes a
Fragment header for it.
"""

import argparse
import socket
import struct


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--udp", action="store_true")
    p.add_argument("--frag", type=int)
    p.add_argument("vip")
    p.add_argument("vport", type=int)
    p.add_argument("cli")
    p.add_argument("cport", type=int)
    p.add_argument("mtu", type=int, nargs="?", default=1400)
    a = p.parse_args()
    proto = 17 if a.udp else 6
    if a.udp:
        l4 = struct.pack("!HHHH", a.vport, a.cport, 1200, 0)
    else:
        l4 = struct.pack("!HHI", a.vport, a.cport, 12345)
    # A later fragment carries payload where the ports would be.
    if a.frag:
        l4 = b"\xab" * len(l4)
    more = a.frag is not None
    if ":" in a.vip:
        body = l4 + b"\0" * 12
        nexthdr, ext = proto, b""
        if more:
            nexthdr = 44
            ext = struct.pack("!BxHI", proto, a.frag | 1, 0x5eed)
        quoted = struct.pack("!IHBB16s16s", 6 << 28, len(ext) + len(body), nexthdr, 64,
                             socket.inet_pton(socket.AF_INET6, a.vip),
                             socket.inet_pton(socket.AF_INET6, a.cli)) + ext + body
        # The kernel fills in ICMPv6's checksum on a raw ICMPv6 socket.
        msg = struct.pack("!BBHI", 2, 0, 0, a.mtu) + quoted
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
        s.sendto(msg, (a.vip, 0))
        return
    frag_off = 0x4000
    if more:
        frag_off = 0x2000 | (a.frag >> 3)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 1, frag_off, 64, proto, 0,
                     socket.inet_aton(a.vip), socket.inet_aton(a.cli))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    body = struct.pack("!BBHHH", 3, 4, 0, 0, a.mtu) + ip + l4
    body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.sendto(body, (a.vip, 0))


if __name__ == "__main__":
    main()
