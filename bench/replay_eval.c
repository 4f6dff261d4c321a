/* replay_eval: replays search strategies on every recording of a folder (or the files
 * given) and prints one Markdown table per recording, then a summary of the default
 * strategy against the targets. CPU only: each proposal is answered from the recording.
 *
 *   build/bench/replay_eval [--seeds N] [--budgets 25,100,400] [--windows 18,1]
 *                           [--strategy random,annealing,...] PATH...
 *
 * A PATH that is a folder stands for its *.csv files, except the "-cartesian" ones (their
 * configs that the restrictions remove count as failed evaluations: another question).
 * The default strategy is replayed at every window; the others only at the first, since
 * they wait for the results of each batch and so propose the same at any window. Seeds
 * are 1..N for every strategy, random's first N draws included. */
#include "replay.h"
#include "strategy.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_LIST = 16, MAX_FILES = 256 };

typedef struct Eval {
    size_t budgets[MAX_LIST], nbudgets;
    size_t windows[MAX_LIST], nwindows;
    const CutuneStrategyOps *ops[MAX_LIST];
    size_t nops;
    size_t seeds;
    char *files[MAX_FILES];
    size_t nfiles;
} Eval;

static int parse_sizes(const char *text, size_t *out, size_t *n)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", text);
    *n = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        unsigned long long v = strtoull(t, &end, 10);
        if (*end || v == 0 || *n == MAX_LIST)
            return -1;
        out[(*n)++] = (size_t)v;
    }
    return *n ? 0 : -1;
}

static int parse_strategies(const char *text, Eval *e)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", text);
    e->nops = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const CutuneStrategyOps *x = cutune_strategy_find(t);
        if (!x || e->nops == MAX_LIST) {
            fprintf(stderr, "replay_eval: unknown strategy '%s'\n", t);
            return -1;
        }
        e->ops[e->nops++] = x;
    }
    return e->nops ? 0 : -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_path(Eval *e, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "replay_eval: no file or folder %s\n", path);
        return -1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        if (e->nfiles < MAX_FILES)
            e->files[e->nfiles++] = strdup(path);
        return 0;
    }
    DIR *d = opendir(path);
    if (!d)
        return -1;
    size_t first = e->nfiles;
    struct dirent *de;
    while ((de = readdir(d)) && e->nfiles < MAX_FILES) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".csv") != 0 ||
            strstr(de->d_name, "-cartesian") || strncmp(de->d_name, "published", 9) == 0)
            continue;
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", path, de->d_name);
        e->files[e->nfiles++] = strdup(file);
    }
    closedir(d);
    qsort(e->files + first, e->nfiles - first, sizeof *e->files, cmp_str);
    return 0;
}

/* The default's medians over the recordings, for the summary. */
typedef struct Summary {
    const char *name;
    double med[MAX_LIST][MAX_LIST]; /* [window][budget] */
    double rnd[MAX_LIST][MAX_LIST]; /* random's, same seeds and window */
} Summary;

/* The mean over the recordings of each strategy's median, per window and budget. */
typedef struct Means {
    char name[MAX_LIST * 2 + 1][48];
    double sum[MAX_LIST * 2 + 1][MAX_LIST];
    size_t count[MAX_LIST * 2 + 1], n;
} Means;

static void means_add(Means *m, const char *name, size_t window, const CutuneReplayStat *st,
                      size_t nbudgets)
{
    char key[48]; /* window 0: a strategy that proposes the same at any window */
    if (window)
        snprintf(key, sizeof key, "%s, window %zu", name, window);
    else
        snprintf(key, sizeof key, "%s", name);
    size_t i = 0;
    while (i < m->n && strcmp(m->name[i], key) != 0)
        i++;
    if (i == m->n) {
        if (m->n == sizeof m->name / sizeof m->name[0])
            return;
        snprintf(m->name[m->n++], sizeof m->name[0], "%s", key);
    }
    for (size_t b = 0; b < nbudgets; b++)
        m->sum[i][b] += st[b].median;
    m->count[i]++;
}

/* A table's header: the columns before the budgets (e.g. "| strategy |" with its rule
 * "|---|"), then a column per budget. */
static void print_header(const Eval *e, const char *columns, const char *rule)
{
    printf("%s", columns);
    for (size_t b = 0; b < e->nbudgets; b++)
        printf(" %zu |", e->budgets[b]);
    printf("\n%s", rule);
    for (size_t b = 0; b < e->nbudgets; b++)
        printf("---|");
    printf("\n");
}

static void print_means(const Eval *e, const Means *m)
{
    printf("\n### Mean over the recordings of the median fraction of the optimum\n\n");
    print_header(e, "| strategy |", "|---|");
    for (size_t i = 0; i < m->n; i++) {
        printf("| %s |", m->name[i]);
        for (size_t b = 0; b < e->nbudgets; b++)
            printf(" %.4f |", m->sum[i][b] / (double)m->count[i]);
        printf("\n");
    }
}

static void print_summary(const Eval *e, const Summary *sum, size_t n)
{
    const char *def = cutune_strategy_default_search;
    printf("\n### %s against the targets\n\n", def);
    printf("Median fraction of the optimum over %zu seeds; targets: >= 0.98 at 100 evaluations, "
           ">= 0.995 at 400, and never below random (the median of random search over the same "
           "seeds) at any budget. `!` marks a miss.\n\n",
           e->seeds);
    print_header(e, "| recording | window |", "|---|---|");
    for (size_t f = 0; f < n; f++)
        for (size_t w = 0; w < e->nwindows; w++) {
            printf("| %s | %zu |", sum[f].name, e->windows[w]);
            for (size_t b = 0; b < e->nbudgets; b++) {
                double m = sum[f].med[w][b], r = sum[f].rnd[w][b];
                size_t B = e->budgets[b];
                int miss = m < r - 1e-9 || (B == 100 && m < 0.98) || (B == 400 && m < 0.995);
                printf(" %.3f%s |", m, miss ? " !" : "");
            }
            printf("\n");
        }
}

int main(int argc, char **argv)
{
    Eval e;
    memset(&e, 0, sizeof e);
    e.seeds = 50;
    parse_sizes("25,100,400", e.budgets, &e.nbudgets);
    parse_sizes("18,1", e.windows, &e.nwindows);
    char list[256];
    snprintf(list, sizeof list, "%s,random,annealing,ils,genetic,tpe",
             cutune_strategy_default_search);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--seeds") == 0 && v) {
            e.seeds = (size_t)strtoull(v, NULL, 10);
            i++;
        } else if (strcmp(a, "--budgets") == 0 && v) {
            if (parse_sizes(v, e.budgets, &e.nbudgets))
                return 2;
            i++;
        } else if (strcmp(a, "--windows") == 0 && v) {
            if (parse_sizes(v, e.windows, &e.nwindows))
                return 2;
            i++;
        } else if (strcmp(a, "--strategy") == 0 && v) {
            snprintf(list, sizeof list, "%s", v);
            i++;
        } else if (a[0] == '-') {
            fprintf(stderr, "usage: replay_eval [--seeds N] [--budgets LIST] [--windows LIST] "
                            "[--strategy LIST] PATH...\n");
            return 2;
        } else if (add_path(&e, a)) {
            return 1;
        }
    }
    /* the strategies that are not random, and duplicates, once each; random is the baseline */
    char uniq[256] = "";
    {
        char buf[256], *save = NULL;
        snprintf(buf, sizeof buf, "%s", list);
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char key[80];
            snprintf(key, sizeof key, ",%s,", t);
            char have[260];
            snprintf(have, sizeof have, ",%s,", uniq);
            if (strcmp(t, "random") != 0 && !strstr(have, key))
                snprintf(uniq + strlen(uniq), sizeof uniq - strlen(uniq), "%s%s",
                         uniq[0] ? "," : "", t);
        }
    }
    if (parse_strategies(uniq, &e) || e.nfiles == 0 || e.seeds == 0) {
        fprintf(stderr, "replay_eval: give strategies, seeds and at least one recording\n");
        return 2;
    }
    Summary *sum = calloc(e.nfiles, sizeof *sum);
    Means *means = calloc(1, sizeof *means);
    CutuneReplayStat *st = calloc(e.nbudgets, sizeof *st), *rst = calloc(e.nbudgets, sizeof *rst);
    int rc = 0;
    if (!sum || !st || !rst || !means)
        return 1;
    for (size_t f = 0; f < e.nfiles && !rc; f++) {
        CutuneRecording r;
        CutuneError err = {0};
        if (cutune_recording_load(e.files[f], NULL, NULL, NULL, NULL, &r, &err)) {
            fprintf(stderr, "replay_eval: %s\n", err.msg);
            rc = 1;
            break;
        }
        const char *base = strrchr(e.files[f], '/');
        sum[f].name = base ? base + 1 : e.files[f];
        printf("\n#### %s: %s %s on %s, %zu configs (%zu ok)\n\n", sum[f].name, r.variant, r.size,
               r.device, r.configs.nconfigs, r.nok);
        printf("| strategy | window |");
        for (size_t b = 0; b < e.nbudgets; b++)
            printf(" %zu |", e.budgets[b]);
        printf("\n|---|---|");
        for (size_t b = 0; b < e.nbudgets; b++)
            printf("---|");
        printf("\n");
        for (size_t w = 0; w < e.nwindows && !rc; w++) {
            size_t win = e.windows[w];
            if (cutune_replay_stats(&cutune_strategy_random, &r, 1, e.seeds, e.budgets, e.nbudgets,
                                    win, NULL, 0, rst, &err)) {
                rc = 1;
                break;
            }
            if (w == 0) { /* random does not depend on the window */
                means_add(means, "random", 0, rst, e.nbudgets);
                printf("| random | - |");
                for (size_t b = 0; b < e.nbudgets; b++)
                    printf(" %.3f [%.3f-%.3f] |", rst[b].median, rst[b].p25, rst[b].p75);
                printf("\n");
            }
            for (size_t s = 0; s < e.nops && !rc; s++) {
                if (w > 0 && strcmp(e.ops[s]->name, cutune_strategy_default_search) != 0)
                    continue;
                if (cutune_replay_stats(e.ops[s], &r, 1, e.seeds, e.budgets, e.nbudgets, win, NULL,
                                        0, st, &err)) {
                    rc = 1;
                    break;
                }
                int def = strcmp(e.ops[s]->name, cutune_strategy_default_search) == 0;
                means_add(means, e.ops[s]->name, def ? win : 0, st, e.nbudgets);
                printf("| %s | %zu |", e.ops[s]->name, win);
                for (size_t b = 0; b < e.nbudgets; b++) {
                    printf(" %.3f [%.3f-%.3f] |", st[b].median, st[b].p25, st[b].p75);
                    if (strcmp(e.ops[s]->name, cutune_strategy_default_search) == 0) {
                        sum[f].med[w][b] = st[b].median;
                        sum[f].rnd[w][b] = rst[b].median;
                    }
                }
                printf("\n");
                fflush(stdout);
            }
        }
        if (rc)
            fprintf(stderr, "replay_eval: %s: %s\n", e.files[f], err.msg);
        cutune_recording_free(&r);
    }
    if (!rc) {
        print_means(&e, means);
        print_summary(&e, sum, e.nfiles);
    }
    for (size_t f = 0; f < e.nfiles; f++)
        free(e.files[f]);
    free(sum);
    free(means);
    free(st);
    free(rst);
    return rc;
}
