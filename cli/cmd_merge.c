/* cutune merge: join tuning databases (the shards of a run) into one. */
#include "cli.h"
#include "db.h"
#include "merge.h"
#include "utf8.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cutune merge OUT.db IN.db...\n"
    "\n"
    "Merge tuning databases into OUT.db (created when it does not exist): the shards of a\n"
    "run (`cutune run ... --shard I/N --db shard-I.db` on N machines, each writing its own\n"
    "database, since SQLite on a shared network filesystem is not safe for writers), or the\n"
    "databases of other machines. Devices, variants, problems, runs, trials, searches,\n"
    "vendor yardsticks and application requests are added without duplicates: rows are\n"
    "matched by what they are (a device by its UUID, a run by its UUID, a trial by its run\n"
    "and its own fields), so merging the same input twice changes nothing. GPUs stay apart\n"
    "by UUID; those of one model (name, compute capability, SM count and memory equal)\n"
    "share their results in lookups, and same-named GPUs that differ in SM count or memory\n"
    "are separate models, which the merge says. The best config\n"
    "of every device and size that received a verified trial is chosen again: the fastest\n"
    "verified trial of the variant versions in force (a variant's latest version there\n"
    "takes the best from its older ones, which stay in the database, apart).\n"
    "\n"
    "Every input is checked before anything is written: it must be a cutune database that\n"
    "this cutune can read and pass SQLite's quick_check; an older schema is upgraded in a\n"
    "copy in memory (inputs are only read); a newer one, a damaged or truncated file, or\n"
    "OUT.db itself as an input is refused. OUT.db is built from cutune's own schema and\n"
    "only the inputs' rows are copied: a trigger, table, view or index that someone added\n"
    "to an input does not reach it. A new OUT.db is built in a temporary file beside it\n"
    "and renamed into place; an existing one is changed in one transaction (a tuner using\n"
    "it meanwhile keeps working). Any failure, a full disk included, leaves OUT.db as it\n"
    "was; so does Ctrl-C (exit 130), which stops it at once. The temporary files carry the\n"
    "process id in their names: those of a merge that was killed (kill -9) are removed by\n"
    "the next merge into the same OUT.db.\n"
    "\n"
    "options:\n"
    "  -q, --quiet       print nothing but errors\n"
    "  -h, --help        this text\n"
    "\n"
    "Exit codes: 0 merged, 1 failure (a damaged, newer or foreign input, a disagreement on\n"
    "a variant, a write that failed), 2 bad usage (OUT.db is an input), 4 an input that\n"
    "does not exist, 130 interrupted.\n";

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void print_counts(const char *label, int schema, const CutuneMergeCounts *c)
{
    printf("%-32s %6d %7lld %9lld %8lld %10lld %8lld\n", label, schema, (long long)c->runs,
           (long long)c->trials, (long long)c->searches, (long long)c->yardsticks,
           (long long)c->requests);
}

static void print_result(const char *out, const CutuneMergeInput *in, size_t n,
                         const CutuneMergeResult *r)
{
    printf("%-32s %6s %7s %9s %8s %10s %8s\n", "input", "schema", "runs", "trials", "searches",
           "yardsticks", "requests");
    for (size_t i = 0; i < n; i++)
        print_counts(in[i].path, in[i].schema, &in[i].rows);
    const CutuneMergeCounts *a = &r->added;
    printf("%s %s in %.2f s: added %lld devices, %lld variants, %lld problems, %lld runs, "
           "%lld trials, %lld searches, %lld yardsticks, %lld requests",
           out, r->created ? "created" : "updated", r->seconds, (long long)a->devices,
           (long long)a->variants, (long long)a->problems, (long long)a->runs, (long long)a->trials,
           (long long)a->searches, (long long)a->yardsticks, (long long)a->requests);
    if (r->runs_ended || r->searches_ended || r->requests_updated)
        printf("; %lld runs and %lld searches took their end from an input, %lld requests "
               "were updated",
               (long long)r->runs_ended, (long long)r->searches_ended,
               (long long)r->requests_updated);
    printf("\nbest configs: %lld (device, size) keys chosen again, %lld of them changed\n",
           (long long)r->best_keys, (long long)r->best_changed);
    if (r->stale_removed)
        printf("removed %d temporary file%s beside %s that a merge which was killed left\n",
               r->stale_removed, r->stale_removed == 1 ? "" : "s", out);
}

static int print_split(const char *name, int models, int gpus, void *user)
{
    (void)user;
    printf("%d GPUs named '", gpus);
    cutune_text_write(stdout, name, 0);
    printf("' are %d models (their SM count, memory or compute capability differ): their "
           "results are kept apart, each GPU answering for its own model; query one by its "
           "UUID (cutune query --device GPU-...)\n",
           models);
    return 0;
}

/* Same-named GPUs of different models in OUT: said, since a name no longer finds one model. */
static void print_models(const char *out)
{
    CutuneDb *db = NULL;
    CutuneError err = {0};
    if (cutune_db_open(out, CUTUNE_DB_READONLY, &db, &err) != 0 ||
        cutune_db_split_names(db, print_split, NULL, &err) != 0)
        fprintf(stderr, "cutune merge: warning: could not list the GPU models of %s: %s\n", out,
                err.msg);
    cutune_db_close(&db);
}

int cmd_merge(int argc, char **argv)
{
    int quiet = 0;
    const CliOption opts[] = {CLI_SHORT_FLAG('q', "quiet", &quiet), CLI_END};
    int rc = cli_parse_options("merge", help, argc, argv, opts);
    if (rc >= 0)
        return rc;
    if (argc - optind < 2)
        return cli_usage_error("merge", argc - optind == 0
                                            ? "which databases? e.g. cutune merge all.db shard-*.db"
                                            : "no input: give OUT.db, then the databases to merge "
                                              "into it");
    const char *out = argv[optind];
    size_t n = (size_t)(argc - optind - 1);
    CutuneMergeInput *in = calloc(n, sizeof *in);
    if (!in)
        return EXIT_FAILURE_;
    CutuneMergeResult res;
    CutuneError err = {0};
    /* Ctrl-C or SIGTERM end the merge at once, with OUT as it was and no file left over */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    rc = cutune_db_merge(out, (const char *const *)argv + optind + 1, n, &stop_flag, in, &res,
                         &err);
    if (rc == CUTUNE_ERR_INVALID) { /* OUT.db is one of the inputs */
        fprintf(stderr, "cutune merge: %s\n", err.msg);
        rc = EXIT_USAGE;
    } else if (rc) {
        rc = cli_fail("merge", &err);
    } else if (!quiet) {
        print_result(out, in, n, &res);
        print_models(out);
    }
    free(in);
    return rc;
}
