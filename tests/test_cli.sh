#!/usr/bin/env bash
# The cutune command as a user meets it: help, usage errors, exit codes, list, and the
# no-GPU path. Usage: test_cli.sh PATH_TO_CUTUNE
set -u
exe=$1
. "$(dirname "$0")/lib.sh"

expect 0 "run <op>" -- "$exe" --help
expect 2 "usage: cutune" -- "$exe"
expect 2 "unknown command 'frobnicate'" -- "$exe" frobnicate
for c in run list devices query show export replay new check merge import report; do
    expect 0 "usage: cutune $c" -- "$exe" $c --help
done
# every command reads its options through one parser (cli/options.c): -h, an unknown option,
# a missing value and a bad number are usage errors (exit 2) that say so
for c in run replay check merge show; do
    expect 0 "usage: cutune $c" -- "$exe" $c -h
    expect 2 "cutune $c: unknown option" -- "$exe" $c --frobnicate
    expect 2 "cutune $c: unknown option" -- "$exe" $c -z
done
expect 2 "cutune run: unknown option" -- "$exe" run matmul --budget
expect 2 "--jobs needs a whole number from 0 to 4096, got 'many': it is not a whole decimal number" -- "$exe" run matmul --jobs many
expect 2 "--timeout-factor needs a number from 1 to 1e+06, got '0.5': it is too small" -- "$exe" run matmul --timeout-factor 0.5
expect 2 "--seed needs a whole number of at least 0, got '-1'" -- "$exe" run matmul --seed -1
expect 2 "--shard" -- "$exe" run matmul --shard 3/2
expect 2 "--seeds needs a whole number from 1 to 1000000, got '0': it is too small" -- "$exe" replay --synthetic 1 --seeds 0
expect 2 "--synthetic needs a whole number of at least 0, got 'x'" -- "$exe" replay --synthetic x
expect 2 "--sample needs a whole number of at least 0, got 'x'" -- "$exe" check --sample x
expect 2 "--jobs needs a whole number from 0 to 1024, got '-1': it is too small" -- "$exe" check --jobs -1
expect 2 "--jobs needs a whole number from 0 to 1024, got '2000': it is too large" -- "$exe" check --jobs 2000
expect 2 "RUN needs a whole number of at least 1, got 'x'" -- "$exe" show x
expect 2 "unknown status 'great'" -- "$exe" show --st great
expect 2 "which databases?" -- "$exe" merge -q
expect 2 "no input: give OUT.db" -- "$exe" merge --quiet "$tmp/out.db"
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

# writing and checking a variant needs no GPU
expect 0 "matmul_tiled (" -- "$exe" check matmul_tiled --sample 2
grep -q "^  ok$" "$tmp/out" || { echo "FAIL: check matmul_tiled did not say ok"; cat "$tmp/out"; fail=1; }
expect 4 "no variant 'nosuch'" -- "$exe" check nosuch
expect 2 "write \`cutune new variant <op> <name>\`" -- "$exe" new matmul x
expect 4 "no op 'nosuchop'" -- "$exe" new variant nosuchop x
expect 0 "copied from matmul_naive" -- "$exe" new variant matmul my_naive --from matmul_naive --dir "$tmp/v"
grep -q "note: $tmp/v is not on the space path" "$tmp/out" || { echo "FAIL: no note on the space path"; fail=1; }
grep -q "^name = my_naive$" "$tmp/v/my_naive.ini" && grep -q "my_naive(" "$tmp/v/my_naive.cu" ||
    { echo "FAIL: the copy is not named my_naive"; fail=1; }
CUTUNE_SPACE_PATH=$tmp/v expect 0 "my_naive (" -- "$exe" check my_naive --sample 2
CUTUNE_SPACE_PATH=$tmp/v expect 1 "a variant 'my_naive' exists already" -- "$exe" new variant matmul my_naive --dir "$tmp/v"
expect 1 "cannot create $tmp/v/my_naive.ini" -- "$exe" new variant matmul my_naive --dir "$tmp/v"
expect 0 "wrote $tmp/xdg/cutune/tuning_spaces/my_transpose.ini" -- env XDG_DATA_HOME="$tmp/xdg" "$exe" new variant transpose my_transpose
XDG_DATA_HOME=$tmp/xdg expect 0 "my_transpose" -- "$exe" list transpose
XDG_DATA_HOME=$tmp/xdg expect 0 "kernel my_transpose takes 4 parameters, as op transpose passes them" -- "$exe" check my_transpose --sample 2
sed -i 's/^block = BLOCK$/block = BLOCK, WIDTH/' "$tmp/xdg/cutune/tuning_spaces/my_transpose.ini"
XDG_DATA_HOME=$tmp/xdg expect 1 "my_transpose.ini:19: [launch] block y: unknown name 'WIDTH'" -- "$exe" check my_transpose

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
expect 0 '"budget": 30,' -- "$exe" replay --synthetic 4 --seeds 2 --budgets 25,50 --budgets 30 --strategy ils --json
# the score (issue 29): the table gives it and the 10th percentile; what cannot be scored or
# replayed is refused with a message (2: the command line asks what the input cannot give;
# 1: the recording cannot be replayed)
expect 0 "methodology score" -- "$exe" replay "$rec" --seeds 3 --strategy annealing --score
expect 0 "median (10th percentile)" -- "$exe" replay "$rec" --seeds 3 --strategy annealing
expect 0 '"p10": ' -- "$exe" replay "$rec" --seeds 3 --budgets 10 --strategy ils --json
expect 2 "--budgets 133 is more than the 132 configs of the space" -- "$exe" replay "$rec" --budgets 25,133
grep -v '^64,1,8,4,' "$rec" >"$tmp/partial.csv"
expect 2 "is not an exhaustive recording: 1 of the 132 configs" -- "$exe" replay "$tmp/partial.csv" --score --seeds 2
printf '# cutune recording\n# variant: none\n# size: 1\nX,status,median_ms\n1,ok,2.5\n2,compile_error,\n' >"$tmp/one.csv"
expect 1 "has 1 ok config of 2: a replay compares searches" -- "$exe" replay "$tmp/one.csv" --seeds 2

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
