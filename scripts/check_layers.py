#!/usr/bin/env python3
"""Check that the house keeps its shape (src/README.md, the module map).

    python3 scripts/check_layers.py

Run after a build, from anywhere; reads the tree and the object files.

* Folders: the layers are SRC_DIRS of the Makefile, bottom up.  A file may
  include the headers of its own folder and of the folders before it,
  never of one after it.
* Calls: each object file's undefined symbols (nm) against the object file
  that defines them give who calls whom.  No file calls one in a folder
  after its own (module.c, the top, excepted), and no files call each
  other in a ring; likewise among the gateway's files.  Callbacks through
  pointers are not calls here: the module map names them.
* Size: no C file of src/ or gateway/ is over 1,500 lines.

Prints what it found and ends with one line "N passed, N failed" (one per
check); the exit status is 0 only when nothing failed.
"""

import collections
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LINES = 1500

passed = 0
failed = 0


def check(name, problems):
    global passed, failed
    if problems:
        failed += 1
        print(f"FAILED {name}")
        for p in problems[:40]:
            print(f"    {p}")
    else:
        passed += 1
        print(f"ok     {name}")


def src_dirs():
    text = open(os.path.join(ROOT, "Makefile")).read()
    m = re.search(r"^SRC_DIRS\s*=\s*(.*)$", text, re.M)
    if not m:
        return None
    return m.group(1).split()


def rel(path):
    return os.path.relpath(path, ROOT)


def object_calls(objs):
    """{object: {object it calls}} from nm's defined and undefined symbols."""
    defined = {}
    undefined = {}
    for o in objs:
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        und = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                defined[parts[2]] = o
            elif len(parts) == 2 and parts[0] == "U":
                und.add(parts[1])
        undefined[o] = und
    calls = collections.defaultdict(set)
    for o, und in undefined.items():
        for sym in und:
            d = defined.get(sym)
            if d is not None and d != o:
                calls[o].add(d)
    return calls


def rings(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index = {}
    low = {}
    stack = []
    on_stack = set()
    found = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return found


def main():
    order = src_dirs()
    if not order:
        check("SRC_DIRS in the Makefile", ["not found"])
        print(f"{passed} passed, {failed} failed")
        return 1
    src = os.path.join(ROOT, "src")

    # every C file and header lives in a layer folder (or is module.c)
    stray = [rel(p) for p in glob.glob(os.path.join(src, "*.[ch]"))
             if os.path.basename(p) != "module.c"]
    stray += [rel(p) for p in glob.glob(os.path.join(src, "*", "*.[ch]"))
              if os.path.basename(os.path.dirname(p)) not in order]
    check("every source file is in a layer folder", stray)

    # includes
    header_folder = {}
    for d in order:
        for h in glob.glob(os.path.join(src, d, "*.h")):
            header_folder[os.path.basename(h)] = d
    up = []
    for d in order:
        for f in sorted(glob.glob(os.path.join(src, d, "*.[ch]"))):
            for inc in re.findall(r'^#include "([^"]+)"', open(f).read(), re.M):
                hd = header_folder.get(inc)
                if hd is not None and order.index(hd) > order.index(d):
                    up.append(f"{rel(f)} includes {inc} ({hd}/)")
    check("no include points up a layer", up)

    # calls between object files
    objs = sorted(glob.glob(os.path.join(src, "*", "*.o")))
    module = os.path.join(src, "module.o")
    if os.path.exists(module):
        objs.append(module)
    objs = [o for o in objs if os.path.exists(o[:-2] + ".c")]  # not left over from a move
    if len(objs) < 10:
        check("object files to read (build first)", [f"{len(objs)} found under src/"])
    else:
        calls = object_calls(objs)

        def folder(o):
            return None if o == module else os.path.basename(os.path.dirname(o))

        upward = []
        for a in objs:
            for b in sorted(calls.get(a, ())):
                fa, fb = folder(a), folder(b)
                if fa is None:
                    continue
                if fb is None or order.index(fb) > order.index(fa):
                    upward.append(f"{rel(a)} calls {rel(b)}")
        check("no call points up a layer", upward)
        check("no files of src/ call each other in a ring",
              [" <-> ".join(rel(x) for x in r) for r in rings(objs, calls)])
    gw = [o for o in sorted(glob.glob(os.path.join(ROOT, "gateway", "*.o")))
          if os.path.exists(o[:-2] + ".c")]
    if gw:
        check("no files of gateway/ call each other in a ring",
              [" <-> ".join(rel(x) for x in r) for r in rings(gw, object_calls(gw))])

    # size
    big = []
    for f in sorted(glob.glob(os.path.join(src, "**", "*.c"), recursive=True) +
                    glob.glob(os.path.join(ROOT, "gateway", "*.c"))):
        n = sum(1 for _ in open(f))
        if n > MAX_LINES:
            big.append(f"{rel(f)}: {n} lines")
    check(f"no C file over {MAX_LINES:,} lines", big)

    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
