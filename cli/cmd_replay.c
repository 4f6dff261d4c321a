/* cutune replay: run search strategies against a recorded exhaustive run. Needs no GPU. */
#include "cli.h"
#include "csv.h"
#include "json.h"
#include "outfile.h"
#include "registry.h"
#include "utf8.h"
#include "replay.h"
#include "replay_svg.h"
#include "score.h"
#include "space.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cutune replay FILE [options]\n"
    "       cutune replay --synthetic SEED [options]\n"
    "\n"
    "Run search strategies against the recorded trials of an exhaustive run, with no GPU\n"
    "and no compilation: each config a strategy proposes is answered with its recorded\n"
    "status and median time, and costs one evaluation. For each budget, each strategy is\n"
    "replayed with --seeds seeds; the result is the fraction of the optimum reached:\n"
    "(best time of the whole recording) / (best time among the strategy's proposals), 0\n"
    "if none of them was ok: its median, 10th percentile (the unlucky tail) and quartiles\n"
    "over the seeds. Random sampling is the baseline.\n"
    "\n"
    "--score adds the methodology score of Willemsen et al. (FGCS 2024) per strategy: at 12\n"
    "budgets spread over the range where random search is expected to go from the median of\n"
    "the space to within 4% of the optimum's distance to it, the median best time over the\n"
    "seeds S(M) against calculated random search R(M) (the time its best of M draws without\n"
    "replacement is expected to reach): (R(M) - S(M)) / (R(M) - optimum), averaged over\n"
    "the budgets. 0 is as good as random search, 1 the optimum at every budget, below 0\n"
    "worse than random. It needs an exhaustive recording with at least 2 ok configs.\n"
    "\n"
    "FILE is a cutune database (SQLite) or a CSV recording (tests/data/recordings/). The\n"
    "strategies search the valid configs of the variant's tuning space for that size\n"
    "(sm_90 limits), as `cutune run` would; a valid config that the recording lacks counts\n"
    "as a failed evaluation (it is reported as 'not recorded'). Without the space file,\n"
    "or with --no-space, the recorded configs are the space. A config measured several\n"
    "times gets the median of its medians, and is ok only if every trial was ok. From a\n"
    "database, the trials of the newest version of the variant (kernel source) are read.\n"
    "A database also gives each config's compile time (the mean of its trials'), and a\n"
    "second table gives what each strategy's proposals took to compile: on a host where\n"
    "compiles bound the run, its time and hence its configs/s (a CSV has no compile times).\n"
    "--synthetic SEED replays a generated landscape of about 10^4 configs instead.\n"
    "\n"
    "options:\n"
    "  --variant NAME     the variant (needed for a database; a CSV names it)\n"
    "  --size S           the problem size, e.g. 4096x4096x4096 (likewise)\n"
    "  --device D         a part of the device name, or its UUID, when the database holds\n"
    "                     that variant and size for several devices\n"
    "  --strategy LIST    comma-separated strategies (default: every one but exhaustive;\n"
    "                     random is always added as the baseline)\n"
    "  --seeds N          replays per strategy and budget (default 30)\n"
    "  --seed N           the first seed; the others follow (default 1)\n"
    "  --budgets LIST     evaluations, comma-separated, increasing (default 25,50,100,200,400);\n"
    "                     (the default's budgets above the number of configs are the whole\n"
    "                     space; a budget given here must not exceed it)\n"
    "  --window N         proposals asked ahead of feedback, as `cutune run` does with its\n"
    "                     compile threads (default 18, a 16-core host's)\n"
    "  --start-from FILE  a warm start, as `cutune run` takes one from other sizes or\n"
    "                     devices: the --start-best fastest configs of FILE, another\n"
    "                     recording of the same space (another device or size), are\n"
    "                     proposed first (and count as evaluations). Starting from the\n"
    "                     optimum of the replayed recording itself would flatter every\n"
    "                     strategy, hence another file\n"
    "  --start-best K     how many configs --start-from gives (default 5)\n"
    "  --no-space         search the recorded configs, not the tuning space\n"
    "  --score            also the methodology score of each strategy (see above)\n"
    "  --json             print JSON instead of the table\n"
    "  --csv PATH         also write the results as CSV (one row per strategy and budget)\n"
    "  --svg PATH         also plot the median fraction against evaluations (SVG)\n"
    "  --export-csv PATH  write the recording as CSV (a data set to commit) and stop\n"
    "                     (every PATH is written whole or not at all, and refused when it\n"
    "                     is FILE)\n"
    "  -h, --help         this text\n";

enum { MAX_STRATEGIES = 16, MAX_BUDGETS = 32 };
/* Ranges of the numeric options: far above any use, low enough that no size overflows. */
#define MAX_SEEDS 1000000
#define MAX_WINDOW 1000000
#define MAX_BUDGET 1000000000000ULL

/* The warm start of every replay: indices into the replayed recording's configs. */
typedef struct Start {
    size_t *idx, n;
    double best_fraction; /* the best of them, as a fraction of the recording's optimum */
} Start;

typedef struct Opts {
    const char *file, *variant, *size, *device, *strategies, *csv, *svg, *export_csv;
    const char *start_from;
    int synthetic, no_space, json, score;
    int budgets_given; /* --budgets was on the command line */
    uint64_t synthetic_seed, seed;
    size_t seeds, window, start_best;
    size_t budgets[MAX_BUDGETS], nbudgets;
} Opts;

/* --budgets: increasing evaluation counts, comma-separated. */
static int parse_budgets(const char *cmd, const char *opt, const char *text, void *user)
{
    Opts *o = user;
    (void)cmd;
    (void)opt;
    char *buf = strdup(text); /* any length: a list is never cut short */
    if (!buf)
        return cli_usage_error("replay", "out of memory reading --budgets");
    o->nbudgets = 0;
    char *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        size_t u;
        if (o->nbudgets == MAX_BUDGETS)
            rc = cli_usage_error("replay", "--budgets lists more than %d budgets", MAX_BUDGETS);
        else if ((rc = cli_parse_size("replay", "--budgets", tok, 1, MAX_BUDGET, &u)))
            ;
        else if (o->nbudgets && u <= o->budgets[o->nbudgets - 1])
            rc = cli_usage_error("replay", "--budgets must be increasing, got '%s'", text);
        else
            o->budgets[o->nbudgets++] = u;
    }
    free(buf);
    if (!rc && o->nbudgets == 0)
        rc = cli_usage_error("replay", "--budgets is empty");
    o->budgets_given = 1;
    return rc;
}

/* The variant's space, when the variant and its space file can be found; NULL otherwise,
 * with a note on stderr. */
static CutuneSpace *find_space(const char *variant)
{
    CutuneRegistry reg;
    memset(&reg, 0, sizeof reg);
    CutuneError err = {0};
    CutuneSpace *sp = NULL;
    const CutuneVariantDef *v = NULL;
    if (cutune_registry_load(&reg, &err) == 0 && (v = cutune_registry_find(&reg, variant)))
        cutune_variant_load_space(v, &sp, &err);
    if (!sp)
        fprintf(stderr, "cutune replay: %s; the recorded configs are the space\n",
                err.msg[0] ? err.msg : "no such variant installed");
    cutune_registry_free(&reg);
    return sp;
}

/* The scores of --score, for print_json and print_table: NULL members without it. */
typedef struct Scores {
    const CutuneScoreSpace *space;
    const CutuneScore *of; /* per strategy */
} Scores;

/* A strategy's score as JSON members: "score", and at each budget S(M), R(M) and score(M). */
static void json_score(CutuneJson *j, const CutuneScore *x)
{
    cutune_json_member_number(j, "score", x->score);
    cutune_json_key(j, "score_points");
    cutune_json_begin_array(j);
    for (size_t k = 0; k < x->nbudgets; k++) {
        cutune_json_begin_object(j);
        cutune_json_member_int(j, "budget", (int64_t)x->budgets[k]);
        cutune_json_member_number(j, "median_best_ms", x->found_ms[k]);
        cutune_json_member_number(j, "random_ms", x->random_ms[k]);
        cutune_json_member_number(j, "score", x->point[k]);
        cutune_json_end_object(j);
    }
    cutune_json_end_array(j);
}

static int print_json(const Opts *o, const CutuneRecording *r, const Start *st,
                      const char *const *names, const CutuneReplayStat *const *stats, size_t ns,
                      const Scores *sc)
{
    CutuneJson j;
    cutune_json_init(&j, stdout, 2);
    cutune_json_begin_object(&j);
    cutune_json_key(&j, "recording");
    cutune_json_begin_object(&j);
    static const char *const keys[] = {"source", "device", "date", "variant", "size"};
    const char *texts[] = {r->source, r->device, r->date, r->variant, r->size};
    for (size_t i = 0; i < 5; i++) {
        cutune_json_key(&j, keys[i]);
        cutune_json_string(&j, texts[i]);
    }
    static const char *const counts[] = {"configs", "ok", "failed", "not_recorded"};
    const size_t cvals[] = {r->configs.nconfigs, r->nok, r->nfailed, r->nmissing};
    for (size_t i = 0; i < 4; i++) {
        cutune_json_key(&j, counts[i]);
        cutune_json_int(&j, (int64_t)cvals[i]);
    }
    cutune_json_member_number(&j, "best_ms", r->best_ms);
    cutune_json_end_object(&j);
    cutune_json_member_int(&j, "seeds", (int64_t)o->seeds);
    cutune_json_key(&j, "first_seed");
    if (o->seed <= INT64_MAX)
        cutune_json_int(&j, (int64_t)o->seed);
    else
        cutune_json_number(&j, (double)o->seed);
    cutune_json_member_int(&j, "window", (int64_t)o->window);
    if (o->start_from) {
        cutune_json_key(&j, "start");
        cutune_json_begin_object(&j);
        cutune_json_member_string(&j, "from", o->start_from);
        cutune_json_member_int(&j, "configs", (int64_t)st->n);
        cutune_json_member_number(&j, "best_fraction", st->best_fraction);
        cutune_json_end_object(&j);
    }
    if (sc->space) {
        cutune_json_key(&j, "score_range");
        cutune_json_begin_object(&j);
        cutune_json_member_number(&j, "p_start", CUTUNE_SCORE_P_START);
        cutune_json_member_number(&j, "p_end", CUTUNE_SCORE_P_END);
        cutune_json_member_int(&j, "first", (int64_t)sc->space->first);
        cutune_json_member_int(&j, "last", (int64_t)sc->space->last);
        cutune_json_end_object(&j);
    }
    cutune_json_key(&j, "strategies");
    cutune_json_begin_array(&j);
    for (size_t s = 0; s < ns; s++) {
        cutune_json_begin_object(&j);
        cutune_json_member_string(&j, "name", names[s]);
        if (sc->of)
            json_score(&j, &sc->of[s]);
        cutune_json_key(&j, "results");
        cutune_json_begin_array(&j);
        for (size_t b = 0; b < o->nbudgets; b++) {
            const CutuneReplayStat *x = &stats[s][b];
            size_t ev = x->budget < r->configs.nconfigs ? x->budget : r->configs.nconfigs;
            cutune_json_begin_object(&j);
            cutune_json_member_int(&j, "budget", (int64_t)x->budget);
            cutune_json_member_int(&j, "evaluations", (int64_t)ev);
            static const char *const sk[] = {"median",   "p10", "p25",  "p75",
                                             "min",      "max", "mean", "seconds_per_replay",
                                             "compile_s"};
            const double sv[] = {x->median, x->p10,  x->p25,     x->p75,      x->min,
                                 x->max,    x->mean, x->seconds, x->compile_s};
            for (size_t i = 0; i < sizeof sv / sizeof sv[0]; i++) {
                cutune_json_key(&j, sk[i]);
                cutune_json_number(&j, sv[i]);
            }
            cutune_json_end_object(&j);
        }
        cutune_json_end_array(&j);
        cutune_json_end_object(&j);
    }
    cutune_json_end_array(&j);
    cutune_json_end_object(&j);
    if (cutune_json_finish(&j) == CUTUNE_ERR_INVALID) {
        fprintf(stderr, "cutune replay: the JSON writer was misused (a bug in cutune)\n");
        return EXIT_FAILURE_;
    }
    if (cutune_json_replaced(&j))
        fprintf(stderr,
                "cutune replay: warning: %zu bytes of text were not valid UTF-8 and are "
                "written as U+FFFD\n",
                cutune_json_replaced(&j));
    return 0;
}

/* Where the recording has compile times (a database's): what the proposals cost to
 * compile, the time that bounds a compile-bound run, against the space's mean. */
static void print_compile(const Opts *o, const CutuneRecording *r, const char *const *names,
                          const CutuneReplayStat *const *stats, size_t ns)
{
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; r->compile_ms && i < r->configs.nconfigs; i++)
        if (r->compile_ms[i] > 0) {
            sum += r->compile_ms[i];
            n++;
        }
    if (n == 0)
        return;
    printf("compile time of the proposals: mean s per replay (ms per evaluation), as recorded; "
           "the %zu configs with a compile time average %.0f ms\n",
           n, sum / (double)n);
    for (size_t s = 0; s < ns; s++) {
        printf("%-11s", names[s]);
        for (size_t b = 0; b < o->nbudgets; b++) {
            const CutuneReplayStat *x = &stats[s][b];
            size_t ev = x->budget < r->configs.nconfigs ? x->budget : r->configs.nconfigs;
            char cell[64];
            snprintf(cell, sizeof cell, "%.1f (%.0f)", x->compile_s,
                     ev ? 1e3 * x->compile_s / (double)ev : 0);
            printf("  %-*s", b + 1 < o->nbudgets ? 24 : 0, cell);
        }
        putchar('\n');
    }
}

/* The scores of --score, one line per strategy. */
static void print_scores(const Opts *o, const char *const *names, size_t ns, const Scores *sc)
{
    const CutuneScoreSpace *sp = sc->space;
    printf("methodology score (Willemsen et al. 2024: 0 = calculated random search, 1 = the "
           "optimum), the mean over %zu budgets from %zu to %zu evaluations (p = %.2f to %.2f), "
           "of the median over %zu seeds:\n",
           sp->nbudgets, sp->budgets[0], sp->budgets[sp->nbudgets - 1], CUTUNE_SCORE_P_START,
           CUTUNE_SCORE_P_END, o->seeds);
    for (size_t s = 0; s < ns; s++) {
        const CutuneScore *x = &sc->of[s];
        printf("%-11s  %.3f   at each budget:", names[s], x->score);
        for (size_t k = 0; k < x->nbudgets; k++) {
            printf(" %zu: ", x->budgets[k]);
            if (isnan(x->point[k]))
                printf("-");
            else
                printf("%.2f", x->point[k]);
        }
        putchar('\n');
    }
}

static void print_table(const Opts *o, const CutuneRecording *r, const Start *st,
                        const char *const *names, const CutuneReplayStat *const *stats, size_t ns,
                        const Scores *sc)
{
    /* the names come from the recording: made safe for a terminal */
    printf("recording: ");
    if (o->synthetic) {
        cutune_text_write(stdout, r->device, 0);
    } else {
        const char *parts[] = {r->variant,
                               " ",
                               r->size,
                               " on ",
                               r->device[0] ? r->device : "?",
                               " (",
                               r->date[0] ? r->date : "date unknown",
                               "), from ",
                               r->source};
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
            cutune_text_write(stdout, parts[i], 0);
    }
    putchar('\n');
    printf("space: %zu configs: %zu ok, %zu failed, %zu not recorded; optimum %.6g ms\n",
           r->configs.nconfigs, r->nok, r->nfailed, r->nmissing, r->best_ms);
    if (r->nunmatched)
        printf("(%zu recorded configs are not valid in the space and were left out)\n",
               r->nunmatched);
    if (o->start_from)
        printf("warm start: the %zu fastest configs of %s that this space has; the best of them "
               "reaches %.3f of this optimum\n",
               st->n, o->start_from, st->best_fraction);
    printf("fraction of the optimum: median (10th percentile) [25th-75th percentile], over %zu "
           "seeds, window %zu\n",
           o->seeds, o->window);
    printf("%-11s", "strategy");
    for (size_t b = 0; b < o->nbudgets; b++) {
        char h[32];
        snprintf(h, sizeof h, "%zu evals", o->budgets[b]);
        printf("  %-28s", h);
    }
    printf("  ms/replay@%zu\n", o->budgets[o->nbudgets - 1]);
    for (size_t s = 0; s < ns; s++) {
        printf("%-11s", names[s]);
        for (size_t b = 0; b < o->nbudgets; b++) {
            const CutuneReplayStat *x = &stats[s][b];
            char cell[64];
            snprintf(cell, sizeof cell, "%.3f (%.3f) [%.3f-%.3f]", x->median, x->p10, x->p25,
                     x->p75);
            printf("  %-28s", cell);
        }
        printf("  %.3f\n", 1e3 * stats[s][o->nbudgets - 1].seconds);
    }
    if (o->budgets[o->nbudgets - 1] >= r->configs.nconfigs)
        printf("(a budget of %zu or more covers the whole space: every strategy reaches 1)\n",
               r->configs.nconfigs);
    if (sc->of)
        print_scores(o, names, ns, sc);
    print_compile(o, r, names, stats, ns);
}

static int write_csv(const Opts *o, const CutuneRecording *r, const char *const *names,
                     const CutuneReplayStat *const *stats, size_t ns)
{
    CutuneOutFile out;
    CutuneError err = {0};
    if (cutune_outfile_open(&out, o->csv, &err))
        return cli_fail("replay", &err);
    FILE *f = out.f;
    fprintf(f, "variant,size,device,strategy,budget,evaluations,seeds,median,p10,p25,p75,min,"
               "max,mean,seconds_per_replay,compile_s\n");
    for (size_t s = 0; s < ns; s++)
        for (size_t b = 0; b < o->nbudgets; b++) {
            const CutuneReplayStat *x = &stats[s][b];
            size_t ev = x->budget < r->configs.nconfigs ? x->budget : r->configs.nconfigs;
            cutune_csv_field(f, r->variant, 0);
            cutune_csv_field(f, r->size, 0);
            cutune_csv_field(f, r->device, 0);
            cutune_csv_field(f, names[s], 0);
            fprintf(f, "%zu,%zu,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6g,%.6g\n", x->budget, ev,
                    o->seeds, x->median, x->p10, x->p25, x->p75, x->min, x->max, x->mean,
                    x->seconds, x->compile_s);
        }
    if (cutune_outfile_commit(&out, &err))
        return cli_fail("replay", &err);
    return 0;
}

/* The strategies to replay: random first (the baseline), then the list or every other. */
static int pick_strategies(const Opts *o, const CutuneStrategyOps **ops, size_t *n)
{
    *n = 0;
    ops[(*n)++] = &cutune_strategy_random;
    if (!o->strategies) {
        for (size_t i = 0; cutune_strategy_list[i] && *n < MAX_STRATEGIES; i++)
            if (cutune_strategy_list[i] != &cutune_strategy_random &&
                cutune_strategy_list[i] != &cutune_strategy_exhaustive)
                ops[(*n)++] = cutune_strategy_list[i];
        return 0;
    }
    char *buf = strdup(o->strategies); /* any length: a list is never cut short */
    if (!buf)
        return cli_usage_error("replay", "out of memory reading --strategy");
    char *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        const CutuneStrategyOps *x = cutune_strategy_find(tok);
        if (!x)
            rc = cli_usage_error("replay", "unknown strategy '%s' (see `cutune run --help`)", tok);
        else if (x != &cutune_strategy_random && *n < MAX_STRATEGIES)
            ops[(*n)++] = x;
    }
    free(buf);
    return rc;
}

/* The warm start: the fastest configs of another recording of the same space. */
static int load_start(const Opts *o, const CutuneRecording *rec, Start *st)
{
    CutuneRecording from;
    CutuneError err = {0};
    int rc = 0;
    if (cutune_recording_load(o->start_from, NULL, NULL, NULL, NULL, &from, &err))
        return cli_fail("replay", &err);
    st->idx = malloc((size_t)o->start_best * sizeof *st->idx);
    long m = st->idx ? cutune_recording_best_of(&from, rec, (size_t)o->start_best, st->idx, &err)
                     : cutune_error(&err, CUTUNE_ERR_NOMEM, "out of memory");
    if (m < 0) {
        rc = cli_fail("replay", &err);
    } else if (m == 0) {
        fprintf(stderr,
                "cutune replay: no ok config of %s is in the space of %s: no warm start "
                "to give\n",
                o->start_from, rec->source);
        rc = EXIT_NOT_FOUND;
    } else {
        st->n = (size_t)m;
        for (size_t k = 0; k < st->n; k++) {
            size_t i = st->idx[k];
            if (rec->status[i] == CUTUNE_STATUS_OK && rec->median_ms[i] > 0 &&
                rec->best_ms / rec->median_ms[i] > st->best_fraction)
                st->best_fraction = rec->best_ms / rec->median_ms[i];
        }
    }
    cutune_recording_free(&from);
    return rc;
}

/* --synthetic SEED: replay a generated landscape. */
static int parse_synthetic(const char *cmd, const char *opt, const char *text, void *user)
{
    Opts *o = user;
    int rc = cli_parse_uint64(cmd, opt, text, 0, UINT64_MAX, &o->synthetic_seed);
    if (rc == 0)
        o->synthetic = 1;
    return rc;
}

/* The options and the FILE: 0, -1 after --help, or the exit code. */
static int parse_args(int argc, char **argv, Opts *o)
{
    static const size_t defaults[] = {25, 50, 100, 200, 400};
    memset(o, 0, sizeof *o);
    o->seeds = 30;
    o->seed = 1;
    o->window = 18;
    o->start_best = 5;
    memcpy(o->budgets, defaults, sizeof defaults);
    o->nbudgets = sizeof defaults / sizeof defaults[0];
    const CliOption opts[] = {
        CLI_TEXT("variant", &o->variant),
        CLI_TEXT("size", &o->size),
        CLI_TEXT("device", &o->device),
        CLI_TEXT("strategy", &o->strategies),
        CLI_SIZE("seeds", &o->seeds, 1, MAX_SEEDS),
        CLI_UINT64("seed", &o->seed, 0, UINT64_MAX),
        CLI_CALL("budgets", parse_budgets, o),
        CLI_SIZE("window", &o->window, 1, MAX_WINDOW),
        CLI_FLAG("no-space", &o->no_space),
        CLI_FLAG("json", &o->json),
        CLI_FLAG("score", &o->score),
        CLI_TEXT("csv", &o->csv),
        CLI_TEXT("svg", &o->svg),
        CLI_TEXT("export-csv", &o->export_csv),
        CLI_CALL("synthetic", parse_synthetic, o),
        CLI_TEXT("start-from", &o->start_from),
        CLI_SIZE("start-best", &o->start_best, 1, 10000),
        CLI_END,
    };
    int rc = cli_parse_options("replay", help, argc, argv, opts);
    if (rc >= 0)
        return rc == EXIT_OK ? -1 : rc;
    if (optind < argc)
        o->file = argv[optind++];
    if (optind < argc)
        return cli_usage_error("replay", "expected one FILE, got '%s' and more", argv[optind]);
    if (!o->file == !o->synthetic)
        return cli_usage_error("replay", o->file ? "give a FILE or --synthetic, not both"
                                                 : "which recording? give a database or CSV "
                                                   "FILE, or --synthetic SEED");
    return 0;
}

/* What no replay can use: a recording with fewer than 2 ok configs (every search finds its
 * one config or nothing), and a --budgets budget beyond the configs of the space (the
 * default's larger budgets stand for the whole space, and the table says so). */
static int check_input(const Opts *o, const CutuneRecording *r)
{
    if (r->nok < 2) {
        CutuneError err = {CUTUNE_ERR_INVALID, ""};
        snprintf(err.msg, sizeof err.msg,
                 "%s has %zu ok config%s of %zu: a replay compares searches for the fastest, "
                 "and needs at least 2 that ran",
                 r->source, r->nok, r->nok == 1 ? "" : "s", r->configs.nconfigs);
        return cli_fail("replay", &err);
    }
    for (size_t b = 0; o->budgets_given && b < o->nbudgets; b++)
        if (o->budgets[b] > r->configs.nconfigs)
            return cli_usage_error("replay",
                                   "--budgets %zu is more than the %zu configs of the space of %s; "
                                   "give budgets up to %zu (that one is the whole space)",
                                   o->budgets[b], r->configs.nconfigs,
                                   o->synthetic ? "the synthetic landscape" : r->source,
                                   r->configs.nconfigs);
    return 0;
}

/* A recording that cannot be loaded: what the command line asked for does not fit it
 * (--variant and --size missing for a database, another variant or size than the file's,
 * several devices without --device) is a usage error; the file's own faults are not. */
static int load_failed(const CutuneError *err)
{
    int rc = cli_fail("replay", err);
    return err->code == CUTUNE_ERR_INVALID ? EXIT_USAGE : rc;
}

int cmd_replay(int argc, char **argv)
{
    Opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    CutuneRecording rec;
    CutuneError err = {0};
    const char *outputs[] = {o.csv, o.svg, o.export_csv}, *inputs[] = {o.file, o.start_from};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 2; k++)
            if (outputs[i] && inputs[k] &&
                (rc = cli_refuse_db_output("replay", outputs[i], inputs[k])))
                return rc;
    CutuneSpace *sp = NULL;
    CutuneReplayStat *all = NULL;
    CutuneScoreSpace space = {0};
    CutuneScore scores[MAX_STRATEGIES];
    Scores sc = {NULL, NULL};
    Start start = {NULL, 0, 0};
    const CutuneStrategyOps *ops[MAX_STRATEGIES];
    size_t ns = 0;
    memset(&rec, 0, sizeof rec);
    if ((rc = pick_strategies(&o, ops, &ns)))
        return rc;
    if (o.synthetic) {
        if (cutune_landscape_generate(o.synthetic_seed, &rec)) {
            rc = cli_fail("replay", &(CutuneError){CUTUNE_ERR_NOMEM, "out of memory"});
            goto out;
        }
    } else {
        /* a CSV names its variant in its header: load once to learn it, then with the space */
        const char *variant = o.variant;
        if (!o.no_space && !variant) {
            if (cutune_recording_load(o.file, NULL, o.size, o.device, NULL, &rec, &err)) {
                rc = load_failed(&err);
                goto out;
            }
            variant = rec.variant;
        }
        if (!o.no_space && variant[0])
            sp = find_space(variant);
        char v[CUTUNE_NAME_MAX];
        snprintf(v, sizeof v, "%s", variant ? variant : "");
        cutune_recording_free(&rec);
        if (cutune_recording_load(o.file,
                                  o.variant ? o.variant
                                  : v[0]    ? v
                                            : NULL,
                                  o.size, o.device, sp, &rec, &err)) {
            rc = load_failed(&err);
            goto out;
        }
    }
    if (o.export_csv) {
        if (cutune_recording_write_csv(&rec, o.export_csv, &err))
            rc = cli_fail("replay", &err);
        else
            fprintf(stderr, "cutune replay: wrote %zu configs of %s %s to %s\n",
                    rec.configs.nconfigs - rec.nmissing, rec.variant, rec.size, o.export_csv);
        goto out;
    }
    if ((rc = check_input(&o, &rec)))
        goto out;
    if (o.score && cutune_score_space(&rec, &space, &err)) {
        /* a recording that is not exhaustive is the wrong input for --score; one without two
         * ok configs cannot be replayed at all (check_input) */
        rc = err.code == CUTUNE_ERR_INVALID && rec.nmissing
                 ? cli_usage_error("replay", "%s", err.msg)
                 : cli_fail("replay", &err);
        goto out;
    }
    if (o.start_from && (rc = load_start(&o, &rec, &start)))
        goto out;
    all = calloc(ns * o.nbudgets, sizeof *all); /* at most 16 x 32 */
    if (!all) {
        rc = EXIT_FAILURE_;
        goto out;
    }
    const char *names[MAX_STRATEGIES];
    const CutuneReplayStat *stats[MAX_STRATEGIES];
    for (size_t s = 0; s < ns; s++) {
        names[s] = ops[s]->name;
        stats[s] = all + s * o.nbudgets;
        if (cutune_replay_stats(ops[s], &rec, o.seed, o.seeds, o.budgets, o.nbudgets, o.window,
                                start.idx, start.n, all + s * o.nbudgets, &err) ||
            (o.score && cutune_replay_score(ops[s], &rec, &space, o.seed, o.seeds, o.window,
                                            start.idx, start.n, &scores[s], &err))) {
            rc = cli_fail("replay", &err);
            goto out;
        }
    }
    if (o.score)
        sc = (Scores){&space, scores};
    if (o.json)
        rc = print_json(&o, &rec, &start, names, stats, ns, &sc);
    else
        print_table(&o, &rec, &start, names, stats, ns, &sc);
    if (o.csv && (rc = write_csv(&o, &rec, names, stats, ns)))
        goto out;
    if (o.svg) {
        char title[512];
        if (o.synthetic)
            snprintf(title, sizeof title, "%s: median over %zu seeds", rec.device, o.seeds);
        else
            snprintf(title, sizeof title, "%s %s on %s (%s): median over %zu seeds", rec.variant,
                     rec.size, rec.device, rec.date[0] ? rec.date : "-", o.seeds);
        if (replay_svg_write(o.svg, title, names, stats, ns, o.nbudgets, &err))
            rc = cli_fail("replay", &err);
    }
out:
    cutune_score_space_free(&space);
    free(start.idx);
    free(all);
    cutune_space_free(sp);
    cutune_recording_free(&rec);
    return rc;
}
