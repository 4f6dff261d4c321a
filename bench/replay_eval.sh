#!/usr/bin/env bash
# Replays the default search strategy, random sampling and the older strategies on every
# recorded space of the foreign data folder and of tests/data/recordings, and prints
# Markdown tables (as bench/results/replay/search-eval-2026-11-23.md). CPU only. The
# methodology score of the default is bench/search_eval.py's (bench/RESULTS.md, "Search on
# foreign spaces (replay)").
#
#   bench/replay_eval.sh [BUILD_DIR] [replay_eval options: --seeds 50 --budgets ... --windows 34,1]
#
# The foreign data is read in place from $CUTUNE_SEARCH_EVAL_DATA, by default
# <source root>/../shared/search-eval-data; it is never copied into the project.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
data=${CUTUNE_SEARCH_EVAL_DATA:-$root/../shared/search-eval-data}
if [ ! -d "$data" ]; then
    echo "replay_eval.sh: no folder $data (set CUTUNE_SEARCH_EVAL_DATA)" >&2
    exit 1
fi
ninja -C "$build" bench/replay_eval >&2
echo "Command: \`bench/replay_eval.sh $*\` ($(date -u +%F), $(nproc) CPU cores, CPU replays of recorded spaces: no GPU involved)"
exec "$build/bench/replay_eval" --budgets 25,50,100,200,400 --windows 18,1 "$@" \
    "$data" "$root/tests/data/recordings"
