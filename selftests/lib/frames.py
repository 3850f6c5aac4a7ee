#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""frames.py [options] IFACE DMAC SRC[,SRC...] DST

Sends hand-made Ethernet frames on IFACE (an AF_PACKET socket: no route,
no source check, no neighbour lookup on this host), each carrying one IPv4
or IPv6 packet from SRC (each SRC in turn) to DST, as a hostile or broken
peer on the link
would: any source (broadcast, multicast, 0.0.0.0, loopback, the receiver's
own), any destination MAC DMAC (ff:ff:ff:ff:ff:ff, a multicast one,
another host's), any TTL, DF and size. The L4 checksums are right, so a
receiver that takes the packet would answer it.

  --proto P      tcp (an ACK with payload), udp, icmp (echo request), or a
                 protocol number with the payload right after the IP header
  --sport/--dport ports of tcp and udp (default 40000 and 80)
  --size N       the IP packet's total length (default: headers and 8 bytes)
  --ttl N        TTL or hop limit (default 64); --df sets IPv4's DF
  --count N      send N such packets from each SRC (default 1), as fast as
                 it can
  --watch S      after sending, listen S seconds on IFACE and print every
                 ICMP or ICMPv6 error or echo reply that arrives, one a line:
                   "icmp TYPE/CODE SRC > DST mtu N" (mtu for "too big";
                   "icmp6" for ICMPv6)
  --reply S      before sending, bind a UDP socket to (the first) SRC:SPORT;
                 after, print "reply TEXT" for the datagrams it gets in S
                 seconds (without --watch, the first one ends the wait)

Last it prints "sent N in T s". Needs root (CAP_NET_RAW).
"""

import argparse
import select
import socket
import struct
import time

from icmp_quote import csum

ETH_P_IP, ETH_P_IPV6 = 0x0800, 0x86DD
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
IP_DF = 0x4000


def mac_bytes(mac):
    return bytes(int(b, 16) for b in mac.split(":"))


def l4(proto, src, dst, sport, dport, payload, v6):
    """The L4 header and payload, checksummed over the pseudo-header."""
    if proto == socket.IPPROTO_TCP:
        hdr = struct.pack("!HHIIBBHHH", sport, dport, 1, 1, 5 << 4, 0x18, 65535, 0, 0)
        ck = 16
    elif proto == socket.IPPROTO_UDP:
        hdr = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
        ck = 6
    elif proto in (socket.IPPROTO_ICMP, socket.IPPROTO_ICMPV6):
        hdr = struct.pack("!BBHHH", 128 if v6 else 8, 0, 0, sport, 1)
        ck = 2
    else:
        return payload
    seg = hdr + payload
    if v6:
        pseudo = src + dst + struct.pack("!IxxxB", len(seg), proto)
    elif proto == socket.IPPROTO_ICMP:
        pseudo = b""
    else:
        pseudo = src + dst + struct.pack("!xBH", proto, len(seg))
    c = csum(pseudo + seg)
    if proto == socket.IPPROTO_UDP and c == 0:
        c = 0xFFFF
    return seg[:ck] + struct.pack("!H", c) + seg[ck + 2:]


def l4_len(proto):
    return {socket.IPPROTO_TCP: 20, socket.IPPROTO_UDP: 8,
            socket.IPPROTO_ICMP: 8, socket.IPPROTO_ICMPV6: 8}.get(proto, 0)


def packet(a, saddr):
    """One IP packet from saddr as the options say, and its EtherType."""
    v6 = ":" in saddr
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    src, dst = socket.inet_pton(fam, saddr), socket.inet_pton(fam, a.dst)
    proto = {"tcp": socket.IPPROTO_TCP, "udp": socket.IPPROTO_UDP,
             "icmp": socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP}.get(a.proto)
    if proto is None:
        proto = int(a.proto)
    iphl = 40 if v6 else 20
    size = a.size or iphl + l4_len(proto) + 8
    payload = b"x" * (size - iphl - l4_len(proto))
    seg = l4(proto, src, dst, a.sport, a.dport, payload, v6)
    if v6:
        return ETH_P_IPV6, struct.pack("!IHBB", 6 << 28, len(seg), proto, a.ttl) + src + dst + seg
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(seg), 1, IP_DF if a.df else 0,
                     a.ttl, proto, 0, src, dst)
    return ETH_P_IP, ip[:10] + struct.pack("!H", csum(ip)) + ip[12:] + seg


def icmp_line(frame):
    """An ICMP or ICMPv6 error or echo reply in a received frame, as a line,
    or None."""
    et = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if et == ETH_P_IP and len(ip) >= 28 and ip[9] == socket.IPPROTO_ICMP:
        off = (ip[0] & 15) * 4
        t, c = ip[off], ip[off + 1]
        if t not in (0, 3, 4, 5, 11, 12):
            return None
        line = "icmp %d/%d %s > %s" % (t, c, socket.inet_ntop(socket.AF_INET, ip[12:16]),
                                       socket.inet_ntop(socket.AF_INET, ip[16:20]))
        if (t, c) == (3, 4):
            line += " mtu %d" % struct.unpack("!H", ip[off + 6:off + 8])[0]
        return line
    if et == ETH_P_IPV6 and len(ip) >= 48 and ip[6] == socket.IPPROTO_ICMPV6:
        t, c = ip[40], ip[41]
        if t >= 128 and t != 129:
            return None
        line = "icmp6 %d/%d %s > %s" % (t, c, socket.inet_ntop(socket.AF_INET6, ip[8:24]),
                                        socket.inet_ntop(socket.AF_INET6, ip[24:40]))
        if t == 2:
            line += " mtu %d" % struct.unpack("!I", ip[44:48])[0]
        return line
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proto", default="udp")
    p.add_argument("--sport", type=int, default=40000)
    p.add_argument("--dport", type=int, default=80)
    p.add_argument("--size", type=int, default=0)
    p.add_argument("--ttl", type=int, default=64)
    p.add_argument("--df", action="store_true")
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--watch", type=float, default=0)
    p.add_argument("--reply", type=float, default=0)
    p.add_argument("iface")
    p.add_argument("dmac")
    p.add_argument("src")
    p.add_argument("dst")
    a = p.parse_args()

    srcs = a.src.split(",")
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((a.iface, 0))
    frames = []
    for saddr in srcs:
        ethertype, pkt = packet(a, saddr)
        frames.append(mac_bytes(a.dmac) + tx.getsockname()[4] +
                      struct.pack("!H", ethertype) + pkt)

    # Bound to one EtherType, a packet socket sees only what arrives (the
    # frames this host sends go to ETH_P_ALL sockets), so the flood sent
    # does not fill its buffer.
    rx = []
    if a.watch:
        for et in (ETH_P_IP, ETH_P_IPV6):
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(et))
            s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
            s.bind((a.iface, et))
            rx.append(s)
    udp = None
    if a.reply:
        fam = socket.AF_INET6 if ":" in srcs[0] else socket.AF_INET
        udp = socket.socket(fam, socket.SOCK_DGRAM)
        udp.bind((srcs[0], a.sport))

    start = time.monotonic()
    for _ in range(a.count):
        for frame in frames:
            tx.send(frame)
    elapsed = time.monotonic() - start

    end = time.monotonic() + max(a.watch, a.reply)
    socks = rx + ([udp] if udp else [])
    while socks:
        left = end - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select(socks, [], [], left)
        for s in ready:
            if s is udp:
                print("reply %s" % s.recv(2048).decode(errors="replace").strip(), flush=True)
                # An answer is all a caller waits for, unless it watches too.
                if not rx:
                    end = 0
                continue
            data, addr = s.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING:
                continue
            line = icmp_line(data)
            if line:
                print(line, flush=True)
    print("sent %d in %.2f s" % (a.count * len(frames), elapsed))


if __name__ == "__main__":
    main()
