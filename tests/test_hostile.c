/* Hostile input, end to end: databases built here through the sqlite3 C API (damaged,
 * tampered with, foreign, older, being written to, holding times that are no times), full
 * disks, /dev/full, outputs that are inputs, and a concurrent writer, against every command
 * of the cutune executable and the lookup API. Each case must end without a crash, a hang
 * or a sanitizer report; JSON must parse (tests/json_check.h), a generated header must
 * compile and run clean under the sanitizers, figures hold no inf or NaN, terminals get no
 * control sequences, and inputs stay byte for byte the same.
 *
 *     test_hostile CUTUNE_EXE FAKE_WORKER CC
 *
 * Runs use the fake worker (no GPU); the plugins and spaces come from the test
 * environment (CUTUNE_PLUGIN_PATH, CUTUNE_SPACE_PATH). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "cutune/lookup.h"
#include "db.h"
#include "json_check.h"
#include "raw_sqlite.h"
#include "tmpdir.h"

extern const char *const cutune_migrations[];

static const char *exe, *cc;
static char tmpdir[64];
static int cc_sanitizers; /* the compiler can build the header's program with ASan/UBSan */

/* ---- running the command ------------------------------------------------------------ */

typedef struct Result {
    int status; /* exit code, or 128 + signal */
    int signaled;
    int timed_out;
    char *out, *err; /* stdout and stderr, NUL-terminated */
    size_t out_len;
} Result;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    if (f && b) {
        size_t got;
        while ((got = fread(b + n, 1, cap - n, f)) > 0) {
            n += got;
            if (n == cap) {
                char *g = realloc(b, 2 * cap + 1);
                if (!g)
                    break;
                b = g;
                cap *= 2;
            }
        }
    }
    if (f)
        fclose(f);
    if (b)
        b[n] = '\0';
    if (len)
        *len = n;
    return b;
}

static void result_free(Result *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

static int as_nobody; /* run the command as user nobody (root only): permissions bite */

/* Start cutune with args (NULL-terminated), stdout to file o and stderr to file e, the file
 * size limited to fsize bytes (0: no limit); not waiting for it. */
static pid_t spawn(const char *o, const char *e, long fsize, const char *const *args)
{
    const char *argv[64];
    size_t n = 0;
    argv[n++] = exe;
    for (size_t i = 0; args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644),
            fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(121);
        dup2(fo, 1);
        dup2(fe, 2);
        if (fsize > 0) {
            struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        if (as_nobody && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(122);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Run cutune with args (NULL-terminated) with stdout to `out` (NULL: a file read back) and
 * the file size limited to fsize bytes (0: no limit). Killed after 60 s: a hang. */
static Result run_to(const char *out, long fsize, const char *const *args)
{
    Result r = {0};
    const char *o = out ? out : in_tmp("stdout"), *e = in_tmp("stderr");
    pid_t pid = spawn(o, e, fsize, args);
    int st = 0;
    for (int waited = 0;; waited += 10) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (waited >= 60000) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            r.timed_out = 1;
            break;
        }
        usleep(10000);
    }
    r.signaled = WIFSIGNALED(st) && !r.timed_out;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    r.out = out ? calloc(1, 1) : slurp(o, &r.out_len);
    r.err = slurp(e, NULL);
    if (!r.out)
        r.out = calloc(1, 1);
    if (!r.err)
        r.err = calloc(1, 1);
    return r;
}

static Result run(const char *const *args)
{
    return run_to(NULL, 0, args);
}

static void describe(const char *const *args, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "cutune");
    for (size_t i = 0; args[i] && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, " %s", args[i]);
}

/* No crash, no hang, no sanitizer report, an exit code of the documented ones. */
static void sane(const Result *r, const char *const *args)
{
    char what[1024];
    describe(args, what, sizeof what);
    CHECK_MSG(!r->timed_out, "%s: hung (killed after 60 s)", what);
    CHECK_MSG(!r->signaled, "%s: killed by signal %d\n%s", what, r->status - 128, r->err);
    CHECK_MSG(r->status == 0 || r->status == 1 || r->status == 2 || r->status == 4,
              "%s: exit %d\n%s", what, r->status, r->err);
    CHECK_MSG(!strstr(r->err, "Sanitizer") && !strstr(r->err, "runtime error"),
              "%s: sanitizer report:\n%s", what, r->err);
}

/* run_to(to, 0, args), checked sane; what (len bytes) gets the command line, for messages. */
static Result run_sane(const char *to, const char *const *args, char *what, size_t len)
{
    Result r = run_to(to, 0, args);
    describe(args, what, len);
    sane(&r, args);
    return r;
}

/* ---- files ------------------------------------------------------------------------- */

static uint64_t sum_file(const char *path)
{
    size_t n = 0;
    char *b = slurp(path, &n);
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; b && i < n; i++)
        h = (h ^ (unsigned char)b[i]) * 1099511628211ULL;
    free(b);
    return h ^ n;
}

static void copy_file(const char *from, const char *to, long keep)
{
    size_t n = 0;
    char *b = slurp(from, &n);
    FILE *f = fopen(to, "wb");
    if (f && b)
        fwrite(b, 1, keep >= 0 && (size_t)keep < n ? (size_t)keep : n, f);
    if (f)
        fclose(f);
    free(b);
}

/* ---- the databases -------------------------------------------------------------------- */

static const char *sizes[] = {"1024", "2048", "4096", "8192", "16384", "32768", "65536"};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* A database as `cutune run` makes it (fake worker), checkpointed into one file. */
static int make_good(const char *path)
{
    const char *args[32] = {"run", "axpy", "--db", path, "--no-progress"};
    size_t n = 5;
    for (size_t i = 0; i < NSIZES; i++) {
        args[n++] = "--size";
        args[n++] = sizes[i];
    }
    args[n] = NULL;
    Result r = run(args);
    sane(&r, args);
    CHECK_MSG(r.status == 0, "seeding run: exit %d\n%s", r.status, r.err);
    int ok = r.status == 0;
    result_free(&r);
    sqlite3 *h = NULL;
    if (sqlite3_open(path, &h) == SQLITE_OK)
        sqlite3_wal_checkpoint_v2(h, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    sqlite3_close(h);
    return ok;
}

/* What an adversary writes into a database: one kind of poison per best row. */
static const char tamper_sql[] =
    "UPDATE trials SET config = 'BLOCK=1);system(\"id\");//,ITEMS=1' WHERE id ="
    " (SELECT trial_id FROM best b JOIN problems p ON p.id = b.problem_id WHERE p.size = '1024');"
    "UPDATE trials SET config = 'BLOCK=256,,ITEMS=1' WHERE id ="
    " (SELECT trial_id FROM best b JOIN problems p ON p.id = b.problem_id WHERE p.size = '2048');"
    "UPDATE trials SET median_ms = 9e999, gflops = -9e999 WHERE id ="
    " (SELECT trial_id FROM best b JOIN problems p ON p.id = b.problem_id WHERE p.size = '4096');"
    "UPDATE trials SET config = 'BLOCK=99999999999999999999,ITEMS=1' WHERE id ="
    " (SELECT trial_id FROM best b JOIN problems p ON p.id = b.problem_id WHERE p.size = '8192');"
    "UPDATE trials SET config = 'BLOCK=64,ITEMS=2,' || (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL"
    " SELECT i + 1 FROM n WHERE i < 60) SELECT group_concat('P' || i || '=' || i, ',') FROM n)"
    " WHERE id = (SELECT trial_id FROM best b JOIN problems p ON p.id = b.problem_id"
    " WHERE p.size = '16384');"
    "UPDATE trials SET config = 'B\"L\\OCK*/=5' WHERE id ="
    " (SELECT trial_id FROM best b JOIN problems p ON p.id = b.problem_id WHERE p.size = '32768');"
    "UPDATE devices SET name = CAST(X'4e56ff49c0afe2809c1b5b324a225c2a2f0a' AS TEXT);"
    "UPDATE variants SET version = '1\"*/#include <stdio.h>';"
    "UPDATE trials SET message = 'boom ' || char(27) || '[2J' || char(7) || char(155) || 'x',"
    " status = 'crashed' WHERE id NOT IN (SELECT trial_id FROM best);"
    "UPDATE problems SET size = size || char(10) || 'x' WHERE size = '65536';";

static void make_v1(const char *path)
{
    CHECK_EQ_INT(raw_exec(path, cutune_migrations[0]), SQLITE_OK);
    CHECK_EQ_INT(raw_exec(path,
                          "INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count,"
                          " total_mem, driver_version, runtime_version)"
                          " VALUES ('GPU-old', 'Old GPU', 9, 0, 132, 1, 1, 1);"
                          "INSERT INTO variants (op, name, version, source_hash)"
                          " VALUES ('axpy', 'axpy_template', '1', 'h');"
                          "INSERT INTO problems (op, size) VALUES ('axpy', '4096');"
                          "INSERT INTO runs (argv, op, status) VALUES ('old', 'axpy', 'done');"
                          "INSERT INTO trials (run_id, device_id, variant_id, problem_id, config,"
                          " status, median_ms, samples)"
                          " VALUES (1, 1, 1, 1, 'BLOCK=128,ITEMS=2', 'ok', 0.5, 3);"
                          "INSERT INTO best (device_id, problem_id, trial_id) VALUES (1, 1, 1);"
                          "PRAGMA user_version = 1;"),
                 SQLITE_OK);
}

typedef struct Db {
    const char *name;
    int damaged;        /* the read commands must refuse it */
    const char *phrase; /* what the refusal says (with "damaged" or the like) */
} Db;

static const Db dbs[] = {
    {"good.db", 0, NULL},
    {"tampered.db", 0, NULL},
    {"older.db", 0, NULL},
    {"empty.db", 1, "nothing recorded yet"},
    {"half.db", 1, "truncated"},
    {"header.db", 1, "cut short inside its 100-byte header"},
    {"text.db", 1, "not a cutune database"},
    {"corrupt.db", 1, "damaged"},
    {"negative.db", 1, "schema version is -1"},
    {"newer.db", 1, "newer than"},
    {"foreign.db", 1, "not a cutune database"},
};
#define NDBS (sizeof dbs / sizeof dbs[0])

static void make_dbs(const char *good)
{
    struct stat st;
    stat(good, &st);
    copy_file(good, in_tmp("tampered.db"), -1);
    CHECK_EQ_INT(raw_exec(in_tmp("tampered.db"), tamper_sql), SQLITE_OK);
    make_v1(in_tmp("older.db"));
    write_text(in_tmp("empty.db"), "%s", "");
    struct timespec old[2] = {{time(NULL) - 60, 0}, {time(NULL) - 60, 0}};
    utimensat(AT_FDCWD, in_tmp("empty.db"), old, 0); /* nobody is creating it */
    copy_file(good, in_tmp("half.db"), (long)st.st_size / 2);
    copy_file(good, in_tmp("header.db"), 50);
    write_text(in_tmp("text.db"), "not a database at all, just text\n");
    /* pages 2.. overwritten: the header and the schema page stay, the b-trees break */
    copy_file(good, in_tmp("corrupt.db"), -1);
    FILE *f = fopen(in_tmp("corrupt.db"), "r+b");
    if (f) {
        fseek(f, 4096, SEEK_SET);
        for (long i = 4096; i < st.st_size; i++)
            fputc(0xa5, f);
        fclose(f);
    }
    copy_file(good, in_tmp("negative.db"), -1);
    raw_exec(in_tmp("negative.db"), "PRAGMA user_version = -1");
    copy_file(good, in_tmp("newer.db"), -1);
    raw_exec(in_tmp("newer.db"), "PRAGMA user_version = 99");
    raw_exec(in_tmp("foreign.db"), "CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('x')");
}

/* ---- checks over every command ---------------------------------------------------- */

static int has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f ||
            (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
            return 1;
    return 0;
}

static void json_ok(const Result *r, const char *what)
{
    size_t bad = json_check(r->out, r->out_len);
    CHECK_MSG(bad == 0, "%s: invalid JSON at byte %zu: %.300s", what, bad ? bad - 1 : 0,
              r->out + (bad > 40 ? bad - 40 : 0));
}

/* Compile the exported header into a program that reads every entry and parameter, under
 * the sanitizers when the compiler has them, and run it. */
static void header_compiles(const char *header, const char *what)
{
    char src[600], bin[600], cmd[2400];
    snprintf(src, sizeof src, "%s", in_tmp("use_header.c"));
    snprintf(bin, sizeof bin, "%s", in_tmp("use_header"));
    if (write_text(
            src,
            "#include \"%s\"\n#include <stdio.h>\n"
            "int main(void)\n{\n    long long sum = 0;\n"
            "    for (int i = 0; i < CUTUNE_TUNED_COUNT; i++) {\n"
            "        const CutuneTunedConfig *c = &cutune_tuned_configs[i];\n"
            "        for (int k = 0; k < c->nparams; k++)\n"
            "            sum += c->params[k].value + (long long)c->params[k].name[0];\n"
            "        sum += cutune_tuned_param(c, \"BLOCK\", 0) + (long long)c->median_ms;\n"
            "        if (cutune_tuned_find(c->device_uuid, c->op, c->size) == NULL) return 3;\n"
            "    }\n    printf(\"%%d %%lld\\n\", CUTUNE_TUNED_COUNT, sum);\n    return 0;\n}\n",
            header) != 0)
        return;
    snprintf(cmd, sizeof cmd,
             "'%s' -std=c11 -Wall -Wextra -Werror %s -o '%s' '%s' >'%s' 2>&1 && '%s' >>'%s' 2>&1",
             cc, cc_sanitizers ? "-fsanitize=address,undefined -fno-sanitize-recover=all" : "", bin,
             src, in_tmp("cc.log"), bin, in_tmp("cc.log"));
    int st = system(cmd);
    char *log = slurp(in_tmp("cc.log"), NULL);
    CHECK_MSG(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "%s: the header did not compile "
              "or its program failed:\n%s",
              what, log ? log : "");
    free(log);
}

/* Every read command against one database: nothing crashes, the file is unchanged, a
 * damaged one is refused with words that name the damage. */
static void read_commands(const Db *d)
{
    char path[600], what[700];
    snprintf(path, sizeof path, "%s", in_tmp(d->name));
    uint64_t before = sum_file(path);
    const char *cmds[][12] = {
        {"show", "--db", path, NULL},
        {"show", "1", "--status", "ok", "--db", path, NULL},
        {"query", "axpy", "--size", "1024", "--device", "GPU-fa4e0000-0000-0000-0000-000000000001",
         "--db", path, NULL},
        {"query", "axpy", "--size", "4096", "--device", "GPU-fa4e0000-0000-0000-0000-000000000001",
         "--json", "--db", path, NULL},
        {"query", "axpy", "--size", "2048", "--device", "GPU-fa4e0000-0000-0000-0000-000000000001",
         "--json", "--db", path, NULL},
        {"query", "axpy", "--size", "3000", "--device", "GPU-fa4e0000-0000-0000-0000-000000000001",
         "--fallback", "--json", "--db", path, NULL},
        {"export", "--db", path, NULL},
        {"export", "--format", "csv", "--db", path, NULL},
        {"export", "--format", "header", "--db", path, NULL},
        {"replay", path, "--variant", "axpy_template", "--size", "4096", "--seeds", "2",
         "--budgets", "5,10", "--json", NULL},
        {"replay", path, "--variant", "axpy_template", "--size", "4096", "--seeds", "2",
         "--budgets", "5,10", NULL},
    };
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        Result r = run_sane(NULL, cmds[c], what, sizeof what);
        int json = strstr(what, "--json") ||
                   (!strcmp(cmds[c][0], "export") && !strstr(what, "--format"));
        /* replay reads a file without SQLite's header as a CSV recording: its refusal is a
         * CSV's */
        int csv = !strcmp(cmds[c][0], "replay") &&
                  (!strcmp(d->name, "text.db") || !strcmp(d->name, "empty.db"));
        if (r.status == 0 && json)
            json_ok(&r, what);
        if (r.status == 0 && !json && strcmp(cmds[c][0], "export") != 0)
            CHECK_MSG(!has_control(r.out), "%s: a control character reached stdout", what);
        CHECK_MSG(!has_control(r.err), "%s: a control character reached stderr:\n%s", what, r.err);
        if (d->damaged && csv) {
            CHECK_MSG(r.status != 0, "%s: exit 0", what);
        } else if (d->damaged) {
            CHECK_MSG(r.status == 1 || r.status == 4, "%s: exit %d", what, r.status);
            CHECK_MSG(strstr(r.err, d->phrase) != NULL, "%s: '%s' not said:\n%s", what, d->phrase,
                      r.err);
            CHECK_MSG(!strstr(r.err, "not an error") && !strstr(r.err, "older than"), "%s:\n%s",
                      what, r.err);
        } else if (!strcmp(d->name, "good.db") || !strcmp(cmds[c][0], "export") ||
                   !strcmp(cmds[c][0], "show")) {
            CHECK_MSG(r.status == 0, "%s: exit %d\n%s", what, r.status, r.err);
        }
        if (r.status == 0 && strstr(what, "--format header")) {
            write_text(in_tmp("export.h"), "%s", r.out);
            header_compiles(in_tmp("export.h"), what);
        }
        result_free(&r);
    }
    CHECK_MSG(sum_file(path) == before, "%s was modified by a read", d->name);
}

/* What the tampered database must give: poisoned rows left out with a warning, the others
 * exported; the query of a poisoned row refused; no control sequence on stdout. */
static void tampered_specifics(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s", in_tmp("tampered.db"));
    const char *json[] = {"export", "--db", path, NULL};
    Result r = run(json);
    CHECK(r.status == 0);
    CHECK_MSG(strstr(r.err, "5 malformed row(s) left out, 2 written"), "%s", r.err);
    CHECK(!strstr(r.out, "system("));
    CHECK(strstr(r.out, "\"median_ms\": null") != NULL); /* the infinite median */
    CHECK(strstr(r.out, "\xef\xbf\xbd") != NULL);        /* the device name's bad bytes */
    CHECK_STR_CONTAINS(r.err, "not valid UTF-8");
    result_free(&r);
    const char *header[] = {"export", "--format", "header", "--db", path, NULL};
    r = run(header);
    CHECK(r.status == 0);
    CHECK_STR_CONTAINS(r.out, "#define CUTUNE_TUNED_COUNT 1\n"); /* the infinite one too */
    CHECK(!strstr(r.out, "system(\"id\")"));
    result_free(&r);
    const char *q[] = {"query",  "axpy",     "--size",
                       "1024",   "--device", "GPU-fa4e0000-0000-0000-0000-000000000001",
                       "--json", "--db",     path,
                       NULL};
    r = run(q);
    CHECK_EQ_INT(r.status, 1);
    CHECK_STR_CONTAINS(r.err, "is malformed");
    CHECK(r.out_len == 0);
    result_free(&r);
    const char *show[] = {"show", "--db", path, NULL};
    r = run(show);
    CHECK_MSG(r.status == 0 && strstr(r.out, "boom \\x1b[2J\\x07\\u{9b}x"), "%s", r.out);
    CHECK(!strchr(r.out, 0x1b));
    result_free(&r);
}

/* Everything written to a full stdout fails, with exit 1 and a message. */
static void dev_full(void)
{
    if (access("/dev/full", W_OK) != 0) {
        printf("hostile: no /dev/full: skipped\n");
        return;
    }
    char path[600];
    snprintf(path, sizeof path, "%s", in_tmp("good.db"));
    const char *cmds[][12] = {
        {"show", "--db", path, NULL},
        {"query", "axpy", "--size", "4096", "--device", "GPU-fa4e0000-0000-0000-0000-000000000001",
         "--db", path, NULL},
        {"query", "axpy", "--size", "4096", "--device", "GPU-fa4e0000-0000-0000-0000-000000000001",
         "--json", "--db", path, NULL},
        {"export", "--db", path, NULL},
        {"export", "--format", "header", "--db", path, NULL},
        {"export", "--db", path, "--output", "/dev/full", NULL},
        {"replay", path, "--variant", "axpy_template", "--size", "4096", "--seeds", "2",
         "--budgets", "5", "--json", NULL},
        {"list", NULL},
        {"--help", NULL},
        {"run", "axpy", "--size", "512", "--db", path, "--no-progress", "--budget", "2", NULL},
    };
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        char what[700];
        Result r = run_sane("/dev/full", cmds[c], what, sizeof what);
        CHECK_MSG(r.status == 1, "%s > /dev/full: exit %d", what, r.status);
        CHECK_MSG(strstr(r.err, "failed"), "%s > /dev/full: no message:\n%s", what, r.err);
        result_free(&r);
    }
}

/* An output that is an input is refused before anything is written. */
static void output_is_input(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s", in_tmp("good.db"));
    char wal[640], other[600];
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(other, sizeof other, "%s", in_tmp("tampered.db"));
    uint64_t other_before = sum_file(other);
    uint64_t before = sum_file(path);
    const char *cmds[][12] = {
        {"export", "--db", path, "--output", path, NULL},
        {"export", "--format", "header", "--db", path, "--output", wal, NULL},
        {"replay", path, "--variant", "axpy_template", "--size", "4096", "--export-csv", path,
         NULL},
        {"replay", path, "--variant", "axpy_template", "--size", "4096", "--csv", path, NULL},
        {"replay", path, "--variant", "axpy_template", "--size", "4096", "--svg", path, NULL},
        {"replay", path, "--variant", "axpy_template", "--size", "4096", "--start-from", other,
         "--csv", other, NULL},
    };
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        char what[700];
        Result r = run_sane(NULL, cmds[c], what, sizeof what);
        CHECK_MSG(r.status == 2 && strstr(r.err, "is the input"), "%s: exit %d\n%s", what, r.status,
                  r.err);
        CHECK_MSG(sum_file(path) == before, "%s changed the database", what);
        result_free(&r);
    }
    CHECK(sum_file(other) == other_before);
    const char *show[] = {"show", "--db", path, NULL};
    Result r = run(show);
    CHECK(r.status == 0);
    result_free(&r);
}

/* A full disk (a file size limit): a run stops with a message and keeps what it had; an
 * export leaves the previous output file. */
static void full_disk(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s", in_tmp("full.db"));
    copy_file(in_tmp("good.db"), path, -1);
    struct stat st;
    stat(path, &st);
    const char *args[] = {"run", "axpy", "--size", "123456", "--db", path, "--no-progress", NULL};
    Result r = run_to(NULL, 40 * 1024, args);
    sane(&r, args);
    CHECK_MSG(r.status == 1 && strstr(r.err, "disk"), "run on a full disk: exit %d\n%s", r.status,
              r.err);
    CHECK(!strstr(r.err, "FOREIGN KEY"));
    result_free(&r);
    char ic[64];
    raw_text(path, "PRAGMA integrity_check", ic, sizeof ic);
    CHECK_MSG(strcmp(ic, "ok") == 0, "integrity_check: %s", ic);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM trials t JOIN problems p ON p.id ="
                               " t.problem_id WHERE p.size = '4096' AND t.status = 'ok'"),
                 22); /* 20 configs, and the best re-timed twice beside the yardstick */

    char out[600];
    snprintf(out, sizeof out, "%s", in_tmp("previous.h"));
    write_text(out, "previous\n");
    char good[600];
    snprintf(good, sizeof good, "%s", in_tmp("good.db"));
    const char *exp[] = {"export", "--format", "header", "--db", good, "--output", out, NULL};
    r = run_to(NULL, 1024, exp);
    sane(&r, exp);
    CHECK_MSG(r.status == 1 && strstr(r.err, "disk is full"), "export on a full disk: exit %d\n%s",
              r.status, r.err);
    result_free(&r);
    char *kept = slurp(out, NULL);
    CHECK(kept && strcmp(kept, "previous\n") == 0);
    free(kept);
}

/* Numeric options past their types and ranges, and lists past any buffer: usage errors
 * (exit 2) that say what was wrong, never a wrap, an overflowed allocation or a cut. */
static void options(void)
{
    char good[600];
    snprintf(good, sizeof good, "%s", in_tmp("good.db"));
    static const char huge[] = "2305843009213693952"; /* 2^61 */
    const char *cases[][12] = {
        {"replay", "--synthetic", "1", "--window", huge, NULL},
        {"replay", "--synthetic", "1", "--seeds", huge, NULL},
        {"replay", "--synthetic", "1", "--budgets", "5,-1", NULL},
        {"run", "axpy", "--device", "4294967299", "--db", good, NULL},
        {"run", "axpy", "--device", "", "--db", good, NULL},
        {"run", "axpy", "--jobs", "99999999999", "--db", good, NULL},
        {"run", "axpy", "--time", "1e999", "--db", good, NULL},
        {"run", "axpy", "--max-seconds", "nan", "--db", good, NULL},
        {"run", "axpy", "--strategy", "nope", "--db", good, NULL},
        {"query", "axpy", "--size", "4096", "--device", "4294967299", "--db", good, NULL},
        {"query", "axpy", "--size", "4096", "--device", "", "--db", good, NULL},
        {"query", "axpy", "--size", "0", "--device", "fake", "--db", good, NULL},
        {"show", "99999999999999999999", "--db", good, NULL},
        {"replay", good, NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char what[700];
        Result r = run_sane(NULL, cases[c], what, sizeof what);
        CHECK_MSG(r.status == 2, "%s: exit %d, want 2\n%s", what, r.status, r.err);
        result_free(&r);
    }
    /* a --budgets list of 600 characters is read whole: its last budget is 999 */
    char budgets[700];
    size_t k = 0;
    for (int b = 1; b < 200 && k < 590; b++)
        k += (size_t)snprintf(budgets + k, sizeof budgets - k, "%s%d", b > 1 ? "," : "", b);
    snprintf(budgets + k, sizeof budgets - k, ",999");
    const char *many[] = {"replay", "--synthetic", "1", "--seeds", "1", "--budgets", budgets, NULL};
    Result r = run(many);
    sane(&r, many);
    CHECK_MSG(r.status == 2 && strstr(r.err, "more than 32 budgets"), "%s", r.err);
    result_free(&r);
    snprintf(budgets, sizeof budgets, "%0590d,999", 1); /* one budget written with 590 digits */
    r = run(many);
    sane(&r, many);
    CHECK_MSG(r.status == 0 && strstr(r.out, "999 evals"), "exit %d\n%s", r.status, r.err);
    result_free(&r);
}

/* A space past the limits is refused where it loads, by list and by run, at once and
 * before the database is touched. */
static void space_limits(void)
{
    char dir[600], ini[700], db[600];
    snprintf(dir, sizeof dir, "%s", in_tmp("spaces"));
    snprintf(ini, sizeof ini, "%s/axpy_template.ini", dir);
    snprintf(db, sizeof db, "%s", in_tmp("limits.db"));
    mkdir(dir, 0755);
    const char *old = getenv("CUTUNE_SPACE_PATH");
    char saved[4096];
    snprintf(saved, sizeof saved, "%s", old ? old : "");
    setenv("CUTUNE_SPACE_PATH", dir, 1);
    /* 2^20 points of 222 parameters in a few kilobytes */
    FILE *f = fopen(ini, "w");
    if (f) {
        fprintf(f, "[variant]\nname = axpy_template\nop = axpy\nversion = 1\n"
                   "[launch]\ngrid = 1\nblock = 64\n");
        for (int i = 0; i < 222; i++)
            fprintf(f, "[param.P%d]\nvalues = %s\n", i, i < 20 ? "1, 2" : "1");
        fclose(f);
    }
    const char *list[] = {"list", "axpy", NULL};
    time_t t0 = time(NULL);
    Result r = run(list);
    sane(&r, list);
    CHECK_MSG(strstr(r.out, "parameter 'P48' is one more than the 48") ||
                  strstr(r.err, "parameter 'P48' is one more than the 48"),
              "exit %d\n%s%s", r.status, r.out, r.err); /* list reports the refused space */
    CHECK(time(NULL) - t0 < 5);
    result_free(&r);
    write_text(ini, "[variant]\nname = axpy_template\n[param.BLOCK]\nrange = 1..70000\n");
    const char *args[] = {"run", "axpy", "--size", "4096", "--db", db, "--no-progress", NULL};
    r = run(args);
    sane(&r, args);
    CHECK_MSG(r.status == 1 && strstr(r.err, "axpy_template.ini:4:") &&
                  strstr(r.err, "more than the 65535"),
              "exit %d\n%s", r.status, r.err);
    result_free(&r);
    struct stat st;
    CHECK_MSG(stat(db, &st) != 0, "a refused space left a database behind");
    setenv("CUTUNE_SPACE_PATH", saved, 1);
}

/* The read commands on a database in a folder they cannot write (as nobody when root). */
static void read_only_folder(void)
{
    char dir[600], path[700], older[700];
    snprintf(dir, sizeof dir, "%s", in_tmp("ro"));
    snprintf(path, sizeof path, "%s/r.db", dir);
    snprintf(older, sizeof older, "%s/old.db", dir);
    mkdir(dir, 0755);
    copy_file(in_tmp("good.db"), path, -1);
    copy_file(in_tmp("older.db"), older, -1);
    chmod(path, 0444);
    chmod(older, 0444);
    chmod(tmpdir, 0755);
    chmod(dir, 0555);
    as_nobody = 1;
    const char *cmds[][12] = {
        {"show", "--db", path, NULL},
        {"query", "axpy", "--size", "4096", "--device", "fake", "--db", path, NULL},
        {"query", "axpy", "--size", "3000", "--device", "fake", "--fallback", "--db", path, NULL},
        {"export", "--db", path, NULL},
        {"replay", path, "--variant", "axpy_template", "--size", "4096", "--seeds", "2",
         "--budgets", "5", NULL},
        {"export", "--db", older, NULL},
    };
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        char what[800];
        Result r = run_sane(NULL, cmds[c], what, sizeof what);
        CHECK_MSG(r.status == 0, "%s in a read-only folder: exit %d\n%s", what, r.status, r.err);
        result_free(&r);
    }
    as_nobody = 0;
    chmod(dir, 0755);
    chmod(tmpdir, 0700);
}

/* A worker's answer is input too: a status out of range is a malformed answer, recorded as
 * such, never an index into the tuner's counters. */
static void worker_answers(void)
{
    char db[600];
    snprintf(db, sizeof db, "%s", in_tmp("worker.db"));
    setenv("CUTUNE_FAKE_RULES", "badstatus=BLOCK=64,ITEMS=2", 1);
    const char *args[] = {"run", "axpy", "--size", "4096", "--db", db, "--no-progress", NULL};
    Result r = run(args);
    unsetenv("CUTUNE_FAKE_RULES");
    sane(&r, args);
    CHECK_MSG(r.status == 0, "exit %d\n%s", r.status, r.err);
    result_free(&r);
    CHECK_EQ_INT(raw_int(db, "SELECT count(*) FROM trials WHERE config = 'BLOCK=64,ITEMS=2'"
                             " AND status = 'crashed' AND message LIKE '%malformed%'"),
                 1);
    CHECK_EQ_INT(raw_int(db, "SELECT count(*) FROM trials"), 22); /* and the best's re-times */
}

/* `report 1 --html` of the database at path into html (run 1: the seeding run, of every
 * size; later cases added runs), which must succeed with every <svg> holding numbers only
 * (no inf, no NaN, as printf writes them). Returns the page (free it), or NULL. */
static char *report_figures(const char *path, const char *html)
{
    const char *args[] = {"report", "1", "--db", path, "--html", html, NULL};
    char what[800];
    Result r = run_sane(NULL, args, what, sizeof what);
    CHECK_MSG(r.status == 0, "%s: exit %d\n%s", what, r.status, r.err);
    result_free(&r);
    char *page = slurp(html, NULL);
    size_t figures = 0;
    for (const char *p = page ? strstr(page, "<svg") : NULL; p; p = strstr(p + 1, "<svg")) {
        const char *end = strstr(p, "</svg>");
        char *svg = strndup(p, end ? (size_t)(end - p) : strlen(p));
        for (char *c = svg; c && *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        CHECK_MSG(svg && !strstr(svg, "nan") && !strstr(svg, "inf"),
                  "%s: an <svg> holds a number that is none:\n%.600s", what, svg ? svg : "");
        free(svg);
        figures++;
    }
    CHECK_MSG(figures >= 3 * NSIZES, "%s: %zu figures", what, figures);
    return page;
}

/* The report of a database whose times are no times (inf, zero, negative): left out of the
 * figures, and the page and the summary say how many; then times at the ends of the
 * doubles (5e-324, 1.7e308), drawn without a ratio overflowing or a tick loop never
 * ending. */
static void report_bad_times(void)
{
    char path[600], html[600];
    snprintf(path, sizeof path, "%s", in_tmp("times.db"));
    snprintf(html, sizeof html, "%s", in_tmp("times.html"));
    copy_file(in_tmp("good.db"), path, -1);
    static const char *const poison[] = {"9e999", "0", "-1", "-9e999"};
    for (size_t i = 0; i < sizeof poison / sizeof *poison; i++) {
        char sql[400];
        snprintf(sql, sizeof sql,
                 "UPDATE trials SET median_ms = %s WHERE id = (SELECT t.id FROM trials t JOIN"
                 " problems p ON p.id = t.problem_id WHERE p.size = '1024' AND t.status = 'ok'"
                 " ORDER BY t.id LIMIT 1 OFFSET %zu)",
                 poison[i], i);
        CHECK_EQ_INT(raw_exec(path, sql), SQLITE_OK);
    }
    /* the schema's CHECK (median_ms > 0) binds cutune, not whoever wrote this file */
    CHECK_EQ_INT(raw_exec(path, "PRAGMA ignore_check_constraints = ON;"
                                "UPDATE yardsticks SET median_ms = 0 WHERE id = (SELECT"
                                " max(id) FROM yardsticks WHERE problem_id ="
                                " (SELECT id FROM problems WHERE size = '4096'))"),
                 SQLITE_OK);
    char *page = report_figures(path, html);
    CHECK_MSG(page &&
                  strstr(page, "id=\"skipped-times\">4 trial(s) recorded ok and 1 yardstick(s)"),
              "report --html on inf, zero and negative times does not say they were left out");
    free(page);
    const char *summary[] = {"report", "1", "--db", path, NULL};
    char what[800];
    Result r = run_sane(NULL, summary, what, sizeof what);
    CHECK_MSG(r.status == 0 && strstr(r.out, "note: 4 trial(s) recorded ok") &&
                  !strstr(r.out, "inf ms") && !strstr(r.out, "inf%") && !strstr(r.out, "nan"),
              "%s: exit %d\n%s%s", what, r.status, r.out, r.err);
    result_free(&r);

    snprintf(path, sizeof path, "%s", in_tmp("extremes.db"));
    copy_file(in_tmp("good.db"), path, -1);
    CHECK_EQ_INT(raw_exec(path, "UPDATE trials SET median_ms = CASE id % 2 WHEN 0 THEN 5e-324"
                                " ELSE 1.7e308 END WHERE id IN (SELECT id FROM trials"
                                " WHERE status = 'ok' ORDER BY id LIMIT 6)"),
                 SQLITE_OK);
    page = report_figures(path, in_tmp("extremes.html"));
    CHECK_MSG(page && !strstr(page, "skipped-times"), "finite times were said to be left out");
    free(page);
}

/* ---- a writer beside the readers ---------------------------------------------------------- */

typedef struct Writer {
    const char *path;
    volatile int stop;
    int rows;
} Writer;

/* Adds a best config for a new size, one transaction each, as fast as it can. */
static void *write_rows(void *arg)
{
    Writer *w = arg;
    sqlite3 *h = NULL;
    if (sqlite3_open(w->path, &h) != SQLITE_OK)
        return NULL;
    sqlite3_busy_timeout(h, 5000);
    for (int i = 0; !w->stop && i < 3000; i++) {
        char sql[1024];
        snprintf(sql, sizeof sql,
                 "BEGIN IMMEDIATE;"
                 "INSERT INTO problems (op, size) VALUES ('axpy', '%d');"
                 "INSERT INTO trials (run_id, device_id, variant_id, problem_id, config, status,"
                 " median_ms, samples) VALUES (1, 1, 1, last_insert_rowid(), 'BLOCK=%d,ITEMS=1',"
                 " 'ok', 1.5, 3);"
                 "INSERT INTO best (device_id, problem_id, trial_id) VALUES"
                 " (1, (SELECT problem_id FROM trials WHERE id = last_insert_rowid()),"
                 " last_insert_rowid());"
                 "COMMIT;",
                 1000000 + i, i);
        if (sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK)
            w->rows++;
        else
            sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_close(h);
    return NULL;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static void concurrent_writer(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s", in_tmp("busy.db"));
    copy_file(in_tmp("good.db"), path, -1);
    raw_exec(path, "PRAGMA journal_mode = WAL");
    Writer w = {path, 0, 0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, write_rows, &w) == 0);
    int consistent = 1;
    for (int k = 0; k < 6; k++) {
        const char *hdr[] = {"export", "--format", "header", "--db", path, NULL};
        Result r = run(hdr);
        sane(&r, hdr);
        CHECK(r.status == 0);
        const char *def = strstr(r.out, "#define CUTUNE_TUNED_COUNT ");
        long n = def ? atol(def + 27) : -1;
        size_t arrays = count(r.out, "static const CutuneTunedParam cutune_tuned_params_");
        size_t entries = count(r.out, "    {\"GPU-");
        if (n < 0 || (size_t)n != arrays || arrays != entries) {
            consistent = 0;
            fprintf(stderr, "header %d: count %ld, %zu arrays, %zu entries\n", k, n, arrays,
                    entries);
        }
        if (k == 5) {
            write_text(in_tmp("busy.h"), "%s", r.out);
            header_compiles(in_tmp("busy.h"), "export --format header beside a writer");
        }
        result_free(&r);
        const char *json[] = {"export", "--db", path, NULL};
        r = run(json);
        sane(&r, json);
        if (r.status == 0)
            json_ok(&r, "export beside a writer");
        result_free(&r);
        const char *fb[] = {"query",      "axpy",     "--size",
                            "3000",       "--device", "GPU-fa4e0000-0000-0000-0000-000000000001",
                            "--fallback", "--json",   "--db",
                            path,         NULL};
        r = run(fb);
        sane(&r, fb);
        CHECK(r.status == 0);
        if (r.status == 0)
            json_ok(&r, "query --fallback beside a writer");
        result_free(&r);
    }
    w.stop = 1;
    pthread_join(t, NULL);
    CHECK_MSG(consistent, "a header beside a writer was not one snapshot");
    CHECK_MSG(w.rows > 0, "the writer wrote nothing");
}

/* ---- merges and imports of files someone else made ---------------------------------------- */

/* Every schema object of a database, one per line ("type name sql"), in order. */
static void schema_text(const char *path, char *out, size_t len)
{
    raw_text(path,
             "SELECT group_concat(type || ' ' || name || ' ' || ifnull(sql, ''), char(10)) FROM"
             " (SELECT * FROM sqlite_schema ORDER BY type, name)",
             out, len);
}

/* A merge copies rows, never an input's schema: a trigger, table, view, index or column that
 * someone added to an input does not reach OUT (a trigger that emptied the best on every
 * insert into trials fired on every later run), new or existing. */
static void merge_foreign_schema(void)
{
    char good[600], planted[600], fresh[600], existing[600], what[700];
    snprintf(good, sizeof good, "%s", in_tmp("good.db"));
    snprintf(planted, sizeof planted, "%s", in_tmp("planted.db"));
    snprintf(fresh, sizeof fresh, "%s", in_tmp("merged-new.db"));
    snprintf(existing, sizeof existing, "%s", in_tmp("merged-old.db"));
    copy_file(good, planted, -1);
    CHECK_EQ_INT(raw_exec(planted,
                          "CREATE TRIGGER wipe_best AFTER INSERT ON trials BEGIN DELETE FROM best;"
                          " END;"
                          "CREATE TABLE planted (x); INSERT INTO planted VALUES (1);"
                          "CREATE VIEW planted_view AS SELECT * FROM planted;"
                          "CREATE INDEX planted_index ON trials (message);"
                          "ALTER TABLE trials ADD COLUMN planted_column TEXT DEFAULT 'x';"),
                 SQLITE_OK);
    static char want[32768], got[32768];
    schema_text(good, want, sizeof want);
    CHECK_MSG(strstr(want, "CREATE TABLE trials") != NULL, "%s", want);
    copy_file(good, existing, -1);
    const char *into[][6] = {{"merge", fresh, planted, NULL}, {"merge", existing, planted, NULL}};
    for (size_t i = 0; i < 2; i++) {
        Result r = run_sane(NULL, into[i], what, sizeof what);
        CHECK_MSG(r.status == 0, "%s: exit %d\n%s", what, r.status, r.err);
        result_free(&r);
        schema_text(into[i][1], got, sizeof got);
        CHECK_MSG(strcmp(want, got) == 0, "%s: OUT's schema is not cutune's:\n%s", what, got);
        CHECK_EQ_INT(raw_int(into[i][1], "SELECT count(*) FROM trials"),
                     raw_int(good, "SELECT count(*) FROM trials"));
    }
    /* a run into the merged database inserts trials, and every size keeps its best */
    long long trials = raw_int(fresh, "SELECT count(*) FROM trials");
    long long bests = raw_int(good, "SELECT count(*) FROM best");
    CHECK_MSG(bests >= (long long)NSIZES, "%lld bests", bests);
    CHECK_EQ_INT(raw_int(fresh, "SELECT count(*) FROM best"), bests);
    const char *args[] = {"run",      "axpy",          "--size",   "4096", "--db", fresh,
                          "--retune", "--no-progress", "--budget", "3",    NULL};
    Result r = run_sane(NULL, args, what, sizeof what);
    CHECK_MSG(r.status == 0, "%s: exit %d\n%s", what, r.status, r.err);
    result_free(&r);
    CHECK_MSG(raw_int(fresh, "SELECT count(*) FROM trials") > trials, "the run added no trial");
    CHECK_EQ_INT(raw_int(fresh, "SELECT count(*) FROM best"), bests);
}

/* The name of the first file in dir beginning with prefix and ending with ".tmp", into name;
 * 0 when there is none. */
static int temp_file(const char *dir, const char *prefix, char *name, size_t len)
{
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (!strncmp(e->d_name, prefix, strlen(prefix)) && n > 4 &&
            !strcmp(e->d_name + n - 4, ".tmp")) {
            snprintf(name, len, "%s", e->d_name);
            found = 1;
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* A merge killed with SIGKILL leaves its temporary file (as large as what it merged); the
 * next merge into the same OUT removes it, and leaves alone the files of a live process and
 * of another machine. The merge is held while it waits for OUT, which the test keeps
 * locked. */
static void merge_killed(void)
{
    char dir[600], out[700], tmp[256] = "", path[1024], what[1200];
    snprintf(dir, sizeof dir, "%s", in_tmp("killed"));
    snprintf(out, sizeof out, "%s/out.db", dir);
    mkdir(dir, 0755);
    copy_file(in_tmp("good.db"), out, -1);
    sqlite3 *lock = NULL;
    CHECK(sqlite3_open(out, &lock) == SQLITE_OK &&
          sqlite3_exec(lock, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
    const char *args[] = {"merge", out, in_tmp("tampered.db"), NULL};
    pid_t pid = spawn(in_tmp("spawn.out"), in_tmp("spawn.err"), 0, args);
    for (int waited = 0; waited < 8000 && !temp_file(dir, ".out.db.", tmp, sizeof tmp); waited += 5)
        usleep(5000);
    usleep(200000); /* building done: it waits for OUT */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    sqlite3_exec(lock, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(lock);
    char *log = slurp(in_tmp("spawn.err"), NULL);
    CHECK_MSG(tmp[0], "no temporary file of the merge appeared beside OUT:\n%s", log ? log : "");
    free(log);
    char owner[32];
    snprintf(owner, sizeof owner, ".out.db.%ld-", (long)pid);
    CHECK_MSG(strncmp(tmp, owner, strlen(owner)) == 0,
              "the merge's temporary file %s does not carry its process id %ld", tmp, (long)pid);
    /* beside it: a live process's file, and a file of another machine with the dead pid */
    char live[300] = "", other[300] = "";
    const char *tag = strchr(tmp + 8, '-');
    if (tag && strlen(tag) > 9) {
        snprintf(live, sizeof live, ".out.db.%ld-%.8s.abcdef.tmp", (long)getpid(), tag + 1);
        snprintf(other, sizeof other, ".out.db.%ld-%c%.7s.abcdef.tmp", (long)pid,
                 tag[1] == '0' ? '1' : '0', tag + 2);
        snprintf(path, sizeof path, "%s/%s", dir, live);
        write_text(path, "live");
        snprintf(path, sizeof path, "%s/%s", dir, other);
        write_text(path, "other");
    }
    const char *again[] = {"merge", out, in_tmp("good.db"), NULL};
    Result r = run_sane(NULL, again, what, sizeof what);
    CHECK_MSG(r.status == 0 && strstr(r.out, "removed 1 temporary file"), "%s: exit %d\n%s%s", what,
              r.status, r.out, r.err);
    result_free(&r);
    struct stat st;
    for (const char *side = ""; side; side = !*side                  ? "-wal"
                                             : !strcmp(side, "-wal") ? "-shm"
                                                                     : NULL) {
        snprintf(path, sizeof path, "%s/%s%s", dir, tmp, side);
        CHECK_MSG(stat(path, &st) != 0, "the killed merge's %s is still there", path);
    }
    for (const char *keep = live; *keep; keep = keep == live ? other : "") {
        snprintf(path, sizeof path, "%s/%s", dir, keep);
        CHECK_MSG(stat(path, &st) == 0, "%s was removed", path);
    }
    char ok[64];
    raw_text(out, "PRAGMA quick_check", ok, sizeof ok);
    CHECK_MSG(strcmp(ok, "ok") == 0, "OUT after the merges: %s", ok);
}

/* A Kernel Tuner cache of axpy_template (BLOCK 64..1024, ITEMS 1..8): the header, the
 * entries given as text, and the end, into path. */
static void kt_cache(const char *path, const char *params, const char *values, const char *body)
{
    write_text(
        path,
        "{\n\"device_name\": \"CPU\",\n\"kernel_name\": \"axpy_template\",\n"
        "\"problem_size\": 65536,\n\"tune_params_keys\": [\"BLOCK\", \"ITEMS\"%s],\n"
        "\"tune_params\": {\"BLOCK\": [64, 128, 256, 512, 1024], \"ITEMS\": [1, 2, 4, 8]%s},\n"
        "\"objective\": [\"time\"],\n\"cache\": {\n%s}\n}\n",
        params, values, body);
}

/* Kernel Tuner caches that lie: a key that disagrees with its values is refused; a key
 * repeated 100,000 times is one config and one trial; a parameter the space lacks is
 * ignored (and named) when the space determines it, refused when not; a FIFO is refused
 * before it is opened (the open waited for a writer); a size that is not one is bad usage. */
static void kt_import(void)
{
    char cache[600], db[600], what[1200];
    snprintf(cache, sizeof cache, "%s", in_tmp("kt.json"));
    snprintf(db, sizeof db, "%s", in_tmp("kt.db"));
    const char *args[] = {"import",        "kernel-tuner", cache,   "--op", "axpy", "--variant",
                          "axpy_template", "--size",       "65536", "--db", db,     NULL};
    struct stat st;

    kt_cache(cache, "", "",
             "\"64,1\": {\"BLOCK\": 128, \"ITEMS\": 1, \"time\": 0.5},\n"
             "\"128,1\": {\"BLOCK\": 128, \"ITEMS\": 1, \"time\": 0.7}\n");
    Result r = run_sane(NULL, args, what, sizeof what);
    CHECK_MSG(r.status == 1 && strstr(r.err, "kt.json:9: cache entry \"64,1\"") &&
                  strstr(r.err, "under the key \"128,1\""),
              "a key that disagrees with its values: exit %d\n%s", r.status, r.err);
    CHECK_MSG(stat(db, &st) != 0, "the refused cache made a database");
    result_free(&r);

    FILE *f = fopen(cache, "w");
    if (f) {
        fprintf(f, "{\"device_name\": \"CPU\", \"problem_size\": 65536, \"tune_params_keys\": "
                   "[\"BLOCK\", \"ITEMS\"], \"tune_params\": {\"BLOCK\": [64, 128], \"ITEMS\": "
                   "[1, 2]}, \"cache\": {\n");
        for (int i = 0; i < 100000; i++)
            fprintf(f, "\"64,1\": {\"BLOCK\": 64, \"ITEMS\": 1, \"time\": %d.25},\n", 1 + i % 7);
        fprintf(f, "\"128,2\": {\"BLOCK\": 128, \"ITEMS\": 2, \"time\": 0.5}\n}\n}\n");
        fclose(f);
    }
    r = run_sane(NULL, args, what, sizeof what);
    CHECK_MSG(r.status == 0 && strstr(r.out, "dropped 99999 entries"),
              "100,000 copies of one key: exit %d\n%s%s", r.status, r.out, r.err);
    result_free(&r);
    CHECK_EQ_INT(raw_int(db, "SELECT count(*) FROM trials"), 2);
    /* the last copy, as Kernel Tuner's JSON reader keeps it: 99999 % 7 + 1 */
    CHECK_EQ_INT(raw_int(db,
                         "SELECT median_ms * 100 FROM trials WHERE config = 'BLOCK=64,ITEMS=1'"),
                 525);
    cutune_db_file_remove(db);

    kt_cache(
        cache, ", \"THREADS\", \"ONE\"", ", \"THREADS\": [64, 128], \"ONE\": [1]",
        "\"64,1,64,1\": {\"BLOCK\": 64, \"ITEMS\": 1, \"THREADS\": 64, \"ONE\": 1, \"time\": 0.5},\n"
        "\"64,2,64,1\": {\"BLOCK\": 64, \"ITEMS\": 2, \"THREADS\": 64, \"ONE\": 1, \"time\": 0.6},\n"
        "\"128,1,128,1\": {\"BLOCK\": 128, \"ITEMS\": 1, \"THREADS\": 128, \"ONE\": 1, "
        "\"time\": 0.4}\n");
    r = run_sane(NULL, args, what, sizeof what);
    CHECK_MSG(r.status == 0 && strstr(r.out, "THREADS (a function of BLOCK, ITEMS)") &&
                  strstr(r.out, "ONE (always 1)"),
              "parameters the space determines: exit %d\n%s%s", r.status, r.out, r.err);
    result_free(&r);
    CHECK_EQ_INT(raw_int(db, "SELECT count(*) FROM trials WHERE config IN ('BLOCK=64,ITEMS=1',"
                             " 'BLOCK=64,ITEMS=2', 'BLOCK=128,ITEMS=1')"),
                 3);
    cutune_db_file_remove(db);

    kt_cache(cache, ", \"THREADS\"", ", \"THREADS\": [64, 128]",
             "\"64,1,64\": {\"BLOCK\": 64, \"ITEMS\": 1, \"THREADS\": 64, \"time\": 0.5},\n"
             "\"64,1,128\": {\"BLOCK\": 64, \"ITEMS\": 1, \"THREADS\": 128, \"time\": 0.3}\n");
    r = run_sane(NULL, args, what, sizeof what);
    CHECK_MSG(r.status == 1 && strstr(r.err, "parameter THREADS") &&
                  strstr(r.err, "\"64,1,64\" and \"64,1,128\""),
              "a parameter the space does not determine: exit %d\n%s", r.status, r.err);
    CHECK_MSG(stat(db, &st) != 0, "the refused cache made a database");
    result_free(&r);

    const char *size_x[] = {"import",        "kernel-tuner", cache, "--op", "axpy", "--variant",
                            "axpy_template", "--size",       "x",   "--db", db,     NULL};
    kt_cache(cache, "", "", "\"64,1\": {\"BLOCK\": 64, \"ITEMS\": 1, \"time\": 0.5}\n");
    r = run_sane(NULL, size_x, what, sizeof what);
    CHECK_MSG(r.status == 2, "%s: exit %d, want 2\n%s", what, r.status, r.err);
    result_free(&r);

    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s", in_tmp("cache.fifo"));
    CHECK(mkfifo(fifo, 0600) == 0);
    const char *from_fifo[] =
        {"import",        "kernel-tuner", fifo,    "--op", "axpy", "--variant",
         "axpy_template", "--size",       "65536", "--db", db,     NULL};
    time_t t0 = time(NULL);
    r = run_sane(NULL, from_fifo, what, sizeof what);
    CHECK_MSG(r.status == 1 && strstr(r.err, "(it is a FIFO)"), "%s: exit %d\n%s", what, r.status,
              r.err);
    CHECK(time(NULL) - t0 < 10);
    CHECK_MSG(stat(db, &st) != 0, "the refused FIFO made a database");
    result_free(&r);
}

/* ---- run against damaged databases; the lookup API on every database ---------------------- */

static void run_refuses_damage(void)
{
    for (size_t i = 0; i < NDBS; i++) {
        if (!dbs[i].damaged || !strcmp(dbs[i].name, "empty.db"))
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s", in_tmp(dbs[i].name));
        uint64_t before = sum_file(path);
        const char *args[] = {"run", "axpy", "--size", "4096", "--db", path, "--no-progress", NULL};
        Result r = run(args);
        sane(&r, args);
        CHECK_MSG(r.status == 1, "run --db %s: exit %d\n%s", dbs[i].name, r.status, r.err);
        CHECK_MSG(!strstr(r.err, "not an error"), "%s", r.err);
        result_free(&r);
        CHECK_MSG(sum_file(path) == before, "run modified %s", dbs[i].name);
    }
    /* the tampered database is still a database: a run records into it */
    char tampered[600];
    snprintf(tampered, sizeof tampered, "%s", in_tmp("tampered.db"));
    const char *args[] = {"run",    "axpy",          "--size",   "4096", "--db",
                          tampered, "--no-progress", "--budget", "2",    NULL};
    Result r = run(args);
    sane(&r, args);
    CHECK_MSG(r.status == 0, "run on the tampered database: %s", r.err);
    CHECK(!has_control(r.out));
    result_free(&r);
}

static void lookup_api(void)
{
    CutuneDeviceInfo dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.uuid, sizeof dev.uuid, "GPU-fa4e0000-0000-0000-0000-000000000001");
    dev.cc_major = 9;
    for (size_t i = 0; i < NDBS; i++) {
        CutuneLookupSettings s;
        cutune_lookup_default_settings(&s);
        s.db_path = in_tmp(dbs[i].name);
        CutuneLookup *h = NULL;
        CutuneError err = {0};
        int rc = cutune_open(&h, &s, &err);
        if (dbs[i].damaged) {
            CHECK_MSG(rc != 0 && strstr(err.msg, dbs[i].phrase), "lookup on %s: %d %s", dbs[i].name,
                      rc, err.msg);
            continue;
        }
        CHECK_MSG(rc == 0, "lookup on %s: %s", dbs[i].name, err.msg);
        for (size_t k = 0; h && k < NSIZES; k++) {
            CutuneLookupResult res;
            cutune_error_clear(&err);
            rc = cutune_lookup(h, &dev, "axpy", sizes[k], &res, &err);
            CHECK_MSG(rc == 0 || rc == CUTUNE_ERR_NOT_FOUND || rc == CUTUNE_ERR_INVALID,
                      "lookup %s on %s: %d %s", sizes[k], dbs[i].name, rc, err.msg);
        }
        cutune_close(&h);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_hostile CUTUNE_EXE FAKE_WORKER CC\n");
        return 2;
    }
    exe = argv[1];
    cc = argv[3];
    setenv("CUTUNE_WORKER", argv[2], 1);
    signal(SIGXFSZ, SIG_IGN);
    if (make_tmpdir(tmpdir, sizeof tmpdir, "cutune-test-hostile") != 0)
        return 1;
    char probe[2200];
    snprintf(probe, sizeof probe,
             "echo 'int main(void){return 0;}' | '%s' -x c -fsanitize=address,undefined "
             "-o '%s' - >/dev/null 2>&1",
             cc, in_tmp("probe"));
    cc_sanitizers = system(probe) == 0;
    char good[600];
    snprintf(good, sizeof good, "%s", in_tmp("good.db"));
    if (make_good(good)) {
        make_dbs(good);
        for (size_t i = 0; i < NDBS; i++)
            read_commands(&dbs[i]);
        tampered_specifics();
        dev_full();
        output_is_input();
        full_disk();
        concurrent_writer();
        run_refuses_damage();
        lookup_api();
        options();
        space_limits();
        read_only_folder();
        worker_answers();
        report_bad_times();
        merge_foreign_schema();
        merge_killed();
        kt_import();
    }
    rm_tree(tmpdir);
    return check_result("hostile");
}
