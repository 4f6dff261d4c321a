/* The row copy of `cutune merge` (see merge.h): from the database attached as "src" into
 * main, table by table, in the order of merge_tables below.
 *
 * Nothing of the input's schema is used but the rows of the tables listed here: main was
 * built by cutune's own migrations, so a trigger, view, index or table that someone added to
 * an input never reaches it. Each table's columns are those of main's schema (PRAGMA
 * table_info) that the input has too: a column or a table that a later migration adds is
 * carried by listing the table once, here. A column that is a foreign key (PRAGMA
 * foreign_key_list) takes main's id of the parent row, through a temporary table that maps
 * the input's ids to main's, filled by each row's identity after its parents were copied. */
#include "merge.h"
#include "util.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* How final a run's or a search's status is: a merge keeps the more final one. */
#define RUN_RANK(s) \
    "(CASE " s " WHEN 'done' THEN 3 WHEN 'failed' THEN 2 WHEN 'interrupted' THEN 1 ELSE 0 END)"
#define SEARCH_RANK(s) \
    "(CASE " s " WHEN 'done' THEN 3 WHEN 'spent' THEN 3 WHEN 'failed' THEN 2" \
    " WHEN 'interrupted' THEN 1 ELSE 0 END)"
/* A pending request that the other side has done becomes done. */
#define TAKES_DONE "(x.status = 'pending' AND s.status = 'done')"

enum { MAX_OWN = 8, MAX_COLUMNS = 64 };
/* Where a table's count goes: a field of CutuneMergeCounts (rows added) or of
 * CutuneMergeResult (rows updated), stored one above its offset so that 0 is none. */
#define ADDED(field) (offsetof(CutuneMergeCounts, field) + 1)
#define UPDATED(field) (offsetof(CutuneMergeResult, field) + 1)

/* One table to copy. In `when`, `each` and `own`, x is main's row and s the input's (its
 * foreign keys already main's ids). */
typedef struct MergeTable {
    const char *name;
    const char *key; /* the columns that identify a row in any database, ", "-separated */
    /* A row present on both sides: main's row takes new values when `when` holds (NULL:
     * it is kept as it is); each column named in `own` (pairs of column and expression)
     * takes its expression, every other one `each` with $ standing for its name (NULL:
     * only those in `own` change). */
    const char *when, *each;
    const char *own[2 * MAX_OWN + 1];
    /* Run on the input's copy before its rows are read: what is not carried over. */
    const char *before;
    size_t added, updated; /* ADDED(field), UPDATED(field), or 0: not counted */
} MergeTable;

/* Every table of cutune's schema but those in not_copied, parents before the tables whose
 * foreign keys name them (cutune_merge_check_schema refuses a schema where this does not
 * hold). A table a migration adds is listed here, with what identifies its rows. */
static const MergeTable merge_tables[] = {
    /* a device seen on both sides keeps the first and last sightings of both, and the
     * details of the later one */
    {.name = "devices",
     .key = "uuid",
     .when = "s.first_seen < x.first_seen OR s.last_seen > x.last_seen",
     .each = "iif(s.last_seen > x.last_seen, s.$, x.$)",
     .own = {"first_seen", "min(x.first_seen, s.first_seen)", "last_seen",
             "max(x.last_seen, s.last_seen)"},
     .added = ADDED(devices)},
    {.name = "variants", .key = "name, version, source_hash", .added = ADDED(variants)},
    {.name = "problems", .key = "op, size", .added = ADDED(problems)},
    /* a run 'running' on one side and ended on the other takes the end */
    {.name = "runs",
     .key = "uuid",
     .when = RUN_RANK("s.status") " > " RUN_RANK("x.status"),
     .each = "s.$",
     .added = ADDED(runs),
     .updated = UPDATED(runs_ended)},
    /* two measurements of one config in one run within the same second that also agree to
     * the last bit of their median are not told apart */
    {.name = "trials",
     .key = "run_id, device_id, variant_id, problem_id, config, status, created_at, median_ms,"
            " seed",
     .added = ADDED(trials)},
    {.name = "searches",
     .key = "run_id, device_id, variant_id, problem_id, started_at",
     .when = SEARCH_RANK("s.status") " > " SEARCH_RANK("x.status"),
     .each = "s.$",
     .added = ADDED(searches),
     .updated = UPDATED(searches_ended)},
    /* a config's ragged-size check: the later verdict of the two (migration 0004) */
    {.name = "ragged_checks",
     .key = "device_id, variant_id, problem_id, config",
     .when = "s.created_at > x.created_at",
     .each = "s.$"},
    {.name = "yardsticks",
     .key = "run_id, device_id, problem_id, name, created_at, median_ms",
     .added = ADDED(yardsticks)},
    /* A pending request's claim belongs to a run tuning the database it came from: it is
     * not carried over. Counts are copies more often than separate lookups (shards start
     * from one database): the larger is kept, never the sum, so that a second merge adds
     * nothing. */
    {.name = "requests",
     .key = "device_uuid, op, size",
     .when = "s.last_at > x.last_at OR s.first_at < x.first_at OR s.count > x.count"
             " OR " TAKES_DONE,
     .each = "iif(s.last_at > x.last_at, s.$, x.$)",
     .own = {"count", "max(x.count, s.count)", "first_at", "min(x.first_at, s.first_at)", "last_at",
             "max(x.last_at, s.last_at)", "done_at", "iif(" TAKES_DONE ", s.done_at, x.done_at)",
             "run_id", "iif(" TAKES_DONE ", s.run_id, x.run_id)", "status",
             "iif(" TAKES_DONE ", 'done', x.status)"},
     .before = "UPDATE src.requests SET run_id = NULL WHERE status = 'pending'"
               " AND run_id IS NOT NULL",
     .added = ADDED(requests),
     .updated = UPDATED(requests_updated)},
};
#define NTABLES (sizeof merge_tables / sizeof merge_tables[0])

/* Tables of the schema that are not copied: the best is chosen again over the trials. */
static const char *const not_copied[] = {"best"};

/* ---- SQL text ------------------------------------------------------------------------- */

typedef struct Sql {
    char *s;
    size_t n, cap;
    int nomem;
} Sql;

static void sql_add(Sql *q, const char *fmt, ...)
{
    for (int pass = 0; pass < 2 && !q->nomem; pass++) {
        va_list ap;
        va_start(ap, fmt);
        int len = vsnprintf(q->s ? q->s + q->n : NULL, q->s ? q->cap - q->n : 0, fmt, ap);
        va_end(ap);
        if (len < 0) {
            q->nomem = 1;
            return;
        }
        if (q->s && q->n + (size_t)len < q->cap) {
            q->n += (size_t)len;
            return;
        }
        size_t cap = 2 * (q->cap + (size_t)len) + 256;
        char *s = realloc(q->s, cap);
        if (!s) {
            q->nomem = 1;
            return;
        }
        q->s = s;
        q->cap = cap;
    }
}

/* A name as an SQL identifier: in double quotes, with its own doubled. */
static void sql_name(Sql *q, const char *name)
{
    sql_add(q, "\"");
    for (const char *p = name; *p; p++)
        sql_add(q, "%.*s", *p == '"' ? 2 : 1, *p == '"' ? "\"\"" : p);
    sql_add(q, "\"");
}

/* tmpl with every $ replaced by the column's name. */
static void sql_each(Sql *q, const char *tmpl, const char *col)
{
    for (const char *p = tmpl; *p; p++) {
        if (*p == '$')
            sql_name(q, col);
        else
            sql_add(q, "%c", *p);
    }
}

static void sql_reset(Sql *q)
{
    q->n = 0;
    if (q->s)
        q->s[0] = '\0';
}

/* ---- statements ------------------------------------------------------------------------ */

/* Run the statement built in q to its end (cutune_merge_exec). */
static int run(sqlite3 *h, const Sql *q, int64_t *changes)
{
    return q->nomem ? SQLITE_NOMEM : cutune_merge_exec(h, q->s, changes);
}

/* ---- the schema ------------------------------------------------------------------------- */

typedef struct Column {
    char name[64];
    int notnull, key;
    int parent; /* the merge_tables index of the table its foreign key names, or -1 */
} Column;

typedef struct Table {
    Column col[MAX_COLUMNS];
    size_t ncols;
    char rowid[64]; /* the INTEGER PRIMARY KEY (the row id under its own name), or "" */
} Table;

static int table_index(const char *name)
{
    for (size_t i = 0; i < NTABLES; i++)
        if (strcmp(merge_tables[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* 1 when `name` is one of the comma-separated names in list. */
static int in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p && *p;) {
        p += strspn(p, ", ");
        size_t n = strcspn(p, ", ");
        if (n == len && strncmp(p, name, n) == 0)
            return 1;
        p += n;
    }
    return 0;
}

/* main's columns of table t (ti its index) that src has too, with the foreign keys of
 * main's schema. The row id is not copied: main gives each row its own. */
static int read_table(sqlite3 *h, int ti, Table *t, CutuneError *err)
{
    const MergeTable *m = &merge_tables[ti];
    sqlite3_stmt *st = NULL;
    memset(t, 0, sizeof *t);
    int rc = sqlite3_prepare_v2(
        h,
        "SELECT c.name, c.\"notnull\", c.pk, c.type,"
        " (SELECT count(*) FROM pragma_table_info(?1, 'main') WHERE pk > 0),"
        " EXISTS (SELECT 1 FROM pragma_table_info(?1, 'src') s WHERE s.name = c.name)"
        " FROM pragma_table_info(?1, 'main') c ORDER BY c.cid",
        -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, m->name, -1, SQLITE_STATIC);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *type = (const char *)sqlite3_column_text(st, 3);
        if (!name || strlen(name) >= sizeof t->col[0].name || t->ncols == MAX_COLUMNS) {
            sqlite3_finalize(st);
            cutune_error(err, CUTUNE_ERR_DB,
                         "cutune merge: table %s has a column name over 63 bytes or more than "
                         "%d columns (a bug: see core/src/db/merge_copy.c)",
                         m->name, MAX_COLUMNS);
            return -1;
        }
        if (sqlite3_column_int(st, 2) == 1 && sqlite3_column_int(st, 4) == 1 && type &&
            sqlite3_stricmp(type, "INTEGER") == 0) {
            snprintf(t->rowid, sizeof t->rowid, "%s", name);
            continue;
        }
        if (!sqlite3_column_int(st, 5)) /* the input lacks it: main's default */
            continue;
        Column *c = &t->col[t->ncols++];
        snprintf(c->name, sizeof c->name, "%s", name);
        c->notnull = sqlite3_column_int(st, 1);
        c->key = in_list(m->key, name);
        c->parent = -1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rc;
    st = NULL;
    rc = sqlite3_prepare_v2(h,
                            "SELECT \"from\", \"table\" FROM pragma_foreign_key_list(?1, 'main')",
                            -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, m->name, -1, SQLITE_STATIC);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        const char *from = (const char *)sqlite3_column_text(st, 0);
        int parent = table_index((const char *)sqlite3_column_text(st, 1));
        for (size_t i = 0; from && i < t->ncols; i++)
            if (strcmp(t->col[i].name, from) == 0)
                t->col[i].parent = parent;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int cutune_merge_check_schema(sqlite3 *h, CutuneError *err)
{
    static const char fix[] = "a bug of this cutune: list it in merge_tables, after the tables "
                              "its foreign keys name (core/src/db/merge_copy.c)";
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h,
                                "SELECT name FROM main.sqlite_schema WHERE type = 'table'"
                                " AND name NOT LIKE 'sqlite_%' ORDER BY name",
                                -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        const char *name = (const char *)sqlite3_column_text(st, 0);
        int listed = name && table_index(name) >= 0;
        for (size_t i = 0; name && i < sizeof not_copied / sizeof *not_copied; i++)
            listed |= strcmp(name, not_copied[i]) == 0;
        if (!listed) {
            cutune_error(err, CUTUNE_ERR_DB,
                         "cutune merge does not know table %s of the schema; %s", name ? name : "?",
                         fix);
            rc = -1;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rc;
    for (size_t i = 0; i < NTABLES; i++) {
        sqlite3_stmt *fk = NULL;
        rc = sqlite3_prepare_v2(h,
                                "SELECT \"table\", \"to\" FROM pragma_foreign_key_list(?1, 'main')",
                                -1, &fk, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_text(fk, 1, merge_tables[i].name, -1, SQLITE_STATIC);
        while (rc == SQLITE_OK && (rc = sqlite3_step(fk)) == SQLITE_ROW) {
            rc = SQLITE_OK;
            const char *parent = (const char *)sqlite3_column_text(fk, 0);
            const char *to = (const char *)sqlite3_column_text(fk, 1);
            int p = parent ? table_index(parent) : -1;
            if (p < 0 || p >= (int)i || (to && strcmp(to, "id") != 0)) {
                cutune_error(err, CUTUNE_ERR_DB,
                             "cutune merge cannot copy table %s: a foreign key names %s(%s), "
                             "which is not a table listed before it by its id; %s",
                             merge_tables[i].name, parent ? parent : "?", to ? to : "id", fix);
                rc = -1;
            }
        }
        sqlite3_finalize(fk);
        if (rc != SQLITE_DONE)
            return rc;
    }
    return SQLITE_OK;
}

/* ---- one table --------------------------------------------------------------------------- */

/* What the copy of one input keeps between tables. */
typedef struct Copy {
    int64_t last[NTABLES]; /* main's largest row id before the input's rows were added */
    int mapped[NTABLES];   /* a foreign key names the table: its ids are mapped */
} Copy;

/* The input's rows of table t, as "s": their columns under main's names, foreign keys as
 * main's ids (a row whose NOT NULL foreign key names no row is left out), and merge_rowid,
 * the input's row id. */
static void src_rows(Sql *q, const MergeTable *m, const Table *t)
{
    sql_add(q, "(SELECT t.rowid AS merge_rowid");
    for (size_t i = 0; i < t->ncols; i++) {
        const Column *c = &t->col[i];
        if (c->parent >= 0)
            sql_add(q, ", j%zu.m AS ", i);
        else
            sql_add(q, ", t."), sql_name(q, c->name), sql_add(q, " AS ");
        sql_name(q, c->name);
    }
    sql_add(q, " FROM src."), sql_name(q, m->name), sql_add(q, " AS t");
    for (size_t i = 0; i < t->ncols; i++) {
        const Column *c = &t->col[i];
        if (c->parent < 0)
            continue;
        sql_add(q, " %s JOIN temp.merge_id_%s AS j%zu ON j%zu.s = t.", c->notnull ? "" : "LEFT",
                merge_tables[c->parent].name, i, i);
        sql_name(q, c->name);
    }
    sql_add(q, ") AS s");
}

/* x (main's row) and s are the same row: every key column agrees. */
static void same_row(Sql *q, const Table *t)
{
    const char *and = "";
    for (size_t i = 0; i < t->ncols; i++) {
        if (!t->col[i].key)
            continue;
        sql_add(q, "%sx.", and), sql_name(q, t->col[i].name), sql_add(q, " IS s.");
        sql_name(q, t->col[i].name);
        and = " AND ";
    }
}

/* The new value of column c of a row present on both sides; NULL when it keeps its own. */
static const char *new_value(const MergeTable *m, const Column *c, int *own)
{
    *own = 0;
    for (size_t k = 0; m->own[k]; k += 2)
        if (strcmp(m->own[k], c->name) == 0) {
            *own = 1;
            return m->own[k + 1];
        }
    return c->key ? NULL : m->each;
}

/* The rows present on both sides that the input's row replaces (see MergeTable). */
static int update_rows(sqlite3 *h, Sql *q, const MergeTable *m, const Table *t, int64_t *n)
{
    *n = 0;
    if (!m->when)
        return SQLITE_OK;
    sql_reset(q);
    sql_add(q, "UPDATE main."), sql_name(q, m->name), sql_add(q, " AS x SET ");
    const char *comma = "";
    for (size_t i = 0; i < t->ncols; i++) {
        int own;
        const char *v = new_value(m, &t->col[i], &own);
        if (!v)
            continue;
        sql_add(q, "%s", comma), sql_name(q, t->col[i].name), sql_add(q, " = ");
        if (own)
            sql_add(q, "%s", v);
        else
            sql_each(q, v, t->col[i].name);
        comma = ", ";
    }
    if (!*comma)
        return SQLITE_OK;
    sql_add(q, " FROM ");
    src_rows(q, m, t);
    sql_add(q, " WHERE ");
    same_row(q, t);
    sql_add(q, " AND (%s)", m->when);
    return run(h, q, n);
}

/* The input's rows that main does not have, in the input's order. A row with a key column
 * naming a parent row new to main (an id above that table's last before this input) cannot
 * be in main yet: it is not looked for. */
static int insert_rows(sqlite3 *h, Sql *q, const MergeTable *m, const Table *t, const Copy *cp,
                       int64_t *n)
{
    sql_reset(q);
    sql_add(q, "INSERT INTO main."), sql_name(q, m->name), sql_add(q, " (");
    for (size_t i = 0; i < t->ncols; i++)
        sql_add(q, "%s", i ? ", " : ""), sql_name(q, t->col[i].name);
    sql_add(q, ") SELECT ");
    for (size_t i = 0; i < t->ncols; i++)
        sql_add(q, "%ss.", i ? ", " : ""), sql_name(q, t->col[i].name);
    sql_add(q, " FROM ");
    src_rows(q, m, t);
    sql_add(q, " WHERE ");
    for (size_t i = 0; i < t->ncols; i++)
        if (t->col[i].key && t->col[i].parent >= 0) {
            sql_add(q, "s."), sql_name(q, t->col[i].name);
            sql_add(q, " > %lld OR ", (long long)cp->last[t->col[i].parent]);
        }
    sql_add(q, "NOT EXISTS (SELECT 1 FROM main."), sql_name(q, m->name);
    sql_add(q, " AS x WHERE ");
    same_row(q, t);
    sql_add(q, ") ORDER BY s.merge_rowid");
    return run(h, q, n);
}

/* temp.merge_id_<table>, empty: the input's row ids and main's, for the tables that
 * foreign keys name. */
static int clear_map(sqlite3 *h, Sql *q, const MergeTable *m)
{
    sql_reset(q);
    sql_add(q,
            "CREATE TEMP TABLE IF NOT EXISTS merge_id_%s (s INTEGER PRIMARY KEY, m INTEGER "
            "NOT NULL); DELETE FROM temp.merge_id_%s;",
            m->name, m->name);
    return q->nomem ? SQLITE_NOMEM : sqlite3_exec(h, q->s, NULL, NULL, NULL);
}

/* Fill it: the rows matched by their keys. */
static int map_ids(sqlite3 *h, Sql *q, const MergeTable *m, const Table *t)
{
    sql_reset(q);
    sql_add(q, "INSERT OR IGNORE INTO temp.merge_id_%s (s, m) SELECT s.merge_rowid, x.", m->name);
    sql_name(q, t->rowid);
    sql_add(q, " FROM ");
    src_rows(q, m, t);
    sql_add(q, " JOIN main.");
    sql_name(q, m->name);
    sql_add(q, " AS x ON ");
    same_row(q, t);
    return run(h, q, NULL);
}

static int copy_table(sqlite3 *h, Sql *q, int ti, Copy *cp, CutuneMergeCounts *added,
                      CutuneMergeResult *res, CutuneError *err)
{
    const MergeTable *m = &merge_tables[ti];
    Table t;
    int64_t exists = 0, n = 0;
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT coalesce(max(rowid), 0) FROM main.\"%s\"", m->name);
    int rc = cutune_merge_scalar(h, sql, &cp->last[ti]);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM src.sqlite_schema WHERE type = 'table' AND name = '%s'",
             m->name);
    if (rc == SQLITE_OK)
        rc = cutune_merge_scalar(h, sql, &exists);
    if (rc != SQLITE_OK || !exists) /* an input without the table holds none of its rows */
        return rc;
    if ((rc = read_table(h, ti, &t, err)) != SQLITE_OK)
        return rc;
    if (!t.rowid[0]) {
        cutune_error(err, CUTUNE_ERR_DB,
                     "cutune merge cannot copy table %s: it has no INTEGER PRIMARY KEY to map "
                     "its rows by (a bug: see core/src/db/merge_copy.c)",
                     m->name);
        return -1;
    }
    if (m->before && (rc = sqlite3_exec(h, m->before, NULL, NULL, NULL)) != SQLITE_OK)
        return rc;
    if ((rc = update_rows(h, q, m, &t, &n)) != SQLITE_OK)
        return rc;
    if (m->updated)
        *(int64_t *)((char *)res + m->updated - 1) += n;
    if ((rc = insert_rows(h, q, m, &t, cp, &n)) != SQLITE_OK)
        return rc;
    if (m->added)
        *(int64_t *)((char *)added + m->added - 1) += n;
    return cp->mapped[ti] ? map_ids(h, q, m, &t) : SQLITE_OK;
}

int cutune_merge_attached(sqlite3 *h, const char *label, const char *main_label,
                          CutuneMergeCounts *added, CutuneMergeResult *res, CutuneError *err)
{
    Copy cp;
    memset(&cp, 0, sizeof cp);
    int rc = cutune_merge_check_variants(h, label, main_label, err);
    for (size_t i = 0; rc == SQLITE_OK && i < NTABLES; i++) {
        sqlite3_stmt *fk = NULL;
        rc = sqlite3_prepare_v2(h, "SELECT \"table\" FROM pragma_foreign_key_list(?1, 'main')", -1,
                                &fk, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_text(fk, 1, merge_tables[i].name, -1, SQLITE_STATIC);
        while (rc == SQLITE_OK && (rc = sqlite3_step(fk)) == SQLITE_ROW) {
            int p = table_index((const char *)sqlite3_column_text(fk, 0));
            if (p >= 0)
                cp.mapped[p] = 1;
            rc = SQLITE_OK;
        }
        sqlite3_finalize(fk);
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    Sql q = {0};
    for (size_t i = 0; rc == SQLITE_OK && i < NTABLES; i++)
        if (cp.mapped[i])
            rc = clear_map(h, &q, &merge_tables[i]);
    for (size_t i = 0; rc == SQLITE_OK && i < NTABLES; i++)
        rc = copy_table(h, &q, (int)i, &cp, added, res, err);
    free(q.s);
    return rc;
}

int cutune_merge_count(sqlite3 *h, const char *schema, CutuneMergeCounts *c)
{
    int rc = SQLITE_OK;
    for (size_t i = 0; i < NTABLES && rc == SQLITE_OK; i++) {
        if (!merge_tables[i].added)
            continue;
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\".\"%s\"", schema,
                 merge_tables[i].name);
        rc = cutune_merge_scalar(h, sql, (int64_t *)((char *)c + merge_tables[i].added - 1));
    }
    return rc;
}
