#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""spec_check.py: the test tools read the API from the spec; check that what
they read is what the kernel is built with (the uapi header generated from
the same spec): every command and attribute number of rsnl.py, and the
commands of the fuzzer's generated table. Exits 1 on any difference."""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
import rsnl  # noqa: E402


def c_enums(path):
    """{ENUM_NAME: value} of the plain enums in a uapi header."""
    vals = {}
    for body in re.findall(r"enum \w+ \{(.*?)\};", open(path).read(), re.S):
        n = -1
        for line in body.splitlines():
            m = re.match(r"\s*(\w+)(?:\s*=\s*(\d+))?,", line)
            if m:
                n = int(m.group(2)) if m.group(2) else n + 1
                vals[m.group(1)] = n
    return vals


def requests():
    """The commands a request may name (a notification's, walked, none)."""
    import yaml

    with open(rsnl.SPEC) as f:
        ops = yaml.safe_load(f)["operations"]["list"]
    return {op["name"].replace("-", "_").upper() for op in ops
            if "do" in op or "dump" in op}


def main():
    hdr = c_enums(os.path.join(ROOT, "kmod", "uapi", "ringsteer_genl.h"))
    bad = []

    def want(name, value):
        if hdr.get(name) != value:
            bad.append("%s: header %s, test tools %s" % (name, hdr.get(name), value))

    for i, cmd in enumerate(rsnl.CMDS[1:], start=1):
        want("RINGSTEER_CMD_" + cmd, i)
    for name, num in rsnl.TOP.items():
        want("RINGSTEER_A_" + name.replace("-", "_").upper(), num)
    for nest, table in rsnl.NESTS.items():
        for name, num in table.items():
            want("RINGSTEER_%s_A_%s" % (nest.upper(), name.replace("-", "_").upper()), num)
    if len(sys.argv) > 1:
        cmds = set(re.findall(r"\[RINGSTEER_CMD_(\w+)\] = \{", open(sys.argv[1]).read()))
        missing = requests() - cmds
        if missing:
            bad.append("fuzzer table lacks " + " ".join(sorted(missing)))
    for b in bad:
        print("spec_check: " + b, file=sys.stderr)
    if bad:
        sys.exit(1)
    print("test tools agree with the uapi header: %d commands, %d attributes"
          % (len(rsnl.CMDS) - 1, len(rsnl.TOP) + sum(len(t) for t in rsnl.NESTS.values())))


if __name__ == "__main__":
    main()
