#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""outer_ids.py IFACE DONE READY

Listens on IFACE (an AF_PACKET socket) for the IPIP packets that arrive
and prints one line for each:

  "ID DF SPORT"   the outer IPv4 header's ID and DF bit (0 or 1), and the
                  inner UDP or TCP source port

It creates the file READY once it listens, so that a caller knows when to
send, and listens until the caller creates the file DONE and no packet has
come for QUIET seconds since, or CAP seconds have passed. A fixed
window would end before a slow sender starts (Python takes seconds to
start on a debug kernel). Needs root (CAP_NET_RAW).
"""

import os
import select
import socket
import struct
import sys
import time

from frames import ETH_P_IP, IP_DF, PACKET_OUTGOING

QUIET = 0.5
CAP = 60.0


def line(frame):
    """The line for an IPIP frame, or None for any other."""
    ip = frame[14:]
    if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != socket.IPPROTO_IPIP:
        return None
    ident, frag = struct.unpack("!HH", ip[4:8])
    inner = ip[(ip[0] & 15) * 4:]
    if len(inner) < 24 or inner[9] not in (socket.IPPROTO_UDP, socket.IPPROTO_TCP):
        return None
    sport = struct.unpack("!H", inner[(inner[0] & 15) * 4:][:2])[0]
    return "%d %d %d" % (ident, 1 if frag & IP_DF else 0, sport)


def main():
    iface, done, ready = sys.argv[1], sys.argv[2], sys.argv[3]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
    s.bind((iface, ETH_P_IP))
    open(ready, "w").close()
    end = time.monotonic() + CAP
    quiet_since = None
    while time.monotonic() < end:
        if quiet_since is None and os.path.exists(done):
            quiet_since = time.monotonic()
        if quiet_since is not None and time.monotonic() - quiet_since >= QUIET:
            break
        if not select.select([s], [], [], 0.1)[0]:
            continue
        data, addr = s.recvfrom(65535)
        if quiet_since is not None:
            quiet_since = time.monotonic()
        if addr[2] == PACKET_OUTGOING:
            continue
        out = line(data)
        if out:
            print(out, flush=True)


if __name__ == "__main__":
    main()
