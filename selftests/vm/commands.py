#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""commands.py FILE...: the programs that shell scripts and Makefile recipes
run, one "NAME FILE:LINE" a line, for deps-check.sh to map onto packages.

A word is a program when it stands where bash looks for a command: first in
a line, after ; | & && || ( $( <( { ! and the compound keywords, after a
wrapper that runs its arguments (timeout, exec, env, ip netns exec NS, ...),
as the string of sh -c / bash -c / trap, or as the first plain word given to
a function of the scanned files that runs "$@" (cli, lb, cmd_ok, ...).
"$VAR" in that place is followed to VAR=word or VAR=${VAR:-word}. Only
plain names are reported; paths ($RINGCTL, build/...) are the project's own.
This is a reader of the project's own scripts, not of all of bash: a
construct it misses is a program it does not see, so deps-check.sh also
lists what it found, for review.
"""

import re
import shlex
import sys

KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
            "esac", "!", "{", "}", "time"}
# wrapper: options that take a value; the wrapper's own positional words
# before the command.
WRAPPERS = {
    "timeout": ({"-k", "-s", "--kill-after", "--signal"}, 1),
    "exec": ({"-a"}, 0),
    "command": (set(), 0),
    "builtin": (set(), 0),
    "nohup": (set(), 0),
    "nice": ({"-n", "--adjustment"}, 0),
    "stdbuf": (set(), 0),
    "setsid": (set(), 0),
    "env": ({"-u", "-C"}, 0),
    "xargs": ({"-n", "-I", "-d", "-P", "-L", "-s", "-a", "-E"}, 0),
    "unshare": ({"--propagation"}, 0),
    # -n, -m, -p take a file only as --net=FILE: no separate value.
    "nsenter": ({"-t", "--target"}, 0),
    "chroot": (set(), 1),
    "sudo": ({"-u"}, 0),
}
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.+-]*$")
ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^]]*\])?\+?=")
VARREF = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$")
DEFAULT = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*:?-([A-Za-z0-9_.+-]+)\}$")
HEREDOC = re.compile(r"<<-?\s*['\"]?([A-Za-z_]+)['\"]?")
FUNCDEF = re.compile(r"^\s*(?:function\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*\(\)")
# Make variables a recipe line may start with, as the shell sees them.
MAKE_VARS = {"Q": "", "MAKE": "make", "CC": "cc", "quiet": "printf"}


class Scanner:
    def __init__(self):
        self.found = []          # (name, where)
        self.values = {}         # VAR -> plain word it was set to
        self.runners = {}        # function that runs "$@" -> its shifts
        self.func = None         # function whose body is being read
        self.shifts = 0          # shifts in it so far
        self.depth = 0

    def report(self, word, where):
        if NAME.match(word):
            self.found.append((word, where))

    def resolve(self, word):
        """The program WORD names in command position, or None."""
        m = VARREF.match(word)
        if m:
            return self.values.get(m.group(1))
        return word if NAME.match(word) else None

    @staticmethod
    def skip_quoted(text, i):
        """Index after the quoted string or escape that starts at I."""
        c = text[i]
        if c == "\\":
            return i + 2
        close = text.find(c, i + 1) if c == "'" else i + 1
        if c == '"':
            while close < len(text) and text[close] != '"':
                close += 2 if text[close] == "\\" else 1
        return len(text) if close < 0 else close + 1

    def substitutions(self, text, where):
        """Scan every $( ... ) of a line that bash expands: not those in
        single quotes (an awk program's $(i + 1)), nor $(( arithmetic."""
        i, in_double = 0, False
        while i < len(text):
            if text[i] == '"':
                in_double = not in_double
            if text[i] == "\\" or (text[i] == "'" and not in_double):
                i = self.skip_quoted(text, i)
                continue
            if not text.startswith("$(", i) or text.startswith("$((", i):
                i += 1
                continue
            depth, j = 0, i + 1
            while j < len(text):
                if text[j] in "'\"\\":
                    j = self.skip_quoted(text, j)
                    continue
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j += 1
            self.line(text[i + 2:j], where)
            i = j + 1

    def line(self, text, where):
        lex = shlex.shlex(text, posix=True, punctuation_chars="();<>|&")
        lex.whitespace_split = True
        lex.commenters = ""
        try:
            toks = list(lex)
        except ValueError:
            return
        self.substitutions(text, where)
        self.tokens(toks, where)

    def tokens(self, toks, where):
        cmd = True
        skip_to = None           # "do"/"in": inside for/case headers
        stack = []               # cmd state to go back to after ")"
        i = 0
        while i < len(toks):
            t = toks[i]
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            i += 1
            if skip_to:
                if t == skip_to or t in (";", "\n"):
                    skip_to = None if t == skip_to else skip_to
                    cmd = t != "in"
                continue
            prev = toks[i - 2] if i >= 2 else ""
            if t in ("(", "()") and prev.endswith("="):
                if t == "(":
                    i = self.closing(toks, i, ")")      # an array
                continue
            if t.startswith("(("):
                i = self.closing(toks, i, "))")         # arithmetic
                continue
            if t.endswith("("):
                # After $( ... ) or <( ... ) the words are arguments.
                inner = prev.endswith("$") or t != "("
                stack.append(not inner and cmd)
                cmd = True
                continue
            if t == ")":
                # Unmatched: the end of a case pattern.
                cmd = stack.pop() if stack else True
                continue
            if re.fullmatch(r"[;&|]+", t):
                cmd = True
                continue
            if re.fullmatch(r"[0-9]*[<>&]+", t):
                i += 1           # the redirection's target
                continue
            if not cmd:
                continue
            if t in KEYWORDS:
                continue
            if t in ("for", "select"):
                skip_to = "do"
                continue
            if t == "case":
                skip_to = "in"
                continue
            if nxt == ")":       # a case pattern
                cmd = False
                continue
            if nxt == "()" or (nxt == "(" and i + 1 < len(toks) and toks[i + 1] == ")"):
                i += 1 if nxt == "()" else 2     # a function definition
                continue
            m = ASSIGN.match(t)
            if m:
                value = t[m.end():]
                d = DEFAULT.match(value)
                plain = d.group(1) if d else value
                if NAME.match(plain) and not plain[0].isupper():
                    self.values[m.group(1)] = plain
                continue
            if t in ('$@', '${@}') and self.func:
                self.runners.setdefault(self.func, self.shifts)
                cmd = False
                continue
            prog = self.resolve(t)
            cmd = False
            if prog is None:
                continue
            i = self.after(prog, toks, i, where)

    @staticmethod
    def closing(toks, i, close):
        """Index after the token that ends with CLOSE, from I."""
        while i < len(toks) and not toks[i].endswith(close):
            i += 1
        return i + 1

    def after(self, prog, toks, i, where):
        """Record PROG; return where its arguments end being skipped."""
        args = toks[i:]
        if prog == "coproc" and args and args[0].isupper():
            return self.restart(toks, i + 1, where)
        if prog in ("sh", "bash") and len(args) > 1 and args[0] == "-c":
            self.report(prog, where)
            self.line(args[1], where)
            return i + 2
        if prog == "trap" and args:
            self.line(args[0], where)
            return i + 1
        self.report(prog, where)
        if prog == "shift" and self.func:
            self.shifts += int(args[0]) if args and args[0].isdigit() else 1
        if prog == "ip" and args[:2] == ["netns", "exec"] and len(args) > 2:
            return self.restart(toks, i + 3, where)
        if prog in WRAPPERS:
            opts, positional = WRAPPERS[prog]
            j = i
            while j < len(toks) and toks[j].startswith("-"):
                j += 2 if toks[j] in opts else 1
            while j < len(toks) and ASSIGN.match(toks[j]):
                j += 1
            return self.restart(toks, j + positional, where)
        if prog in self.runners:
            j = i
            # The runner's own arguments, which it shifts away first.
            return self.restart(toks, i + self.runners[prog], where)
        return i

    def restart(self, toks, j, where):
        """The words from J on form a command of their own."""
        end = j
        while end < len(toks) and not re.fullmatch(r"[;&|()]+", toks[end]):
            end += 1
        self.tokens(toks[j:end], where)
        return end


def logical_lines(path):
    """(number, text): continuations joined, heredoc bodies and comments
    dropped, a quoted string that spans lines kept in one piece."""
    with open(path, encoding="utf-8") as f:
        raw = f.read().split("\n")
    make = path.endswith("Makefile")
    buf, start, heredoc = "", 0, None
    for n, line in enumerate(raw, 1):
        if heredoc:
            if line.strip() == heredoc:
                heredoc = None
            continue
        if make:
            if not line.startswith("\t"):
                continue
            line = re.sub(r"(?<!\$)\$\((\w+)\)",
                          lambda m: MAKE_VARS.get(m.group(1), "$" + m.group(1)), line)
            line = re.sub(r"(?<!\$)\$\([a-z-]+ [^)]*\)", "$MAKEFN", line)
            line = line.replace("$$", "$").lstrip("\t@-")
        if not buf:
            start = n
            if line.lstrip().startswith("#"):
                continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        try:
            shlex.split(buf, comments=False)
            if re.search(r"=\([^)]*$", buf):  # an array that goes on
                raise ValueError
        except ValueError:
            buf += "\n"
            continue
        m = HEREDOC.search(buf)
        if m and "<<<" not in buf:
            heredoc = m.group(1)
        yield start, re.sub(r"(^|\s)#\s.*$", "", buf)
        buf = ""


def main(paths):
    sc = Scanner()
    lines = {p: list(logical_lines(p)) for p in paths}
    # Runner functions first, so that calls before a definition count.
    for p in paths:
        for n, text in lines[p]:
            m = FUNCDEF.match(text)
            if m:
                sc.func, sc.shifts = m.group(1), 0
            sc.line(text, f"{p}:{n}")
        sc.func = None
    sc.found.clear()
    for p in paths:
        for n, text in lines[p]:
            m = FUNCDEF.match(text)
            if m:
                sc.func, sc.shifts = m.group(1), 0
                print(f"{m.group(1)} {p}:{n} function")
            sc.line(text, f"{p}:{n}")
        sc.func = None
    for name, where in sc.found:
        print(f"{name} {where}")


if __name__ == "__main__":
    main(sys.argv[1:])
