/* bench_memory: the memory-bound ops (transpose, matadd, reduce_sum, histogram, topk). For
 * each op and size: the best tuned config of each variant from the database, re-checked
 * and re-timed in this process (cutune_reevaluate), next to the vendor baseline on the same
 * data (the op's own setup with the same seed) and cudaMemcpy device-to-device of the op's
 * input, on the same GPU:
 *   transpose, matadd  cudaMemcpy D2D (read + write counted)
 *   reduce_sum         cub::DeviceReduce::Sum
 *   histogram          cub::DeviceHistogram::HistogramEven (256 bins)
 *   topk               cub::DeviceRadixSort, descending, keys with indices and keys alone
 *                      (CUDA 13.0's CCCL offers no device top-k)
 *
 *   bench_memory --db PATH [--device N] [--seed N] [OP=SIZE]...
 *
 * Without OP=SIZE arguments it runs the sizes. GB/s is the op's bytes per launch
 * (each input read once, each output written once) over the median time; a baseline's GB/s
 * counts its own traffic the same way. */
#include "bench_common.h"
#include "db.h"
#include "device.h"
#include "host.h"
#include "measure.h"
#include "registry.h"
#include "reeval.h"
#include "util.h"
#include "vendor_baselines.h"

#include "histogram/histogram.h"
#include "matadd/matadd.h"
#include "reduce_sum/reduce_sum.h"
#include "topk/topk.h"
#include "transpose/transpose.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const default_cases[] = {
    "transpose=8192x8192",     "matadd=8192x8192",        "reduce_sum=268435456",
    "histogram=268435456x1x1", "histogram=268435456x1x2", "histogram=268435456x4x1",
    "histogram=268435456x4x2", "topk=268435456x1024",
};

typedef struct Baseline {
    char name[96];
    double ms, bytes; /* ms < 0: it failed */
    char note[160];
} Baseline;

/* The op's code, linked in: its setup gives the data the plugin tunes on. */
static const CutuneOp *op_code(const char *op)
{
    return !strcmp(op, "transpose")    ? cutune_op_transpose()
           : !strcmp(op, "matadd")     ? cutune_op_matadd()
           : !strcmp(op, "reduce_sum") ? cutune_op_reduce_sum()
           : !strcmp(op, "histogram")  ? cutune_op_histogram()
           : !strcmp(op, "topk")       ? cutune_op_topk()
                                       : NULL;
}

/* Set up the op's data with the op's own code, and time the baselines on it. */
static int run_baselines(const char *op, const CutuneProblem *p, uint64_t seed,
                         const CutuneDeviceInfo *dev, Baseline *b, int *nb, double *memcpy_gbps)
{
    CutuneError err = {0};
    CutuneHostCtx hc;
    char cache[4096];
    if (cutune_cache_dir(cache, sizeof cache, &err)) {
        fprintf(stderr, "bench_memory: %s\n", err.msg);
        return -1;
    }
    cutune_host_init(&hc, 10 * dev->cc_major + dev->cc_minor, cache, &err);
    void *state = NULL;
    const void *input = NULL;
    size_t input_bytes = 0;
    int rc = -1;
    long long n = p->dim[0];
    *nb = 0;
    const CutuneOp *code = op_code(op);
    if (!code || code->setup(&hc.host, p, seed, &state) != 0)
        state = NULL;
    else if (!strcmp(op, "transpose")) {
        input = transpose_device_input(state);
        input_bytes = 4 * (size_t)p->dim[0] * (size_t)p->dim[1];
    } else if (!strcmp(op, "matadd")) {
        input = matadd_device_input(state, 0);
        input_bytes = 4 * (size_t)p->dim[0] * (size_t)p->dim[1];
    } else if (!strcmp(op, "reduce_sum")) {
        input = reduce_device_input(state);
        input_bytes = 4 * (size_t)n;
    } else if (!strcmp(op, "histogram")) {
        input = histogram_device_input(state);
        input_bytes = (size_t)n * (size_t)p->dim[1];
    } else if (!strcmp(op, "topk")) {
        input = topk_device_input(state);
        input_bytes = 4 * (size_t)n;
    }
    if (!input) {
        fprintf(stderr, "bench_memory: setting up %s failed: %s\n", op,
                err.msg[0] ? err.msg : "unknown op");
        goto out;
    }
    double ms = vb_memcpy_d2d(input, input_bytes);
    *memcpy_gbps = ms > 0 ? 2.0 * input_bytes / ms / 1e6 : 0;
    if (!strcmp(op, "transpose") || !strcmp(op, "matadd")) {
        b[(*nb)++] = (Baseline){"cudaMemcpy D2D of one matrix", ms, 2.0 * input_bytes, ""};
    } else if (!strcmp(op, "reduce_sum")) {
        float sum = 0;
        Baseline *r = &b[(*nb)++];
        *r = (Baseline){"cub::DeviceReduce::Sum", vb_reduce_sum(input, n, &sum), 4.0 * n + 4, ""};
        snprintf(r->note, sizeof r->note, "its sum %.9g, double reference %.9g", (double)sum,
                 reduce_reference(state));
    } else if (!strcmp(op, "histogram")) {
        unsigned bins[HISTOGRAM_BINS];
        Baseline *r = &b[(*nb)++];
        *r = (Baseline){"cub::DeviceHistogram::HistogramEven", 0,
                        (double)input_bytes + 4.0 * HISTOGRAM_BINS, ""};
        r->ms = p->dim[1] == 4 ? vb_histogram_f32(input, n, bins) : vb_histogram_u8(input, n, bins);
        const unsigned *ref = histogram_reference(state);
        int differ = 0;
        for (int i = 0; i < HISTOGRAM_BINS; i++)
            differ += bins[i] != ref[i];
        snprintf(r->note, sizeof r->note, "its bins %s the reference%s",
                 differ ? "differ from" : "equal", differ ? " (bin edges rounded otherwise)" : "");
    } else if (!strcmp(op, "topk")) {
        double bytes = 4.0 * n + 8.0 * p->dim[1];
        b[(*nb)++] = (Baseline){"cub::DeviceRadixSort pairs (full sort)",
                                vb_radix_sort(input, n, 1), bytes, ""};
        b[(*nb)++] = (Baseline){"cub::DeviceRadixSort keys (full sort)", vb_radix_sort(input, n, 0),
                                bytes, ""};
    }
    rc = 0;
out:
    if (state)
        code->teardown(&hc.host, state);
    cutune_host_release(&hc);
    return rc;
}

/* One op at one size: baselines, then each variant's best config. Returns failures. */
static int bench_case(const char *text, const CutuneRegistry *reg, CutuneDb *db,
                      const CutuneDeviceInfo *dev, uint64_t seed)
{
    char op[64];
    const char *eq = strchr(text, '=');
    if (!eq || (size_t)(eq - text) >= sizeof op) {
        fprintf(stderr, "bench_memory: '%s' is not OP=SIZE\n", text);
        return 1;
    }
    memcpy(op, text, (size_t)(eq - text));
    op[eq - text] = '\0';
    const CutuneVariantDef *first = NULL;
    cutune_registry_variants_of(reg, op, NULL, &first, 1);
    CutuneProblem p;
    CutuneError err = {0};
    char size[64];
    if (!first || cutune_variant_problem(first, eq + 1, &p, &err)) {
        fprintf(stderr, "bench_memory: %s: %s%s\n", text, first ? "" : "no variant of this op ",
                err.msg);
        return 1;
    }
    cutune_problem_format(&p, size, sizeof size);
    double bytes = cutune_variant_bytes(first, &p);
    printf("\n== %s %s (%.0f bytes per launch)\n", op, size, bytes);
    Baseline base[4];
    int nb = 0;
    double memcpy_gbps = 0;
    if (run_baselines(op, &p, seed, dev, base, &nb, &memcpy_gbps))
        return 1;
    printf("   cudaMemcpy D2D of the input, read + write: %.1f GB/s\n", memcpy_gbps);
    for (int i = 0; i < nb; i++)
        printf("   baseline %-40s %9.4f ms %8.1f GB/s  %s\n", base[i].name, base[i].ms,
               base[i].ms > 0 ? base[i].bytes / base[i].ms / 1e6 : 0.0, base[i].note);
    double base_gbps = nb && base[0].ms > 0 ? base[0].bytes / base[0].ms / 1e6 : 0;
    printf("   %-20s %9s %8s %8s %9s  %s\n", "variant", "ms", "GB/s", "%memcpy", "%baseline",
           "config");
    int failures = 0;
    for (size_t i = 0; i < reg->nvariants; i++) {
        const CutuneVariantDef *pl = reg->variants[i];
        if (strcmp(pl->op_name, op))
            continue;
        CutuneBest b;
        cutune_error_clear(&err);
        if (cutune_db_best_of_variant(db, dev->uuid, op, size, pl->name, pl->version, &b, &err)) {
            printf("   %-20s %9s  (no verified trial in the database)\n", pl->name, "-");
            failures += err.code != CUTUNE_ERR_NOT_FOUND;
            continue;
        }
        CutuneEvalResult res;
        cutune_error_clear(&err);
        if (bench_reevaluate(pl, dev, b.config, &p, seed, &res, &err) ||
            res.status != CUTUNE_STATUS_OK) {
            printf("   %-20s %9s  %s: %s %s\n", pl->name, "FAILED", b.config,
                   err.msg[0] ? err.msg : cutune_status_name(res.status),
                   err.msg[0] ? "" : res.message);
            failures++;
            continue;
        }
        double gbps = bytes / res.median_ms / 1e6;
        printf("   %-20s %9.4f %8.1f %7.1f%% %8.1f%%  %s\n", pl->name, res.median_ms, gbps,
               memcpy_gbps > 0 ? 100.0 * gbps / memcpy_gbps : 0.0,
               base_gbps > 0 ? 100.0 * gbps / base_gbps : 0.0, b.config);
        fflush(stdout);
    }
    return failures;
}

int main(int argc, char **argv)
{
    BenchOptions o = BENCH_OPTIONS_DEFAULT;
    const char *cases[64];
    int ncases = 0;
    const char *usage = "usage: bench_memory --db PATH [--device N] [--seed N] [OP=SIZE]...\n";
    int bad = bench_parse(argc, argv, usage, NULL, NULL, cases, 64, &ncases, &o);
    if (bad)
        return bad;
    if (ncases == 0)
        for (size_t i = 0; i < sizeof default_cases / sizeof default_cases[0]; i++)
            cases[ncases++] = default_cases[i];
    Bench bench;
    int opened = bench_open("bench_memory", &o, &bench);
    if (opened)
        return opened;
    int failures = 0;
    for (int i = 0; i < ncases; i++)
        failures += bench_case(cases[i], &bench.reg, bench.db, &bench.dev, o.seed);
    bench_close(&bench);
    return failures ? 1 : 0;
}
