/* Kernel Tuner caches (ktcache.h) into the tuning database as trials of an installed
 * variant, and the database's trials out as a cache. */
#ifndef CUTUNE_KTDB_H
#define CUTUNE_KTDB_H

#include "db.h"
#include "ktcache.h"
#include "registry.h"

typedef struct CutuneKtImport {
    const CutuneKtCache *cache;
    const CutuneVariantDef *plugin; /* the variant the configs are of */
    const CutuneSpace *space;       /* its space; the cache's parameters match it */
    const size_t *map;              /* from cutune_kt_match_space */
    const char *size;               /* canonical */
    const CutuneProblem *problem;   /* parsed; its flop and byte counts give GFLOP/s, GB/s */
    const char *device;             /* a UUID or part of a name recorded in the database, whose
                                     device the trials are then of; else a new device of
                                     this name, with UUID "kernel-tuner:<name>" */
    const char *argv;               /* the command line, for the run */
} CutuneKtImport;

typedef struct CutuneKtImported {
    int64_t run_id;
    size_t imported;
    char device_uuid[64];
} CutuneKtImported;

/* One run (strategy "kernel-tuner") with one trial per cache entry; each trial's message
 * says Kernel Tuner measured it. The trials are committed one by one, as a tuning run's:
 * an error stops the import with the run marked failed (out->imported says how many went
 * in), which the caller checks everything first to avoid. */
int cutune_kt_import_db(CutuneDb *db, const CutuneKtImport *in, CutuneKtImported *out,
                        CutuneError *err);

typedef struct CutuneKtExport {
    const CutuneVariantDef *plugin; /* the installed variant: its version's trials */
    const CutuneSpace *space;
    const char *size; /* canonical */
    const char *device_uuid;
} CutuneKtExport;

/* Write one trial of each config of (variant at the installed version, size, device) as a
 * Kernel Tuner cache to f: the trial the best table would choose (the fastest verified
 * median), so that the cache's optimum is the config `cutune query` answers; for a config
 * that was never verified, its newest trial. *written counts the configs written, *left_out
 * the trials whose config the installed space cannot read. CUTUNE_ERR_NOT_FOUND when there
 * is none. */
int cutune_kt_export_db(CutuneDb *db, const CutuneKtExport *in, FILE *f, size_t *written,
                        size_t *left_out, CutuneError *err);

#endif
