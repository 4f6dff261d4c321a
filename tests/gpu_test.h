/* What the GPU tests share. Each exits 77 (skipped) where there is no CUDA device:
 * `if (!gpu_present()) return CHECK_SKIP;` says why on stdout. One that tunes does so into
 * a database in a folder of its own, between gpu_test_start and gpu_test_end. */
#ifndef CUTUNE_TESTS_GPU_TEST_H
#define CUTUNE_TESTS_GPU_TEST_H

#include <dlfcn.h>
#include <stdio.h>

#include "check.h"
#include "device.h"
#include "tmpdir.h"
#include "tune.h"

static int gpu_present(void)
{
    int n = 0;
    CutuneError err = {0};
    if (cutune_device_count(&n, &err) == 0)
        return 1;
    printf("skipped: %s\n", err.msg);
    return 0;
}

/* 1 when the dynamic loader finds one of names[0..n) (a vendor library the ops open at run
 * time: is there one to find?). */
static inline int gpu_have_library(const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            dlclose(h);
            return 1;
        }
    }
    return 0;
}

/* The start of a GPU test that tunes: CHECK_SKIP without a device; otherwise a fresh folder
 * /tmp/PREFIX-XXXXXX (tmpdir) with the path of its database, tune.db, in db_path, and with
 * dev non-NULL, device 0 opened into *dev and named on stdout. 0, or 1 with the reason on
 * stderr. */
static inline int gpu_test_start(const char *prefix, CutuneDeviceInfo *dev, char *db_path,
                                 size_t len)
{
    if (!gpu_present())
        return CHECK_SKIP;
    CutuneError err = {0};
    if (dev && cutune_device_open(0, dev, &err)) {
        fprintf(stderr, "device 0: %s\n", err.msg);
        return 1;
    }
    if (dev)
        printf("device 0: %s (%s)\n", dev->name, dev->uuid);
    if (make_tmpdir(tmpdir, sizeof tmpdir, prefix))
        return 1;
    snprintf(db_path, len, "%s/tune.db", tmpdir);
    return 0;
}

/* The end of such a test: its folder removed, unless a check failed (it is kept, for a
 * look), and check_result(name). */
static inline int gpu_test_end(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: the test's files are kept in %s\n", name, tmpdir);
    else
        rm_tree(tmpdir);
    return check_result(name);
}

/* The options of a test's tuning run: variant of op (NULL: all of the op's variants) at
 * sizes[0..nsizes), into the database at db, each config measured for at most max_seconds.
 * The rest are cutune_tune_defaults'; each test sets what it needs beyond these. */
static inline CutuneTuneOptions gpu_tune_options(const char *op, const char *variant,
                                                 const char *const *sizes, size_t nsizes,
                                                 const char *db, double max_seconds)
{
    CutuneTuneOptions o;
    cutune_tune_defaults(&o);
    o.op = op;
    o.variant = variant;
    o.sizes = sizes;
    o.nsizes = nsizes;
    o.db_path = db;
    o.measure.max_seconds = max_seconds;
    return o;
}

/* cutune_tune(o) into *sum, checked to succeed (the failure names the op, the variant and
 * why); its return code. */
static inline int gpu_tune(const CutuneTuneOptions *o, CutuneTuneSummary *sum)
{
    CutuneError err = {0};
    int rc = cutune_tune(o, sum, &err);
    CHECK_MSG(rc == 0, "cutune_tune %s %s: %s", o->op, o->variant ? o->variant : "(every variant)",
              err.msg);
    return rc;
}

#endif
