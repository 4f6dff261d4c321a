/* The fuzzers' input as a C string. */
#ifndef CUTUNE_TESTS_FUZZ_TEXT_H
#define CUTUNE_TESTS_FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

#endif
