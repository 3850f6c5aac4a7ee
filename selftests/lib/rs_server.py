#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rs_server.py NAME PORT READYFILE

A backend for the scenario scripts: answers every TCP read and every UDP
datagram on PORT (IPv4 and IPv6, one dual-stack socket each) with NAME and a
newline, so the client learns which backend its flow reached. One process,
one thread, many connections (selectors). Touches READYFILE once both
sockets are bound, so the caller never races the bind.
"""

import os
import selectors
import socket
import sys


def main():
    name, port, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    answer = name.encode() + b"\n"
    sel = selectors.DefaultSelector()

    lst = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    lst.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind(("::", port))
    lst.listen(4096)
    lst.setblocking(False)
    sel.register(lst, selectors.EVENT_READ, "listen")

    udp = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    udp.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    udp.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    # Answer from the address each datagram was sent to: behind a tunnel
    # load balancer that is the VIP (on lo), not the address the route
    # back to the client would pick.
    udp.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVPKTINFO, 1)
    udp.bind(("::", port))
    udp.setblocking(False)
    sel.register(udp, selectors.EVENT_READ, "udp")

    with open(ready, "w") as f:
        f.write("%d\n" % os.getpid())

    while True:
        for key, _ in sel.select():
            sock = key.fileobj
            if key.data == "listen":
                while True:
                    try:
                        conn, _ = sock.accept()
                    except BlockingIOError:
                        break
                    conn.setblocking(False)
                    sel.register(conn, selectors.EVENT_READ, "conn")
            elif key.data == "udp":
                while True:
                    try:
                        _, anc, _, peer = sock.recvmsg(2048, socket.CMSG_SPACE(20))
                    except BlockingIOError:
                        break
                    # in6_pktinfo: the address, then an ifindex the route chooses.
                    info = [(socket.IPPROTO_IPV6, socket.IPV6_PKTINFO, d[:16] + bytes(4))
                            for lvl, typ, d in anc
                            if lvl == socket.IPPROTO_IPV6 and typ == socket.IPV6_PKTINFO]
                    try:
                        sock.sendmsg([answer], info, 0, peer)
                    except OSError:
                        pass
            else:
                try:
                    data = sock.recv(4096)
                except OSError:
                    data = b""
                if data:
                    try:
                        sock.send(answer)
                        continue
                    except OSError:
                        pass
                sel.unregister(sock)
                sock.close()


if __name__ == "__main__":
    main()
