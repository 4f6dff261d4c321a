/* cutune export: every best config as JSON, CSV, or a C header for applications that will
 * not link SQLite (or cutune). */
#include "cli.h"
#include "db.h"
#include "outfile.h"
#include "util.h"

#include <getopt.h>
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
    "  json     {\"generator\": ..., \"configs\": [{device, op, size, variant, config, ...}]}\n"
    "  csv      one header line, then one line per config (RFC 4180 quoting)\n"
    "  header   a C header with a static table of the configs per device and problem size,\n"
    "           and cutune_tuned_find(uuid, op, size) / cutune_tuned_param(): no SQLite or\n"
    "           libcutune needed to use it\n"
    "  kernel-tuner  every config measured of installed variant V (its installed version) at\n"
    "           size S on device D (needed when the database holds several), as the cache\n"
    "           file Kernel Tuner's tune_kernel(cache=...) reads, to resume or simulate from:\n"
    "           the newest trial of each config; its median is the time (failures:\n"
    "           InvalidConfig for skipped_resources, CompilationFailedConfig, and\n"
    "           RuntimeFailedConfig for the others); problem_size is S's dimensions and\n"
    "           kernel_name the plugin's kernel: pass the same to tune_kernel\n"
    "\n"
    "  --device D   only device D: a UUID or part of a device name recorded in the database\n"
    "  --op OP      only this op\n"
    "Works without a GPU. Exits 4 when a --device matches nothing.\n";

typedef struct Export {
    FILE *f;
    int format; /* 0 json, 1 csv, 2 header */
    size_t n;
} Export;

static void csv_field(FILE *f, const char *s, int last)
{
    if (strpbrk(s, ",\"\r\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

/* A C string literal; octal escapes (three digits) cannot run into the next character. */
static void c_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f || c == '?') /* '?': no trigraphs */
            fprintf(f, "\\%03o", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Call fn(name, value) for each NAME=value of a canonical config. */
static void config_pairs(const char *config, void (*fn)(FILE *, const char *, const char *, int),
                         FILE *f)
{
    char *copy = strdup(config), *save = NULL;
    int i = 0;
    for (char *kv = copy ? strtok_r(copy, ",", &save) : NULL; kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = '\0';
        fn(f, kv, eq + 1, i++);
    }
    free(copy);
}

static void json_pair(FILE *f, const char *name, const char *value, int i)
{
    fputs(i ? ", " : "", f);
    cli_json_string(f, name);
    fprintf(f, ": %s", value);
}

static void c_pair(FILE *f, const char *name, const char *value, int i)
{
    fputs(i ? ", {" : "{", f);
    c_string(f, name);
    fprintf(f, ", %sLL}", value);
}

static int json_row(const CutuneBestRow *r, Export *e)
{
    FILE *f = e->f;
    fputs(e->n ? ",\n    {" : "\n    {", f);
    fputs("\"device_uuid\": ", f);
    cli_json_string(f, r->device_uuid);
    fputs(", \"device\": ", f);
    cli_json_string(f, r->device_name);
    fprintf(f, ", \"cc\": \"%d.%d\", \"op\": ", r->cc_major, r->cc_minor);
    cli_json_string(f, r->op);
    fputs(", \"size\": ", f);
    cli_json_string(f, r->size);
    fputs(", \"variant\": ", f);
    cli_json_string(f, r->variant);
    fputs(", \"variant_version\": ", f);
    cli_json_string(f, r->variant_version);
    fputs(", \"config\": {", f);
    config_pairs(r->config, json_pair, f);
    fputs("}, \"config_text\": ", f);
    cli_json_string(f, r->config);
    fprintf(f, ", \"median_ms\": %.17g, \"min_ms\": %.17g, \"gflops\": %.17g, \"gbps\": %.17g, "
               "\"error\": %.17g, \"samples\": %d, \"trial_id\": %lld, \"updated_at\": ",
            r->median_ms, r->min_ms, r->gflops, r->gbps, r->error, r->samples,
            (long long)r->trial_id);
    cli_json_string(f, r->updated_at);
    fputc('}', f);
    return 0;
}

static int csv_row(const CutuneBestRow *r, Export *e)
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
    const char *fields[] = {r->device_uuid, r->device_name, cc, r->op, r->size, r->variant,
                            r->variant_version, r->config, num[0], num[1], num[2], num[3],
                            num[4], num[5], r->updated_at};
    size_t n = sizeof fields / sizeof fields[0];
    for (size_t i = 0; i < n; i++)
        csv_field(f, fields[i], i + 1 == n);
    return 0;
}

/* The header's entries come in two passes: the parameter arrays, then the table. */
static int header_params(const CutuneBestRow *r, Export *e)
{
    fprintf(e->f, "static const CutuneTunedParam cutune_tuned_params_%zu[] = {", e->n);
    if (!strchr(r->config, '='))
        fputs("{\"\", 0LL}", e->f); /* a config without parameters */
    config_pairs(r->config, c_pair, e->f);
    fputs("};\n", e->f);
    return 0;
}

static int header_entry(const CutuneBestRow *r, Export *e)
{
    FILE *f = e->f;
    CutuneProblem p;
    memset(&p, 0, sizeof p);
    (void)cutune_problem_parse(r->size, &p, NULL); /* 0 dims if the size is not ours */
    int nparams = strchr(r->config, '=') ? 1 : 0;
    for (const char *c = r->config; *c; c++)
        nparams += *c == ',';
    fputs("    {", f);
    c_string(f, r->device_uuid);
    fputs(", ", f);
    c_string(f, r->device_name);
    fprintf(f, ", %d, %d, ", r->cc_major, r->cc_minor);
    c_string(f, r->op);
    fputs(", ", f);
    c_string(f, r->size);
    fprintf(f, ", %d, {%lldLL, %lldLL, %lldLL, %lldLL},\n     ", p.ndims, (long long)p.dim[0],
            (long long)p.dim[1], (long long)p.dim[2], (long long)p.dim[3]);
    c_string(f, r->variant);
    fputs(", ", f);
    c_string(f, r->variant_version);
    fputs(", ", f);
    c_string(f, r->config);
    fprintf(f, ", %d, cutune_tuned_params_%zu, %.17g, %.17g},\n", nparams, e->n, r->median_ms,
            r->gflops);
    return 0;
}

static int pass_params(const CutuneBestRow *r, void *user)
{
    Export *e = user;
    header_params(r, e);
    e->n++;
    return 0;
}

static int pass_rows(const CutuneBestRow *r, void *user)
{
    Export *e = user;
    int rc = e->format == 0 ? json_row(r, e) : e->format == 1 ? csv_row(r, e) : header_entry(r, e);
    e->n++;
    return rc;
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
    "    const char *size;        /* \"MxNxK\" for matmul */\n"
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
    static const struct option longopts[] = {
        {"format", required_argument, 0, 'f'}, {"device", required_argument, 0, 'd'},
        {"op", required_argument, 0, 'o'},     {"db", required_argument, 0, 'D'},
        {"output", required_argument, 0, 'O'}, {"help", no_argument, 0, 'h'},
        {"variant", required_argument, 0, 'v'}, {"size", required_argument, 0, 's'},
        {0, 0, 0, 0},
    };
    const char *format = "json", *device = NULL, *op = NULL, *db_path = NULL, *output = NULL;
    const char *variant = NULL, *size = NULL;
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'd': device = optarg; break;
        case 'o': op = optarg; break;
        case 'D': db_path = optarg; break;
        case 'O': output = optarg; break;
        case 'v': variant = optarg; break;
        case 's': size = optarg; break;
        case 'h': fputs(help, stdout); return EXIT_OK;
        default: return cli_usage_error("export", "unknown option");
        }
    }
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
    if (e.format == 0) {
        fprintf(e.f, "{\"generator\": \"cutune %s\", \"database\": ", CUTUNE_VERSION);
        cli_json_string(e.f, db_path);
        fputs(", \"configs\": [", e.f);
    } else if (e.format == 1) {
        fputs("device_uuid,device,cc,op,size,variant,variant_version,config,median_ms,min_ms,"
              "gflops,gbps,samples,trial_id,updated_at\n", e.f);
    } else {
        time_t now = time(NULL);
        char when[32];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", gmtime(&now));
        fprintf(e.f, "/* Generated by `cutune export --format header` (cutune %s) on %s UTC\n"
                     " * from ", CUTUNE_VERSION, when);
        for (const char *s = db_path; *s; s++) /* a path cannot close the comment */
            fputc(s[0] == '*' && s[1] == '/' ? '_' : s[0], e.f);
        fputs(".\n * The best verified config per device and problem size: no SQLite or "
              "libcutune needed. */\n", e.f);
        fputs(header_top, e.f);
        if ((rc = cutune_db_best_foreach(db, dev, op, pass_params, &e, &err)))
            goto fail;
        fprintf(e.f, "\n#define CUTUNE_TUNED_COUNT %zu\n", e.n);
        fprintf(e.f, "static const CutuneTunedConfig cutune_tuned_configs[%s] = {\n",
                e.n ? "" : "1");
        e.n = 0;
    }
    if ((rc = cutune_db_best_foreach(db, dev, op, pass_rows, &e, &err)))
        goto fail;
    if (e.format == 0)
        fputs(e.n ? "\n]}\n" : "]}\n", e.f);
    else if (e.format == 2)
        fprintf(e.f, "%s};\n%s", e.n ? "" : "    {0},\n", header_bottom);
    if (output && (rc = cutune_outfile_commit(&out, &err)))
        goto fail;
    cutune_db_close(&db);
    return EXIT_OK;
fail:
    cutune_outfile_abort(&out); /* the previous output file stays as it was */
    cutune_db_close(&db);
    return cli_fail("export", &err);
}
