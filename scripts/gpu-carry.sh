#!/usr/bin/env bash
# Make ./build small enough to carry to the GPU machine (its transfer holds 64 MiB), and
# whole again afterwards. The object files, the test kernel cache and the kernels emulated
# on the CPU (tests/kemu_*) are what the GPU machine does not need; `pack` moves them into one
# archive outside the tree, after making the installed example tree that the `example_gpu`
# test runs against; `unpack` puts them back with their times, so that ninja rebuilds
# nothing.
#
#   scripts/gpu-carry.sh pack [ARCHIVE]     (default /tmp/cutune-build-stash.tar)
#   scripts/gpu-carry.sh unpack [ARCHIVE]
set -eu
b=build
stash=${2:-/tmp/cutune-build-stash.tar}
case "${1:-}" in
pack)
    [ -e "$stash" ] && { echo "gpu-carry: $stash exists: unpack it first, or name another" >&2; exit 2; }
    ninja -C "$b" >/dev/null
    meson test -C "$b" --no-rebuild example_build >/dev/null ||
        { echo "gpu-carry: the example_build test failed (see $b/meson-logs/testlog.txt)" >&2; exit 1; }
    list=$(mktemp)
    # the objects, the test kernel cache, and the kernels emulated on the CPU (tests/kemu_*)
    (cd "$b" && find . -name '*.o' > "$list" && find tests -maxdepth 1 -type f -name 'kemu_*' >> "$list" &&
        { [ -d tests/kcache ] && echo tests/kcache >> "$list"; true; })
    tar -C "$b" --format=posix -cf "$stash" -T "$list" # posix: times to the nanosecond, as ninja records them
    (cd "$b" && grep -v '^tests/kcache$' "$list" | xargs -r rm -f && rm -rf tests/kcache)
    rm -f "$list"
    echo "build is $(du -sh "$b" | cut -f1) to carry; its objects are in $stash ('$0 unpack' restores them)"
    ;;
unpack)
    [ -f "$stash" ] || { echo "gpu-carry: no $stash" >&2; exit 2; }
    tar -C "$b" -xf "$stash"
    rm -f "$stash"
    echo "build restored from $stash"
    ;;
*)
    echo "usage: $0 pack|unpack [ARCHIVE]" >&2
    exit 2
    ;;
esac
