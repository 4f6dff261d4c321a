/* cutune import: measurements of other tuners into a database or a recording. */
#include "cli.h"
#include "db.h"
#include "ktcache.h"
#include "ktdb.h"
#include "outfile.h"
#include "registry.h"
#include "replay.h"
#include "space.h"
#include "util.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cutune import kernel-tuner CACHE.json --op OP --variant V [--size S]\n"
    "                     [--device-name NAME] [--db PATH | --output FILE.csv]\n"
    "\n"
    "Read a Kernel Tuner cache file (the JSON that tune_kernel(cache=...) writes, closed or\n"
    "cut off mid-run) and write its configs either\n"
    "  - into the database (default, or --db PATH) as the trials of one run, when V is an\n"
    "    installed variant of OP and the cache has every parameter of V's space, with\n"
    "    integer values (a parameter the space lacks is ignored, and named, when the space\n"
    "    determines it: a constant, or a block size computed from tile sizes); then `cutune\n"
    "    replay DB --variant V --size S` replays strategies on it and `cutune query` sees\n"
    "    its best; or\n"
    "  - with --output, into a CSV recording for `cutune replay FILE.csv`, also for the\n"
    "    cache of a kernel cutune does not have (a foreign recording: name it with a V that\n"
    "    is not an installed variant; a parameter whose values are not all integers is\n"
    "    recorded as the index of its value in the cache's tune_params).\n"
    "A cache whose parameters are not those of an installed V is refused either way: its\n"
    "configs would be read as V's. So is an entry whose key is not the one Kernel Tuner\n"
    "files its values under (\"64,1\" holding BLOCK=128). A key that comes more than once\n"
    "is one config, one trial: its last entry, as Kernel Tuner reads the file.\n"
    "\n"
    "  --op OP             the op the kernel computes (matmul, transpose, ...)\n"
    "  --variant V         the variant the configs are of\n"
    "  --size S            the problem size (default: the cache's problem_size, e.g. [4096,\n"
    "                      4096] read as 4096x4096)\n"
    "  --device-name NAME  the GPU (default: the cache's device_name). In the database, a\n"
    "                      device recorded under that UUID or name takes the trials, else a\n"
    "                      new one named NAME with UUID kernel-tuner:NAME\n"
    "\n"
    "Kernel Tuner's time becomes the median (so the optimum stays Kernel Tuner's), its times\n"
    "the sample statistics, compile and benchmark times and GFLOP/s and GB/s carry over, and\n"
    "its failures map to statuses (InvalidConfig: skipped_resources, CompilationFailedConfig:\n"
    "compile_error, RuntimeFailedConfig and ErrorConfig: launch_error). Timestamps, objective,\n"
    "verification, strategy and framework times and other observers are dropped. A bad cache\n"
    "is refused whole, with the line, before anything is written. Works without a GPU.\n";

typedef struct Opts {
    const char *cache, *op, *variant, *size, *device, *db, *output;
} Opts;

static int parse_opts(int argc, char **argv, Opts *o)
{
    const CliOption opts[] = {
        CLI_TEXT("op", &o->op),
        CLI_TEXT("variant", &o->variant),
        CLI_TEXT("size", &o->size),
        CLI_TEXT("db", &o->db),
        CLI_TEXT("device-name", &o->device),
        CLI_TEXT("output", &o->output),
        CLI_END,
    };
    int parsed = cli_parse_options("import", help, argc, argv, opts);
    if (parsed >= 0)
        return parsed == EXIT_OK ? -1 : parsed; /* -1: the help was printed */
    if (argc - optind != 2)
        return cli_usage_error("import", "expected a format and a file: cutune import "
                                         "kernel-tuner CACHE.json ...");
    if (strcmp(argv[optind], "kernel-tuner") != 0)
        return cli_usage_error("import", "unknown format '%s': the one known is kernel-tuner",
                               argv[optind]);
    o->cache = argv[optind + 1];
    if (!o->op || !*o->op || !o->variant || !*o->variant)
        return cli_usage_error("import", "--op and --variant are needed");
    if (o->db && o->output)
        return cli_usage_error("import", "--db and --output exclude each other: trials go into "
                                         "a database, a recording into a file");
    return 0;
}

/* The canonical size: --size or the cache's, normalised by the plugin when there is one. A
 * size that is not one is a usage error (exit 2). */
static int import_size(const Opts *o, const CutuneKtCache *kc, const CutuneVariantDef *pl,
                       CutuneProblem *prob, char *size, size_t len)
{
    const char *text = o->size ? o->size : kc->problem_size;
    if (!*text)
        return cli_usage_error("import", "%s has no problem_size of integers: give --size",
                               o->cache);
    CutuneError why = {0};
    if (cutune_problem_parse(text, prob, &why) != 0)
        return cli_usage_error("import", "%s%s", why.msg,
                               o->size ? "" : " (the cache's problem_size): give --size");
    cutune_error_clear(&why);
    if (pl && cutune_variant_problem(pl, text, prob, &why) != 0)
        return cli_usage_error("import", "size %s%s is not a problem of %s: %s%s", text,
                               o->size ? "" : " (the cache's problem_size)", pl->name, why.msg,
                               o->size ? "" : "; give --size");
    cutune_problem_format(prob, size, len);
    return 0;
}

/* The cache as a recording (values in the space's order when there is one). */
static int to_recording(const Opts *o, const CutuneKtCache *kc, const CutuneSpace *sp,
                        const size_t *map, const char *size, const char *device, CutuneRecording *r,
                        CutuneError *err)
{
    memset(r, 0, sizeof *r);
    size_t np = sp ? sp->nparams : kc->nparams; /* the space's: the others were ignored */
    r->nparams = np;
    r->param_names = calloc(np, sizeof *r->param_names);
    r->configs.nparams = np;
    r->configs.nconfigs = kc->n;
    r->configs.values = malloc(kc->n * np * sizeof *r->configs.values);
    r->status = malloc(kc->n * sizeof *r->status);
    r->median_ms = malloc(kc->n * sizeof *r->median_ms);
    if (!r->param_names || !r->configs.values || !r->status || !r->median_ms)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    for (size_t j = 0; j < np; j++)
        snprintf(r->param_names[j], CUTUNE_NAME_MAX, "%s", kc->params[sp ? map[j] : j]);
    for (size_t i = 0; i < kc->n; i++) {
        for (size_t j = 0; j < np; j++)
            r->configs.values[i * np + j] = kc->e[i].values[sp ? map[j] : j];
        r->status[i] = (int)kc->e[i].status;
        r->median_ms[i] = kc->e[i].time_ms;
    }
    snprintf(r->device, sizeof r->device, "%s", device);
    snprintf(r->variant, sizeof r->variant, "%s", o->variant);
    snprintf(r->size, sizeof r->size, "%s", size);
    snprintf(r->origin, sizeof r->origin, "Kernel Tuner cache %s (kernel %s)", o->cache,
             kc->kernel_name[0] ? kc->kernel_name : "?");
    return 0;
}

/* What was left out of the cache, and Kernel Tuner's optimum. */
static void say_optimum(const CutuneKtCache *kc, const char *ignored)
{
    if (kc->duplicates)
        printf("dropped %zu entr%s whose key came again later in the cache: one config, one "
               "trial (the last entry of each key kept, as Kernel Tuner reads the file)\n",
               kc->duplicates, kc->duplicates == 1 ? "y" : "ies");
    if (ignored && *ignored)
        printf("ignored the cache's parameters that the variant's space determines: %s\n", ignored);
    if (kc->nok == 0) {
        printf("no config of the cache ran: there is no optimum\n");
        return;
    }
    printf("Kernel Tuner's optimum: %.6g ms at cache key \"%s\"\n", kc->best_ms,
           kc->e[kc->best].key);
}

int cmd_import(int argc, char **argv)
{
    Opts o = {0};
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    CutuneError err = {0};
    CutuneKtCache kc;
    CutuneRegistry reg;
    memset(&reg, 0, sizeof reg);
    CutuneSpace *sp = NULL;
    CutuneDb *db = NULL;
    CutuneRecording rec;
    memset(&rec, 0, sizeof rec);
    size_t map[256];
    char ignored[1024] = "";
    int code = EXIT_OK;
    if (cutune_kt_load(o.cache, &kc, &err))
        return cli_fail("import", &err);
    const CutuneVariantDef *pl = NULL;
    if (cutune_registry_load(&reg, &err) == 0)
        pl = cutune_registry_find(&reg, o.variant);
    cutune_error_clear(&err);
    if (pl && strcmp(pl->op_name, o.op) != 0) {
        code = cli_usage_error("import", "variant %s is of op %s, not %s", o.variant, pl->op_name,
                               o.op);
        goto out;
    }
    if (pl && cutune_variant_load_space(pl, &sp, &err)) {
        code = cli_fail("import", &err);
        goto out;
    }
    if (sp && (sp->nparams > sizeof map / sizeof map[0] ||
               cutune_kt_match_space(&kc, sp, map, ignored, sizeof ignored, &err))) {
        fprintf(stderr,
                "cutune import: %s; nothing was written. The cache of another kernel "
                "replays as a foreign recording, under a name that is no installed "
                "variant: cutune import kernel-tuner %s --op %s --variant NAME "
                "--output FILE.csv\n",
                err.msg, o.cache, o.op);
        code = EXIT_FAILURE_;
        goto out;
    }
    if (!pl && !o.output) {
        fprintf(stderr,
                "cutune import: variant %s is not installed (`cutune list` shows those "
                "that are), so its trials could never be launched; nothing was "
                "written. To replay the cache, write it as a foreign recording: cutune "
                "import kernel-tuner %s --op %s --variant %s --output FILE.csv\n",
                o.variant, o.cache, o.op, o.variant);
        code = EXIT_FAILURE_;
        goto out;
    }
    CutuneProblem prob;
    char size[64];
    if ((code = import_size(&o, &kc, pl, &prob, size, sizeof size)))
        goto out;
    const char *device = o.device ? o.device : kc.device_name;
    if (!*device) {
        code = cli_usage_error("import",
                               "%s names no device (Kernel Tuner's C backend writes "
                               "none): give --device-name",
                               o.cache);
        goto out;
    }
    if (o.output) {
        const char *inputs[] = {o.cache};
        if (cutune_outfile_refuse_input(o.output, inputs, 1, &err) ||
            to_recording(&o, &kc, sp, map, size, device, &rec, &err) ||
            cutune_recording_write_csv(&rec, o.output, &err)) {
            code = cli_fail("import", &err);
            goto out;
        }
        printf("wrote %zu configs (%zu ok, %zu failed) of %s at %s on %s to %s%s\n", kc.n, kc.nok,
               kc.n - kc.nok, o.variant, size, device, o.output,
               pl ? "" : " (a foreign recording: its configs are the space)");
        say_optimum(&kc, ignored);
        goto out;
    }
    char path[4096];
    const char *db_path = o.db;
    if (!db_path) {
        if (cutune_db_default_path(path, sizeof path, &err)) {
            code = cli_fail("import", &err);
            goto out;
        }
        db_path = path;
    }
    if ((code = cli_refuse_db_folder("import", db_path)))
        goto out;
    char argv_text[2048] = "cutune";
    size_t k = strlen(argv_text);
    for (int i = 0; i < argc && k < sizeof argv_text; i++)
        k += (size_t)snprintf(argv_text + k, sizeof argv_text - k, " %s", argv[i]);
    CutuneKtImport in = {.cache = &kc,
                         .plugin = pl,
                         .space = sp,
                         .map = map,
                         .size = size,
                         .problem = &prob,
                         .device = device,
                         .argv = argv_text};
    CutuneKtImported done;
    if (cutune_db_open(db_path, 0, &db, &err) || cutune_kt_import_db(db, &in, &done, &err)) {
        code = cli_fail("import", &err);
        goto out;
    }
    printf("imported %zu configs (%zu ok, %zu failed) of %s at %s on %s (%s) into %s as run "
           "%lld\n",
           done.imported, kc.nok, kc.n - kc.nok, o.variant, size, device, done.device_uuid, db_path,
           (long long)done.run_id);
    say_optimum(&kc, ignored);
    printf("replay it: cutune replay %s --variant %s --size %s --device %s\n", db_path, o.variant,
           size, done.device_uuid);
    printf("cutune did not check these configs: no lookup answers with them until `cutune run "
           "%s --size %s` on that device has checked and timed them (it measures them first)\n",
           o.op, size);
out:
    cutune_recording_free(&rec);
    cutune_db_close(&db);
    cutune_space_free(sp);
    cutune_registry_free(&reg);
    cutune_kt_free(&kc);
    return code;
}
