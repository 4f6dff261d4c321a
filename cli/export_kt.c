/* cutune export --format kernel-tuner: the trials of one variant and size on one device as
 * a Kernel Tuner cache (core/src/replay/ktcache.h says what maps). */
#include "cli.h"
#include "db.h"
#include "ktdb.h"
#include "outfile.h"
#include "registry.h"
#include "space.h"
#include "util.h"

#include <limits.h>
#include <sqlite3.h>
#include <string.h>

/* The one device of the database that has trials of (variant, size), when none is named. */
static int only_device(CutuneDb *db, const char *variant, const char *size, char *uuid, size_t len,
                       CutuneError *err)
{
    sqlite3_stmt *st = NULL;
    int n = 0, s = sqlite3_prepare_v2(
                   cutune_db_sqlite(db),
                   "SELECT DISTINCT d.uuid FROM trials t JOIN devices d ON d.id = t.device_id"
                   " JOIN variants v ON v.id = t.variant_id JOIN problems p ON p.id = t.problem_id"
                   " WHERE v.name = ?1 AND p.size = ?2",
                   -1, &st, NULL);
    if (s == SQLITE_OK)
        s = sqlite3_bind_text(st, 1, variant, -1, SQLITE_STATIC);
    if (s == SQLITE_OK)
        s = sqlite3_bind_text(st, 2, size, -1, SQLITE_STATIC);
    while (s == SQLITE_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
        s = SQLITE_OK;
        if (n++ == 0)
            snprintf(uuid, len, "%s", (const char *)sqlite3_column_text(st, 0));
    }
    int rc = s == SQLITE_DONE ? 0 : cutune_db_fail(db, err, s, "finding the device");
    sqlite3_finalize(st);
    if (rc == 0 && n == 0)
        rc = cutune_error(err, CUTUNE_ERR_NOT_FOUND, "%s holds no trial of %s at %s",
                          cutune_db_path(db), variant, size);
    else if (rc == 0 && n > 1)
        rc = cutune_error(err, CUTUNE_ERR_INVALID,
                          "%s holds %s at %s on %d devices: choose one with --device",
                          cutune_db_path(db), variant, size, n);
    return rc;
}

int cli_export_kernel_tuner(const char *db_path, const char *device, const char *variant,
                            const char *size, const char *output)
{
    if (!variant || !size)
        return cli_usage_error("export", "--format kernel-tuner needs --variant and --size");
    CutuneError err = {0};
    CutuneRegistry reg;
    memset(&reg, 0, sizeof reg);
    CutuneSpace *sp = NULL;
    CutuneDb *db = NULL;
    CutuneOutFile out = {0};
    char path[4096], canon[64], uuid[64];
    CutuneProblem prob;
    int rc = 0;
    if (!db_path) {
        if (cutune_db_default_path(path, sizeof path, &err))
            return cli_fail("export", &err);
        db_path = path;
    }
    if (output && (rc = cli_refuse_db_output("export", output, db_path)))
        return rc;
    const CutuneVariantDef *pl = NULL;
    if ((rc = cutune_registry_load(&reg, &err)))
        goto fail;
    if (!(pl = cutune_registry_find(&reg, variant))) {
        rc = cutune_error(&err, CUTUNE_ERR_NOT_FOUND,
                          "variant %s is not installed: its space names the parameters and "
                          "their values a cache needs (`cutune list` shows the variants)",
                          variant);
        goto fail;
    }
    CutuneError why = {0};
    if ((rc = cutune_problem_parse(size, &prob, &err)))
        goto fail;
    if (cutune_variant_problem(pl, size, &prob, &why) != 0) {
        rc = cli_usage_error("export", "size %s is not a problem of %s: %s", size, variant,
                             why.msg);
        goto done;
    }
    cutune_problem_format(&prob, canon, sizeof canon);
    if ((rc = cutune_variant_load_space(pl, &sp, &err)) ||
        (rc = cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err)) ||
        (rc = device ? cutune_db_find_device(db, device, uuid, sizeof uuid, &err)
                     : only_device(db, variant, canon, uuid, sizeof uuid, &err)))
        goto fail;
    FILE *f = stdout;
    if (output) {
        if ((rc = cutune_outfile_open(&out, output, &err)))
            goto fail;
        f = out.f;
    }
    CutuneKtExport in = {.plugin = pl, .space = sp, .size = canon, .device_uuid = uuid};
    size_t written = 0, left_out = 0;
    if ((rc = cutune_kt_export_db(db, &in, f, &written, &left_out, &err)) ||
        (output && (rc = cutune_outfile_commit(&out, &err))))
        goto fail;
    fprintf(stderr, "cutune export: %zu configs of %s version %s at %s%s%s", written, variant,
            pl->version, canon, output ? " to " : "", output ? output : "");
    if (left_out)
        fprintf(stderr, " (%zu trials left out: configs the installed space cannot read)",
                left_out);
    fputc('\n', stderr);
    rc = EXIT_OK;
    goto done;
fail:
    rc = cli_fail("export", &err);
done:
    cutune_outfile_abort(&out);
    cutune_db_close(&db);
    cutune_space_free(sp);
    cutune_registry_free(&reg);
    return rc;
}
