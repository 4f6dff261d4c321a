#!/usr/bin/env bash
# The version is written in three places, which must agree: meson.build's project version
# (passed here), CUTUNE_VERSION in core/include/cutune/cutune.h (what `cutune --version`
# prints) and __version__ in python/cutune/__init__.py. CONTRIBUTING.md says how to bump it.
# Usage: test_version.sh VERSION PATH_TO_CUTUNE SOURCE_ROOT
set -u
want=$1 exe=$2 root=$3
fail=0
got=$("$exe" --version)
[ "$got" = "cutune $want" ] || { echo "FAIL: cutune --version printed '$got', meson.build says $want"; fail=1; }
py=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$root/python/cutune/__init__.py")
[ "$py" = "$want" ] || { echo "FAIL: python/cutune/__init__.py says '$py', meson.build says $want"; fail=1; }
[ $fail = 0 ] && echo "version $want in all three places"
exit $fail
