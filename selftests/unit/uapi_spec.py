#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that kmod/uapi/ringsteer.yaml (YNL spec) and kmod/uapi/ringsteer.h agree.

Every command, attribute set, attribute, enum and constant of the YAML must
exist in the header under the name YNL would generate, with the same value,
in the same order, with nothing extra in the header; attribute types must
match the header's prose tree ("RINGSTEER_X_A_Y: NLA_TYPE"); ops flagged
uns-admin-perm must be exactly those the kernel registers with an admin
flag (kmod/netlink.c, when it has ops).

Usage: uapi_spec.py [--yaml FILE] [--header FILE] [--netlink FILE] [CHECK...]
CHECKs: consts enums attrs ops types refs mcgrps admin (default: all).
Exit 0 if all pass, 1 on a mismatch, 3 if a file cannot be read or
parsed, 4 (skip) if PyYAML is missing.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def c_name(name):
    return name.replace("-", "_").upper()


def parse_header(text):
    """Enums as {enum name: [(CONST, value), ...]} and #defines as {NAME: value}."""
    body = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    defines = {}
    for m in re.finditer(r"^#define\s+(\w+)\s+(.+?)\s*$", body, flags=re.M):
        defines[m.group(1)] = m.group(2)
    enums = {}
    for m in re.finditer(r"enum\s+(\w+)\s*\{(.*?)\};", body, flags=re.S):
        entries, value = [], -1
        for item in m.group(2).split(","):
            item = item.strip()
            if not item:
                continue
            if "=" in item:
                name, expr = (x.strip() for x in item.split("=", 1))
                value = eval_c(expr, dict(entries))
            else:
                name = item
                value += 1
            entries.append((name, value))
        enums[m.group(1)] = entries
    return enums, defines


def eval_c(expr, names):
    expr = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", expr)
    for n, v in names.items():
        expr = re.sub(r"\b%s\b" % n, str(v), expr)
    if not re.fullmatch(r"[\d\s()+\-*<>|]+", expr):
        raise ValueError("cannot evaluate %r" % expr)
    return eval(expr)


class Checker:
    def __init__(self, spec, header, netlink_src):
        self.spec = spec
        self.enums, self.defines = parse_header(header)
        self.header = header
        self.netlink_src = netlink_src
        self.failures = 0
        self.checks = 0

    def expect(self, cond, what):
        self.checks += 1
        if not cond:
            self.failures += 1
            print("# MISMATCH: " + what)

    def enum(self, name):
        self.expect(name in self.enums, "header has no enum %s" % name)
        return self.enums.get(name, [])

    def define_value(self, name):
        if name not in self.defines:
            return None
        known = {k: eval_c(v, {}) for k, v in self.defines.items()
                 if re.fullmatch(r"[\d\s()+\-*<>|uUlL]+", v)}
        return known.get(name)

    # Constants: "key-len" is RINGSTEER_KEY_LEN, same value.
    def check_consts(self):
        for d in self.spec.get("definitions", []):
            if d["type"] != "const":
                continue
            cname = c_name("%s-%s" % (self.spec["name"], d["name"]))
            self.expect(self.define_value(cname) == d["value"],
                        "const %s: yaml %s, header %s" %
                        (cname, d["value"], self.defines.get(cname)))
        for key in ("c-family-name", "c-version-name"):
            if key in self.spec:
                self.expect(c_name(self.spec[key]) in self.defines,
                            "%s %s not #defined" % (key, self.spec[key]))

    # Enums and flags: same entries, same values, same order, nothing extra.
    def check_enums(self):
        for d in self.spec.get("definitions", []):
            if d["type"] not in ("enum", "flags"):
                continue
            prefix = d.get("name-prefix", "%s-%s-" % (self.spec["name"], d["name"]))
            entries = self.enum(d.get("enum-name") or "")
            start = d.get("value-start", 0)
            want = []
            for i, e in enumerate(d["entries"]):
                name = e if isinstance(e, str) else e["name"]
                value = start + i if d["type"] == "enum" else 1 << (start + i)
                want.append((c_name(prefix + name), value))
            got = [(n, v) for n, v in entries if not n.startswith("__")]
            self.expect(got == want, "enum %s: yaml %s, header %s" %
                        (d.get("enum-name"), want, got))

    # Attribute sets: values from 1 in list order; UNSPEC at 0; count name.
    def check_attrs(self):
        for s in self.spec["attribute-sets"]:
            prefix = s.get("name-prefix", "%s-%s-a-" % (self.spec["name"], s["name"]))
            entries = self.enum(s.get("enum-name", ""))
            want = [(c_name(prefix + "unspec"), 0)]
            want += [(c_name(prefix + a["name"]), a.get("value", i + 1))
                     for i, a in enumerate(s["attributes"])]
            if "attr-cnt-name" in s:
                want.append((c_name(s["attr-cnt-name"]), len(s["attributes"]) + 1))
            self.expect(entries == want, "attribute set %s: yaml %s, header %s" %
                        (s["name"], want, entries))
            if "attr-max-name" in s:
                mx = c_name(s["attr-max-name"])
                self.expect(mx in self.defines, "%s not #defined" % mx)

    # Commands: values from 1 in list order; UNSPEC at 0; count name.
    def check_ops(self):
        ops = self.spec["operations"]
        prefix = ops.get("name-prefix", "%s-cmd-" % self.spec["name"])
        entries = self.enum(ops.get("enum-name", ""))
        want = [(c_name(prefix + "unspec"), 0)]
        want += [(c_name(prefix + o["name"]), o.get("value", i + 1))
                 for i, o in enumerate(ops["list"])]
        if "cmd-cnt-name" in self.spec:
            want.append((c_name(self.spec["cmd-cnt-name"]), len(ops["list"]) + 1))
        self.expect(entries == want, "commands: yaml %s, header %s" % (want, entries))
        if "cmd-max-name" in self.spec:
            self.expect(c_name(self.spec["cmd-max-name"]) in self.defines,
                        "cmd-max-name not #defined")
        for o in ops["list"]:
            self.expect(bool(o.get("doc")), "op %s has no doc" % o["name"])

    # Types: the header's prose tree says "RINGSTEER_SERVICE_A_PORT: NLA_BE16".
    def check_types(self):
        prose = {}
        for m in re.finditer(r"(RINGSTEER_\w*A_\w+):\s*(NLA_\w+)", self.header):
            prose.setdefault(m.group(1), m.group(2))
        nla = {"u8": "NLA_U8", "u16": "NLA_U16", "u32": "NLA_U32",
               "u64": "NLA_U64", "binary": "NLA_BINARY", "nest": "NLA_NESTED"}
        seen = 0
        for s in self.spec["attribute-sets"]:
            prefix = s.get("name-prefix", "%s-%s-a-" % (self.spec["name"], s["name"]))
            for a in s["attributes"]:
                self.expect(a["type"] == "pad" or bool(a.get("doc")),
                            "attribute %s/%s has no doc" % (s["name"], a["name"]))
                cname = c_name(prefix + a["name"])
                if cname not in prose:
                    continue
                seen += 1
                want = nla.get(a["type"], "?")
                if a["type"] == "u16" and a.get("byte-order") == "big-endian":
                    want = "NLA_BE16"
                self.expect(prose[cname] == want, "%s: yaml %s (%s), header %s" %
                            (cname, a["type"], want, prose[cname]))
        for cname in prose:
            self.expect(any(cname == c_name(s.get("name-prefix", "") + a["name"])
                            for s in self.spec["attribute-sets"] for a in s["attributes"]),
                        "header documents %s, the yaml does not" % cname)
        self.expect(seen >= 20, "only %d attributes typed in the header prose" % seen)

    # References: nests, enums, op attribute lists.
    def check_refs(self):
        sets = {s["name"]: s for s in self.spec["attribute-sets"]}
        defs = {d["name"]: d for d in self.spec.get("definitions", [])}
        for s in sets.values():
            for a in s["attributes"]:
                if a["type"] == "nest":
                    self.expect(a.get("nested-attributes") in sets,
                                "%s/%s nests unknown set" % (s["name"], a["name"]))
                if "enum" in a:
                    self.expect(a["enum"] in defs, "%s/%s: unknown enum %s" %
                                (s["name"], a["name"], a["enum"]))
                for v in a.get("checks", {}).values():
                    if isinstance(v, str):
                        self.expect(v in defs, "%s/%s: unknown const %s" %
                                    (s["name"], a["name"], v))
        for o in self.spec["operations"]["list"]:
            aset = sets.get(o.get("attribute-set"))
            self.expect(aset is not None, "op %s: unknown attribute set" % o["name"])
            if not aset:
                continue
            names = {a["name"] for a in aset["attributes"]}
            for kind in ("do", "dump"):
                for part in ("request", "reply"):
                    for a in o.get(kind, {}).get(part, {}).get("attributes", []):
                        self.expect(a in names, "op %s %s %s: unknown attribute %s" %
                                    (o["name"], kind, part, a))

    # Multicast groups: RINGSTEER_MCGRP_CONFIG "config", and no others.
    def check_mcgrps(self):
        groups = self.spec.get("mcast-groups", {}).get("list", [])
        want = {}
        for g in groups:
            cname = g.get("c-define-name") or "%s-mcgrp-%s" % (self.spec["name"], g["name"])
            want[c_name(cname)] = '"%s"' % g["name"]
        got = {k: v for k, v in self.defines.items() if "_MCGRP_" in k}
        self.expect(got == want, "multicast groups: yaml %s, header %s" % (want, got))

    # Admin: the ops flagged uns-admin-perm are those the module registers so.
    def check_admin(self):
        prefix = self.spec["operations"].get("name-prefix", "%s-cmd-" % self.spec["name"])
        flagged = {c_name(prefix + o["name"]) for o in self.spec["operations"]["list"]
                   if "uns-admin-perm" in o.get("flags", []) or
                   "admin-perm" in o.get("flags", [])}
        # Not kernel code yet, or not in a form this reads: nothing to compare.
        chunks = re.split(r"(?=RS_OP\(|\.cmd\s*=)", self.netlink_src or "")
        kernel = {}
        for c in chunks:
            m = re.match(r"(?:RS_OP\(\s*|\.cmd\s*=\s*)(RINGSTEER_CMD_\w+)", c)
            if m:
                kernel[m.group(1)] = bool(re.search(r"GENL_(UNS_)?ADMIN_PERM", c))
        if not kernel:
            print("# admin: no ops found in netlink.c, not compared")
            return
        for cmd, admin in sorted(kernel.items()):
            self.expect(admin == (cmd in flagged), "%s: kernel admin %s, yaml %s" %
                        (cmd, admin, cmd in flagged))
        self.expect(len(kernel) == len(self.spec["operations"]["list"]),
                    "netlink.c registers %d ops, the yaml has %d" %
                    (len(kernel), len(self.spec["operations"]["list"])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--yaml", default=os.path.join(ROOT, "kmod/uapi/ringsteer.yaml"))
    ap.add_argument("--header", default=os.path.join(ROOT, "kmod/uapi/ringsteer.h"))
    ap.add_argument("--netlink", default=os.path.join(ROOT, "kmod/netlink.c"))
    ap.add_argument("checks", nargs="*")
    args = ap.parse_args()
    try:
        import yaml
    except ImportError:
        print("# SKIP: python3-yaml is not installed")
        return 4
    with open(args.yaml) as f:
        spec = yaml.safe_load(f)
    with open(args.header) as f:
        header = f.read()
    netlink_src = None
    if os.path.exists(args.netlink):
        with open(args.netlink) as f:
            netlink_src = f.read()
    ck = Checker(spec, header, netlink_src)
    all_checks = ["consts", "enums", "attrs", "ops", "types", "refs", "mcgrps", "admin"]
    for name in args.checks or all_checks:
        if name not in all_checks:
            print("# unknown check %s" % name)
            return 2
        getattr(ck, "check_" + name)()
    print("# %d assertions, %d failed" % (ck.checks, ck.failures))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a broken file is not a mismatch: say so apart
        print("# ERROR: %s: %s" % (type(e).__name__, e))
        sys.exit(3)
