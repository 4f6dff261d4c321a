/* On-disk kernel cache. */
#include "kernel_cache.h"
#include "util.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The entry's file: 0, or -1 when its path does not fit. */
static int entry_path(char *path, size_t len, const char *cache_dir, const char *key)
{
    return (size_t)snprintf(path, len, "%s/kernels/%s.cubin", cache_dir, key) < len ? 0 : -1;
}

int cutune_kernel_cache_get(const char *cache_dir, const char *key, void **data, size_t *size)
{
    char path[PATH_MAX];
    if (entry_path(path, sizeof path, cache_dir, key) != 0)
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    void *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        fclose(f);
        *data = buf;
        *size = (size_t)n;
        return 0;
    }
    free(buf);
    fclose(f);
    return -1;
}

int cutune_kernel_cache_has(const char *cache_dir, const char *key)
{
    char path[PATH_MAX];
    return entry_path(path, sizeof path, cache_dir, key) == 0 && access(path, R_OK) == 0;
}

int cutune_kernel_cache_put(const char *cache_dir, const char *key, const void *data, size_t size)
{
    char dir[PATH_MAX], tmp[PATH_MAX + 64], path[PATH_MAX + 64];
    if ((size_t)snprintf(dir, sizeof dir, "%s/kernels", cache_dir) >= sizeof dir)
        return -1;
    if (cutune_mkdir_p(dir, NULL) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/%s.cubin", dir, key);
    /* a name of its own per write: two threads of one process may store one key at once */
    static atomic_ulong seq;
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld.%lu.tmp", dir, key, (long)getpid(),
             (unsigned long)atomic_fetch_add(&seq, 1));
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}
