#!/usr/bin/env python3
"""The search on spaces recorded by others, as the project's owner measures it (issue 29):
`cutune replay --score` on every recording of the foreign data folder (not the -cartesian
ones), and a Markdown report: per space, the median and 10th percentile of the fraction of
the optimum at 25, 50, 100, 200 and 400 evaluations and the methodology score (Willemsen et
al., FGCS 2024) of the default strategy, random search and annealing; on the Schoonhoven et
al. (2022) spaces, the mean over seeds (that paper's statistic) beside the best method it
published (published_sch22.csv); and the targets, each marked met or missed. CPU only.

    bench/search_eval.py [--cutune build/cli/cutune] [--data DIR] [--seeds 30] [--seed 1] [--jobs 2]
                         [--strategies portfolio,annealing]

It prints the section "Search on foreign spaces (replay)" of bench/RESULTS.md, which replaces
the one there.

The data folder is $CUTUNE_SEARCH_EVAL_DATA, else ../shared/search-eval-data beside the
source tree; it is read in place, never copied into the project.
"""
import argparse
import csv
import datetime
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGETS = [25, 50, 100, 200, 400]
PUBLISHED_BUDGETS = [25, 100, 200, 400]  # where the issue compares with the paper
KERNELS = {"gemm": "GEMM", "convolution": "convolution", "pnpoly": "pnpoly"}
GPUS = {"a100": "A100", "titan_rtx": "TITAN_RTX"}
DATA = os.environ.get("CUTUNE_SEARCH_EVAL_DATA", os.path.join(ROOT, "..", "shared", "search-eval-data"))


def replay(cutune, path, strategies, seeds, seed):
    cmd = ["nice", "-n", "10", cutune, "replay", path, "--strategy", strategies, "--seeds",
           str(seeds), "--seed", str(seed), "--budgets", ",".join(map(str, BUDGETS)), "--score", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"search_eval: {' '.join(cmd)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def spaces(data):
    """The recordings scored: every CSV of the folder but the -cartesian ones, by name."""
    if not os.path.isdir(data):
        sys.exit(f"search_eval: no folder {data} (set CUTUNE_SEARCH_EVAL_DATA or --data)")
    return sorted(f[:-4] for f in os.listdir(data)
                  if f.endswith(".csv") and "-cartesian" not in f and not f.startswith("published"))


def published(data):
    """{(kernel, gpu, budget): (mean fraction, algorithm)}: the best method per budget."""
    best = {}
    path = os.path.join(data, "published_sch22.csv")
    if not os.path.exists(path):
        return best
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            k = (r["kernel"], r["gpu"], int(r["maxfeval"]))
            v = float(r["mean_fraction"])
            if k not in best or v > best[k][0]:
                best[k] = (v, r["algorithm"])
    return best


def paper_key(name):
    parts = name.split("-", 2)
    if len(parts) < 3 or parts[0] != "sch22":
        return None
    return KERNELS.get(parts[1]), GPUS.get(parts[2])


def git(*args):
    try:
        return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cutune", default=os.path.join(ROOT, "build", "cli", "cutune"))
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1, help="the first seed (another range checks "
                    "that a change is no fit to seeds 1-30)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--strategies", default="portfolio,annealing")
    a = ap.parse_args()
    names = spaces(a.data)
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        runs = list(ex.map(lambda n: replay(a.cutune, os.path.join(a.data, n + ".csv"),
                                            a.strategies, a.seeds, a.seed), names))
    pub = published(a.data)
    order = ["portfolio", "random", "annealing"]
    order += [s for s in a.strategies.split(",") if s not in order]
    P = print
    dirty = " (with uncommitted changes)" if git("status", "--porcelain", "--untracked-files=no") else ""
    P("## Search on foreign spaces (replay)")
    P(f"CPU, no GPU · {datetime.date.today().isoformat()}.\n")
    P(f"Commit {git('rev-parse', '--short', 'HEAD')}{dirty}; {a.seeds} seeds from {a.seed}, window "
      f"{runs[0]['window']} (`cutune replay`'s default, the tuner's on a 16-core host). Reproduce with:\n")
    P(f"    nice -n 10 bench/search_eval.py --seeds {a.seeds} --seed {a.seed} --jobs {a.jobs} "
      f"--strategies {a.strategies}\n")
    P("Each recording of `../shared/search-eval-data` but the `-cartesian` ones (Kernel Tuner caches of "
      "other GPUs, read in place) is replayed: every proposal is answered from the recorded exhaustive "
      "run and costs one evaluation. A cell is the median / 10th percentile over the seeds of the "
      "fraction of the optimum (best time of the space / best time found). The score is the methodology "
      "score of Willemsen et al. (FGCS 2024) over evaluations, as `cutune replay --score` computes it "
      "(it agrees with the data folder's `tools/analyse.py`): 0 = calculated random search, 1 = the "
      "optimum, averaged over 12 budgets from the p = 0.5 to the p = 0.96 cutoff (the range is given per "
      "space). `portfolio` is the default strategy. On the Schoonhoven et al. (2022) spaces, the mean over "
      "the seeds (that paper's statistic) is set beside the best method it published at each budget "
      "(`published_sch22.csv`; that paper counts evaluations over the unrestricted space).\n")
    P("| space (configs; score budgets) | strategy | " + " | ".join(f"{b}" for b in BUDGETS)
      + " | score |")
    P("|---|---|" + "---|" * (len(BUDGETS) + 1))
    scores = {s: [] for s in order}
    misses = []
    for name, d in zip(names, runs):
        rec = d["recording"]
        rng = d.get("score_range", {})
        st = {s["name"]: s for s in d["strategies"]}
        label = f"{name} ({rec['configs']}; {rng.get('first')}-{rng.get('last')})"
        for s in order:
            if s not in st:
                continue
            res = {r["budget"]: r for r in st[s]["results"]}
            cells = [f"{res[b]['median']:.3f} / {res[b]['p10']:.3f}" for b in BUDGETS]
            scores[s].append(st[s]["score"])
            P(f"| {label} | {s} | " + " | ".join(cells) + f" | {st[s]['score']:.3f} |")
            label = ""
        dres = {r["budget"]: r for r in st["portfolio"]["results"]}
        rres = {r["budget"]: r for r in st["random"]["results"]}
        for b in BUDGETS:
            if dres[b]["median"] < rres[b]["median"]:
                misses.append(f"{name}: the default's median at {b} ({dres[b]['median']:.4f}) is "
                              f"below random's ({rres[b]['median']:.4f})")
            if b >= 50 and dres[b]["p10"] < rres[b]["p10"]:
                misses.append(f"{name}: the default's 10th percentile at {b} "
                              f"({dres[b]['p10']:.4f}) is below random's ({rres[b]['p10']:.4f})")
        key = paper_key(name)
        if key and all(key) and pub:
            P("| | portfolio, mean | " + " | ".join(f"{dres[b]['mean']:.4f}" for b in BUDGETS) + " | |")
            row = []
            for b in BUDGETS:
                v = pub.get((key[0], key[1], b))
                row.append(f"{v[0]:.4f} ({v[1]})" if v else "-")
                if v and b in PUBLISHED_BUDGETS and dres[b]["mean"] < v[0]:
                    misses.append(f"{name}: the default's mean at {b} ({dres[b]['mean']:.4f}) is "
                                  f"below the best published ({v[0]:.4f}, {v[1]})")
            P("| | best published, mean | " + " | ".join(row) + " | |")
    P("")
    P("### Summary\n")
    P("| strategy | mean score | lowest score |")
    P("|---|---|---|")
    for s in order:
        if scores[s]:
            lo = min(range(len(scores[s])), key=lambda i: scores[s][i])
            P(f"| {s} | {statistics.fmean(scores[s]):.3f} | {scores[s][lo]:.3f} ({names[lo]}) |")
    mean = statistics.fmean(scores["portfolio"])
    P("\nTargets of issue 29 for the default strategy:\n")
    P(f"- mean score >= 0.85: {mean:.3f}, {'met' if mean >= 0.85 else 'missed'}")
    low = [f"{n} {v:.3f}" for n, v in zip(names, scores["portfolio"]) if v < 0.60]
    P(f"- no space below 0.60: {'met' if not low else 'missed: ' + ', '.join(low)}")
    P("- median >= random's at every budget from 25, 10th percentile >= random's from 50, mean "
      "over the seeds >= the best published at 25, 100, 200 and 400 on the Schoonhoven spaces: "
      + ("met" if not misses else "missed:"))
    for m in misses:
        P(f"  - {m}")


if __name__ == "__main__":
    main()
