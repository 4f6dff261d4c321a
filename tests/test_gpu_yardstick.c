/* The ops' yardsticks on a GPU (exit 77 without one), through the worker as the tuner calls
 * them: cuBLAS SGEMM for matmul (its result passes matmul's check, or cuBLAS is reported
 * missing when this machine has none) and cudaMemcpy device-to-device for the memory-bound
 * ops, each timed with a median and samples. */
#include "check.h"
#include "gpu_test.h"
#include "device.h"
#include "registry.h"
#include "util.h"
#include "worker_client.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* cuBLAS as the matmul op looks for it: is there one to find? */
static int have_cublas(void)
{
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    return gpu_have_library(names, sizeof names / sizeof names[0]);
}

static void one(CutuneWorker *w, const CutuneRegistry *reg, const char *op, const char *size,
                const char *want_name, int arch)
{
    const CutuneOpDef *d = cutune_registry_op(reg, op);
    CHECK_MSG(d != NULL, "no op %s", op);
    if (!d)
        return;
    CutuneProblem p;
    CutuneError err = {0};
    char why[256] = "";
    CHECK(cutune_problem_parse(size, &p, &err) == 0 &&
          d->op->check_problem(&p, why, sizeof why) == 0);
    CHECK_MSG(cutune_worker_setup(w, d->path, &p, 1, arch, NULL, &err) == 0, "%s", err.msg);
    char name[64];
    double ms = 0;
    int samples = 0;
    int rc = cutune_worker_yardstick(w, name, sizeof name, &ms, &samples, &err);
    if (!strcmp(op, "matmul") && !have_cublas()) {
        CHECK_MSG(rc == CUTUNE_ERR_NOT_FOUND, "matmul without cuBLAS: rc %d, %s", rc, err.msg);
        CHECK_STR_CONTAINS(err.msg, "cuBLAS is not installed here");
        printf("%-10s %-16s no yardstick: %s\n", op, size, err.msg);
    } else {
        CHECK_MSG(rc == 0, "%s %s: %s", op, size, err.msg);
        CHECK_MSG(!strcmp(name, want_name), "%s: yardstick '%s', want '%s'", op, name, want_name);
        CHECK(ms > 0 && samples >= 2);
        double f = d->op->flops(&p), b = d->op->bytes(&p);
        printf("%-10s %-16s %-28s %9.4f ms  %4d samples  %8.1f GFLOP/s %8.1f GB/s\n", op, size,
               name, ms, samples, f / ms / 1e6, b / ms / 1e6);
    }
    cutune_worker_teardown(w);
}

int main(void)
{
    CutuneError err = {0};
    if (!gpu_present())
        return CHECK_SKIP;
    CutuneRegistry reg;
    CutuneWorker *w = NULL;
    CutuneDeviceInfo dev;
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    CHECK_MSG(cutune_worker_start(0, NULL, &w, &dev, &err) == 0, "%s", err.msg);
    if (w) {
        int arch = 10 * dev.cc_major + dev.cc_minor;
        printf("device 0: %s\n", dev.name);
        one(w, &reg, "matmul", "1000x1000x1000", "cuBLAS SGEMM", arch);
        one(w, &reg, "matmul", "4096x4096x4096", "cuBLAS SGEMM", arch);
        one(w, &reg, "matmul", "97x75x61", "cuBLAS SGEMM", arch);
        one(w, &reg, "transpose", "8192x8192", "cudaMemcpy device-to-device", arch);
        one(w, &reg, "reduce_sum", "268435456", "cudaMemcpy device-to-device", arch);
        one(w, &reg, "histogram", "268435456x1x1", "cudaMemcpy device-to-device", arch);
        CHECK_EQ_INT(cutune_worker_starts(w), 1); /* nothing broke the worker */
    }
    cutune_worker_stop(&w);
    cutune_registry_free(&reg);
    return check_result("gpu_yardstick");
}
