#!/usr/bin/env bash
# How fast `cutune merge` joins the shards of a cluster run: SHARDS databases of TRIALS trials
# each (tests/gen_shards.py: four devices, eight variants, shared base runs, overlapping
# requests) merged into a new database; the same inputs again (nothing new to add); and half
# of them into a database that holds the other half (an existing OUT, one transaction).
# Prints a table of wall, user and system seconds per case, and the load average (the
# development machine is shared: user + system is the figure that load does not inflate).
#
#   bench/bench_merge.sh [CUTUNE_EXE] [SHARDS] [TRIALS]      (defaults: build/cli/cutune 4 100000)
#
# The shards are made once and kept in $CUTUNE_BENCH_DIR (default /tmp/cutune-bench-merge).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
exe=${1:-$root/build/cli/cutune}
shards=${2:-4}
trials=${3:-100000}
dir=${CUTUNE_BENCH_DIR:-/tmp/cutune-bench-merge}/${shards}x${trials}
if [ ! -f "$dir/shard-$((shards - 1)).db" ]; then
    echo "making $shards shards of $trials trials in $dir ..." >&2
    python3 "$root/tests/gen_shards.py" "$dir" --shards "$shards" --trials "$trials" >/dev/null
fi
inputs=()
for ((i = 0; i < shards; i++)); do inputs+=("$dir/shard-$i.db"); done
half=$((shards / 2))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

TIMEFORMAT='%R %U %S'
measure() { # LABEL OUT INPUT...: one line of the table
    local label=$1 out=$2 t
    shift 2
    t=$({ time "$exe" merge -q "$out" "$@" >/dev/null; } 2>&1) || { echo "$label: failed: $t" >&2; exit 1; }
    read -r wall user sys <<<"$t"
    printf '%-44s %8s %8s %8s\n' "$label" "$wall" "$user" "$sys"
}

echo "cutune merge: $shards shards x $(sqlite3 "${inputs[0]}" 'SELECT count(*) FROM trials') trials" \
    "($(du -shL "$dir" | cut -f1) of inputs), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %8s %8s %8s\n' "case" "wall_s" "user_s" "sys_s"
measure "$shards shards into a new database" "$work/all.db" "${inputs[@]}"
measure "the same $shards again (nothing new)" "$work/all.db" "${inputs[@]}"
"$exe" merge -q "$work/half.db" "${inputs[@]:0:$half}"
measure "$((shards - half)) shards into one holding $half" "$work/half.db" "${inputs[@]:$half}"
echo "trials in the merged database: $(sqlite3 "$work/all.db" 'SELECT count(*) FROM trials')," \
    "best rows: $(sqlite3 "$work/all.db" 'SELECT count(*) FROM best')"
