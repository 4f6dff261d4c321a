/* cutune replay: run search strategies against a recorded exhaustive run. Needs no GPU. */
#include "cli.h"
#include "outfile.h"
#include "registry.h"
#include "replay.h"
#include "replay_svg.h"
#include "space.h"

#include <getopt.h>
#include <limits.h>
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
    "if none of them was ok. Random sampling is the baseline.\n"
    "\n"
    "FILE is a cutune database (SQLite) or a CSV recording (tests/data/recordings/). The\n"
    "strategies search the valid configs of the variant's tuning space for that size\n"
    "(sm_90 limits), as `cutune run` would; a valid config that the recording lacks counts\n"
    "as a failed evaluation (it is reported as 'not recorded'). Without the space file,\n"
    "or with --no-space, the recorded configs are the space. A config measured several\n"
    "times gets the median of its medians, and is ok only if every trial was ok. From a\n"
    "database, the trials of the newest version of the variant (kernel source) are read.\n"
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
    "                     a budget above the number of configs is the whole space\n"
    "  --window N         proposals asked ahead of feedback, as `cutune run` does with its\n"
    "                     compile threads (default 34)\n"
    "  --no-space         search the recorded configs, not the tuning space\n"
    "  --json             print JSON instead of the table\n"
    "  --csv PATH         also write the results as CSV (one row per strategy and budget)\n"
    "  --svg PATH         also plot the median fraction against evaluations (SVG)\n"
    "  --export-csv PATH  write the recording as CSV (a data set to commit) and stop\n"
    "  -h, --help         this text\n";

enum { MAX_STRATEGIES = 16, MAX_BUDGETS = 32 };
/* Ranges of the numeric options: far above any use, low enough that no size overflows. */
#define MAX_SEEDS 1000000
#define MAX_WINDOW 1000000
#define MAX_BUDGET 1000000000000ULL

typedef struct Opts {
    const char *file, *variant, *size, *device, *strategies, *csv, *svg, *export_csv;
    int synthetic, no_space, json;
    uint64_t synthetic_seed, seed;
    size_t seeds, window;
    size_t budgets[MAX_BUDGETS], nbudgets;
} Opts;

static int parse_budgets(const char *text, Opts *o)
{
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
    return rc;
}

/* The variant's space, when the plugin and its space file can be found; NULL otherwise,
 * with a note on stderr. */
static CutuneSpace *find_space(const char *variant)
{
    CutuneRegistry reg;
    memset(&reg, 0, sizeof reg);
    CutuneError err = {0};
    CutuneSpace *sp = NULL;
    char path[PATH_MAX];
    const CutunePlugin *p = NULL;
    if (cutune_registry_load(&reg, &err) == 0 && (p = cutune_registry_find(&reg, variant)) &&
        cutune_space_path(variant, path, sizeof path, &err) == 0)
        cutune_space_load(path, p->v->dim_names, &sp, &err);
    if (!sp)
        fprintf(stderr, "cutune replay: %s; the recorded configs are the space\n",
                err.msg[0] ? err.msg : "no plugin for this variant");
    cutune_registry_free(&reg);
    return sp;
}

static void print_json(const Opts *o, const CutuneRecording *r, const char *const *names,
                       const CutuneReplayStat *const *stats, size_t ns)
{
    printf("{\"recording\": {\"source\": ");
    cli_json_string(stdout, r->source);
    printf(", \"device\": ");
    cli_json_string(stdout, r->device);
    printf(", \"date\": ");
    cli_json_string(stdout, r->date);
    printf(", \"variant\": ");
    cli_json_string(stdout, r->variant);
    printf(", \"size\": ");
    cli_json_string(stdout, r->size);
    printf(", \"configs\": %zu, \"ok\": %zu, \"failed\": %zu, \"not_recorded\": %zu, "
           "\"best_ms\": %.9g},\n",
           r->configs.nconfigs, r->nok, r->nfailed, r->nmissing, r->best_ms);
    printf(" \"seeds\": %zu, \"first_seed\": %llu, \"window\": %zu,\n \"strategies\": [",
           o->seeds, (unsigned long long)o->seed, o->window);
    for (size_t s = 0; s < ns; s++) {
        printf("%s\n  {\"name\": ", s ? "," : "");
        cli_json_string(stdout, names[s]);
        printf(", \"results\": [");
        for (size_t b = 0; b < o->nbudgets; b++) {
            const CutuneReplayStat *x = &stats[s][b];
            size_t ev = x->budget < r->configs.nconfigs ? x->budget : r->configs.nconfigs;
            printf("%s\n    {\"budget\": %zu, \"evaluations\": %zu, \"median\": %.6f, "
                   "\"p25\": %.6f, \"p75\": %.6f, \"min\": %.6f, \"max\": %.6f, "
                   "\"mean\": %.6f, \"seconds_per_replay\": %.6g}",
                   b ? "," : "", x->budget, ev, x->median, x->p25, x->p75, x->min, x->max,
                   x->mean, x->seconds);
        }
        printf("]}");
    }
    printf("\n]}\n");
}

static void print_table(const Opts *o, const CutuneRecording *r, const char *const *names,
                        const CutuneReplayStat *const *stats, size_t ns)
{
    if (o->synthetic)
        printf("recording: %s\n", r->device);
    else
        printf("recording: %s %s on %s (%s), from %s\n", r->variant, r->size,
               r->device[0] ? r->device : "?", r->date[0] ? r->date : "date unknown", r->source);
    printf("space: %zu configs: %zu ok, %zu failed, %zu not recorded; optimum %.6g ms\n",
           r->configs.nconfigs, r->nok, r->nfailed, r->nmissing, r->best_ms);
    if (r->nunmatched)
        printf("(%zu recorded configs are not valid in the space and were left out)\n",
               r->nunmatched);
    printf("fraction of the optimum: median [25th-75th percentile] min, over %zu seeds\n",
           o->seeds);
    printf("%-11s", "strategy");
    for (size_t b = 0; b < o->nbudgets; b++) {
        char h[32];
        snprintf(h, sizeof h, "%zu evals", o->budgets[b]);
        printf("  %-24s", h);
    }
    printf("  ms/replay@%zu\n", o->budgets[o->nbudgets - 1]);
    for (size_t s = 0; s < ns; s++) {
        printf("%-11s", names[s]);
        for (size_t b = 0; b < o->nbudgets; b++) {
            const CutuneReplayStat *x = &stats[s][b];
            char cell[64];
            snprintf(cell, sizeof cell, "%.3f [%.3f-%.3f] %.3f", x->median, x->p25, x->p75,
                     x->min);
            printf("  %-24s", cell);
        }
        printf("  %.3f\n", 1e3 * stats[s][o->nbudgets - 1].seconds);
    }
    if (o->budgets[o->nbudgets - 1] >= r->configs.nconfigs)
        printf("(a budget of %zu or more covers the whole space: every strategy reaches 1)\n",
               r->configs.nconfigs);
}

static int write_csv(const Opts *o, const CutuneRecording *r, const char *const *names,
                     const CutuneReplayStat *const *stats, size_t ns)
{
    CutuneOutFile out;
    CutuneError err = {0};
    if (cutune_outfile_open(&out, o->csv, &err))
        return cli_fail("replay", &err);
    FILE *f = out.f;
    fprintf(f, "variant,size,device,strategy,budget,evaluations,seeds,median,p25,p75,min,max,"
               "mean,seconds_per_replay\n");
    for (size_t s = 0; s < ns; s++)
        for (size_t b = 0; b < o->nbudgets; b++) {
            const CutuneReplayStat *x = &stats[s][b];
            size_t ev = x->budget < r->configs.nconfigs ? x->budget : r->configs.nconfigs;
            fprintf(f, "%s,%s,\"%s\",%s,%zu,%zu,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6g\n",
                    r->variant, r->size, r->device, names[s], x->budget, ev, o->seeds,
                    x->median, x->p25, x->p75, x->min, x->max, x->mean, x->seconds);
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
            rc = cli_usage_error("replay", "unknown strategy '%s' (see `cutune run --help`)",
                                 tok);
        else if (x != &cutune_strategy_random && *n < MAX_STRATEGIES)
            ops[(*n)++] = x;
    }
    free(buf);
    return rc;
}

static int parse_args(int argc, char **argv, Opts *o)
{
    static const struct option longopts[] = {
        {"variant", required_argument, 0, 'v'}, {"size", required_argument, 0, 's'},
        {"device", required_argument, 0, 'd'}, {"strategy", required_argument, 0, 'S'},
        {"seeds", required_argument, 0, 'n'}, {"seed", required_argument, 0, 'r'},
        {"budgets", required_argument, 0, 'b'}, {"window", required_argument, 0, 'w'},
        {"no-space", no_argument, 0, 'N'}, {"json", no_argument, 0, 'j'},
        {"csv", required_argument, 0, 'c'}, {"svg", required_argument, 0, 'g'},
        {"export-csv", required_argument, 0, 'e'}, {"synthetic", required_argument, 0, 'y'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    static const size_t defaults[] = {25, 50, 100, 200, 400};
    memset(o, 0, sizeof *o);
    o->seeds = 30;
    o->seed = 1;
    o->window = 34;
    memcpy(o->budgets, defaults, sizeof defaults);
    o->nbudgets = sizeof defaults / sizeof defaults[0];
    int c, rc;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'v': o->variant = optarg; break;
        case 's': o->size = optarg; break;
        case 'd': o->device = optarg; break;
        case 'S': o->strategies = optarg; break;
        case 'n':
            if ((rc = cli_parse_size("replay", "--seeds", optarg, 1, MAX_SEEDS, &o->seeds)))
                return rc;
            break;
        case 'r':
            if ((rc = cli_parse_uint64("replay", "--seed", optarg, 0, UINT64_MAX, &o->seed)))
                return rc;
            break;
        case 'b':
            if ((rc = parse_budgets(optarg, o)))
                return rc;
            break;
        case 'w':
            if ((rc = cli_parse_size("replay", "--window", optarg, 1, MAX_WINDOW, &o->window)))
                return rc;
            break;
        case 'N': o->no_space = 1; break;
        case 'j': o->json = 1; break;
        case 'c': o->csv = optarg; break;
        case 'g': o->svg = optarg; break;
        case 'e': o->export_csv = optarg; break;
        case 'y':
            if ((rc = cli_parse_uint64("replay", "--synthetic", optarg, 0, UINT64_MAX,
                                       &o->synthetic_seed)))
                return rc;
            o->synthetic = 1;
            break;
        case 'h':
            fputs(help, stdout);
            return -1;
        default:
            return cli_usage_error("replay", "unknown option");
        }
    }
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

int cmd_replay(int argc, char **argv)
{
    Opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    CutuneRecording rec;
    CutuneError err = {0};
    const char *outputs[] = {o.csv, o.svg, o.export_csv};
    for (size_t i = 0; i < 3 && o.file; i++)
        if (outputs[i] && (rc = cli_refuse_db_output("replay", outputs[i], o.file)))
            return rc;
    CutuneSpace *sp = NULL;
    CutuneReplayStat *all = NULL;
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
                rc = cli_fail("replay", &err);
                goto out;
            }
            variant = rec.variant;
        }
        if (!o.no_space && variant[0])
            sp = find_space(variant);
        char v[CUTUNE_NAME_MAX];
        snprintf(v, sizeof v, "%s", variant ? variant : "");
        cutune_recording_free(&rec);
        if (cutune_recording_load(o.file, o.variant ? o.variant : v[0] ? v : NULL, o.size,
                                  o.device, sp, &rec, &err)) {
            rc = cli_fail("replay", &err);
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
                                all + s * o.nbudgets, &err)) {
            rc = cli_fail("replay", &err);
            goto out;
        }
    }
    if (o.json)
        print_json(&o, &rec, names, stats, ns);
    else
        print_table(&o, &rec, names, stats, ns);
    if (o.csv && (rc = write_csv(&o, &rec, names, stats, ns)))
        goto out;
    if (o.svg) {
        char title[512];
        if (o.synthetic)
            snprintf(title, sizeof title, "%s: median over %zu seeds", rec.device, o.seeds);
        else
            snprintf(title, sizeof title, "%s %s on %s (%s): median over %zu seeds",
                     rec.variant, rec.size, rec.device, rec.date[0] ? rec.date : "-", o.seeds);
        if (replay_svg_write(o.svg, title, names, stats, ns, o.nbudgets, &err))
            rc = cli_fail("replay", &err);
    }
out:
    free(all);
    cutune_space_free(sp);
    cutune_recording_free(&rec);
    return rc;
}
