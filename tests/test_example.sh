#!/usr/bin/env bash
# The example application (examples/) against an installed cutune.
#
#   test_example.sh build BUILD_DIR SOURCE_ROOT PREFIX LIBDIR INCLUDEDIR DATADIR BINDIR
#       `meson install --destdir` the build into BUILD_DIR/tests/example-root, check what the
#       tree holds, run its `cutune` with no CUTUNE_* variables (it must find its plugins and
#       spaces by itself), and build the example against it through pkg-config, with the
#       example's Makefile and with its meson.build (dependency('cutune')). Then, as a user
#       does with nothing but the installed tree: a variant of matmul written in a folder of
#       its own (`cutune new variant`, list, check), and the out-of-tree op of
#       examples/softmax built with `pkg-config --cflags cutune-plugin` (Makefile and
#       meson.build), its variant listed and checked.
#   test_example.sh gpu BUILD_DIR ...
#       on a GPU (the build mode first, when what it makes is missing or stale): tune a small matmul with the installed cutune, then run the example: an
#       exact answer, a nearest one recorded as a request, `cutune run --pending`, and the
#       exact answer after it, each result checked; then tune the out-of-tree variant and
#       the out-of-tree op, each verified correct, and query them. Exits 77 without a
#       device.
set -u
mode=$1 build=$2 src=$3 prefix=$4 libdir=$5 includedir=$6 datadir=$7 bindir=$8
root=$build/tests/example-root
ex=$build/tests/example
. "$(dirname "$0")/lib.sh"
cuda=${CUDA_PATH:-/usr/local/cuda}
export LD_LIBRARY_PATH=$root$prefix/$libdir:$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Under a sanitized build the installed libcutune carries ASan; the example is not built
# with it, so the runtime cannot come first: let it start anyway.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
installed() { env -u CUTUNE_PLUGIN_PATH -u CUTUNE_SPACE_PATH "$root$prefix/$bindir/cutune" "$@"; }
# the installed command with the out-of-tree variant's folder, and with the softmax op
variants=$build/tests/example-variants
mine() { env -u CUTUNE_PLUGIN_PATH CUTUNE_SPACE_PATH="$variants" "$root$prefix/$bindir/cutune" "$@"; }
softmax() { env CUTUNE_PLUGIN_PATH="$ex/softmax" CUTUNE_SPACE_PATH="$src/examples/softmax" \
    "$root$prefix/$bindir/cutune" "$@"; }

if [ "$mode" = build ]; then
    for tool in meson pkg-config make cc; do
        if ! command -v $tool >/dev/null; then
            echo "no $tool here: skipped (the tree and example already built, if any, are kept)"
            exit 77
        fi
    done
    # A build carried from another machine (the GPU machine) cannot be installed again: keep
    # the tree and the example built where the build was made.
    made_in=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["directories"]["build"])' \
        "$build/meson-info/meson-info.json" 2>/dev/null)
    if [ "$made_in" != "$build" ]; then
        echo "build made in $made_in, carried here: skipped (the example built there is kept)"
        exit 77
    fi
    # The same path on another machine (the GPU machine mirrors it) with another Meson: its
    # install cannot read this build's install data.
    made_with=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["meson_version"]["full"])' \
        "$build/meson-info/meson-info.json" 2>/dev/null)
    if [ "$made_with" != "$(meson --version 2>/dev/null)" ]; then
        echo "build made with Meson $made_with, this is $(meson --version 2>/dev/null): skipped" \
            "(the example built with the build is kept)"
        exit 77
    fi
    rm -rf "$root" "$ex" "$variants"
    mkdir -p "$ex"
    if ! meson install -C "$build" --no-rebuild --destdir "$root" >"$tmp/install.log" 2>&1; then
        cat "$tmp/install.log"; echo "FAIL: meson install"; exit 1
    fi
    p=$root$prefix
    for f in "$libdir/libcutune.so" "$includedir/cutune/cutune.h" "$includedir/cutune/plugin.h" \
        "$includedir/cutune/op.h" "$includedir/cutune/lookup.h" "$bindir/cutune" \
        "$libdir/cutune/plugins/matmul.so" "$datadir/cutune/tuning_spaces/matmul_tiled.ini" \
        "$datadir/cutune/tuning_spaces/matmul_tiled.cu" "$datadir/cutune/tuning_spaces/matmul_tiles.cuh" \
        "$datadir/cutune/db/0002_requests.sql" "$libdir/pkgconfig/cutune.pc" \
        "$datadir/bash-completion/completions/cutune" "$datadir/zsh/site-functions/_cutune" \
        "$(meson introspect --buildoptions "$build" | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "mandir"][0])')/man1/cutune.1" \
        "$(meson introspect --buildoptions "$build" | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "libexecdir"][0])')/cutune-worker"; do
        [ -e "$p/$f" ] || bad "the installed tree has no $f"
    done
    # The installed command finds its plugins and spaces with no environment variables.
    expect 0 "configs: 132 valid of 224" -- installed list matmul
    expect 0 "export" -- installed --help
    # ... and its worker: without a GPU the worker itself answers "no device" (exit 3), which
    # it can only do once the installed command has found and started it.
    if ! installed devices >/dev/null 2>&1; then
        env -u CUTUNE_WORKER "$root$prefix/$bindir/cutune" run matmul --size 64 --db "$tmp/w.db" \
            >"$tmp/w.out" 2>&1
        rc=$?
        { [ $rc = 3 ] && grep -q "no CUDA driver or device" "$tmp/w.out"; } ||
            { bad "the installed cutune did not start its worker (exit $rc)"; cat "$tmp/w.out"; }
    fi

    # The .pc files find the tree from their own folder (no path of this machine in them,
    # no private dependency: --cflags works without sqlite3's headers).
    export PKG_CONFIG_PATH=$p/$libdir/pkgconfig
    flags=$(pkg-config --cflags --libs cutune) || bad "pkg-config --cflags --libs cutune failed"
    inc=$(pkg-config --variable=includedir cutune) lib=$(pkg-config --variable=libdir cutune)
    [ -f "$inc/cutune/lookup.h" ] && [ -e "$lib/libcutune.so" ] && case "$flags" in
        *"-I$inc"*"-L$lib"*"-lcutune"*) true ;; *) false ;; esac ||
        bad "pkg-config gave '$flags'"
    [ -z "$(pkg-config --print-requires --print-requires-private cutune)" ] ||
        bad "cutune.pc requires other modules"
    grep -qE "sqlite|inih|$build|^prefix=/" "$p/$libdir/pkgconfig/cutune.pc" "$p/$libdir/pkgconfig/cutune-plugin.pc" &&
        bad "a .pc file names a dependency or a path of the build machine"
    [ "$(pkg-config --cflags cutune-plugin)" = "-I$inc " ] || [ "$(pkg-config --cflags cutune-plugin)" = "-I$inc" ] ||
        bad "pkg-config --cflags cutune-plugin gave '$(pkg-config --cflags cutune-plugin)'"
    [ -z "$(pkg-config --libs cutune-plugin | tr -d ' ')" ] || bad "cutune-plugin.pc links a library"
    expect 0 "" -- make -C "$src/examples" O="$ex" CC=cc
    [ -x "$ex/matmul_app" ] || bad "the Makefile built no matmul_app"
    # The same through Meson's dependency('cutune').
    if meson setup "$ex/meson" "$src/examples" >"$tmp/setup.log" 2>&1 &&
        ninja -C "$ex/meson" >>"$tmp/setup.log" 2>&1; then
        [ -x "$ex/meson/matmul_app" ] || bad "the meson.build built no matmul_app"
    else
        cat "$tmp/setup.log"; bad "the example's meson.build did not build against the tree"
    fi
    # It runs: on a machine without a GPU it says so and exits 77.
    "$ex/matmul_app" --db "$tmp/none.db" >"$tmp/out" 2>&1
    rc=$?
    if cuda_ok=$(installed devices 2>/dev/null); then
        [ $rc = 4 ] || { bad "matmul_app on a missing database exited $rc, expected 4"; cat "$tmp/out"; }
    else
        [ $rc = 77 ] || { bad "matmul_app without a GPU exited $rc, expected 77"; cat "$tmp/out"; }
    fi

    # A variant of matmul in a folder of its own, with nothing but the installed tree.
    expect 0 "copied from matmul_tiled" -- installed new variant matmul my_tiled --from matmul_tiled \
        --dir "$variants"
    expect 0 "my_tiled" -- mine list matmul
    expect 0 "kernel my_tiled takes 7 parameters, as op matmul passes them" -- mine check my_tiled --sample 4
    grep -q "^  ok$" "$tmp/out" || { bad "the out-of-tree variant does not check"; cat "$tmp/out"; }

    # An op out of the tree: examples/softmax, built against the plugin headers only.
    mkdir -p "$ex/softmax"
    expect 0 "" -- make -C "$src/examples/softmax" O="$ex/softmax" CC=cc
    [ -f "$ex/softmax/softmax.so" ] || bad "the softmax Makefile built no softmax.so"
    if nm -D --undefined-only "$ex/softmax/softmax.so" | grep -qE "cutune_|cuda"; then
        bad "softmax.so needs libcutune or CUDA"
    fi
    if meson setup "$ex/softmax-meson" "$src/examples/softmax" >"$tmp/setup.log" 2>&1 &&
        ninja -C "$ex/softmax-meson" >>"$tmp/setup.log" 2>&1; then
        [ -f "$ex/softmax-meson/softmax.so" ] || bad "the softmax meson.build built no softmax.so"
    else
        cat "$tmp/setup.log"; bad "examples/softmax/meson.build did not build against the tree"
    fi
    # Every op source that docs/variants.md's "Writing an op" points an author at compiles with the
    # installed headers alone (a folder named there: each .c in it).
    models=$(sed -n '/^## Writing an op/,/^## /p' "$src/docs/variants.md" |
        grep -oE '`(plugins|examples)/[A-Za-z0-9_./]+`' | tr -d '`' | sort -u)
    [ -n "$models" ] || bad "docs/variants.md's \"Writing an op\" names no op source"
    for m in $models; do
        case "$m" in
        */) files=$(ls "$src/$m"*.c 2>/dev/null) ;;
        *.c) files=$src/$m ;;
        *) continue ;;
        esac
        for f in $files; do
            cc -std=c11 -fsyntax-only $(pkg-config --cflags cutune-plugin) "$f" >"$tmp/model.log" 2>&1 ||
                { bad "docs/variants.md points op authors at $m, but ${f#$src/} does not compile with the installed headers alone"; cat "$tmp/model.log"; }
        done
    done
    expect 0 "op: $ex/softmax/softmax.so" -- softmax list softmax
    grep -q "softmax_naive " "$tmp/out" || bad "softmax_naive is not listed"
    expect 0 "kernel softmax_naive takes 4 parameters, as op softmax passes them" -- softmax check softmax_naive
    grep -q "^  ok$" "$tmp/out" || { bad "softmax_naive does not check"; cat "$tmp/out"; }
    # ... and runs on the CPU with the installed tree's emulation (its header is in the
    # library, not looked up)
    if command -v "${CXX:-c++}" >/dev/null; then
        expect 0 "ran 1 (config, size) pair on the CPU emulation: 1 ok, 0 failed" -- \
            softmax check softmax_naive --run --size 4x300 --sample 1 --run-configs 1
    fi
    [ $fail = 0 ] && echo "installed tree, pkg-config, Makefile and meson.build, a variant and an op out of the tree: ok"
    exit $fail
fi

# gpu
if ! "$build/cli/cutune" devices >/dev/null 2>&1; then
    echo "no CUDA device: skipped"
    exit 77
fi
# The installed tree, the example, the out-of-tree variant and op: made by the build mode
# above, run here when they are missing or older than the library, so that this test also
# runs alone. A build carried from another machine brings them (scripts/gpu-carry.sh), and
# the build mode keeps them.
if [ ! -x "$ex/matmul_app" ] || [ ! -f "$variants/my_tiled.ini" ] ||
    [ ! -f "$ex/softmax/softmax.so" ] || [ "$build/core/libcutune.so" -nt "$ex/matmul_app" ]; then
    "$0" build "$build" "$src" "$prefix" "$libdir" "$includedir" "$datadir" "$bindir" \
        >"$tmp/build.log" 2>&1
    rc=$?
    [ $rc = 0 ] || [ $rc = 77 ] || { cat "$tmp/build.log"; echo "FAIL: the example build exited $rc"; exit 1; }
fi
[ -x "$ex/matmul_app" ] && [ -f "$variants/my_tiled.ini" ] && [ -f "$ex/softmax/softmax.so" ] ||
    { cat "$tmp/build.log" 2>/dev/null; echo "FAIL: no example built in $ex (see above)"; exit 1; }
db=$tmp/t.db
export CUTUNE_CACHE_DIR=$tmp/cache # the example compiles its kernel on first use, or reads it
expect 0 "256x256x256" -- installed run matmul --device 0 --variant matmul_tiled \
    --size 256x256x256 --budget 40 --db "$db" --no-progress
expect 0 "answered by exact" -- "$ex/matmul_app" --db "$db" --size 256x256x256
grep -q "correct" "$tmp/out" && grep -q "same result" "$tmp/out" || bad "exact: $(cat "$tmp/out")"
cat "$tmp/out"
rm -rf "$CUTUNE_CACHE_DIR" # now from a cold kernel cache: compiled on first use
expect 0 "answered by nearest" -- "$ex/matmul_app" --db "$db" --size 300x200x100 --record
grep -q "recorded as a request" "$tmp/out" || bad "the nearest answer was not recorded"
cat "$tmp/out"
expect 0 "300x200x100" -- installed run --pending --device 0 --variant matmul_tiled --budget 20 \
    --db "$db" --no-progress
expect 0 "answered by exact" -- "$ex/matmul_app" --db "$db" --size 300x200x100 --record
grep -q "recorded as a request" "$tmp/out" && bad "an exact answer was recorded as a request"
cat "$tmp/out"
expect 0 "no pending requests" -- installed run --pending --device 0 --db "$db" --no-progress

# the out-of-tree variant and op, tuned (a run exits 1 when no config is correct) and queried
expect 0 "my_tiled" -- mine run matmul --device 0 --variant my_tiled --size 512x512x512 \
    --budget 12 --db "$tmp/mine.db" --no-progress
expect 0 "my_tiled" -- mine query matmul --device 0 --size 512x512x512 --db "$tmp/mine.db"
expect 0 "softmax_naive" -- softmax run softmax --device 0 --size 4096x1000 --size 1000x4097 \
    --db "$tmp/softmax.db" --no-progress
expect 0 "softmax_naive" -- softmax query softmax --device 0 --size 1000x4097 --db "$tmp/softmax.db"
[ $fail = 0 ] && echo "example on the GPU: exact, nearest, --pending, exact again, a variant and an op out of the tree: ok"
exit $fail
