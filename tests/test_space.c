/* Tuning spaces: loading (good and bad files), enumeration, config text. The fixtures
 * are in tests/data/spaces/ ($CUTUNE_TEST_DATA points at tests/data). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config_text.h"
#include "cutune/cutune.h"
#include "space.h"
#include "space_limits.h"

#include <unistd.h>

static char data_dir[1024];

static const char *fixture(const char *name)
{
    static char path[1200];
    snprintf(path, sizeof path, "%s/spaces/%s", data_dir, name);
    return path;
}

static CutuneSpace *load(const char *name, const char *dims)
{
    CutuneSpace *s = NULL;
    CutuneError err = {0};
    int rc = cutune_space_load(fixture(name), dims, &s, &err);
    CHECK_MSG(rc == 0 && s, "%s: %d %s", name, rc, err.msg);
    return rc == 0 ? s : NULL;
}

static int values_are(const CutuneParam *p, const int64_t *want, size_t n)
{
    if (p->nvalues != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (p->values[i] != want[i])
            return 0;
    return 1;
}

static int row_is(const CutuneConfigList *l, size_t row, int64_t a, int64_t b, int64_t c)
{
    if (row >= l->nconfigs || l->nparams != 3)
        return 0;
    const int64_t *r = l->values + row * 3;
    return r[0] == a && r[1] == b && r[2] == c;
}

/* ENUMERATES(s, lim, dims, l, NCONFIGS, R0, R1, ...): cutune_space_enumerate(s, lim, dims)
 * into *l succeeds, with no message, and yields NCONFIGS configs, R0 of the points first
 * rejected by constraint 0, R1 by constraint 1 and so on for each count given. The caller
 * frees *l. */
#define ENUMERATES(s, lim, dims, l, ...) \
    enumerates(__LINE__, s, lim, dims, l, (const long long[]){__VA_ARGS__, -1})

static void enumerates(int line, const CutuneSpace *s, const CutuneLimits *lim, const int64_t *dims,
                       CutuneConfigList *l, const long long *counts)
{
    CutuneError err = {0};
    int rc = cutune_space_enumerate(s, lim, dims, l, &err);
    CHECK_MSG(rc == 0 && err.msg[0] == '\0', "line %d: %d %s", line, rc, err.msg);
    if (rc != 0)
        return;
    CHECK_MSG(l->nconfigs == (size_t)counts[0], "line %d: %zu configs, not %lld", line, l->nconfigs,
              counts[0]);
    for (size_t i = 0; counts[i + 1] >= 0; i++)
        CHECK_MSG(i < s->nconstraints && l->rejected_by[i] == (size_t)counts[i + 1],
                  "line %d: constraint %zu rejected %zu, not %lld", line, i,
                  i < s->nconstraints ? l->rejected_by[i] : 0, counts[i + 1]);
}

/* good.ini: TILE = 8,16,32,64 (values), UNROLL = 1..7 step 2, PAD = pow2 3..20 */
static void test_good_space(void)
{
    CutuneSpace *s = load("good.ini", "M, N ,K");
    if (!s)
        return;
    CHECK(strcmp(s->variant, "test_good") == 0);
    CHECK_STR_CONTAINS(s->path, "good.ini");
    CHECK_EQ_INT(s->nparams, 3);
    CHECK(strcmp(s->params[0].name, "TILE") == 0);
    CHECK(strcmp(s->params[1].name, "UNROLL") == 0);
    CHECK(strcmp(s->params[2].name, "PAD") == 0);
    CHECK_EQ_INT(s->params[0].line, 11);
    CHECK_EQ_INT(s->params[2].line, 18);
    static const int64_t tile[] = {8, 16, 32, 64}, unroll[] = {1, 3, 5, 7}, pad[] = {4, 8, 16};
    CHECK(values_are(&s->params[0], tile, 4));
    CHECK(values_are(&s->params[1], unroll, 4));
    CHECK(values_are(&s->params[2], pad, 3));
    CHECK_EQ_INT(s->ndims, 3);
    CHECK(s->ndims == 3 && strcmp(s->dim_names[1], "N") == 0);
    CHECK_EQ_INT(s->nconstraints, 3);
    CHECK(strcmp(s->constraints[0].name, "threads_fit") == 0);
    CHECK(strcmp(s->constraints[2].name, "fits_problem") == 0);
    CHECK_EQ_INT(s->constraints[0].line, 7);
    CHECK_EQ_INT(s->constraints[2].line, 9);
    CHECK(strcmp(s->constraints[2].text, "TILE <= M") == 0); /* inline comment cut */
    CHECK_EQ_INT(s->constraints[0].uses_problem, 0);
    CHECK_EQ_INT(s->constraints[1].uses_problem, 0);
    CHECK_EQ_INT(s->constraints[2].uses_problem, 1);
    CHECK_EQ_INT(s->nproblems, 3);
    if (s->nproblems == 3) {
        CHECK(strcmp(s->problems[0], "1024x1024x1024") == 0);
        CHECK(strcmp(s->problems[1], "2048x2048x2048") == 0);
        CHECK(strcmp(s->problems[2], "4096x4096x4096") == 0);
    }
    /* 4 * 4 * 3 */
    CHECK_EQ_INT(cutune_space_cardinality(s), 48);

    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    CutuneConfigList l;
    CutuneError err = {0};

    /* No problem (dims NULL): fits_problem is skipped. 48 points.
     *  threads_fit first rejects TILE=64 (64*64 = 4096 > 1024): 1 TILE * 4 UNROLL * 3 PAD = 12.
     *  unroll_divides then sees TILE in {8,16,32}; of UNROLL {1,3,5,7} only 1 divides a power
     *  of two, so it rejects 3 TILE * 3 UNROLL * 3 PAD = 27.
     *  Left: 3 TILE * 1 UNROLL * 3 PAD = 9 (48 - 12 - 27 = 9). */
    ENUMERATES(s, &lim, NULL, &l, 9, 12, 27, 0);
    CHECK_EQ_INT(l.nparams, 3);
    /* odometer order, the last parameter fastest */
    CHECK(row_is(&l, 0, 8, 1, 4));
    CHECK(row_is(&l, 1, 8, 1, 8));
    CHECK(row_is(&l, 2, 8, 1, 16));
    CHECK(row_is(&l, 3, 16, 1, 4));
    CHECK(row_is(&l, 8, 32, 1, 16));
    cutune_config_list_free(&l);
    CHECK(l.values == NULL && l.nconfigs == 0);

    /* With a problem M=16: fits_problem now rejects TILE=32 among the 9 above:
     * 1 TILE * 1 UNROLL * 3 PAD = 3, leaving TILE in {8,16}: 2 * 1 * 3 = 6. */
    const int64_t dims[3] = {16, 4096, 4096};
    ENUMERATES(s, &lim, dims, &l, 6, 12, 27, 3);
    CHECK(row_is(&l, 5, 16, 1, 16));
    cutune_config_list_free(&l);

    /* --where: the 9 configs (TILE {8,16,32} x UNROLL 1 x PAD {4,8,16}) cut to partial
     * assignments; several match any; unknown names and bad values are errors */
    static const char *const w1[] = {"PAD=8"}, *const w2[] = {"TILE=16,PAD=4", "TILE=32,PAD=16"},
                             *const w3[] = {"TILE=64"}, *const w4[] = {"TILE=8", "FOO=1"},
                             *const w5[] = {"PAD=x"};
    ENUMERATES(s, &lim, NULL, &l, 9);
    CHECK_EQ_INT(cutune_config_list_where(s, &l, w1, 0, &err), 0);
    CHECK_EQ_INT(l.nconfigs, 9);
    CHECK_EQ_INT(cutune_config_list_where(s, &l, w1, 1, &err), 0);
    CHECK_EQ_INT(l.nconfigs, 3);
    CHECK(row_is(&l, 0, 8, 1, 8) && row_is(&l, 1, 16, 1, 8) && row_is(&l, 2, 32, 1, 8));
    cutune_config_list_free(&l);
    ENUMERATES(s, &lim, NULL, &l, 9);
    CHECK_EQ_INT(cutune_config_list_where(s, &l, w2, 2, &err), 0);
    CHECK_EQ_INT(l.nconfigs, 2);
    CHECK(row_is(&l, 0, 16, 1, 4) && row_is(&l, 1, 32, 1, 16));
    CHECK_EQ_INT(cutune_config_list_where(s, &l, w3, 1, &err), 0); /* not a valid config */
    CHECK_EQ_INT(l.nconfigs, 0);
    cutune_config_list_free(&l);
    ENUMERATES(s, &lim, NULL, &l, 9);
    CHECK_EQ_INT(cutune_config_list_where(s, &l, w4, 2, &err), CUTUNE_ERR_PARSE);
    CHECK_STR_CONTAINS(err.msg, "unknown parameter 'FOO'");
    cutune_error_clear(&err);
    CHECK_EQ_INT(cutune_config_list_where(s, &l, w5, 1, &err), CUTUNE_ERR_PARSE);
    CHECK_STR_CONTAINS(err.msg, "'x' of PAD is not an integer");
    CHECK_EQ_INT(l.nconfigs, 9); /* untouched on error */
    cutune_config_list_free(&l);
    cutune_error_clear(&err);

    /* A smaller device: MAX_THREADS_PER_BLOCK = 256 keeps TILE in {8,16} (16*16 = 256).
     * threads_fit rejects TILE 32 and 64: 2 * 4 * 3 = 24; unroll_divides rejects
     * 2 TILE * 3 UNROLL * 3 PAD = 18; left 2 * 1 * 3 = 6 (48 - 24 - 18). */
    lim.max_threads_per_block = 256;
    ENUMERATES(s, &lim, NULL, &l, 6, 24, 18);
    cutune_config_list_free(&l);

    /* config text */
    char buf[128];
    int64_t v[3] = {16, 1, 8}, back[3] = {0, 0, 0};
    CHECK_EQ_INT(cutune_config_format(s, v, buf, sizeof buf), 0);
    CHECK(strcmp(buf, "TILE=16,UNROLL=1,PAD=8") == 0);
    CHECK_EQ_INT(cutune_config_parse(s, buf, back, &err), 0);
    CHECK(back[0] == 16 && back[1] == 1 && back[2] == 8);
    int64_t neg[3] = {-5, INT64_MIN, INT64_MAX};
    CHECK_EQ_INT(cutune_config_format(s, neg, buf, sizeof buf), 0);
    CHECK_EQ_INT(cutune_config_parse(s, buf, back, &err), 0);
    CHECK(back[0] == -5 && back[1] == INT64_MIN && back[2] == INT64_MAX);
    /* order-independent, white space tolerated */
    CHECK_EQ_INT(cutune_config_parse(s, " PAD = 4 , TILE=32,UNROLL= 7 ", back, &err), 0);
    CHECK(back[0] == 32 && back[1] == 7 && back[2] == 4);
    CHECK_MSG(err.msg[0] == '\0', "%s", err.msg);
    /* buffer exactly large enough, and one byte short */
    CHECK_EQ_INT(cutune_config_format(s, v, buf, strlen("TILE=16,UNROLL=1,PAD=8") + 1), 0);
    CHECK_EQ_INT(cutune_config_format(s, v, buf, strlen("TILE=16,UNROLL=1,PAD=8")),
                 CUTUNE_ERR_RANGE);
    CHECK_EQ_INT(cutune_config_format(s, v, buf, 3), CUTUNE_ERR_RANGE);

    static const struct {
        const char *text, *phrase;
    } bad[] = {
        {"TILE=16,UNROLL=1", "parameter 'PAD' is missing"},
        {"TILE=16,UNROLL=1,PAD=8,TILE=32", "'TILE' is set twice"},
        {"TILE=abc,UNROLL=1,PAD=8", "'abc' of TILE is not an integer"},
        {"TILE=0x10,UNROLL=1,PAD=8", "'0x10' of TILE is not an integer"},
        {"TILE=99999999999999999999,UNROLL=1,PAD=8", "out of the int64 range"},
        {"TILE=16,UNROLL=1,PAD=8,FOO=1", "unknown parameter 'FOO'"},
        {"TILE16,UNROLL=1,PAD=8", "'TILE16' is not NAME=value"},
        {"TILE=16,,UNROLL=1,PAD=8", "empty item"},
        {"TILE=16,UNROLL=1,PAD=8,", "empty item"},
        {"TILE=,UNROLL=1,PAD=8", "value '' of TILE"},
        {"", "parameter 'TILE' is missing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cutune_error_clear(&err);
        int64_t out[3] = {111, 222, 333};
        CHECK_EQ_INT(cutune_config_parse(s, bad[i].text, out, &err), CUTUNE_ERR_PARSE);
        CHECK_STR_CONTAINS(err.msg, bad[i].phrase);
        CHECK_MSG(out[0] == 111 && out[1] == 222 && out[2] == 333, "'%s': values changed on error",
                  bad[i].text);
    }
    cutune_space_free(s);
}

/* Continuation lines: values, a constraint and problems spread over several lines. */
static void test_continued(void)
{
    CutuneSpace *s = load("continued.ini", NULL);
    if (!s)
        return;
    static const int64_t block[] = {32, 64, 128, 256};
    CHECK_EQ_INT(s->nparams, 1);
    CHECK(s->nparams == 1 && values_are(&s->params[0], block, 4));
    CHECK_EQ_INT(s->nconstraints, 1);
    CHECK_EQ_INT(s->ndims, 0);
    CHECK_EQ_INT(s->nproblems, 3);
    if (s->nproblems == 3)
        CHECK(strcmp(s->problems[1], "2x2") == 0 && strcmp(s->problems[2], "3x3") == 0);
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    CutuneConfigList l;
    /* 64 <= BLOCK <= 128: 64 and 128 pass, 32 and 256 are rejected */
    ENUMERATES(s, &lim, NULL, &l, 2, 2);
    CHECK(l.nconfigs == 2 && l.values[0] == 64 && l.values[1] == 128);
    cutune_config_list_free(&l);
    cutune_space_free(s);
}

/* pow2 and range bounds are inclusive; pow2 bounds need not be powers of two. */
static void test_bounds(void)
{
    CutuneSpace *s = load("pow2.ini", NULL);
    if (!s)
        return;
    static const int64_t a[] = {1, 2, 4, 8, 16, 32, 64, 128, 256}, b[] = {8, 16, 32, 64}, c[] = {1},
                         d[] = {-3, -2, -1, 0, 1, 2, 3}, e[] = {0, 5, 10};
    CHECK_EQ_INT(s->nparams, 5);
    if (s->nparams == 5) {
        CHECK(values_are(&s->params[0], a, 9));
        CHECK(values_are(&s->params[1], b, 4));
        CHECK(values_are(&s->params[2], c, 1));
        CHECK(values_are(&s->params[3], d, 7));
        CHECK(values_are(&s->params[4], e, 3));
    }
    /* 9 * 4 * 1 * 7 * 3 */
    CHECK_EQ_INT(cutune_space_cardinality(s), 756);
    cutune_space_free(s);
}

/* No parameters: exactly one (empty) config, unless a constraint on the device rejects it. */
static void test_zero_params(void)
{
    CutuneSpace *s = load("zero.ini", "");
    if (!s)
        return;
    CHECK_EQ_INT(s->nparams, 0);
    CHECK_EQ_INT(s->nproblems, 0);
    CHECK_EQ_INT(cutune_space_cardinality(s), 1);
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    CutuneConfigList l;
    CutuneError err = {0};
    ENUMERATES(s, &lim, NULL, &l, 1, 0);
    cutune_config_list_free(&l);
    /* an sm_80 device fails needs_hopper = CC >= 90 */
    lim.cc = 80;
    ENUMERATES(s, &lim, NULL, &l, 0, 1);
    cutune_config_list_free(&l);

    char buf[8] = "junk";
    CHECK_EQ_INT(cutune_config_format(s, NULL, buf, sizeof buf), 0);
    CHECK(buf[0] == '\0');
    CHECK_EQ_INT(cutune_config_parse(s, "", NULL, &err), 0);
    CHECK_EQ_INT(cutune_config_parse(s, "  ", NULL, &err), 0);
    CHECK_EQ_INT(cutune_config_parse(s, "X=1", NULL, &err), CUTUNE_ERR_PARSE);
    CHECK_STR_CONTAINS(err.msg, "unknown parameter 'X'");
    cutune_space_free(s);
}

static void test_eval_error(void)
{
    CutuneSpace *s = load("evalerr.ini", NULL);
    if (!s)
        return;
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    CutuneConfigList l;
    CutuneError err = {0};
    CHECK_EQ_INT(cutune_space_enumerate(s, &lim, NULL, &l, &err), CUTUNE_ERR_RANGE);
    CHECK_EQ_INT(err.code, CUTUNE_ERR_RANGE);
    CHECK_STR_CONTAINS(err.msg, "evalerr.ini:10: constraint 'bad' failed to evaluate for "
                                "TILE=8,PAD=0: division by zero");
    CHECK_STR_CONTAINS(err.msg, "column 6");
    CHECK(l.values == NULL && l.rejected_by == NULL && l.nconfigs == 0);
    cutune_config_list_free(&l);
    cutune_space_free(s);
}

static void test_limits(void)
{
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    CHECK_EQ_INT(lim.max_threads_per_block, 1024);
    CHECK_EQ_INT(lim.max_shared_per_block, 232448);
    CHECK_EQ_INT(lim.max_shared_per_sm, 233472);
    CHECK_EQ_INT(lim.max_regs_per_block, 65536);
    CHECK_EQ_INT(lim.warp_size, 32);
    CHECK_EQ_INT(lim.sm_count, 132);
    CHECK_EQ_INT(lim.cc, 90);

    CutuneDeviceInfo d;
    memset(&d, 0, sizeof d);
    d.cc_major = 8;
    d.cc_minor = 6;
    d.sm_count = 84;
    d.max_threads_per_block = 1024;
    d.max_shared_per_block = 101376;
    d.max_shared_per_sm = 102400;
    d.max_regs_per_block = 65536;
    d.warp_size = 32;
    cutune_limits_from_device(&d, &lim);
    CHECK_EQ_INT(lim.cc, 86);
    CHECK_EQ_INT(lim.sm_count, 84);
    CHECK_EQ_INT(lim.max_shared_per_block, 101376);
    CHECK_EQ_INT(lim.max_shared_per_sm, 102400);
    CHECK_EQ_INT(lim.max_threads_per_block, 1024);
    CHECK_EQ_INT(lim.max_regs_per_block, 65536);
    CHECK_EQ_INT(lim.warp_size, 32);
}

/* Each bad file gives "<file>:<line>: " and a phrase saying what is wrong. */
static void test_bad_files(void)
{
    static const struct {
        const char *file;
        const char *dims;
        int code;
        int line;
        const char *phrase;
    } cases[] = {
        {"bad_value.ini", NULL, CUTUNE_ERR_PARSE, 7,
         "parameter 'TILE': value 'abc' is not an integer; write integers"},
        {"bad_section.ini", NULL, CUTUNE_ERR_PARSE, 3, "unknown section [paramz]"},
        {"bad_key.ini", NULL, CUTUNE_ERR_PARSE, 5, "unknown key 'vals'"},
        {"bad_dup_param.ini", NULL, CUTUNE_ERR_PARSE, 7, "duplicate parameter 'TILE'"},
        {"bad_dup_constraint.ini", NULL, CUTUNE_ERR_PARSE, 8, "duplicate constraint label 'fit'"},
        {"bad_novalues.ini", NULL, CUTUNE_ERR_PARSE, 4, "parameter 'TILE' has no values"},
        {"bad_two_kinds.ini", NULL, CUTUNE_ERR_PARSE, 5, "has both 'values' (line 4) and 'range'"},
        {"bad_empty.ini", NULL, CUTUNE_ERR_PARSE, 4, "empty list"},
        {"bad_int64.ini", NULL, CUTUNE_ERR_PARSE, 4,
         "'99999999999999999999' is out of the int64 range"},
        {"bad_dupvalue.ini", NULL, CUTUNE_ERR_PARSE, 5, "value 8 appears twice (first on line 4)"},
        {"bad_range.ini", NULL, CUTUNE_ERR_PARSE, 4, "lo > hi"},
        {"bad_step.ini", NULL, CUTUNE_ERR_PARSE, 5, "step '0' is not positive"},
        {"bad_step_alone.ini", NULL, CUTUNE_ERR_PARSE, 5, "'step' only applies to 'range'"},
        {"bad_pow2.ini", NULL, CUTUNE_ERR_PARSE, 4, "no power of two"},
        {"bad_param_name.ini", NULL, CUTUNE_ERR_PARSE, 3, "'2TILE' is not an identifier"},
        {"bad_param_dim.ini", "M,N,K", CUTUNE_ERR_PARSE, 5,
         "'M' has the name of a problem dimension"},
        {"bad_param_limit.ini", NULL, CUTUNE_ERR_PARSE, 3,
         "'WARP_SIZE' has the name of a device limit"},
        {"bad_constraint_syntax.ini", NULL, CUTUNE_ERR_PARSE, 5,
         "constraint 'broken': expected a number, a name or '(', found '*' at column 8 near '*'; "},
        {"bad_constraint_name.ini", NULL, CUTUNE_ERR_PARSE, 6,
         "constraint 'typo': unknown name 'TILEX' (did you mean 'TILE'? known: TILE, M"},
        {"bad_constraint_name.ini", NULL, CUTUNE_ERR_PARSE, 6, ") at column 1 near 'TILEX'; "},
        {"bad_noname.ini", NULL, CUTUNE_ERR_PARSE, 1, "no [variant] name"},
        {"bad_variant_name.ini", NULL, CUTUNE_ERR_PARSE, 2,
         "variant name 'matmul tiled' is not a name"},
        {"bad_syntax.ini", NULL, CUTUNE_ERR_PARSE, 5, "syntax error"},
        {"bad_indent_key.ini", NULL, CUTUNE_ERR_PARSE, 5, "looks like a new key"},
        {"bad_before_section.ini", NULL, CUTUNE_ERR_PARSE, 2,
         "key 'name' comes before any section"},
        {"bad_longline.ini", NULL, CUTUNE_ERR_PARSE, 4, "line is longer than"},
        {"big.ini", NULL, CUTUNE_ERR_PARSE, 3,
         "more than 10000000 points (A: 10000 x B: 5000 x C: 1)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CutuneSpace *s = (CutuneSpace *)&s;
        CutuneError err = {0};
        int rc = cutune_space_load(fixture(cases[i].file), cases[i].dims, &s, &err);
        CHECK_MSG(rc == cases[i].code, "%s: rc %d, expected %d (%s)", cases[i].file, rc,
                  cases[i].code, err.msg);
        CHECK_MSG(s == NULL, "%s: *out not NULL after an error", cases[i].file);
        if (rc == 0)
            cutune_space_free(s);
        CHECK_EQ_INT(err.code, cases[i].code);
        char where[128];
        snprintf(where, sizeof where, "/%s:%d: ", cases[i].file, cases[i].line);
        CHECK_STR_CONTAINS(err.msg, where);
        CHECK_STR_CONTAINS(err.msg, cases[i].phrase);
        /* every message says how to fix it after a ';' */
        CHECK_STR_CONTAINS(err.msg, "; ");
    }

    /* a missing file */
    CutuneSpace *s = NULL;
    CutuneError err = {0};
    CHECK_EQ_INT(cutune_space_load(fixture("no_such_space.ini"), NULL, &s, &err), CUTUNE_ERR_IO);
    CHECK_STR_CONTAINS(err.msg, "no_such_space.ini");
    CHECK_STR_CONTAINS(err.msg, "No such file or directory");
    CHECK(s == NULL);

    /* bad dimension names from a plugin */
    const char *bad_dims[] = {"M,,K", "M,N,M", "M,2N", "M,CC"};
    for (size_t i = 0; i < sizeof bad_dims / sizeof bad_dims[0]; i++) {
        cutune_error_clear(&err);
        CHECK_EQ_INT(cutune_space_load(fixture("good.ini"), bad_dims[i], &s, &err),
                     CUTUNE_ERR_INVALID);
        CHECK_STR_CONTAINS(err.msg, bad_dims[i]);
        CHECK(s == NULL);
    }

    /* a constraint using a dimension that the plugin does not declare */
    cutune_error_clear(&err);
    CHECK_EQ_INT(cutune_space_load(fixture("good.ini"), "N,K", &s, &err), CUTUNE_ERR_PARSE);
    CHECK_STR_CONTAINS(err.msg, "good.ini:9: constraint 'fits_problem': unknown name 'M'");
    CHECK(s == NULL);
}

/* Write a generated space to a temporary file; returns its path (static). */
static const char *generated(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/cutune-test-space-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return "/nonexistent";
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* "[variant]\nname = t\n" then nparams sections; the first `two` with 2 values, the rest
 * with 1. Sections start at line 3 + 2 * i. */
static char *params_space(int nparams, int two)
{
    size_t cap = 64 + (size_t)nparams * 48;
    char *t = malloc(cap);
    size_t k = (size_t)snprintf(t, cap, "[variant]\nname = t\n");
    for (int i = 0; i < nparams; i++)
        k += (size_t)snprintf(t + k, cap - k, "[param.P%d]\nvalues = %s\n", i,
                              i < two ? "1, 2" : "1");
    return t;
}

static void expect_refused(const char *text, const char *where, const char *phrase)
{
    const char *path = generated(text);
    CutuneSpace *s = NULL;
    CutuneError err = {0};
    int rc = cutune_space_load(path, NULL, &s, &err);
    CHECK_MSG(rc == CUTUNE_ERR_PARSE && !s, "rc %d", rc);
    char want[128];
    snprintf(want, sizeof want, "%s:%s", path, where);
    CHECK_STR_CONTAINS(err.msg, want);
    CHECK_STR_CONTAINS(err.msg, phrase);
    cutune_space_free(s);
    unlink(path);
}

/* The limits of space_limits.h hold at load, each with the file, the line and a fix. */
static void test_space_limits(void)
{
    char *t = params_space(CUTUNE_MAX_PARAMS, 3);
    const char *path = generated(t);
    CutuneSpace *s = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_space_load(path, NULL, &s, &err) == 0, "%s", err.msg);
    CHECK(s && s->nparams == CUTUNE_MAX_PARAMS);
    cutune_space_free(s);
    unlink(path);
    free(t);

    /* one parameter too many: at its section's line */
    t = params_space(CUTUNE_MAX_PARAMS + 1, 3);
    char where[16];
    snprintf(where, sizeof where, "%d:", 3 + 2 * CUTUNE_MAX_PARAMS);
    expect_refused(t, where, "one more than the 48 a space may have");
    free(t);
    t = params_space(72, 3); /* the space that used to load and fail every config */
    expect_refused(t, where, "split the variant");
    free(t);

    /* 2^20 points x 40 parameters: the single-valued ones count for memory */
    t = params_space(40, 20);
    expect_refused(t, "43:", "can be a #define in the kernel");
    free(t);
    t = params_space(30, 20); /* 2^20 x 30 is within */
    path = generated(t);
    s = NULL;
    CHECK_MSG(cutune_space_load(path, NULL, &s, &err) == 0, "%s", err.msg);
    cutune_space_free(s);
    unlink(path);
    free(t);

    /* more values than a level index holds */
    expect_refused("[variant]\nname = t\n[param.A]\nrange = 1..70000\n",
                   "4:", "more than the 65535 a parameter may have");
    expect_refused("[variant]\nname = t\n[param.A]\nrange = 0..65535\n", "4:", "65536 values");
    t = params_space(0, 0);
    size_t cap = 800000;
    char *big = malloc(cap);
    size_t k = (size_t)snprintf(big, cap, "%s[param.A]\nvalues = 0", t);
    for (int i = 1; i <= CUTUNE_MAX_VALUES; i++) /* continuation lines keep lines short */
        k += (size_t)snprintf(big + k, cap - k, i % 16 ? ",%d" : ",\n  %d", i);
    snprintf(big + k, cap - k, "\n");
    expect_refused(big, "4:", "lists 65536 values");
    free(big);
    free(t);
}

/* The line syntax that ini_lines.c reads: comments, continuations, BOM, CRLF, the limits. */
static void test_lines(void)
{
    /* a BOM, CRLF endings, comments of both kinds (indented too), a ';' inside a value,
     * an inline comment on a continuation line, a key after an indented key-less line */
    const char *good = "\xEF\xBB\xBF[variant]  ; the header may carry a comment\r\n"
                       "name = lines\r\n"
                       "description = a;b ; c\r\n"
                       "  # an indented comment\n"
                       "[param.A]\n"
                       "values = 1, 2, ; the list goes on\n"
                       "    3, 4 ; and ends\n"
                       "\t\n"
                       "[constraints]\n"
                       "small = A <=\n"
                       "    3 ; not part of it\n";
    const char *path = generated(good);
    CutuneSpace *s = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_space_load(path, NULL, &s, &err) == 0, "%s", err.msg);
    if (s) {
        static const int64_t a[] = {1, 2, 3, 4};
        CHECK(s->nparams == 1 && values_are(&s->params[0], a, 4));
        CHECK(s->variant && strcmp(s->variant, "lines") == 0);
        CHECK(s->nconstraints == 1 && strcmp(s->constraints[0].text, "A <= 3") == 0);
        CHECK_EQ_INT(s->params[0].line, 5);
    }
    cutune_space_free(s);
    unlink(path);

    /* names longer than inih keeps (49 bytes of a section or a key) come through whole,
     * and a long constraint label's continuation joins that constraint */
    const char *longest = "P23456789012345678901234567890123456789012345678901234567890123";
    const char *label = "label_56789012345678901234567890123456789012345678901234567890";
    char text[512];
    snprintf(text, sizeof text,
             "[variant]\nname = long\n[param.%s]\nvalues = 1, 2\n[constraints]\n"
             "%s = %s >=\n  2\n",
             longest, label, longest);
    path = generated(text);
    s = NULL;
    CHECK_MSG(cutune_space_load(path, NULL, &s, &err) == 0, "%s", err.msg);
    if (s) {
        CHECK(s->nparams == 1 && strcmp(s->params[0].name, longest) == 0);
        CHECK(s->nconstraints == 1 && strcmp(s->constraints[0].name, label) == 0);
        CHECK(s->nconstraints == 1 && strstr(s->constraints[0].text, ">= 2") != NULL);
    }
    cutune_space_free(s);
    unlink(path);

    /* a line of exactly CUTUNE_MAX_LINE characters is read, one more is refused */
    char *t = malloc(CUTUNE_MAX_LINE + 64);
    int k = snprintf(t, CUTUNE_MAX_LINE + 64, "[variant]\nname = t\ndescription = ");
    int start = k - (int)strlen("description = ");
    while (k - start < CUTUNE_MAX_LINE)
        t[k++] = 'x';
    snprintf(t + k, 2, "\n");
    path = generated(t);
    s = NULL;
    CHECK_MSG(cutune_space_load(path, NULL, &s, &err) == 0, "%s", err.msg);
    cutune_space_free(s);
    unlink(path);
    snprintf(t + k, 3, "x\n");
    expect_refused(t, "3:", "line is longer than 1024 characters");
    free(t);

    static const struct {
        const char *text, *where, *phrase;
    } bad[] = {
        {"[variant\nname = t\n", "1:", "has no ']'"},
        {"[variant] name = t\n", "1:", "unexpected text after the section header"},
        {"[variant]\n  [param.A]\n", "2:", "indented section header"},
        {"[variant]\nname ; = t\n", "2:", "syntax error"},
        {"[variant]\nname: t\n", "2:", "missing '='"},
        {"[variant]\nna:me = t\n", "2:", "syntax error"}, /* inih would split at ':' */
        {"[variant]\nname = t\n[variant]\n",
         "3:", "section [variant] appears twice (first at line 1)"},
        {"[variant]\nname = t\n[param]\n", "3:", "has no parameter name"},
        {"[variant]\nname = t\n[param.A]\nvalues = 1\n  step = 2\n", "5:", "looks like a new key"},
        {"[variant]\nname = t\n[param.A]\nrange = 1..4\n  , 5\n", "5:", "cannot continue"},
        {"[variant]\nname = t\n[param.A]\nvalues = 1,,2\n", "4:", "empty item"},
        {"[variant]\nname = t\n[param.A]\nvalues = 1\nrange = 1..2\n", "5:", "has both"},
        {"[variant]\nname = t\n[param.A]\nrange = 1..x\n",
         "4:", "bound 'x' of range is not an integer"},
        {"[variant]\nname = t\n[param.A]\npow2 = 1..4\nstep = 9999999999999999999\n",
         "5:", "is out of the int64 range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_refused(bad[i].text, bad[i].where, bad[i].phrase);

    /* a NUL byte is refused at its line */
    char nul[] = "[variant]\nname = t\nx\0y = 1\n";
    char tmpl[] = "/tmp/cutune-test-nul-XXXXXX";
    int fd = mkstemp(tmpl);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, nul, sizeof nul - 1) == (ssize_t)(sizeof nul - 1));
        close(fd);
        s = NULL;
        cutune_error_clear(&err);
        CHECK(cutune_space_load(tmpl, NULL, &s, &err) == CUTUNE_ERR_PARSE && !s);
        CHECK_STR_CONTAINS(err.msg, ":3: the line contains a NUL byte");
        unlink(tmpl);
    }
}

/* A config's text from a database, read strictly. */
static void test_config_text(void)
{
    CutuneConfigPairs p;
    CutuneError err = {0};
    CHECK(cutune_config_pairs_parse("TILE=16,PAD=-1,BIG=9223372036854775807", &p, &err) == 0);
    CHECK(p.count == 3 && strcmp(p.names[1], "PAD") == 0 && p.values[1] == -1 &&
          p.values[2] == INT64_MAX);
    CHECK(cutune_config_pairs_parse("", &p, &err) == 0 && p.count == 0);
    CHECK(cutune_config_pairs_parse("M=-9223372036854775808", &p, &err) == 0 &&
          p.values[0] == INT64_MIN);
    static const struct {
        const char *text, *phrase;
    } bad[] = {
        {"A=1,,B=2", "is empty"},
        {"A=1,", "is empty"},
        {",A=1", "is empty"},
        {"A=1);system(\"id\");//", "not a whole number"},
        {"A=1e3", "not a whole number"},
        {"A=", "not a whole number"},
        {"A=9223372036854775808", "not a whole number"},
        {"A=-9223372036854775809", "not a whole number"},
        {"A = 1", "parameter name"},
        {"1A=1", "parameter name"},
        {"A\"B=1", "parameter name"},
        {"=1", "parameter name"},
        {"A", "is not NAME=value"},
        {"A=1,A=2", "a second time"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cutune_error_clear(&err);
        CHECK_MSG(cutune_config_pairs_parse(bad[i].text, &p, &err) == CUTUNE_ERR_PARSE,
                  "'%s' accepted", bad[i].text);
        CHECK_STR_CONTAINS(err.msg, bad[i].phrase);
        CHECK(p.count == 0);
    }
    char many[4096];
    size_t k = 0;
    for (int i = 0; i <= CUTUNE_MAX_PARAMS; i++)
        k += (size_t)snprintf(many + k, sizeof many - k, "%sP%d=1", i ? "," : "", i);
    cutune_error_clear(&err);
    CHECK(cutune_config_pairs_parse(many, &p, &err) == CUTUNE_ERR_PARSE);
    CHECK_STR_CONTAINS(err.msg, "one more than the 48");
}

int main(void)
{
    const char *d = getenv("CUTUNE_TEST_DATA");
    if (!d || !*d) {
        fprintf(stderr, "CUTUNE_TEST_DATA is not set (run through meson test)\n");
        return 1;
    }
    snprintf(data_dir, sizeof data_dir, "%s", d);
    test_good_space();
    test_continued();
    test_bounds();
    test_zero_params();
    test_eval_error();
    test_limits();
    test_bad_files();
    test_space_limits();
    test_lines();
    test_config_text();
    return check_result("space");
}
