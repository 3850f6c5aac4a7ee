#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nfq_hold.py QUEUE

Holds packets queued by an nftables "queue num QUEUE" rule, speaking
nfnetlink_queue over a raw netlink socket (no library needed). Prints
"bound" once the queue is bound, then "held ID" for every packet it holds.
On stdin, "release" accepts every held packet and prints "released N";
"quit" (or EOF) accepts them all and exits. Exits by itself after a minute
without a command, accepting what it holds, so nothing waits forever.
"""

import select
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2
NF_ACCEPT = 1


def attr(typ, payload):
    a = struct.pack("HH", 4 + len(payload), typ) + payload
    return a + b"\0" * (-len(a) % 4)


class Queue:
    def __init__(self, num):
        self.num = num
        self.seq = 0
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_NETFILTER)
        self.sock.bind((0, 0))

    def send(self, msg, attrs, ack):
        self.seq += 1
        body = struct.pack("BBH", socket.AF_UNSPEC, 0, socket.htons(self.num))
        body += b"".join(attrs)
        flags = NLM_F_REQUEST | (NLM_F_ACK if ack else 0)
        hdr = struct.pack("=LHHLL", 16 + len(body),
                          (NFNL_SUBSYS_QUEUE << 8) | msg, flags, self.seq, 0)
        self.sock.send(hdr + body)
        if not ack:
            return
        while True:
            for typ, body in self.recv():
                if typ == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", body)[0]
                    if err:
                        raise OSError(err, "nfqueue config")
                    return

    def recv(self):
        data = self.sock.recv(65536)
        out = []
        off = 0
        while off + 16 <= len(data):
            ln, typ, _, _, _ = struct.unpack_from("=LHHLL", data, off)
            out.append((typ, data[off + 16:off + ln]))
            off += (ln + 3) & ~3
        return out

    def bind(self):
        self.send(NFQNL_MSG_CONFIG,
                  [attr(NFQA_CFG_CMD, struct.pack("!BBH", NFQNL_CFG_CMD_BIND, 0, 0))], True)
        self.send(NFQNL_MSG_CONFIG,
                  [attr(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META))], True)

    def packet_ids(self):
        ids = []
        for typ, body in self.recv():
            if typ != (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
                continue
            a = body[4:]
            while len(a) >= 4:
                alen, atype = struct.unpack_from("HH", a)
                if atype & 0x3fff == NFQA_PACKET_HDR:
                    ids.append(struct.unpack_from("!I", a, 4)[0])
                a = a[(alen + 3) & ~3:]
        return ids

    def accept(self, pid):
        self.send(NFQNL_MSG_VERDICT,
                  [attr(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, pid))], False)


def main():
    q = Queue(int(sys.argv[1]))
    q.bind()
    print("bound", flush=True)
    held = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        r, _, _ = select.select([q.sock, sys.stdin], [], [], 1)
        if q.sock in r:
            for pid in q.packet_ids():
                held.append(pid)
                print("held %d" % pid, flush=True)
        if sys.stdin in r:
            cmd = sys.stdin.readline().strip()
            for pid in held:
                q.accept(pid)
            if cmd == "release":
                print("released %d" % len(held), flush=True)
                held = []
                deadline = time.monotonic() + 60
                continue
            return
    for pid in held:
        q.accept(pid)


if __name__ == "__main__":
    main()
