#!/usr/bin/env bash
# Install what cutune needs and is missing (Debian/Ubuntu packages), then build it into
# ./build (or the folder given as $1, with the Meson options that follow).
#
#   scripts/setup.sh                      # build/
#   scripts/setup.sh build-asan -Db_sanitize=address,undefined
#   scripts/setup.sh --deps               # only install what is missing
#   scripts/setup.sh --tests build-asan -Db_sanitize=address,undefined
#                                         # build only what the tests need (not bench/)
#
# Needs the CUDA Toolkit (12 or newer: nvcc, NVRTC, cudart) installed already, normally
# at /usr/local/cuda; a GPU is not needed to build.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
target=()
if [ "${1:-}" = --tests ]; then
    target=(meson-test-prereq)
    shift
fi
dir=${1:-build}
[ $# -gt 0 ] && shift

need=()
command -v meson >/dev/null 2>&1 || need+=(meson)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v cc >/dev/null 2>&1 || need+=(gcc)
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
[ -f /usr/include/ini.h ] || need+=(libinih-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "cutune: installing ${need[*]}" >&2
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
[ "$dir" = --deps ] && exit 0
cuda=${CUDA_PATH:-/usr/local/cuda}
if [ ! -f "$cuda/include/nvrtc.h" ]; then
    echo "cutune: no CUDA Toolkit at $cuda (nvrtc.h missing). Install the CUDA Toolkit 12 or" \
        "newer from NVIDIA, or set CUDA_PATH to where it is." >&2
    exit 1
fi
export CUDA_PATH=$cuda
cd "$root"
if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >&2
elif [ $# -gt 0 ]; then
    meson configure "$dir" "$@" >&2
fi
ninja -C "$dir" "${target[@]}" >&2
