/* The register-blocked matmul variants on a GPU (exit 77 without one): a seeded random
 * sample of each space on awkward sizes (primes, 1, edges that cut every tile, a non-square
 * shape). Every sampled config of a valid space must be correct: the spaces' constraints
 * promise that whatever they list compiles, launches and computes the right result.
 * Then the tensor-core variants with the bias epilogue (C = A B + bias, "-bias"): a sample
 * at sizes of both layouts, with edges, a decode shape and split-K, each checked against
 * ref + bias by the op; none may be wrong (a bias left out, or added twice, by any epilogue
 * path: every vector width, split-K's cluster reduction, TMA or not). */
#include "check.h"
#include "gpu_test.h"
#include "device.h"
#include "tune.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SAMPLE = 48 };

int main(void)
{
    char db[PATH_MAX];
    int start = gpu_test_start("cutune-gpu-matmul", NULL, db, sizeof db);
    if (start)
        return start;
    static const char *const sizes[] = {"97x75x61", "1x1x1", "257x129x67", "1000x1000x1000",
                                        "33x4096x130"};
    static const char *const variants[] = {"matmul_reg1d", "matmul_reg2d", "matmul_warptile",
                                           "matmul_async"};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        CutuneTuneOptions o = gpu_tune_options("matmul", variants[v], sizes,
                                               sizeof sizes / sizeof sizes[0], db, 0.05);
        o.strategy = "random";
        o.budget = SAMPLE;
        o.seed = (uint64_t)getpid() + v;
        CutuneTuneSummary sum;
        gpu_tune(&o, &sum);
        CHECK_EQ_INT(sum.nrows, o.nsizes);
        for (size_t i = 0; i < sum.nrows; i++) {
            const CutuneTuneRow *r = &sum.rows[i];
            size_t want = r->nvalid < SAMPLE ? r->nvalid : SAMPLE;
            CHECK_MSG(r->evaluated == want && r->count[CUTUNE_STATUS_OK] == want,
                      "%s %s: %zu ok of %zu evaluated (%zu wanted); wrong %zu, compile %zu, "
                      "launch %zu, skipped %zu",
                      r->variant, r->size, r->count[CUTUNE_STATUS_OK], r->evaluated, want,
                      r->count[CUTUNE_STATUS_WRONG_RESULT], r->count[CUTUNE_STATUS_COMPILE_ERROR],
                      r->count[CUTUNE_STATUS_LAUNCH_ERROR],
                      r->count[CUTUNE_STATUS_SKIPPED_RESOURCES]);
            printf("%-16s %-16s %zu/%zu ok, best %.4f ms %s\n", r->variant, r->size,
                   r->count[CUTUNE_STATUS_OK], r->evaluated, r->best_ms, r->best_config);
        }
        cutune_tune_summary_free(&sum);
    }
    static const char *const bias_sizes[] = {"256x512x384-bf16-nt-bias", "200x136x520-fp16-nn-bias",
                                             "64x4096x4096-bf16-nt-bias",
                                             "4096x1024x1024-bf16-nt-bias"};
    static const char *const bias_variants[] = {"matmul_mma", "matmul_wgmma", "matmul_cublaslt"};
    for (size_t v = 0; v < sizeof bias_variants / sizeof bias_variants[0]; v++) {
        CutuneTuneOptions o = gpu_tune_options("matmul", bias_variants[v], bias_sizes,
                                               sizeof bias_sizes / sizeof bias_sizes[0], db, 0.05);
        o.strategy = "random";
        o.budget = SAMPLE;
        o.seed = (uint64_t)getpid() + 100 + v;
        CutuneTuneSummary sum;
        gpu_tune(&o, &sum);
        for (size_t i = 0; i < sum.nrows; i++) {
            const CutuneTuneRow *r = &sum.rows[i];
            /* (matmul_wgmma is tuned on sm_90 alone: elsewhere it has no row) */
            CHECK_MSG(r->count[CUTUNE_STATUS_WRONG_RESULT] == 0 &&
                          r->count[CUTUNE_STATUS_COMPILE_ERROR] == 0 &&
                          r->count[CUTUNE_STATUS_LAUNCH_ERROR] == 0 &&
                          r->count[CUTUNE_STATUS_OK] > 0,
                      "%s %s (bias): %zu ok of %zu evaluated; wrong %zu, compile %zu, launch %zu, "
                      "skipped %zu",
                      r->variant, r->size, r->count[CUTUNE_STATUS_OK], r->evaluated,
                      r->count[CUTUNE_STATUS_WRONG_RESULT], r->count[CUTUNE_STATUS_COMPILE_ERROR],
                      r->count[CUTUNE_STATUS_LAUNCH_ERROR],
                      r->count[CUTUNE_STATUS_SKIPPED_RESOURCES]);
            printf("%-16s %-28s %zu/%zu ok, best %.4f ms %s\n", r->variant, r->size,
                   r->count[CUTUNE_STATUS_OK], r->evaluated, r->best_ms, r->best_config);
        }
        cutune_tune_summary_free(&sum);
    }
    return gpu_test_end("gpu_matmul");
}
