"""A small tuning database for the Python tests and the CI check, built from the schema's
own migrations (db/migrations), as cutune builds one: three GPUs, a few ops and sizes.

    python3 tests/python/fixture_db.py OUT.db    # writes it, for a shell or CI"""
import os
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

H100 = ("GPU-11111111-2222-3333-4444-555555555555", "NVIDIA H100 80GB HBM3", 9, 0)
H200 = ("GPU-66666666-7777-8888-9999-aaaaaaaaaaaa", "NVIDIA H200", 9, 0)
A100 = ("GPU-bbbbbbbb-cccc-dddd-eeee-ffffffffffff", "NVIDIA A100-SXM4-80GB", 8, 0)

# (device, op, variant, size, config, median_ms, gflops); the best of each key is the
# fastest of its rows.
TRIALS = [
    (H100, "matmul", "matmul_tiled", "1024x1024x1024", "TILE=32,ROWS=8,PAD=1", 0.25, 8590.0),
    (H100, "matmul", "matmul_tiled", "1024x1024x1024", "TILE=16,ROWS=4,PAD=0", 0.41, 5237.0),
    (H100, "matmul", "matmul_async", "4096x4096x4096", "BM=128,BN=128,BK=8", 5.5, 24989.0),
    (H100, "reduce_sum", "reduce_shuffle", "1048576", "BLOCK=256,ITEMS=4,VEC=4,BLOCKS_PER_SM=2",
     0.004, 0.0),
    (H200, "matmul", "matmul_tiled", "2048x2048x2048", "TILE=32,ROWS=8,PAD=1", 1.9, 9042.0),
    (A100, "transpose", "transpose_tiled", "8192x8192", "TILE=32,ROWS=8,PAD=1,VEC=1", 0.3, 0.0),
]

# (device, op, size, name, median_ms): vendor yardsticks `cutune run` recorded beside them;
# 1024^3 on the H100 is slower than its best (0.25 ms), 4096^3 faster (5.5 ms)
YARDSTICKS = [
    (H100, "matmul", "1024x1024x1024", "cuBLAS SGEMM", 0.3),
    (H100, "matmul", "4096x4096x4096", "cuBLAS SGEMM", 5.0),
]


def build(path, root=ROOT):
    """Write the fixture database at path (replacing it) and return path."""
    if os.path.exists(path):
        os.remove(path)
    mig_dir = os.path.join(root, "db", "migrations")
    migrations = sorted(f for f in os.listdir(mig_dir) if f.endswith(".sql"))
    con = sqlite3.connect(path)
    for f in migrations:
        with open(os.path.join(mig_dir, f)) as fh:
            con.executescript(fh.read())
    con.execute("PRAGMA user_version = %d" % len(migrations))
    con.execute("PRAGMA journal_mode = WAL")
    cur = con.cursor()
    cur.execute("INSERT INTO runs (argv, op, strategy) VALUES ('fixture', 'matmul', 'exhaustive')")
    run = cur.lastrowid
    ids = {}

    def row_id(table, key, insert, values):
        if (table, key) not in ids:
            cur.execute(insert, values)
            ids[table, key] = cur.lastrowid
        return ids[table, key]

    best = {}
    for dev, op, variant, size, config, ms, gflops in TRIALS:
        d = row_id("devices", dev[0],
                   "INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, total_mem,"
                   " driver_version, runtime_version) VALUES (?, ?, ?, ?, 132, 80000000000,"
                   " 13000, 13000)", dev)
        v = row_id("variants", variant,
                   "INSERT INTO variants (op, name, version, source_hash) VALUES (?, ?, '1',"
                   " 'fixture')", (op, variant))
        p = row_id("problems", (op, size), "INSERT INTO problems (op, size) VALUES (?, ?)",
                   (op, size))
        cur.execute("INSERT INTO trials (run_id, device_id, variant_id, problem_id, config,"
                    " status, median_ms, min_ms, mean_ms, stddev_ms, samples, gflops)"
                    " VALUES (?, ?, ?, ?, ?, 'ok', ?, ?, ?, 0, 10, ?)",
                    (run, d, v, p, config, ms, ms, ms, gflops))
        if (d, p) not in best or ms < best[d, p][1]:
            best[d, p] = (cur.lastrowid, ms)
    for dev, op, size, name, ms in YARDSTICKS:
        cur.execute("INSERT INTO yardsticks (run_id, device_id, problem_id, name, median_ms,"
                    " samples) VALUES (?, ?, ?, ?, ?, 10)",
                    (run, ids["devices", dev[0]], ids["problems", (op, size)], name, ms))
    for (d, p), (trial, _) in best.items():
        cur.execute("INSERT INTO best (device_id, problem_id, trial_id) VALUES (?, ?, ?)",
                    (d, p, trial))
        # each best passed its check at a ragged size near its own (each even dimension
        # less one), as a run records it, so it may answer other sizes
        v, size, config = cur.execute("SELECT t.variant_id, p.size, t.config FROM trials t"
                                      " JOIN problems p ON p.id = t.problem_id WHERE t.id = ?",
                                      (trial,)).fetchone()
        ragged = "x".join(str(n - 1 if n > 1 and n % 2 == 0 else n)
                          for n in map(int, size.split("x")))
        cur.execute("INSERT INTO ragged_checks (run_id, device_id, variant_id, problem_id,"
                    " config, ragged_size, passed) VALUES (?, ?, ?, ?, ?, ?, 1)",
                    (run, d, v, p, config, ragged))
    con.commit()
    con.close()
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fixture_db.py OUT.db")
    print(build(sys.argv[1]))


def query(path, sql):
    """The rows of sql on the database at path."""
    con = sqlite3.connect(path)
    rows = con.execute(sql).fetchall()
    con.close()
    return rows
