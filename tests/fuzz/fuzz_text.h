/* The fuzzers' input as a C string, or as a file for a loader that takes a path. */
#ifndef CUTUNE_TESTS_FUZZ_TEXT_H
#define CUTUNE_TESTS_FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* data[0..size) copied and NUL-terminated, for free(); NULL out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return NULL;
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

/* data[0..size) as the whole of a memfd called name (made on the first call, rewritten on each
 * one), so that a loader reads the input through its ordinary path: returns that path
 * ("/proc/self/fd/N"). Aborts when the memfd cannot be made or written. */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create(name, 0);
        if (fd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    return path;
}

#endif
