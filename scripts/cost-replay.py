#!/usr/bin/env python3
"""What the scheduler's cost model expected when each size of a run began, beside what the
size then took, from the JSON lines of `cutune run --json`: the estimate of one evaluation
(`est_eval_s` of each size line) and the compile time the model had learned (`est_compile_s`),
as the tuner itself computed them. Used to explain a run's time decisions: a space is
measured whole when (its valid configs) x (this estimate) fits its share of the time.

    scripts/cost-replay.py RUN.jsonl"""
import argparse
import json
import sys

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("jsonl")
a = ap.parse_args()

events = [json.loads(line) for line in open(a.jsonl) if line.strip()]
valid = {}
for e in events:
    if e["event"] == "search":
        valid[(e["size"], e["variant"])] = e["valid"]
sizes = [e for e in events if e["event"] == "size"]
if sizes and not any("est_eval_s" in e for e in sizes):
    sys.exit("cost-replay: the size lines carry no est_eval_s: the run predates it (2026-11-26)")

print("%-20s %8s %10s %9s %9s  %s" % ("size", "ended s", "est eval s", "compile s", "measured",
                                      "whole space at that estimate (s), per variant"))
for e in sizes:
    s, est = e["size"], e.get("est_eval_s")
    n = sum(1 for t in events if t["event"] == "trial" and t["size"] == s)
    need = ", ".join("%s %.0f" % (v, c * est) for (sz, v), c in valid.items() if sz == s and est)
    print("%-20s %8.1f %10s %9s %9d  %s" % (
        s, e["elapsed_s"], "%.4f" % est if est else "-",
        "%.3f" % e["est_compile_s"] if e.get("est_compile_s") else "-", n, need or "-"))
