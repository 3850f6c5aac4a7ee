#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Slot placement written from kmod/uapi/ringsteer.h's text alone.

The C code (kmod/slots.c) is checked against this second reading of the
rules: selftests/unit/test_slots.c holds vectors this script prints, so a
change to either that is not made to the text shows up as a failing test.

    slots_ref.py vectors     print the C table of known answers
"""
import sys

M64 = (1 << 64) - 1
GAMMA = 0x9e3779b97f4a7c15
PROBES = 256


def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return z ^ (z >> 31)


def probe(f, i, b):
    return mix((f + (i + 1) * GAMMA) & M64) >> (64 - b)


def owner_slot(f, b, live):
    """The owning slot of flow position f, or None; live is a set."""
    if not live:
        return None
    for i in range(PROBES):
        s = probe(f, i, b)
        if s in live:
            return s
    c = 1 << b
    s = probe(f, 0, b)
    while s not in live:
        s = (s + 1) % c
    return s


POSITIONS = [0, 1, 0x0123456789abcdef, M64, 0x8000000000000000]
BITS = [1, 4, 10, 16]
# Live sets: (bits, slots): full, sparse and one the probes miss (scan).
LIVE = [(4, [3, 9]), (10, list(range(0, 1024, 3))), (16, [40000]),
        (16, [7, 65535])]


def vectors():
    print("static const struct probe_vec probe_vecs[] = {")
    for f in POSITIONS:
        for b in BITS:
            print("\t{ 0x%016xULL, %d, { %s } }," %
                  (f, b, ", ".join(str(probe(f, i, b)) for i in range(4))))
    print("};")
    print("static const struct owner_vec owner_vecs[] = {")
    for n, (b, live) in enumerate(LIVE):
        for f in POSITIONS:
            print("\t{ %d, 0x%016xULL, %d }," %
                  (n, f, owner_slot(f, b, set(live))))
    print("};")


if __name__ == "__main__":
    if sys.argv[1:] != ["vectors"]:
        sys.exit(__doc__)
    vectors()
