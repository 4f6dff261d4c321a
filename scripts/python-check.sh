#!/usr/bin/env bash
# The Python package as a user gets it: `pip install .` into a fresh virtual environment
# (meson-python builds the wheel, with libcutune, the worker, the command, the plugins and
# the spaces inside it), then, from outside the source tree, a lookup from a fixture
# database through `import cutune` and the `cutune` command the package installs, then the
# module's CPU tests (pytest) against the installed package, then Kernel Tuner caches in
# and out (tests/test_kernel_tuner.py, with Kernel Tuner installed). CI runs it (.ci/run).
#   scripts/python-check.sh [VENV]     (default build-py/venv)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$root/build-py/venv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv --clear "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "$root[test]"
python3 "$root/tests/python/fixture_db.py" "$work/fixture.db" >/dev/null
cd "$work"
unset CUTUNE_LIBRARY CUTUNE_PLUGIN_PATH CUTUNE_SPACE_PATH
"$venv/bin/python" -c "
import cutune, sys
r = cutune.open('$work/fixture.db').lookup('matmul', '1500x1500x1500', device='H100')
print('import cutune:', r)
sys.exit(0 if (r.match, r.tuned_size, r.config_text) ==
         ('nearest', '1024x1024x1024', 'TILE=32,ROWS=8,PAD=1') else 1)"
"$venv/bin/cutune" query matmul --size 1024x1024x1024 --device H100 --db "$work/fixture.db" |
    grep -q 'TILE=32,ROWS=8,PAD=1'
echo "cutune command from the package: ok"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python/test_module.py"
# Kernel Tuner caches in and out, through the package's cutune command, with Kernel Tuner
# itself reading the exported cache (CUTUNE_CI_NO_KERNEL_TUNER=1 skips installing it).
if [ -z "${CUTUNE_CI_NO_KERNEL_TUNER:-}" ]; then
    "$venv/bin/python" -m pip install -q kernel_tuner
fi
KT_PYTHON="$venv/bin/python" "$venv/bin/python" "$root/tests/test_kernel_tuner.py" "$venv/bin/cutune" "$root"
