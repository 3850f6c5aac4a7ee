#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udp_count.py ADDR PORT FILE

Counts the UDP datagrams that arrive at ADDR:PORT, never answering (an
answer would make a one-way flow a replied one for conntrack), and keeps
the count in FILE, rewritten on every datagram. FILE holds 0 once bound.
"""

import os
import socket
import sys


def main():
    addr, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((addr, port))
    n = 0
    with open(path, "w") as f:
        f.write("0\n")
    while True:
        s.recv(2048)
        n += 1
        try:
            with open(path + ".tmp", "w") as f:
                f.write("%d\n" % n)
            os.replace(path + ".tmp", path)
        except FileNotFoundError:
            return      # the caller removed its work directory: done


if __name__ == "__main__":
    main()
