/* cutune run: tune the variants of an op within one time budget. */
#include "cli.h"
#include "run_json.h"
#include "run_report.h"
#include "strategy.h"
#include "tune.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
    "usage: cutune run <op> [options]\n"
    "       cutune run [<op>] --pending [options]\n"
    "\n"
    "Tune every variant of <op> (or the one named with --variant) on one device, for each\n"
    "problem size, within one time budget for the whole run (10 minutes unless --time says\n"
    "otherwise). Every config is compiled (NVRTC, cached), launched once on a poisoned\n"
    "output and checked against a double-precision reference; only a correct config is\n"
    "timed. Each trial is committed to the database as it finishes.\n"
    "\n"
    "How the budget is spent: size by size, the vendor library (cuBLAS for matmul, a\n"
    "device-to-device copy for the memory-bound ops) is timed as a yardstick; each variant\n"
    "first measures its warm start (its best configs at other sizes and on other GPUs of\n"
    "the same model in the database, then its space's shipped list of known-good configs)\n"
    "and a few probes; then the size's share of the budget goes to the variants that can\n"
    "still win: a space that fits its share is measured whole, a larger one is searched\n"
    "(strategy annealing), and a variant far slower than the best keeps what it measured.\n"
    "Nothing the database holds for this device and variant version is measured again: a\n"
    "second run re-times each size's best, and --retune searches again.\n"
    "\n"
    "options:\n"
    "  --device N        CUDA device ordinal (default 0)\n"
    "  --size S          problem size, e.g. 4096x4096x4096 (repeatable; default: the sizes\n"
    "                    listed under [problems] in each variant's tuning space)\n"
    "  --variant NAME    tune only this variant\n"
    "  --where CONFIG    only the configs of that variant matching CONFIG, a partial config\n"
    "                    such as BM=128,BK=8 (repeatable: configs matching any); a full\n"
    "                    config measures just that one\n"
    "  --time SECONDS    the budget of the whole run (default 600; at least 10); 'none' for\n"
    "                    no limit\n"
    "  --job-time SECONDS  at most this long for one variant at one size (default: no cap)\n"
    "  --budget N        at most N new measurements per variant and size (default: no cap)\n"
    "  --strategy S      search every space with S: exhaustive (every config; then there is\n"
    "                    no time limit unless --time is given, and a --time it cannot keep is\n"
    "                    refused up front), random, annealing, genetic, ils or tpe; default:\n"
    "                    exhaustive where a space fits its share of the budget, else annealing\n"
    "  --retune          search again where an earlier run tuned, measuring everything anew\n"
    "  --warm-start LIST where the first configs come from: db, known, both (db,known: the\n"
    "                    default) or none\n"
    "  --seed N          seed of the random inputs and of the strategy (default 1)\n"
    "  --db PATH         database file (default: $CUTUNE_DB or ~/.local/share/cutune/cutune.db)\n"
    "  --resume          kept for old scripts: every run skips what the database holds\n"
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
    "  --no-progress     no progress line (it is drawn only on a terminal anyway; off a\n"
    "                    terminal each size prints one line when it is done)\n"
    "  --json            one JSON object per line on stdout for every trial, every search's\n"
    "                    end, every size's end, then the summary (event: trial, search, size,\n"
    "                    summary); the table goes to stderr\n"
    "  -h, --help        this text\n"
    "\n"
    "Kernels run in a separate worker process (cutune-worker): a config that faults or\n"
    "breaks its CUDA context is recorded as 'crashed', one that runs past its time limit\n"
    "as 'timeout', and the run goes on in a fresh worker.\n"
    "Ctrl-C, SIGTERM or SIGHUP stops after the trial in flight; a second one stops at once,\n"
    "killing the worker. What was measured is kept (exit 130), and the same command goes on\n"
    "from there, also after kill -9 (the next run marks such a run 'interrupted').\n"
    "Exit codes: 0 done, 1 failure (also: a variant searched here had no config verified\n"
    "correct), 2 bad usage, 3 no CUDA device, 4 unknown op or variant, 130 interrupted.\n";

static volatile sig_atomic_t stop_flag;

/* The first signal stops after the trial in flight; a second one kills the worker at once
 * (a hung kernel would otherwise keep us to its deadline). */
static void on_signal(int sig)
{
    (void)sig;
    if (stop_flag < 2)
        stop_flag = stop_flag + 1;
    if (stop_flag == 2) {
        static const char msg[] = "\ncutune run: stopping now: the worker and the trial in "
                                  "flight are killed\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1); /* async-signal-safe */
        (void)w;
    }
}

/* --time: a positive number of seconds, at least CUTUNE_MIN_TIME_S, or "none". */
static int parse_time(const char *text, double *out)
{
    if (!strcmp(text, "none") || !strcmp(text, "inf") || !strcmp(text, "unlimited")) {
        *out = 0;
        return 0;
    }
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || !(v > 0))
        return cli_usage_error("run", "--time takes the run's budget in seconds, a positive "
                                      "number (or 'none' for no limit), got '%s'", text);
    if (v < CUTUNE_MIN_TIME_S)
        return cli_usage_error("run", "--time %s is too short to set a size up and measure "
                                      "anything; give at least %.0f seconds",
                               text, CUTUNE_MIN_TIME_S);
    *out = v;
    return 0;
}

static int parse_warm(const char *text, CutuneTuneOptions *o)
{
    o->warm_db = o->warm_known = 0;
    if (!strcmp(text, "none"))
        return 0;
    if (!strcmp(text, "both")) {
        o->warm_db = o->warm_known = 1;
        return 0;
    }
    char buf[64];
    if (strlen(text) >= sizeof buf)
        return cli_usage_error("run", "--warm-start takes db, known, both or none");
    strcpy(buf, text);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "db"))
            o->warm_db = 1;
        else if (!strcmp(t, "known"))
            o->warm_known = 1;
        else
            return cli_usage_error("run", "--warm-start: '%s' is not db, known, both or none", t);
    }
    return 0;
}

/* The command line, recorded with the run. */
static char *join_argv(int argc, char **argv)
{
    size_t len = 8;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *text = malloc(len);
    if (!text)
        return NULL;
    strcpy(text, "cutune");
    for (int i = 0; i < argc; i++) {
        strcat(text, " ");
        strcat(text, argv[i]);
    }
    return text;
}

int cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"device", required_argument, 0, 'd'}, {"size", required_argument, 0, 's'},
        {"variant", required_argument, 0, 'v'}, {"strategy", required_argument, 0, 'S'},
        {"budget", required_argument, 0, 'b'}, {"time", required_argument, 0, 't'},
        {"job-time", required_argument, 0, 'J'}, {"retune", no_argument, 0, 'T'},
        {"warm-start", required_argument, 0, 'W'},
        {"seed", required_argument, 0, 'r'}, {"db", required_argument, 0, 'D'},
        {"resume", no_argument, 0, 'R'}, {"jobs", required_argument, 0, 'j'},
        {"pending", no_argument, 0, 'p'}, {"where", required_argument, 0, 'w'},
        {"max-seconds", required_argument, 0, 'm'}, {"no-progress", no_argument, 0, 'P'},
        {"timeout-factor", required_argument, 0, 'F'},
        {"timeout-floor", required_argument, 0, 'L'},
        {"json", no_argument, 0, 'O'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    CutuneTuneOptions o;
    RunJson rj = {stdout, 0};
    int json = 0;
    cutune_tune_defaults(&o);
    o.progress = isatty(STDERR_FILENO);
    const char **sizes = calloc((size_t)argc + 1, sizeof *sizes);
    const char **where = calloc((size_t)argc + 1, sizeof *where);
    char *text = NULL;
    int time_given = 0;
    if (!sizes || !where) {
        free(sizes);
        free(where);
        return EXIT_FAILURE_;
    }
    int c, rc = EXIT_OK;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if ((rc = cli_parse_int("run", "--device", optarg, 0, CLI_MAX_DEVICE, &o.device)))
                goto out;
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
            if ((rc = cli_parse_size("run", "--budget", optarg, 1, SIZE_MAX, &o.budget)))
                goto out;
            break;
        case 't':
            if ((rc = parse_time(optarg, &o.time_limit_s)))
                goto out;
            time_given = 1;
            break;
        case 'J':
            if ((rc = cli_parse_real("run", "--job-time", optarg, 1, 1e9, &o.job_time_s)))
                goto out;
            break;
        case 'T':
            o.retune = 1;
            break;
        case 'W':
            if ((rc = parse_warm(optarg, &o)))
                goto out;
            break;
        case 'r':
            if ((rc = cli_parse_uint64("run", "--seed", optarg, 0, UINT64_MAX, &o.seed)))
                goto out;
            break;
        case 'D':
            o.db_path = optarg;
            break;
        case 'R':
            break; /* what --resume did is what every run does */
        case 'p':
            o.pending = 1;
            break;
        case 'j':
            if ((rc = cli_parse_int("run", "--jobs", optarg, 0, 4096, &o.compile_threads)))
                goto out;
            break;
        case 'm':
            if ((rc = cli_parse_real("run", "--max-seconds", optarg, 0.001, 3600,
                                     &o.measure.max_seconds)))
                goto out;
            break;
        case 'P':
            o.progress = 0;
            break;
        case 'O':
            json = 1;
            break;
        case 'F':
            if ((rc = cli_parse_real("run", "--timeout-factor", optarg, 1, 1e6,
                                     &o.worker.timeout_factor)))
                goto out;
            break;
        case 'L':
            if ((rc = cli_parse_real("run", "--timeout-floor", optarg, 0.01, 86400,
                                     &o.worker.timeout_floor_s)))
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
    if (o.strategy && !cutune_strategy_find(o.strategy)) {
        char names[256] = "";
        for (size_t i = 0; cutune_strategy_list[i]; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     cutune_strategy_list[i]->name);
        rc = cli_usage_error("run", "unknown strategy '%s'; choose one of: %s", o.strategy, names);
        goto out;
    }
    if (o.strategy && !strcmp(o.strategy, "exhaustive") && !time_given)
        o.time_limit_s = 0; /* every config, however long it takes */
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
    if (!(text = join_argv(argc, argv))) {
        rc = EXIT_FAILURE_;
        goto out;
    }
    o.argv_text = text;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL); /* a closed terminal stops the run cleanly too */
    o.stop = &stop_flag;
    o.worker.stop = &stop_flag;
    if (json) {
        o.progress = 0;
        o.on_event = run_json_event;
        o.event_user = &rj;
    }

    CutuneTuneSummary sum;
    CutuneError err = {0};
    int trc = cutune_tune(&o, &sum, &err);
    if (sum.nsizes)
        run_report_print(json ? stderr : stdout, &sum);
    if (json)
        run_json_summary(&rj, &sum);
    if (trc)
        rc = cli_fail("run", &err);
    else if (sum.interrupted) {
        fprintf(stderr, "cutune run: interrupted; the trials so far are saved (the same command "
                        "goes on from there)\n");
        rc = EXIT_INTERRUPTED;
    } else if (sum.no_ok) {
        fprintf(stderr, "cutune run: %zu variant and size pair%s had no config verified "
                        "correct (see the table above and `cutune show --status`)\n",
                sum.no_ok, sum.no_ok == 1 ? "" : "s");
        rc = EXIT_FAILURE_;
    }
    if (rc == EXIT_OK && (rj.failed || fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "cutune run: standard output could not be written; the trials are in "
                        "the database (`cutune show`)\n");
        rc = EXIT_FAILURE_;
    }
    cutune_tune_summary_free(&sum);
out:
    free(text);
    free(sizes);
    free(where);
    return rc;
}
