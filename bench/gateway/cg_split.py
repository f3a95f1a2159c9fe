#!/usr/bin/env python3
"""Split a callgrind profile of the gateway by component, per request.

    cg_split.py CALLGRIND_OUT REQUESTS

Prints the self cost (instructions, Ir) per request of each shared object
(libmicrohttpd, libpq, libc, ...), of each source file of the gateway's own
code, and the most expensive functions.  Self cost: a function's own
instructions, not those of what it calls (libc's memcpy called by libpq
counts as libc).
"""
import collections
import os
import re
import sys


def main():
    path, requests = sys.argv[1], float(sys.argv[2])
    names = {"ob": {}, "fl": {}, "fn": {}}
    kind_of = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl",
               "cfi": "fl", "cfl": "fl", "fn": "fn", "cfn": "fn"}
    by_ob = collections.Counter()
    by_file = collections.Counter()
    by_fn = collections.Counter()
    ob = fl = fn = "?"
    skip_next = False
    events_ir = 0
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("events:"):
                events_ir = line.split()[1:].index("Ir")
                continue
            m = re.match(r"^(c?ob|c?f[lie]|c?fn|fi|fe)=(\((\d+)\))?\s*(.*)$", line)
            if m:
                key, num, name = m.group(1), m.group(3), m.group(4)
                kind = kind_of[key]
                if num is not None:
                    if name:
                        names[kind][num] = name
                    else:
                        name = names[kind].get(num, "?")
                if key == "ob":
                    ob = name
                elif key in ("fl", "fi", "fe"):
                    fl = name
                elif key == "fn":
                    fn = name
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            if line[0] in "0123456789+-*":
                if skip_next:
                    skip_next = False
                    continue
                parts = line.split()
                if len(parts) < 2 + events_ir:
                    continue
                ir = int(parts[1 + events_ir])
                obn = os.path.basename(ob)
                by_ob[obn] += ir
                if "item_table_gateway" in obn:
                    by_file[os.path.basename(fl)] += ir
                by_fn[(obn, fn)] += ir
    total = sum(by_ob.values())
    print("total %.0f" % (total / requests))
    print("by object (self instructions per request):")
    for name, ir in by_ob.most_common():
        if ir / requests >= 50:
            print("  %-40s %9.0f  %5.1f%%" % (name, ir / requests, 100.0 * ir / total))
    print("the gateway's own code, by source file:")
    for name, ir in by_file.most_common():
        if ir / requests >= 20:
            print("  %-40s %9.0f" % (name, ir / requests))
    print("top functions:")
    for (obn, name), ir in by_fn.most_common(25):
        print("  %-52s %-24s %8.0f" % (name[:52], obn[:24], ir / requests))


if __name__ == "__main__":
    main()
