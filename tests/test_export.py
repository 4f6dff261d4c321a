#!/usr/bin/env python3
"""cutune export round-trips: a database built here from db/migrations (as cutune builds
it), exported as JSON, CSV and a C header; each is read back (json, csv, and the header
compiled into a program that prints its table) and must give exactly the database's best
configs, awkward names included. Filters --device and --op, and the empty export. Then
`cutune query --fallback` down the lookup ladder on the same database.

    test_export.py CUTUNE_EXE SOURCE_ROOT CC"""
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks  # noqa: E402

exe, src, cc = sys.argv[1], sys.argv[2], sys.argv[3]
check = Checks()

tmp = tempfile.mkdtemp(prefix="cutune-export-")
db = os.path.join(tmp, "t.db")
mig = sorted(f for f in os.listdir(os.path.join(src, "db", "migrations")) if f.endswith(".sql"))
con = sqlite3.connect(db)
for f in mig:
    con.executescript(open(os.path.join(src, "db", "migrations", f)).read())
con.execute("PRAGMA user_version = %d" % len(mig))
con.execute("PRAGMA journal_mode = WAL")

devices = [("GPU-11111111-aaaa", 'NVIDIA "H100", SXM5 ?? trigraph\\ test', 9, 0),
           ("GPU-22222222-bbbb", "NVIDIA A100-SXM4-80GB", 8, 0)]
for i, (uuid, name, ma, mi) in enumerate(devices, 1):
    con.execute("INSERT INTO devices (id, uuid, name, cc_major, cc_minor, sm_count, total_mem,"
                " driver_version, runtime_version) VALUES (?, ?, ?, ?, ?, 132, 1, 13000, 13000)",
                (i, uuid, name, ma, mi))
con.execute("INSERT INTO variants VALUES (1, 'matmul', 'matmul_tiled', '1', 'h')")
con.execute("INSERT INTO variants VALUES (2, 'axpy', 'axpy_template', '2', 'h')")
problems = [(1, "matmul", "1024x1024x1024"), (2, "matmul", "4096x1024x8192"), (3, "axpy", "1048576"),
            (4, "matmul", "1024x1024x1024-bf16-nt"), (5, "matmul", "1024x1024x1024-bf16-nt-bias")]
con.executemany("INSERT INTO problems VALUES (?, ?, ?)", problems)
trials = [  # id, device, variant, problem, config, median
    (1, 1, 1, 1, "TILE=32,PAD=1,WPT=4,UNROLL=8", 0.123456789012345),
    (2, 1, 1, 1, "TILE=16,PAD=0,WPT=1,UNROLL=1", 0.5),  # slower: not the best
    (3, 1, 1, 2, "TILE=64,PAD=0,WPT=8,UNROLL=64", 7.25),
    (4, 2, 1, 1, "TILE=16,PAD=1,WPT=2,UNROLL=16", 0.3),
    (5, 2, 2, 3, "BLOCK=256,ITEMS=-4", 0.01),
    (6, 1, 1, 4, "TILE=64,PAD=0,WPT=4,UNROLL=8", 0.02),  # bf16, B stored N x K
    (7, 1, 1, 5, "TILE=32,PAD=0,WPT=4,UNROLL=8", 0.021),  # the same, plus a bias
]
for t in trials:
    con.execute("INSERT INTO trials (id, device_id, variant_id, problem_id, config, status,"
                " median_ms, min_ms, samples, gflops) VALUES (?, ?, ?, ?, ?, 'ok', ?, ?, 5, ?)",
                t + (t[5] * 0.9, 1000.0 / t[5]))
con.executemany("INSERT INTO best (device_id, problem_id, trial_id) VALUES (?, ?, ?)",
                [(1, 1, 1), (1, 2, 3), (2, 1, 4), (2, 3, 5), (1, 4, 6), (1, 5, 7)])
# each best passed its check at a ragged size near its own (the tuner records it), so it
# may answer other sizes; trial 2 is no best and has none
ragged = {1: "1023x1023x1023", 3: "4095x1023x8191", 4: "1023x1023x1023", 5: "1048575",
          6: "1023x1023x1023-bf16-nt", 7: "1023x1023x1023-bf16-nt-bias"}
for t in trials:
    if t[0] in ragged:
        con.execute("INSERT INTO ragged_checks (device_id, variant_id, problem_id, config,"
                    " ragged_size, passed) VALUES (?, ?, ?, ?, ?, 1)",
                    (t[1], t[2], t[3], t[4], ragged[t[0]]))
con.commit()


def kind(size):
    """The element type, layout and epilogue a size names (fp32, nn and none by default)."""
    words = size.split("-")[1:]
    return (next((w for w in words if w in ("fp32", "tf32", "fp16", "bf16")), "fp32"),
            next((w for w in words if w in ("nn", "nt")), "nn"),
            next((w for w in words if w in ("none", "bias")), "none"))


def expected(device=None, op=None):
    rows = con.execute(
        "SELECT device_uuid, device, op, size, variant, variant_version, config, median_ms"
        " FROM best_configs WHERE (? IS NULL OR device_uuid = ?) AND (? IS NULL OR op = ?)"
        " ORDER BY device_uuid, op, size", (device, device, op, op)).fetchall()
    return [tuple(r[:4]) + kind(r[3]) + tuple(r[4:]) for r in rows]


def export(fmt, *extra):
    p = subprocess.run([exe, "export", "--format", fmt, "--db", db] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0, "export %s %s exited %d: %s" % (fmt, extra, p.returncode, p.stderr))
    return p.stdout.decode()


def from_json(text):
    doc = json.loads(text)
    out = []
    for c in doc["configs"]:
        # the config object and its text agree
        pairs = dict(kv.split("=") for kv in c["config_text"].split(","))
        check({k: int(v) for k, v in pairs.items()} == c["config"], "json config %s" % c)
        out.append((c["device_uuid"], c["device"], c["op"], c["size"], c["dtype"], c["layout"],
                    c["epilogue"], c["variant"], c["variant_version"], c["config_text"],
                    c["median_ms"]))
    return out


def from_csv(text):
    rows = list(csv.DictReader(io.StringIO(text)))
    return [(r["device_uuid"], r["device"], r["op"], r["size"], r["dtype"], r["layout"],
             r["epilogue"], r["variant"], r["variant_version"], r["config"],
             float(r["median_ms"])) for r in rows]


def from_header(text, name):
    hdr = os.path.join(tmp, name + ".h")
    open(hdr, "w").write(text)
    prog = os.path.join(tmp, name + ".c")
    open(prog, "w").write(
        '#include <stdio.h>\n#include "%s.h"\n'
        "int main(void) {\n"
        "  for (int i = 0; i < CUTUNE_TUNED_COUNT; i++) {\n"
        "    const CutuneTunedConfig *c = &cutune_tuned_configs[i];\n"
        "    if (cutune_tuned_find(c->device_uuid, c->op, c->size) != c) return 2;\n"
        "    printf(\"%%s\\t%%s\\t%%s\\t%%s\\t%%s\\t%%s\\t%%s\\t%%s\\t%%s\\t%%s\\t%%.17g\\t\",\n"
        "           c->device_uuid, c->device_name, c->op, c->size, c->dtype, c->layout,\n"
        "           c->epilogue,\n"
        "           c->variant, c->variant_version, c->config, c->median_ms);\n"
        "    for (int p = 0; p < c->nparams; p++)\n"
        "      printf(\"%%s%%s=%%lld\", p ? \",\" : \"\", c->params[p].name,\n"
        "             cutune_tuned_param(c, c->params[p].name, -999));\n"
        "    printf(\"\\t%%d\", c->ndims);\n"
        "    for (int d = 0; d < c->ndims; d++) printf(\" %%lld\", c->dims[d]);\n"
        "    printf(\"\\n\");\n"
        "  }\n"
        "  return cutune_tuned_find(\"nope\", \"matmul\", \"1\") == NULL ? 0 : 3;\n"
        "}\n" % name)
    binary = os.path.join(tmp, name)
    p = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", tmp, prog, "-o",
                        binary], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    check(p.returncode == 0, "the header does not compile cleanly:\n" + p.stdout.decode())
    if p.returncode != 0:
        return []
    p = subprocess.run([binary], stdout=subprocess.PIPE)
    check(p.returncode == 0, "the header program exited %d" % p.returncode)
    out = []
    for line in p.stdout.decode().splitlines():
        f = line.split("\t")
        check(f[11] == f[9], "header params %s != config %s" % (f[11], f[9]))
        dims = [int(x) for x in f[12].split()[1:]]
        check(dims == [int(x) for x in f[3].split("-")[0].split("x")],
              "header dims %s for %s" % (dims, f[3]))
        out.append(tuple(f[:10]) + (float(f[10]),))
    return out


if not shutil.which(cc) and not os.path.exists(cc):
    print("no C compiler (%s) here: skipped" % cc)
    sys.exit(77)

cases = [((), {}), (("--op", "matmul"), {"op": "matmul"}),
         (("--device", "A100"), {"device": devices[1][0]}),
         (("--device", devices[0][0], "--op", "axpy"), {"device": devices[0][0], "op": "axpy"})]
for n, (args, filt) in enumerate(cases):
    want = expected(**filt)
    check(len(want) == {0: 6, 1: 5, 2: 2, 3: 0}[n], "case %d expects %d rows" % (n, len(want)))
    check(n != 0 or ("fp32", "nn", "none") in [w[4:7] for w in want] and
          ("bf16", "nt", "none") in [w[4:7] for w in want] and
          ("bf16", "nt", "bias") in [w[4:7] for w in want],
          "the fixture holds fp32 nn, bf16 nt and bf16 nt bias rows")
    for fmt, parse in (("json", from_json), ("csv", from_csv),
                       ("header", lambda t: from_header(t, "tuned%d" % n))):
        got = parse(export(fmt, *args))
        check(got == want, "%s %s round trip:\n got  %s\n want %s" % (fmt, args, got, want))

p = subprocess.run([exe, "export", "--db", db, "--device", "nosuchgpu"], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
check(p.returncode == 4, "an unknown device exits 4, not %d" % p.returncode)
p = subprocess.run([exe, "export", "--db", db, "--format", "xml"], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
check(p.returncode == 2 and b"unknown format 'xml'" in p.stderr, "a bad format is a usage error")
out = os.path.join(tmp, "out.csv")
subprocess.run([exe, "export", "--db", db, "--format", "csv", "--output", out], check=False)
check(os.path.exists(out) and from_csv(open(out).read()) == expected(), "--output writes the file")


# cutune query --fallback: the lookup API's ladder from the command line (exact, nearest
# size on the device, then another device of the same compute capability)
def query(*args):
    p = subprocess.run([exe, "query", "matmul", "--db", db] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


con.execute("INSERT INTO devices (id, uuid, name, cc_major, cc_minor, sm_count, total_mem,"
            " driver_version, runtime_version) VALUES (3, 'GPU-33333333-cccc', 'NVIDIA H100 PCIe',"
            " 9, 0, 114, 1, 13000, 13000)")
con.commit()
h100 = devices[0][0]
ladder = [  # device, size, match, tuned size, config
    (h100, "1024x1024x1024", "exact", "1024x1024x1024", "TILE=32,PAD=1,WPT=4,UNROLL=8"),
    (h100, "1000", "nearest", "1024x1024x1024", "TILE=32,PAD=1,WPT=4,UNROLL=8"),
    (h100, "4000x1000x8000", "nearest", "4096x1024x8192", "TILE=64,PAD=0,WPT=8,UNROLL=64"),
    ("A100", "4096x1024x8192", "nearest", "1024x1024x1024", "TILE=16,PAD=1,WPT=2,UNROLL=16"),
    ("H100 PCIe", "4096x1024x8192", "same_arch", "4096x1024x8192", "TILE=64,PAD=0,WPT=8,UNROLL=64"),
    # an element type and layout answer only their own kind, and fp32 never theirs
    (h100, "1000x1000x1000-bf16-nt", "nearest", "1024x1024x1024-bf16-nt",
     "TILE=64,PAD=0,WPT=4,UNROLL=8"),
]
for dev, size, match, tuned, config in ladder:
    rc, out, err = query("--device", dev, "--size", size, "--fallback", "--json")
    check(rc == 0, "query --fallback %s %s exited %d: %s" % (dev, size, rc, err))
    if rc == 0:
        doc = json.loads(out)
        got = (doc["match"], doc["tuned_size"], doc["config_text"])
        check(got == (match, tuned, config), "query --fallback %s %s: %s, want %s"
              % (dev, size, got, (match, tuned, config)))
        check((doc["distance"] == 0) == (tuned == doc["size"]),
              "distance %s for %s" % (doc["distance"], match))
        want_checked = tuned if tuned == doc["size"] else ragged[{"TILE=32,PAD=1,WPT=4,UNROLL=8": 1,
            "TILE=64,PAD=0,WPT=8,UNROLL=64": 3, "TILE=16,PAD=1,WPT=2,UNROLL=16": 4,
            "TILE=64,PAD=0,WPT=4,UNROLL=8": 6}[config]]
        check(doc.get("checked_size") == want_checked, "query --fallback %s %s: checked at %s, "
              "want %s" % (dev, size, doc.get("checked_size"), want_checked))
rc, out, err = query("--device", h100, "--size", "1000")
check(rc == 4, "without --fallback an untuned size exits 4, not %d" % rc)
rc, out, err = query("--device", h100, "--size", "1024", "--dtype", "bf16", "--layout", "nt", "--json")
check(rc == 0 and json.loads(out)["config_text"] == "TILE=64,PAD=0,WPT=4,UNROLL=8",
      "query --dtype bf16 --layout nt answers the bf16 nt size: %d %s %s" % (rc, out, err))
rc, out, err = query("--device", h100, "--size", "512-fp16", "--fallback")
check(rc == 4, "no fp16 config was tuned: fp32 and bf16 ones do not answer fp16 (%d %s)" % (rc, out))
rc, out, err = query("--device", h100, "--size", "1000", "--fallback")
check(rc == 0 and "nearest match" in out and "tuned    1024x1024x1024" in out,
      "the text answer names the match and the tuned size: %r" % out)
# a best that failed its ragged check (right only at its own size) answers only that size
con.execute("UPDATE ragged_checks SET passed = 0 WHERE config = 'TILE=64,PAD=0,WPT=8,UNROLL=64'")
con.commit()
rc, out, err = query("--device", h100, "--size", "4000x1000x8000", "--fallback", "--json")
check(rc == 0 and json.loads(out)["tuned_size"] == "1024x1024x1024",
      "a config that failed at a ragged size does not answer another size: %s %s" % (rc, out))
rc, out, err = query("--device", h100, "--size", "4096x1024x8192", "--fallback", "--json")
check(rc == 0 and json.loads(out)["match"] == "exact", "it still answers its own size: %s" % out)
con.execute("DELETE FROM ragged_checks")
con.commit()
rc, out, err = query("--device", h100, "--size", "1000", "--fallback")
check(rc == 4 and "never checked at a ragged size" in err,
      "with no ragged check at all, no other size is answered, and the miss says why: %d %s"
      % (rc, err))
con.execute("DELETE FROM best WHERE device_id = 1 AND problem_id = 2")
con.execute("DELETE FROM trials WHERE id = 3")
con.commit()
con.execute("INSERT INTO ragged_checks (device_id, variant_id, problem_id, config, ragged_size,"
            " passed) VALUES (1, 1, 1, 'TILE=32,PAD=1,WPT=4,UNROLL=8', '1023x1023x1023', 1)")
con.commit()
rc, out, err = query("--device", "H100 PCIe", "--size", "4096x1024x8192", "--fallback", "--json")
check(rc == 0 and json.loads(out)["match"] == "same_arch" and
      json.loads(out)["tuned_size"] == "1024x1024x1024",
      "same_arch falls back to the other device's nearest size: %s %s" % (rc, out))
con.close()
shutil.rmtree(tmp)
print("export: %d failures" % check.failures)
sys.exit(1 if check.failures else 0)
