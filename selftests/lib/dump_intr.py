#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""dump_intr.py SERVICE AHEAD|REPLACE|DELETE

Reads a BACKEND_GET dump of SERVICE (ADDR:PORT/PROTO) one part at a time
and changes the service between two parts, from a second socket, as
another process would. Then reads the rest and prints

  got N intr 0|1 done ERR

(N backend messages, whether any message of the dump carried
NLM_F_DUMP_INTR, the error NLMSG_DONE ended with). The change:

  AHEAD    delete one backend that the dump has not reached yet;
  REPLACE  delete the service and create it again with 5 backends
           (10.4.0.1-5:80), fewer than the dump has already returned, so
           the rest of the dump has nothing left to send;
  DELETE   delete the service: the rest of the dump has no service to
           send from, which is no error of the request's (it named a
           service that existed), so the dump must end, flagged.

Either way what the reader got is no state the service was ever in, so
the kernel must flag the dump as interrupted.
"""

import socket
import struct
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import rsnl  # noqa: E402

NLM_F_DUMP_INTR = 0x10


def parts(g, svc):
    """Sends the dump request; yields the messages of each recv()."""
    g.seq += 1
    where = {}
    payload = rsnl.build(["svc=" + svc]).pack(20, where)
    msg = struct.pack("=LHHLL", 20 + len(payload), g.family,
                      rsnl.NLM_F_REQUEST | rsnl.NLM_F_DUMP, g.seq, 0)
    msg += struct.pack("BBH", rsnl.CMDS.index("BACKEND_GET"), 1, 0) + payload
    g.sock.send(msg)
    while True:
        data = g.sock.recv(1 << 16)
        msgs = []
        off = 0
        while off + 16 <= len(data):
            ln, typ, fl, seq, _ = struct.unpack_from("=LHHLL", data, off)
            msgs.append((typ, fl, data[off + 16:off + ln]))
            off += (ln + 3) & ~3
        yield msgs


def change(how, svc):
    g = rsnl.Genl()
    g.resolve()
    if how == "AHEAD":
        # The backends are 10.3.I/250.1+I%250:80 in identity order; the
        # last one is far ahead of the first parts.
        cmds = [["BACKEND_DEL", "svc=" + svc, "be=10.3.7.200:80"]]
    elif how == "DELETE":
        cmds = [["SERVICE_DEL", "svc=" + svc]]
    else:
        cmds = [["SERVICE_DEL", "svc=" + svc],
                ["SERVICE_NEW", "svc=" + svc, "service.vnodes=u32:1"]]
        cmds += [["BACKEND_NEW", "svc=" + svc, "be=10.4.0.%d:80" % i]
                 for i in range(1, 6)]
    for c in cmds:
        res = g.run(c)
        if res != "OK":
            sys.exit("dump_intr: %s: %s" % (" ".join(c), res))


def main():
    svc, how = sys.argv[1], sys.argv[2]
    g = rsnl.Genl()
    g.resolve()
    g.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    got, intr, done, n = 0, 0, None, 0
    for msgs in parts(g, svc):
        n += 1
        for typ, fl, body in msgs:
            if fl & NLM_F_DUMP_INTR:
                intr = 1
            if typ == rsnl.NLMSG_DONE:
                done = struct.unpack_from("=i", body)[0] if len(body) >= 4 else 0
            elif typ == rsnl.NLMSG_ERROR:
                done = struct.unpack_from("=i", body)[0]
            else:
                got += 1
        if done is not None:
            break
        if n == 1:
            change(how, svc)
    print("got %d intr %d done %d parts %d" % (got, intr, done, n))


if __name__ == "__main__":
    main()
