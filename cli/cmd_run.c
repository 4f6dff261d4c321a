/* cutune run: tune every variant of an op. */
#include "cli.h"
#include "tune.h"
#include "util.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
    "usage: cutune run <op> [options]\n"
    "       cutune run [<op>] --pending [options]\n"
    "\n"
    "Tune every variant of <op> (or the one named with --variant) on one device, for each\n"
    "problem size. Every config is compiled (NVRTC, cached), launched once on a poisoned\n"
    "output and checked against a double-precision reference; only a correct config is\n"
    "timed. Each trial is committed to the database as it finishes.\n"
    "\n"
    "options:\n"
    "  --device N        CUDA device ordinal (default 0)\n"
    "  --size S          problem size, e.g. 4096x4096x4096 (repeatable; default: the sizes\n"
    "                    listed under [problems] in each variant's tuning space)\n"
    "  --variant NAME    tune only this variant\n"
    "  --where CONFIG    only the configs of that variant matching CONFIG, a partial config\n"
    "                    such as BM=128,BK=8 (repeatable: configs matching any); a full\n"
    "                    config measures just that one\n"
    "  --strategy S      exhaustive, random, annealing, genetic, ils (greedy iterated local\n"
    "                    search) or tpe (model-based); default: exhaustive, unless --budget\n"
    "                    is less than the valid configs of a space (then annealing) or --time\n"
    "                    is set (then ils): the best in `cutune replay` of recorded spaces\n"
    "  --budget N        at most N configs per variant and size (default: all)\n"
    "  --time SECONDS    at most this long per variant and size (default: no limit)\n"
    "  --seed N          seed of the random inputs and of the strategy (default 1)\n"
    "  --db PATH         database file (default: $CUTUNE_DB or ~/.local/share/cutune/cutune.db)\n"
    "  --resume          skip configs the database already holds for this device, variant\n"
    "                    version and size (e.g. after an interrupted run)\n"
    "  --pending         tune exactly the sizes that applications looked up on this device\n"
    "                    without an exact answer (the database's `requests`, see\n"
    "                    cutune/lookup.h), then mark them done; <op> is optional (all ops)\n"
    "  --jobs N          compile threads (default: one per CPU)\n"
    "  --max-seconds S   timing cap per config (default 1)\n"
    "  --timeout-factor F  a config is killed and recorded as 'timeout' when one launch\n"
    "                    may have taken longer than max(F x the best time so far, the floor);\n"
    "                    its whole evaluation may take (warm-up + 4) x that + the timing\n"
    "                    cap + 1 s (default 10)\n"
    "  --timeout-floor S   the floor of that limit, in seconds (default 2)\n"
    "  --no-progress     no progress line (it is drawn only on a terminal anyway)\n"
    "  -h, --help        this text\n"
    "\n"
    "Kernels run in a separate worker process (cutune-worker): a config that faults or\n"
    "breaks its CUDA context is recorded as 'crashed', one that runs past its time limit\n"
    "as 'timeout', and the run goes on in a fresh worker.\n"
    "Ctrl-C or SIGTERM stops after the trial in flight; what was measured is kept (exit\n"
    "130), and --resume goes on from there, also after kill -9.\n"
    "The exit code is 1 when a variant ran trials and none of them was correct (every\n"
    "config failed to compile, was wrong, or could not launch): the run is recorded, and\n"
    "`cutune show` says why each failed.\n";

static volatile sig_atomic_t stop_flag;

/* Variants that ran trials in this run and not one of them ok: each is said, with what
 * went wrong, and the count returned (the run then exits 1: nothing of them can be used). */
static size_t report_failed_variants(const CutuneTuneSummary *s)
{
    size_t failed = 0;
    for (size_t i = 0; i < s->nrows; i++) {
        const char *v = s->rows[i].variant;
        int first = 1;
        for (size_t j = 0; j < i; j++)
            first &= strcmp(s->rows[j].variant, v) != 0;
        if (!first)
            continue;
        size_t n[CUTUNE_STATUS_COUNT] = {0}, evaluated = 0;
        for (size_t j = i; j < s->nrows; j++) {
            if (strcmp(s->rows[j].variant, v))
                continue;
            evaluated += s->rows[j].evaluated;
            for (int k = 0; k < CUTUNE_STATUS_COUNT; k++)
                n[k] += s->rows[j].count[k];
        }
        if (evaluated == 0 || n[CUTUNE_STATUS_OK] > 0)
            continue;
        failed++;
        fprintf(stderr, "cutune run: variant %s produced no correct config in %zu trials (", v,
                evaluated);
        for (int k = 1, shown = 0; k < CUTUNE_STATUS_COUNT; k++)
            if (n[k])
                fprintf(stderr, "%s%zu %s", shown++ ? ", " : "", n[k],
                        cutune_status_name((CutuneStatus)k));
        fprintf(stderr, "); `cutune show %lld` prints each trial's message\n",
                (long long)s->run_id);
    }
    return failed;
}

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void print_summary(const CutuneTuneSummary *s)
{
    printf("\ndevice: %s   run: %lld   database: %s\n", s->device_name, (long long)s->run_id,
           s->db_path);
    printf("%-18s %-16s %6s %6s %5s %6s %6s %9s %9s %9s %10s %9s %8s  %s\n", "variant", "size",
           "valid", "done", "ok", "wrong", "other", "compiled", "compile_s", "measure_s", "best_ms",
           "GFLOP/s", "GB/s", "best config");
    for (size_t i = 0; i < s->nrows; i++) {
        const CutuneTuneRow *r = &s->rows[i];
        size_t other = r->evaluated - r->count[CUTUNE_STATUS_OK] - r->count[CUTUNE_STATUS_WRONG_RESULT];
        char best[32] = "-", rate[32] = "-", bw[32] = "-";
        if (r->best_ms > 0) {
            snprintf(best, sizeof best, "%.4f", r->best_ms);
            if (r->best_gflops > 0)
                snprintf(rate, sizeof rate, "%.1f", r->best_gflops);
            if (r->best_gbps > 0)
                snprintf(bw, sizeof bw, "%.1f", r->best_gbps);
        }
        printf("%-18s %-16s %6zu %6zu %5zu %6zu %6zu %4zu/%-4zu %9.2f %9.2f %10s %9s %8s  %s\n",
               r->variant, r->size, r->nvalid, r->evaluated, r->count[CUTUNE_STATUS_OK],
               r->count[CUTUNE_STATUS_WRONG_RESULT], other, r->compiled, r->cached, r->compile_s,
               r->measure_s, best, rate, bw, r->best_config[0] ? r->best_config : "-");
    }
    printf("(compiled: NVRTC compilations / cubins taken from the cache; 'other': compile or "
           "launch errors, skipped for resources, crashed, timeout)\n");
    for (size_t i = 0; i < s->nrows; i++)
        if (s->rows[i].strategy[0] && strcmp(s->rows[i].strategy, "exhaustive") != 0)
            printf("%s %s: searched with strategy %s, %zu of %zu valid configs\n",
                   s->rows[i].variant, s->rows[i].size, s->rows[i].strategy,
                   s->rows[i].evaluated, s->rows[i].nvalid);
}

int cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"device", required_argument, 0, 'd'}, {"size", required_argument, 0, 's'},
        {"variant", required_argument, 0, 'v'}, {"strategy", required_argument, 0, 'S'},
        {"budget", required_argument, 0, 'b'}, {"time", required_argument, 0, 't'},
        {"seed", required_argument, 0, 'r'}, {"db", required_argument, 0, 'D'},
        {"resume", no_argument, 0, 'R'}, {"jobs", required_argument, 0, 'j'},
        {"pending", no_argument, 0, 'p'}, {"where", required_argument, 0, 'w'},
        {"max-seconds", required_argument, 0, 'm'}, {"no-progress", no_argument, 0, 'P'},
        {"timeout-factor", required_argument, 0, 'F'},
        {"timeout-floor", required_argument, 0, 'L'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    CutuneTuneOptions o;
    cutune_tune_defaults(&o);
    o.progress = isatty(STDERR_FILENO);
    const char **sizes = calloc((size_t)argc + 1, sizeof *sizes);
    const char **where = calloc((size_t)argc + 1, sizeof *where);
    if (!sizes || !where) {
        free(sizes);
        free(where);
        return EXIT_FAILURE_;
    }
    unsigned long long u;
    int c, rc = EXIT_OK;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if ((rc = cli_parse_u64("run", "--device", optarg, &u)))
                goto out;
            o.device = (int)u;
            break;
        case 's':
            sizes[o.nsizes++] = optarg;
            break;
        case 'v':
            o.variant = optarg;
            break;
        case 'w':
            where[o.nwhere++] = optarg;
            break;
        case 'S':
            o.strategy = optarg;
            break;
        case 'b':
            if ((rc = cli_parse_u64("run", "--budget", optarg, &u)))
                goto out;
            o.budget = (size_t)u;
            break;
        case 't':
            if ((rc = cli_parse_double("run", "--time", optarg, &o.time_limit_s)))
                goto out;
            break;
        case 'r':
            if ((rc = cli_parse_u64("run", "--seed", optarg, &u)))
                goto out;
            o.seed = u;
            break;
        case 'D':
            o.db_path = optarg;
            break;
        case 'R':
            o.resume = 1;
            break;
        case 'p':
            o.pending = 1;
            break;
        case 'j':
            if ((rc = cli_parse_u64("run", "--jobs", optarg, &u)))
                goto out;
            o.compile_threads = (int)u;
            break;
        case 'm':
            if ((rc = cli_parse_double("run", "--max-seconds", optarg, &o.measure.max_seconds)))
                goto out;
            break;
        case 'P':
            o.progress = 0;
            break;
        case 'F':
            if ((rc = cli_parse_double("run", "--timeout-factor", optarg, &o.worker.timeout_factor)))
                goto out;
            break;
        case 'L':
            if ((rc = cli_parse_double("run", "--timeout-floor", optarg, &o.worker.timeout_floor_s)))
                goto out;
            break;
        case 'h':
            fputs(help, stdout);
            goto out;
        default:
            rc = cli_usage_error("run", "unknown option");
            goto out;
        }
    }
    if (o.nwhere && !o.variant) {
        rc = cli_usage_error("run", "--where names parameters of one variant: add --variant");
        goto out;
    }
    o.where = where;
    if (o.pending && o.nsizes) {
        rc = cli_usage_error("run", "--pending tunes the requested sizes: leave out --size");
        goto out;
    }
    if (o.pending && optind == argc) {
        o.op = NULL; /* every op with pending requests */
    } else if (optind != argc - 1) {
        rc = cli_usage_error("run", optind >= argc ? "which op? e.g. cutune run matmul --device 0"
                                                   : "expected one op, got '%s' and more",
                             optind < argc ? argv[optind] : "");
        goto out;
    } else {
        o.op = argv[optind];
    }
    o.sizes = o.nsizes ? sizes : NULL;
    for (size_t i = 0; i < o.nsizes; i++) { /* a bad size is a usage error: say so at once */
        CutuneProblem p;
        CutuneError perr = {0};
        if (cutune_problem_parse(sizes[i], &p, &perr) != 0) {
            rc = cli_usage_error("run", "--size: %s", perr.msg);
            goto out;
        }
    }

    /* the command line, recorded with the run */
    size_t len = 8;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *text = malloc(len);
    if (!text) {
        rc = EXIT_FAILURE_;
        goto out;
    }
    strcpy(text, "cutune");
    for (int i = 0; i < argc; i++) {
        strcat(text, " ");
        strcat(text, argv[i]);
    }
    o.argv_text = text;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    o.stop = &stop_flag;

    CutuneTuneSummary sum;
    CutuneError err = {0};
    int trc = cutune_tune(&o, &sum, &err);
    if (sum.nrows)
        print_summary(&sum);
    if (trc)
        rc = cli_fail("run", &err);
    else if (sum.interrupted) {
        fprintf(stderr, "cutune run: interrupted; the trials so far are saved (run again with "
                        "--resume to go on)\n");
        rc = EXIT_INTERRUPTED;
    } else if (report_failed_variants(&sum) > 0) {
        rc = EXIT_FAILURE_;
    }
    cutune_tune_summary_free(&sum);
    free(text);
out:
    free(sizes);
    free(where);
    return rc;
}
