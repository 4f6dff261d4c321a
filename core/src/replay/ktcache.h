/* Kernel Tuner's cache files (tune_kernel(cache=...)), read and written.
 *
 * A cache is one JSON object: device_name, kernel_name, problem_size, tune_params_keys
 * (the parameter names, in order), tune_params (each parameter's values), objective, and
 * cache: one member per config measured, keyed by its values joined with ",", holding the
 * parameters' values, "time" (ms; Kernel Tuner's objective, the mean of "times") or the name
 * of a failure ("InvalidConfig", "CompilationFailedConfig", "RuntimeFailedConfig",
 * "ErrorConfig"), and extras. Kernel Tuner appends configs as it measures them and closes the
 * file at the end; a cache whose tuning was cut off is read as Kernel Tuner reads it.
 *
 * What maps (cache -> cutune):
 *   tune_params_keys, each entry's values   -> the config NAME=value,...
 *   "time"                                  -> median_ms (so that the optimum is the same)
 *   "times"                                 -> samples, min_ms, mean_ms, stddev_ms
 *   compile_time, benchmark_time            -> compile_ms, measure_ms
 *   "GFLOP/s", "GB/s"                       -> gflops, gbps
 *   InvalidConfig                           -> skipped_resources
 *   CompilationFailedConfig                 -> compile_error
 *   RuntimeFailedConfig, ErrorConfig        -> launch_error
 *   device_name, problem_size, kernel_name  -> the device, the size (unless given), kept
 * and what is dropped: verification_time, framework_time, strategy_time, timestamp, objective
 * and any other observer's value. Going out (cutune_kt_write), wrong_result, timeout and
 * crashed become RuntimeFailedConfig, and skipped_resources InvalidConfig. */
#ifndef CUTUNE_KTCACHE_H
#define CUTUNE_KTCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cutune/cutune.h"
#include "cutune/plugin.h"
#include "space.h"

typedef struct CutuneKtEntry {
    const char *key; /* Kernel Tuner's key, "64,1" */
    int line;        /* where it starts in the file */
    int64_t *values; /* one per parameter: the value, or for a parameter whose values
                             are not all integers, its index in tune_params */
    CutuneStatus status;
    double time_ms; /* ok: Kernel Tuner's "time" */
    double min_ms, mean_ms, stddev_ms;
    int samples;
    double compile_ms, measure_ms, gflops, gbps;
} CutuneKtEntry;

struct CutuneJv;
typedef struct CutuneKtCache {
    char path[512];
    char device_name[256], kernel_name[128], problem_size[64];
    size_t nparams;
    char (*params)[CUTUNE_NAME_MAX];
    int *integer; /* per parameter: 1 when every value in tune_params is an integer */
    const struct CutuneJv **tune_values; /* per parameter: its list in tune_params */
    CutuneKtEntry *e;                    /* one per config, in the file's order */
    size_t n, nok;
    size_t duplicates; /* entries dropped: their key came again later in the file */
    double best_ms;    /* the fastest ok entry's time; 0 if none */
    size_t best;       /* its index */
    int64_t *values;   /* the entries' values, one block */
    void *root;        /* the parsed file (owns the keys) */
} CutuneKtCache;

/* Read a cache file, a regular file (a FIFO or a device is refused before it is opened).
 * Errors (CUTUNE_ERR_PARSE, with the file and line) name what is missing or malformed: a
 * field every Kernel Tuner cache has (tune_params_keys, tune_params, cache), an entry
 * without a value for a parameter or without a time, a value not in tune_params, a key that
 * is not the one Kernel Tuner files the entry's values under (its values joined with ",",
 * each as Python's str() writes it: which of the two was measured cannot be told). A key
 * that comes more than once is one config: its last entry is kept, as Kernel Tuner's JSON
 * reader keeps it, and `duplicates` counts the others. */
int cutune_kt_load(const char *path, CutuneKtCache *out, CutuneError *err);
void cutune_kt_free(CutuneKtCache *c);

/* Where each of the space's parameters is in the cache: map[j] is the cache's index of the
 * space's j-th parameter. A parameter of the cache that the space lacks is accepted when
 * the space determines it: it has one value in every entry of one config of the space (a
 * constant, or a function of the space's parameters, such as a block size computed from
 * tile sizes). Such parameters are ignored, and `ignored` (len bytes; may be NULL) names
 * them: "THREADS (always 128), WARPS (a function of BM, BN)", "" when none. 0, or
 * CUTUNE_ERR_INVALID with a message naming both lists of names (and the file of the space)
 * when a parameter of the space is missing or not an integer, or naming the parameter the
 * space does not determine and two cache keys that show it. */
int cutune_kt_match_space(const CutuneKtCache *c, const CutuneSpace *s, size_t *map, char *ignored,
                          size_t len, CutuneError *err);

/* One config for cutune_kt_write. */
typedef struct CutuneKtOut {
    const int64_t *values; /* per parameter */
    CutuneStatus status;
    double median_ms, min_ms, mean_ms, stddev_ms, compile_ms, measure_ms, gflops;
    int samples;
    const char *created_at; /* "YYYY-MM-DD HH:MM:SS" UTC, or NULL */
} CutuneKtOut;

/* Write a cache Kernel Tuner reads (and resumes or simulates from) to f: the header with
 * the parameters and each one's values, then one entry per config. */
int cutune_kt_write(FILE *f, const char *device_name, const char *kernel_name,
                    const CutuneProblem *size, const CutuneSpace *space, const CutuneKtOut *out,
                    size_t n, CutuneError *err);

#endif
