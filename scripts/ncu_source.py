#!/usr/bin/env python3
"""Read Nsight Compute's source page (`ncu --import R --page source --csv --print-source sass`,
as scripts/stalls.sh writes it) and print either a summary or the hot instructions.

  ncu_source.py summary CSV...      per file: warp-stall samples by reason (% of all samples)
                                    and the instruction mix (% of executed instructions)
  ncu_source.py hot CSV MIN_EXEC    every instruction executed MIN_EXEC times or more (a
                                    kernel's main loop): address, executions, samples, SASS
                                    and its three largest stall reasons
"""
import collections
import csv
import sys


def read(path):
    rows = list(csv.reader(open(path, newline="")))
    if len(rows) < 2:
        sys.exit(f"{path}: not an ncu source page (fewer than 2 lines)")
    hdr = rows[1]  # row 0 names the kernel
    ix = {h: i for i, h in enumerate(hdr)}
    for need in ("Address", "Source", "Instructions Executed", "Warp Stall Sampling (All Samples)"):
        if need not in ix:
            sys.exit(f"{path}: no column '{need}' (is it --page source --csv --print-source sass?)")
    stalls = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    return [r for r in rows[2:] if len(r) == len(hdr)], ix, stalls


def count(r, ix, name):
    v = r[ix[name]]
    return int(v) if v.isdigit() else 0


def summary(paths):
    for path in paths:
        rows, ix, stalls = read(path)
        by_stall, by_op, executed = collections.Counter(), collections.Counter(), 0
        for r in rows:
            for h in stalls:
                by_stall[h[len("stall_"):]] += count(r, ix, h)
            n = count(r, ix, "Instructions Executed")
            words = [w for w in r[ix["Source"]].split() if not w.startswith("@")]
            if words:
                by_op[words[0].split(".")[0]] += n
            executed += n
        samples = sum(by_stall.values()) or 1
        print(f"{path}: {samples} samples, {executed} instructions executed")
        print("  stalls:", " ".join(f"{k} {v / samples * 100:.1f}" for k, v in by_stall.most_common(10)))
        print("  mix:   ", " ".join(f"{k} {v / (executed or 1) * 100:.1f}" for k, v in by_op.most_common(12)))


def hot(path, min_exec):
    rows, ix, stalls = read(path)
    for r in rows:
        n = count(r, ix, "Instructions Executed")
        if n < min_exec:
            continue
        top = sorted(((count(r, ix, h), h[len("stall_"):]) for h in stalls), reverse=True)[:3]
        reasons = " ".join(f"{name}:{c}" for c, name in top if c)
        print(f"{r[ix['Address']][-5:]} {n:8d} {count(r, ix, 'Warp Stall Sampling (All Samples)'):5d} "
              f"{r[ix['Source']].strip():60s} {reasons}")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "summary":
        summary(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "hot":
        hot(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
