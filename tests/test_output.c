/* Writing output: atomic output files (outfile.h). */
#include "check.h"
#include "outfile.h"

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
    CHECK(cutune_outfile_refuse_input(missing, inputs, 3, &err) == 0);
    CHECK(err.msg[0] == '\0');
    CHECK(strcmp(slurp(in), "data\n") == 0);
    unlink(in);
    unlink(hard);
    unlink(soft);
    unlink(other);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/cutune-test-output-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    commit_replaces();
    abort_keeps_previous();
    full_disk_keeps_previous();
    device_written_in_place();
    bad_targets();
    link_followed();
    output_is_input();
    rmdir(dir);
    return check_result("output");
}
