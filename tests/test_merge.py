#!/usr/bin/env python3
"""cutune merge and cutune run --shard, through the command.

Shards made by gen_shards.py (several devices, variants, a variant at two versions, runs
every shard inherited, overlapping requests) are merged and the result is checked against
the inputs, computed here independently: every trial, run, search and yardstick of every
input once, requests joined, the best of every (device, size) by the version in force.
Then: merging again changes nothing, merging in parts gives the same database, an older
schema is upgraded without touching the input (its runs, given no UUID by that cutune, are
still added once), a newer one, damaged files (truncated, not a database, corrupt pages,
empty) and OUT as an input are refused with nothing written, variants of one name at two
versions stay apart and the newest takes the best, databases that disagree on a variant are
refused, a run 'running' in OUT takes its end from a later copy, and a full disk leaves OUT
as it was. Last, `cutune run --shard I/3` with the fake worker splits the sizes of a run
into three databases that merge into the bests of the unsharded run.

    test_merge.py CUTUNE_EXE SOURCE_ROOT FAKE_WORKER"""
import collections
import hashlib
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile

exe, src, fake_worker = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(src, "tests"))
import gen_shards  # noqa: E402
from checks import Checks  # noqa: E402

check = Checks()
LATEST = len([f for f in os.listdir(os.path.join(src, "db", "migrations")) if f.endswith(".sql")])


def merge(*args, limit=None):
    """Run `cutune merge args...`; with limit, under a file size limit of that many bytes."""
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return subprocess.run([exe, "merge"] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300,
                          preexec_fn=pre if limit else None)


def sha(path):
    """The file's bytes, or None when it does not exist."""
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def q(path, sql, args=()):
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def columns(path, table):
    return [r[1] for r in q(path, "PRAGMA table_info(%s)" % table)]


def content(path):
    """Every row of every table, ids replaced by what the rows are: two databases with the
    same content compare equal whatever their ids (best.updated_at left out)."""
    out = {}
    run = "(SELECT started_at || '|' || argv || '|' || ifnull(seed, '') FROM runs WHERE id = %s)"
    dev = "(SELECT uuid FROM devices WHERE id = %s)"
    var = "(SELECT name || '@' || version || '@' || source_hash FROM variants WHERE id = %s)"
    prob = "(SELECT op || ' ' || size FROM problems WHERE id = %s)"

    def rows(table, exprs):
        cols = columns(path, table)
        sel = [exprs.get(c, c) for c in cols if c != "id" and exprs.get(c, c)]
        return sorted(q(path, "SELECT %s FROM %s" % (", ".join(sel), table)), key=repr)

    out["devices"] = rows("devices", {})
    out["variants"] = rows("variants", {})
    out["problems"] = rows("problems", {})
    out["runs"] = rows("runs", {"device_id": dev % "device_id"})
    ids = {"run_id": run % "run_id", "device_id": dev % "device_id",
           "variant_id": var % "variant_id", "problem_id": prob % "problem_id"}
    out["trials"] = rows("trials", ids)
    if "searches" in [r[0] for r in q(path, "SELECT name FROM sqlite_schema")]:
        out["searches"] = rows("searches", ids)
        out["yardsticks"] = rows("yardsticks", ids)
    out["requests"] = rows("requests", {"run_id": run % "run_id"})
    out["best"] = sorted(q(path, "SELECT %s, %s, t.config, t.created_at, t.median_ms FROM best b"
                                 " JOIN trials t ON t.id = b.trial_id"
                         % (dev % "b.device_id", prob % "b.problem_id")))
    return out


def trial_keys(path):
    """The trials of a database as what identifies them (its run by start, command and seed)."""
    return collections.Counter(q(path, """
        SELECT r.started_at, r.argv, r.seed, d.uuid, v.name, v.version, v.source_hash, p.op,
               p.size, t.config, t.status, t.created_at, t.median_ms, t.seed
        FROM trials t JOIN devices d ON d.id = t.device_id JOIN variants v ON v.id = t.variant_id
        JOIN problems p ON p.id = t.problem_id LEFT JOIN runs r ON r.id = t.run_id"""))


def expected_best(paths):
    """Per (device, op, size): among the verified trials of all inputs, each variant name's
    version in force is that of its latest verified trial; the best is the fastest of those."""
    trials = set()
    for p in paths:
        trials |= set(q(p, """
            SELECT d.uuid, p.op, p.size, v.name, v.version, t.config, t.median_ms, t.created_at
            FROM trials t JOIN devices d ON d.id = t.device_id JOIN variants v ON v.id = t.variant_id
            JOIN problems p ON p.id = t.problem_id WHERE t.status = 'ok' AND t.median_ms > 0"""))
    by_key = collections.defaultdict(list)
    for t in trials:
        by_key[t[:3]].append(t)
    best = {}
    for key, ts in by_key.items():
        latest = {}
        for t in ts:
            cand = (t[7], len(t[4]), t[4])
            if t[3] not in latest or cand > latest[t[3]]:
                latest[t[3]] = cand
        live = [t for t in ts if t[4] == latest[t[3]][2]]
        b = min(live, key=lambda t: (t[6], t[7], t[5]))
        best[key] = (b[3], b[4], b[5], b[6])
    return best


def got_best(path):
    return {r[:3]: r[3:] for r in q(path, "SELECT device_uuid, op, size, variant, variant_version,"
                                          " config, median_ms FROM best_configs")}


def leftovers(folder, keep):
    """Files in folder other than keep (temporary files a merge should have removed)."""
    return sorted(f for f in os.listdir(folder)
                  if f not in keep and not f.endswith(("-wal", "-shm")))


tmp = tempfile.mkdtemp(prefix="cutune-merge-")
try:
    # --- 1. four shards into a new database: everything once, the best recomputed
    gdir = os.path.join(tmp, "g")
    shards = gen_shards.generate(gdir, shards=4, trials=2400, base=400, seed=3)
    before = {p: sha(p) for p in shards}
    out = os.path.join(tmp, "all.db")
    r = merge(out, *shards)
    check(r.returncode == 0, "merge of 4 shards: exit %d\n%s" % (r.returncode, r.stderr))
    check("created" in r.stdout, "the summary says the output was created:\n" + r.stdout)
    check(all(sha(p) == before[p] for p in shards), "an input file changed")
    check(leftovers(tmp, {"g", "all.db"}) == [], "files left beside OUT: %s" % leftovers(tmp, {"g", "all.db"}))
    union = collections.Counter()
    total = 0
    for p in shards:
        k = trial_keys(p)
        total += sum(k.values())
        union |= k
    merged = trial_keys(out)
    check(sum(union.values()) < total, "the shards share their base runs (the test needs overlap)")
    check(merged == union, "the merged trials are not every input trial once: %d merged, %d distinct"
          " in the inputs" % (sum(merged.values()), sum(union.values())))
    check(q(out, "PRAGMA user_version")[0][0] == LATEST, "OUT's schema version")
    check(q(out, "PRAGMA integrity_check")[0][0] == "ok", "OUT's integrity")
    check(q(out, "PRAGMA journal_mode")[0][0] == "wal", "OUT is in WAL mode")
    runs = set()
    for p in shards:
        runs |= set(x[0] for x in q(p, "SELECT uuid FROM runs"))
    check(set(x[0] for x in q(out, "SELECT uuid FROM runs")) == runs and
          q(out, "SELECT count(*) FROM runs")[0][0] == len(runs), "every run once, by UUID")
    nsearch = len(set().union(*[set(q(p, "SELECT r.uuid, s.started_at, v.name, v.version, p.size"
                                       " FROM searches s JOIN runs r ON r.id = s.run_id JOIN variants v"
                                       " ON v.id = s.variant_id JOIN problems p ON p.id = s.problem_id"))
                                for p in shards]))
    check(q(out, "SELECT count(*) FROM searches")[0][0] == nsearch, "every search once")
    check(q(out, "SELECT count(*) FROM variants WHERE name = 'matmul_async'")[0][0] == 2,
          "matmul_async 7 and 8 stay two variants")
    exp, got = expected_best(shards), got_best(out)
    check(exp == got, "best configs differ from the inputs' own:\n  expected %s\n  got %s"
          % (sorted(set(exp.items()) - set(got.items()))[:3], sorted(set(got.items()) - set(exp.items()))[:3]))
    check(any(v[:2] == ("matmul_async", "8") for v in got.values()),
          "no best is matmul_async version 8 (the test needs the newer version to win somewhere)")
    reqs = collections.defaultdict(list)
    for p in shards:
        for row in q(p, "SELECT device_uuid, op, size, count, status, first_at, last_at FROM requests"):
            reqs[row[:3]].append(row[3:])
    mreq = {row[:3]: row[3:] for row in q(out, "SELECT device_uuid, op, size, count, status,"
                                                " first_at, last_at FROM requests")}
    check(set(mreq) == set(reqs), "every request key once")
    bad = [k for k, vs in reqs.items() if mreq.get(k) != (
        max(v[0] for v in vs), "done" if any(v[1] == "done" for v in vs) else "pending",
        min(v[2] for v in vs), max(v[3] for v in vs))]
    check(not bad, "requests not joined as max count, done if any, widest times: %s" % bad[:3])
    check(q(out, "SELECT count(*) FROM requests WHERE status = 'pending' AND run_id IS NOT NULL")[0][0] == 0,
          "a pending request keeps no claim of another database's run")
    full = content(out)

    # --- 2. merging again changes nothing; merging in parts gives the same database
    r = merge(out, *shards)
    check(r.returncode == 0 and "added 0 devices, 0 variants, 0 problems, 0 runs, 0 trials" in r.stdout,
          "a second merge added rows:\n" + r.stdout + r.stderr)
    check(content(out) == full, "a second merge of the same inputs changed the database")
    parts = os.path.join(tmp, "parts.db")
    for group in (shards[:2], shards[2:3], shards[2:]):
        r = merge(parts, *group)
        check(r.returncode == 0, "merge in parts: exit %d %s" % (r.returncode, r.stderr))
    check(content(parts) == full, "merging in parts gives another database than all at once")
    check(leftovers(tmp, {"g", "all.db", "parts.db"}) == [], "an existing OUT's merge left files")

    # --- 3. an older schema: upgraded in memory, the input untouched; its runs (no UUID
    # there) are still added once, also when two inputs share them
    odir = os.path.join(tmp, "old")
    old = gen_shards.generate(odir, shards=2, trials=600, base=200, seed=5, schema=2)
    osum = {p: sha(p) for p in old}
    oout = os.path.join(tmp, "old-all.db")
    r = merge(oout, *old)
    check(r.returncode == 0, "merge of schema-2 inputs: exit %d %s" % (r.returncode, r.stderr))
    check(all(sha(p) == osum[p] for p in old), "a schema-2 input file changed")
    check(all(q(p, "PRAGMA user_version")[0][0] == 2 for p in old), "an input was upgraded in place")
    check(q(oout, "SELECT count(*) FROM runs")[0][0] == 2 + 4 * 2,
          "schema-2 runs: %d, want 2 shared + 4 per shard" % q(oout, "SELECT count(*) FROM runs")[0][0])
    oc = content(oout)
    r = merge(oout, old[0])
    check(r.returncode == 0 and content(oout) == oc, "merging a schema-2 input again changed OUT")
    check(trial_keys(oout) == trial_keys(old[0]) | trial_keys(old[1]), "schema-2 trials once each")

    # --- 4. refusals: nothing written, no file left, OUT as it was
    def refused(args, code, phrase, what, existing=out):
        snap = sha(existing)
        new = os.path.join(tmp, "never.db")
        r1 = merge(new, *args)
        r2 = merge(existing, *args)
        for rr, label in ((r1, "new OUT"), (r2, "existing OUT")):
            check(rr.returncode == code, "%s (%s): exit %d, want %d\n%s" % (what, label, rr.returncode, code, rr.stderr))
            check(phrase in rr.stderr, "%s (%s): message lacks '%s':\n%s" % (what, label, phrase, rr.stderr))
        check(not os.path.exists(new), "%s: a new OUT was created" % what)
        check(sha(existing) == snap, "%s: the existing OUT changed" % what)
        check(leftovers(tmp, {"g", "old", "bad", "all.db", "parts.db", "old-all.db"}) == [],
              "%s: files left: %s" % (what, leftovers(tmp, {"g", "old", "bad", "all.db", "parts.db", "old-all.db"})))

    bdir = os.path.join(tmp, "bad")
    os.makedirs(bdir)
    newer = os.path.join(bdir, "newer.db")
    shutil.copy(shards[0], newer)
    con = sqlite3.connect(newer)
    con.execute("PRAGMA user_version = 99")
    con.close()
    refused([shards[1], newer], 1, "newer than", "a newer schema")
    trunc = os.path.join(bdir, "truncated.db")
    shutil.copy(shards[0], trunc)
    with open(trunc, "r+b") as f:
        f.truncate(os.path.getsize(shards[0]) // 2)
    refused([shards[1], trunc], 1, "truncated", "a truncated input")
    text = os.path.join(bdir, "notes.db")
    with open(text, "w") as f:
        f.write("these are not the droids\n" * 100)
    refused([text], 1, "not a cutune database", "a text file")
    corrupt = os.path.join(bdir, "corrupt.db")
    shutil.copy(shards[0], corrupt)
    with open(corrupt, "r+b") as f:
        size = os.path.getsize(corrupt)
        for off in range(size // 3, size // 3 + 40 * 4096, 4096):
            f.seek(off + 100)
            f.write(b"\xff\x13garbage" * 40)
    refused([shards[1], corrupt], 1, "damaged", "an input with corrupt pages")
    empty = os.path.join(bdir, "empty.db")
    open(empty, "w").close()
    os.utime(empty, (1e9, 1e9))  # not a file another process is creating just now
    refused([empty], 1, "no cutune schema", "an empty file")
    refused([os.path.join(bdir, "missing.db")], 4, "No such file", "a missing input")
    foreign = os.path.join(bdir, "foreign.db")
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE t (x)")
    con.close()
    refused([foreign], 1, "not a cutune database", "someone else's database")
    for what, path, phrase in (("a text file", text, "not a cutune database"),
                               ("a truncated database", trunc, "truncated"),
                               ("a database with corrupt pages", corrupt, "damaged")):
        o = os.path.join(bdir, "out-" + os.path.basename(path))
        shutil.copy(path, o)
        snap = sha(o)
        r = merge(o, shards[1])
        check(r.returncode == 1 and phrase in r.stderr, "OUT is %s: exit %d\n%s" % (what, r.returncode, r.stderr))
        check(sha(o) == snap, "OUT, %s, was changed" % what)
    check(not [f for f in os.listdir(bdir) if ".tmp" in f or "merge-" in f],
          "temporary files left beside a refused OUT: %s" % os.listdir(bdir))
    snap = sha(out)
    for what, args in (("OUT itself", [out]), ("OUT among others", [shards[0], out])):
        r = merge(out, *args)
        check(r.returncode == 2 and "is the input" in r.stderr, "%s as an input: exit %d\n%s"
              % (what, r.returncode, r.stderr))
    link = os.path.join(tmp, "link.db")
    os.symlink(out, link)
    r = merge(link, out)
    check(r.returncode == 2, "OUT through a symbolic link to an input: exit %d" % r.returncode)
    os.unlink(link)
    os.link(out, link)
    r = merge(out, link)
    check(r.returncode == 2, "an input that is a hard link to OUT: exit %d" % r.returncode)
    os.unlink(link)
    check(sha(out) == snap, "OUT changed while refused as an input")
    for args, phrase in (([], "which databases"), ([out], "no input")):
        r = merge(*args)
        check(r.returncode == 2 and phrase in r.stderr, "usage %s: exit %d %s" % (args, r.returncode, r.stderr))

    # --- 5. one variant name at two versions, the newest taking the best, whatever the
    # order of the inputs; databases that disagree on what a variant is
    def tiny(path, rows, op_of=lambda name: "matmul"):
        db, _ = gen_shards.create(path, os.path.join(src, "db", "migrations"), None)
        db.execute("INSERT INTO devices (id, uuid, name, cc_major, cc_minor, sm_count, total_mem,"
                   " driver_version, runtime_version) VALUES (1, 'GPU-t', 'T', 9, 0, 1, 1, 1, 1)")
        db.execute("INSERT INTO problems (id, op, size) VALUES (1, 'matmul', '64x64x64')")
        db.execute("INSERT INTO runs (id, argv, status, uuid) VALUES (1, 'x', 'done', ?)",
                   ("run-" + os.path.basename(path),))
        for i, (name, ver, ms, at) in enumerate(rows, 1):
            db.execute("INSERT OR IGNORE INTO variants (op, name, version, source_hash) VALUES (?, ?, ?, 'h')",
                       (op_of(name), name, ver))
            vid = db.execute("SELECT id FROM variants WHERE name = ? AND version = ?", (name, ver)).fetchone()[0]
            db.execute("INSERT INTO trials (run_id, device_id, variant_id, problem_id, config, status,"
                       " median_ms, created_at) VALUES (1, 1, ?, 1, ?, 'ok', ?, ?)",
                       (vid, "C=%d" % i, ms, at))
        db.close()

    va = os.path.join(bdir, "v1.db")
    vb = os.path.join(bdir, "v2.db")
    tiny(va, [("X", "1", 1.0, "2026-01-01 00:00:00"), ("Y", "1", 3.0, "2026-01-01 00:00:00")])
    tiny(vb, [("X", "2", 5.0, "2026-02-01 00:00:00"), ("Y", "1", 2.0, "2026-02-01 00:00:00")])
    for order in ((va, vb), (vb, va)):
        o = os.path.join(bdir, "versions.db")
        for side in ("", "-wal", "-shm"):
            if os.path.exists(o + side):
                os.unlink(o + side)
        r = merge(o, *order)
        b = got_best(o).get(("GPU-t", "matmul", "64x64x64"))
        check(r.returncode == 0 and b == ("Y", "1", "C=2", 2.0),
              "X version 2 (newer, slower) must take the best from X version 1: got %s (order %s)"
              % (b, [os.path.basename(p) for p in order]))
        check(q(o, "SELECT count(*) FROM variants WHERE name = 'X'")[0][0] == 2, "X 1 and X 2 apart")
    vc = os.path.join(bdir, "v3.db")
    tiny(vc, [("X", "1", 0.5, "2026-03-01 00:00:00")])
    r = merge(o, vc)
    b = got_best(o).get(("GPU-t", "matmul", "64x64x64"))
    check(r.returncode == 0 and b == ("X", "1", "C=1", 0.5),
          "a later verified trial of X version 1 puts version 1 back in force: got %s" % (b,))
    vd = os.path.join(bdir, "v4.db")
    tiny(vd, [("X", "1", 1.0, "2026-01-01 00:00:00")], op_of=lambda name: "transpose")
    refused([va, vd], 1, "disagree on variant X version 1", "a variant recorded for two ops",
            existing=o)

    # --- 6. a run 'running' in OUT takes its end from a later copy of its shard
    live = os.path.join(bdir, "live.db")
    shutil.copy(shards[2], live)
    con = sqlite3.connect(live)
    con.execute("UPDATE runs SET status = 'running', finished_at = NULL WHERE id = (SELECT max(id) FROM runs)")
    con.execute("UPDATE searches SET status = 'running' WHERE run_id = (SELECT max(id) FROM runs)")
    con.execute("UPDATE requests SET run_id = (SELECT max(id) FROM runs) WHERE status = 'pending'")
    con.commit()
    con.close()
    lo = os.path.join(bdir, "live-out.db")
    r = merge(lo, live)
    uuid = q(live, "SELECT uuid FROM runs WHERE status = 'running'")[0][0]
    check(q(lo, "SELECT status FROM runs WHERE uuid = ?", (uuid,)) == [("running",)], "the copy's run is running")
    check(q(lo, "SELECT count(*) FROM requests WHERE status = 'pending' AND run_id IS NOT NULL")[0][0] == 0,
          "a pending request claimed in the input keeps its claim in OUT")
    r = merge(lo, shards[2])
    check(r.returncode == 0 and "1 runs and" in r.stdout, "the run's end was not taken:\n" + r.stdout)
    check(q(lo, "SELECT status FROM runs WHERE uuid = ?", (uuid,)) == [("done",)], "the run did not end 'done'")
    check(q(lo, "SELECT count(*) FROM searches WHERE status = 'running'")[0][0] == 0, "searches still running")
    r = merge(lo, live)
    check(q(lo, "SELECT status FROM runs WHERE uuid = ?", (uuid,)) == [("done",)], "an older copy undid the end")

    # --- 7. a full disk (a file size limit) during the merge: OUT as it was
    snap, c0 = sha(parts), content(parts)
    # the joined inputs fit under the limit, OUT's own transaction (its log of every page
    # it changes, the index pages of the new trials scattered over OUT's) does not
    extra = gen_shards.generate(os.path.join(tmp, "x"), shards=1, trials=1000, base=0, seed=9,
                                prefix="more")
    r = merge(parts, extra[0], limit=os.path.getsize(extra[0]) * 5 // 4)
    check(r.returncode == 1 and "disk is full" in r.stderr and "adding the inputs" in r.stderr,
          "full disk in OUT's transaction: exit %d\n%s" % (r.returncode, r.stderr))
    check(sha(parts) == snap and content(parts) == c0, "a full disk changed the existing OUT")
    fresh = os.path.join(tmp, "fresh.db")
    r = merge(fresh, *shards, limit=1 << 20)
    check(r.returncode == 1 and "disk is full" in r.stderr, "full disk, new OUT: exit %d\n%s"
          % (r.returncode, r.stderr))
    check(not os.path.exists(fresh), "a full disk left a new OUT behind")
    check(leftovers(tmp, {"g", "old", "bad", "x", "all.db", "parts.db", "old-all.db"}) == [],
          "a full disk left files: %s" % leftovers(tmp, {"g", "old", "bad", "x", "all.db", "parts.db", "old-all.db"}))

    # --- 7b. an existing OUT keeps a table of its owner's, untouched, and a column that only
    # the input has does not reach it
    lo, li = os.path.join(tmp, "own-out.db"), os.path.join(tmp, "own-in.db")
    shutil.copy(shards[0], lo)
    shutil.copy(shards[1], li)
    con = sqlite3.connect(lo)
    con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    con.execute("INSERT INTO notes (text) VALUES ('mine')")
    con.commit()
    con.close()
    con = sqlite3.connect(li)
    con.execute("ALTER TABLE trials ADD COLUMN input_only TEXT DEFAULT 'x'")
    con.commit()
    con.close()
    r = merge(lo, li)
    check(r.returncode == 0, "merge into an OUT with a table of its own: %s" % r.stderr)
    check(q(lo, "SELECT text FROM notes") == [("mine",)], "OUT's own table was changed")
    check("input_only" not in columns(lo, "trials"), "a column only the input has reached OUT")
    check(trial_keys(lo) == trial_keys(shards[0]) | trial_keys(shards[1]), "the trials once each")

    # --- 8. cutune run --shard I/3: the sizes split over three databases, merged into the
    # bests of the same run unsharded
    env = dict(os.environ, CUTUNE_WORKER=fake_worker)
    env.pop("CUTUNE_FAKE_RULES", None)
    sizes = ["4096", "8192", "16384", "32768", "65536"]
    argv = ["run", "axpy", "--no-progress", "--max-seconds", "0.05"] + sum([["--size", s] for s in sizes], [])
    sdbs = []
    for i in range(3):
        d = os.path.join(tmp, "run-%d.db" % i)
        p = subprocess.run([exe] + argv + ["--shard", "%d/3" % i, "--db", d], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
        check(p.returncode == 0, "run --shard %d/3: exit %d\n%s" % (i, p.returncode, p.stderr))
        sdbs.append(d)
    for bad_shard, phrase in (("3/2", "counts from 0"), ("2/2", "out of range"), ("0/0", "at least 1"),
                              ("x", "not of the form")):
        p = subprocess.run([exe] + argv + ["--shard", bad_shard, "--db", os.path.join(tmp, "no.db")],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        check(p.returncode == 2 and phrase in p.stderr and not os.path.exists(os.path.join(tmp, "no.db")),
              "run --shard %s: exit %d, want 2 with '%s' and no database\n%s"
              % (bad_shard, p.returncode, phrase, p.stderr))
    owned = [set(x[0] for x in q(d, "SELECT DISTINCT p.size FROM trials t JOIN problems p"
                                    " ON p.id = t.problem_id")) for d in sdbs]
    check(sorted(sum([sorted(o) for o in owned], [])) == sorted(sizes),
          "the shards' sizes are not each size once: %s" % owned)
    check([len(o) for o in owned] == [2, 2, 1], "sizes per shard (k mod 3): %s" % [len(o) for o in owned])
    whole = os.path.join(tmp, "run-all.db")
    p = subprocess.run([exe] + argv + ["--db", whole], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    check(p.returncode == 0, "the unsharded run: exit %d\n%s" % (p.returncode, p.stderr))
    mo = os.path.join(tmp, "run-merged.db")
    r = merge(mo, *sdbs)
    check(r.returncode == 0, "merge of the run's shards: %s" % r.stderr)
    strip = lambda b: {k: v[:3] for k, v in b.items()}  # the fake worker's times are its configs'
    check(strip(got_best(mo)) == strip(got_best(whole)) and len(got_best(mo)) == len(sizes),
          "the merged shards' bests differ from the unsharded run's:\n%s\n%s"
          % (sorted(got_best(mo).items()), sorted(got_best(whole).items())))
    check(q(mo, "SELECT count(*) FROM trials")[0][0] == sum(q(d, "SELECT count(*) FROM trials")[0][0] for d in sdbs),
          "the merged run holds every shard's trials")
    # each size's best was checked at a ragged size in its shard: the verdicts travel with it,
    # keyed by device, variant, size and config, so the merged bests still answer other sizes
    ragged = ("SELECT d.uuid, v.name, p.size, r.config, r.ragged_size, r.passed FROM ragged_checks r"
              " JOIN devices d ON d.id = r.device_id JOIN variants v ON v.id = r.variant_id"
              " JOIN problems p ON p.id = r.problem_id")
    shard_ragged = set().union(*(set(q(d, ragged)) for d in sdbs))
    check(len(shard_ragged) == len(sizes) and set(q(mo, ragged)) == shard_ragged,
          "the shards' ragged-size checks, one a size, are the merged database's: %s / %s"
          % (sorted(shard_ragged), sorted(q(mo, ragged))))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

check.done("merge")
