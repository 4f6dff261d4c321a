#!/usr/bin/env python3
"""Whether a change to a search lowers any foreign space by more than the seeds' noise: two
cutune binaries (before and after the change) replayed on the same blocks of 30 seeds, and
per space the paired difference of the methodology score (`cutune replay --score`, the
statistic of bench/search_eval.py and of the project's rule) over the blocks.

    bench/search_compare.py --base OLD_CUTUNE [--new build/cli/cutune] [--blocks 10]
                            [--seed 1001] [--strategy portfolio] [--jobs 2] [--data DIR]
                            [--spaces NAME,...]

A 30-seed score is the median over the seeds at each budget, and on a plateau the median
seed can sit on the edge between two configs (on sch22-pnpoly-titan_rtx, about half the
seeds hold one of the two fastest configs at 180 to 220 evaluations): one block's score then
moves by 0.1 with the seeds. So a change is judged on several blocks: per space the mean of
the differences (new - base, the same seeds for both), and twice its standard error (the
spread of the differences over the blocks / sqrt(blocks)). A space is "lower" or "higher"
where the mean difference is beyond that, else "within noise" (with one block there is no
spread, and no verdict: "-"). The first seed is 1001 by
default, away from the ranges bench/RESULTS.md reports (1, 101, 201), so that a change
chosen on those is judged on seeds it was not chosen on. Prints Markdown; CPU only.
"""
import argparse
import math
import os
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor

from search_eval import DATA, ROOT, replay, spaces

SEEDS = 30  # a block: the seeds of one score, as RESULTS reports it


def score(cutune, path, strategy, seed):
    d = replay(cutune, path, strategy, SEEDS, seed)
    return next(s["score"] for s in d["strategies"] if s["name"] == strategy)


def paired(base, new):
    """The mean of new - base and twice its standard error (0 for a single block)."""
    d = [n - b for b, n in zip(base, new)]
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else 0.0
    return statistics.fmean(d), 2 * se


def verdict(diff, two_se, blocks):
    if blocks < 2:
        return "-"
    return "lower" if diff < -two_se else "higher" if diff > two_se else "within noise"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="the cutune binary before the change")
    ap.add_argument("--new", default=os.path.join(ROOT, "build", "cli", "cutune"))
    ap.add_argument("--blocks", type=int, default=10, help="blocks of 30 seeds")
    ap.add_argument("--seed", type=int, default=1001, help="the first seed of the first block")
    ap.add_argument("--strategy", default="portfolio")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--spaces", help="only these recordings (names without .csv, comma-separated)")
    a = ap.parse_args()
    if a.blocks < 1:
        sys.exit("search_compare: --blocks must be at least 1")
    names = spaces(a.data)
    if a.spaces:
        unknown = set(a.spaces.split(",")) - set(names)
        if unknown:
            sys.exit(f"search_compare: no recording {', '.join(sorted(unknown))} in {a.data}")
        names = [n for n in names if n in a.spaces.split(",")]
    jobs = [(b, n, k) for b in (a.base, a.new) for n in names for k in range(a.blocks)]
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        got = ex.map(lambda j: score(j[0], os.path.join(a.data, j[1] + ".csv"), a.strategy,
                                     a.seed + SEEDS * j[2]), jobs)
        res = dict(zip(jobs, got))
    blk = lambda b, n: [res[(b, n, k)] for k in range(a.blocks)]
    last = a.seed + SEEDS * a.blocks - 1
    print(f"{a.strategy}, {a.blocks} blocks of {SEEDS} seeds ({a.seed}-{last}); base {a.base}, new "
          f"{a.new}. Score: the mean over the blocks; new - base: the mean of the paired "
          f"differences, and twice its standard error.\n")
    print("| space | base | new | new - base | 2 SE | verdict |")
    print("|---|---|---|---|---|---|")
    for n in names:
        b, w = blk(a.base, n), blk(a.new, n)
        diff, two_se = paired(b, w)
        print(f"| {n} | {statistics.fmean(b):.3f} | {statistics.fmean(w):.3f} | {diff:+.3f} | "
              f"{two_se:.3f} | {verdict(diff, two_se, a.blocks)} |")
    mb = [statistics.fmean(res[(a.base, n, k)] for n in names) for k in range(a.blocks)]
    mw = [statistics.fmean(res[(a.new, n, k)] for n in names) for k in range(a.blocks)]
    diff, two_se = paired(mb, mw)
    print(f"| mean over the spaces | {statistics.fmean(mb):.3f} | {statistics.fmean(mw):.3f} | "
          f"{diff:+.4f} | {two_se:.4f} | {verdict(diff, two_se, a.blocks)} |")
    up = sum(w > b for b, w in zip(mb, mw))
    print(f"\nThe mean over the spaces rose in {up} of {a.blocks} blocks: "
          + ", ".join(f"{w - b:+.3f}" for b, w in zip(mb, mw)) + ".")


if __name__ == "__main__":
    main()
