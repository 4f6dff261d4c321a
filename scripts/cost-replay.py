#!/usr/bin/env python3
"""Replays the scheduler's cost model (core/src/tuning/schedule.c: cutune_cost_observe and
cutune_cost_eval_s) over the JSON lines of `cutune run --json`, and prints what it expected an
evaluation to cost when each size began, beside what the size then took. Used to explain a
run's time decisions: a space is measured whole when (its valid configs) x (this estimate)
fits its share of the time.

    scripts/cost-replay.py RUN.jsonl [--threads 16]

--threads is the run's compile threads (the host's cores by default in `cutune run`)."""
import argparse
import json
import sys

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("jsonl")
ap.add_argument("--threads", type=int, default=16)
a = ap.parse_args()

# cutune_cost_init
m = dict(compile_s=0.8, overhead_s=0.02, launches=20.0, flop_rate=2e13, byte_rate=1e12, nobs=0)


def blend(old, x, n):
    return old + (1.0 / (n + 1) if n < 8 else 0.1) * (x - old)


def estimate(flops, nbytes, cold=0.5):
    launch = max(flops / m["flop_rate"] if flops > 0 else 0, nbytes / m["byte_rate"] if nbytes > 0 else 0)
    gpu = m["overhead_s"] + m["launches"] * launch
    cpu = cold * m["compile_s"] / a.threads
    return max(gpu, cpu), gpu, cpu


events = [json.loads(line) for line in open(a.jsonl) if line.strip()]
work = {}  # size -> (flops, bytes), from the first ok trial that tells
for e in events:
    if e["event"] == "trial" and e.get("median_ms") and e["size"] not in work:
        ms = e["median_ms"]
        work[e["size"]] = ((e.get("gflops") or 0) * ms * 1e6, (e.get("gbps") or 0) * ms * 1e6)
valid = {}
for e in events:
    if e["event"] == "search":
        valid[(e["size"], e["variant"])] = e["valid"]

print("%-20s %8s %10s %10s %10s %9s  %s" % ("size", "at s", "est eval s", "gpu s", "cpu s", "compile s",
                                            "whole space at that estimate (s), per variant"))
seen = set()
for e in events:
    if e["event"] != "trial":
        continue
    if "compile_ms" not in e:
        sys.exit("cost-replay: the trials carry no compile_ms: the run predates it (2026-11-26)")
    s = e["size"]
    if s not in seen:
        seen.add(s)
        flops, nbytes = work.get(s, (0, 0))
        est, gpu, cpu = estimate(flops, nbytes)
        need = ", ".join("%s %.0f" % (v, n * est) for (sz, v), n in valid.items() if sz == s)
        print("%-20s %8.1f %10.4f %10.4f %10.4f %9.3f  %s" % (s, e["elapsed_s"], est, gpu, cpu, m["compile_s"], need))
    # cutune_cost_observe
    cm, mm, med = e["compile_ms"], e["measure_ms"], e.get("median_ms") or 0
    flops, nbytes = work.get(s, (0, 0))
    if cm > 0:
        m["compile_s"] = blend(m["compile_s"], cm / 1e3, m["nobs"])
    if med > 0 and mm > 0:
        ls = med / 1e3
        if flops > 0 and flops / ls > m["flop_rate"]:
            m["flop_rate"] = flops / ls
        if nbytes > 0 and nbytes / ls > m["byte_rate"]:
            m["byte_rate"] = nbytes / ls
        r = mm / med
        if med >= 1.0 and 3 <= r <= 1000:
            m["launches"] = blend(m["launches"], r, m["nobs"])
        elif med < 0.1:
            m["overhead_s"] = blend(m["overhead_s"], mm / 1e3, m["nobs"])
    m["nobs"] += 1
