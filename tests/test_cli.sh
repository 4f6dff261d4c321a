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
expect 2 "cutune run: option '--budget' needs a value" -- "$exe" run matmul --budget
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
# --from a variant in the --dir folder, which is not on the space path: found there; a name
# found nowhere says where it was looked for
expect 0 "copied from my_naive" -- "$exe" new variant matmul my_naive2 --from my_naive --dir "$tmp/v"
grep -q "my_naive2(" "$tmp/v/my_naive2.cu" || { echo "FAIL: my_naive2.cu has no kernel my_naive2"; fail=1; }
expect 4 "no variant 'nosuch' to copy: there is no nosuch.ini on the space path (" -- \
    "$exe" new variant matmul my_x --from nosuch --dir "$tmp/v"
grep -qF "nor in $tmp/v" "$tmp/out" || { echo "FAIL: the --dir folder is not said to be searched"; cat "$tmp/out"; fail=1; }
# a variant's name is its kernel's: it must be a C identifier
expect 2 "'1abc' cannot name a variant: its kernel is named after it, so it must be a C identifier" -- \
    "$exe" new variant axpy 1abc --dir "$tmp/v"
expect 2 "'float' cannot name a variant" -- "$exe" new variant axpy float --dir "$tmp/v"
[ -e "$tmp/v/1abc.ini" ] && { echo "FAIL: 1abc.ini was written"; fail=1; }
mkdir -p "$tmp/digits"
printf '[variant]\nname = 2x\nop = axpy\nversion = 1\n[param.B]\nvalues = 32\n[launch]\ngrid = 1\nblock = B\n' >"$tmp/digits/2x.ini"
echo 'extern "C" __global__ void 2x() {}' >"$tmp/digits/2x.cu"
CUTUNE_SPACE_PATH=$tmp/digits expect 1 "2x.ini:2: kernel '2x' is not a function name (a C identifier" -- "$exe" check 2x
CUTUNE_SPACE_PATH=$tmp/v expect 1 "a variant 'my_naive' exists already" -- "$exe" new variant matmul my_naive --dir "$tmp/v"
expect 1 "cannot create $tmp/v/my_naive.ini" -- "$exe" new variant matmul my_naive --dir "$tmp/v"
expect 0 "wrote $tmp/xdg/cutune/tuning_spaces/my_transpose.ini" -- env XDG_DATA_HOME="$tmp/xdg" "$exe" new variant transpose my_transpose
XDG_DATA_HOME=$tmp/xdg expect 0 "my_transpose" -- "$exe" list transpose
XDG_DATA_HOME=$tmp/xdg expect 0 "kernel my_transpose takes 4 parameters, as op transpose passes them, each of the op's type" -- "$exe" check my_transpose --sample 2
sed -i 's/^block = BLOCK$/block = BLOCK, WIDTH/' "$tmp/xdg/cutune/tuning_spaces/my_transpose.ini"
XDG_DATA_HOME=$tmp/xdg expect 1 "my_transpose.ini:19: [launch] block y: unknown name 'WIDTH'" -- "$exe" check my_transpose

# a config that ptxas refuses: check prints NVRTC's log, ptxas' reason included, as a run
# records it (not only NVRTC_ERROR_COMPILATION)
mkdir -p "$tmp/authoring"
axpy_ini() { # axpy_ini NAME [PARAM LINE]: a one-config variant of axpy in $tmp/authoring
    printf '[variant]\nname = %s\nop = axpy\nversion = 1\n[param.BLOCK]\n%s\n[launch]\ngrid = ceil_div(n, BLOCK)\nblock = BLOCK\n[problems]\ndefault = 4096\n' \
        "$1" "${2:-values = 256}" >"$tmp/authoring/$1.ini"
}
axpy_ini big_shared
cat >"$tmp/authoring/big_shared.cu" <<'EOF'
extern "C" __global__ void big_shared(const float *x, const float *y, float *out, float a, long long n)
{
    __shared__ float s[32768]; // 128 KiB of static shared memory: more than a block may have
    long long i = blockIdx.x * (long long)BLOCK + threadIdx.x;
    s[threadIdx.x * 97 % 32768] = x[i % n];
    __syncthreads();
    if (i < n)
        out[i] = a * s[threadIdx.x * 7 % 32768] + y[i];
}
EOF
CUTUNE_SPACE_PATH=$tmp/authoring expect 1 "uses too much shared data (0x20000 bytes, 0xc000 max)" -- "$exe" check big_shared
grep -q "FAIL config BLOCK=256 does not compile: NVRTC_ERROR_COMPILATION" "$tmp/out" ||
    { echo "FAIL: the failed config is not named"; cat "$tmp/out"; fail=1; }

# the kernel's parameters are checked against the op's signature by type, not only counted:
# `long long K` where matmul passes `int K` (the same count, and it would read K's neighbour
# as its high half), and a `long long` where axpy passes a pointer (both 8 bytes in PTX)
expect 0 "copied from matmul_naive" -- "$exe" new variant matmul ll_k --from matmul_naive --dir "$tmp/authoring"
sed -i 's/int M, int N, int K,$/int M, int N, long long K,/' "$tmp/authoring/ll_k.cu"
grep -q "long long K,$" "$tmp/authoring/ll_k.cu" || { echo "FAIL: ll_k.cu was not edited"; fail=1; }
CUTUNE_SPACE_PATH=$tmp/authoring expect 1 "FAIL kernel ll_k: parameter 6 is long long (8 bytes), but the op passes \`int K\` (int, 4 bytes)" -- \
    "$exe" check ll_k --sample 1
axpy_ini ptr_as_int
echo 'extern "C" __global__ void ptr_as_int(const float *x, const float *y, long long out, float a, long long n) {}' \
    >"$tmp/authoring/ptr_as_int.cu"
CUTUNE_SPACE_PATH=$tmp/authoring expect 1 "parameter 3 is long long (8 bytes), but the op passes \`float *out\` (float *, 8 bytes)" -- \
    "$exe" check ptr_as_int

# a variant's TMA tensor maps are the kernel's parameters after the op's (one 128-byte struct
# each), and `check` lists the configs whose maps TMA cannot take (tests/data/tensor_maps)
maps=$CUTUNE_TEST_DATA/tensor_maps
CUTUNE_SPACE_PATH=$maps expect 0 "kernel tma_fixture takes 10 parameters, as op matmul passes them, each of the op's type, then 3 TMA tensor maps" -- \
    "$exe" check tma_fixture --sample 1 --size 256x512x1024
grep -q "BM=64,BK=64,TMA=1 at 256x512x1024 cannot launch on sm_90 (skipped when tuned): .*tma_fixture.ini:26: \[tensor_map.A\] box\[0\] of 64 elements is 256 bytes" "$tmp/out" ||
    { echo "FAIL: check did not list the config whose map TMA cannot take"; cat "$tmp/out"; fail=1; }
mkdir -p "$tmp/tma"
cp "$maps/tma_fixture.ini" "$tmp/tma/"
sed 's/const __grid_constant__ TensorMap mapA/float mapA/' "$maps/tma_fixture.cu" >"$tmp/tma/tma_fixture.cu"
CUTUNE_SPACE_PATH=$tmp/tma expect 1 "parameter 9 is float (4 bytes), but TMA tensor map 2 of the variant goes there" -- \
    "$exe" check tma_fixture --sample 1 --size 256x512x1024
sed 's/struct alignas(64) TensorMap/struct TensorMap/' "$maps/tma_fixture.cu" >"$tmp/tma/tma_fixture.cu"
CUTUNE_SPACE_PATH=$tmp/tma expect 1 "parameter 8 is a 128-byte struct (aligned to 8), but TMA tensor map 1 of the variant goes there" -- \
    "$exe" check tma_fixture --sample 1 --size 256x512x1024
sed 's/, const __grid_constant__ TensorMap mapC//' "$maps/tma_fixture.cu" >"$tmp/tma/tma_fixture.cu"
CUTUNE_SPACE_PATH=$tmp/tma expect 1 "kernel tma_fixture takes 9 parameters, but op matmul passes 7, then 3 TMA tensor maps" -- \
    "$exe" check tma_fixture --sample 1 --size 256x512x1024

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

# an op that is there but has no variant on the space path is not said to be missing (this
# is found before any device is opened)
CUTUNE_PLUGIN_PATH=$CUTUNE_TEST_OPS expect 4 "op 'softmax' ($CUTUNE_TEST_OPS/softmax.so) has no variant to tune: no variant file on the space path" -- \
    "$exe" run softmax --db "$tmp/t.db"
grep -q "no plugin implements" "$tmp/out" && { echo "FAIL: softmax is said to be missing"; fail=1; }

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
