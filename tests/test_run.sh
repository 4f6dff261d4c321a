#!/usr/bin/env bash
# The run as a whole, through the cutune command with the fake worker (no GPU): one budget
# for every size, `--json` lines, a second run that measures nothing the database holds and
# re-times the bests, --retune, an exhaustive search that cannot keep --time refused up
# front, Ctrl-C in the warm start losing nothing, a closed --json pipe stopping the run as
# Ctrl-C does, a replay of the run's database with its compile times, and a variant's TMA
# tensor maps reaching the worker with each trial.
# Usage: test_run.sh PATH_TO_CUTUNE PATH_TO_FAKE_WORKER
set -u
exe=$1
export CUTUNE_WORKER=$2
. "$(dirname "$0")/lib.sh"
q() { # q DB SQL: the first column of the first row
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$@"
}
# histogram: 2 variants (13 and 148 configs) at 4 default sizes; the fake times are instant
db=$tmp/run.db

# --- 1. the first run, as JSON lines: every line an object, one trial line per measurement
"$exe" run histogram --db "$db" --json --time 120 >"$tmp/first.json" 2>"$tmp/first.err"
rc=$?
[ $rc = 0 ] || { bad "first run exited $rc"; cat "$tmp/first.err"; }
python3 - "$tmp/first.json" <<'EOF' || fail=1
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
kinds = [e["event"] for e in events]
trials = [e for e in events if e["event"] == "trial"]
sizes = [e for e in events if e["event"] == "size"]
summary = events[-1]
ok = True
def need(cond, what):
    global ok
    if not cond:
        print("FAIL: " + what); ok = False
need(summary["event"] == "summary" and kinds.count("summary") == 1, "the summary is not the one last line")
need(len(sizes) == 4 and len(summary["sizes"]) == 4, "want 4 size lines, got %d" % len(sizes))
need(len(trials) > 13, "only %d trials" % len(trials))
need(all(t["status"] == "ok" and t["median_ms"] > 0 for t in trials), "a trial is not ok")
need(all(t["phase"] in ("warm start", "search", "re-time") for t in trials), "a trial of no phase")
# once the search is over, each size's best and the yardstick are timed again twice in turn,
# and the size reports the ratio of each's faster timing
for s in summary["sizes"]:
    again = [t for t in trials if t["size"] == s["size"] and t["phase"] == "re-time"]
    need(len(again) == 2 and {t["config"] for t in again} == {s["config"]} and trials.index(again[0]) > max(
        i for i, t in enumerate(trials) if t["size"] == s["size"] and t["phase"] != "re-time"),
        "size %s: want its best re-timed twice after its search: %s" % (s["size"], again))
    # the search's own count leaves the re-time out (the summary's row is the search's)
    for e in events:
        if e["event"] == "search" and e["size"] == s["size"]:
            mine = [t for t in trials if t["size"] == s["size"] and t["variant"] == e["variant"]
                    and t["phase"] != "re-time"]
            need(e["measured"] == len(mine), "search %s %s: measured %s, want %d" % (
                e["variant"], s["size"], e["measured"], len(mine)))
    need(s["retimed_ms"] and s["yardstick_ms"] and
         abs(s["retimed_ms"] - min(t["median_ms"] for t in again)) < 1e-9 and
         abs(s["vs_yardstick"] - s["yardstick_ms"] / s["retimed_ms"]) < 1e-6 and
         [z["vs_yardstick"] for z in sizes if z["size"] == s["size"]] == [s["vs_yardstick"]],
         "size %s: the ratio is not the re-timed pair's: %s" % (s["size"], s))
# what the cost model learns from: compile time (0 from the kernel cache, as here where the
# tests share one) and time in the worker (the fake worker reports none)
need(all(t["compile_ms"] >= 0 and t["measure_ms"] >= 0 for t in trials), "a trial without its costs")
need([t["elapsed_s"] for t in trials] == sorted(t["elapsed_s"] for t in trials), "time goes back")
# every size's best is the fastest of its trials
for s in summary["sizes"]:
    mine = [t["median_ms"] for t in trials if t["size"] == s["size"]]
    need(mine and abs(min(mine) - s["best_ms"]) < 1e-9, "size %s: best %s, fastest trial %s" % (s["size"], s["best_ms"], min(mine) if mine else None))
# the warm start comes first in each search
for v in ("histogram_shared",):
    ph = [t["phase"] for t in trials if t["variant"] == v and t["size"] == "268435456x1x1"]
    need(ph and ph[0] == "warm start", "%s did not start with its warm start" % v)
# at the run's first size no variant's level is known yet: each measures its first config
# before either measures a second (the likely winner's times then cut the other's short)
first = [t for t in trials if t["size"] == trials[0]["size"]]
need(len({t["variant"] for t in first[:2]}) == 2,
     "at %s, want one config of each variant first: %s" % (trials[0]["size"], [t["variant"] for t in first[:4]]))
print("first run: %d trials, %d sizes" % (len(trials), len(sizes)))
sys.exit(0 if ok else 1)
EOF
# the cost model's estimate and learned compile time at each size's start, from the size
# lines (scripts/cost-replay.py): one line per size, both numbers there
sizes=$(python3 "$CUTUNE_SOURCE_ROOT/scripts/cost-replay.py" "$tmp/first.json" | tail -n +2 |
    grep -cE '^[0-9]+x[0-9]+x[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ ')
[ "$sizes" = 4 ] || bad "cost-replay gave $sizes size lines, want 4"
n1=$(grep -c '"event": "trial"' "$tmp/first.json")
# the known-good list was measured first: its first trial is one of the list's configs (they
# compile side by side, and each is measured as soon as its compile is done)
first=$(grep '"variant": "histogram_shared"' "$tmp/first.json" | grep '"event": "trial"' | head -1)
case "$first" in
    *'"config": "BLOCK=1024,BLOCKS_PER_SM=2,ITEMS=2,COPIES=32,RLE=0"'* | \
        *'"config": "BLOCK=1024,BLOCKS_PER_SM=2,ITEMS=2,COPIES=1,RLE=0"'*) ;;
    *) bad "histogram_shared did not start from its known-good list: $first" ;; esac

# --- 2. a second run measures only each size's best again, and says how to search again
"$exe" run histogram --db "$db" --no-progress >"$tmp/second.out" 2>&1 || { bad "second run failed"; cat "$tmp/second.out"; }
n2=$(q "$db" "SELECT count(*) FROM trials WHERE run_id = 2" 2>/dev/null || echo x)
[ "$n2" = 4 ] || bad "the second run measured $n2 configs, want 4 (one best per size)"
grep -q "4 of 4 sizes were tuned by an earlier run" "$tmp/second.out" || bad "the second run does not say the sizes were tuned"
grep -q -- "--retune" "$tmp/second.out" || bad "the second run does not say how to search again"
grep -q "re-timed now" "$tmp/second.out" || bad "the second run does not show the re-timed bests"

# --- 3. --retune searches again (from the kernel cache)
"$exe" run histogram --db "$db" --retune --no-progress --time 60 --size 268435456x4x1 >"$tmp/retune.out" 2>&1 ||
    { bad "--retune failed"; cat "$tmp/retune.out"; }
n3=$(q "$db" "SELECT count(*) FROM trials WHERE run_id = 3" 2>/dev/null || echo 0)
[ "$n3" -gt 13 ] || bad "--retune measured only $n3 configs"

# --- 4. an exhaustive search that cannot keep --time is refused before anything runs
before=$(q "$db" "SELECT count(*) FROM runs")
"$exe" run matmul --db "$db" --strategy exhaustive --time 60 --no-progress >"$tmp/ex.out" 2>&1
rc=$?
[ $rc = 1 ] || bad "exhaustive with a short --time exited $rc"
grep -q "drop --time to measure them all" "$tmp/ex.out" || { bad "no advice for exhaustive + --time"; cat "$tmp/ex.out"; }
[ "$(q "$db" "SELECT count(*) FROM runs")" = "$before" ] || bad "the refused run wrote a run row"

# --- 5. Ctrl-C during the warm start: exit 130, every trial kept, the next run goes on
db5=$tmp/int.db
CUTUNE_FAKE_DELAY_MS=200 "$exe" run histogram --db "$db5" --no-progress --size 268435456x1x2 >"$tmp/int.out" 2>&1 &
pid=$!
for _ in $(seq 100); do
    k=$(q "$db5" "SELECT count(*) FROM trials" 2>/dev/null || echo 0)
    [ "${k:-0}" -ge 2 ] && break
    sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || { bad "Ctrl-C in the warm start exited $rc, want 130"; cat "$tmp/int.out"; }
k1=$(q "$db5" "SELECT count(*) FROM trials")
[ "$k1" -ge 2 ] || bad "the interrupted run kept $k1 trials"
[ "$(q "$db5" "SELECT status FROM runs WHERE id = 1")" = interrupted ] || bad "the run is not marked interrupted"
[ "$(q "$db5" "SELECT count(*) FROM searches WHERE status = 'interrupted'")" -ge 1 ] || bad "no search marked interrupted"
"$exe" run histogram --db "$db5" --no-progress --size 268435456x1x2 >"$tmp/int2.out" 2>&1 || bad "the run after Ctrl-C failed"
# (but the best, timed again twice beside the yardstick once the second run's search is over)
dup=$(q "$db5" "SELECT count(*) FROM (SELECT config, variant_id, count(*) AS n FROM trials GROUP BY config, variant_id HAVING n > 1) WHERE n > 3 OR config NOT IN (SELECT t.config FROM best b JOIN trials t ON t.id = b.trial_id)")
[ "$dup" = 0 ] || bad "$dup configs measured twice after Ctrl-C"

# --- 5b. a reader of --json that goes away (`| head`) stops the run as Ctrl-C does: the
# trial in flight ends, the run and its search are marked interrupted (not left 'running',
# as SIGPIPE once left them), exit 130, and the next run goes on from there
db5b=$tmp/pipe.db
CUTUNE_FAKE_DELAY_MS=200 "$exe" run histogram --db "$db5b" --json --size 268435456x1x2 \
    2>"$tmp/pipe.err" | head -n 1 >"$tmp/pipe.json"
rc=${PIPESTATUS[0]}
[ $rc = 130 ] || { bad "run --json | head exited $rc, want 130"; cat "$tmp/pipe.err"; }
grep -q '"event": "trial"' "$tmp/pipe.json" || bad "run --json | head: no trial line read"
grep -q "standard output was closed" "$tmp/pipe.err" || { bad "run --json | head: no message"; cat "$tmp/pipe.err"; }
[ "$(q "$db5b" "SELECT status FROM runs WHERE id = 1")" = interrupted ] ||
    bad "run --json | head: the run is not marked interrupted"
[ "$(q "$db5b" "SELECT count(*) FROM searches WHERE status = 'running'")" = 0 ] ||
    bad "run --json | head: a search is left running"
k=$(q "$db5b" "SELECT count(*) FROM trials")
# the first line's trial, the one in flight when the pipe closed, and what a slow reader let
# through; far from the 161 configs of the size
[ "$k" -ge 1 ] && [ "$k" -le 10 ] || bad "run --json | head: $k trials, want the first few"
"$exe" run histogram --db "$db5b" --no-progress --size 268435456x1x2 >"$tmp/pipe2.out" 2>&1 ||
    bad "the run after a closed --json pipe failed"

# --- 6. two GPUs (--device 0,1 on a fake machine of 2): both lanes take
# sizes, every size is done once, and each size's winner is re-timed on the other GPU
db6=$tmp/two.db
CUTUNE_FAKE_DEVICES=2 "$exe" run histogram --db "$db6" --device 0,1 --time 60 --no-progress >"$tmp/two.out" 2>&1 ||
    { bad "--device 0,1 failed"; cat "$tmp/two.out"; }
grep -q "device: 2 GPUs: " "$tmp/two.out" || bad "--device 0,1: the summary does not name 2 GPUs"
[ "$(grep -cE '^histogram_[a-z]+ +[0-9x]+ +re-time ' "$tmp/two.out")" = 4 ] || { bad "--device 0,1: want 4 winners re-timed"; cat "$tmp/two.out"; }
[ "$(q "$db6" "SELECT count(DISTINCT problem_id) FROM searches")" = 4 ] || bad "--device 0,1: not every size searched"
[ "$(q "$db6" "SELECT count(*) FROM (SELECT variant_id, problem_id FROM searches GROUP BY 1, 2 HAVING count(*) > 1)")" = 0 ] ||
    bad "--device 0,1: a (variant, size) searched by both GPUs"
"$exe" run histogram --device 0,x --db "$db6" >/dev/null 2>&1
[ $? = 2 ] || bad "--device 0,x is not a usage error"

# --- 7. --strategy exhaustive with a --time it fits in measures every config, even where
# the cost model's estimate of a search's share is short and no config of the variant is
# right yet when that share ends (slow evaluations, both configs wrong): it once stopped
# after 1 of 2, "spent", with 99 s of the run left
db7=$tmp/every.db
a=BLOCK=128,BLOCKS_PER_SM=1 b=BLOCK=128,BLOCKS_PER_SM=2
CUTUNE_FAKE_RULES="wrong=$a;wrong=$b" CUTUNE_FAKE_DELAY_MS=1000 "$exe" run histogram \
    --variant histogram_global --size 268435456x1x1 --where $a --where $b --strategy exhaustive \
    --time 100 --db "$db7" --no-progress >"$tmp/every.out" 2>&1
rc=$? # 1: a variant ran trials and none was correct
[ $rc = 1 ] || { bad "exhaustive over 2 wrong configs exited $rc, want 1"; cat "$tmp/every.out"; }
[ "$(q "$db7" "SELECT count(*) FROM trials WHERE status = 'wrong_result'")" = 2 ] ||
    { bad "exhaustive with --time 100 did not measure both configs"; cat "$tmp/every.out"; }
[ "$(q "$db7" "SELECT status FROM searches")" = done ] || bad "the exhaustive search did not end done"

# --- 8. a replay of a run's database knows its compile times (here set in a copy of the
# first run's, whose compiles the kernel cache that the tests share may all have answered):
# a table of what the proposals took to compile, adding up at a budget of the whole space to
# the recorded sum; a CSV export has none, and gives no such table
sz=268435456x1x1
cp "$db" "$tmp/costs.db"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE trials SET compile_ms = 50 + (id % 5) * 10"); c.commit()' "$tmp/costs.db"
"$exe" replay "$tmp/costs.db" --variant histogram_shared --size $sz --seeds 2 --budgets 10,148 \
    --strategy portfolio --json >"$tmp/replay.json" 2>"$tmp/replay.err" ||
    { bad "replay of the run's database failed"; cat "$tmp/replay.err"; }
rec_s=$(q "$tmp/costs.db" "SELECT sum(c) / 1000.0 FROM (SELECT avg(t.compile_ms) AS c FROM trials t
    JOIN variants v ON v.id = t.variant_id JOIN problems p ON p.id = t.problem_id
    WHERE v.name = 'histogram_shared' AND p.size = '$sz' GROUP BY t.config)")
python3 - "$tmp/replay.json" "$rec_s" <<'EOF' || bad "replay's compile time does not add up"
import json, sys
d = json.load(open(sys.argv[1]))
whole = [r for s in d["strategies"] for r in s["results"] if r["budget"] == 148]
want = float(sys.argv[2])
ok = len(whole) == 2 and want > 0 and all(abs(r["compile_s"] - want) < 1e-6 * want for r in whole)
print("replay: %s s of compiles per replay of the whole space, %.3f s recorded"
      % ([r["compile_s"] for r in whole], want))
sys.exit(0 if ok else 1)
EOF
"$exe" replay "$tmp/costs.db" --variant histogram_shared --size $sz --seeds 2 --budgets 10 \
    >"$tmp/replay.out" 2>&1
grep -q "compile time of the proposals" "$tmp/replay.out" || bad "replay shows no compile table"
"$exe" replay "$tmp/costs.db" --variant histogram_shared --size $sz --export-csv "$tmp/rec.csv" \
    2>/dev/null
"$exe" replay "$tmp/rec.csv" --seeds 2 --budgets 10 >"$tmp/replay-csv.out" 2>&1 ||
    bad "replay of the exported CSV failed"
grep -q "compile time of the proposals" "$tmp/replay-csv.out" &&
    bad "a CSV replay shows a compile table"

# --- 9. a size's best is checked at a ragged size near it before it answers other sizes: a
# config right only at even sizes (the fake worker's "wrongodd", as a kernel that skips K's
# last partial tile) wins 65536 and answers no other size; a right one answers 65000
ragged_db=$tmp/ragged.db
cfg=BLOCK=256,ITEMS=1
CUTUNE_FAKE_RULES="wrongodd=$cfg" "$exe" run axpy --size 65536 --variant axpy_template \
    --where "$cfg" --db "$ragged_db" >"$tmp/ragged.out" 2>&1 || { bad "ragged run failed"; cat "$tmp/ragged.out"; }
[ "$(q "$ragged_db" "SELECT ragged_size || ' ' || passed FROM ragged_checks")" = "65535 0" ] ||
    bad "the best was not recorded as failing at the ragged size 65535"
grep -q "did not pass at the ragged size 65535" "$tmp/ragged.out" || bad "the run does not say the best failed at 65535"
fake=$(q "$ragged_db" "SELECT uuid FROM devices")
"$exe" query axpy --size 65536 --device "$fake" --db "$ragged_db" --fallback >/dev/null 2>&1 ||
    bad "the config no longer answers its own size"
"$exe" query axpy --size 65000 --device "$fake" --db "$ragged_db" --fallback >"$tmp/ragged.q" 2>&1
[ $? = 4 ] || bad "a config wrong at ragged sizes answered 65000: $(cat "$tmp/ragged.q")"
"$exe" run axpy --size 65536 --variant axpy_template --where "$cfg" --retune --db "$ragged_db" \
    >/dev/null 2>&1 || bad "the second ragged run failed"
[ "$(q "$ragged_db" "SELECT count(*) FROM ragged_checks")" = 1 ] ||
    bad "a config's ragged check is recorded once, not again"
rm -f "$ragged_db"*
"$exe" run axpy --size 65536 --variant axpy_template --where "$cfg" --db "$ragged_db" \
    >/dev/null 2>&1 || bad "the right config's run failed"
"$exe" query axpy --size 65000 --device "$fake" --db "$ragged_db" --fallback --json >"$tmp/ragged.json" 2>&1 ||
    bad "a config right at 65535 does not answer 65000: $(cat "$tmp/ragged.json")"
grep -q '"checked_size": *"65535"' "$tmp/ragged.json" || bad "the answer does not say it was checked at 65535: $(cat "$tmp/ragged.json")"

# --- 10. a Kernel Tuner cache imported for this very device is never an answer until a run
# has checked it, and the run measures its configs first (its times are 20x the fake's)
kt_db=$tmp/kt.db
"$exe" run axpy --size 65536 --variant axpy_template --where BLOCK=64,ITEMS=1 --db "$kt_db" \
    >/dev/null 2>&1 || bad "the run before the import failed"
fake=$(q "$kt_db" "SELECT uuid FROM devices")
"$exe" import kernel-tuner "$(dirname "$0")/data/kernel_tuner/cpu-axpy_template.json" --op axpy \
    --variant axpy_template --size 65536 --device-name "$fake" --db "$kt_db" >/dev/null 2>&1 ||
    bad "the import into the run's device failed"
"$exe" query axpy --size 65536 --device "$fake" --db "$kt_db" >"$tmp/kt.q" 2>&1
grep -q "BLOCK=64,ITEMS=1" "$tmp/kt.q" || bad "an imported, unchecked config became the answer: $(cat "$tmp/kt.q")"
[ "$(q "$kt_db" "SELECT count(*) FROM best b JOIN trials t ON t.id = b.trial_id WHERE t.checked = 0")" = 0 ] ||
    bad "a best points at an unchecked trial"
"$exe" run axpy --size 65536 --variant axpy_template --json --db "$kt_db" >"$tmp/kt.json" 2>/dev/null ||
    bad "the run after the import failed"
python3 - "$tmp/kt.json" "$kt_db" <<'EOF' || bad "the run did not check the imported configs first"
import json, sqlite3, sys
trials = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "trial"]
con = sqlite3.connect(sys.argv[2])
imported = {r[0] for r in con.execute("SELECT config FROM trials WHERE checked = 0 AND status = 'ok'")}
first = [t["config"] for t in trials[:len(imported) - 1]]  # BLOCK=64,ITEMS=1 was measured before
checked = {r[0] for r in con.execute("SELECT config FROM trials WHERE checked = 1")}
best = con.execute("SELECT t.checked FROM best b JOIN trials t ON t.id = b.trial_id").fetchall()
ok = len(imported) == 20 and all(c in imported for c in first) and imported <= checked and \
    all(t["phase"] == "imported" for t in trials[:len(first)]) and best == [(1,)]
print("imported %d, first measured %s" % (len(imported), first[:4]))
sys.exit(0 if ok else 1)
EOF

# --- 11. a library variant (matmul_cublaslt: a C plugin whose configs are calls into
# cuBLASLt, not kernels): nothing is compiled for it (an empty kernel cache stays empty), the
# worker is sent its plugin, which it loads (the fake worker's log marks those evaluations),
# its trials are recorded like a kernel's, cuBLASLt's default first, and its best answers
lt_db=$tmp/lt.db
CUTUNE_CACHE_DIR=$tmp/lt-cache CUTUNE_FAKE_LOG=$tmp/lt.log "$exe" run matmul \
    --variant matmul_cublaslt --size 256x256x256-bf16-nt --db "$lt_db" --json \
    >"$tmp/lt.json" 2>"$tmp/lt.err" || { bad "the cuBLASLt variant's run failed"; cat "$tmp/lt.err"; }
python3 - "$tmp/lt.json" "$tmp/lt.n" <<'EOF2' || bad "the cuBLASLt variant's trials"
import json, sys
trials = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "trial"]
again = [t for t in trials if t["phase"] == "re-time"]  # the best, twice, beside the yardstick
first = "ALGO=0,WORKSPACE_MIB=32,TILE_M=0,TILE_N=0,CLUSTER_M=0,CLUSTER_N=0,OPTION=-1"
# searched (4080 configs: the heuristic's entries, and the first choice's settings), each
# config once, the heuristic's 32 entries (16 at each workspace) all in the warm start
# (WARM_MAX_LIBRARY), then the best re-timed twice
plain = {t["config"] for t in trials if t["phase"] == "warm start" and
         t["config"].endswith(",TILE_M=0,TILE_N=0,CLUSTER_M=0,CLUSTER_N=0,OPTION=-1")}
ok = len(trials) > 34 and all(t["status"] == "ok" and t["compile_ms"] == 0 for t in trials) \
    and trials[0]["config"] == first and trials[0]["phase"] == "warm start" and len(plain) == 32 \
    and len(again) == 2 and again == trials[-2:] and \
    len({t["config"] for t in trials}) == len(trials) - 2
print("cuBLASLt variant: %d trials, first %s" % (len(trials), trials[0]["config"] if trials else None))
open(sys.argv[2], "w").write(str(len(trials)))
sys.exit(0 if ok else 1)
EOF2
[ -z "$(ls -A "$tmp/lt-cache/kernels" 2>/dev/null)" ] || bad "a library variant's run compiled kernels"
n=$(grep -c ' 256x256x256-bf16-nt library$' "$tmp/lt.log")
[ "$n" = "$(cat "$tmp/lt.n" 2>/dev/null)" ] ||
    bad "the worker was sent the library plugin $n times for $(cat "$tmp/lt.n" 2>/dev/null) trials"
grep -q ' 255x255x255-bf16-nt library$' "$tmp/lt.log" || bad "the best's ragged check did not call the library"
case "$(q "$lt_db" "SELECT version FROM variants WHERE name = 'matmul_cublaslt'")" in
    1+*) ;; *) bad "the cuBLASLt variant's version does not begin 1+" ;; esac
"$exe" query matmul --size 256x256x256-bf16-nt --device "$(q "$lt_db" "SELECT uuid FROM devices")" \
    --db "$lt_db" >"$tmp/lt.q" 2>&1 || bad "the cuBLASLt variant's best does not answer"
grep -q "matmul_cublaslt" "$tmp/lt.q" || bad "the answer is not the cuBLASLt variant's: $(cat "$tmp/lt.q")"

# --- 12. where cuBLASLt is missing (the fake worker asks the plugin's own library_prepare,
# which finds no cuBLASLt at CUTUNE_CUBLASLT), each of its configs is skipped with a message
# naming what was tried, and the run still tunes the other variants and exits 0
lt2_db=$tmp/lt-missing.db
CUTUNE_FAKE_PREPARE=1 CUTUNE_CUBLASLT=/nonexistent/libcublasLt.so.99 "$exe" run matmul \
    --size 64x64x64 --budget 1 --db "$lt2_db" --no-progress >"$tmp/lt2.out" 2>&1
rc=$?
[ $rc = 0 ] || { bad "a run without cuBLASLt exited $rc"; cat "$tmp/lt2.out"; }
lt_trials="FROM trials t JOIN variants v ON v.id = t.variant_id WHERE v.name = 'matmul_cublaslt'"
[ "$(q "$lt2_db" "SELECT count(*) $lt_trials")" -ge 1 ] || bad "no trial of the cuBLASLt variant"
[ "$(q "$lt2_db" "SELECT count(*) $lt_trials AND (t.status <> 'skipped_resources' OR t.message NOT LIKE
    'cuBLASLt is not installed here (tried CUTUNE_CUBLASLT: /nonexistent/libcublasLt.so.99%')")" = 0 ] ||
    { bad "a config of the cuBLASLt variant was not skipped for want of cuBLASLt"; "$exe" show --db "$lt2_db"; }
[ "$(q "$lt2_db" "SELECT version FROM variants WHERE name = 'matmul_cublaslt'")" = "1+no-cublaslt" ] ||
    bad "the variant's version does not say there is no cuBLASLt"
[ "$(q "$lt2_db" "SELECT count(DISTINCT v.name) FROM trials t JOIN variants v ON v.id = t.variant_id
    WHERE t.status = 'ok' AND v.name <> 'matmul_cublaslt'")" -ge 3 ] || bad "the other variants were not tuned"
grep -q "variant matmul_cublaslt produced no correct config in .* skipped_resources): it cannot run here" \
    "$tmp/lt2.out" || { bad "the run does not say the cuBLASLt variant cannot run here"; cat "$tmp/lt2.out"; }

# --- a variant of `main_job = no` (matmul_tf32) is left out of a run of the whole op, and
# tuned by --dtype (the last shard of 1000 keeps no job: only the plan is made)
"$exe" run matmul --db "$tmp/mj.db" --shard 999/1000 --time 10 >"$tmp/mj1.out" 2>&1 ||
    bad "the plan of the whole op failed"
grep -q "matmul_tf32: left out of a run of the whole op" "$tmp/mj1.out" ||
    { bad "the main job did not leave matmul_tf32 out"; cat "$tmp/mj1.out"; }
"$exe" run matmul --db "$tmp/mj.db" --dtype tf32 --shard 999/1000 --time 10 >"$tmp/mj2.out" 2>&1 ||
    bad "the plan of --dtype tf32 failed"
grep -q "left out" "$tmp/mj2.out" && bad "--dtype tf32 left a variant out"
grep -Eq "of the run's [1-9][0-9]* \(variant, size\) jobs" "$tmp/mj2.out" ||
    { bad "--dtype tf32 planned no job"; cat "$tmp/mj2.out"; }

# --- 13. a variant's TMA tensor maps (tests/data/tensor_maps/tma_fixture.ini) reach the worker
# with each trial, evaluated for its config and its size's layout (the fake worker's message
# lists them), and a config whose map TMA cannot take there is skipped_resources
CUTUNE_SPACE_PATH=$CUTUNE_TEST_DATA/tensor_maps "$exe" run matmul --variant tma_fixture \
    --size 256x512x1024-bf16-nt --size 256x512x1001 --db "$tmp/tma.db" --no-progress \
    >"$tmp/tma.out" 2>&1 || { bad "the run of tma_fixture failed"; cat "$tmp/tma.out"; }
msg() { q "$tmp/tma.db" "select t.message from trials t join problems p on p.id = t.problem_id where t.config = '$1' and p.size = '$2'"; }
[ "$(msg BM=64,BK=32,TMA=1 256x512x1024-bf16-nt)" = "maps B:1 on 1024x512 32x128 sw128; A:0 on 1024x256 32x64 sw128; C:2 off" ] ||
    bad "nt trial's maps: $(msg BM=64,BK=32,TMA=1 256x512x1024-bf16-nt)"
[ "$(msg BM=128,BK=64,TMA=0 256x512x1001)" = "maps B:1 on 512x1001 64x64 sw0; A:0 off; C:2 on 512x256 8x8 sw32" ] ||
    bad "nn trial's maps: $(msg BM=128,BK=64,TMA=0 256x512x1001)"
[ "$(q "$tmp/tma.db" "select count(*) from trials where status = 'skipped_resources' and message like '%tma_fixture.ini:24: [tensor_map.A] the byte stride of dims[1] is 4004%'")" = 4 ] ||
    bad "the TMA=1 configs at K = 1001 were not skipped for A's stride"

# --- 14. compiles ahead (core/src/tuning/compile_ahead.c): while the first size is set up
# (2 s in the fake worker), an idle compile thread compiles what its warm phase will measure,
# so that some of its trials find their cubin in a fresh kernel cache; with
# CUTUNE_COMPILE_AHEAD=0 none does, and the summary says no config was compiled ahead
for ahead in 1 0; do
    rm -rf "$tmp/kc-ahead"
    CUTUNE_COMPILE_AHEAD=$ahead CUTUNE_CACHE_DIR=$tmp/kc-ahead CUTUNE_FAKE_SETUP_MS=2000 \
        "$exe" run histogram --variant histogram_global --size 1048576x4x1 --jobs 2 \
        --db "$tmp/ahead$ahead.db" --json \
        >"$tmp/ahead$ahead.json" 2>"$tmp/ahead$ahead.err" ||
        { bad "the run with CUTUNE_COMPILE_AHEAD=$ahead failed"; cat "$tmp/ahead$ahead.err"; }
done
python3 - "$tmp/ahead1.json" "$tmp/ahead0.json" <<'EOF' || fail=1
import json, sys
def read(path):
    events = [json.loads(line) for line in open(path)]
    warm = [e for e in events if e["event"] == "trial" and e["phase"] == "warm start"]
    return events[-1], sum(e["compile_ms"] == 0 for e in warm), len(warm)
on, cached_on, n_on = read(sys.argv[1])
off, cached_off, n_off = read(sys.argv[2])
ok = True
if not (on["compiled_ahead"] >= 1 and cached_on >= 1):
    print("FAIL: compiled ahead %d, warm-start trials from the cache %d of %d" % (
        on["compiled_ahead"], cached_on, n_on)); ok = False
if off["compiled_ahead"] != 0 or cached_off != 0:
    print("FAIL: CUTUNE_COMPILE_AHEAD=0 compiled %d ahead, %d of %d warm-start trials from a fresh cache" % (
        off["compiled_ahead"], cached_off, n_off)); ok = False
sys.exit(0 if ok else 1)
EOF

# a size tuned before (here: a run cut at 4 of 13 configs) only has its best re-timed:
# nothing to compile ahead, not even the probes that a warm phase would add
"$exe" run histogram --variant histogram_global --size 1048576x4x1 --budget 4 \
    --db "$tmp/ahead3.db" >/dev/null 2>&1 || bad "the run of --budget 4 failed"
rm -rf "$tmp/kc-ahead"
CUTUNE_CACHE_DIR=$tmp/kc-ahead CUTUNE_FAKE_SETUP_MS=1000 "$exe" run histogram \
    --variant histogram_global --size 1048576x4x1 --jobs 2 --db "$tmp/ahead3.db" --json \
    >"$tmp/ahead3.json" 2>"$tmp/ahead3.err" || bad "the second run of the compile-ahead check failed"
[ "$(tail -1 "$tmp/ahead3.json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["compiled_ahead"])')" = 0 ] ||
    bad "a run that only re-times compiled configs ahead: $(tail -1 "$tmp/ahead3.json" | head -c 300)"

# a variant far behind the size's best after its first 4 warm configs ends its warm start
# there: histogram_shared with 16 known-good configs measures 4 of them when it is made 20x
# slower, more at its own speed
sp=$tmp/slow-spaces
mkdir -p "$sp"
for f in histogram_shared.ini histogram_shared.cu last_block.cuh histogram_finish.cuh; do
    cp "$CUTUNE_SOURCE_ROOT/tuning_spaces/$f" "$sp/"
done
for b in 128 256; do for s in 1 2; do for i in 1 2; do for c in 1 8; do
    echo "BLOCK=$b,BLOCKS_PER_SM=$s,ITEMS=$i,COPIES=$c,RLE=0"
done; done; done; done >"$sp/histogram_shared.known"
for slow in "" "COPIES="; do
    CUTUNE_SPACE_PATH=$sp CUTUNE_FAKE_SLOW=$slow "$exe" run histogram --size 268435456x1x1 \
        --db "$tmp/slow$slow.db" --json --time 60 >"$tmp/slow.json" 2>"$tmp/slow.err" ||
        bad "the run with CUTUNE_FAKE_SLOW=$slow failed"
    python3 - "$tmp/slow.json" "$slow" <<'EOF' || fail=1
import json, sys
t = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "trial"]
warm = sum(e["variant"] == "histogram_shared" and e["phase"] == "warm start" for e in t)
if (warm == 4) != bool(sys.argv[2]) or warm < 4:
    sys.exit("FAIL: CUTUNE_FAKE_SLOW=%s: histogram_shared's warm start measured %d" % (sys.argv[2], warm))
EOF
done

# A config refused before it ran (skipped_resources) is no measurement: the search of a
# space where a third is refused stops after as many ok measurements without a gain as one
# where none is (matmul_cublaslt, a library variant: nothing compiles)
for skip in "" "OPTION=0;OPTION=1;OPTION=2;OPTION=3"; do
    CUTUNE_FAKE_SKIP=$skip "$exe" run matmul --variant matmul_cublaslt --size 256x256x256-bf16-nt \
        --db "$tmp/skip${#skip}.db" --json --time 60 --no-progress >"$tmp/skip${#skip}.json" \
        2>"$tmp/skip.err" || bad "the run with CUTUNE_FAKE_SKIP=$skip failed"
done
python3 - "$tmp/skip0.json" "$tmp/skip35.json" <<'EOF' || fail=1
import json, sys
def after_gain(path):  # ok and skipped trials after the last gain (1.003x, tune_job.c)
    t = [e for e in map(json.loads, open(path)) if e["event"] == "trial" and e["phase"] != "re-time"]
    best, last = None, -1
    for i, e in enumerate(t):
        if e["status"] == "ok" and (best is None or e["median_ms"] < best / 1.003):
            best, last = e["median_ms"], i
    rest = [e["status"] for e in t[last + 1:]]
    return rest.count("ok"), rest.count("skipped_resources")
plain, skipped = after_gain(sys.argv[1]), after_gain(sys.argv[2])
if plain[1] or not skipped[1] or not plain[0] or skipped[0] != plain[0]:
    sys.exit("FAIL: ok and skipped trials after the last gain: %s with none refused, %s with "
             "some: the refused ones counted as measurements" % (plain, skipped))
EOF

[ $fail = 0 ] && echo "run: ok (first run $n1 trials)"
exit $fail
