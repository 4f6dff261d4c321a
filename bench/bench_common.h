/* What the GPU benchmarks that compare tuned configs with a vendor routine (bench_matmul,
 * bench_memory) share: their common options, what they open before they measure, and how
 * they re-time a tuned config. Header-only: each is one C file. */
#ifndef CUTUNE_BENCH_COMMON_H
#define CUTUNE_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "device.h"
#include "measure.h"
#include "reeval.h"
#include "registry.h"

/* The options both take: --db PATH, --device N, --seed N. */
typedef struct BenchOptions {
    const char *db_path; /* NULL until given */
    int device;
    uint64_t seed;
} BenchOptions;

#define BENCH_OPTIONS_DEFAULT \
    { \
        NULL, 0, 12345 \
    }

/* Read argv[*i] into o when it is one of the common options with its value after it, and
 * move *i onto the value: 1. Otherwise 0, with nothing read. */
static inline int bench_common_option(int argc, char **argv, int *i, BenchOptions *o)
{
    if (!strcmp(argv[*i], "--db") && *i + 1 < argc)
        o->db_path = argv[++*i];
    else if (!strcmp(argv[*i], "--device") && *i + 1 < argc)
        o->device = atoi(argv[++*i]);
    else if (!strcmp(argv[*i], "--seed") && *i + 1 < argc)
        o->seed = strtoull(argv[++*i], NULL, 10);
    else
        return 0;
    return 1;
}

/* What a benchmark measures with: the device, the ops and variants, the database. */
typedef struct Bench {
    CutuneDeviceInfo dev;
    CutuneRegistry reg;
    CutuneDb *db;
} Bench;

/* Open CUDA device o->device into b->dev, load the registry of ops and variants into b->reg
 * and the tuning database at o->db_path read-only into b->db, then print the device and the
 * seed. Returns 0, or the exit code after printing "<prog>: why": 77 (skipped) without a
 * CUDA device, 1 otherwise. */
static inline int bench_open(const char *prog, const BenchOptions *o, Bench *b)
{
    CutuneError err = {0};
    b->db = NULL;
    int loaded = 0;
    if (cutune_device_open(o->device, &b->dev, &err) ||
        !(loaded = cutune_registry_load(&b->reg, &err) == 0) ||
        cutune_db_open(o->db_path, CUTUNE_DB_READONLY, &b->db, &err)) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        if (loaded)
            cutune_registry_free(&b->reg);
        return err.code == CUTUNE_ERR_NO_DEVICE ? 77 : 1;
    }
    printf("device: %s (%s), seed %llu\n", b->dev.name, b->dev.uuid, (unsigned long long)o->seed);
    return 0;
}

static inline void bench_close(Bench *b)
{
    cutune_db_close(&b->db);
    cutune_registry_free(&b->reg);
}

/* Re-check and re-time a tuned config in this process (cutune_reevaluate, once): 31
 * samples, within 30 seconds, none left out by a target error. */
static inline int bench_reevaluate(const CutuneVariantDef *v, const CutuneDeviceInfo *dev,
                                   const char *config, const CutuneProblem *p, uint64_t seed,
                                   CutuneEvalResult *res, CutuneError *err)
{
    CutuneMeasureSettings ms;
    cutune_measure_defaults(&ms);
    ms.min_samples = ms.max_samples = 31;
    ms.max_seconds = 30;
    ms.target_rse = 0;
    return cutune_reevaluate(v, dev, config, p, seed, &ms, 1, res, err);
}

#endif
