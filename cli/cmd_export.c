/* cutune export: every best config as JSON, CSV, or a C header for applications that will
 * not link SQLite (or cutune). */
#include "cli.h"
#include "cliteral.h"
#include "config_text.h"
#include "csv.h"
#include "db.h"
#include "json.h"
#include "outfile.h"
#include "utf8.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: cutune export [--format json|csv|header] [--device D] [--op OP] [--db PATH]\n"
    "                     [--output FILE]\n"
    "       cutune export --format kernel-tuner --variant V --size S [--device D] [--db PATH]\n"
    "                     [--output FILE]\n"
    "\n"
    "Write the best verified config of every (device, op, size) in the database, on stdout\n"
    "or to FILE:\n"
    "  json     {\"generator\": ..., \"configs\": [{device, op, size, dtype, layout, epilogue,\n"
    "           variant, config, ...}]} (dtype, layout and epilogue: what the size names;\n"
    "           fp32, nn and none by default)\n"
    "  csv      one header line, then one line per config (RFC 4180 quoting)\n"
    "  header   a C header with a static table of the configs per device and problem size,\n"
    "           and cutune_tuned_find(uuid, op, size) / cutune_tuned_param(): no SQLite or\n"
    "           libcutune needed to use it\n"
    "  kernel-tuner  every config measured of installed variant V (its installed version) at\n"
    "           size S on device D (needed when the database holds several), as the cache\n"
    "           file Kernel Tuner's tune_kernel(cache=...) reads, to resume or simulate from:\n"
    "           per config the trial the best table would take (its fastest verified\n"
    "           median, so the cache's optimum is `cutune query`'s; a config never\n"
    "           verified, its newest trial); its median is the time (failures:\n"
    "           InvalidConfig for skipped_resources, CompilationFailedConfig, and\n"
    "           RuntimeFailedConfig for the others); problem_size is S's dimensions and\n"
    "           kernel_name the plugin's kernel: pass the same to tune_kernel\n"
    "\n"
    "  --device D   only device D: a UUID or part of a device name recorded in the database\n"
    "  --op OP      only this op\n"
    "  --output F   write F whole or not at all (through a temporary file in its folder);\n"
    "               refused when F is the database or one of its journal files\n"
    "A best config that is not NAME=integer pairs (a database changed by something else) is\n"
    "left out with a warning, and so is, in a header, one whose times are not finite.\n"
    "Works without a GPU. Exits 4 when a --device matches nothing.\n";

typedef struct Export {
    FILE *f;
    int format;      /* 0 json, 1 csv, 2 header */
    size_t n;        /* rows written */
    size_t skipped;  /* rows left out, each with a warning */
    int header_pass; /* header: 0 parameter arrays, 1 the table */
    CutuneJson json;
} Export;

/* The row's config, parsed strictly; a row whose config is not NAME=integer pairs (a
 * tampered or foreign database) is left out, with a warning saying which and why, and so
 * is one whose numbers C cannot hold (the header has no null). The header's two passes
 * read one snapshot and decide alike, so that they agree. */
static int row_ok(const CutuneBestRow *r, Export *e, CutuneConfigPairs *pairs)
{
    CutuneError perr = {0};
    const char *why = NULL;
    if (cutune_config_pairs_parse(r->config, pairs, &perr) != 0)
        why = perr.msg;
    else if (e->format == 2 && !(isfinite(r->median_ms) && isfinite(r->gflops)))
        why = "its median or rate is not a finite number";
    if (!why)
        return 1;
    if (e->format != 2 || e->header_pass == 0) {
        fprintf(stderr, "cutune export: warning: left out the best config of trial %lld (",
                (long long)r->trial_id);
        cutune_text_write(stderr, r->op, 64);
        fputc(' ', stderr);
        cutune_text_write(stderr, r->size, 64);
        fputs(" on ", stderr);
        cutune_text_write(stderr, r->device_uuid, 64);
        fputs("): ", stderr);
        cutune_text_write(stderr, why, 300);
        fputc('\n', stderr);
        e->skipped++;
    }
    return 0;
}

/* The element type, layout and epilogue a size names ("fp32", "nn" and "none" when it names
 * none). */
static void kind_of(const char *size, const char **dtype, const char **layout,
                    const char **epilogue)
{
    CutuneProblem p;
    memset(&p, 0, sizeof p);
    (void)cutune_problem_parse(size, &p, NULL);
    *dtype = cutune_dtype_name(p.dtype);
    *layout = cutune_layout_name(p.layout);
    *epilogue = cutune_epilogue_name(p.epilogue);
}

static void json_row(const CutuneBestRow *r, const CutuneConfigPairs *pairs, Export *e)
{
    const char *dtype, *layout, *epilogue;
    kind_of(r->size, &dtype, &layout, &epilogue);
    CutuneJson *j = &e->json;
    char cc[32];
    snprintf(cc, sizeof cc, "%d.%d", r->cc_major, r->cc_minor);
    cutune_json_begin_object(j);
    cutune_json_member_string(j, "device_uuid", r->device_uuid);
    cutune_json_member_string(j, "device", r->device_name);
    cutune_json_member_string(j, "cc", cc);
    cutune_json_member_string(j, "op", r->op);
    cutune_json_member_string(j, "size", r->size);
    cutune_json_member_string(j, "dtype", dtype);
    cutune_json_member_string(j, "layout", layout);
    cutune_json_member_string(j, "epilogue", epilogue);
    cutune_json_member_string(j, "variant", r->variant);
    cutune_json_member_string(j, "variant_version", r->variant_version);
    cutune_json_key(j, "config");
    cutune_config_pairs_json(j, pairs);
    cutune_json_member_string(j, "config_text", r->config);
    cutune_json_member_number(j, "median_ms", r->median_ms);
    cutune_json_member_number(j, "min_ms", r->min_ms);
    cutune_json_member_number(j, "gflops", r->gflops);
    cutune_json_member_number(j, "gbps", r->gbps);
    cutune_json_member_number(j, "error", r->error);
    cutune_json_member_int(j, "samples", r->samples);
    cutune_json_member_int(j, "trial_id", r->trial_id);
    cutune_json_member_string(j, "updated_at", r->updated_at);
    cutune_json_end_object(j);
}

static void csv_row(const CutuneBestRow *r, Export *e)
{
    FILE *f = e->f;
    char cc[32], num[6][40];
    snprintf(cc, sizeof cc, "%d.%d", r->cc_major, r->cc_minor);
    snprintf(num[0], sizeof num[0], "%.17g", r->median_ms);
    snprintf(num[1], sizeof num[1], "%.17g", r->min_ms);
    snprintf(num[2], sizeof num[2], "%.17g", r->gflops);
    snprintf(num[3], sizeof num[3], "%.17g", r->gbps);
    snprintf(num[4], sizeof num[4], "%d", r->samples);
    snprintf(num[5], sizeof num[5], "%lld", (long long)r->trial_id);
    const char *dtype, *layout, *epilogue;
    kind_of(r->size, &dtype, &layout, &epilogue);
    const char *fields[] =
        {r->device_uuid, r->device_name,     cc,        r->op,  r->size, dtype,  layout, epilogue,
         r->variant,     r->variant_version, r->config, num[0], num[1],  num[2], num[3], num[4],
         num[5],         r->updated_at};
    size_t n = sizeof fields / sizeof fields[0];
    for (size_t i = 0; i < n; i++)
        cutune_csv_field(f, fields[i], i + 1 == n);
}

/* The header's entries come in two passes: the parameter arrays, then the table. */
static void header_params(const CutuneConfigPairs *pairs, Export *e)
{
    FILE *f = e->f;
    fprintf(f, "static const CutuneTunedParam cutune_tuned_params_%zu[] = {", e->n);
    if (pairs->count == 0)
        fputs("{\"\", 0LL}", f); /* a config without parameters: C has no empty array */
    for (size_t i = 0; i < pairs->count; i++) {
        fputs(i ? ", {" : "{", f);
        cutune_c_string(f, pairs->names[i]);
        fputs(", ", f);
        cutune_c_int64(f, pairs->values[i]);
        fputc('}', f);
    }
    fputs("};\n", f);
}

/* The C literals of the n strings s[], separated by ", ". */
static void c_strings(FILE *f, size_t n, const char *const *s)
{
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        cutune_c_string(f, s[i]);
    }
}

static void header_entry(const CutuneBestRow *r, const CutuneConfigPairs *pairs, Export *e)
{
    FILE *f = e->f;
    CutuneProblem p;
    memset(&p, 0, sizeof p);
    (void)cutune_problem_parse(r->size, &p, NULL); /* 0 dims if the size is not ours */
    fputs("    {", f);
    c_strings(f, 2, (const char *const[]){r->device_uuid, r->device_name});
    fprintf(f, ", %d, %d, ", r->cc_major, r->cc_minor);
    c_strings(f, 5,
              (const char *const[]){r->op, r->size, cutune_dtype_name(p.dtype),
                                    cutune_layout_name(p.layout),
                                    cutune_epilogue_name(p.epilogue)});
    fprintf(f, ", %d, {", p.ndims);
    for (int i = 0; i < 4; i++) {
        fputs(i ? ", " : "", f);
        cutune_c_int64(f, i < p.ndims ? p.dim[i] : 0);
    }
    fputs("},\n     ", f);
    c_strings(f, 3, (const char *const[]){r->variant, r->variant_version, r->config});
    fprintf(f, ", %zu, cutune_tuned_params_%zu, ", pairs->count, e->n);
    cutune_c_double(f, r->median_ms);
    fputs(", ", f);
    cutune_c_double(f, r->gflops);
    fputs("},\n", f);
}

static int pass_row(const CutuneBestRow *r, void *user)
{
    Export *e = user;
    CutuneConfigPairs pairs;
    if (!row_ok(r, e, &pairs))
        return 0;
    if (e->format == 0)
        json_row(r, &pairs, e);
    else if (e->format == 1)
        csv_row(r, e);
    else if (e->header_pass == 0)
        header_params(&pairs, e);
    else
        header_entry(r, &pairs, e);
    e->n++;
    return 0;
}

static const char header_top[] =
    "#ifndef CUTUNE_TUNED_CONFIGS_H\n"
    "#define CUTUNE_TUNED_CONFIGS_H\n"
    "\n"
    "#include <string.h>\n"
    "\n"
    "typedef struct CutuneTunedParam {\n"
    "    const char *name;\n"
    "    long long value;\n"
    "} CutuneTunedParam;\n"
    "\n"
    "/* The best verified config of one op and problem size on one device. */\n"
    "typedef struct CutuneTunedConfig {\n"
    "    const char *device_uuid, *device_name;\n"
    "    int cc_major, cc_minor;\n"
    "    const char *op;\n"
    "    const char *size;        /* \"MxNxK\" for matmul, \"MxNxK-bf16-nt\" in bf16 with B as N x K */\n"
    "    const char *dtype;       /* \"fp32\", \"tf32\", \"fp16\" or \"bf16\" */\n"
    "    const char *layout;      /* \"nn\" or \"nt\" */\n"
    "    const char *epilogue;    /* \"none\" or \"bias\" (C = A B + bias: \"MxNxK-bf16-nt-bias\") */\n"
    "    int ndims;\n"
    "    long long dims[4];\n"
    "    const char *variant, *variant_version;\n"
    "    const char *config;      /* canonical text, \"TILE=32,PAD=1\" */\n"
    "    int nparams;\n"
    "    const CutuneTunedParam *params;\n"
    "    double median_ms, gflops;\n"
    "} CutuneTunedConfig;\n"
    "\n";

static const char header_bottom[] =
    "\n"
    "/* The entry for (device UUID, op, size), or NULL: exact matches only. */\n"
    "static inline const CutuneTunedConfig *cutune_tuned_find(const char *device_uuid,\n"
    "                                                         const char *op, const char *size)\n"
    "{\n"
    "    for (int i = 0; i < CUTUNE_TUNED_COUNT; i++)\n"
    "        if (!strcmp(cutune_tuned_configs[i].device_uuid, device_uuid) &&\n"
    "            !strcmp(cutune_tuned_configs[i].op, op) && !strcmp(cutune_tuned_configs[i].size, size))\n"
    "            return &cutune_tuned_configs[i];\n"
    "    return NULL;\n"
    "}\n"
    "\n"
    "/* The value of parameter `name` of a config, or `fallback`. */\n"
    "static inline long long cutune_tuned_param(const CutuneTunedConfig *c, const char *name,\n"
    "                                           long long fallback)\n"
    "{\n"
    "    for (int i = 0; c && i < c->nparams; i++)\n"
    "        if (!strcmp(c->params[i].name, name))\n"
    "            return c->params[i].value;\n"
    "    return fallback;\n"
    "}\n"
    "\n"
    "#endif\n";

int cmd_export(int argc, char **argv)
{
    const char *format = "json", *device = NULL, *op = NULL, *db_path = NULL, *output = NULL;
    const char *variant = NULL, *size = NULL;
    const CliOption opts[] = {
        CLI_TEXT("format", &format),   CLI_TEXT("device", &device),
        CLI_TEXT("op", &op),           CLI_TEXT("db", &db_path),
        CLI_TEXT("output", &output),   CLI_TEXT("size", &size),
        CLI_TEXT("variant", &variant), CLI_END,
    };
    int parsed = cli_parse_options("export", help, argc, argv, opts);
    if (parsed >= 0)
        return parsed;
    if (optind != argc)
        return cli_usage_error("export", "unexpected argument '%s'", argv[optind]);
    if (!strcmp(format, "kernel-tuner"))
        return cli_export_kernel_tuner(db_path, device, variant, size, output);
    if (variant || size)
        return cli_usage_error("export", "--variant and --size belong to --format kernel-tuner");
    Export e = {.f = stdout};
    if (!strcmp(format, "json"))
        e.format = 0;
    else if (!strcmp(format, "csv"))
        e.format = 1;
    else if (!strcmp(format, "header"))
        e.format = 2;
    else
        return cli_usage_error("export", "unknown format '%s': json, csv, header or kernel-tuner",
                               format);

    CutuneError err = {0};
    char path[4096], uuid[64];
    CutuneDb *db = NULL;
    CutuneOutFile out = {0};
    int rc;
    if (!db_path) {
        if ((rc = cutune_db_default_path(path, sizeof path, &err)))
            return cli_fail("export", &err);
        db_path = path;
    }
    if (output && (rc = cli_refuse_db_output("export", output, db_path)))
        return rc;
    if ((rc = cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err)) ||
        (device && (rc = cutune_db_find_device(db, device, uuid, sizeof uuid, &err))))
        goto fail;
    if (output) {
        if ((rc = cutune_outfile_open(&out, output, &err)))
            goto fail;
        e.f = out.f;
    }
    const char *dev = device ? uuid : NULL;
    /* every pass reads one snapshot: a run writing meanwhile cannot make them disagree */
    if ((rc = cutune_db_read_begin(db, &err)))
        goto fail;
    if (e.format == 0) {
        cutune_json_init(&e.json, e.f, 2);
        cutune_json_begin_object(&e.json);
        cutune_json_member_string(&e.json, "generator", "cutune " CUTUNE_VERSION);
        cutune_json_member_string(&e.json, "database", db_path);
        cutune_json_key(&e.json, "configs");
        cutune_json_begin_array(&e.json);
    } else if (e.format == 1) {
        fputs("device_uuid,device,cc,op,size,dtype,layout,epilogue,variant,variant_version,config,"
              "median_ms,min_ms,gflops,gbps,samples,trial_id,updated_at\n",
              e.f);
    } else {
        time_t now = time(NULL);
        char when[32];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", gmtime(&now));
        fprintf(e.f,
                "/* Generated by `cutune export --format header` (cutune %s) on %s UTC\n"
                " * from ",
                CUTUNE_VERSION, when);
        cutune_c_comment_text(e.f, db_path);
        fputs(".\n * The best verified config per device and problem size: no SQLite or "
              "libcutune needed. */\n",
              e.f);
        fputs(header_top, e.f);
        if ((rc = cutune_db_best_foreach(db, dev, op, pass_row, &e, &err)))
            goto fail;
        fprintf(e.f, "\n#define CUTUNE_TUNED_COUNT %zu\n", e.n);
        fprintf(e.f, "static const CutuneTunedConfig cutune_tuned_configs[%s] = {\n",
                e.n ? "" : "1");
        e.header_pass = 1;
    }
    size_t first_pass = e.n;
    e.n = 0;
    if ((rc = cutune_db_best_foreach(db, dev, op, pass_row, &e, &err)))
        goto fail;
    cutune_db_read_end(db);
    if (e.format == 2 && e.n != first_pass) {
        rc = cutune_error(&err, CUTUNE_ERR_DB,
                          "the database changed between the header's two "
                          "passes (%zu and %zu rows); nothing was written",
                          first_pass, e.n);
        goto fail;
    }
    if (e.format == 0) {
        cutune_json_end_array(&e.json);
        cutune_json_end_object(&e.json);
        if ((rc = cutune_json_finish(&e.json)) == CUTUNE_ERR_INVALID) {
            rc = cutune_error(&err, rc, "the JSON writer was misused (a bug in cutune)");
            goto fail;
        }
        if (cutune_json_replaced(&e.json))
            fprintf(stderr,
                    "cutune export: warning: %zu bytes of text were not valid UTF-8 and "
                    "are written as U+FFFD\n",
                    cutune_json_replaced(&e.json));
    } else if (e.format == 2) {
        fprintf(e.f, "%s};\n%s", e.n ? "" : "    {0},\n", header_bottom);
    }
    if (e.skipped)
        fprintf(stderr, "cutune export: %zu malformed row(s) left out, %zu written\n", e.skipped,
                e.n);
    if (output && (rc = cutune_outfile_commit(&out, &err)))
        goto fail;
    cutune_db_close(&db);
    return EXIT_OK;
fail:
    cutune_outfile_abort(&out); /* the previous output file stays as it was */
    cutune_db_read_end(db);
    cutune_db_close(&db);
    return cli_fail("export", &err);
}
