#!/usr/bin/env python3
"""The documentation holds together.

    test_docs.py SOURCE_ROOT

README.md is a front page: at most 200 lines, and its Quick start still shows the two
set-up commands (`.ci/run` runs the test command that it names). Every relative link of
README.md, CONTRIBUTING.md, docs/*.md, db/README.md and bench/RESULTS.md leads to a file of
the tree, and a link's #anchor to a heading of its target, as a forge makes anchors from
headings; so a section that moves or is renamed cannot leave a reader at a dead link."""
import glob
import os
import re
import sys

README_MAX_LINES = 200
QUICK_START = ("scripts/cutune run matmul --device 0", "scripts/test")


def strip_code(text):
    """The text without fenced blocks and inline code, where a link is only an example."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(text):
    """The anchors a forge gives the headings: lower case, punctuation dropped, spaces as
    hyphens, and -1, -2 ... after a repeated one."""
    seen, out = {}, set()
    for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.sub(r"^```.*?^```", "", text,
                                                             flags=re.S | re.M), re.M):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower().replace("`", "")).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def main():
    root = sys.argv[1]
    bad = []
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    n = readme.count("\n")
    if n > README_MAX_LINES:
        bad.append(f"README.md has {n} lines: a front page has at most {README_MAX_LINES} "
                   f"(move the detail into docs/)")
    quick = re.search(r"^## Quick start\n(.*?)(?=^## )", readme, re.S | re.M)
    block = re.search(r"^```sh\n(.*?)^```", quick.group(1), re.S | re.M) if quick else None
    for cmd in QUICK_START:
        if not block or not re.search(rf"^{re.escape(cmd)}\s", block.group(1), re.M):
            bad.append(f"README.md: the Quick start's code block does not begin a line with "
                       f"`{cmd}`")
    files = ["README.md", "CONTRIBUTING.md", "db/README.md", "bench/RESULTS.md"]
    files += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
    if not any(f.startswith("docs/") for f in files):
        bad.append("docs/ holds no Markdown file")
    links = 0
    for f in files:
        path = os.path.join(root, f)
        if not os.path.exists(path):
            bad.append(f"{f} does not exist")
            continue
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", strip_code(text)):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            links += 1
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            if not os.path.exists(dest):
                bad.append(f"{f}: link to {target}: no such file")
                continue
            if anchor and dest.endswith(".md"):
                if anchor not in anchors(open(dest, encoding="utf-8").read()):
                    bad.append(f"{f}: link to {target}: {os.path.relpath(dest, root)} has no "
                               f"heading whose anchor is #{anchor}")
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print(f"README.md {n} lines; {links} links in {len(files)} files, each to a file and "
              f"heading that exist")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
