#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rs_json.py < SHOW.json

Flattens `ringctl show -j` into lines that awk and grep can check:

  svc SERVICE FAMILY VNODES HASH CONFIGURED ACTIVE POINTS FLOWS NO_BACKEND
  be SERVICE BACKEND WEIGHT STATE FLOWS SHARE

SERVICE is VIP:PORT/PROTO and BACKEND ADDR:PORT, IPv6 addresses in
brackets, as ringctl lookup prints them. Exits 1 if the JSON does not have
the documented shape, naming what is missing.
"""

import json
import sys


def hostport(addr, port):
    return ("[%s]:%d" if ":" in addr else "%s:%d") % (addr, port)


def main():
    try:
        j = json.load(sys.stdin)
        for s in j["services"]:
            name = "%s/%s" % (hostport(s["vip"], s["port"]), s["proto"])
            print("svc", name, s["family"], s["vnodes"], s["hash"],
                  s["backends_configured"], s["backends_active"],
                  s["points"], s["flows"], s["no_backend"])
            for b in s["backends"]:
                print("be", name, hostport(b["addr"], b["port"]),
                      b["weight"], b["state"], b["flows"],
                      repr(float(b["share"])))
    except (ValueError, KeyError, TypeError) as e:
        sys.stderr.write("rs_json: bad show -j output: %r\n" % (e,))
        sys.exit(1)


if __name__ == "__main__":
    main()
