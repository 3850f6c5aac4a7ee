#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""enum-gen.py SPEC OUTDIR: ringctl's words for the spec's enums (make gen).

The entry names of each enum of kmod/uapi/ringsteer.yaml are the words
ringctl reads and prints (hash flow|source, state active|draining, ...),
so they are written from the spec, beside the uapi header that ynl-gen-c
writes from it: OUTDIR/userspace/lib/generated/enums-gen.h and enums-gen.c, one
table per enum, rc_enum_NAME, whose values are the uapi's constants.
"""

import os
import sys

import yaml

HEAD = "/* SPDX-License-Identifier: GPL-2.0 */\n"
SRC_HEAD = "// SPDX-License-Identifier: GPL-2.0\n"
NOTE = """/*
 * Do not edit: written by tools/ynl/enum-gen.py from
 * kmod/uapi/ringsteer.yaml ("make gen"; "make gen-check" compares).
 */
"""


def c_name(s):
    return s.replace("-", "_")


def const(e, entry):
    return (e["name-prefix"] + entry["name"]).upper().replace("-", "_")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: enum-gen.py SPEC OUTDIR")
    with open(sys.argv[1]) as f:
        spec = yaml.safe_load(f)
    enums = [d for d in spec["definitions"] if d["type"] == "enum"]
    out = os.path.join(sys.argv[2], "userspace", "lib", "generated")
    os.makedirs(out, exist_ok=True)

    h = [HEAD, NOTE, "#ifndef RINGCTL_ENUMS_GEN_H\n#define RINGCTL_ENUMS_GEN_H\n\n",
         "#include \"enums.h\"\n\n"]
    for e in enums:
        h.append("extern const struct rc_enum rc_enum_%s;\n" % c_name(e["name"]))
    h.append("\n#endif /* RINGCTL_ENUMS_GEN_H */\n")

    c = [SRC_HEAD, NOTE, "\n#include \"uapi/ringsteer.h\"\n#include \"enums-gen.h\"\n"]
    for e in enums:
        n = c_name(e["name"])
        c.append("\nstatic const struct rc_enum_entry %s_entries[] = {\n" % n)
        for entry in e["entries"]:
            c.append("\t{ \"%s\", %s },\n" % (entry["name"], const(e, entry)))
        c.append("};\n\nconst struct rc_enum rc_enum_%s = {\n" % n)
        c.append("\t.name = \"%s\",\n" % e["name"])
        c.append("\t.e = %s_entries,\n" % n)
        c.append("\t.n = sizeof(%s_entries) / sizeof(%s_entries[0]),\n};\n" % (n, n))

    with open(os.path.join(out, "enums-gen.h"), "w") as f:
        f.write("".join(h))
    with open(os.path.join(out, "enums-gen.c"), "w") as f:
        f.write("".join(c))


if __name__ == "__main__":
    main()
