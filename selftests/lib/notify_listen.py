#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""notify_listen.py SOCKET LOG

A stand-in for the service manager's notification socket, where the VM
has no systemd: binds an AF_UNIX datagram socket at SOCKET (a path, or
@NAME for an abstract name) and appends each datagram received to LOG,
its lines as they came, flushed at once, so that a scenario can wait for
READY=1 and count WATCHDOG=1.
"""

import socket
import sys


def main():
    path, log = sys.argv[1], sys.argv[2]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + path[1:] if path.startswith("@") else path)
    with open(log, "a") as out:
        out.write("LISTENING\n")
        out.flush()
        while True:
            data = sock.recv(4096)
            out.write(data.decode(errors="replace").rstrip("\n") + "\n")
            out.flush()


if __name__ == "__main__":
    main()
