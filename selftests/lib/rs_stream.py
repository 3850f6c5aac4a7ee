#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rs_stream.py server PORT READYFILE
   rs_stream.py client [--seconds S] [--rate B] [--bytes N] SRC DST DPORT SPORTS

Long-lived TCP connections carrying checked data. The server echoes every
byte back (IPv4 and IPv6, one process). The client opens one connection
from SRC:SPORT to DST:DPORT per port of SPORTS ("5000-5007,6000"), and for
S seconds streams a pseudo-random byte sequence seeded by SPORT on each,
at about B bytes a second (default 65536), checking every echoed byte
against what it sent, with at most 64 KiB in flight per connection
(with --bytes N instead: N bytes a connection, as fast as they go). Then it half-closes, reads the rest of the echo and
prints one line per connection:

  SPORT ok BYTES SHA256        every byte came back, in order
  SPORT FAIL BYTES reason      the connection broke or data differed

and exits 0 only if every connection is ok.
"""

import argparse
import hashlib
import os
import random
import selectors
import socket
import sys
import time

WINDOW = 64 * 1024
CHUNK = 4096


def server(port, ready):
    sel = selectors.DefaultSelector()
    lst = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    lst.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind(("::", port))
    lst.listen(1024)
    lst.setblocking(False)
    sel.register(lst, selectors.EVENT_READ, None)
    with open(ready, "w") as f:
        f.write("%d\n" % os.getpid())
    while True:
        for key, _ in sel.select():
            if key.data is None:
                try:
                    conn, _ = lst.accept()
                except BlockingIOError:
                    continue
                # Echo synchronously: a blocking send() is fine, the
                # client never has more than WINDOW bytes in flight.
                sel.register(conn, selectors.EVENT_READ, "c")
                continue
            conn = key.fileobj
            try:
                data = conn.recv(65536)
                if data:
                    conn.sendall(data)
                    continue
                conn.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            sel.unregister(conn)
            conn.close()


class Conn:
    def __init__(self, sport):
        self.sport = sport
        self.rng = random.Random(sport)
        self.pending = b""      # sent, not echoed yet
        self.sent = 0
        self.back = 0
        self.hash_out = hashlib.sha256()
        self.hash_in = hashlib.sha256()
        self.error = None
        self.closing = False
        self.done = False


def client(a):
    fam = socket.AF_INET6 if ":" in a.dst else socket.AF_INET
    conns = []
    for part in a.sports.split(","):
        lo, _, hi = part.partition("-")
        for p in range(int(lo), int(hi or lo) + 1):
            conns.append(Conn(p))
    sel = selectors.DefaultSelector()
    for c in conns:
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((a.src, c.sport))
        s.settimeout(10)
        try:
            s.connect((a.dst, a.dport))
        except OSError as e:
            c.error = "connect: %s" % e.strerror
            c.done = True
            s.close()
            continue
        s.setblocking(False)
        c.sock = s
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
    start = time.monotonic()
    end = start + a.seconds if not a.bytes else float("inf")
    live = [c for c in conns if not c.done]
    while live:
        now = time.monotonic()
        budget = a.bytes or a.rate * (min(now, end) - start)
        if a.bytes and now < end and all(c.sent >= a.bytes for c in live if not c.done):
            end = now
        for c in live:
            want = (not c.closing and now <= end and c.sent < budget and
                    len(c.pending) < WINDOW)
            mask = selectors.EVENT_READ | (selectors.EVENT_WRITE if want else 0)
            if not c.done and sel.get_key(c.sock).events != mask:
                sel.modify(c.sock, mask, c)
        if now > end + 30:
            for c in live:
                c.error = c.error or "no end of echo 30 s after the stream"
                c.done = True
            break
        for key, mask in sel.select(0.05):
            event(sel, key.data, mask, now > end)
        if now > end:
            for c in live:
                if not c.closing and not c.done:
                    c.closing = True
                    try:
                        c.sock.shutdown(socket.SHUT_WR)
                    except OSError as e:
                        fail(sel, c, "shutdown: %s" % e.strerror)
                    else:
                        sel.modify(c.sock, selectors.EVENT_READ, c)
        live = [c for c in live if not c.done]
    ok = True
    for c in conns:
        if c.error is None and c.back == c.sent and c.hash_in.digest() == c.hash_out.digest():
            print("%d ok %d %s" % (c.sport, c.sent, c.hash_in.hexdigest()[:16]))
        else:
            ok = False
            print("%d FAIL %d %s" % (c.sport, c.back, c.error or "short echo"))
    sys.stdout.flush()
    sys.exit(0 if ok else 1)


def fail(sel, c, why):
    c.error = why
    c.done = True
    try:
        sel.unregister(c.sock)
    except (KeyError, ValueError):
        pass
    c.sock.close()


def event(sel, c, mask, stop):
    if c.done:
        return
    if mask & selectors.EVENT_WRITE and not stop and not c.closing:
        if len(c.pending) < WINDOW:
            data = c.rng.randbytes(CHUNK)
            try:
                n = c.sock.send(data)
            except BlockingIOError:
                n = 0
            except OSError as e:
                return fail(sel, c, "send: %s" % e.strerror)
            c.pending += data[:n]
            c.hash_out.update(data[:n])
            c.sent += n
    if mask & selectors.EVENT_READ:
        try:
            data = c.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError as e:
            return fail(sel, c, "recv: %s" % e.strerror)
        if not data:
            if c.closing and not c.pending:
                c.done = True
                sel.unregister(c.sock)
                c.sock.close()
                return
            return fail(sel, c, "eof with %d bytes outstanding" % len(c.pending))
        if c.pending[:len(data)] != data:
            return fail(sel, c, "echo differs at byte %d" % c.back)
        c.pending = c.pending[len(data):]
        c.back += len(data)
        c.hash_in.update(data)


def main():
    if sys.argv[1:2] == ["server"]:
        server(int(sys.argv[2]), sys.argv[3])
        return
    p = argparse.ArgumentParser()
    p.add_argument("mode")
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--rate", type=float, default=65536)
    p.add_argument("--bytes", type=int, default=0)
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("dport", type=int)
    p.add_argument("sports")
    client(p.parse_args())


if __name__ == "__main__":
    main()
