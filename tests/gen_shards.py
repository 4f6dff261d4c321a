#!/usr/bin/env python3
"""Tuning databases shaped like the shards of a cluster run, for `cutune merge`'s tests and
benchmark (no GPU: the rows are made up, the schema is cutune's own migrations).

Each shard is a database of its own, as `cutune run --shard I/N --db shard-I.db` writes:
several devices (two H200s, two H100s), variants of four ops with a same-named variant at
two versions (matmul_async 7 and 8, the newer in the later runs), problems, runs with
UUIDs, trials of every status (cut short ones too), searches, vendor yardsticks, requests
that overlap between shards (the same key with other counts, times and states), and the
best table as the tuner keeps it. Every shard also holds the same `--base` runs, as shards
started from copies of one database do: merged, those must appear once.

    gen_shards.py OUTDIR [--shards 4] [--trials 100000] [--base 2000] [--seed 1]
                  [--schema N] [--migrations DIR]

writes OUTDIR/shard-0.db ... shard-(N-1).db. --schema N applies only the first N
migrations (an older cutune's database). Deterministic for a seed.
"""
import argparse
import datetime
import glob
import hashlib
import itertools
import os
import random
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICES = [
    ("GPU-0a000000-0000-0000-0000-0000000000a1", "NVIDIA H200", 9, 0, 132, 150000000000),
    ("GPU-0a000000-0000-0000-0000-0000000000a2", "NVIDIA H200", 9, 0, 132, 150000000000),
    ("GPU-0b000000-0000-0000-0000-0000000000b1", "NVIDIA H100 80GB HBM3", 9, 0, 132, 85000000000),
    ("GPU-0b000000-0000-0000-0000-0000000000b2", "NVIDIA H100 80GB HBM3", 9, 0, 132, 85000000000),
]
# (op, name, version); matmul_async at two versions: same name, kept apart
VARIANTS = [
    ("matmul", "matmul_naive", "1"), ("matmul", "matmul_tiled", "1"),
    ("matmul", "matmul_reg2d", "1"), ("matmul", "matmul_async", "7"),
    ("matmul", "matmul_async", "8"), ("transpose", "transpose_tiled", "1"),
    ("reduce_sum", "reduce_shuffle", "1"), ("topk", "topk_filter", "1"),
]
SIZES = {
    "matmul": ["1000x1000x1000", "1024x1024x1024", "2048x2048x2048", "4096x4096x4096",
               "8192x8192x8192", "8192x8192x64", "4096x1024x8192", "128x4096x4096"],
    "transpose": ["4096x4096", "8192x8192", "1000x3000"],
    "reduce_sum": ["16777216", "1000000", "268435456"],
    "topk": ["1048576x64", "16777216x1024"],
}
YARDSTICK = {"matmul": "cublasSgemm", "transpose": "cudaMemcpy", "reduce_sum": "cub::DeviceReduce",
             "topk": "cudaMemcpy"}
SPACE = [("BM", [32, 64, 128, 256]), ("BN", [32, 64, 128, 256]), ("BK", [8, 16, 32]),
         ("TM", [1, 2, 4, 8]), ("TN", [1, 2, 4, 8]), ("PAD", [0, 1, 4])]
CONFIGS = [",".join(f"{n}={v}" for (n, _), v in zip(SPACE, vals))
           for vals in itertools.product(*(vs for _, vs in SPACE))]
STATUSES = [("ok", 80), ("wrong_result", 3), ("compile_error", 5), ("skipped_resources", 8),
            ("crashed", 2), ("timeout", 2)]
T0 = datetime.datetime(2026, 11, 20, 0, 0, 0)


def when(seconds):
    return (T0 + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M:%S")


def source_hash(name, version):
    return hashlib.sha256(f"{name}@{version}".encode()).hexdigest()[:32]


def create(path, migrations, schema):
    files = sorted(glob.glob(os.path.join(migrations, "[0-9][0-9][0-9][0-9]_*.sql")))
    if schema is None:
        schema = len(files)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    for f in files[:schema]:
        with open(f) as fh:
            db.executescript(fh.read())
    db.execute(f"PRAGMA user_version = {schema}")
    return db, schema


class Shard:
    """One database being filled; ids are this database's own (rows inserted in a shuffled
    order, so that the same device or variant has other ids in every shard)."""

    def __init__(self, db, schema, rng):
        self.db, self.schema, self.rng = db, schema, rng
        self.dev, self.var, self.prob = {}, {}, {}
        devs = DEVICES[:]
        rng.shuffle(devs)
        for d in devs:
            cur = db.execute("INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count,"
                             " total_mem, driver_version, runtime_version, first_seen, last_seen)"
                             " VALUES (?, ?, ?, ?, ?, ?, 13000, 13000, ?, ?)",
                             d + (when(rng.randrange(0, 3600)), when(rng.randrange(200000, 300000))))
            self.dev[d[0]] = cur.lastrowid
        vs = VARIANTS[:]
        rng.shuffle(vs)
        for op, name, ver in vs:
            cur = db.execute("INSERT INTO variants (op, name, version, source_hash) VALUES (?, ?, ?, ?)",
                             (op, name, ver, source_hash(name, ver)))
            self.var[(name, ver)] = cur.lastrowid
        probs = [(op, s) for op, ss in SIZES.items() for s in ss]
        rng.shuffle(probs)
        for op, s in probs:
            self.prob[(op, s)] = db.execute("INSERT INTO problems (op, size) VALUES (?, ?)",
                                            (op, s)).lastrowid

    def run(self, rng, uuid, start, device, async_version, ntrials, status="done", host="node"):
        """One tuning run on one device: jobs of every op, ntrials trials in all."""
        db, v3 = self.db, self.schema >= 3
        cols = ("argv, op, strategy, budget, time_limit_s, seed, device_id, status, started_at,"
                " finished_at")
        vals = [f"cutune run matmul --device 0 --shard {rng.randrange(4)}/4", None, "auto", 0,
                600.0, rng.randrange(1, 1 << 40), self.dev[device], status, when(start),
                when(start + ntrials) if status != "running" else None]
        if v3:
            cols += ", uuid, pid, host"
            vals += [uuid, rng.randrange(1000, 99999), host]
        run_id = db.execute(f"INSERT INTO runs ({cols}) VALUES ({', '.join('?' * len(vals))})",
                            vals).lastrowid
        jobs = [(name, ver, op, size) for op, name, ver in VARIANTS for size in SIZES[op]
                if name != "matmul_async" or ver == async_version]
        per_job = max(1, ntrials // len(jobs))
        t, made = start, 0
        rows, searches = [], []
        for j, (name, ver, op, size) in enumerate(jobs):
            n = per_job if j < len(jobs) - 1 else ntrials - made
            if n <= 0:
                continue
            n = min(n, len(CONFIGS))
            base = {"matmul_naive": 9.0, "matmul_tiled": 4.0, "matmul_reg2d": 2.0,
                    "matmul_async": 1.0 if ver == "8" else 1.05}.get(name, 0.5)
            scale = 0.01 * (1 + SIZES[op].index(size))
            configs = rng.sample(CONFIGS, n)
            s_start = t
            for cfg in configs:
                status_ = rng.choices([s for s, _ in STATUSES], [w for _, w in STATUSES])[0]
                ok = status_ == "ok"
                med = base * scale * rng.lognormvariate(0, 0.4) if ok else None
                cut = 1 if ok and rng.random() < 0.1 else 0
                row = [run_id, self.dev[device], self.var[(name, ver)], self.prob[(op, size)], cfg,
                       status_, med, med * 0.97 if ok else None, med * 1.01 if ok else None,
                       med * 0.02 if ok else None, rng.randrange(5, 100) if ok else None,
                       rng.uniform(1000, 50000) if ok and op == "matmul" else None,
                       rng.uniform(100, 4000) if ok and op != "matmul" else None,
                       rng.random() * 1e-6 if ok else None, rng.uniform(50, 900), rng.uniform(1, 200),
                       None if ok else f"{status_} in config {cfg}", rng.randrange(1, 1 << 62),
                       when(t)]
                if v3:
                    row.append(cut)
                rows.append(row)
                t += rng.randrange(0, 2)
            made += n
            searches.append((run_id, self.dev[device], self.var[(name, ver)], self.prob[(op, size)],
                             "exhaustive" if n < 400 else "annealing", len(CONFIGS), n, t - s_start,
                             "done" if status == "done" else "interrupted", when(s_start), when(t)))
        cols = ("run_id, device_id, variant_id, problem_id, config, status, median_ms, min_ms,"
                " mean_ms, stddev_ms, samples, gflops, gbps, error, compile_ms, measure_ms,"
                " message, seed, created_at" + (", cut_short" if v3 else ""))
        db.executemany(f"INSERT INTO trials ({cols}) VALUES ({', '.join('?' * len(rows[0]))})",
                       rows)
        if v3:
            db.executemany("INSERT INTO searches (run_id, device_id, variant_id, problem_id,"
                           " strategy, nvalid, evaluated, seconds, status, started_at, ended_at)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", searches)
            for op, sizes in SIZES.items():
                for size in sizes:
                    db.execute("INSERT INTO yardsticks (run_id, device_id, problem_id, name,"
                               " median_ms, samples, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                               (run_id, self.dev[device], self.prob[(op, size)], YARDSTICK[op],
                                rng.uniform(0.01, 5), 50, when(start)))
        return t

    def requests(self, rng, keys):
        """Requests of the shared keys, each with this shard's count, times and state."""
        for i, (uuid, name, op, size) in enumerate(keys):
            if rng.random() < 0.3:
                continue
            done = rng.random() < 0.4
            first = rng.randrange(0, 100000)
            run = self.db.execute("SELECT max(id) FROM runs").fetchone()[0] if done else None
            self.db.execute("INSERT INTO requests (device_uuid, device_name, cc_major, cc_minor,"
                            " op, size, answered_by, count, status, first_at, last_at, done_at,"
                            " run_id) VALUES (?, ?, 9, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (uuid, name, op, size, rng.choice(["nearest", "same_arch", "none"]),
                             rng.randrange(1, 50), "done" if done else "pending", when(first),
                             when(first + rng.randrange(0, 50000)),
                             when(first + 60000) if done else None, run))

    def fill_best(self):
        """The best as the tuner keeps it: per (device, problem), the fastest verified trial
        of the versions whose latest verified trial there is the latest of their name."""
        self.db.execute("""
            WITH ok AS (SELECT t.id, t.device_id, t.problem_id, t.median_ms, t.created_at,
                          v.name, v.version FROM trials t JOIN variants v ON v.id = t.variant_id
                        WHERE t.status = 'ok' AND t.median_ms > 0),
                 latest AS (SELECT *, row_number() OVER (PARTITION BY device_id, problem_id, name
                              ORDER BY created_at DESC, id DESC) AS k FROM ok)
            INSERT INTO best (device_id, problem_id, trial_id)
            SELECT device_id, problem_id, id FROM (
              SELECT ok.device_id, ok.problem_id, ok.id, row_number() OVER (
                PARTITION BY ok.device_id, ok.problem_id ORDER BY ok.median_ms, ok.id) AS k
              FROM ok JOIN latest l ON l.k = 1 AND l.device_id = ok.device_id
                AND l.problem_id = ok.problem_id AND l.name = ok.name AND l.version = ok.version)
            WHERE k = 1""")


def generate(outdir, shards=4, trials=100000, base=2000, seed=1, schema=None, migrations=None,
             prefix="shard"):
    """Write outdir/<prefix>-I.db for I in 0..shards-1; returns their paths."""
    migrations = migrations or os.path.join(HERE, "..", "db", "migrations")
    os.makedirs(outdir, exist_ok=True)
    keys_rng = random.Random(seed * 7919)
    keys = [(d[0], d[1], op, size) for d in DEVICES for op, ss in SIZES.items() for size in ss]
    keys = keys_rng.sample(keys, len(keys) // 2) + [(d[0], d[1], "matmul", f"{n}x{n}x{n}")
                                                     for d in DEVICES for n in (3000, 5000)]
    paths = []
    for i in range(shards):
        path = os.path.join(outdir, f"{prefix}-{i}.db")
        for side in ("", "-wal", "-shm"):
            if os.path.exists(path + side):
                os.unlink(path + side)
        db, sch = create(path, migrations, schema)
        rng = random.Random(seed * 1000003 + i)
        sh = Shard(db, sch, rng)
        db.execute("BEGIN")
        # the runs every shard inherited from the database they were copied from
        brng = random.Random(seed)
        t = 0
        for b in range(2 if base else 0):
            t = sh.run(brng, f"{seed:08x}b{b:023x}", t, DEVICES[b][0], "7", base // 2,
                       host="workstation") + 10
        # this shard's own runs: v7 first on some, v8 later; one run cut off on shard 1
        t = max(t, 100000 + 1000 * i)
        nruns = 4
        for r in range(nruns):
            dev = DEVICES[(i + r) % len(DEVICES)][0]
            t = sh.run(rng, "%032x" % rng.getrandbits(128), t, dev, "7" if r == 0 else "8",
                       trials // nruns if r < nruns - 1 else trials - (nruns - 1) * (trials // nruns),
                       status="interrupted" if (i == 1 and r == nruns - 1) else "done",
                       host=f"node{i:03d}") + 10
        if sch >= 2:
            sh.requests(rng, keys)
        sh.fill_best()
        db.execute("COMMIT")
        db.close()
        paths.append(path)
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--trials", type=int, default=100000, help="trials of each shard's own runs")
    ap.add_argument("--base", type=int, default=2000, help="trials of the runs every shard shares")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--schema", type=int, default=None)
    ap.add_argument("--migrations", default=None)
    a = ap.parse_args()
    for p in generate(a.outdir, a.shards, a.trials, a.base, a.seed, a.schema, a.migrations):
        print(p)


if __name__ == "__main__":
    sys.exit(main())
