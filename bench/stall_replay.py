#!/usr/bin/env python3
"""Replays a shorter patience on the trials of recorded runs (`cutune run --json`, gzipped).

A search's proposals do not depend on its patience, so a patience cut short ends the same
sequence earlier. Per (size, variant) search, the patience the run applied is read off where
the search ended (its measurements after the last gain of more than 0.3%, STALL_GAIN in
tune_job.c); those that ended by the search's patience (`--patience`, 100 in runs before
558abd5 and 50 since: 0.9-1.3 times it after their last gain, `--rule min`) or by the
whole-space rule (over 1.3 times it: `--rule whole`) are cut at `--scale` times it. Prints each size's best within the cut sequences over its final best (1: kept),
and the GPU seconds the cut searches would have given back.

    bench/stall_replay.py --rule min --scale 0.5 bench/results/2026-11-28-h200-ahead/*.jsonl.gz
    bench/stall_replay.py --patience 50 --rule whole --scale 0.5 RUN.jsonl.gz
"""
import argparse, collections, gzip, json

GAIN = 1.003


def ok_ms(t):
    return t["median_ms"] if t["status"] == "ok" and t["median_ms"] else None


def cut(vs, rule, scale, patience):
    """The length of a search's sequence under the shorter patience."""
    gains, best = [], None
    for i, t in enumerate(vs):
        m = ok_ms(t)
        if m and (best is None or m < best / GAIN):
            gains.append(i)
        if m and (best is None or m < best):
            best = m
    n = len(vs)
    pat = n - 1 - (gains[-1] if gains else 0)
    lo, hi = 0.9 * patience, 1.3 * patience
    if not ((rule == "min" and lo <= pat <= hi) or (rule == "whole" and pat > hi)):
        return n
    short = int(pat * scale)
    for k, g in enumerate(gains):
        if k + 1 == len(gains) or gains[k + 1] - g > short:
            return min(n, g + short + 1)
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rule", choices=("min", "whole"), required=True)
    ap.add_argument("--scale", type=float, default=0.5)
    ap.add_argument("--patience", type=int, default=100)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    for path in a.runs:
        ev = [json.loads(line) for line in gzip.open(path, "rt")]
        sizes = collections.OrderedDict()
        for t in ev:
            if t["event"] == "trial" and t["phase"] in ("warm start", "search"):
                sizes.setdefault(t["size"], collections.OrderedDict()).setdefault(t["variant"], []).append(t)
        saved, worst = 0.0, 1.0
        for size, byv in sizes.items():
            final = min(m for vs in byv.values() for m in map(ok_ms, vs) if m)
            kept, back = float("inf"), 0.0
            for vs in byv.values():
                n = cut(vs, a.rule, a.scale, a.patience)
                kept = min([kept] + [m for m in map(ok_ms, vs[:n]) if m])
                back += vs[-1]["elapsed_s"] - vs[n - 1]["elapsed_s"] if n < len(vs) else 0
            worst = min(worst, final / kept)
            saved += back
            print("%-26s kept %.4f of its best, %5.1f s back" % (size, final / kept, back))
        print("%s: --rule %s --scale %g: %.1f s back, the worst size kept %.4f\n" % (path, a.rule, a.scale, saved, worst))


if __name__ == "__main__":
    main()
