#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rs_client.py [--udp] [--hold] [--timeout S] [--window N] SRC DST DPORT SPORTS

Opens one flow (TCP connection or UDP socket) from SRC:SPORT to DST:DPORT
for every SPORT in SPORTS ("20000-21999", "5,7,100-110"), sends one request
on each and prints "SPORT NAME" per flow in SPORTS order, where NAME is the
answer of the backend rs_server.py (its name), or "-" if the flow got no
answer (refused, reset, timeout). Up to N flows are in progress at once, so
thousands of flows take one process, not thousands.

The client picks every source port itself, so the same flow tuples can be
replayed in a later phase. A finished TCP flow is closed with a RST
(SO_LINGER 0): neither end keeps a TIME_WAIT socket, and conntrack treats
the next SYN of the same tuple as a new connection.

--hold keeps the flows open after the first answers and the line ".".
Then, on stdin, "ping" sends one more request on every flow that answered
and prints "SPORT NAME" for each, then "."; "quit" (or EOF) resets them all
and exits; "close" closes TCP flows as an application does (FIN, then the
server's FIN, leaving TIME_WAIT behind) and exits. A summary of failures
goes to stderr.
"""

import argparse
import collections
import selectors
import socket
import sys
import time


def parse_ports(spec):
    ports = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            ports.extend(range(int(a), int(b) + 1))
        elif part:
            ports.append(int(part))
    return ports


class Flow:
    def __init__(self, sport):
        self.sport = sport
        self.sock = None
        self.name = None
        self.why = None
        self.deadline = 0.0
        self.buf = b""


class Engine:
    def __init__(self, args):
        self.args = args
        self.family = socket.AF_INET6 if ":" in args.dst else socket.AF_INET
        self.sel = selectors.DefaultSelector()
        self.why = collections.Counter()

    def open_flow(self, f):
        a = self.args
        kind = socket.SOCK_DGRAM if a.udp else socket.SOCK_STREAM
        s = socket.socket(self.family, kind)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if not a.udp:
            # Abort on close: no TIME_WAIT, tuple reusable right away.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.setblocking(False)
        f.sock = s
        try:
            s.bind((a.src, f.sport))
        except OSError as e:
            self.finish(f, None, "bind:%s" % e.strerror)
            return
        if a.udp:
            s.connect((a.dst, a.dport))
            self.request(f)
            return
        err = s.connect_ex((a.dst, a.dport))
        if err not in (0, 115):         # EINPROGRESS
            self.finish(f, None, "connect:%d" % err)
            return
        f.deadline = time.monotonic() + a.timeout
        self.sel.register(s, selectors.EVENT_WRITE, f)

    def request(self, f):
        try:
            f.sock.send(b"?\n")
        except OSError as e:
            self.finish(f, None, "send:%s" % e.strerror)
            return
        f.buf = b""
        f.deadline = time.monotonic() + self.args.timeout
        self.sel.register(f.sock, selectors.EVENT_READ, f)

    def finish(self, f, name, why=None):
        try:
            self.sel.unregister(f.sock)
        except (KeyError, ValueError):
            pass
        f.name = name
        if name is None:
            self.why[why] += 1
            f.sock.close()
            f.sock = None
        elif not self.args.hold:
            f.sock.close()
            f.sock = None
        self.busy -= 1

    def event(self, f, mask):
        if mask & selectors.EVENT_WRITE:
            err = f.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                self.finish(f, None, "connect:%s" % errno_name(err))
                return
            self.sel.unregister(f.sock)
            self.request(f)
            return
        try:
            data = f.sock.recv(4096)
        except OSError as e:
            self.finish(f, None, "recv:%s" % errno_name(e.errno))
            return
        if not data:
            self.finish(f, None, "eof")
            return
        f.buf += data
        if b"\n" in f.buf:
            self.finish(f, f.buf.split(b"\n")[0].decode())

    def run(self, flows, start):
        """start(f) begins one flow; returns when every flow has ended."""
        pending = collections.deque(flows)
        live = set()
        self.busy = 0
        while pending or self.busy:
            while pending and self.busy < self.args.window:
                f = pending.popleft()
                self.busy += 1
                live.add(f)
                start(f)
            for key, mask in self.sel.select(0.05):
                self.event(key.data, mask)
            now = time.monotonic()
            for f in [f for f in live if f.sock and f.name is None
                      and f.deadline and now > f.deadline
                      and self.sel.get_map().get(f.sock) is not None]:
                self.finish(f, None, "timeout")
            live = {f for f in live if f.name is None and f.sock is not None}


def errno_name(e):
    import errno
    return errno.errorcode.get(e, str(e))


def report(flows, eng):
    out = sys.stdout
    for f in flows:
        out.write("%d %s\n" % (f.sport, f.name or "-"))
    out.flush()
    if eng.why:
        sys.stderr.write("rs_client: %d failed: %s\n" % (
            sum(eng.why.values()),
            " ".join("%s=%d" % kv for kv in sorted(eng.why.items()))))
        eng.why.clear()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--udp", action="store_true")
    p.add_argument("--hold", action="store_true")
    p.add_argument("--timeout", type=float, default=5.0)
    p.add_argument("--window", type=int, default=64)
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("dport", type=int)
    p.add_argument("sports")
    args = p.parse_args()

    flows = [Flow(s) for s in parse_ports(args.sports)]
    eng = Engine(args)
    eng.run(flows, eng.open_flow)
    report(flows, eng)
    if not args.hold:
        return
    print(".", flush=True)
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "ping":
            alive = [f for f in flows if f.sock is not None]
            for f in alive:
                f.name = None
            eng.run(alive, eng.request)
            report(alive, eng)
            print(".", flush=True)
        elif cmd == "quit":
            break
        elif cmd == "close":
            close_gracefully([f for f in flows if f.sock is not None])
            return
    for f in flows:
        if f.sock is not None:
            f.sock.close()


def close_gracefully(flows, timeout=10.0):
    """FIN each flow, wait for the server's FIN, then close with lingering
    back to normal, so that the kernel sends no RST."""
    sel = selectors.DefaultSelector()
    for f in flows:
        try:
            f.sock.shutdown(socket.SHUT_WR)
            sel.register(f.sock, selectors.EVENT_READ, f)
        except OSError:
            pass
    deadline = time.monotonic() + timeout
    while sel.get_map() and time.monotonic() < deadline:
        for key, _ in sel.select(max(0.0, deadline - time.monotonic())):
            try:
                data = key.fileobj.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                sel.unregister(key.fileobj)
    for f in flows:
        f.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                          b"\x00\x00\x00\x00\x00\x00\x00\x00")
        f.sock.close()
    if sel.get_map():
        sys.exit("close: %d flows got no FIN from the server" % len(sel.get_map()))


if __name__ == "__main__":
    main()
