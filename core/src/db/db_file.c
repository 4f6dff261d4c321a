/* The database as a file, before and beside SQLite: is it a regular file, how is it damaged,
 * how to open it for reading in a folder that cannot be written, how recently it changed.
 * For db.c; nothing here holds a connection. */
#include "db.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

int cutune_db_file_check(const char *path, const struct stat *st, CutuneError *err)
{
    return cutune_check_regular(path, st, CUTUNE_ERR_DB, "a database file",
                                "pass --db with the path of a database file", err);
}

void cutune_db_file_damage(const char *path, char *buf, size_t len)
{
    unsigned char h[100];
    struct stat st;
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(h, 1, sizeof h, f) : 0;
    if (f)
        fclose(f);
    if (!f || stat(path, &st) != 0) {
        snprintf(buf, len, "it cannot be read");
        return;
    }
    if (got < 16 || memcmp(h, "SQLite format 3", 16) != 0) {
        snprintf(buf, len, "its first bytes are not a SQLite header (%lld bytes in all)",
                 (long long)st.st_size);
        return;
    }
    if (got < sizeof h) {
        snprintf(buf, len, "it is cut short inside its 100-byte header (%lld bytes)",
                 (long long)st.st_size);
        return;
    }
    uint32_t page = (uint32_t)h[16] << 8 | h[17];
    if (page == 1)
        page = 65536;
    uint32_t pages = (uint32_t)h[28] << 24 | (uint32_t)h[29] << 16 | (uint32_t)h[30] << 8 | h[31];
    /* the header's page count holds when its "version valid for" matches the change counter */
    int count_valid = memcmp(h + 24, h + 92, 4) == 0 && pages > 0;
    if (page < 512 || page > 65536 || (page & (page - 1)))
        snprintf(buf, len, "its header gives an impossible page size (%u)", page);
    else if (count_valid && (uint64_t)st.st_size < (uint64_t)page * pages)
        snprintf(buf, len,
                 "it is truncated: %lld bytes, where its header says %u pages of %u "
                 "bytes (%llu bytes)",
                 (long long)st.st_size, pages, page, (unsigned long long)page * pages);
    else if (st.st_size % page)
        snprintf(buf, len,
                 "its size (%lld bytes) is not a whole number of %u-byte pages: it "
                 "was cut short or appended to",
                 (long long)st.st_size, page);
    else
        snprintf(buf, len,
                 "its size is right but its pages are inconsistent (overwritten "
                 "or edited in place)");
}

/* "file:PATH?immutable=1", with the characters a URI gives meaning to escaped. */
static void immutable_uri(const char *path, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "file:");
    while (path[0] == '/' && path[1] == '/') /* "file://x" would name a host */
        path++;
    for (const char *p = path; *p && k + 4 < len; p++)
        k += *p == '%' || *p == '?' || *p == '#'
                 ? (size_t)snprintf(buf + k, len - k, "%%%02X", (unsigned char)*p)
                 : (size_t)snprintf(buf + k, len - k, "%c", *p);
    snprintf(buf + k, len - k, "?immutable=1");
}

int cutune_db_file_open_readonly(const char *path, struct sqlite3 **h)
{
    char side[4200], dir[4200];
    struct stat st;
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        slash[slash == dir] = '\0';
    snprintf(side, sizeof side, "%s-shm", path);
    int shm = stat(side, &st) == 0;
    snprintf(side, sizeof side, "%s-wal", path);
    int wal = stat(side, &st) == 0 && st.st_size > 0;
    if (access(dir, W_OK) == 0 || shm || wal)
        return sqlite3_open_v2(path, h, SQLITE_OPEN_READONLY, NULL);
    char uri[8600];
    immutable_uri(path, uri, sizeof uri);
    return sqlite3_open_v2(uri, h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
}

double cutune_db_file_age(const char *path)
{
    struct stat st;
    char wal[4200];
    snprintf(wal, sizeof wal, "%s-wal", path);
    time_t newest = 0;
    if (stat(path, &st) == 0)
        newest = st.st_mtime;
    if (stat(wal, &st) == 0 && st.st_mtime > newest)
        newest = st.st_mtime;
    return difftime(time(NULL), newest);
}

void cutune_db_file_remove(const char *path)
{
    char side[4200];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}
