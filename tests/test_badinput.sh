#!/usr/bin/env bash
# Bad input through the cutune command, end to end: each case must fail with a non-zero
# exit code and a message that says what and where, and leave the database as it was.
# Runs use the fake worker (no GPU needed) so that the tuner gets past the device.
# Usage: test_badinput.sh PATH_TO_CUTUNE PATH_TO_FAKE_WORKER PATH_TO_BROKEN_PLUGINS_DIR
set -u
exe=$1
export CUTUNE_WORKER=$2
broken=$3
. "$(dirname "$0")/lib.sh"

# A database with one good run in it; every failing command below must leave it as it was.
db=$tmp/good.db
"$exe" run axpy --size 4096 --db "$db" --no-progress >"$tmp/seed.out" 2>&1 || { bad "seeding run failed"; cat "$tmp/seed.out"; }
snapshot() { cat "$db" "$db-wal" 2>/dev/null | cksum; }
trials() { "$exe" show 1 --db "$db" 2>/dev/null | grep -c ' ok '; }
# (20 configs, and the best re-timed twice beside the yardstick at the end: 22 ok trials)
[ "$(trials)" = 22 ] || bad "the seeding run recorded $(trials) ok trials, want 22"
before=$(snapshot)
unchanged() { # after a failing command: the file is byte for byte the same and readable
    [ "$(snapshot)" = "$before" ] || bad "$1: the database changed"
    [ "$(trials)" = 22 ] || bad "$1: the database no longer reads back"
}

# --- the variant: a copy of axpy_template.ini with one mistake each, in a folder ahead of
# the shipped one on the space path (its kernel file is found along the path)
spaces=$tmp/spaces
mkdir -p "$spaces"
space() { # space LINE_TO_APPEND_OR_EDIT...: write spaces/axpy_template.ini
    cat >"$spaces/axpy_template.ini"
}
runspace() { CUTUNE_SPACE_PATH=$spaces "$exe" run axpy --size 4096 --db "$db" --no-progress "$@"; }
good_space='[variant]
name = axpy_template
op = axpy
version = 1
[param.BLOCK]
pow2 = 64..1024
[param.ITEMS]
values = 1, 2, 4, 8
[launch]
grid = ceil_div(n, BLOCK * ITEMS)
block = BLOCK'

# bad_space TEXT PHRASE PATTERN WHAT WHY: the good space with TEXT (backslash escapes read)
# appended fails with PHRASE, says PATTERN (else the failure is "WHAT: WHY") and leaves the
# database as it was
bad_space() {
    printf '%s\n%b\n' "$good_space" "$1" | space
    expect 1 "$2" -- runspace
    grep -q "$3" "$tmp/out" || bad "$4: $5"
    unchanged "$4"
}
bad_space '[constraints\nfits = BLOCK <= 1024' "axpy_template.ini:12: syntax error" \
    "variant file that may belong to op axpy was refused" "malformed INI" "not said to be refused"
bad_space '[constraints]\nfits = BLOCKS <= MAX_THREADS_PER_BLOCK' "unknown name 'BLOCKS'" \
    "axpy_template.ini:13" "unknown parameter" "no file:line"
bad_space '[constraints]\nfits = BLOCK <= * 2' "axpy_template.ini:13" \
    "column" "constraint syntax" "no column"
bad_space '[constraints]\nratio = ITEMS / (BLOCK - BLOCK) == 0' "division by zero" \
    "axpy_template.ini:13" "division by zero" "no file:line"

printf '%s\n[constraints]\nnever = BLOCK < 0\n' "$good_space" | space
expect 1 "nothing to tune" -- runspace
grep -q "note: variant 'axpy_template' is defined by $spaces/axpy_template.ini and by" "$tmp/out" ||
    bad "a variant named like a shipped one: no note naming both files"
unchanged "empty space"

# one refused file of the op leaves out only its variant: the others are tuned (and the run
# then exits 1, naming the file)
rm -f "$spaces/axpy_template.ini"
printf '[variant]\nname = axpy_broken\nop = axpy\nversion = 1\n[param.BLOCK\nvalues = 64\n' \
    >"$spaces/axpy_broken.ini"
expect 1 "1 variant file of op axpy was refused and left out" -- \
    env CUTUNE_SPACE_PATH=$spaces "$exe" run axpy --size 4096 --db "$tmp/refused.db" --no-progress
grep -q "note: a variant file that may belong to op axpy was refused, and is left out of this run (the other variants are tuned): $spaces/axpy_broken.ini:5" "$tmp/out" ||
    { bad "a refused file of the op: no note naming it"; cat "$tmp/out"; }
n=$("$exe" show --db "$tmp/refused.db" --status ok 2>&1 | grep -c "axpy_template")
[ "$n" = 22 ] || { bad "beside a refused file, axpy_template recorded $n ok trials, want 22"; cat "$tmp/out"; }
expect 4 "Refused files: $spaces/axpy_broken.ini:5" -- \
    env CUTUNE_SPACE_PATH=$spaces "$exe" run axpy --variant axpy_broken --size 4096 --db "$db" --no-progress
unchanged "a refused variant named"
rm -f "$spaces/axpy_broken.ini"

printf '[variant]\nname = axpy_template\nop = axpy\nversion = 1\n[param.BLOCK]\nvalues =\n' | space
expect 1 "axpy_template.ini:6" -- runspace
unchanged "parameter without values"

# the most parameters a space may have reach the worker whole; one more is refused at load
many=$good_space
for i in $(seq 1 46); do many="$many
[param.P$i]
values = $i"; done
printf '%s\n' "$many" | space
CUTUNE_SPACE_PATH=$spaces "$exe" run axpy --size 4096 --db "$tmp/many.db" --no-progress --budget 3 \
    --strategy random >"$tmp/out" 2>&1 || { bad "a 48-parameter space did not run"; cat "$tmp/out"; }
n=$("$exe" show --db "$tmp/many.db" --status ok 2>&1 | grep -c "P46=46")
[ "$n" = 5 ] || { bad "a 48-parameter space: $n ok trials with P46=46, want 3 and 2 re-times"; "$exe" show --db "$tmp/many.db"; }
printf '%s\n[param.P47]\nvalues = 47\n' "$many" | space
expect 1 "parameter 'P47' is one more than the 48 a space may have" -- runspace
unchanged "49 parameters"
printf '%s\n' "$good_space" | sed 's/^op = axpy$/op = axpyy/' | space
expect 1 "axpy_template.ini:3: op 'axpyy' is unknown" -- runspace
unchanged "unknown op"

# a launch that divides by zero skips the config, not the run; a run in which a variant had
# not one correct config says so and exits 1 (its trials are recorded)
printf '%s\nshared = 64 / (ITEMS - ITEMS)\n' "$good_space" | space
expect 1 "variant axpy_template produced no correct config in 20 trials (20 skipped_resources)" -- \
    env CUTUNE_SPACE_PATH=$spaces "$exe" run axpy --size 4096 --db "$tmp/divzero.db" --no-progress
grep -qE "axpy_template +4096 .* 20 +0 +20 +0 +0 +20 " "$tmp/out" ||
    { bad "a launch that divides by zero: want 20 configs skipped"; cat "$tmp/out"; }
before=$(snapshot) # that run was recorded, as it should be

# cutune list: a space with no valid config is a warning; a bad default size is refused
# with its file and line, and then list exits 1
printf '%s\n[constraints]\nnever = BLOCK < 0\n' "$good_space" | space
CUTUNE_SPACE_PATH=$spaces expect 0 "warning: $spaces/axpy_template.ini: no config of axpy_template passes" -- "$exe" list axpy
printf '%s\n[problems]\ndefault = 4096, 1024xx1024\n' "$good_space" | space
CUTUNE_SPACE_PATH=$spaces expect 1 "axpy_template.ini:13: default size '1024xx1024' is not a size of op axpy" -- "$exe" list axpy
printf '[variant]\nname = axpy_template\nop = axpy\nversion = 1\n[param.B]\nvalues = 32\n[launch]\ngrid = 1\nblock = B\n' | space
CUTUNE_SPACE_PATH=$spaces expect 1 "has no [problems] default sizes; pass --size (a size of op axpy is written n" -- \
    "$exe" run axpy --db "$db" --no-progress
unchanged "no sizes"
# a kernel that does not compile: the run says that nothing was correct, and show prints the
# compiler's own error under the trial
CUTUNE_SPACE_PATH=$spaces "$exe" run axpy --size 4096 --db "$tmp/compile.db" --no-progress >"$tmp/out" 2>&1
[ $? = 1 ] || { bad "a run whose one config does not compile did not exit 1"; cat "$tmp/out"; }
grep -q "variant axpy_template produced no correct config in 1 trials (1 compile_error)" "$tmp/out" ||
    { bad "a failed compile: the run does not say so"; cat "$tmp/out"; }
expect 0 "error: identifier \"BLOCK\" is undefined" -- "$exe" show --db "$tmp/compile.db"
rm -f "$spaces/axpy_template.ini"

# --- ops, variants, sizes
expect 4 "no plugin implements op 'nosuchop'" -- "$exe" run nosuchop --db "$db"
expect 4 "has no variant 'nope'" -- "$exe" run axpy --variant nope --db "$db"
expect 2 "dimension 1 is zero" -- "$exe" run axpy --size 0 --db "$db"
expect 2 "dimension 1 is negative" -- "$exe" run axpy --size -5 --db "$db"
expect 2 "larger than 2147483647" -- "$exe" run axpy --size 99999999999999999999 --db "$db"
expect 2 "larger than 2147483647" -- "$exe" run axpy --size 4096x2147483648 --db "$db"
expect 2 "expected a number at 'abc'" -- "$exe" run axpy --size abc --db "$db"
expect 2 "dimension 2 is missing" -- "$exe" run axpy --size 4096x --db "$db"
expect 2 "empty problem size" -- "$exe" run axpy --size '' --db "$db"
expect 2 "more than 4 dimensions" -- "$exe" run axpy --size 1x1x1x1x1 --db "$db"
expect 1 "axpy takes one size" -- "$exe" run axpy --size 64x64x64 --db "$db" --no-progress
expect nz "dimension 1 is zero" -- "$exe" query axpy --size 0 --device fake --db "$db"
# a multiplication sign for the letter x: the message shows the whole character (it once
# showed its lone first byte, \xc3) and is UTF-8
expect 2 "unexpected '×' (U+00D7) after dimension 1" -- "$exe" run axpy --size '4096×4096' --db "$db"
python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$tmp/out" 2>/dev/null ||
    bad "--size 4096×4096: the message is not UTF-8"
unchanged "sizes"

# --- plugins: wrong ABI, missing symbol
plugins=$tmp/plugins
mkdir -p "$plugins"
cp "$broken/broken_abi_major.so" "$broken/broken_no_symbol.so" "$plugins/"
CUTUNE_PLUGIN_PATH=$plugins expect 4 "but this cutune speaks ABI 1." -- "$exe" run broken --db "$db"
grep -qF "broken_abi_major.so" "$tmp/out" || bad "wrong ABI: the file is not named"
grep -qF "no symbol 'cutune_plugin_variant'" "$tmp/out" || bad "missing symbol: not reported"
CUTUNE_PLUGIN_PATH=$plugins expect 1 "refused $plugins/broken_no_symbol.so" -- "$exe" list
grep -q "cutune list: 2 files were refused" "$tmp/out" || bad "list: the refusals are not counted"
unchanged "plugins"

# --- databases: not a database, newer schema, unwritable or impossible folders
echo "not a database at all, just text" >"$tmp/text.db"
cp "$tmp/text.db" "$tmp/text.orig"
expect 1 "is not a cutune database" -- "$exe" run axpy --size 4096 --db "$tmp/text.db" --no-progress
cmp -s "$tmp/text.db" "$tmp/text.orig" || bad "not a database: the file was modified"
head -c 8192 /dev/urandom >"$tmp/random.db"
expect 1 "not a cutune database" -- "$exe" show --db "$tmp/random.db"

newer=$tmp/newer.db
cp "$db" "$newer"
if python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version = 99"); c.commit()' "$newer" 2>/dev/null; then
    cp "$newer" "$tmp/newer.orig"
    expect 1 "schema version 99, newer than" -- "$exe" run axpy --size 4096 --db "$newer" --no-progress
    cmp -s "$newer" "$tmp/newer.orig" || bad "newer schema: the file was modified"
    [ -e "$newer-wal" ] && [ -s "$newer-wal" ] && bad "newer schema: a WAL was written"
    expect 1 "newer than" -- "$exe" show --db "$newer"
else
    echo "note: python3 with sqlite3 missing: the newer-schema case is skipped"
fi

touch "$tmp/afile"
expect 1 "cannot create directory" -- "$exe" run axpy --size 4096 --db "$tmp/afile/sub/x.db" --no-progress
# permissions do not stop root: as root, run those cases as nobody (setpriv)
as=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    as=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
    chmod 755 "$tmp"
fi
if [ "$(id -u)" != 0 ] || [ ${#as[@]} -gt 0 ]; then
    mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
    expect 1 "cannot write in directory $tmp/ro" -- "${as[@]}" "$exe" run axpy --size 4096 --db "$tmp/ro/x.db" --no-progress
    mkdir "$tmp/ro2" && cp "$db" "$tmp/ro2/r.db" && chmod 444 "$tmp/ro2/r.db" && chmod 555 "$tmp/ro2"
    cksum <"$tmp/ro2/r.db" >"$tmp/ro2.sum"
    expect 1 "$tmp/ro2" -- "${as[@]}" "$exe" run axpy --size 4096 --db "$tmp/ro2/r.db" --no-progress
    grep -qE "not writable|cannot write" "$tmp/out" || { bad "read-only database: unclear message"; cat "$tmp/out"; }
    cksum <"$tmp/ro2/r.db" | cmp -s - "$tmp/ro2.sum" || bad "read-only database: the file changed"
else
    echo "note: running as root without setpriv: the read-only folder cases are skipped"
fi
# a missing folder is created (not an error)
"$exe" run axpy --size 4096 --db "$tmp/new/deeper/x.db" --no-progress >/dev/null 2>&1 ||
    bad "a missing database folder was not created"
# a path ending in '/' names a folder: refused before anything is made (a run once left an
# empty folder named after the database), as is an existing folder, left as it was
expect 2 "ends in '/', which names a folder" -- "$exe" run axpy --size 4096 --db "$tmp/slash/x.db/" --no-progress
[ -e "$tmp/slash" ] && bad "run --db PATH/ left $(find "$tmp/slash")"
expect 2 "ends in '/'" -- "$exe" import kernel-tuner "$CUTUNE_TEST_DATA/kernel_tuner/cpu-axpy_template.json" \
    --op axpy --variant axpy_template --device-name CPU --db "$tmp/slash/k.db/"
[ -e "$tmp/slash" ] && bad "import --db PATH/ left $(find "$tmp/slash")"
mkdir "$tmp/adir"
expect 2 "the database $tmp/adir is a folder" -- "$exe" run axpy --size 4096 --db "$tmp/adir" --no-progress
[ -z "$(ls -A "$tmp/adir")" ] || bad "run --db FOLDER wrote into it"

# --- new variant on a full disk (a file size limit of 0: every write fails, as on a full
# disk; a pipe is no file, so the message comes through): no file and no folder it made is
# left behind, and a folder that was there stays
(ulimit -f 0 && exec "$exe" new variant axpy full_v --dir "$tmp/nv/a/b/") 2>&1 | cat >"$tmp/out"
rc=${PIPESTATUS[0]}
[ "$rc" = 1 ] || { bad "new variant on a full disk: exit $rc, want 1"; cat "$tmp/out"; }
grep -q "cannot write $tmp/nv/a/b/full_v.ini" "$tmp/out" || { bad "new variant on a full disk: unclear message"; cat "$tmp/out"; }
[ -e "$tmp/nv" ] && bad "new variant on a full disk left $(find "$tmp/nv")"
mkdir "$tmp/nv"
(ulimit -f 0 && exec "$exe" new variant axpy full_v --dir "$tmp/nv") >/dev/null 2>&1
[ -d "$tmp/nv" ] && [ -z "$(ls -A "$tmp/nv")" ] || bad "new variant on a full disk: $tmp/nv is not the empty folder it was"

# --- a full disk, simulated with a file size limit (RLIMIT_FSIZE via ulimit -f): the
# write fails as on a full disk; the run stops with a message and the database keeps every
# trial committed before
full=$tmp/full.db
cp "$db" "$full"
rm -f "$full-wal" "$full-shm"
(ulimit -f 40 && exec "$exe" run axpy --size 8192 --db "$full" --no-progress) >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] || { bad "full disk: exit $rc, want 1"; cat "$tmp/out"; }
grep -q "database $full: .*disk" "$tmp/out" || { bad "full disk: unclear message"; cat "$tmp/out"; }
n=$("$exe" show 1 --db "$full" 2>/dev/null | grep -c ' ok ')
[ "$n" = 22 ] || bad "full disk: the earlier run reads back $n ok trials, want 22"
if python3 -c 'import sqlite3' 2>/dev/null; then
    ic=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])' "$full")
    [ "$ic" = ok ] || bad "full disk: integrity_check says $ic"
fi

# --- run --pending: a refused size says why, and two runs side by side tune each request once
if python3 -c 'import sqlite3' 2>/dev/null; then
    pend=$tmp/pend.db
    "$exe" run axpy --size 1024 --db "$pend" --no-progress >/dev/null 2>&1 || bad "seeding $pend failed"
    python3 - "$pend" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
uuid = c.execute("SELECT uuid FROM devices").fetchone()[0]
for size in ("2048", "8192", "16384", "abc"):
    c.execute("INSERT INTO requests (device_uuid, op, size, answered_by) VALUES (?, 'axpy', ?, 'none')",
              (uuid, size))
c.commit()
PY
    "$exe" run --pending --db "$pend" --no-progress >"$tmp/p1" 2>&1 &
    p1=$!
    "$exe" run --pending --db "$pend" --no-progress >"$tmp/p2" 2>&1
    wait $p1
    cat "$tmp/p1" "$tmp/p2" >"$tmp/out"
    grep -q "pending axpy abc: not a valid size for axpy_template (problem size 'abc': expected a number" "$tmp/out" ||
        { bad "a refused pending size does not say why"; cat "$tmp/out"; }
    n=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
        "SELECT count(*) FROM trials t JOIN problems p ON p.id = t.problem_id WHERE p.size IN (\"2048\", \"8192\", \"16384\")").fetchone()[0])' "$pend")
    # (and each size's best twice more, beside the yardstick)
    [ "$n" = 66 ] || { bad "two --pending runs measured $n trials for 3 requests of 20 configs, want 66"; cat "$tmp/out"; }
    left=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
        "SELECT group_concat(size) FROM requests WHERE status = \"pending\"").fetchone()[0])' "$pend")
    [ "$left" = abc ] || bad "after --pending, pending requests are '$left', want 'abc'"
fi

# --- outputs: never over an input, never half-written
expect 2 "is the input" -- "$exe" export --db "$db" --output "$db"
unchanged "export --output = --db"
ln -s "$db" "$tmp/db-link"
expect 2 "is the input" -- "$exe" export --db "$db" --output "$tmp/db-link"
expect 2 "is the input" -- "$exe" export --db "$db" --output "$db-wal"
unchanged "export --output = a link to --db, or its WAL"
expect 2 "is the input" -- "$exe" replay "$db" --variant axpy_template --size 4096 --export-csv "$db"
expect 2 "is the input" -- "$exe" replay "$db" --variant axpy_template --size 4096 --csv "$db"
expect 2 "is the input" -- "$exe" replay "$db" --variant axpy_template --size 4096 --svg "$tmp/db-link"
unchanged "replay output = its input"
printf 'previous export\n' >"$tmp/prev.h"
(ulimit -f 1 && exec "$exe" export --db "$db" --format header --output "$tmp/prev.h") >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] || { bad "export past the file size limit: exit $rc, want 1"; cat "$tmp/out"; }
grep -q "disk is full" "$tmp/out" || { bad "export past the file size limit: unclear message"; cat "$tmp/out"; }
[ "$(cat "$tmp/prev.h")" = "previous export" ] || bad "a failed export replaced the previous file"
ls -a "$tmp" | grep -q '\.tmp$' && bad "a failed export left its temporary file"
"$exe" export --db "$db" --format header --output "$tmp/prev.h" >/dev/null 2>&1 || bad "export --output failed"
grep -q CUTUNE_TUNED_COUNT "$tmp/prev.h" || bad "export --output did not replace the previous file"

unchanged "the whole test"
[ $fail = 0 ] && echo "all bad-input checks passed"
exit $fail
