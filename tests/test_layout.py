#!/usr/bin/env python3
"""The folders of core/src/ use each other one way only: every quoted #include of a header
that lives in another folder is an edge, and the test fails on any cycle among the folders,
naming the includes that close it (CONTRIBUTING.md, "Where things are").

    test_layout.py CORE_SRC_DIR
"""
import collections
import os
import re
import sys


def folder_edges(src):
    home = {}  # header name -> its top folder under src
    files = []
    for d, _, names in os.walk(src):
        top = os.path.relpath(d, src).split(os.sep)[0]
        for n in names:
            if n.endswith(".h"):
                if n in home and home[n] != top:
                    sys.exit(f"FAIL: {n} is in both {home[n]}/ and {top}/: a header name is "
                             "one file")
                home[n] = top
            if n.endswith((".c", ".h")):
                files.append((top, os.path.join(d, n)))
    edges = collections.defaultdict(lambda: collections.defaultdict(list))
    for top, path in files:
        with open(path, encoding="utf-8") as f:
            for m in re.finditer(r'^#include "([^"]+)"', f.read(), re.M):
                to = home.get(os.path.basename(m.group(1)))
                if to and to != top:
                    edges[top][to].append(f"{os.path.relpath(path, src)} includes {m.group(1)}")
    return edges


def cycle(edges):
    """A cycle of folders as a list [a, b, ..., a], or None."""
    state = {}

    def visit(a, path):
        state[a] = 1
        for b in sorted(edges.get(a, {})):
            if state.get(b) == 1:
                return path[path.index(b):] + [b]
            if b not in state:
                c = visit(b, path + [b])
                if c:
                    return c
        state[a] = 2
        return None

    for a in sorted(edges):
        if a not in state:
            c = visit(a, [a])
            if c:
                return c
    return None


def main():
    src = sys.argv[1]
    edges = folder_edges(src)
    if len(edges) < 5:
        sys.exit(f"FAIL: only {len(edges)} folders of {src} include from another: wrong folder?")
    for a in sorted(edges):
        print(f"{a}/ -> " + ", ".join(f"{b}/" for b in sorted(edges[a])))
    c = cycle(edges)
    if c:
        print("FAIL: the folders use each other: " + " -> ".join(c))
        for a, b in zip(c, c[1:]):
            print(f"  {a}/ -> {b}/: " + "; ".join(edges[a][b][:3]))
        return 1
    # the check itself: an edge back from the lowest folder must be seen as a cycle
    probe = {a: dict(bs) for a, bs in edges.items()}
    probe.setdefault("util", {})["db"] = ["probe"]
    probe.setdefault("db", {}).setdefault("util", ["probe"])
    if not cycle(probe):
        print("FAIL: a planted cycle util/ -> db/ -> util/ was not found")
        return 1
    print("no cycle among the folders of core/src/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
