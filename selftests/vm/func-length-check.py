#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""func-length-check.py FILE...: no hand-written function over 60 lines
(make style, run by make check).

A function is counted from the first line of its definition to its closing
brace, both included, as it reads in the file: kernel style puts a
function's braces alone in column 0, and nothing else of ours does (an
initializer's brace ends its line). Generated files (a generated/ folder,
or a name ending in -gen.c or -gen.h) are left out: their length is the
generator's. With --selftest, it first checks itself on made-up functions
of 60 and 61 lines.
"""

import os
import re
import sys

LIMIT = 60
NAME = re.compile(r"(\w+)\s*\(")


def generated(path):
    return "/generated/" in "/" + path or re.search(r"-gen\.[ch]$", path)


def functions(text):
    """(name, first line, length) of each function definition in TEXT."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i] != "{":
            i += 1
            continue
        # The definition starts at the nearest line above in column 0.
        start = i - 1
        while start > 0 and lines[start][:1] in (" ", "\t"):
            start -= 1
        end = i + 1
        while end < len(lines) and lines[end] != "}":
            end += 1
        head = " ".join(lines[start:i])
        m = NAME.search(head)
        if m and start >= 0:
            yield m.group(1), start + 1, end - start + 1
        i = end + 1


def check(paths):
    errors = []
    for path in paths:
        if generated(path):
            continue
        with open(path) as f:
            for name, line, n in functions(f.read()):
                if n > LIMIT:
                    errors.append("%s:%d: %s() is %d lines (at most %d)" % (path, line, name, n, LIMIT))
    return errors


def selftest():
    def fn(n):
        return "static int f%d(void)\n{\n%s}\n" % (n, "\tx();\n" * (n - 3))

    got = [(name, n) for name, _, n in functions(fn(LIMIT) + "\n" + fn(LIMIT + 1))]
    if got != [("f60", LIMIT), ("f61", LIMIT + 1)]:
        sys.exit("func-length-check: self-test failed: %r" % got)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--selftest"]:
        selftest()
        args = args[1:]
    if not args:
        sys.exit("usage: func-length-check.py [--selftest] FILE...")
    errors = check(args)
    for e in errors:
        print("func-length-check: " + e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print("function length: %d files, none over %d lines (generated ones left out)"
          % (sum(1 for p in args if not generated(p)), LIMIT))


if __name__ == "__main__":
    main()
