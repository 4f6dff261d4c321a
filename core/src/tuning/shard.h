/* Shards: one run's job list cut into N parts, for N machines (a Slurm job array, a
 * Kubernetes Indexed Job) that each tune one part into a database of their own; `cutune
 * merge` joins the databases afterwards.
 *
 * The index counts from 0, as Kubernetes' JOB_COMPLETION_INDEX does and as Slurm's
 * SLURM_ARRAY_TASK_ID does under --array=0-(N-1): shard I of N is "I/N", 0 <= I < N.
 *
 * The jobs are the run's (variant, size) pairs in the plan's fixed order (tune_plan.c); job
 * k belongs to shard k mod N. Every shard of a run must therefore be started with the same
 * command line and the same installed plugins and spaces: then the shards cover each job
 * exactly once, and their counts differ by at most one. */
#ifndef CUTUNE_SHARD_H
#define CUTUNE_SHARD_H

#include <stddef.h>

#include "cutune/cutune.h"

/* The largest shard count accepted (Slurm's MaxArraySize cannot exceed 4000001; a million
 * shards is far past any useful split of a run). */
#define CUTUNE_SHARD_MAX 1000000u

typedef struct CutuneShard {
    unsigned index; /* 0 .. count-1 */
    unsigned count; /* 0: the run is not sharded (every job is taken) */
} CutuneShard;

/* Parse "I/N" (decimal digits only, 1 <= N <= CUTUNE_SHARD_MAX, 0 <= I < N) into *out.
 * Returns 0, or CUTUNE_ERR_INVALID with a message saying what was wrong and what is
 * expected; *out is set only on success. */
int cutune_shard_parse(const char *text, CutuneShard *out, CutuneError *err);

/* 1 when job k (counted from 0 in the plan's order) belongs to shard s, else 0. A shard
 * with count 0 (no sharding) takes every job. */
int cutune_shard_has(const CutuneShard *s, size_t k);

#endif
