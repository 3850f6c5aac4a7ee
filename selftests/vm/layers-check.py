#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""layers-check.py OBJECT...: ringctl's files depend on each other as
doc/design.md ("ringctl's files") says (make layers-check, run by make check).

userspace/ holds one file per command, its wings (userspace/health/, import/,
fleet/, simulate/) a family of files each, userspace/lib/ the layers they
all share. Two graphs of files are checked: #include "..." between the
sources and headers of userspace/ (resolved as the compiler does: the
including file's directory, then kmod/uapi/, kmod/, userspace/lib/), and
calls between the objects given (a symbol one object uses and another
defines, read with nm). It fails when
  - a file of userspace/lib/ includes or calls a command or a wing;
  - a wing includes or calls another wing's files, but for health's of
    fleet (the checker votes in the fleet's etcd) and import's of health
    (a health-check file it prints is read back through the checker's own
    parser before it is printed);
  - a command of userspace/ includes a wing's file, or calls one other
    than from the table of commands (ringctl_cmds.c);
  - a file of userspace/ includes kernel code other than the ring
    (kmod/ring*), slot placement's table (kmod/slots.*), the owner
    chain's header and hops (kmod/chain_hdr.*, kmod/chain_hops.*) and the
    API (kmod/uapi/), or calls other kernel objects;
  - two files depend on each other in a loop, in either graph.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
INCLUDE_PATH = ["kmod/uapi", "kmod", "userspace/lib"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


WINGS = ("health", "fleet", "simulate", "import")
# Which wing may depend on which: health's checker votes through fleet's;
# import reads the health-check files it prints back through health's parser.
WING_USES = {("health", "fleet"), ("import", "health")}
# The one command file that reaches into the wings: the table of commands.
TABLE = "userspace/ringctl_cmds.c"


def wing(path):
    """The wing of a file of userspace/WING/, else None."""
    parts = path.split("/")
    return parts[1] if len(parts) == 3 and parts[0] == "userspace" and parts[1] in WINGS else None


def kind(path):
    """'lib', 'cmd', 'wing', 'ring' (kernel code ringctl may use) or 'kernel'."""
    if path.startswith("userspace/lib/"):
        return "lib"
    if wing(path):
        return "wing"
    if path.startswith("userspace/"):
        return "cmd"
    name = os.path.basename(path)
    if path.startswith("kmod/uapi/") or name.startswith(("ring", "slots.", "chain_hdr.",
                                                         "chain_hops.")):
        return "ring"
    return "kernel"


def resolve(src, name):
    for d in [os.path.dirname(src)] + INCLUDE_PATH:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(ROOT, p)):
            return p
    return None


def include_graph(errors):
    files = []
    for d in ("userspace", "userspace/lib", "userspace/lib/generated") + tuple("userspace/" + w for w in WINGS):
        files += sorted(os.path.join(d, f) for f in os.listdir(os.path.join(ROOT, d))
                        if f.endswith((".c", ".h")))
    graph = {}
    todo = list(files)
    while todo:
        f = todo.pop()
        if f in graph:
            continue
        graph[f] = set()
        if kind(f) == "ring" and not f.startswith("kmod/uapi/"):
            # The ring's own headers are the kernel's business.
            continue
        with open(os.path.join(ROOT, f)) as fh:
            for name in INCLUDE.findall(fh.read()):
                to = resolve(f, name)
                if to is None:
                    cmd = any(os.path.isfile(os.path.join(ROOT, "userspace", d, name))
                              for d in ("",) + WINGS)
                    errors.append('%s: #include "%s" not found%s' % (
                        f, name, " (a command's header: no layer may include it)" if cmd else ""))
                    continue
                graph[f].add(to)
                todo.append(to)
    return graph


def call_graph(objs, errors):
    defs, uses = {}, {}
    for o in objs:
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        uses[o] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == "U":
                uses[o].add(f[1])
            elif len(f) == 3 and f[1] in "TDBRCVW":
                if f[2] in defs and defs[f[2]] != o:
                    errors.append("%s defined in %s and %s" % (f[2], defs[f[2]], o))
                defs[f[2]] = o
    graph = {o: {defs[s] for s in uses[o] if s in defs and defs[s] != o} for o in objs}
    return graph


def source_of(obj):
    """build/user/lib/cli.o -> userspace/lib/cli.c, build/user/kmod/ring.o -> kmod/ring.c"""
    rel = obj.split("/user/", 1)[1][:-2] + ".c"
    return rel if rel.startswith("kmod/") else "userspace/" + rel


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check(graph, what, errors):
    for a in sorted(graph):
        for b in sorted(graph[a]):
            ka, kb = kind(a), kind(b)
            if ka == "lib" and kb in ("cmd", "wing"):
                errors.append("%s %s %s: a layer depends on a command" % (a, what, b))
            wa, wb = wing(a), wing(b)
            if wa and wb and wa != wb and (wa, wb) not in WING_USES:
                errors.append("%s %s %s: the %s wing depends on the %s wing"
                              % (a, what, b, wa, wb))
            if ka == "cmd" and wb and (what == "includes" or a != TABLE):
                errors.append("%s %s %s: a command reaches into the %s wing (only %s "
                              "calls a wing, through its table)" % (a, what, b, wb, TABLE))
            if ka in ("lib", "cmd", "wing") and kb == "kernel":
                errors.append("%s %s %s: kernel code beyond the ring and the API" % (a, what, b))
    for comp in cycles(graph):
        errors.append("a loop of files that %s each other: %s"
                      % ("include" if what == "includes" else "call", " ".join(comp)))


def main():
    objs = sys.argv[1:]
    if not objs:
        sys.exit("usage: layers-check.py OBJECT... (ringctl's objects, make layers-check)")
    errors = []
    inc = include_graph(errors)
    check(inc, "includes", errors)
    calls = call_graph(objs, errors)
    check({source_of(a): {source_of(b) for b in bs} for a, bs in calls.items()}, "calls", errors)
    for e in errors:
        print("layers-check: " + e, file=sys.stderr)
    if errors:
        sys.exit(1)
    n_cmd = sum(1 for f in inc if kind(f) == "cmd")
    n_wing = sum(1 for f in inc if kind(f) == "wing")
    n_lib = sum(1 for f in inc if kind(f) == "lib")
    print("userspace layering: %d command files, %d wing files and %d layer files, %d objects; "
          "no layer includes or calls a command, no wing another but health fleet, "
          "no kernel code but the ring, the slots, the chain and the API, no loops"
          % (n_cmd, n_wing, n_lib, len(objs)))


if __name__ == "__main__":
    main()
