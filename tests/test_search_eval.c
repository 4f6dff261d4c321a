/* The default search on tuning spaces recorded by others (Kernel Tuner caches of GEMM,
 * convolution, dedispersion and pnpoly on five GPUs, converted to cutune recordings), read
 * in place from $CUTUNE_SEARCH_EVAL_DATA; skipped (77) where that folder is absent. Needs
 * no GPU.
 *
 * On every recording but the "-cartesian" ones, replayed as `cutune run` asks (18 proposals
 * in flight on a 16-core host), over SEEDS seeds (bench/replay_eval runs 50):
 * - the median fraction of the optimum is never below random sampling's, at 25, 100 and 400
 *   evaluations (by more than 0.002: on the sch22 pnpoly spaces, where 4% and 19% of the
 *   configs are within 0.98 of the optimum, both reach 0.99 at 100 and the seeds decide);
 * - at 400 evaluations it is at least 0.995, but on sch22-convolution-a100.csv: there the
 *   optimum is a single config, every neighbour of it reaches at most 0.82 of it, no other
 *   config reaches 0.98, and steepest descent reaches it from 1.1% of the space (the best
 *   of fourteen methods in the paper the data comes from found 0.90 at 400);
 * - at 100 evaluations it is at least 0.75 (with 18 in flight, 18 of the first 100 are
 *   blind, and the others see results 18 proposals late: bench/results/replay/ gives each
 *   recording's figure, bench/RESULTS.md where 0.98 is missed; the lowest, 0.78 to 0.86, is on
 *   hub-convolution_milo-a100.csv, whose optimum is 1.07 times faster than any other
 *   config). */
#include "check.h"
#include "replay.h"
#include "strategy.h"
#include "util.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEEDS = 25, WINDOW = 18 };

static double median(const CutuneStrategyOps *ops, const CutuneRecording *r, size_t budget)
{
    double f[SEEDS];
    for (size_t k = 0; k < SEEDS; k++) {
        double found;
        size_t np;
        CutuneError e = {0};
        int rc = cutune_replay_once(ops, r, 1 + k, budget, WINDOW, NULL, 0, &found, &np, NULL, NULL,
                                    &e);
        CHECK_MSG(rc == 0, "%s: %s", ops->name, e.msg);
        f[k] = rc == 0 && found > 0 ? r->best_ms / found : 0;
    }
    qsort(f, SEEDS, sizeof *f, cutune_cmp_double);
    return 0.5 * (f[(SEEDS - 1) / 2] + f[SEEDS / 2]);
}

static void space(const char *name, const CutuneRecording *r)
{
    const CutuneStrategyOps *def = cutune_strategy_find(cutune_strategy_default_search);
    const size_t budgets[] = {25, 100, 400};
    printf("%-36s %6zu configs:", name, r->configs.nconfigs);
    for (size_t k = 0; k < 3; k++) {
        size_t b = budgets[k];
        double m = median(def, r, b), mr = median(&cutune_strategy_random, r, b);
        printf("  %zu: %.3f (random %.3f)", b, m, mr);
        CHECK_MSG(m >= mr - 0.002, "%s on %s: median %.3f at %zu evaluations, random %.3f",
                  def->name, name, m, b, mr);
        double want = b == 400   ? (strcmp(name, "sch22-convolution-a100.csv") ? 0.995 : 0.88)
                      : b == 100 ? 0.75
                                 : 0;
        CHECK_MSG(m >= want, "%s on %s: median %.3f at %zu evaluations, under %.3f", def->name,
                  name, m, b, want);
    }
    printf("\n");
}

int main(void)
{
    const char *dir = getenv("CUTUNE_SEARCH_EVAL_DATA");
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) {
        printf("no folder %s: skipped\n", dir ? dir : "($CUTUNE_SEARCH_EVAL_DATA unset)");
        return 77;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    char *names[256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 256) {
        size_t len = strlen(de->d_name);
        if (len > 4 && strcmp(de->d_name + len - 4, ".csv") == 0 &&
            !strstr(de->d_name, "-cartesian") && strncmp(de->d_name, "published", 9) != 0)
            names[n++] = strdup(de->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        CutuneRecording r;
        CutuneError e = {0};
        int rc = cutune_recording_load(path, NULL, NULL, NULL, NULL, &r, &e);
        CHECK_MSG(rc == 0, "%s", e.msg);
        if (rc == 0) {
            space(names[i], &r);
            cutune_recording_free(&r);
        }
        free(names[i]);
    }
    CHECK_MSG(n > 0, "no recording in %s", dir);
    return check_result("search_eval");
}
