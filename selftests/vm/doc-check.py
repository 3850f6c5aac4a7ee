#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""doc-check.py [FILE.md...]: the documentation's links lead somewhere
(make doc-check, run by make check).

Reads README.md, doc/*.md and the benchmark's dated notes,
bench-results/*/NOTES.md (or the files given), and fails when
  - a relative link, [text](path), ![alt](path) or [label]: path, names a
    file or directory that does not exist (relative to the linking file;
    a leading / is the top of the repository, as on GitHub);
  - a link's #anchor names no heading of the Markdown file it points to
    (its own file for a bare #anchor). Anchors are GitHub's: the heading's
    text lower-cased, punctuation dropped, spaces turned into hyphens, -1,
    -2 ... for repeats; <a id="..."> or name="..." counts too. Into a file
    that is not Markdown, only GitHub's line anchors (#L10, #L10-L20) are
    accepted;
  - README.md is longer than MAX_README_LINES: it is what a first-time
    user reads, the rest belongs in doc/.
Links with a scheme (https:, mailto:) are not followed. Fenced code blocks
and `code spans` are not read for links or headings.
"""

import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAX_README_LINES = 300

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"""<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.I)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](dest "title"), text may hold one level of brackets; dest may be <...>.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+[\"'(][^)]*)?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
LINE_ANCHOR = re.compile(r"^L\d+(-L\d+)?$")


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield n, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = CODE_SPAN.sub(lambda m: m.group(2), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.strip().lower()
    # Keep letters, digits, _, - and spaces (\w is Unicode-aware).
    text = "".join(c for c in text if c in "- " or c.isalnum() or c == "_")
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    """Every anchor a Markdown file defines."""
    if path not in _anchors:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        seen = {}
        found = set()
        for _, line in prose_lines(text):
            for a in HTML_ANCHOR.findall(line):
                found.add(a)
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        _anchors[path] = found
    return _anchors[path]


def links(text):
    """(line number, destination) of every link outside code."""
    for n, line in prose_lines(text):
        line = CODE_SPAN.sub("", line)
        m = REF_DEF.match(line)
        if m:
            yield n, m.group(1)
            continue
        for m in INLINE_LINK.finditer(line):
            yield n, m.group(1)


def check_link(src, dest):
    """None if dest, linked from src, resolves; else why not."""
    if dest.startswith("<") and dest.endswith(">"):
        dest = dest[1:-1]
    if SCHEME.match(dest) or dest.startswith("//"):
        return None
    path, _, anchor = dest.partition("#")
    if path.startswith("/"):
        target = os.path.join(ROOT, path.lstrip("/"))
    elif path:
        target = os.path.join(os.path.dirname(src), path)
    else:
        target = src
    target = os.path.normpath(target)
    if not os.path.exists(target):
        return f"no such file: {os.path.relpath(target, ROOT)}"
    if not anchor:
        return None
    if os.path.isdir(target):
        return "an anchor into a directory"
    if not target.endswith(".md"):
        if LINE_ANCHOR.match(anchor):
            return None
        return f"#{anchor}: not a line anchor, and {os.path.relpath(target, ROOT)} is not Markdown"
    if anchor not in anchors(target):
        return f"no heading for #{anchor} in {os.path.relpath(target, ROOT)}"
    return None


def main(argv):
    os.chdir(ROOT)
    files = argv[1:]
    if not files:
        docs = sorted(f for f in os.listdir("doc") if f.endswith(".md")) if os.path.isdir("doc") else []
        files = ["README.md"] + [os.path.join("doc", f) for f in docs]
        # doc/performance.md keeps one table a question and links each to
        # the notes of the run it came from; those notes link back and to
        # each other, and move with their folders.
        files += sorted(glob.glob(os.path.join("bench-results", "*", "NOTES.md")))
    errors = 0
    count = 0
    for name in files:
        path = os.path.normpath(os.path.join(ROOT, name))
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for n, dest in links(text):
            count += 1
            why = check_link(path, dest)
            if why:
                print(f"{name}:{n}: ({dest}) {why}")
                errors += 1
        if os.path.relpath(path, ROOT) == "README.md":
            lines = len(text.splitlines())
            if lines > MAX_README_LINES:
                print(f"{name}: {lines} lines, more than {MAX_README_LINES}: move the detail to doc/")
                errors += 1
    if errors:
        print(f"doc-check: {errors} problem(s) in {len(files)} file(s)")
        return 1
    print(f"doc-check: {count} links in {len(files)} files resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
