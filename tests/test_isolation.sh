#!/usr/bin/env bash
# The tuner survives its kernels, tested through the cutune command with the fake worker
# (tests/fake_worker.c, no GPU needed): configs that abort, segfault, exit, hang, break the
# CUDA context or answer garbage are recorded as crashed/timeout and the run goes on in a
# fresh worker; kill -9, SIGTERM and Ctrl-C in the middle of a run lose nothing and
# --resume measures nothing twice; several cutune run processes share one database; a worker
# that ends during a yardstick is replaced and the yardstick asked again.
# Usage: test_isolation.sh PATH_TO_CUTUNE PATH_TO_FAKE_WORKER
set -u
exe=$1
export CUTUNE_WORKER=$2
. "$(dirname "$0")/lib.sh"
size=16777216
uuid=GPU-fa4e0000-0000-0000-0000-000000000001

# rows of a run: "config status median message..."
rows() { # rows DB RUN
    "$exe" show "$2" --db "$1" 2>/dev/null | awk 'NR > 1 && $1 ~ /^[0-9]+$/ {
        msg = ""; i = index($0, "  ("); if (i) msg = substr($0, i + 3)
        print $7, $4, $5, msg }'
}

# --- 1. isolation: every kind of failure is recorded, the run completes, the best is good
db=$tmp/iso.db
export CUTUNE_FAKE_LOG=$tmp/iso.log
export CUTUNE_FAKE_RULES="abort=BLOCK=64,ITEMS=2;segv=BLOCK=128,ITEMS=1;exit=BLOCK=128,ITEMS=8;\
hang=BLOCK=256,ITEMS=4;lost=BLOCK=512,ITEMS=1;garbage=BLOCK=512,ITEMS=2;wrong=BLOCK=1024,ITEMS=1"
start=$(date +%s)
"$exe" run axpy --size $size --db "$db" --timeout-floor 0.2 --max-seconds 0.1 --no-progress \
    >"$tmp/iso.out" 2>&1
rc=$?
[ $rc = 0 ] || { bad "isolation run exited $rc"; cat "$tmp/iso.out"; }
rows "$db" 1 >"$tmp/iso.rows"
# every config once, and the best twice more: re-timed beside the yardstick at the end
[ "$(wc -l <"$tmp/iso.rows")" = 22 ] || { bad "isolation run recorded $(wc -l <"$tmp/iso.rows") trials, want all 20 and 2 re-times"; cat "$tmp/iso.rows"; }
[ "$(awk '{print $1}' "$tmp/iso.rows" | sort -u | wc -l)" = 20 ] || bad "isolation run: want 20 distinct configs"
expect_row() { # CONFIG STATUS PHRASE
    local line
    line=$(grep "^$1 " "$tmp/iso.rows")
    case "$line" in
        "$1 $2 "*"$3"*) ;;
        *) bad "config $1: want status $2 with '$3', got '$line'" ;;
    esac
}
expect_row BLOCK=64,ITEMS=2 crashed "signal 6"
expect_row BLOCK=128,ITEMS=1 crashed "signal 11"
expect_row BLOCK=128,ITEMS=8 crashed "exited with status 1"
expect_row BLOCK=256,ITEMS=4 timeout "no result within"
expect_row BLOCK=512,ITEMS=1 crashed "cudaErrorIllegalAddress"
expect_row BLOCK=512,ITEMS=2 crashed "malformed"
expect_row BLOCK=1024,ITEMS=1 wrong_result "fake wrong result"
nok=$(awk '$2 == "ok"' "$tmp/iso.rows" | wc -l)
[ "$nok" = 15 ] || bad "want 13 ok trials and the best's 2 re-times, got $nok"
# the configs after the last failure were measured: the run went on
grep -q "^BLOCK=1024,ITEMS=8 ok " "$tmp/iso.rows" || bad "the last config was not measured"
# a fresh worker after each of the six that killed or hung theirs, and only then: in the
# order the run measured them (the log has "<pid> <config>" per evaluation), the worker
# changes right after a killer and never otherwise
killers="BLOCK=64,ITEMS=2 BLOCK=128,ITEMS=1 BLOCK=128,ITEMS=8 BLOCK=256,ITEMS=4 BLOCK=512,ITEMS=1 BLOCK=512,ITEMS=2"
workers=$(awk -v k="$killers" 'BEGIN { n = split(k, a, " "); for (i = 1; i <= n; i++) K[a[i]] = 1 }
    NR > 1 && (($1 != pid) != (cfg in K)) { print "line " NR ": worker " $1 " after " cfg " in " pid; bad = 1 }
    { pid = $1; cfg = $2; if (!($1 in seen)) { seen[$1] = 1; n_pids++ } }
    END { if (bad) exit 1; print n_pids }' "$CUTUNE_FAKE_LOG") ||
    bad "a worker was replaced where no config killed it, or kept where one did: $workers"
last=$(tail -1 "$CUTUNE_FAKE_LOG" | awk '{print $2}')
want=7
case " $killers " in *" $last "*) want=6 ;; esac # no worker is started after the last one
[ "$workers" = "$want" ] || bad "want $want worker processes (1 + a replacement for each killer followed by another config), the log shows $workers"
# the hang cost about its limit, not forever: (2 + 4) x 0.2 + 0.1 + 1 = 2.3 s
[ $(( $(date +%s) - start )) -lt 60 ] || bad "the isolation run took over a minute"
best=$(awk '$2 == "ok" {print $3, $1}' "$tmp/iso.rows" | sort -g | head -1 | cut -d' ' -f2)
"$exe" query axpy --size $size --device $uuid --db "$db" >"$tmp/iso.query" 2>&1 ||
    bad "query after the isolation run failed: $(cat "$tmp/iso.query")"
grep -qF -- "$best" "$tmp/iso.query" || { bad "query does not give the fastest ok config $best"; cat "$tmp/iso.query"; }
case "$CUTUNE_FAKE_RULES" in *"=$best;"* | *"=$best") bad "the best, $best, is a bad config" ;; esac
unset CUTUNE_FAKE_RULES

# --- 2. kill -9 in the middle of a run, then --resume: nothing lost, nothing measured twice
wait_lines() { # FILE N: wait (up to 30 s) until FILE has N lines
    for _ in $(seq 300); do
        [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
resume_check() { # NAME DB: run 1 was cut short, run 2 resumed it
    local name=$1 db=$2
    rows "$db" 1 | awk '{print $1}' | sort >"$tmp/$name.r1"
    rows "$db" 2 | awk '{print $1}' | sort >"$tmp/$name.r2"
    local n1 n2 all
    n1=$(wc -l <"$tmp/$name.r1") n2=$(wc -l <"$tmp/$name.r2")
    all=$(cat "$tmp/$name.r1" "$tmp/$name.r2" | sort -u | wc -l)
    [ "$n1" -ge 1 ] && [ "$n1" -lt 20 ] || bad "$name: the interrupted run recorded $n1 trials"
    # (and the best twice more, re-timed beside the yardstick at the end of run 2)
    local best
    best=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
        "SELECT t.config FROM best b JOIN trials t ON t.id = b.trial_id").fetchone()[0])' "$db")
    [ $((n1 + n2)) = 22 ] && [ "$all" = 20 ] ||
        bad "$name: $n1 + $n2 trials over $all distinct configs, want 20 once each and the best again"
    [ "$(cat "$tmp/$name.r1" "$tmp/$name.r2" | grep -cx "$best")" = 3 ] || bad "$name: the best $best not re-timed twice"
    # the resumed run's worker never saw a config the first run had recorded
    # (at its own size: the best is then checked once more at a ragged size near it, and
    # re-timed beside the yardstick)
    awk -v p="$3" -v s="$size" '$1 != p && $3 == s {print $2}' "$CUTUNE_FAKE_LOG" | sort -u | grep -vx "$best" >"$tmp/$name.later"
    comm -12 "$tmp/$name.r1" "$tmp/$name.later" >"$tmp/$name.twice"
    [ ! -s "$tmp/$name.twice" ] || bad "$name: measured again after resuming: $(cat "$tmp/$name.twice")"
}
db=$tmp/kill.db
export CUTUNE_FAKE_LOG=$tmp/kill.log CUTUNE_FAKE_DELAY_MS=100
"$exe" run axpy --size $size --db "$db" --no-progress >"$tmp/kill.out" 2>&1 &
pid=$!
wait_lines "$CUTUNE_FAKE_LOG" 6 || bad "kill -9: the run did not start evaluating"
kill -9 $pid
wait $pid 2>/dev/null
wpid=$(awk 'NR == 1 {print $1}' "$CUTUNE_FAKE_LOG")
for _ in $(seq 50); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$wpid" 2>/dev/null && { bad "kill -9: the worker $wpid outlived the tuner"; kill -9 "$wpid"; }
unset CUTUNE_FAKE_DELAY_MS
"$exe" run axpy --size $size --db "$db" --no-progress --resume >"$tmp/kill2.out" 2>&1 ||
    { bad "kill -9: the resumed run failed"; cat "$tmp/kill2.out"; }
resume_check kill "$db" "$wpid"

run_status() { # DB RUN: the run's status, read behind cutune's back
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
        "SELECT status FROM runs WHERE id = ?", (int(sys.argv[2]),)).fetchone()[0])' "$1" "$2" 2>/dev/null
}
# the run killed with -9 was left 'running'; the resumed run's open found its process gone
if python3 -c 'import sqlite3' 2>/dev/null; then
    [ "$(run_status "$db" 1)" = interrupted ] || bad "kill -9: run 1 is '$(run_status "$db" 1)', want interrupted"
    [ "$(run_status "$db" 2)" = done ] || bad "kill -9: the resumed run is '$(run_status "$db" 2)', want done"
fi

# --- 2b. a second Ctrl-C stops a hung kernel at once, not at its deadline (6 x 60 s here):
# every evaluation sleeps ten minutes, so the first one is the hung trial
db=$tmp/twice.db
export CUTUNE_FAKE_LOG=$tmp/twice.log CUTUNE_FAKE_DELAY_MS=600000
"$exe" run axpy --size $size --db "$db" --timeout-floor 60 --no-progress >"$tmp/twice.out" 2>&1 &
pid=$!
wait_lines "$CUTUNE_FAKE_LOG" 1 || bad "second signal: the run did not start evaluating"
kill -INT $pid
sleep 0.5
kill -0 $pid 2>/dev/null || bad "second signal: the first signal did not wait for the trial in flight"
start=$(date +%s)
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || { bad "second signal: exit $rc, want 130"; cat "$tmp/twice.out"; }
[ $(( $(date +%s) - start )) -le 5 ] || bad "second signal: the run took $(( $(date +%s) - start )) s to stop"
grep -q "stopping now" "$tmp/twice.out" || { bad "second signal: no message"; cat "$tmp/twice.out"; }
wpid=$(awk 'NR == 1 {print $1}' "$CUTUNE_FAKE_LOG")
sleep 0.2
kill -0 "$wpid" 2>/dev/null && { bad "second signal: the hung worker $wpid survived"; kill -9 "$wpid"; }
[ "$(rows "$db" 1 | wc -l)" = 0 ] || { bad "second signal: the killed trial was recorded"; rows "$db" 1; }
if python3 -c 'import sqlite3' 2>/dev/null; then
    [ "$(run_status "$db" 1)" = interrupted ] || bad "second signal: the run is '$(run_status "$db" 1)', want interrupted"
fi
unset CUTUNE_FAKE_DELAY_MS

signalled() { # signalled NAME SIG N: a run into $tmp/NAME.db, sent signal SIG once N
    # trials began, must exit 130; sets db and rc
    db=$tmp/$1.db
    export CUTUNE_FAKE_LOG=$tmp/$1.log CUTUNE_FAKE_DELAY_MS=100
    "$exe" run axpy --size $size --db "$db" --no-progress >"$tmp/$1.out" 2>&1 &
    local pid=$!
    wait_lines "$CUTUNE_FAKE_LOG" "$3" || bad "SIG$2: the run did not start evaluating"
    kill -"$2" $pid
    wait $pid
    rc=$?
    [ $rc = 130 ] || { bad "SIG$2: exit $rc, want 130"; cat "$tmp/$1.out"; }
}

# --- 2c. SIGHUP (a closed terminal) stops the run like SIGTERM: never left 'running'
signalled hup HUP 2
if python3 -c 'import sqlite3' 2>/dev/null; then
    [ "$(run_status "$db" 1)" = interrupted ] || bad "SIGHUP: the run is '$(run_status "$db" 1)', want interrupted"
fi
unset CUTUNE_FAKE_DELAY_MS

# --- 3. SIGTERM: stops after the trial in flight, exit 130, the run is resumable
signalled term TERM 4
grep -q "interrupted" "$tmp/term.out" || bad "SIGTERM: no 'interrupted' message"
wpid=$(awk 'NR == 1 {print $1}' "$CUTUNE_FAKE_LOG")
unset CUTUNE_FAKE_DELAY_MS
"$exe" run axpy --size $size --db "$db" --no-progress --resume >"$tmp/term2.out" 2>&1 ||
    bad "SIGTERM: the resumed run failed"
resume_check term "$db" "$wpid"
rows "$db" 1 | grep -v " ok " && bad "SIGTERM: a trial of the interrupted run is not ok"

# --- 4. Ctrl-C reaches the whole process group of the terminal: the worker must survive
# it (the trial in flight is recorded ok, not crashed) and the run stops with 130
if command -v setsid >/dev/null; then
    db=$tmp/int.db
    export CUTUNE_FAKE_LOG=$tmp/int.log CUTUNE_FAKE_DELAY_MS=300
    setsid "$exe" run axpy --size $size --db "$db" --no-progress >"$tmp/int.out" 2>&1 &
    pid=$!
    wait_lines "$CUTUNE_FAKE_LOG" 3 || bad "SIGINT: the run did not start evaluating"
    kill -INT -- -$pid
    wait $pid
    rc=$?
    [ $rc = 130 ] || { bad "SIGINT to the group: exit $rc, want 130"; cat "$tmp/int.out"; }
    n=$(rows "$db" 1 | grep -c " ok ")
    [ "$n" -ge 3 ] && [ "$n" = "$(rows "$db" 1 | wc -l)" ] ||
        { bad "SIGINT to the group: want only ok trials, at least 3"; rows "$db" 1; }
    unset CUTUNE_FAKE_DELAY_MS
fi

# --- 5. several cutune run processes on one database at once
db=$tmp/many.db
export CUTUNE_FAKE_LOG=$tmp/many.log CUTUNE_FAKE_DELAY_MS=5
pids=()
for s in 1024 2048 4096 8192 16384 32768; do
    "$exe" run axpy --size $s --db "$db" --no-progress >"$tmp/many.$s" 2>&1 &
    pids+=($!)
done
sizes=(1024 2048 4096 8192 16384 32768)
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { bad "a concurrent run exited $?"; cat "$tmp/many.${sizes[$i]}"; }
done
total=0
for r in 1 2 3 4 5 6; do total=$((total + $(rows "$db" $r | grep -c " ok "))); done
[ "$total" = 132 ] || bad "6 concurrent runs recorded $total ok trials, want 120 and 12 re-times of a best"
unset CUTUNE_FAKE_DELAY_MS

# --- 6. the worker reports no device: exit 3 with its message
CUTUNE_FAKE_NO_DEVICE=1 "$exe" run axpy --db "$tmp/nodev.db" >"$tmp/nodev.out" 2>&1
rc=$?
[ $rc = 3 ] && grep -q "no CUDA driver or device" "$tmp/nodev.out" || { bad "no device: exit $rc"; cat "$tmp/nodev.out"; }
# a missing worker executable: a message that says where it looked and how to fix it
CUTUNE_WORKER=$tmp/nowhere "$exe" run axpy --db "$tmp/nodev.db" >"$tmp/nowk.out" 2>&1
rc=$?
[ $rc = 4 ] && grep -q "CUTUNE_WORKER is '$tmp/nowhere'" "$tmp/nowk.out" || { bad "missing worker: exit $rc"; cat "$tmp/nowk.out"; }

# --- 7. a worker that ends during a yardstick (a crash, or a kill) is replaced and the
# yardstick asked once more: the size keeps its ratio and both end-of-size re-times, whether
# it ended in the size's first yardstick (1) or in the first of the pairs at its end (2)
for at in 1 2; do
    rm -f "$tmp/ys.count"
    CUTUNE_FAKE_YARDSTICK=exitat:$at:$tmp/ys.count "$exe" run axpy --size 1048576 \
        --db "$tmp/ys$at.db" --json --no-progress >"$tmp/ys$at.json" 2>"$tmp/ys$at.err"
    rc=$?
    [ $rc = 0 ] || { bad "a worker ended in yardstick $at: exit $rc"; cat "$tmp/ys$at.err"; }
    python3 - "$tmp/ys$at.json" "$tmp/ys.count" "$at" <<'EOF' || fail=1
import json, os, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
retimes = sum(e["event"] == "trial" and e["phase"] == "re-time" for e in ev)
sizes = [e for e in ev if e["event"] == "size"]
asked = os.path.getsize(sys.argv[2])  # the size's first, its 2 pairs', and the one asked again
if retimes != 2 or len(sizes) != 1 or not sizes[0]["vs_yardstick"] or asked != 4:
    print("FAIL: the worker ended in yardstick %s: %d re-times, ratio %s, %d yardsticks asked"
          % (sys.argv[3], retimes, sizes and sizes[0]["vs_yardstick"], asked))
    sys.exit(1)
EOF
done

[ $fail = 0 ] && echo "all isolation checks passed"
exit $fail
