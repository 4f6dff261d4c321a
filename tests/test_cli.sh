#!/usr/bin/env bash
# The cutune command as a user meets it: help, usage errors, exit codes, list, and the
# no-GPU path. Usage: test_cli.sh PATH_TO_CUTUNE
set -u
exe=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() { # expect CODE PHRASE -- command...
    local want=$1 phrase=$2
    shift 3
    "$@" >"$tmp/out" 2>&1
    local got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: '$*' exited $got, expected $want"; cat "$tmp/out"; fail=1
    elif ! grep -qF -- "$phrase" "$tmp/out"; then
        echo "FAIL: '$*' did not print '$phrase'"; cat "$tmp/out"; fail=1
    fi
}

expect 0 "run <op>" -- "$exe" --help
expect 2 "usage: cutune" -- "$exe"
expect 2 "unknown command 'frobnicate'" -- "$exe" frobnicate
for c in run list devices query show export replay; do
    expect 0 "usage: cutune $c" -- "$exe" $c --help
done
expect 2 "which op?" -- "$exe" run
expect 2 "--budget needs a whole number of at least 1, got 'lots'" -- "$exe" run matmul --budget lots
expect 2 "--time takes the run's budget in seconds, a positive number" -- "$exe" run matmul --time -1
expect 2 "--time takes the run's budget in seconds, a positive number" -- "$exe" run matmul --time 0
expect 2 "too short to set a size up and measure anything; give at least 10" -- "$exe" run matmul --time 3
expect 2 "at least 1" -- "$exe" run matmul --budget 0
expect 2 "--warm-start: 'everything' is not db, known, both or none" -- "$exe" run matmul --warm-start everything
expect 2 "--size is required" -- "$exe" query matmul
expect 2 "unknown status 'great'" -- "$exe" show --status great
expect 2 "leave out --size" -- "$exe" run --pending --size 64
expect 2 "add --variant" -- "$exe" run matmul --where BM=128
expect 2 "unknown format 'yaml'" -- "$exe" export --format yaml
expect 0 "matmul_tiled" -- "$exe" list
expect 0 "configs: 132 valid of 224" -- "$exe" list matmul
expect 4 "no plugin implements op 'nosuchop'" -- "$exe" list nosuchop

# replay needs no GPU: a recorded H200 space, with the tuning space found through the plugin
rec=$CUTUNE_TEST_DATA/recordings/h200-matmul_tiled-4096.csv
expect 2 "which recording?" -- "$exe" replay
expect 2 "unknown strategy 'nope'" -- "$exe" replay "$rec" --strategy nope
expect 2 "--budgets must be increasing" -- "$exe" replay "$rec" --budgets 50,25
expect 4 "cannot open" -- "$exe" replay "$tmp/none.csv"
expect 0 "space: 132 configs: 132 ok, 0 failed, 0 not recorded" -- "$exe" replay "$rec" --seeds 5 \
    --svg "$tmp/plot.svg" --csv "$tmp/out.csv"
expect 0 "<polyline" -- cat "$tmp/plot.svg"
expect 0 "matmul_tiled,4096x4096x4096,NVIDIA H200,annealing,400,132,5," -- cat "$tmp/out.csv"
expect 0 '"name": "tpe"' -- "$exe" replay "$rec" --seeds 3 --budgets 10,20 --json
expect 2 "give a FILE or --synthetic, not both" -- "$exe" replay "$rec" --synthetic 1
expect 0 "space: " -- "$exe" replay --synthetic 4 --seeds 2 --budgets 25 --strategy ils

# database errors need no GPU
expect 4 "cannot open the database" -- "$exe" query matmul --size 64 --device H100 --db "$tmp/none.db"
echo "not a database at all, just text" > "$tmp/garbage.db"
expect 1 "not a cutune database" -- "$exe" show --db "$tmp/garbage.db"

if "$exe" devices >/dev/null 2>&1; then
    echo "a CUDA device is present: the no-device checks are skipped"
else
    expect 3 "no CUDA driver or device" -- "$exe" devices
    expect 3 "no CUDA driver or device" -- "$exe" run matmul --device 0 --db "$tmp/t.db"
    expect 4 "no plugin implements op 'nosuchop'" -- "$exe" run nosuchop --db "$tmp/t.db"
    expect 3 "no CUDA driver or device" -- "$exe" run --pending --db "$tmp/t.db"
    expect 3 "needs a CUDA device to resolve" -- "$exe" query matmul --size 64 --device 0 --db "$tmp/t.db"
fi
exit $fail
