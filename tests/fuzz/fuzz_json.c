/* libFuzzer harness for the JSON reader (core/src/util/jsonread.c), which parses other
 * people's files, and for what reads Kernel Tuner caches with it (core/src/replay/ktcache.c).
 * The input is the file's text. Invariants: a parse that fails names the file, a line and a
 * column, and returns no tree; a tree that parses has lines that never go back past the
 * value's own, containers whose counts agree with their items, object members that
 * cutune_jv_get finds (the first of a repeated name); and the same text as a cache file (in
 * a memfd, through the loader's ordinary path) loads or fails naming the file, and when it
 * loads holds one entry per key, each key as Kernel Tuner writes it, and its optimum among
 * them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "jsonread.h"
#include "ktcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const CutuneJv *v, int line, int depth)
{
    if (v->line < line || depth > 66)
        abort();
    if (v->type == CUTUNE_JV_STRING && !v->string)
        abort();
    if (v->type == CUTUNE_JV_NUMBER && v->is_integer && (double)v->integer != v->number)
        abort();
    if (v->type != CUTUNE_JV_ARRAY && v->type != CUTUNE_JV_OBJECT)
        return;
    if (v->n && !v->items)
        abort();
    for (size_t i = 0; i < v->n; i++) {
        walk(&v->items[i], v->line, depth + 1);
        if (v->type != CUTUNE_JV_OBJECT)
            continue;
        const CutuneJv *first = cutune_jv_get(v, v->keys[i]);
        if (!first || first > &v->items[i] || strcmp(v->keys[first - v->items], v->keys[i]) != 0)
            abort();
    }
}

static void cache(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("fuzz_json.json", data, size);
    CutuneKtCache c;
    CutuneError err = {0};
    if (cutune_kt_load(path, &c, &err) != 0) {
        if (err.msg[0] == '\0' || strncmp(err.msg, path, strlen(path)) != 0) {
            fprintf(stderr, "bad load failure: '%s'\n", err.msg);
            abort();
        }
        return;
    }
    if (c.n == 0 || c.nparams == 0 || (c.nok && (c.best >= c.n || !(c.best_ms > 0))))
        abort();
    for (size_t i = 0; i < c.n; i++) {
        const CutuneKtEntry *e = &c.e[i];
        if (e->status == CUTUNE_STATUS_OK && (!(e->time_ms > 0) || e->time_ms < c.best_ms))
            abort();
        for (size_t k = i + 1; k < c.n && k < i + 64; k++) /* one entry per key */
            if (strcmp(e->key, c.e[k].key) == 0)
                abort();
    }
    cutune_kt_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    CutuneJv *root = NULL;
    CutuneError err = {0};
    int rc = cutune_jv_parse((const char *)data, size, "fuzz.json", &root, &err);
    if (rc != 0) {
        if (root || strncmp(err.msg, "fuzz.json:", 10) != 0) {
            fprintf(stderr, "bad parse failure: rc %d message '%s'\n", rc, err.msg);
            abort();
        }
    } else {
        if (!root)
            abort();
        walk(root, 1, 0);
        cutune_jv_free(root);
    }
    cache(data, size);
    return 0;
}
