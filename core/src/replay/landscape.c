/* A synthetic benchmark landscape for testing strategies where no large recorded space
 * exists (see replay.h). Shaped after GEMM tuning spaces: pow2-like parameters, a
 * constraint that cuts the product down to about ten thousand configs, a smooth bowl
 * with interactions whose optimum sits near a resource limit, rugged terms, and failed
 * configs both in structured regions (too many resources) and scattered (compile errors,
 * wrong results). */
#include "replay.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LP = 7 };
static const int levels[LP] = {6, 6, 5, 5, 4, 4, 3};

/* One splitmix64 step from z: a pure function of its key. */
static uint64_t mix(uint64_t z)
{
    return cutune_splitmix64(&z);
}

/* A normal deviate from two hashed uniforms (Box-Muller): pure function of its key. */
static double gauss(uint64_t key)
{
    double u = ((double)(mix(key) >> 11) + 0.5) * 0x1p-53;
    double v = (double)(mix(key ^ 0xabcdefULL) >> 11) * 0x1p-53;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

int cutune_landscape_generate(uint64_t seed, CutuneRecording *out)
{
    memset(out, 0, sizeof *out);
    uint64_t k = mix(seed);
    /* two basins with their own centres; the second is a little slower at its best */
    double centre[2][LP], curv[LP], inter[LP][LP], quirk[LP][8];
    for (int j = 0; j < LP; j++) {
        /* the main optimum leans to large values of the first parameters, like big tiles */
        centre[0][j] = (levels[j] - 1) * (j < 2 ? 0.75 : 0.5) + 0.8 * gauss(k + 1000 + (uint64_t)j);
        centre[1][j] = (levels[j] - 1) * 0.3 + 1.0 * gauss(k + 1500 + (uint64_t)j);
        curv[j] = 0.03 + 0.05 * fabs(gauss(k + 2000 + (uint64_t)j));
        for (int v = 0; v < 8; v++)
            quirk[j][v] = 0.06 * gauss(k + 3000 + (uint64_t)(8 * j + v));
        for (int i = 0; i < LP; i++)
            inter[j][i] = 0.03 *
                          gauss(k + 4000 + (uint64_t)(LP * (j < i ? j : i) + (j < i ? i : j)));
    }
    size_t total = 1;
    for (int j = 0; j < LP; j++)
        total *= (size_t)levels[j];
    out->nparams = LP;
    out->param_names = calloc(LP, sizeof *out->param_names);
    out->configs.nparams = LP;
    out->configs.values = malloc(total * LP * sizeof *out->configs.values);
    out->status = malloc(total * sizeof *out->status);
    out->median_ms = malloc(total * sizeof *out->median_ms);
    if (!out->param_names || !out->configs.values || !out->status || !out->median_ms) {
        cutune_recording_free(out);
        return CUTUNE_ERR_NOMEM;
    }
    for (int j = 0; j < LP; j++)
        snprintf(out->param_names[j], CUTUNE_NAME_MAX, "P%d", j);
    snprintf(out->device, sizeof out->device, "synthetic landscape, seed %llu",
             (unsigned long long)seed);
    snprintf(out->variant, sizeof out->variant, "synthetic");
    snprintf(out->size, sizeof out->size, "-");
    snprintf(out->source, sizeof out->source, "cutune_landscape_generate(%llu)",
             (unsigned long long)seed);
    size_t n = 0;
    for (size_t code = 0; code < total; code++) {
        int lv[LP];
        size_t c = code;
        for (int j = LP - 1; j >= 0; j--) {
            lv[j] = (int)(c % (size_t)levels[j]);
            c /= (size_t)levels[j];
        }
        /* the constraint: a tile budget (shared memory) */
        if (lv[0] + lv[1] + lv[2] > 7 || lv[3] + lv[4] > 4)
            continue;
        double basin[2];
        for (int m = 0; m < 2; m++) {
            double lt = m ? 0.08 : 0;
            for (int j = 0; j < LP; j++) {
                double d = lv[j] - centre[m][j];
                lt += curv[j] * d * d;
                for (int i = 0; i < j; i++)
                    lt += inter[j][i] * d * (lv[i] - centre[m][i]);
            }
            basin[m] = lt;
        }
        double lt = fmin(basin[0], basin[1]);
        for (int j = 0; j < LP; j++)
            lt += quirk[j][lv[j]];
        lt += 0.04 * gauss(k ^ (code * 0x9e37ULL + 77)); /* per-config ruggedness */
        int64_t *row = out->configs.values + n * LP;
        for (int j = 0; j < LP; j++)
            row[j] = (int64_t)1 << lv[j];
        uint64_t h = mix(k ^ (code + 0x5555ULL));
        int status = CUTUNE_STATUS_OK;
        if (lv[0] + lv[1] + lv[5] >= 10)
            status = CUTUNE_STATUS_SKIPPED_RESOURCES; /* too many registers */
        else if (h % 1000 < 15)
            status = CUTUNE_STATUS_COMPILE_ERROR;
        else if (h % 1000 < 20)
            status = CUTUNE_STATUS_WRONG_RESULT;
        out->status[n] = status;
        out->median_ms[n] = status == CUTUNE_STATUS_OK ? exp(lt) : 0;
        if (status == CUTUNE_STATUS_OK) {
            out->nok++;
            if (!(out->best_ms > 0) || out->median_ms[n] < out->best_ms)
                out->best_ms = out->median_ms[n];
        } else {
            out->nfailed++;
        }
        n++;
    }
    out->configs.nconfigs = n;
    return 0;
}
