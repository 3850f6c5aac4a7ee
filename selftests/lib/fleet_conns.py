#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fleet_conns.py: long-lived flows through a load-balancer fleet.

  fleet_conns.py serve NAME PORT READYFILE ADDR...
      A backend: TCP and UDP on ADDR:PORT for each ADDR (the VIP, and for
      NAT the backend's own address). Every line "SEQ" read on a TCP
      connection and every UDP datagram "SEQ" is answered with "NAME SEQ",
      so the client learns which backend each message reached. Touches
      READYFILE once every socket is bound.

  fleet_conns.py run [--interval S] [--udp N] [--connect-timeout S]
                     READYFILE REPORT DST PORT SRC...
      One TCP connection per SRC address (and N UDP flows, from the first
      N addresses) to DST:PORT, each sending a sequence-numbered message
      every S seconds (default 0.1) and reading the answers. READYFILE is
      written once every flow has had its first answer, one "PROTO
      SRC:SPORT" a line; stalls count from then on. On SIGTERM (or
      SIGINT) the flows stop and REPORT gets one line per flow:
        tcp|udp SRC:SPORT reset=0|1 stall=SECONDS moved=0|1 sent=N got=N
                backends=NAME[,NAME...] why=TEXT at=WHEN
      stall is the longest time the flow went without an answer (from its
      first message; the last gap counts up to the end if a message was
      outstanding then); moved is 1 when an answer came from another
      backend than the first; WHEN is the wall clock time (seconds since
      the epoch) the longest stall began. A TCP flow that is reset, refused or closed
      stops there (reset=1); it is not reopened. Every 0.5 s REPORT.progress
      gets "LAST RESETS": the oldest of the live flows' last answers (wall
      clock, seconds since the epoch) and the number of flows reset.

  fleet_conns.py routes MONITOR T0 PREFIX DEV
      Reads the output of "ip -ts monitor route" (MONITOR) and prints the
      seconds from T0 (seconds since the epoch) to the first change of
      PREFIX after T0 whose next hops leave out DEV ("-" if none), and the
      seconds to the first one after that which has DEV again ("-" if none).

  fleet_conns.py lost MONITOR T0 PREFIX DEV...
      Prints those of DEV... that some change of PREFIX after T0 left out
      (a deletion leaves out all), on one line, or "-".

Connections are non-blocking in one process (selectors); nothing here
waits on a fixed time but the send interval.
"""

import datetime
import errno
import os
import selectors
import signal
import socket
import sys
import time


def serve(name, port, ready, addrs):
    sel = selectors.DefaultSelector()
    for addr in addrs:
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        lst = socket.socket(fam, socket.SOCK_STREAM)
        lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lst.bind((addr, port))
        lst.listen(1024)
        lst.setblocking(False)
        sel.register(lst, selectors.EVENT_READ, ("listen", None))
        udp = socket.socket(fam, socket.SOCK_DGRAM)
        udp.bind((addr, port))
        udp.setblocking(False)
        sel.register(udp, selectors.EVENT_READ, ("udp", None))
    with open(ready, "w") as f:
        f.write("%d\n" % os.getpid())
    prefix = name.encode() + b" "
    while True:
        for key, _ in sel.select():
            sock = key.fileobj
            kind, buf = key.data
            if kind == "listen":
                try:
                    conn, _ = sock.accept()
                except OSError:
                    continue
                conn.setblocking(False)
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sel.register(conn, selectors.EVENT_READ, ("conn", bytearray()))
            elif kind == "udp":
                while True:
                    try:
                        data, peer = sock.recvfrom(2048)
                    except OSError:
                        break
                    try:
                        sock.sendto(prefix + data.strip() + b"\n", peer)
                    except OSError:
                        pass
            else:
                try:
                    data = sock.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(sock)
                    sock.close()
                    continue
                buf += data
                out = b""
                while b"\n" in buf:
                    line, _, rest = bytes(buf).partition(b"\n")
                    buf[:] = rest
                    out += prefix + line + b"\n"
                try:
                    sock.sendall(out)
                except OSError:
                    sel.unregister(sock)
                    sock.close()


class Flow:
    def __init__(self, proto, src, sock, due):
        self.proto = proto
        self.src = src
        self.sock = sock
        self.due = due
        self.seq = 0
        self.sent = {}          # seq -> time sent, not answered yet
        self.got = 0
        self.backends = []
        self.stall = 0.0
        self.stall_at = 0.0     # monotonic time the longest stall began
        self.last = None        # monotonic time of the last answer
        self.reset = False
        self.why = ""
        self.buf = b""
        self.connected = proto == "udp"

    def name(self):
        try:
            a = self.sock.getsockname()
            return "%s:%d" % (a[0], a[1])
        except OSError:
            return self.src + ":?"

    def answer(self, line, now):
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            return
        if self.sent.pop(int(parts[1]), None) is None:
            return
        if now - self.last > self.stall:
            self.stall = now - self.last
            self.stall_at = self.last
        self.last = now
        self.got += 1
        if not self.backends or self.backends[-1] != parts[0]:
            self.backends.append(parts[0])

    def close(self, why):
        if not self.reset:
            self.reset = True
            self.why = why
            self.name_at_close = self.name()
            try:
                self.sock.close()
            except OSError:
                pass


def run(args):
    interval = 0.1
    nudp = 0
    ctimeout = 60.0
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--interval":
            interval = float(args.pop(0))
        elif opt == "--udp":
            nudp = int(args.pop(0))
        elif opt == "--connect-timeout":
            ctimeout = float(args.pop(0))
        else:
            sys.exit("fleet_conns.py run: unknown option " + opt)
    ready, report, dst, port, srcs = args[0], args[1], args[2], int(args[3]), args[4:]
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    sel = selectors.DefaultSelector()
    flows = []
    start = time.monotonic()
    for i, src in enumerate(srcs):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.bind((src, 0))
        s.setblocking(False)
        err = s.connect_ex((dst, port))
        if err not in (0, errno.EINPROGRESS):
            sys.exit("connect from %s: %s" % (src, os.strerror(err)))
        # Spread the sends over the interval, not all at once.
        f = Flow("tcp", src, s, start + interval * i / len(srcs))
        flows.append(f)
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, f)
    for i, src in enumerate(srcs[:nudp]):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.bind((src, 0))
        s.connect((dst, port))
        s.setblocking(False)
        f = Flow("udp", src, s, start + interval * (i + 0.5) / max(nudp, 1))
        flows.append(f)
        sel.register(s, selectors.EVENT_READ, f)

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    announced = False
    progress = 0.0
    while not stop:
        now = time.monotonic()
        if now - progress >= 0.5:
            progress = now
            live = [f.last for f in flows if not f.reset and f.last is not None]
            last = time.time() - (now - min(live)) if live else 0.0
            with open(report + ".progress.tmp", "w") as fh:
                fh.write("%.3f %d\n" % (last, sum(f.reset for f in flows)))
            os.rename(report + ".progress.tmp", report + ".progress")
        if not announced:
            if all(f.got > 0 for f in flows):
                # Stalls count from here: not the handshakes and the
                # first answers of a hundred new connections at once.
                for f in flows:
                    f.stall = 0.0
                with open(ready + ".tmp", "w") as fh:
                    for f in flows:
                        fh.write("%s %s\n" % (f.proto, f.name()))
                os.rename(ready + ".tmp", ready)
                announced = True
            elif any(f.reset for f in flows):
                bad = [f.src for f in flows if f.reset]
                sys.exit("%d flows reset before their first answer (from %s): %s" %
                         (len(bad), " ".join(bad[:10]), [f.why for f in flows if f.reset][0]))
            elif now - start > ctimeout:
                bad = [f.src for f in flows if f.got == 0]
                sys.exit("%d flows had no answer after %.0f s (from %s)" %
                         (len(bad), ctimeout, " ".join(bad[:10])))
        for f in flows:
            if f.reset or not f.connected or f.due > now:
                continue
            while f.due <= now:
                f.due += interval
            msg = b"%d\n" % f.seq
            if f.last is None:
                f.last = now
            try:
                f.sock.send(msg)
                f.sent[f.seq] = now
            except (BlockingIOError, InterruptedError):
                pass
            except ConnectionRefusedError:
                if f.proto == "tcp":
                    f.close("refused")
            except OSError as e:
                if f.proto == "tcp":
                    f.close(e.strerror or str(e))
            f.seq += 1
        timeout = max(0.0, min([f.due for f in flows if not f.reset] + [now + interval]) - time.monotonic())
        for key, ev in sel.select(timeout):
            f = key.data
            if f.reset:
                continue
            now = time.monotonic()
            if not f.connected:
                err = f.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    sel.unregister(f.sock)
                    f.close(os.strerror(err))
                    continue
                if ev & selectors.EVENT_WRITE:
                    f.connected = True
                    sel.modify(f.sock, selectors.EVENT_READ, f)
                    continue
            try:
                data = f.sock.recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError as e:
                if f.proto == "tcp":
                    sel.unregister(f.sock)
                    f.close(e.strerror or str(e))
                continue
            if f.proto == "udp":
                f.answer(data.decode(errors="replace").strip(), now)
                continue
            if not data:
                sel.unregister(f.sock)
                f.close("closed by peer")
                continue
            f.buf += data
            while b"\n" in f.buf:
                line, _, f.buf = f.buf.partition(b"\n")
                f.answer(line.decode(errors="replace"), now)

    end = time.monotonic()
    wall = time.time() - end
    with open(report + ".tmp", "w") as out:
        for f in flows:
            stall, at = f.stall, f.stall_at
            if f.sent and f.last is not None and not f.reset and end - f.last > stall:
                stall, at = end - f.last, f.last
            name = getattr(f, "name_at_close", None) or f.name()
            out.write("%s %s reset=%d stall=%.3f moved=%d sent=%d got=%d backends=%s why=%s at=%.3f\n" % (
                f.proto, name, f.reset, stall, len(f.backends) > 1, f.seq, f.got,
                ",".join(f.backends) or "-", f.why.replace(" ", "_") or "-", at + wall))
    os.rename(report + ".tmp", report)


def routes(monitor, t0, prefix, dev):
    """When the VIP's route lost DEV after T0, and when it had it again."""
    gone = back = None
    for when, words, deleted in messages(monitor):
        if when < t0 or not words or words[0] not in (prefix, prefix.split("/")[0]):
            continue
        has = dev in words and not deleted
        if gone is None and not has:
            gone = when
        elif gone is not None and back is None and has:
            back = when
    fmt = lambda t: "-" if t is None else "%.3f" % (t - t0)
    print(fmt(gone), fmt(back))


def messages(monitor):
    """(time, words, deleted) of each message of ip -ts monitor route."""
    msgs = []
    with open(monitor, errors="replace") as f:
        for line in f:
            if line.startswith("["):
                stamp, _, rest = line[1:].partition("]")
                try:
                    when = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%f").timestamp()
                except ValueError:
                    continue
                msgs.append([when, rest])
            elif msgs:
                msgs[-1][1] += line
    for when, text in msgs:
        words = text.split()
        deleted = bool(words) and words[0] == "Deleted"
        yield when, words[1:] if deleted else words, deleted


def lost(monitor, t0, prefix, devs):
    gone = set()
    for when, words, deleted in messages(monitor):
        if when < t0 or not words or words[0] not in (prefix, prefix.split("/")[0]):
            continue
        gone.update(d for d in devs if deleted or d not in words)
    print(" ".join(d for d in devs if d in gone) or "-")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "serve" and len(args) >= 4:
        serve(args[0], int(args[1]), args[2], args[3:])
    elif cmd == "run" and len(args) >= 5:
        run(args)
    elif cmd == "lost" and len(args) >= 4:
        lost(args[0], float(args[1]), args[2], args[3:])
    elif cmd == "routes" and len(args) == 4:
        routes(args[0], float(args[1]), args[2], args[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
