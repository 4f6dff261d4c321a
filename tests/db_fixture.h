/* Rows the database tests record through db.h: a device and a trial, with the fields
 * every test sets; each test sets the rest itself. */
#ifndef CUTUNE_TESTS_DB_FIXTURE_H
#define CUTUNE_TESTS_DB_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "db.h"

/* A device of compute capability 9.0 and nothing else known. */
static inline CutuneDeviceInfo fixture_device(const char *uuid, const char *name)
{
    CutuneDeviceInfo d;
    memset(&d, 0, sizeof d);
    snprintf(d.uuid, sizeof d.uuid, "%s", uuid);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.cc_major = 9;
    return d;
}

/* A trial of config with its status, for the run, device, variant and problem given (run 0
 * for none); the timings and the rest are zero. */
static inline CutuneTrialRecord fixture_trial(int64_t run, int64_t dev, int64_t var, int64_t prob,
                                              const char *config, CutuneStatus status)
{
    CutuneTrialRecord t = {
        .run_id = run,
        .device_id = dev,
        .variant_id = var,
        .problem_id = prob,
        .config = config,
        .status = status,
    };
    return t;
}

#endif
