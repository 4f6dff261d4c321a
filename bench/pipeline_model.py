#!/usr/bin/env python3
"""A model of the tuner's pipeline (tune_job.c), to price a search strategy's in-flight
limit in wall time. Not a GPU measurement: every figure it prints comes from the
assumptions below, which are flags.

The tuner keeps up to WINDOW proposals in flight (compile threads + 2), submits each to a
pool of THREADS compile threads in proposal order, measures them one at a time on the GPU
as their compiles finish (`--order proposal`: in proposal order, as the tuner did before
2026-11-25, with 2 x compile threads + 2 in flight), and after each result asks the
strategy for more. A
strategy may hold fewer in flight (`--ramp START,HOLD`: START until HOLD results are known,
then one more per result, as portfolio's ramp does); next() then answers WAIT and compile
threads idle. Compile times are log-normal around a median.

    bench/pipeline_model.py [--threads 16] [--compile 0.85] [--spread 0.35]
                            [--measure 0.03] [--runs 200] [--evals 25,100,400]
                            [--order completion|proposal] [--window N]
"""
import argparse
import heapq
import math
import random


def run_once(rng, n, window, cap_of, threads, compile_s, spread, measure_s, completion):
    """Seconds from the first proposal to each result, for n results."""
    free = [0.0] * threads  # when each compile thread is next free
    heapq.heapify(free)
    done_compile = []       # per proposal, when its compile ends (proposal order)
    ready = []              # the compile ends in flight, earliest first (completion order)
    results = []
    now = 0.0
    gpu_free = 0.0
    proposed = 0
    fed = 0
    while fed < n:
        while proposed < n and proposed - fed < min(window, cap_of(fed)):
            start = max(now, heapq.heappop(free))
            end = start + compile_s * math.exp(rng.gauss(0.0, spread))
            heapq.heappush(free, end)
            done_compile.append(end)
            heapq.heappush(ready, end)
            proposed += 1
        compiled = heapq.heappop(ready) if completion else done_compile[fed]
        start = max(compiled, gpu_free)
        gpu_free = start + measure_s
        now = gpu_free
        results.append(now)
        fed += 1
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--compile", type=float, default=0.85, help="median seconds a compile")
    ap.add_argument("--spread", type=float, default=0.35, help="sigma of log(compile time)")
    ap.add_argument("--measure", type=float, default=0.03, help="seconds a measurement")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--evals", default="25,100,400")
    ap.add_argument("--order", choices=("completion", "proposal"), default="completion",
                    help="the order compiled configs are measured in")
    ap.add_argument("--window", type=int, default=0,
                    help="in flight (default: threads + 2 in completion order, "
                    "2 x threads + 2 in proposal order)")
    ap.add_argument("--ramp", action="append", default=[],
                    help="START,HOLD: a ramp to price besides the full window")
    a = ap.parse_args()
    evals = [int(x) for x in a.evals.split(",")]
    completion = a.order == "completion"
    window = a.window or (a.threads + 2 if completion else 2 * a.threads + 2)
    policies = [(f"{window} in flight from the start", lambda fed: window)]
    for spec in a.ramp:
        st, hold = (int(x) for x in spec.split(","))
        policies.append((f"{st} in flight for {hold} results, then +1 a result",
                         lambda fed, st=st, hold=hold: st + max(0, fed - hold)))
    print(f"{a.threads} compile threads, {a.compile} s a compile (log-normal, sigma "
          f"{a.spread}), {a.measure} s a measurement, window {window}, measured in {a.order} "
          f"order; mean of {a.runs} runs")
    print()
    print("| in flight | " + " | ".join(f"s to {e}" for e in evals) + " | "
          + " | ".join(f"evals/s to {e}" for e in evals) + " |")
    print("|---" * (1 + 2 * len(evals)) + "|")
    for name, cap in policies:
        rng = random.Random(1)
        t = [0.0] * len(evals)
        for _ in range(a.runs):
            r = run_once(rng, max(evals), window, cap, a.threads, a.compile, a.spread,
                         a.measure, completion)
            for i, e in enumerate(evals):
                t[i] += r[e - 1] / a.runs
        print(f"| {name} | " + " | ".join(f"{x:.1f}" for x in t) + " | "
              + " | ".join(f"{e / x:.1f}" for e, x in zip(evals, t)) + " |")


if __name__ == "__main__":
    main()
