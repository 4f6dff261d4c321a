#!/usr/bin/env bash
# The Python package as a user gets it: the wheel that scripts/build-wheel.sh makes (pip
# wheel, retagged py3-none-manylinux by auditwheel) installed into a fresh virtual
# environment; then, from outside the source tree:
#   - libcutune, the cutune command and the worker link no CUDA (objdump's NEEDED);
#   - a lookup from a fixture database through `import cutune`, and `cutune query` through
#     the command the package installs, with no CUDA on the library path and the loader's
#     test hook set (CUTUNE_CUDADL_FORBID=cudart,nvrtc): had either opened the CUDA runtime
#     or NVRTC, it would have aborted;
#   - the module's CPU tests (pytest) against the installed package; with
#     CUTUNE_CI_TORCH=1 PyTorch is installed too and its tests (tests/python/test_torch.py:
#     the torch.library op under torch.compile, record()) run rather than skip;
#   - Kernel Tuner caches in and out (tests/test_kernel_tuner.py, with Kernel Tuner).
# CI runs it (.ci/run).
#   scripts/python-check.sh [VENV]     (default build-py/venv)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$root/build-py/venv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wheel=$("$root/scripts/build-wheel.sh" "$work/wheelhouse")
case $(basename "$wheel") in
cutune-*-py3-none-manylinux_*_x86_64.whl) echo "wheel: $(basename "$wheel")" ;;
*) echo "FAIL: the wheel is not tagged py3-none-manylinux: $wheel" && exit 1 ;;
esac
python3 -m venv --clear "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "$wheel" pytest
python3 "$root/tests/python/fixture_db.py" "$work/fixture.db" >/dev/null
cd "$work"
unset CUTUNE_LIBRARY CUTUNE_PLUGIN_PATH CUTUNE_SPACE_PATH
pkg=$("$venv/bin/python" -c "import cutune, os; print(os.path.dirname(cutune.__file__))")
for f in "$pkg"/lib/libcutune.so "$pkg"/lib/cutune "$pkg"/lib/cutune-worker; do
    if objdump -p "$f" | grep -E 'NEEDED +lib(cudart|nvrtc|cublas|cuda)'; then
        echo "FAIL: $f links CUDA" && exit 1
    fi
done
echo "libcutune, cutune and cutune-worker link no CUDA"
# no CUDA on the library path, and the loader aborts if anything opens the runtime or NVRTC
nocuda=(env -u LD_LIBRARY_PATH -u CUDA_PATH -u CUDA_HOME CUTUNE_CUDADL_FORBID=cudart,nvrtc)
"${nocuda[@]}" "$venv/bin/python" -c "
import cutune, sys
r = cutune.open('$work/fixture.db').lookup('matmul', '1500x1500x1500', device='H100')
print('import cutune:', r)
sys.exit(0 if (r.match, r.tuned_size, r.config_text) ==
         ('nearest', '1024x1024x1024', 'TILE=32,ROWS=8,PAD=1') else 1)"
"${nocuda[@]}" "$venv/bin/cutune" query matmul --size 1024x1024x1024 --device H100 \
    --db "$work/fixture.db" | grep -q 'TILE=32,ROWS=8,PAD=1'
echo "cutune command from the package, without CUDA: ok"
# With the toolkit hidden (an empty folder mounted over /usr/local/cuda in a mount namespace
# of this command's own; root only): lookups still answer, what needs the runtime says where
# cutune looked and what to pip install, exiting 3 (no CUDA device), and NVRTC comes from
# pip's nvidia-cuda-nvrtc, as PyTorch's CUDA 13 builds bring it: `cutune check` compiles
# (CUTUNE_CI_NO_PIP_CUDA=1 leaves that package out and that check with it).
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && [ -d /usr/local/cuda ] &&
    unshare -m --propagation private true 2>/dev/null; then
    mkdir -p "$work/empty"
    pipnvrtc=0
    if [ -z "${CUTUNE_CI_NO_PIP_CUDA:-}" ] &&
        "$venv/bin/python" -m pip install -q "nvidia-cuda-nvrtc>=13,<14"; then
        pipnvrtc=1
    fi
    unshare -m --propagation private env -u LD_LIBRARY_PATH -u CUDA_PATH -u CUDA_HOME \
        VENV="$venv" DB="$work/fixture.db" EMPTY="$work/empty" PIPNVRTC=$pipnvrtc bash -c '
        set -u
        mount --bind "$EMPTY" /usr/local/cuda || exit 0
        "$VENV/bin/cutune" query matmul --size 1024x1024x1024 --device H100 --db "$DB" |
            grep -q "TILE=32,ROWS=8,PAD=1" || { echo "FAIL: cutune query without CUDA"; exit 1; }
        out=$("$VENV/bin/cutune" devices 2>&1); rc=$?
        # a CUDA runtime elsewhere still loads: nothing to check
        "$VENV/bin/python" -c "import ctypes; ctypes.CDLL(\"libcudart.so.13\")" 2>/dev/null &&
            exit 0
        [ $rc = 3 ] && grep -q "pip install nvidia-cuda-runtime" <<<"$out" ||
            { echo "FAIL: cutune devices without CUDA: exit $rc: $out"; exit 1; }
        echo "with no CUDA anywhere: cutune query answers; cutune devices says: $out"
        [ "$PIPNVRTC" = 1 ] || exit 0
        "$VENV/bin/cutune" check matmul_tiled --sample 2 > "$EMPTY.check" 2>&1 ||
            { cat "$EMPTY.check"; echo "FAIL: cutune check with pip'"'"'s NVRTC"; exit 1; }
        echo "with pip'"'"'s NVRTC only: $(grep compiled "$EMPTY.check")"'
fi
if [ -n "${CUTUNE_CI_TORCH:-}" ]; then
    "$venv/bin/python" -m pip install -q torch
fi
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python/test_module.py" \
    "$root/tests/python/test_torch.py"
# Kernel Tuner caches in and out, through the package's cutune command, with Kernel Tuner
# itself reading the exported cache (CUTUNE_CI_NO_KERNEL_TUNER=1 skips installing it).
if [ -z "${CUTUNE_CI_NO_KERNEL_TUNER:-}" ]; then
    "$venv/bin/python" -m pip install -q kernel_tuner
fi
KT_PYTHON="$venv/bin/python" "$venv/bin/python" "$root/tests/test_kernel_tuner.py" "$venv/bin/cutune" "$root"
