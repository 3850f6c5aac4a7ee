#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""icmp_quote.py VIP VPORT CLIENT CPORT [MTU]

Sends, from this host, an ICMP "fragmentation needed" (IPv4) or "packet
too big" (IPv6) error to VIP, as a router on a backend's reply path would:
it quotes a TCP segment from VIP:VPORT to CLIENT:CPORT, and gives MTU
(default 1400).
"""

import socket
import struct
import sys


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def main():
    vip, vport, cli, cport = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    mtu = int(sys.argv[5]) if len(sys.argv) > 5 else 1400
    tcp = struct.pack("!HHI", vport, cport, 12345)
    if ":" in vip:
        quoted = struct.pack("!IHBB16s16s", 6 << 28, len(tcp) + 12, 6, 64,
                             socket.inet_pton(socket.AF_INET6, vip),
                             socket.inet_pton(socket.AF_INET6, cli)) + tcp + b"\0" * 12
        # The kernel fills in ICMPv6's checksum on a raw ICMPv6 socket.
        msg = struct.pack("!BBHI", 2, 0, 0, mtu) + quoted
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
        s.sendto(msg, (vip, 0))
        return
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0x4000, 64, 6, 0,
                     socket.inet_aton(vip), socket.inet_aton(cli))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    body = struct.pack("!BBHHH", 3, 4, 0, 0, mtu) + ip + tcp
    body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.sendto(body, (vip, 0))


if __name__ == "__main__":
    main()
