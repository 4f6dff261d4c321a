/* What the GPU benchmarks that compare tuned configs with a vendor routine (bench_matmul,
 * bench_memory) share: their common options, what they open before they measure, and how
 * they re-time a tuned config. Header-only: each is one C file. */
#ifndef CUTUNE_BENCH_COMMON_H
#define CUTUNE_BENCH_COMMON_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "device.h"
#include "measure.h"
#include "reeval.h"
#include "registry.h"
#include "util.h"

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
 * move *i onto the value: 1. Otherwise 0, with nothing read; -1 after saying on stderr that
 * the value is not a whole number in the option's range (cutune_parse_whole). */
static inline int bench_common_option(int argc, char **argv, int *i, BenchOptions *o)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--db") && *i + 1 < argc) {
        o->db_path = argv[++*i];
        return 1;
    }
    int device = !strcmp(a, "--device");
    if ((!device && strcmp(a, "--seed")) || *i + 1 >= argc)
        return 0;
    const char *v = argv[++*i];
    int neg = 0;
    uint64_t mag = 0;
    if (cutune_parse_whole(v, strlen(v), &neg, &mag) != 0 || neg || (device && mag > INT_MAX)) {
        fprintf(stderr, "%s takes a whole number%s, got '%s'\n", a,
                device ? " (a CUDA device index)" : " from 0 to 2^64-1", v);
        return -1;
    }
    if (device)
        o->device = (int)mag;
    else
        o->seed = mag;
    return 1;
}

/* Read argv: the common options into o; each of flags (NULL-terminated, or NULL for none),
 * setting set[k] to 1 for flags[k]; every other argument not starting with '-', an operand,
 * in order into operands[0..max), their count into *n. 0; or 2 after saying on stderr what
 * is wrong (usage, for an unknown option, more than max operands or no --db). */
static inline int bench_parse(int argc, char **argv, const char *usage, const char *const *flags,
                              int *set, const char **operands, int max, int *n, BenchOptions *o)
{
    *n = 0;
    for (int i = 1; i < argc; i++) {
        int common = bench_common_option(argc, argv, &i, o);
        if (common < 0)
            return 2;
        if (common)
            continue;
        int k = 0;
        while (flags && flags[k] && strcmp(argv[i], flags[k]))
            k++;
        if (flags && flags[k]) {
            set[k] = 1;
            continue;
        }
        if (argv[i][0] == '-' || *n == max) {
            fputs(usage, stderr);
            return 2;
        }
        operands[(*n)++] = argv[i];
    }
    if (!o->db_path) {
        fputs(usage, stderr);
        return 2;
    }
    return 0;
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
