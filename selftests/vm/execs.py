#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""execs.py TRACE...: the programs a traced command started, for
deps-check.sh to map onto packages. TRACE is the output of
strace -f -e trace=execve,execveat,clone,clone3,fork,vfork.

Prints one line per program and the program that started it:
  ran PATH RUNNER       PATH was executed (RUNNER: the program whose
                        process, or whose child, executed it)
  absent NAME RUNNER    every attempt to execute NAME failed: RUNNER
                        looked for it along PATH and found nothing

A program that looks a name up itself (bash's command search) and finds
nothing never calls execve: that is not in the trace, so deps-check.sh
also reads the commands' output for "command not found".
"""

import os
import re
import sys

CALL = re.compile(r"^(\d+)\s+(execve|execveat|clone3?|v?fork)\((.*?)(?:\) += (.*)| <unfinished \.\.\.>)$")
RESUMED = re.compile(r"^(\d+)\s+<\.\.\. (execve|execveat|clone3?|v?fork) resumed>.*\) += (.*)$")
EXEC_PATH = re.compile(r'^(?:[^,]*, )?"([^"]*)"')


def events(path):
    """(pid, call, first argument, result) in order of completion."""
    pending = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = CALL.match(line)
            if m:
                pid, call, args, res = m.groups()
                if res is None:
                    pending[pid] = (call, args)
                    continue
                yield pid, call, args, res
                continue
            m = RESUMED.match(line)
            if m:
                pid, call, res = m.groups()
                c, args = pending.pop(pid, (call, ""))
                yield pid, c, args, res


def main(paths):
    seen = set()
    for path in paths:
        evs = list(events(path))
        # A child's first execve may be logged before its parent's clone
        # returns: know every parent first.
        parent = {}     # pid -> pid that made it
        for pid, call, args, res in evs:
            child = res.split()[0]
            if call not in ("execve", "execveat") and child.isdigit() and child != "0":
                parent[child] = pid
        prog = {}       # pid -> program it runs now
        tried = {}      # pid -> names it tried and has not found yet
        for pid, call, args, res in evs:
            if call not in ("execve", "execveat"):
                continue
            m = EXEC_PATH.match(args)
            if not m:
                continue
            exe = m.group(1)
            name = os.path.basename(exe)
            p = pid
            while p not in prog and p in parent:
                p = parent[p]
            runner = prog.get(p, "-")
            if res.split()[0] == "0":
                tried.get(pid, {}).pop(name, None)
                key = ("ran", exe, runner)
                if key not in seen:
                    seen.add(key)
                    print(f"ran {exe} {runner}")
                prog[pid] = name
            elif "ENOENT" in res or "EACCES" in res:
                tried.setdefault(pid, {})[name] = runner
        for pid, names in tried.items():
            for name, runner in names.items():
                key = ("absent", name, runner)
                if key not in seen:
                    seen.add(key)
                    print(f"absent {name} {runner}")


if __name__ == "__main__":
    main(sys.argv[1:])
