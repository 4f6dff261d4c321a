#!/usr/bin/env python3
"""GPUs of one model share their results, through the command and the Python module.

Two fake GPUs of one model (tests/fake_worker.c with CUTUNE_FAKE_UUID: same name, compute
capability, SM count and memory) each tune sizes into a database of their own, as two
shards do; `cutune merge` joins them. Then `cutune query` by either UUID, by the name they
share and by --fallback, and Python's lookup by name and by UUID, give the exact size tuned
on either GPU, saying the step (exact on the GPU that tuned it, same_model on the other),
and the vendor yardstick each run recorded for either;
the model's best of a size both tuned is the faster of the two. A third GPU of that name
with fewer SMs is another model: the merge says so, it never answers for the first two,
and `cutune query --device NAME` refuses the name, naming the models and asking for a UUID.

    test_models.py CUTUNE_EXE FAKE_WORKER"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks  # noqa: E402

exe, fake = sys.argv[1], sys.argv[2]
G1, G2, G3 = ("GPU-fa4e0000-0000-0000-0000-00000000000%d" % i for i in (1, 2, 3))
check = Checks()


def cutune(*args, env=None):
    e = dict(os.environ, CUTUNE_WORKER=fake, **(env or {}))
    return subprocess.run([exe] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=120, env=e)


def tune(db, uuid, sizes, sms=132):
    args = ["run", "axpy", "--max-seconds", "0.05", "--no-progress", "--db", db]
    for s in sizes:
        args += ["--size", str(s)]
    r = cutune(*args, env={"CUTUNE_FAKE_UUID": uuid, "CUTUNE_FAKE_SMS": str(sms)})
    check(r.returncode == 0, "cutune run on %s: %d %s" % (uuid, r.returncode, r.stderr[-500:]))


def query(db, device, size, *more):
    r = cutune("query", "axpy", "--size", str(size), "--device", device, "--db", db, "--json",
               *more)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else r.stderr)


def best_ms(db, uuid, size):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    row = con.execute("SELECT median_ms FROM best_configs WHERE device_uuid = ? AND size = ?",
                      (uuid, str(size))).fetchone()
    con.close()
    return row[0]


tmp = tempfile.mkdtemp(prefix="cutune-models-")
try:
    a, b, m = (os.path.join(tmp, n) for n in ("a.db", "b.db", "m.db"))
    tune(a, G1, [4096, 16384])
    tune(b, G2, [8192, 16384])
    r = cutune("merge", m, a, b)
    check(r.returncode == 0 and "GPUs named" not in r.stdout, "merge of one model: %s" % r.stdout)

    # by either UUID: the size the other GPU tuned is step 2, same_model
    for dev, size, step, on in ((G1, 8192, "same_model", G2), (G2, 8192, "exact", G2),
                                (G2, 4096, "same_model", G1), (G1, 4096, "exact", G1)):
        rc, out = query(m, dev, size)
        check(rc == 0 and out["match"] == step and out["device"]["uuid"] == on,
              "query --device %s --size %d: want %s on %s, got %s %s" % (dev, size, step, on, rc, out))
        rc, out = query(m, dev, size, "--fallback")
        check(rc == 0 and out["match"] == step and out["device"]["uuid"] == on,
              "query --fallback --device %s --size %d: %s %s" % (dev, size, rc, out))
    con = sqlite3.connect("file:%s?mode=ro" % m, uri=True)
    clocks = con.execute("SELECT device_uuid, sm_clock_khz, mem_clock_khz, model_id, gpus"
                         " FROM device_models ORDER BY device_uuid").fetchall()
    con.close()
    check(len(clocks) == 2 and clocks[0][1:3] == (1980000, 2619000) and
          clocks[0][3] == clocks[1][3] and clocks[0][4] == 2,
          "the devices' clocks (from the worker) and their one model: %s" % clocks)
    r = cutune("query", "axpy", "--size", "8192", "--device", G1, "--db", m)
    check(r.returncode == 0 and "same_model" in r.stdout, "the text answer says the step: %s" % r.stdout)

    # by the name both share: the model, each size from the GPU that tuned it, and for a size
    # both tuned the faster (the model's best)
    for size, on in ((4096, G1), (8192, G2)):
        rc, out = query(m, "fake GPU", size)
        check(rc == 0 and out["match"] == "same_model" and out["device"]["uuid"] == on,
              "query --device 'fake GPU' --size %d: %s %s" % (size, rc, out))
    rc, out = query(m, "fake GPU", 16384)
    fastest = min(best_ms(m, G1, 16384), best_ms(m, G2, 16384))
    check(rc == 0 and out["median_ms"] == fastest,
          "the model's best of 16384 is the faster GPU's %g: %s %s" % (fastest, rc, out))

    # the Python module, by name (the README's device="H100") and by UUID
    try:
        import cutune as ct
    except ImportError as e:
        ct = None
        print("models: the Python module is not importable here (%s): its checks skipped" % e)
    if ct is not None:
        with ct.open(m, record_requests=False) as h:
            for dev, size, step, on in (("fake GPU", 8192, "same_model", G2),
                                        ("fake GPU", 4096, "same_model", G1),
                                        (G1, 8192, "same_model", G2), (G2, 8192, "exact", G2)):
                got = h.lookup("axpy", size, device=dev)
                check(got.match == step and got.device_uuid == on and got.tuned_size == str(size),
                      "python lookup(%r, %d): %r" % (dev, size, got))
            check(h.lookup("axpy", 8192, device=G1, fallback=False).match == "same_model",
                  "an exact size of the model is no fallback")
            # the vendor yardstick each run recorded (the fake worker's), on the GPU that ran
            # the size or on the other GPU of its model, never at another size
            for dev, size in ((G1, 4096), (G2, 4096), (G1, 8192), ("fake GPU", 16384)):
                got = h.yardstick("axpy", size, device=dev)
                check(got == ("fake SGEMM", 0.5), "python yardstick(%r, %d): %r" % (dev, size, got))
            check(h.yardstick("axpy", 1024, device=G1) is None, "no yardstick at a size not run")

    # a same-named GPU with fewer SMs: another model
    c, m2 = os.path.join(tmp, "c.db"), os.path.join(tmp, "m2.db")
    tune(c, G3, [32768], sms=114)
    r = cutune("merge", m2, a, b, c)
    check(r.returncode == 0 and "3 GPUs named 'cutune fake GPU' are 2 models" in r.stdout,
          "the merge says that same-named GPUs are two models: %s" % r.stdout)
    rc, out = query(m2, G3, 8192)
    check(rc == 4, "the 114-SM GPU takes no answer from the 132-SM model: %s %s" % (rc, out))
    rc, out = query(m2, G1, 32768)
    check(rc == 4, "the 132-SM GPU takes no answer from the 114-SM one: %s %s" % (rc, out))
    rc, out = query(m2, G1, 8192)
    check(rc == 0 and out["match"] == "same_model", "the two of one model still share: %s" % out)
    rc, out = query(m2, "fake GPU", 8192)
    check(rc != 0 and "separate models" in out and "114 SMs" in out and "132 SMs" in out
          and "--device GPU-" in out,
          "query --device NAME over two models explains and asks for a UUID: %s %s" % (rc, out))
    rc, out = query(m2, G3, 32768)
    check(rc == 0 and out["match"] == "exact", "the other model by its UUID: %s %s" % (rc, out))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

check.done("models")
