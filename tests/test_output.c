/* Writing output: atomic output files (outfile.h), the JSON writer (json.h), the C literal
 * writer (cliteral.h) and terminal-safe text (utf8.h), each with hostile input. The C
 * compiler to check generated literals with is argv[1] (skipped without it). */
#include "check.h"
#include "cliteral.h"
#include "json.h"
#include "json_check.h"
#include "outfile.h"
#include "tmpdir.h"
#include "utf8.h"

#include <math.h>
#include <stdint.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The whole file, in a static buffer ("" if missing). */
static const char *slurp(const char *path)
{
    static char buf[1 << 16];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return buf;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Files in the test folder: a temporary file left behind would show here. */
static int count_files(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void commit_replaces(void)
{
    char p[512];
    path_of(p, sizeof p, "out.txt");
    put(p, "old\n");
    chmod(p, 0640);
    CutuneOutFile o;
    CutuneError err = {0};
    CHECK(cutune_outfile_open(&o, p, &err) == 0);
    fputs("new content\n", o.f);
    CHECK(strcmp(slurp(p), "old\n") == 0); /* nothing shows before the commit */
    CHECK(count_files() == 2);
    CHECK(cutune_outfile_commit(&o, &err) == 0);
    CHECK(strcmp(slurp(p), "new content\n") == 0);
    CHECK(count_files() == 1);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0640); /* permissions kept */
    CHECK(o.f == NULL && o.tmp == NULL);
    unlink(p);
}

static void abort_keeps_previous(void)
{
    char p[512];
    path_of(p, sizeof p, "keep.txt");
    put(p, "previous\n");
    CutuneOutFile o;
    CutuneError err = {0};
    CHECK(cutune_outfile_open(&o, p, &err) == 0);
    fputs("half of an export", o.f);
    cutune_outfile_abort(&o);
    CHECK(strcmp(slurp(p), "previous\n") == 0);
    CHECK(count_files() == 1);
    cutune_outfile_abort(&o); /* twice is harmless */
    cutune_outfile_abort(NULL);
    unlink(p);
}

/* A write that fails as on a full disk: the file size limit (ulimit -f). */
static void full_disk_keeps_previous(void)
{
    char p[512];
    path_of(p, sizeof p, "full.txt");
    put(p, "previous\n");
    struct rlimit old, small = {4096, 0};
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    small.rlim_max = old.rlim_max;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    CutuneOutFile o;
    CutuneError err = {0};
    CHECK(cutune_outfile_open(&o, p, &err) == 0);
    for (int i = 0; i < 2000 && o.f; i++)
        fputs("0123456789abcdef\n", o.f);
    int rc = cutune_outfile_commit(&o, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    CHECK(rc == CUTUNE_ERR_IO);
    CHECK_STR_CONTAINS(err.msg, "disk is full");
    CHECK_STR_CONTAINS(err.msg, "unchanged");
    CHECK(strcmp(slurp(p), "previous\n") == 0);
    CHECK(count_files() == 1);
    unlink(p);
}

static void device_written_in_place(void)
{
    CutuneOutFile o;
    CutuneError err = {0};
    if (access("/dev/full", W_OK) == 0) {
        CHECK(cutune_outfile_open(&o, "/dev/full", &err) == 0);
        CHECK(o.tmp == NULL);
        fputs("nowhere to go\n", o.f);
        CHECK(cutune_outfile_commit(&o, &err) == CUTUNE_ERR_IO);
        CHECK_STR_CONTAINS(err.msg, "/dev/full");
    }
    cutune_error_clear(&err);
    CHECK(cutune_outfile_open(&o, "/dev/null", &err) == 0);
    fputs("gone\n", o.f);
    CHECK(cutune_outfile_commit(&o, &err) == 0);
    struct stat st;
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode)); /* never replaced */
}

static void bad_targets(void)
{
    CutuneOutFile o;
    CutuneError err = {0};
    CHECK(cutune_outfile_open(&o, dir, &err) == CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "folder");
    char p[512];
    path_of(p, sizeof p, "no/such/folder/x.json");
    cutune_error_clear(&err);
    CHECK(cutune_outfile_open(&o, p, &err) == CUTUNE_ERR_IO);
    CHECK_STR_CONTAINS(err.msg, p);
    CHECK(o.f == NULL);
    cutune_error_clear(&err);
    CHECK(cutune_outfile_open(&o, "", &err) == CUTUNE_ERR_INVALID);
    CHECK(count_files() == 0);
}

static void link_followed(void)
{
    char real[512], link[512];
    path_of(real, sizeof real, "real.txt");
    path_of(link, sizeof link, "link.txt");
    put(real, "old\n");
    CHECK(symlink(real, link) == 0);
    CutuneOutFile o;
    CutuneError err = {0};
    CHECK(cutune_outfile_open(&o, link, &err) == 0);
    fputs("through the link\n", o.f);
    CHECK(cutune_outfile_commit(&o, &err) == 0);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(strcmp(slurp(real), "through the link\n") == 0);
    unlink(link);
    unlink(real);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Temporary files carry their writer's pid and a tag of the machine: those of a process
 * that is gone are stale and removed (with SQLite's files beside them); a live process's,
 * another machine's and files of other names stay. */
static void stale_temporaries(void)
{
    char target[512], *mine = NULL;
    path_of(target, sizeof target, "t.db");
    CutuneError err = {0};
    CHECK_MSG(cutune_outfile_temp(target, &mine, &err) == 0, "%s", err.msg);
    if (!mine)
        return;
    char own[64];
    snprintf(own, sizeof own, "/.t.db.%ld-", (long)getpid());
    CHECK_MSG(strstr(mine, own) != NULL && strlen(mine) > 4 &&
                  !strcmp(mine + strlen(mine) - 4, ".tmp"),
              "%s is not named for its process", mine);
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    const char *tag = strstr(mine, own) + strlen(own); /* "TAG.RANDOM.tmp" */
    char gone[600], gone_wal[640], other[600], unrelated[600];
    snprintf(gone, sizeof gone, "%s/.t.db.%ld-%.8s.a1b2c3.tmp", dir, (long)dead, tag);
    snprintf(gone_wal, sizeof gone_wal, "%s-wal", gone);
    snprintf(other, sizeof other, "%s/.t.db.%ld-%c%.7s.a1b2c3.tmp", dir, (long)dead,
             tag[0] == '0' ? '1' : '0', tag + 1);
    snprintf(unrelated, sizeof unrelated, "%s/.t.db.a1b2c3.tmp", dir);
    put(gone, "x");
    put(gone_wal, "x");
    put(other, "x");
    put(unrelated, "x");
    CHECK_EQ_INT(cutune_outfile_remove_stale(target), 1);
    CHECK(!exists(gone) && !exists(gone_wal));
    CHECK(exists(mine) && exists(other) && exists(unrelated));
    CHECK_EQ_INT(cutune_outfile_remove_stale(target), 0);
    unlink(mine);
    unlink(other);
    unlink(unrelated);
    free(mine);
}

static void output_is_input(void)
{
    char in[512], hard[512], soft[512], other[512], missing[512];
    path_of(in, sizeof in, "in.db");
    path_of(hard, sizeof hard, "hard.db");
    path_of(soft, sizeof soft, "soft.db");
    path_of(other, sizeof other, "other.db");
    path_of(missing, sizeof missing, "missing.db");
    put(in, "data\n");
    put(other, "other\n");
    CHECK(link(in, hard) == 0);
    CHECK(symlink(in, soft) == 0);
    const char *inputs[] = {NULL, missing, in};
    CutuneError err = {0};
    CHECK(cutune_outfile_refuse_input(in, inputs, 3, &err) == CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "is the input");
    cutune_error_clear(&err);
    CHECK(cutune_outfile_refuse_input(hard, inputs, 3, &err) == CUTUNE_ERR_INVALID);
    cutune_error_clear(&err);
    CHECK(cutune_outfile_refuse_input(soft, inputs, 3, &err) == CUTUNE_ERR_INVALID);
    cutune_error_clear(&err);
    char spelled[600];
    snprintf(spelled, sizeof spelled, "%s/./in.db", dir);
    CHECK(cutune_outfile_refuse_input(spelled, inputs, 3, &err) == CUTUNE_ERR_INVALID);
    cutune_error_clear(&err);
    CHECK(cutune_outfile_refuse_input(other, inputs, 3, &err) == 0);
    CHECK(err.msg[0] == '\0');
    /* an input that is not there yet (a database's -wal) is refused by its place */
    CHECK(cutune_outfile_refuse_input(missing, inputs, 3, &err) == CUTUNE_ERR_INVALID);
    cutune_error_clear(&err);
    char other_missing[600], spelled_missing[600];
    snprintf(other_missing, sizeof other_missing, "%s/missing.db-wal", dir);
    snprintf(spelled_missing, sizeof spelled_missing, "%s/../%s/missing.db", dir,
             strrchr(dir, '/') + 1);
    CHECK(cutune_outfile_refuse_input(other_missing, inputs, 3, &err) == 0);
    CHECK(cutune_outfile_refuse_input(spelled_missing, inputs, 3, &err) == CUTUNE_ERR_INVALID);
    CHECK(cutune_outfile_same_place(missing, spelled_missing));
    CHECK(!cutune_outfile_same_place(missing, other_missing));
    CHECK(strcmp(slurp(in), "data\n") == 0);
    unlink(in);
    unlink(hard);
    unlink(soft);
    unlink(other);
}

/* A memory stream's text after fn wrote to it. */
typedef struct Mem {
    char *buf;
    size_t len;
    FILE *f;
} Mem;

static void mem_open(Mem *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
}

static void mem_close(Mem *m)
{
    fclose(m->f);
    m->f = NULL;
}

/* Every byte but NUL, and sequences that are not UTF-8. */
static const char hostile[] =
    "quote\" back\\slash \x1b[2J esc, \x7f del, \xc2\x9b csi, \xe2\x80\xa8 ls, "
    "tab\t nl\n cr\r bs\b ff\f, "
    "bad: \xc0\x80 \xed\xa0\x80 \xf5\x80\x80\x80 \x80 \xff \xe2\x82 "
    "ok: \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 */ /* ?\?/ ?\?= %s";

static void json_hostile(void)
{
    char all[256];
    for (int i = 1; i < 256; i++)
        all[i - 1] = (char)i;
    all[255] = '\0';
    Mem m;
    mem_open(&m);
    CutuneJson j;
    cutune_json_init(&j, m.f, 1);
    cutune_json_begin_object(&j);
    cutune_json_key(&j, hostile); /* keys are escaped like values */
    cutune_json_string(&j, hostile);
    cutune_json_key(&j, "all bytes");
    cutune_json_string(&j, all);
    cutune_json_key(&j, "numbers");
    cutune_json_begin_array(&j);
    cutune_json_number(&j, INFINITY);
    cutune_json_number(&j, -INFINITY);
    cutune_json_number(&j, NAN);
    cutune_json_number(&j, -0.0);
    cutune_json_number(&j, 1e308);
    cutune_json_number(&j, 5e-324);
    cutune_json_number(&j, 0.1);
    cutune_json_int(&j, INT64_MIN);
    cutune_json_int(&j, INT64_MAX);
    cutune_json_bool(&j, 2);
    cutune_json_null(&j);
    cutune_json_string(&j, NULL);
    cutune_json_end_array(&j);
    cutune_json_key(&j, "empty");
    cutune_json_begin_object(&j);
    cutune_json_end_object(&j);
    cutune_json_end_object(&j);
    CHECK(cutune_json_finish(&j) == 0);
    mem_close(&m);
    size_t bad = json_check(m.buf, m.len);
    CHECK_MSG(bad == 0, "invalid JSON at offset %zu: %s", bad - 1, m.buf);
    /* hostile: 6 bad sequences (c0, 80, ed, a0, 80 of the surrogate are 3 bytes...) */
    CHECK(cutune_json_replaced(&j) > 0);
    CHECK(strstr(m.buf, "\xef\xbf\xbd") != NULL);
    CHECK(strstr(m.buf, "\x1b") == NULL && strstr(m.buf, "\\u001b[2J") != NULL);
    CHECK(strstr(m.buf, "\\u007f") != NULL && strstr(m.buf, "\\u2028") != NULL);
    CHECK(strstr(m.buf, "[null, null, null, -0, 1e+308, 4.9406564584124654e-324, "
                        "0.10000000000000001, -9223372036854775808, 9223372036854775807, "
                        "true, null, null]") != NULL);
    CHECK(strstr(m.buf, "\xc3\xa9") && strstr(m.buf, "\xf0\x9f\x98\x80")); /* valid: kept */
    CHECK(strstr(m.buf, "\"empty\": {}") != NULL);
    free(m.buf);
}

static void json_layout(void)
{
    static const struct {
        int pretty;
        const char *want;
    } cases[] = {
        {0, "{\"a\": 1, \"b\": [2, {\"c\": []}]}\n"},
        {1, "{\n  \"a\": 1,\n  \"b\": [2, {\"c\": []}]\n}\n"},
        {2, "{\n  \"a\": 1,\n  \"b\": [\n    2,\n    {\"c\": []}\n  ]\n}\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Mem m;
        mem_open(&m);
        CutuneJson j;
        cutune_json_init(&j, m.f, cases[i].pretty);
        cutune_json_begin_object(&j);
        cutune_json_key(&j, "a");
        cutune_json_int(&j, 1);
        cutune_json_key(&j, "b");
        cutune_json_begin_array(&j);
        cutune_json_int(&j, 2);
        cutune_json_begin_object(&j);
        cutune_json_key(&j, "c");
        cutune_json_begin_array(&j);
        cutune_json_end_array(&j);
        cutune_json_end_object(&j);
        cutune_json_end_array(&j);
        cutune_json_end_object(&j);
        CHECK(cutune_json_finish(&j) == 0);
        mem_close(&m);
        CHECK_MSG(strcmp(m.buf, cases[i].want) == 0, "pretty %d: %s", cases[i].pretty, m.buf);
        free(m.buf);
    }
}

static void json_misuse_and_errors(void)
{
    Mem m;
    mem_open(&m);
    CutuneJson j;
    cutune_json_init(&j, m.f, 0);
    cutune_json_begin_object(&j);
    cutune_json_int(&j, 1); /* a value where a key is due */
    CHECK(cutune_json_error(&j) == CUTUNE_ERR_INVALID);
    CHECK(cutune_json_finish(&j) == CUTUNE_ERR_INVALID);
    cutune_json_init(&j, m.f, 0);
    cutune_json_begin_array(&j);
    cutune_json_key(&j, "k"); /* a key in an array */
    CHECK(cutune_json_error(&j) == CUTUNE_ERR_INVALID);
    cutune_json_init(&j, m.f, 0);
    cutune_json_begin_array(&j);
    cutune_json_end_object(&j); /* the wrong end */
    CHECK(cutune_json_error(&j) == CUTUNE_ERR_INVALID);
    cutune_json_init(&j, m.f, 0);
    for (int i = 0; i < CUTUNE_JSON_MAX_DEPTH + 1; i++)
        cutune_json_begin_array(&j);
    CHECK(cutune_json_error(&j) == CUTUNE_ERR_INVALID);
    cutune_json_init(&j, m.f, 0);
    cutune_json_begin_array(&j); /* left open */
    CHECK(cutune_json_finish(&j) == CUTUNE_ERR_INVALID);
    mem_close(&m);
    free(m.buf);
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        cutune_json_init(&j, full, 0);
        cutune_json_string(&j, "nowhere");
        CHECK(cutune_json_finish(&j) == CUTUNE_ERR_IO);
        fclose(full);
    }
}

static void text_for_terminals(void)
{
    Mem m;
    mem_open(&m);
    size_t n = cutune_text_write(m.f, hostile, 0);
    mem_close(&m);
    CHECK(n >= 10);
    for (const unsigned char *p = (const unsigned char *)m.buf; *p; p++)
        CHECK_MSG(*p >= 0x20 && *p != 0x7f, "control byte 0x%02x left in '%s'", *p, m.buf);
    CHECK_STR_CONTAINS(m.buf, "\\x1b[2J");
    CHECK_STR_CONTAINS(m.buf, "\\u{9b}");
    CHECK_STR_CONTAINS(m.buf, "\\xc0\\x80");
    CHECK_STR_CONTAINS(m.buf, "\xc3\xa9 \xe2\x82\xac"); /* valid text kept */
    uint32_t cp;
    CHECK(cutune_utf8_decode((const unsigned char *)"\xe2\x82\xac", 3, &cp) == 3 && cp == 0x20ac);
    CHECK(cutune_utf8_decode((const unsigned char *)"\xe2\x82\xac", 2, &cp) == 0);
    CHECK(cutune_utf8_decode((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp) == 0);
    free(m.buf);
    mem_open(&m);
    cutune_text_write(m.f, "abcdefgh", 3);
    mem_close(&m);
    CHECK(strcmp(m.buf, "abc...") == 0);
    free(m.buf);
}

static void c_identifiers(void)
{
    static const char *const good[] = {"TILE", "BM", "x", "_x", "a1_b2", "WARPS_PER_BLOCK"};
    static const char *const bad[] =
        {"",    "1A",       "A-B",
         "A B", "int",      "return",
         "__X", "_X",       "A\"",
         "x;y", "\xc3\xa9", "a234567890123456789012345678901234567890123456789012345678901234"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK_MSG(cutune_c_identifier_valid(good[i]), "'%s' refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_MSG(!cutune_c_identifier_valid(bad[i]), "'%s' accepted", bad[i]);
    CHECK(!cutune_c_identifier_valid(NULL));
}

/* Compile and run a program holding the C literals of hostile data: it checks that they
 * read back as the same bytes and values. */
static void c_literals_compile(const char *cc)
{
    char all[256];
    for (int i = 1; i < 256; i++)
        all[i - 1] = (char)i;
    all[255] = '\0';
    const char *strings[] = {hostile, all, "1);system(\"id\");//", "", "?\?=?\?/?\?'"};
    const int64_t ints[] = {INT64_MIN, INT64_MAX, 0, -1};
    const double dbls[] = {0.1, 3, -0.0, 1e308, 5e-324};
    char src[512], exe[512], cmd[2048];
    path_of(src, sizeof src, "lit.c");
    path_of(exe, sizeof exe, "lit");
    FILE *f = fopen(src, "w");
    if (!f) {
        CHECK(0);
        return;
    }
    fputs("/* ", f);
    cutune_c_comment_text(f, hostile);
    fputs(" */\n#include <string.h>\n#include <stdio.h>\nint main(void)\n{\n    int bad = 0;\n", f);
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        fprintf(f, "    { static const char s[] = ");
        cutune_c_string(f, strings[i]);
        fprintf(f, "; static const unsigned char want[] = {");
        for (const unsigned char *p = (const unsigned char *)strings[i]; *p; p++)
            fprintf(f, "%u, ", *p);
        fprintf(f,
                "0}; if (sizeof s != sizeof want || memcmp(s, want, sizeof s)) "
                "{ printf(\"string %zu\\n\"); bad = 1; } }\n",
                i);
    }
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        fprintf(f, "    { long long v = ");
        cutune_c_int64(f, ints[i]);
        fprintf(f, "; if (v != %lldLL%s) { printf(\"int %zu\\n\"); bad = 1; } }\n",
                ints[i] == INT64_MIN ? -INT64_MAX : (long long)ints[i],
                ints[i] == INT64_MIN ? " - 1" : "", i);
    }
    for (size_t i = 0; i < sizeof dbls / sizeof dbls[0]; i++) {
        fprintf(f, "    { double v = ");
        cutune_c_double(f, dbls[i]);
        fprintf(f,
                ", w = %a; if (memcmp(&v, &w, sizeof v)) { printf(\"double %zu\\n\"); "
                "bad = 1; } }\n",
                dbls[i], i);
    }
    fputs("    return bad;\n}\n", f);
    CHECK(fclose(f) == 0);
    snprintf(cmd, sizeof cmd, "'%s' -std=c11 -Wall -Wextra -Werror -o '%s' '%s' && '%s'", cc, exe,
             src, exe);
    int st = system(cmd);
    CHECK_MSG(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "the literals did not compile or read back (%s)", src);
    if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        unlink(src);
        unlink(exe);
    }
}

int main(int argc, char **argv)
{
    if (make_tmpdir(dir, sizeof dir, "cutune-test-output") != 0)
        return 1;
    commit_replaces();
    abort_keeps_previous();
    full_disk_keeps_previous();
    device_written_in_place();
    bad_targets();
    link_followed();
    output_is_input();
    stale_temporaries();
    json_hostile();
    json_layout();
    json_misuse_and_errors();
    text_for_terminals();
    c_identifiers();
    if (argc > 1)
        c_literals_compile(argv[1]);
    else
        printf("no C compiler given: the generated literals are not compiled\n");
    rmdir(dir);
    return check_result("output");
}
