#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pyimports.py FILE...: where the modules the Python files import come
from, for deps-check.sh to map onto packages. A FILE that is not Python
(a shell script, the Makefile) is searched for `python3 -c '...'`
programs instead.

Prints one line per top-level module and file that imports it:
  MODULE ORIGIN FILE:LINE [optional]
ORIGIN is the file the module is loaded from on this machine, "built-in"
for a module compiled into the interpreter, or "-" when it is not
found. Modules of the project itself (next to the importing file, or
relative imports) are left out. importlib.import_module("name") and
__import__("name") count as imports. "optional" marks an import inside
`try: ... except ImportError` (or ModuleNotFoundError): the code runs
without it, but differently.
"""

import ast
import importlib.util
import os
import re
import sys

PY_C = re.compile(r"""python3?\s+-c\s+(['"])(.*?)(?<!\\)\1""", re.S)


def guarded(node, parents):
    """Whether NODE sits in the body of a try that catches ImportError."""
    while node in parents:
        up = parents[node]
        if isinstance(up, ast.Try) and node in up.body:
            for h in up.handlers:
                names = []
                if isinstance(h.type, ast.Name):
                    names = [h.type.id]
                elif isinstance(h.type, ast.Tuple):
                    names = [e.id for e in h.type.elts if isinstance(e, ast.Name)]
                if h.type is None or {"ImportError", "ModuleNotFoundError"} & set(names):
                    return True
        node = up
    return False


def dynamic(func):
    """Whether FUNC is importlib.import_module or __import__."""
    if isinstance(func, ast.Name):
        return func.id in ("__import__", "import_module")
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def imports(source, name):
    """(module, line, optional) for every absolute import in SOURCE."""
    try:
        tree = ast.parse(source, name)
    except SyntaxError as e:
        sys.exit(f"pyimports: {name}: {e}")
    parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mods = [node.module]
        elif isinstance(node, ast.Call) and dynamic(node.func) and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            mods = [node.args[0].value]
        else:
            continue
        for m in mods:
            yield m.split(".")[0], node.lineno, guarded(node, parents)


def origin(mod, here):
    """Where MOD is loaded from, None for the project's own, "-" if nowhere."""
    if mod in sys.builtin_module_names:
        return "built-in"
    if os.path.exists(os.path.join(here, mod + ".py")) or \
       os.path.isdir(os.path.join(here, mod)):
        return None
    try:
        spec = importlib.util.find_spec(mod)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return "-"
    if spec.origin in (None, "built-in", "frozen"):
        return "built-in" if spec.origin else "-"
    return os.path.realpath(spec.origin)


def main(paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        here = os.path.dirname(os.path.abspath(path))
        if path.endswith(".py") or text.startswith("#!/usr/bin/env python") or \
           text.startswith("#!/usr/bin/python"):
            sources = [(text, 0)]
        else:
            sources = [(m.group(2).replace("$$", "$"),
                        text.count("\n", 0, m.start()))
                       for m in PY_C.finditer(text)]
        for src, base in sources:
            for mod, line, opt in imports(src, path):
                o = origin(mod, here)
                if o is not None:
                    print(f"{mod} {o} {path}:{base + line}" + (" optional" if opt else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
