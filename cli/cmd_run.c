/* cutune run: tune the variants of an op within one time budget. */
#include "cli.h"
#include "db.h"
#include "run_json.h"
#include "run_report.h"
#include "strategy.h"
#include "tune.h"
#include "util.h"
#include "worker_client.h"

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
    "(strategy portfolio, which keeps the compile pool full), and ends once it stops\n"
    "finding better configs; a variant far slower than the best keeps what it measured.\n"
    "Nothing the database holds for this device and variant version is measured again: a\n"
    "second run re-times each size's best, and --retune searches again.\n"
    "\n"
    "options:\n"
    "  --device D        the GPU: a CUDA device ordinal (default 0), a list such as 0,2,3,\n"
    "                    or 'all' (checked before anything starts); with several, one\n"
    "                    worker per GPU takes whole sizes, the costliest first; each size\n"
    "                    gets the work one GPU would give it, so the run ends sooner, and\n"
    "                    each size's winner is re-timed on every GPU of the run; the run\n"
    "                    ends with a table of where each GPU's time went\n"
    "  --size S          problem size, e.g. 4096x4096x4096 (repeatable; default: the sizes\n"
    "                    listed under [problems] in each variant's tuning space)\n"
    "  --dtype T         every size in element type T: fp32 (default), tf32, fp16 or bf16\n"
    "                    (a size may say it too: 4096x4096x4096-bf16-nt); only the variants\n"
    "                    that compute T tune it\n"
    "  --layout L        every size in layout L: nn (default) or nt (B stored N x K, as\n"
    "                    PyTorch's F.linear(x, W) computes x W^T)\n"
    "  --epilogue E      every size with epilogue E: none (default) or bias (C = A B + bias,\n"
    "                    as F.linear(x, W, b); fp16 and bf16; a size may say it too:\n"
    "                    4096x1024x1024-bf16-nt-bias)\n"
    "  --variant NAME    tune only this variant\n"
    "  --where CONFIG    only the configs of that variant matching CONFIG, a partial config\n"
    "                    such as BM=128,BK=8 (repeatable: configs matching any); a full\n"
    "                    config measures just that one\n"
    "  --time SECONDS    the budget of the whole run (default 600; at least 10); 'none' for\n"
    "                    no limit\n"
    "  --job-time SECONDS  at most this long for one variant at one size (default: no cap)\n"
    "  --budget N        at most N new measurements per variant and size (default: no cap);\n"
    "                    each size's best is re-timed twice beside the yardstick on top\n"
    "  --strategy S      search every space with S: exhaustive (every config; then there is\n"
    "                    no time limit unless --time is given, and a --time it cannot keep is\n"
    "                    refused up front), portfolio, random, annealing, genetic, ils or\n"
    "                    tpe; default: exhaustive where a space fits its share of the budget,\n"
    "                    else portfolio\n"
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
    "  --shard I/N       only shard I of N (I counts from 0) of the run's (variant, size)\n"
    "                    jobs: job k is shard k mod N's. For N machines that each tune into\n"
    "                    a database of their own (never one SQLite file shared over a\n"
    "                    network filesystem); join them with `cutune merge`. Every shard\n"
    "                    needs the same command line and the same installed plugins\n"
    "  --json            one JSON object per line on stdout for every trial, every search's\n"
    "                    end, every size's end, then the summary (event: trial, search, size,\n"
    "                    summary); the table goes to stderr\n"
    "  -h, --help        this text\n"
    "\n"
    "Kernels run in a separate worker process (cutune-worker): a config that faults or\n"
    "breaks its CUDA context is recorded as 'crashed', one that runs past its time limit\n"
    "as 'timeout', and the run goes on in a fresh worker.\n"
    "Ctrl-C, SIGTERM or SIGHUP stops after the trial in flight, and so does a reader of\n"
    "--json that closes its end (`| head`); a second signal stops at once, killing the\n"
    "worker. What was measured is kept (exit 130), and the same command goes on from\n"
    "there, also after kill -9 (the next run marks such a run 'interrupted').\n"
    "Exit codes: 0 done, 1 failure (also: a variant ran trials in this run and none of them\n"
    "was correct; `cutune show` says why each failed; one that could run none, every config\n"
    "skipped, fails the run only when no other variant was tuned), 2 bad usage, 3 no CUDA\n"
    "device, 4 unknown op or variant, 130 interrupted.\n";

static volatile sig_atomic_t stop_flag;

/* --device: one ordinal, a comma-separated list of them, or "all" (every device the driver
 * sees: exit 3 without one). Writes at most max ordinals to out; 0 or an exit code. A list
 * is checked against the devices there are before anything starts: an ordinal twice or one
 * past the last is a usage error. The devices are counted by a short-lived worker, as the
 * tuner never touches CUDA itself. */
static int parse_devices(const char *text, const CutuneWorkerLimits *lim, int *out, size_t max,
                         size_t *n)
{
    *n = 0;
    int all = !strcmp(text, "all");
    char buf[1024];
    if (!all && (!*text || strlen(text) >= sizeof buf))
        return cli_usage_error("run",
                               "--device takes an ordinal, a list such as 0,2,3, or "
                               "all; got '%.100s'",
                               text);
    for (char *save = NULL, *t = all ? NULL : strtok_r(strcpy(buf, text), ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        int d, rc;
        if ((rc = cli_parse_int("run", "--device", t, 0, CLI_MAX_DEVICE, &d)))
            return rc;
        for (size_t i = 0; i < *n; i++)
            if (out[i] == d)
                return cli_usage_error("run", "--device names GPU %d twice; name each GPU once", d);
        if (*n == max)
            return cli_usage_error("run", "--device names more than %zu GPUs", max);
        out[(*n)++] = d;
    }
    if (!all && (*n == 0 || text[strlen(text) - 1] == ',' || text[0] == ','))
        return cli_usage_error("run", "--device '%s': an empty item in the list", text);
    int count = 0;
    CutuneError err = {0};
    if (cutune_worker_device_count(lim, &count, &err) != 0)
        return cli_fail("run", &err);
    for (size_t i = 0; i < *n; i++)
        if (out[i] >= count)
            return cli_usage_error("run",
                                   "--device %s: there is no GPU %d; this machine has %d (0 to "
                                   "%d, `cutune devices` lists them)",
                                   text, out[i], count, count - 1);
    for (int i = 0; all && i < count && *n < max; i++)
        out[(*n)++] = i;
    if (all && count == 1)
        fprintf(stderr, "cutune run: --device all: this machine has one GPU, so the run is "
                        "the same as --device 0\n");
    return 0;
}

/* Variants that ran trials in this run and not one of them ok: each is said, with what
 * went wrong, and the count of those that fail the run returned (it then exits 1: nothing of
 * them can be used). A variant whose every trial was skipped_resources cannot run here (a
 * library it calls is missing, an element type the GPU lacks): it fails the run only when
 * no variant of the run had a correct config. */
static size_t report_failed_variants(const CutuneTuneSummary *s)
{
    size_t failed = 0, cannot_run = 0, tuned = 0;
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
        tuned += n[CUTUNE_STATUS_OK] > 0;
        if (evaluated == 0 || n[CUTUNE_STATUS_OK] > 0)
            continue;
        int skipped = n[CUTUNE_STATUS_SKIPPED_RESOURCES] == evaluated;
        if (skipped)
            cannot_run++;
        else
            failed++;
        fprintf(stderr, "cutune run: variant %s produced no correct config in %zu trials (", v,
                evaluated);
        for (int k = 1, shown = 0; k < CUTUNE_STATUS_COUNT; k++)
            if (n[k])
                fprintf(stderr, "%s%zu %s", shown++ ? ", " : "", n[k],
                        cutune_status_name((CutuneStatus)k));
        fprintf(stderr, ")%s; `cutune show %lld` prints each trial's message\n",
                skipped ? ": it cannot run here" : "", (long long)s->run_id);
    }
    return failed + (tuned == 0 ? cannot_run : 0);
}

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
typedef struct TimeArg {
    double *seconds;
    int given;
} TimeArg;

static int parse_time(const char *cmd, const char *opt, const char *text, void *user)
{
    TimeArg *t = user;
    (void)cmd;
    (void)opt;
    t->given = 1;
    if (!strcmp(text, "none")) {
        *t->seconds = 0;
        return 0;
    }
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || !(v > 0))
        return cli_usage_error("run",
                               "--time takes the run's budget in seconds, a positive "
                               "number (or 'none' for no limit), got '%s'",
                               text);
    if (v < CUTUNE_MIN_TIME_S)
        return cli_usage_error("run",
                               "--time %s is too short to set a size up and measure "
                               "anything; give at least %.0f seconds",
                               text, CUTUNE_MIN_TIME_S);
    *t->seconds = v;
    return 0;
}

/* --warm-start: db, known, both (db,known) or none. */
static int parse_warm(const char *cmd, const char *opt, const char *text, void *user)
{
    CutuneTuneOptions *o = user;
    (void)cmd;
    (void)opt;
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

/* --shard I/N. */
static int parse_shard(const char *cmd, const char *opt, const char *text, void *shard)
{
    CutuneError err = {0};
    (void)opt;
    if (cutune_shard_parse(text, shard, &err))
        return cli_usage_error(cmd, "%s", err.msg);
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
    CutuneTuneOptions o;
    RunJson rj = {stdout, 0, 0, NULL};
    int json = 0, no_progress = 0, resume = 0;
    cutune_tune_defaults(&o);
    o.progress = isatty(STDERR_FILENO);
    const char **sizes = calloc((size_t)argc + 1, sizeof *sizes);
    const char **where = calloc((size_t)argc + 1, sizeof *where);
    char *text = NULL;
    if (!sizes || !where) {
        free(sizes);
        free(where);
        return EXIT_FAILURE_;
    }
    const char *device_arg = NULL;
    int devices[CLI_MAX_DEVICE + 1];
    CliList size_list = {sizes, &o.nsizes}, where_list = {where, &o.nwhere};
    TimeArg limit = {&o.time_limit_s, 0};
    const CliOption opts[] = {
        CLI_TEXT("device", &device_arg),
        CLI_CALL("size", cli_append, &size_list),
        CLI_CALL("dtype", cli_dtype, &o.dtype),
        CLI_CALL("layout", cli_layout, &o.layout),
        CLI_CALL("epilogue", cli_epilogue, &o.epilogue),
        CLI_TEXT("variant", &o.variant),
        CLI_TEXT("strategy", &o.strategy),
        CLI_SIZE("budget", &o.budget, 1, SIZE_MAX),
        CLI_CALL("time", parse_time, &limit),
        CLI_REAL("job-time", &o.job_time_s, 1, 1e9),
        CLI_FLAG("retune", &o.retune),
        CLI_CALL("warm-start", parse_warm, &o),
        CLI_UINT64("seed", &o.seed, 0, UINT64_MAX),
        CLI_TEXT("db", &o.db_path),
        CLI_FLAG("resume", &resume), /* what --resume did is what every run does */
        CLI_INT("jobs", &o.compile_threads, 0, 4096),
        CLI_FLAG("pending", &o.pending),
        CLI_CALL("where", cli_append, &where_list),
        CLI_REAL("max-seconds", &o.measure.max_seconds, 0.001, 3600),
        CLI_FLAG("no-progress", &no_progress),
        CLI_REAL("timeout-factor", &o.worker.timeout_factor, 1, 1e6),
        CLI_REAL("timeout-floor", &o.worker.timeout_floor_s, 0.01, 86400),
        CLI_FLAG("json", &json),
        CLI_CALL("shard", parse_shard, &o.shard),
        CLI_END,
    };
    int rc = cli_parse_options("run", help, argc, argv, opts);
    if (rc >= 0)
        goto out;
    rc = EXIT_OK;
    if (no_progress)
        o.progress = 0;
    o.where = where;
    o.sizes = o.nsizes ? sizes : NULL;
    CutuneError oerr = {0};
    if (cutune_tune_check_options(&o, &oerr)) { /* said at once, as a usage error */
        rc = cli_usage_error("run", "%s", oerr.msg);
        goto out;
    }
    if (o.strategy && !strcmp(o.strategy, "exhaustive") && !limit.given)
        o.time_limit_s = 0; /* every config, however long it takes */
    if (o.pending && optind == argc) {
        o.op = NULL; /* every op with pending requests */
    } else if (optind != argc - 1) {
        rc = cli_usage_error("run",
                             optind >= argc ? "which op? e.g. cutune run matmul --device 0"
                                            : "expected one op, got '%s' and more",
                             optind < argc ? argv[optind] : "");
        goto out;
    } else {
        o.op = argv[optind];
    }
    if (device_arg) {
        size_t nd = 0;
        if ((rc = parse_devices(device_arg, &o.worker, devices, sizeof devices / sizeof devices[0],
                                &nd)))
            goto out;
        o.device = devices[0];
        if (nd > 1) {
            o.devices = devices;
            o.ndevices = nd;
        }
    }
    char def[4096];
    const char *db_path = o.db_path;
    if (!db_path && cutune_db_default_path(def, sizeof def, NULL) == 0)
        db_path = def; /* else cutune_tune says why there is none */
    if (db_path && (rc = cli_refuse_db_folder("run", db_path)))
        goto out;
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
    /* A reader that goes away (`cutune run --json | head`) would otherwise kill the run
     * with SIGPIPE mid-trial and leave it 'running'; its EPIPE stops it as Ctrl-C does. */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    o.stop = &stop_flag;
    o.worker.stop = &stop_flag;
    rj.stop = &stop_flag;
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
        fprintf(stderr,
                "cutune run: %s; the trials so far are saved (the same command goes on "
                "from there)\n",
                rj.closed ? "standard output was closed (its reader went away), so the run "
                            "stopped after the trial in flight"
                          : "interrupted");
        rc = EXIT_INTERRUPTED;
    } else {
        size_t failed = report_failed_variants(&sum);
        if (sum.variants_refused)
            fprintf(stderr,
                    "cutune run: %zu variant file%s of op %s %s refused and left out (above; "
                    "`cutune check` lists %s); the others were tuned\n",
                    sum.variants_refused, sum.variants_refused == 1 ? "" : "s", o.op,
                    sum.variants_refused == 1 ? "was" : "were",
                    sum.variants_refused == 1 ? "it" : "them");
        if (failed || sum.variants_refused)
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
