#!/usr/bin/env python3
"""Replays rules that end a variant's warm start early on the trials of recorded runs
(`cutune run --json` output: .jsonl, .jsonl.gz, or .tgz archives of them).

A rule "K:R,..." ends a variant's warm start at a size once it has measured K warm configs
and its best is over R times the size's best so far; from then on its trials (warm start and
search) are dropped, as a variant that far behind gets no search (cutune_schedule_promise).
Prints per rule the variants cut, the GPU seconds their dropped trials took, and the sizes
whose best would have been lost (the best of the variants kept over the recorded best).

    bench/warm_cut_replay.py --rule 8:1.5 --rule 3:1.6,8:1.5 bench/results/*/r.tgz \\
        bench/results/*/*.jsonl.gz
"""
import argparse, collections, gzip, io, json, tarfile


def runs(path):
    """The trial lists of the runs in a file."""
    if path.endswith((".tgz", ".tar.gz")):
        with tarfile.open(path) as t:
            for m in t.getmembers():
                if m.isfile() and m.name.endswith(".jsonl"):
                    yield m.name, lines(io.TextIOWrapper(t.extractfile(m)))
        return
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        yield path, lines(f)


def lines(f):
    out = []
    for line in f:
        if line.startswith("{"):
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("event") == "trial" and e.get("phase") in ("warm start", "search"):
                out.append(e)
    return out


def ok_ms(e):
    return e["median_ms"] if e["status"] == "ok" and e["median_ms"] else None


def replay(trials, rule):
    """(variants cut, seconds dropped, [(size, best kept / best)] where a best was lost)."""
    sizes = collections.defaultdict(list)
    for e in trials:
        sizes[e["size"]].append(e)
    cuts, saved, lost = 0, 0.0, []
    for size, ts in sizes.items():
        final = min((m for m in map(ok_ms, ts) if m), default=None)
        if final is None:
            continue
        best, vbest, warm, cut = float("inf"), collections.defaultdict(lambda: float("inf")), \
            collections.Counter(), set()
        for e in ts:
            v = e["variant"]
            if v in cut:
                saved += e["measure_ms"] / 1e3
                continue
            m = ok_ms(e)
            if m:
                vbest[v] = min(vbest[v], m)
                best = min(best, m)
            if e["phase"] == "warm start":
                warm[v] += 1
                r = rule.get(warm[v])
                if r and vbest[v] > r * best:
                    cut.add(v)
                    cuts += 1
        kept = min((m for e in ts if e["variant"] not in cut for m in [ok_ms(e)] if m),
                   default=float("inf"))
        if kept > final * 1.0001:
            lost.append((size, kept / final))
    return cuts, saved, lost


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rule", action="append", required=True,
                    help="K:R[,K:R...]: cut after K warm configs over R times the size's best")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    rules = [(r, {int(k): float(x) for k, x in (p.split(":") for p in r.split(","))})
             for r in a.rule]
    data = [(name, t) for f in a.files for name, t in runs(f) if t]
    print("%d runs" % len(data))
    for text, rule in rules:
        cuts = saved = 0
        lost = []
        for name, t in data:
            c, s, l = replay(t, rule)
            cuts, saved = cuts + c, saved + s
            lost += ["%s %s %.4f" % (name, z, x) for z, x in l]
        print("%-24s %5d variants cut, %7.1f GPU s dropped, %d sizes lose their best%s"
              % (text, cuts, saved, len(lost), (": " + "; ".join(lost)) if lost else ""))


if __name__ == "__main__":
    main()
