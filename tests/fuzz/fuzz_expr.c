/* libFuzzer harness for the constraint expression parser and evaluator (core/src/space/expr.c).
 * The input is the expression text. It is compiled against a fixed set of names and, when
 * it parses, evaluated over a few value vectors chosen to reach the overflow and
 * division-by-zero paths. Invariants checked: a failed parse says where (column within
 * the text) and why; a failed evaluation is a range error with a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "fuzz_text.h"
#include "cutune/cutune.h"

static const char *const names[] = {"TILE", "PAD", "M", "N", "K", "MAX_THREADS_PER_BLOCK"};
#define NNAMES (sizeof names / sizeof names[0])

static const int64_t vectors[][NNAMES] = {
    {16, 1, 1024, 1024, 1024, 1024},
    {0, 0, 0, 0, 0, 0},
    {-1, -1, -1, -1, -1, -1},
    {INT64_MAX, INT64_MIN, 2, -2, 1, 0},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    size_t len = strlen(text); /* an embedded NUL ends the text, as in a C string */
    CutuneSymbols syms = {names, NNAMES};
    CutuneExpr *e = NULL;
    CutuneExprError perr;
    memset(&perr, 0, sizeof perr);
    int rc = cutune_expr_compile(text, &syms, &e, &perr);
    if (rc != 0) {
        if (rc != CUTUNE_ERR_PARSE || e != NULL || perr.message[0] == '\0' || perr.column < 1 ||
            (size_t)perr.column > len + 1) {
            fprintf(stderr, "bad parse failure: rc %d column %d message '%s'\n", rc, perr.column,
                    perr.message);
            abort();
        }
        free(text);
        return 0;
    }
    for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++) {
        int64_t result = 0;
        CutuneExprError eerr;
        memset(&eerr, 0, sizeof eerr);
        int r = cutune_expr_eval(e, vectors[v], &result, &eerr);
        if (r != 0 && (r != CUTUNE_ERR_RANGE || eerr.message[0] == '\0')) {
            fprintf(stderr, "bad evaluation failure: rc %d message '%s'\n", r, eerr.message);
            abort();
        }
    }
    for (size_t i = 0; i < NNAMES; i++)
        (void)cutune_expr_uses(e, i);
    cutune_expr_free(e);
    free(text);
    return 0;
}
