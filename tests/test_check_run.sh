#!/usr/bin/env bash
# `cutune check --run`: a variant's configs and its op's own check on the CPU emulation
# (core/src/emu), no GPU. The shipped template runs and passes; planted bugs
# (tests/planted/emu/) are each caught and said for what they are: a wrong element, a write
# past a buffer, a barrier half a block never reaches. And the template op's check
# (examples/softmax) is tight: a kernel that does not subtract the row's maximum, and one
# with a 1e-3 error in one element at 32768 columns, both fail it.
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
[ $fail = 0 ] && echo "check --run: the template, planted bugs and softmax's check: ok"
exit $fail
