#!/usr/bin/env bash
# "A wrong kernel never becomes best" on the paths beside the tuning loop, on a real GPU
# (exit 77 without one), with the planted-bug variant (tests/planted/matmul_planted.cu):
#   1. a config right only when K % 64 == 0 (BUG=7) wins 1024^3, fails its ragged-size check
#      at 1023^3, and never answers 1020^3 through the nearest-size fallback; a right config
#      (BUG=0) tuned at 2048^3 passes at 2047^3 and answers it instead;
#   2. a Kernel Tuner cache whose fastest entry is wrong (BUG=1), imported for this very GPU,
#      answers no lookup; the next run checks the imported configs, records the wrong ones
#      wrong_result, and the answer is the right one.
# Usage: test_gpu_integrity.sh PATH_TO_CUTUNE
set -u
exe=$1
. "$(dirname "$0")/lib.sh"
"$exe" devices >/dev/null 2>&1 || { echo "no CUDA device: skipped"; exit 77; }
q() { # q DB SQL: the first column of the first row
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$@"
}
db=$tmp/integrity.db
run() { "$exe" run matmul --device 0 --variant matmul_planted --db "$db" --time 120 "$@" >>"$tmp/runs.log" 2>&1 ||
    { bad "cutune run $* failed"; tail -20 "$tmp/runs.log"; }; }

# --- 1. the nearest-size fallback
run --size 1024 --where BUG=7
uuid=$(q "$db" "SELECT uuid FROM devices")
[ "$(q "$db" "SELECT ragged_size || ' ' || passed FROM ragged_checks WHERE config = 'BUG=7'")" = "1023x1023x1023 0" ] ||
    bad "BUG=7 was not recorded as failing at 1023^3"
"$exe" query matmul --size 1024 --device "$uuid" --db "$db" --json | grep -q '"BUG=7"' ||
    bad "BUG=7 does not answer its own size, where it is right"
"$exe" query matmul --size 1020 --device "$uuid" --db "$db" --fallback >"$tmp/q1" 2>&1
[ $? = 4 ] || bad "a config right only at K % 64 == 0 reached 1020^3: $(cat "$tmp/q1")"
run --size 2048 --where BUG=0
"$exe" query matmul --size 1020 --device "$uuid" --db "$db" --fallback --json >"$tmp/q2" 2>&1 ||
    bad "no answer for 1020^3 after 2048^3 was tuned: $(cat "$tmp/q2")"
grep -q '"config_text": *"BUG=0"' "$tmp/q2" && grep -q '"checked_size": *"2047x2047x2047"' "$tmp/q2" ||
    bad "1020^3 is not answered by BUG=0 checked at 2047^3: $(cat "$tmp/q2")"

# --- 2. an imported Kernel Tuner cache whose fastest entry is wrong
python3 - "$tmp/kt.json" <<'PY'
import json, sys
entries = {"1": 0.001, "3": 0.002, "0": 0.5}  # BUG: time (ms); 1 and 3 are wrong, and fastest
cache = {b: {"BUG": int(b), "time": t, "times": [t] * 3, "compile_time": 100.0,
             "verification_time": 0, "benchmark_time": 1.0} for b, t in entries.items()}
json.dump({"device_name": "", "kernel_name": "matmul_planted", "problem_size": [512, 512, 512],
           "tune_params_keys": ["BUG"], "tune_params": {"BUG": list(range(8))},
           "objective": ["time"], "cache": cache}, open(sys.argv[1], "w"))
PY
"$exe" import kernel-tuner "$tmp/kt.json" --op matmul --variant matmul_planted --size 512 \
    --device-name "$uuid" --db "$db" >"$tmp/imp" 2>&1 || bad "the import failed: $(cat "$tmp/imp")"
"$exe" query matmul --size 512 --device "$uuid" --db "$db" >"$tmp/q3" 2>&1
[ $? = 4 ] && grep -q "never checked by cutune" "$tmp/q3" || bad "the imported wrong config answered: $(cat "$tmp/q3")"
"$exe" query matmul --size 500 --device "$uuid" --db "$db" --fallback --json >"$tmp/q4" 2>&1
grep -q '"BUG=1"\|"BUG=3"' "$tmp/q4" && bad "a fallback handed out the imported wrong config: $(cat "$tmp/q4")"
run --size 512 --where BUG=0 --where BUG=1 --where BUG=3
[ "$(q "$db" "SELECT group_concat(config || ':' || status, ' ') FROM (SELECT DISTINCT config, status FROM trials
      t JOIN problems p ON p.id = t.problem_id WHERE p.size = '512x512x512' AND t.checked = 1 ORDER BY config)")" = \
  "BUG=0:ok BUG=1:wrong_result BUG=3:wrong_result" ] || bad "the run did not check the imported configs"
"$exe" query matmul --size 512 --device "$uuid" --db "$db" --json | grep -q '"BUG=0"' ||
    bad "after the run, the answer is not the right config BUG=0"
[ "$(q "$db" "SELECT count(*) FROM best b JOIN trials t ON t.id = b.trial_id WHERE t.checked = 0 OR t.status != 'ok' OR t.config IN ('BUG=1', 'BUG=3', 'BUG=7') AND b.problem_id != (SELECT id FROM problems WHERE size = '1024x1024x1024')")" = 0 ] ||
    bad "a best points at an unchecked or wrong trial"
[ $fail = 0 ] && echo "gpu_integrity: ok"
exit $fail
