#!/usr/bin/env python3
"""The documentation names fields where they are.

    test_header_docs.py INCLUDE_DIR DOC...

Every `CutuneStruct.field` that a comment of a public header (INCLUDE_DIR/cutune/*.h) or a
document names must be a field of that struct; a DOC is a Markdown file or a folder of them
(README.md and docs/, say). And a hook of the op's contract, a function
that CutuneOp (cutune/op.h) and CutuneVariant (cutune/plugin.h, a C variant plugin that may
bring its own op) both have, is the op's: outside plugin.h, which documents CutuneVariant's copy,
it is named on CutuneOp. An application or op author who follows a name to its header must
find the field, and find it where an op plugin sets it."""
import glob
import os
import re
import sys


def struct_fields(text, hooks=None):
    """{struct name: set of field names} of the typedef'd structs in a header; with hooks
    (a dict), hooks[struct name] is the set of its function-pointer fields."""
    out = {}
    for m in re.finditer(r"typedef struct (\w+) \{(.*?)\n\} \1;", text, re.S):
        body = re.sub(r"/\*.*?\*/", " ", m.group(2), flags=re.S)
        body = re.sub(r"^[ \t]*#[^\n]*", " ", body, flags=re.M)
        fields, fns = set(), set()
        for decl in body.split(";"):
            fn = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", decl)  # a function pointer
            if fn:
                fields.add(fn.group(1))
                fns.add(fn.group(1))
                continue
            for part in decl.split(","):  # "uint32_t abi_major, abi_minor"
                names = re.findall(r"\*?\s*(\w+)\s*(?:\[[^\]]*\])?\s*$", part.strip())
                if names:
                    fields.add(names[-1])
        out[m.group(1)] = fields
        if hooks is not None:
            hooks[m.group(1)] = fns
    return out


def comments(text):
    return " ".join(re.findall(r"/\*.*?\*/|//[^\n]*", text, re.S))


def main():
    include, doc_args = sys.argv[1], sys.argv[2:]
    if not doc_args:
        sys.exit("usage: test_header_docs.py INCLUDE_DIR DOC...")
    doc_files = []
    for d in doc_args:
        if not os.path.exists(d):
            sys.exit(f"FAIL: {d} does not exist (moved? tests/meson.build names it)")
        found = sorted(glob.glob(os.path.join(d, "*.md"))) if os.path.isdir(d) else [d]
        if not found:  # a moved folder must not leave the test reading nothing
            sys.exit(f"FAIL: {d} holds no Markdown file")
        doc_files += found
    headers = sorted(glob.glob(os.path.join(include, "cutune", "*.h")))
    texts = {h: open(h, encoding="utf-8").read() for h in headers}
    fields, hooks = {}, {}
    for t in texts.values():
        fields.update(struct_fields(t, hooks))
    for name in ("CutuneOp", "CutuneVariant"):
        if name not in fields:
            sys.exit(f"FAIL: no struct {name} found in {include}/cutune/*.h")
    shared = hooks["CutuneOp"] & hooks["CutuneVariant"]
    if "problem_distance" not in shared:
        sys.exit(f"FAIL: the headers were not read as expected: the hooks both structs have "
                 f"are {sorted(shared)}")
    docs = {h: comments(t) for h, t in texts.items()}
    for d in doc_files:
        docs[d] = open(d, encoding="utf-8").read()
    bad = []
    for path, text in docs.items():
        for m in re.finditer(r"\b(Cutune\w+)\.(\w+)", text):
            struct, field = m.group(1), m.group(2)
            if struct not in fields:
                continue  # not a struct of the public headers (a file name, say)
            if field not in fields[struct]:
                bad.append(f"{path}: {struct}.{field}: {struct} has no field '{field}'")
            elif (struct == "CutuneVariant" and field in shared and
                  os.path.basename(path) != "plugin.h"):
                bad.append(f"{path}: {struct}.{field}: an op's hook; an op plugin sets it in "
                           f"CutuneOp.{field} (cutune/op.h)")
    for b in bad:
        print("FAIL:", b)
    if not bad:
        n = sum(len(re.findall(r"\bCutune\w+\.\w+", t)) for t in docs.values())
        print(f"{n} field names in the headers' comments and {len(doc_files)} documents: "
              f"each where it is")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
