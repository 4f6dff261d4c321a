/* libFuzzer harness for the tuning-space loader (core/src/space/spaceini.c and ini_lines.c, which reads it with inih), its
 * [variant] and [launch] keys (spacekeys.c) and, for spaces small enough, the enumeration
 * and the config text round trip (core/src/space/space.c). The input is the INI file; it lives
 * in a memfd so that the loader reads it through its ordinary path. Invariants: a failure
 * names the file and a line and carries a message; every enumerated config formats to text
 * that parses back to the same values; a [launch] value compiles over the space's symbols
 * or fails naming the file, and evaluates without undefined behaviour. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "space.h"

#define ENUMERATE_MAX 20000 /* points; larger spaces are only loaded */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("fuzz_space.ini", data, size);
    CutuneSpace *s = NULL;
    CutuneError err = {0};
    int rc = cutune_space_load(path, "M,N,K", &s, &err);
    if (rc != 0) {
        if (s != NULL || err.msg[0] == '\0' || strncmp(err.msg, path, strlen(path)) != 0) {
            fprintf(stderr, "bad load failure: rc %d message '%s'\n", rc, err.msg);
            abort();
        }
        return 0;
    }
    static const char *const launch[] = {"grid", "block", "shared"};
    for (size_t k = 0; k < 3; k++) {
        int line = 0;
        const char *text = cutune_space_key(s, "launch", launch[k], &line);
        CutuneExpr *e = NULL;
        CutuneError lerr = {0};
        if (!text)
            continue;
        if (cutune_space_compile(s, "[launch]", text, line, &e, &lerr) != 0) {
            if (strncmp(lerr.msg, path, strlen(path)) != 0)
                abort();
            continue;
        }
        size_t n = cutune_space_nsymbols(s);
        int64_t *vals = calloc(n, sizeof *vals), *params = calloc(s->nparams + 1, sizeof *params);
        const int64_t dims[3] = {1024, 512, 64};
        CutuneLimits lim;
        cutune_limits_sm90(&lim);
        for (size_t i = 0; params && i < s->nparams; i++)
            params[i] = s->params[i].nvalues ? s->params[i].values[0] : 0;
        if (vals && params) {
            int64_t r;
            CutuneExprError ee;
            cutune_space_symbol_values(s, params, s->ndims == 3 ? dims : NULL, &lim, vals);
            cutune_expr_eval(e, vals, &r, &ee);
        }
        free(vals);
        free(params);
        cutune_expr_free(e);
    }
    if (cutune_space_cardinality(s) <= ENUMERATE_MAX) {
        CutuneLimits lim;
        cutune_limits_sm90(&lim);
        const int64_t dims[3] = {1024, 512, 64};
        CutuneConfigList cl = {0};
        CutuneError eerr = {0};
        if (cutune_space_enumerate(s, &lim, dims, &cl, &eerr) == 0) {
            int64_t *back = calloc(s->nparams ? s->nparams : 1, sizeof *back);
            for (size_t i = 0; back && i < cl.nconfigs && i < 64; i++) {
                const int64_t *v = cl.values + i * cl.nparams;
                char text[1024];
                CutuneError perr = {0};
                if (cutune_config_format(s, v, text, sizeof text) == 0 &&
                    (cutune_config_parse(s, text, back, &perr) != 0 ||
                     memcmp(back, v, s->nparams * sizeof *v) != 0)) {
                    fprintf(stderr, "config '%s' does not parse back: %s\n", text, perr.msg);
                    abort();
                }
            }
            free(back);
            cutune_config_list_free(&cl);
        } else if (eerr.msg[0] == '\0') {
            abort();
        }
    }
    cutune_space_free(s);
    return 0;
}
