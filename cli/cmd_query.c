/* cutune query: the best verified config for (device, op, size). */
#include "cli.h"
#include "cutune/lookup.h"
#include "db.h"
#include "device.h"
#include "registry.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cutune query <op> --size S [--device D] [--db PATH] [--fallback] [--json]\n"
    "\n"
    "Print the best verified config recorded for <op> at size S on device D: its variant,\n"
    "config, median time and rate. D is a CUDA ordinal (default 0; needs the device), or\n"
    "a UUID or part of a device name recorded in the database (works without a GPU).\n"
    "Exits 4 when nothing is recorded for that key.\n"
    "\n"
    "  --fallback  answer as an application's lookup does (cutune/lookup.h): the exact\n"
    "              size, else the nearest size tuned on D, else one tuned on another\n"
    "              device of the same compute capability; says which it was\n"
    "  --json      one JSON object on stdout\n";

/* The canonical size text: what `cutune run` stored (plugins may normalise, e.g. "N"). */
static int canonical_size(const char *op, const char *text, char *out, size_t len, CutuneError *err)
{
    CutuneProblem p;
    int rc = cutune_problem_parse(text, &p, err);
    if (rc)
        return rc;
    CutuneRegistry reg;
    if (cutune_registry_load(&reg, NULL) == 0) {
        for (size_t i = 0; i < reg.count; i++)
            if (!strcmp(reg.plugins[i].v->op, op)) {
                char msg[256] = "";
                if (reg.plugins[i].v->check_problem(&p, msg, sizeof msg) != 0) {
                    cutune_registry_free(&reg);
                    return cutune_error(err, CUTUNE_ERR_INVALID, "size '%s' is not valid for %s: %s",
                                        text, op, msg);
                }
                break;
            }
        cutune_registry_free(&reg);
    }
    cutune_problem_format(&p, out, len);
    return 0;
}

static void print_config_json(const char *config)
{
    /* "A=1,B=2" -> {"A": 1, "B": 2} */
    printf("{");
    char *copy = strdup(config), *save = NULL;
    int first = 1;
    for (char *kv = copy ? strtok_r(copy, ",", &save) : NULL; kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = '\0';
        printf("%s", first ? "" : ", ");
        cli_json_string(stdout, kv);
        printf(": %s", eq + 1);
        first = 0;
    }
    printf("}");
    free(copy);
}

/* The opening of both JSON answers: {"op": ..., "size": ... */
static void print_json_head(const char *op, const char *size)
{
    printf("{\"op\": ");
    cli_json_string(stdout, op);
    printf(", \"size\": ");
    cli_json_string(stdout, size);
}

/* The JSON members both answers share, from "device" to "config_text" (after a comma). */
static void print_json_answer(const char *device_name, const char *device_uuid, const char *variant,
                              const char *version, const char *config)
{
    printf("\"device\": {\"name\": ");
    cli_json_string(stdout, device_name);
    printf(", \"uuid\": ");
    cli_json_string(stdout, device_uuid);
    printf("}, \"variant\": ");
    cli_json_string(stdout, variant);
    printf(", \"variant_version\": ");
    cli_json_string(stdout, version);
    printf(", \"config\": ");
    print_config_json(config);
    printf(", \"config_text\": ");
    cli_json_string(stdout, config);
}

/* --fallback: the lookup API's ladder for (device, op, size). `dev` holds at least the
 * UUID; its compute capability, when known (cc_major > 0), lets a device never tuned
 * match another of its architecture. */
static int query_fallback(const char *db_path, const CutuneDeviceInfo *dev, const char *op,
                          const char *size, int json, CutuneError *err)
{
    const char *uuid = dev->uuid;
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
    if (json) {
        print_json_head(r.op, r.size);
        printf(", \"match\": ");
        cli_json_string(stdout, cutune_match_name(r.match));
        printf(", \"tuned_size\": ");
        cli_json_string(stdout, r.tuned_size);
        printf(", \"distance\": %.6g, ", r.distance);
        print_json_answer(r.device_name, r.device_uuid, r.variant, r.variant_version, r.config);
        printf(", \"median_ms\": %.6g, \"gflops\": %.6g, \"trial_id\": %lld}\n", r.median_ms,
               r.gflops, (long long)r.trial_id);
        return 0;
    }
    printf("%s %s on %s: %s match\n", r.op, r.size, uuid, cutune_match_name(r.match));
    printf("  tuned    %s on %s (%s)", r.tuned_size, r.device_name, r.device_uuid);
    if (r.match != CUTUNE_MATCH_EXACT)
        printf(", distance %.3g", r.distance);
    printf("\n  variant  %s (version %s)\n", r.variant, r.variant_version);
    printf("  config   %s\n", r.config);
    printf("  median   %.4f ms at the tuned size", r.median_ms);
    if (r.gflops > 0)
        printf(", %.1f GFLOP/s", r.gflops);
    printf("\n  trial    #%lld\n", (long long)r.trial_id);
    return 0;
}

int cmd_query(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"device", required_argument, 0, 'd'}, {"size", required_argument, 0, 's'},
        {"db", required_argument, 0, 'D'},     {"json", no_argument, 0, 'j'},
        {"fallback", no_argument, 0, 'f'},     {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *device = "0", *size = NULL, *db_path = NULL;
    int json = 0, fallback = 0, c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 's': size = optarg; break;
        case 'D': db_path = optarg; break;
        case 'j': json = 1; break;
        case 'f': fallback = 1; break;
        case 'h': fputs(help, stdout); return EXIT_OK;
        default: return cli_usage_error("query", "unknown option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("query", "expected one op, e.g. cutune query matmul --size 4096x4096x4096");
    if (!size)
        return cli_usage_error("query", "--size is required");
    const char *op = argv[optind];

    CutuneError err = {0};
    char path[4096], canon[64], uuid[64];
    CutuneDb *db = NULL;
    int rc;
    if ((rc = canonical_size(op, size, canon, sizeof canon, &err)))
        return cli_fail("query", &err);
    if (!db_path) {
        if ((rc = cutune_db_default_path(path, sizeof path, &err)))
            return cli_fail("query", &err);
        db_path = path;
    }
    CutuneDeviceInfo dev; /* the device asked for: all of it for an ordinal, else its UUID */
    memset(&dev, 0, sizeof dev);
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
        if ((rc = cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err)))
            goto fail;
    } else if ((rc = cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err)) ||
               (rc = cutune_db_find_device(db, device, uuid, sizeof uuid, &err))) {
        goto fail;
    }

    if (fallback) {
        cutune_db_close(&db);
        if (!dev.uuid[0])
            snprintf(dev.uuid, sizeof dev.uuid, "%s", uuid);
        if ((rc = query_fallback(db_path, &dev, op, canon, json, &err)))
            return cli_fail("query", &err);
        return EXIT_OK;
    }
    CutuneBest b;
    if ((rc = cutune_db_best(db, uuid, op, canon, &b, &err)))
        goto fail;
    if (json) {
        print_json_head(b.op, b.size);
        printf(", ");
        print_json_answer(b.device_name, b.device_uuid, b.variant, b.variant_version, b.config);
        printf(", \"median_ms\": %.6g, \"min_ms\": %.6g, \"samples\": %d, \"gflops\": %.6g, "
               "\"gbps\": %.6g, \"error\": %.3g, \"trial_id\": %lld, \"updated_at\": ",
               b.median_ms, b.min_ms, b.samples, b.gflops, b.gbps, b.error, (long long)b.trial_id);
        cli_json_string(stdout, b.updated_at);
        printf("}\n");
    } else {
        printf("%s %s on %s (%s)\n", b.op, b.size, b.device_name, b.device_uuid);
        printf("  variant  %s (version %s)\n", b.variant, b.variant_version);
        printf("  config   %s\n", b.config);
        printf("  median   %.4f ms over %d samples (min %.4f ms)", b.median_ms, b.samples, b.min_ms);
        if (b.gflops > 0)
            printf(", %.1f GFLOP/s", b.gflops);
        else if (b.gbps > 0)
            printf(", %.1f GB/s", b.gbps);
        printf("\n  checked  relative error %.3g\n", b.error);
        printf("  trial    #%lld, recorded %s UTC\n", (long long)b.trial_id, b.updated_at);
    }
    cutune_db_close(&db);
    return EXIT_OK;
fail:
    cutune_db_close(&db);
    return cli_fail("query", &err);
}
