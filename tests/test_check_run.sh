#!/usr/bin/env bash
# `cutune check --run`: a variant's configs and its op's own check on the CPU emulation
# (core/src/emu), no GPU. The shipped template runs and passes; planted bugs
# (tests/planted/emu/) are each caught and said for what they are: a wrong element, a write
# past a buffer, a barrier half a block never reaches. And the template op's check
# (examples/softmax) is tight: a kernel that does not subtract the row's maximum, and one
# with a 1e-3 error in one element at 32768 columns, both fail it. And `cutune check` notes a
# config that keeps local memory (tests/planted/emu/axpy_local.cu).
# Usage: test_check_run.sh PATH_TO_CUTUNE   (CUTUNE_TEST_OPS: the folder of softmax.so)
set -u
exe=$1
. "$(dirname "$0")/lib.sh"
if ! command -v "${CXX:-c++}" >/dev/null; then
    echo "no C++ compiler (${CXX:-c++}): the CPU emulation cannot build kernels here: skipped"
    exit 77
fi
planted=$CUTUNE_SOURCE_ROOT/tests/planted/emu
# says WHAT PHRASE...: the last command's output holds every phrase
says() {
    local what=$1 want
    shift
    for want in "$@"; do
        grep -qF -- "$want" "$tmp/out" || { bad "$what: no '$want'"; cat "$tmp/out"; }
    done
}

expect 2 "--run runs the kernels on the CPU, which is slow: give the sizes with --size" -- \
    "$exe" check axpy_template --run
expect 0 "ran BLOCK=64,ITEMS=1 at 1000 on the CPU: ok" -- \
    "$exe" check axpy_template --run --size 1000 --sample 1 --run-configs 2
says axpy_template "ran 2 (config, size) pairs on the CPU emulation: 2 ok, 0 failed"

# a matmul variant: the op's reference kernels (matmul_ref.cu: bf16's rounding in software,
# fp16's in inline PTX, which the emulation leaves out) build and run on the CPU
expect 0 "ran 2 (config, size) pairs on the CPU emulation: 2 ok, 0 failed" -- \
    "$exe" check matmul_tiled --run --size 24x40x16 --sample 1 --run-configs 2

CUTUNE_SPACE_PATH=$planted expect 1 "ran BUG=0 at 1000 on the CPU: ok" -- \
    "$exe" check axpy_planted --run --size 1000 --run-configs 0
says axpy_planted "FAIL config BUG=1 at 1000 on the CPU: wrong_result: out[0] = " \
    "FAIL config BUG=2 at 1000 on the CPU: crashed: Segmentation fault (a read or write outside the kernel's buffers?)" \
    "FAIL config BUG=3 at 1000 on the CPU: crashed: Aborted: kemu: block (0, 0, 0): 64 threads wait at a barrier the others never reach" \
    "ran 4 (config, size) pairs on the CPU emulation: 1 ok, 3 failed"

# the template op's check, on its own variant and on planted bugs at 32768 columns (row 0's
# inputs are about +90: exp overflows there without the maximum subtracted)
softmax() { env CUTUNE_PLUGIN_PATH="$CUTUNE_TEST_OPS" \
    CUTUNE_SPACE_PATH="$planted:$CUTUNE_SOURCE_ROOT/examples/softmax" "$exe" "$@"; }
expect 0 "ran BLOCK=32,UNROLL=1 at 3x32768 on the CPU: ok" -- \
    softmax check softmax_naive --run --size 3x32768 --size 5x100 --sample 1 --run-configs 2
says softmax_naive "ran 4 (config, size) pairs on the CPU emulation: 4 ok, 0 failed"
expect 1 "ran BUG=0 at 3x32768 on the CPU: ok" -- \
    softmax check softmax_planted --run --size 3x32768 --run-configs 0
says softmax_planted "FAIL config BUG=1 at 3x32768 on the CPU: wrong_result: y[0][" \
    "a kernel must subtract the row's maximum before exp" \
    "FAIL config BUG=2 at 3x32768 on the CPU: wrong_result: y[0][0] = " \
    "ran 3 (config, size) pairs on the CPU emulation: 1 ok, 2 failed"

# a variant with a TMA tensor map: a config whose maps are all off runs on the CPU, given zero
# bytes for each after the op's arguments as a GPU launch is (the kernel writes nothing
# unless they are zero); a config with a map on is not run (no TMA on the CPU)
mkdir -p "$tmp/tma"
cat >"$tmp/tma/tma_axpy.ini" <<'INI'
[variant]
name = tma_axpy
op = axpy
version = 1
[param.BLOCK]
values = 64
[param.ITEMS]
values = 2
[param.TMA]
values = 0, 1
[launch]
grid = ceil_div(n, BLOCK * ITEMS)
block = BLOCK
[tensor_map.x]
dims = n
box = 64
swizzle = 0
when = TMA == 1
INI
{
    echo 'struct alignas(64) TensorMap { unsigned long long opaque[16]; };'
    sed -e 's/^axpy_template(/tma_axpy(/' \
        -e 's/float a, long long n)/float a, long long n, const __grid_constant__ TensorMap mapx)/' \
        -e 's/            if (j < n)$/            if (j < n \&\& !mapx.opaque[0] \&\& !mapx.opaque[15])/' \
        "$CUTUNE_SOURCE_ROOT/tuning_spaces/axpy_template.cu"
} >"$tmp/tma/tma_axpy.cu"
grep -q "mapx.opaque\[15\]" "$tmp/tma/tma_axpy.cu" || bad "tma_axpy.cu was not edited"
CUTUNE_SPACE_PATH=$tmp/tma expect 0 "ran BLOCK=64,ITEMS=2,TMA=0 at 1000 on the CPU: ok" -- \
    "$exe" check tma_axpy --run --size 1000 --run-configs 0
says tma_axpy "config BLOCK=64,ITEMS=2,TMA=1 at 1000 copies through TMA tensor maps" \
    "ran 1 (config, size) pair on the CPU emulation: 1 ok, 0 failed"

# local memory (ptxas -v) of the sample's first and last configs: a note, not a failure
CUTUNE_SPACE_PATH=$planted expect 0 "note: config LOCAL=1 keeps " -- "$exe" check axpy_local
says axpy_local "an array indexed at run time, or too few registers; slower, not wrong" \
    "local memory (ptxas): 1 of 2 configs checked keep none"
grep -qF "config LOCAL=0 keeps" "$tmp/out" && bad "axpy_local: LOCAL=0 noted for local memory"
[ $fail = 0 ] && echo "check --run: the template, matmul, planted bugs, softmax's check, TMA maps and local memory: ok"
exit $fail
