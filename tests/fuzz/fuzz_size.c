/* libFuzzer harness for the problem size parser (core/src/util/problem.c). Invariants: a parse
 * succeeds only with 1..CUTUNE_MAX_DIMS dimensions in 1..2^31-1, its canonical text parses
 * back to the same problem, and a failure carries a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    CutuneProblem p, q;
    CutuneError err = {0};
    int rc = cutune_problem_parse(text, &p, &err);
    if (rc != 0) {
        if (err.msg[0] == '\0' || err.code != rc) {
            fprintf(stderr, "failure without a message: rc %d\n", rc);
            abort();
        }
        free(text);
        return 0;
    }
    if (p.ndims < 1 || p.ndims > CUTUNE_MAX_DIMS)
        abort();
    for (int i = 0; i < p.ndims; i++)
        if (p.dim[i] < 1 || p.dim[i] > 2147483647LL)
            abort();
    char canon[128];
    cutune_problem_format(&p, canon, sizeof canon);
    CutuneError err2 = {0};
    if (cutune_problem_parse(canon, &q, &err2) != 0 || q.ndims != p.ndims ||
        memcmp(q.dim, p.dim, sizeof p.dim) != 0) {
        fprintf(stderr, "'%s' -> '%s' does not parse back the same\n", text, canon);
        abort();
    }
    free(text);
    return 0;
}
