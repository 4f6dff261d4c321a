/* A fresh folder under /tmp for a test's files, and its removal with everything in it. */
#ifndef CUTUNE_TESTS_TMPDIR_H
#define CUTUNE_TESTS_TMPDIR_H

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char tmpdir[64];

/* tmpdir/name in a static ring of buffers (a few live at once). */
static inline const char *in_tmp(const char *name)
{
    static char bufs[8][512];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", tmpdir, name);
    return b;
}

/* Writes printf(fmt, ...) into the file at path, in place of what it held: 0, or -1 with
 * the reason on stderr. */
__attribute__((format(printf, 2, 3))) static inline int write_text(const char *path,
                                                                   const char *fmt, ...)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(f, fmt, ap);
    va_end(ap);
    if (fclose(f) != 0 || n < 0) {
        perror(path);
        return -1;
    }
    return 0;
}

/* Makes /tmp/PREFIX-XXXXXX into dir; 0, or -1 with the reason on stderr. */
static inline int make_tmpdir(char *dir, size_t len, const char *prefix)
{
    snprintf(dir, len, "/tmp/%s-XXXXXX", prefix);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

static inline int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes dir and everything in it; 0, or -1 with the reason on stderr. */
static inline int rm_tree(const char *dir)
{
    if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0) {
        perror(dir);
        return -1;
    }
    return 0;
}

#endif
