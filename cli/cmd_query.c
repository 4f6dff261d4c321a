/* cutune query: the best verified config for (device, op, size). */
#include "cli.h"
#include "config_text.h"
#include "cutune/lookup.h"
#include "db.h"
#include "device.h"
#include "json.h"
#include "registry.h"
#include "utf8.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cutune query <op> --size S [--dtype T] [--layout L] [--epilogue E] [--device D]\n"
    "                    [--db PATH] [--fallback] [--json]\n"
    "\n"
    "Print the best verified config recorded for <op> at size S on device D: its variant,\n"
    "config, median time and rate. D is a CUDA ordinal (default 0; needs the device), or\n"
    "a UUID or part of a device name recorded in the database (works without a GPU).\n"
    "GPUs of one model (name, compute capability, SM count and memory all equal) share\n"
    "their results: a size tuned on another GPU of D's model answers (match same_model),\n"
    "and a name that several GPUs of one model share names that model. Exits 4 when\n"
    "nothing is recorded for that key.\n"
    "\n"
    "  --dtype T   the element type: fp32 (default), tf32, fp16 or bf16 (or in S:\n"
    "              4096x4096x4096-bf16-nt)\n"
    "  --layout L  nn (default) or nt (B stored N x K)\n"
    "  --epilogue E  none (default) or bias (C = A B + bias: 4096x1024x1024-bf16-nt-bias)\n"
    "  --fallback  answer as an application's lookup does (cutune/lookup.h): the exact\n"
    "              size on D, else on a GPU of its model, else the nearest size tuned on\n"
    "              D or its model, else one tuned on another device of the same compute\n"
    "              capability; says which it was\n"
    "  --json      one JSON object on stdout\n";

/* The canonical size text: what `cutune run` stored (ops may normalise, e.g. "N"). */
static int canonical_size(const char *op, const char *text, int dtype, int layout, int epilogue,
                          char *out, size_t len, CutuneError *err)
{
    CutuneProblem p;
    int rc = cutune_problem_parse(text, &p, err);
    if (rc)
        return rc;
    if (dtype >= 0)
        p.dtype = dtype;
    if (layout >= 0)
        p.layout = layout;
    if (epilogue >= 0)
        p.epilogue = epilogue;
    CutuneRegistry reg;
    if (cutune_registry_load(&reg, NULL) == 0) {
        const CutuneOpDef *d = cutune_registry_op(&reg, op);
        char msg[256] = "";
        if (d && cutune_op_problem_check(d->op, &p, msg, sizeof msg) != 0) {
            cutune_registry_free(&reg);
            return cutune_error(err, CUTUNE_ERR_INVALID, "size '%s' is not valid for %s: %s", text,
                                op, msg);
        }
        cutune_registry_free(&reg);
    }
    cutune_problem_format(&p, out, len);
    return 0;
}

/* The opening of both JSON answers, on stdout: {"op": ..., "size": ... */
static void json_head(CutuneJson *j, const char *op, const char *size)
{
    cutune_json_init(j, stdout, 0);
    cutune_json_begin_object(j);
    cutune_json_member_string(j, "op", op);
    cutune_json_member_string(j, "size", size);
}

/* The members both JSON answers share, from "device" to "config_text". The config was
 * checked (check_config) before. */
static void json_answer(CutuneJson *j, const char *device_name, const char *device_uuid,
                        const char *variant, const char *version, const CutuneConfigPairs *pairs,
                        const char *config)
{
    cutune_json_key(j, "device");
    cutune_json_begin_object(j);
    cutune_json_member_string(j, "name", device_name);
    cutune_json_member_string(j, "uuid", device_uuid);
    cutune_json_end_object(j);
    cutune_json_member_string(j, "variant", variant);
    cutune_json_member_string(j, "variant_version", version);
    cutune_json_key(j, "config");
    cutune_config_pairs_json(j, pairs);
    cutune_json_member_string(j, "config_text", config);
}

/* The answer's config, strictly: a database may be tampered with or foreign, and what
 * query prints is read by programs. */
static int check_config(const char *config, int64_t trial_id, CutuneConfigPairs *pairs,
                        CutuneError *err)
{
    CutuneError perr = {0};
    if (cutune_config_pairs_parse(config, pairs, &perr) == 0)
        return 0;
    return cutune_error(err, CUTUNE_ERR_PARSE,
                        "the best config recorded (trial %lld) is malformed, so it is not "
                        "given: %s; the database was changed by something other than cutune",
                        (long long)trial_id, perr.msg);
}

/* Finish a JSON answer on stdout; a broken writer is a bug, a stream error is left for
 * main's final check of stdout. */
static int json_done(CutuneJson *j, CutuneError *err)
{
    int rc = cutune_json_finish(j);
    if (rc == CUTUNE_ERR_INVALID)
        return cutune_error(err, rc, "the JSON writer was misused (a bug in cutune)");
    if (cutune_json_replaced(j))
        fprintf(stderr,
                "cutune query: warning: %zu bytes of text were not valid UTF-8 and are "
                "written as U+FFFD\n",
                cutune_json_replaced(j));
    return 0;
}

/* "  label  text" with the text made safe for a terminal. */
static void line(const char *label, const char *text)
{
    printf("  %-8s ", label);
    cutune_text_write(stdout, text, 0);
}

/* The variant, its version and the config of an answer, as text. */
static void variant_lines(const char *variant, const char *version, const char *config)
{
    line("variant", variant);
    printf(" (version ");
    cutune_text_write(stdout, version, 0);
    printf(")\n");
    line("config", config);
}

/* --fallback: the lookup API's ladder for (device, op, size). `dev` holds at least the
 * UUID; its compute capability, when known (cc_major > 0), lets a device never tuned
 * match another of its architecture. */
static int query_fallback(const char *db_path, const CutuneDeviceInfo *dev, const char *op,
                          const char *size, int json, CutuneError *err)
{
    const char *uuid = dev->uuid[0] ? dev->uuid : dev->name; /* a model has no UUID */
    CutuneLookupSettings set;
    cutune_lookup_default_settings(&set);
    set.db_path = db_path;
    CutuneLookup *h = NULL;
    int rc = cutune_open(&h, &set, err);
    if (rc)
        return rc;
    CutuneLookupResult r;
    rc = cutune_lookup(h, dev, op, size, &r, err);
    cutune_close(&h);
    if (rc)
        return rc;
    CutuneConfigPairs pairs;
    if ((rc = check_config(r.config, r.trial_id, &pairs, err)))
        return rc;
    if (json) {
        CutuneJson j;
        json_head(&j, r.op, r.size);
        cutune_json_member_string(&j, "match", cutune_match_name(r.match));
        cutune_json_member_string(&j, "tuned_size", r.tuned_size);
        cutune_json_member_number(&j, "distance", r.distance);
        cutune_json_member_string(&j, "checked_size", r.checked_size);
        json_answer(&j, r.device_name, r.device_uuid, r.variant, r.variant_version, &pairs,
                    r.config);
        cutune_json_member_number(&j, "median_ms", r.median_ms);
        cutune_json_member_number(&j, "gflops", r.gflops);
        cutune_json_member_int(&j, "trial_id", r.trial_id);
        cutune_json_end_object(&j);
        return json_done(&j, err);
    }
    cutune_text_write(stdout, r.op, 0);
    putchar(' ');
    cutune_text_write(stdout, r.size, 0);
    printf(" on ");
    cutune_text_write(stdout, uuid, 0);
    printf(": %s match\n", cutune_match_name(r.match));
    line("tuned", r.tuned_size);
    printf(" on ");
    cutune_text_write(stdout, r.device_name, 0);
    printf(" (");
    cutune_text_write(stdout, r.device_uuid, 0);
    printf(")");
    if (r.match != CUTUNE_MATCH_EXACT)
        printf(", distance %.3g", r.distance);
    putchar('\n');
    variant_lines(r.variant, r.variant_version, r.config);
    line("checked", r.checked_size);
    if (strcmp(r.checked_size, r.tuned_size) != 0)
        printf(" (a ragged size near the tuned one: this config is right beyond its own size)");
    printf("\n  median   %.4f ms at the tuned size", r.median_ms);
    if (r.gflops > 0)
        printf(", %.1f GFLOP/s", r.gflops);
    printf("\n  trial    #%lld\n", (long long)r.trial_id);
    return 0;
}

/* The model of a device of this machine (cutune/lookup.h's ladder): name, compute
 * capability, SM count and memory. */
static void model_of_device(const CutuneDeviceInfo *dev, CutuneDbModel *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->uuid, sizeof m->uuid, "%s", dev->uuid);
    snprintf(m->name, sizeof m->name, "%s", dev->name);
    m->cc_major = dev->cc_major;
    m->cc_minor = dev->cc_minor;
    m->sm_count = dev->sm_count;
    m->total_mem = (int64_t)dev->total_mem;
}

static void device_of_model(const CutuneDbModel *m, CutuneDeviceInfo *dev)
{
    memset(dev, 0, sizeof *dev);
    dev->index = -1;
    snprintf(dev->uuid, sizeof dev->uuid, "%s", m->uuid);
    snprintf(dev->name, sizeof dev->name, "%s", m->name);
    dev->cc_major = m->cc_major;
    dev->cc_minor = m->cc_minor;
    dev->sm_count = m->sm_count;
    dev->total_mem = (uint64_t)m->total_mem;
}

/* The first two steps of the ladder: this GPU's best at this size (exact), else the fastest
 * of the other GPUs of its model (same_model; a model asked for by name starts there). A
 * miss keeps the first step's message, which says why a key has no best. */
static int best_of_gpu_or_model(CutuneDb *db, const char *uuid, const CutuneDbModel *m,
                                const char *op, const char *size, CutuneBest *b, CutuneMatch *match,
                                CutuneError *err)
{
    *match = CUTUNE_MATCH_EXACT;
    CutuneError first = {0};
    int rc = CUTUNE_ERR_NOT_FOUND;
    if (uuid[0] && (rc = cutune_db_best(db, uuid, op, size, b, &first)) != CUTUNE_ERR_NOT_FOUND)
        return rc ? cutune_error(err, rc, "%s", first.msg) : 0;
    CutuneError other = {0};
    if ((rc = cutune_db_best_model(db, m, uuid, op, size, b, &other)) == 0)
        *match = CUTUNE_MATCH_SAME_MODEL;
    else if (rc == CUTUNE_ERR_NOT_FOUND && uuid[0])
        cutune_error(err, rc, "%s", first.msg);
    else if (rc == CUTUNE_ERR_NOT_FOUND)
        cutune_error(err, rc,
                     "database %s has no verified config for %s %s on any of its %d GPUs of "
                     "model %s; tune it on one of them first",
                     cutune_db_path(db), op, size, m->gpus, m->name);
    else
        cutune_error(err, rc, "%s", other.msg);
    return rc;
}

/* "  match    exact ..." : the step of the ladder that answered. */
static void match_line(CutuneMatch match, const CutuneDbModel *m)
{
    if (match == CUTUNE_MATCH_EXACT)
        printf("  match    exact: tuned on this GPU at this size\n");
    else
        printf("  match    same_model: tuned at this size on a GPU of the same model (%d SMs, "
               "%.1f GiB)\n",
               m->sm_count, (double)m->total_mem / (1 << 30));
}

int cmd_query(int argc, char **argv)
{
    const char *device = "0", *size = NULL, *db_path = NULL;
    int json = 0, fallback = 0, dtype = -1, layout = -1, epilogue = -1;
    const CliOption opts[] = {
        CLI_TEXT("device", &device),
        CLI_TEXT("size", &size),
        CLI_CALL("dtype", cli_dtype, &dtype),
        CLI_CALL("layout", cli_layout, &layout),
        CLI_CALL("epilogue", cli_epilogue, &epilogue),
        CLI_TEXT("db", &db_path),
        CLI_FLAG("json", &json),
        CLI_FLAG("fallback", &fallback),
        CLI_END,
    };
    int parsed = cli_parse_options("query", help, argc, argv, opts);
    if (parsed >= 0)
        return parsed;
    if (optind != argc - 1)
        return cli_usage_error("query",
                               "expected one op, e.g. cutune query matmul --size 4096x4096x4096");
    if (!size)
        return cli_usage_error("query", "--size is required");
    const char *op = argv[optind];

    CutuneError err = {0};
    char path[4096], canon[64], uuid[64];
    CutuneDb *db = NULL;
    int rc;
    if ((rc = canonical_size(op, size, dtype, layout, epilogue, canon, sizeof canon, &err)))
        return cli_usage_error("query", "--size: %s", err.msg);
    if (!db_path) {
        if ((rc = cutune_db_default_path(path, sizeof path, &err)))
            return cli_fail("query", &err);
        db_path = path;
    }
    /* the device asked for: all of it for an ordinal, else its UUID and model, or (a name
     * that several GPUs of one model share) the model alone, uuid "" */
    CutuneDeviceInfo dev;
    memset(&dev, 0, sizeof dev);
    CutuneDbModel model;
    memset(&model, 0, sizeof model);
    int ordinal = -1;
    if (device[strspn(device, "0123456789")] == '\0' &&
        (rc = cli_parse_int("query", "--device", device, 0, CLI_MAX_DEVICE, &ordinal)))
        return rc; /* an empty name, or an ordinal out of range */
    if (ordinal >= 0) {
        if ((rc = cutune_device_open(ordinal, &dev, &err))) {
            if (rc == CUTUNE_ERR_NO_DEVICE) {
                cutune_error_clear(&err);
                cutune_error(&err, CUTUNE_ERR_NO_DEVICE,
                             "device %d needs a CUDA device to resolve, and there is none here; "
                             "pass --device with a name or UUID recorded in %s",
                             ordinal, db_path);
            }
            goto fail;
        }
        snprintf(uuid, sizeof uuid, "%s", dev.uuid);
        model_of_device(&dev, &model);
        if ((rc = cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err)))
            goto fail;
    } else if ((rc = cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err)) ||
               (rc = cutune_db_find_model(db, device, &model, &err))) {
        goto fail;
    } else {
        device_of_model(&model, &dev);
        snprintf(uuid, sizeof uuid, "%s", model.uuid);
    }

    if (fallback) {
        cutune_db_close(&db);
        if ((rc = query_fallback(db_path, &dev, op, canon, json, &err)))
            return cli_fail("query", &err);
        return EXIT_OK;
    }
    CutuneBest b;
    CutuneMatch match;
    if ((rc = best_of_gpu_or_model(db, uuid, &model, op, canon, &b, &match, &err)))
        goto fail;
    CutuneConfigPairs pairs;
    if ((rc = check_config(b.config, b.trial_id, &pairs, &err)))
        goto fail;
    if (json) {
        CutuneJson j;
        json_head(&j, b.op, b.size);
        cutune_json_member_string(&j, "match", cutune_match_name(match));
        json_answer(&j, b.device_name, b.device_uuid, b.variant, b.variant_version, &pairs,
                    b.config);
        cutune_json_member_number(&j, "median_ms", b.median_ms);
        cutune_json_member_number(&j, "min_ms", b.min_ms);
        cutune_json_member_int(&j, "samples", b.samples);
        cutune_json_member_number(&j, "gflops", b.gflops);
        cutune_json_member_number(&j, "gbps", b.gbps);
        cutune_json_member_number(&j, "error", b.error);
        cutune_json_member_int(&j, "trial_id", b.trial_id);
        cutune_json_member_string(&j, "updated_at", b.updated_at);
        cutune_json_end_object(&j);
        if ((rc = json_done(&j, &err)))
            goto fail;
    } else {
        cutune_text_write(stdout, b.op, 0);
        putchar(' ');
        cutune_text_write(stdout, b.size, 0);
        printf(" on ");
        cutune_text_write(stdout, b.device_name, 0);
        printf(" (");
        cutune_text_write(stdout, b.device_uuid, 0);
        printf(")\n");
        match_line(match, &model);
        variant_lines(b.variant, b.variant_version, b.config);
        printf("\n  median   %.4f ms over %d samples (min %.4f ms)", b.median_ms, b.samples,
               b.min_ms);
        if (b.gflops > 0)
            printf(", %.1f GFLOP/s", b.gflops);
        else if (b.gbps > 0)
            printf(", %.1f GB/s", b.gbps);
        printf("\n  checked  relative error %.3g\n", b.error);
        printf("  trial    #%lld, recorded ", (long long)b.trial_id);
        cutune_text_write(stdout, b.updated_at, 0);
        printf(" UTC\n");
    }
    cutune_db_close(&db);
    return EXIT_OK;
fail:
    cutune_db_close(&db);
    return cli_fail("query", &err);
}
