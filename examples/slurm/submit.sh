#!/bin/bash
# Tune across a Slurm cluster: N shards of one cutune run as a job array (one GPU each),
# then one job that merges their databases once every shard has ended, however it ended
# (--dependency=afterany: a shard stopped by its time limit or scancel keeps its trials,
# and the merge says which shards are missing or stopped early).
#
#   examples/slurm/submit.sh N OP [cutune run options...]
#   examples/slurm/submit.sh 8 matmul --time 3600
#   CUTUNE_SHARD_DIR=./cutune-shards-20261127-101500 examples/slurm/submit.sh 8 matmul --time 3600
#
# The second form resumes: with the folder of an earlier submission and the same N and
# options, each shard starts from its own saved database and tunes only what it has not
# finished, and the merge adds to the merged database. The shard databases and the merged
# one go to $CUTUNE_SHARD_DIR (default ./cutune-shards-<date>), which must be on a
# filesystem every node sees. sbatch passes the
# environment on (CUTUNE, CUTUNE_BASE_DB, CUTUNE_MERGED_DB: see the two job scripts); its
# own variables choose the partition, account and so on (SBATCH_PARTITION,
# SBATCH_ACCOUNT, ...). Prints the two job ids and the merged database's path.
set -eu
if [ $# -lt 2 ] || ! [ "$1" -gt 0 ] 2>/dev/null; then
    echo "usage: $0 N OP [cutune run options...]   (N shards, one GPU each)" >&2
    exit 2
fi
n=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
export CUTUNE_SHARD_DIR=${CUTUNE_SHARD_DIR:-$PWD/cutune-shards-$(date +%Y%m%d-%H%M%S)}
export CUTUNE_SHARDS=$n
mkdir -p "$CUTUNE_SHARD_DIR"
array=$(sbatch --parsable --array=0-$((n - 1)) --output="$CUTUNE_SHARD_DIR/shard-%a.out" \
    "$here/cutune-shard.sbatch" "$@")
array=${array%%;*} # "id;cluster" on a federation
# afterany, not afterok: a shard stopped by its time limit or scancel exits 130 with its
# trials saved, and afterok would leave the merge pending forever (DependencyNeverSatisfied)
merge=$(sbatch --parsable --dependency=afterany:"$array" --output="$CUTUNE_SHARD_DIR/merge.out" \
    "$here/cutune-merge.sbatch")
merge=${merge%%;*}
echo "shards: array job $array ($n tasks); merge: job $merge, after every shard ended"
echo "merged database: ${CUTUNE_MERGED_DB:-$CUTUNE_SHARD_DIR/merged.db}"
echo "$array $merge" >"$CUTUNE_SHARD_DIR/jobs"
