#!/usr/bin/env python3
"""Kernel Tuner caches in and out: `cutune import kernel-tuner` of caches Kernel Tuner wrote
(tests/data/kernel_tuner/: make_cpu_caches.py on a CPU, scripts/kt_cache.py on a GPU) into a
database and into recordings, each replayed without loss (the number of configs and the
optimum are Kernel Tuner's own); the bad caches refused with one error and no database
change; and `cutune export --format kernel-tuner` read back, by Kernel Tuner itself in
simulation mode where it is installed (else by json), each config as the trial the best
table takes, so that the cache's optimum is `cutune query`'s (with the fake worker).

    test_kernel_tuner.py CUTUNE_EXE [SOURCE_ROOT [FAKE_WORKER]]"""
import glob
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks, run_cutune  # noqa: E402

exe = sys.argv[1]
src = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
fake_worker = sys.argv[3] if len(sys.argv) > 3 else None
data = os.path.join(src, "tests", "data", "kernel_tuner")
tmp = tempfile.mkdtemp(prefix="cutune-kt-")
check = Checks()


def run(*args):
    return run_cutune(exe, *args)


def kt_read(path):
    """A cache as Kernel Tuner reads it (an unclosed one made whole), and its optimum."""
    text = open(path).read().strip()
    if text[-3:] not in ("}\n}", "}}}"):
        text = text.rstrip(",") + "}\n}"
    cache = json.loads(text)["cache"]
    times = [e["time"] for e in cache.values() if not isinstance(e.get("time"), str)]
    return cache, min(times) if times else 0


def digest(path):
    if not os.path.exists(path):
        return None
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def replay_json(*args):
    rc, out, err = run("replay", *args, "--json", "--seeds", "2", "--budgets", "5")
    check(rc == 0, "replay %s: %s" % (args, err))
    return json.loads(out)["recording"] if rc == 0 else {}


def same(a, b):
    return abs(a - b) <= 1e-8 * max(abs(a), abs(b))


# ---- foreign recordings (a kernel cutune does not have), a closed and a cut-off cache ----
for name in ("cpu-vector_scale.json", "cpu-vector_scale-cut.json"):
    cache, best = kt_read(os.path.join(data, name))
    out = os.path.join(tmp, name + ".csv")
    rc, so, se = run("import", "kernel-tuner", os.path.join(data, name), "--op", "vscale",
                     "--variant", "vector_scale", "--device-name", "CPU", "--output", out)
    check(rc == 0, "%s imports as a recording: %s" % (name, se))
    check("%d configs" % len(cache) in so, "%s: the summary counts %d configs: %s" % (name, len(cache), so))
    r = replay_json(out)
    check(r.get("configs") == len(cache) and r.get("not_recorded") == 0,
          "%s replays all %d configs: %s" % (name, len(cache), r))
    check(same(r.get("best_ms", 0), best), "%s: optimum %s == Kernel Tuner's %s" % (name, r.get("best_ms"), best))
    if name == "cpu-vector_scale.json":
        rows = [l for l in open(out) if l[:1].isdigit()]
        scales = {l.split(",")[2] for l in rows}
        check(scales == {"0", "1"}, "SCALE (0.5, 2.0) is recorded as its value's index: %s" % scales)
check(len(kt_read(os.path.join(data, "cpu-vector_scale-cut.json"))[0]) <
      len(kt_read(os.path.join(data, "cpu-vector_scale.json"))[0]), "the cut cache is shorter")

# ---- trials of an installed variant: into a database, replayed with its space ----------
db = os.path.join(tmp, "kt.db")
axpy = os.path.join(data, "cpu-axpy_template.json")
cache, best = kt_read(axpy)
rc, so, se = run("import", "kernel-tuner", axpy, "--op", "axpy", "--variant", "axpy_template",
                 "--size", "65536", "--device-name", "CPU", "--db", db)
check(rc == 0 and "into %s as run 1" % db in so, "axpy imports into the database: %s %s" % (so, se))
r = replay_json(db, "--variant", "axpy_template", "--size", "65536")
check(r.get("configs") == len(cache) == 20 and r.get("not_recorded") == 0 and r.get("ok") == 20,
      "the database replays the 20 configs of the space, none missing: %s" % r)
check(same(r.get("best_ms", 0), best), "the database's optimum is Kernel Tuner's: %s %s" % (r.get("best_ms"), best))
rc, so, se = run("query", "axpy", "--size", "65536", "--device", "kernel-tuner:CPU", "--db", db, "--json")
best_key = min(cache, key=lambda k: cache[k]["time"])
want = "BLOCK=%d,ITEMS=%d" % (cache[best_key]["BLOCK"], cache[best_key]["ITEMS"])
# imported trials were never checked by cutune on that device: no answer until a run has
check(rc == 4 and want not in so and "never checked by cutune" in se,
      "query does not answer with Kernel Tuner's unchecked best %s (exit 4, says why): %d %s %s"
      % (want, rc, so, se))
rc, so, se = run("query", "axpy", "--size", "65536", "--device", "kernel-tuner:CPU", "--db", db,
                 "--fallback", "--json")
check(rc == 4 and want not in so, "nor does a fallback lookup: %d %s %s" % (rc, so, se))

# GPU caches of scripts/kt_cache.py, when the lead has added them (their own names: the
# export below compares with axpy's optimum)
for path in sorted(glob.glob(os.path.join(data, "*-matadd_2d-*.json"))):
    gcache, gbest = kt_read(path)
    size = re.search(r"matadd_2d-([0-9x]+)\.json$", path).group(1)
    gdb = os.path.join(tmp, os.path.basename(path) + ".db")
    rc, so, se = run("import", "kernel-tuner", path, "--op", "matadd", "--variant", "matadd_2d",
                     "--size", size, "--db", gdb)
    check(rc == 0, "%s imports: %s" % (path, se))
    r = replay_json(gdb, "--variant", "matadd_2d", "--size", size)
    check(r.get("configs") == len(gcache) and r.get("not_recorded") == 0,
          "%s replays its %d configs with the space: %s" % (path, len(gcache), r))
    check(same(r.get("best_ms", 0), gbest), "%s: optimum %s == Kernel Tuner's %s" % (path, r.get("best_ms"), gbest))

# ---- failures map to statuses ------------------------------------------------------------
full = json.load(open(axpy))
keys = list(full["cache"])
full["cache"][keys[0]]["time"] = "CompilationFailedConfig"
full["cache"][keys[1]]["time"] = "InvalidConfig"
full["cache"][keys[2]]["time"] = "RuntimeFailedConfig"
failed = os.path.join(tmp, "failed.json")
json.dump(full, open(failed, "w"))
out = os.path.join(tmp, "failed.csv")
rc, so, se = run("import", "kernel-tuner", failed, "--op", "axpy", "--variant", "axpy_template",
                 "--size", "65536", "--device-name", "CPU", "--output", out)
text = open(out).read() if rc == 0 else ""
check(rc == 0 and "(17 ok, 3 failed)" in so, "three failures counted: %s %s" % (so, se))
for status in ("compile_error", "skipped_resources", "launch_error"):
    check(",%s," % status in text, "the recording has a %s" % status)

# ---- bad caches: one clear error each, and the database as it was ------------------------
before = digest(db)


def bad(label, cache_obj_or_text, args, pattern, code=1):
    path = os.path.join(tmp, label + ".json")
    with open(path, "w") as f:
        f.write(cache_obj_or_text if isinstance(cache_obj_or_text, str) else json.dumps(cache_obj_or_text))
    rc, so, se = run("import", "kernel-tuner", path, *args)
    lines = [l for l in se.splitlines() if l.strip() and not l.startswith("(see `cutune")]
    check(rc == code, "%s: exit %d, got %d (%s)" % (label, code, rc, se))
    check(len(lines) == 1 and re.search(pattern, se), "%s: one error matching %r: %r" % (label, pattern, se))
    check(digest(db) == before, "%s: the database is unchanged" % label)


into_db = ["--op", "axpy", "--variant", "axpy_template", "--size", "65536", "--device-name", "CPU", "--db", db]
old = json.load(open(axpy))
del old["tune_params_keys"]
bad("no-keys", old, into_db, r'no "tune_params_keys".*another version')
old = json.load(open(axpy))
del old["cache"][keys[3]]["time"]
bad("no-time", old, into_db, r'entry "%s" has no "time".*nothing was imported' % keys[3])
old = json.load(open(axpy))
del old["cache"][keys[4]]["ITEMS"]
bad("no-param", old, into_db, r'entry "%s" has no value for parameter ITEMS' % keys[4])
old = json.load(open(axpy))
old["cache"][keys[5]]["BLOCK"] = 96
bad("not-listed", old, into_db, r"96 is not one of the values tune_params lists")
old = json.load(open(axpy))
old["cache"][keys[6]]["time"] = "Exploded"
bad("unknown-failure", old, into_db, r"its time 'Exploded' is neither")
bad("not-json", open(axpy).read().replace('"tune_params"', "tune_params", 1), into_db,
    r"kt\.json|not-json\.json:\d+:\d+: expected a member name")
other = json.load(open(os.path.join(data, "cpu-vector_scale.json")))
bad("other-params", other, into_db, r"its parameters \(BLOCK, UNROLL, SCALE \(not integers\)\) are "
    r"not those of variant axpy_template's space.*nothing was written.*--output FILE\.csv")
bad("not-installed", other, ["--op", "vscale", "--variant", "vector_scale", "--device-name", "CPU", "--db", db],
    r"variant vector_scale is not installed.*--output FILE\.csv")
bad("no-device", other, ["--op", "vscale", "--variant", "vector_scale", "--output", os.path.join(tmp, "x.csv")],
    r"names no device.*--device-name", code=2)
check(not os.path.exists(os.path.join(tmp, "x.csv")), "no recording was written for the refused cache")

# ---- out: the database as a Kernel Tuner cache --------------------------------------------
exported = os.path.join(tmp, "exported.json")
rc, so, se = run("export", "--format", "kernel-tuner", "--variant", "axpy_template", "--size", "65536",
                 "--db", db, "--output", exported)
check(rc == 0 and "20 configs" in se, "export writes 20 configs: %s" % se)
back = json.load(open(exported)) if rc == 0 else {"cache": {}}
orig = json.load(open(axpy))
check(back.get("tune_params_keys") == orig["tune_params_keys"] and back.get("tune_params") == orig["tune_params"],
      "the header names the parameters and values as Kernel Tuner did")
check(set(back["cache"]) == set(orig["cache"]), "the same cache keys")
check(all(back["cache"][k]["time"] == orig["cache"][k]["time"] for k in orig["cache"] if k in back["cache"]),
      "every time is Kernel Tuner's own, exactly")
rc, so, se = run("export", "--format", "kernel-tuner", "--variant", "axpy_template", "--db", db)
check(rc == 2 and "needs --variant and --size" in se, "export without --size is a usage error")

# ---- the export's optimum is the best table's: a config measured again, slower, keeps its
# fastest verified trial (the newest one moved the optimum away from `cutune query`'s) ------
if fake_worker:
    bdb = os.path.join(tmp, "best.db")
    env = dict(os.environ, CUTUNE_WORKER=fake_worker)
    env.pop("CUTUNE_FAKE_RULES", None)
    rc, so, se = run_cutune(exe, "run", "axpy", "--size", "65536", "--db", bdb, "--no-progress", env=env)
    check(rc == 0, "a run with the fake worker: %s" % se)
    con = sqlite3.connect(bdb)
    uuid, best_id, config = con.execute(
        "SELECT d.uuid, t.id, t.config FROM best b JOIN devices d ON d.id = b.device_id"
        " JOIN trials t ON t.id = b.trial_id").fetchone()
    slowest = con.execute("SELECT max(median_ms) FROM trials WHERE status = 'ok'").fetchone()[0]
    cols = [r[1] for r in con.execute("PRAGMA table_info(trials)") if r[1] != "id"]
    # the same config measured again, later and slower than every config: what the tuner
    # records for a re-timing that ran under load, the best staying with the faster one
    con.execute("INSERT INTO trials (%s) SELECT %s FROM trials WHERE id = ?" % (
        ", ".join(cols), ", ".join("? AS x" if c in ("median_ms", "created_at") else c for c in cols)),
        [2 * slowest if c == "median_ms" else "2099-01-01 00:00:00" for c in cols
         if c in ("median_ms", "created_at")] + [best_id])
    con.commit()
    con.close()
    rc, so, se = run("query", "axpy", "--size", "65536", "--device", uuid, "--db", bdb, "--json")
    check(rc == 0 and json.loads(so).get("config_text") == config if rc == 0 else False,
          "query answers the best config %s: %s %s" % (config, so, se))
    bexp = os.path.join(tmp, "best.json")
    rc, so, se = run("export", "--format", "kernel-tuner", "--variant", "axpy_template", "--size", "65536",
                     "--db", bdb, "--output", bexp)
    check(rc == 0, "export of the run: %s" % se)
    if rc == 0:
        bc = json.load(open(bexp))["cache"]
        fastest = min((e for e in bc.values() if not isinstance(e["time"], str)), key=lambda e: e["time"])
        got = "BLOCK=%d,ITEMS=%d" % (fastest["BLOCK"], fastest["ITEMS"])
        check(got == config, "the export's optimum %s is query's %s" % (got, config))
else:
    print("no fake worker given: the export's choice of trials was not checked")

kt_python = os.environ.get("KT_PYTHON", sys.executable)
probe = subprocess.run([kt_python, "-c", "import kernel_tuner"], capture_output=True)
if probe.returncode == 0 and rc is not None:
    script = r"""
import json, sys, warnings
import numpy as np, kernel_tuner
warnings.simplefilter("ignore")
d = json.load(open(sys.argv[1]))
n = np.int32(d["problem_size"])
x = np.zeros(n, np.float32)
res, env = kernel_tuner.tune_kernel(d["kernel_name"], "void f(void) {}", n, [x, x, x, np.float32(1), n],
    d["tune_params"], lang="C", cache=sys.argv[1], simulation_mode=True, strategy="brute_force",
    verbose=False, quiet=True)
ok = [r["time"] for r in res if not isinstance(r.get("time"), str) and "__error__" not in r]
print(json.dumps({"configs": len(res), "ok": len(ok), "best": min(ok)}))
"""
    p = subprocess.run([kt_python, "-c", script, exported], capture_output=True, text=True)
    got = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {}
    check(got.get("configs") == 20 and got.get("ok") == 20 and got.get("best") == best,
          "Kernel Tuner simulates from the export: 20 configs, its optimum %s: %s %s" % (best, got, p.stderr[-500:]))
    print("Kernel Tuner read the export:", got)
else:
    print("kernel_tuner is not importable (KT_PYTHON=%s): the export was checked with json only" % kt_python)

shutil.rmtree(tmp)
check.done()
