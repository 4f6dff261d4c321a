/* What the GPU benchmarks that compare tuned configs with a vendor routine (bench_matmul,
 * bench_memory) open before they measure. Header-only: each is one C file. */
#ifndef CUTUNE_BENCH_OPEN_H
#define CUTUNE_BENCH_OPEN_H

#include <stdio.h>

#include "db.h"
#include "device.h"
#include "registry.h"

/* Open CUDA device `device` into *dev, load the registry of ops and variants into *reg and
 * the tuning database at db_path read-only into *db. Returns 0, or the exit code after
 * printing "<prog>: why": 77 (skipped) without a CUDA device, 1 otherwise. */
static inline int bench_open(const char *prog, int device, const char *db_path,
                             CutuneDeviceInfo *dev, CutuneRegistry *reg, CutuneDb **db)
{
    CutuneError err = {0};
    *db = NULL;
    if (cutune_device_open(device, dev, &err) || cutune_registry_load(reg, &err) ||
        cutune_db_open(db_path, CUTUNE_DB_READONLY, db, &err)) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        return err.code == CUTUNE_ERR_NO_DEVICE ? 77 : 1;
    }
    return 0;
}

#endif
