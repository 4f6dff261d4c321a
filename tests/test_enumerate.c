/* The enumeration of a space's valid configs (core/src/space/enumerate.c walks the points as
 * a tree and evaluates a constraint once for the points below its deepest parameter) against
 * the plain definition: every point of the cartesian product in turn, in the order of the
 * space file (the last parameter turns fastest), checked with cutune_space_allows, which
 * names the first constraint in file order that rejects it. Generated spaces of 1 to 5
 * parameters and up to 6 constraints over random parameters, problem dimensions and device
 * limits; then a constraint that fails to evaluate only where an earlier one already rejects
 * every point (the tree meets it, a walk point by point never does). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cutune/cutune.h"
#include "space.h"
#include "space_limits.h"

#define NSPACES 400

static unsigned long long rng = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static CutuneSpace *load_text(const char *text)
{
    char path[] = "/tmp/cutune-test-enum-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    CutuneSpace *s = NULL;
    CutuneError err = {0};
    int rc = cutune_space_load(path, "M", &s, &err);
    unlink(path);
    CHECK_MSG(rc == 0 && s, "%d %s\n%s", rc, err.msg, text);
    return rc == 0 ? s : NULL;
}

/* A constraint over random parameters (P0..P{np-1}), M and a limit. */
static int constraint_text(char *buf, size_t len, int np)
{
    int a = (int)rnd((unsigned)np), b = (int)rnd((unsigned)np), k = (int)rnd(6);
    switch (rnd(7)) {
    case 0: return snprintf(buf, len, "P%d + P%d < %d", a, b, 3 + k);
    case 1: return snprintf(buf, len, "(P%d * P%d) %% 3 != %d", a, b, k % 3);
    case 2: return snprintf(buf, len, "P%d >= %d", a, k / 2);
    case 3: return snprintf(buf, len, "P%d * 2 <= M", a);
    case 4: return snprintf(buf, len, "P%d != P%d || P%d > %d", a, b, a, k);
    case 5: return snprintf(buf, len, "P%d * 100 <= WARP_SIZE * %d", a, 4 + k);
    default: return snprintf(buf, len, "%d > 1", k);
    }
}

/* A space of 1 to 5 parameters of 1 to 4 distinct values in 0..7 each. */
static void space_text(char *t, size_t cap)
{
    int np = 1 + (int)rnd(5), nc = (int)rnd(7);
    size_t k = (size_t)snprintf(t, cap, "[variant]\nname = t\n");
    for (int i = 0; i < np; i++) {
        int nv = 1 + (int)rnd(4), start = (int)rnd(4);
        k += (size_t)snprintf(t + k, cap - k, "[param.P%d]\nvalues = ", i);
        for (int v = 0; v < nv; v++)
            k += (size_t)snprintf(t + k, cap - k, "%s%d", v ? ", " : "", start + v);
        k += (size_t)snprintf(t + k, cap - k, "\n");
    }
    if (nc)
        k += (size_t)snprintf(t + k, cap - k, "[constraints]\n");
    for (int c = 0; c < nc; c++) {
        k += (size_t)snprintf(t + k, cap - k, "c%d = ", c);
        k += (size_t)constraint_text(t + k, cap - k, np);
        k += (size_t)snprintf(t + k, cap - k, "\n");
    }
}

/* The index of the constraint that "path:line: constraint 'cN' ..." names, or -1. */
static int named(const char *why)
{
    const char *p = strstr(why, "constraint 'c");
    return p ? atoi(p + 13) : -1;
}

/* Every point in turn: the valid ones in order, and the first rejecting constraint of each
 * of the others, against what cutune_space_enumerate gave. */
static void compare(const CutuneSpace *s, const CutuneLimits *lim, const int64_t *dims,
                    const CutuneConfigList *l, const char *text)
{
    size_t np = s->nparams, valid = 0, idx[8] = {0}, rej[8] = {0};
    int64_t v[8];
    for (size_t i = 0; i < np; i++)
        v[i] = s->params[i].values[0];
    for (int more = 1; more;) {
        char why[256] = "";
        CutuneError err = {0};
        int ok = cutune_space_allows(s, lim, v, dims, why, sizeof why, &err);
        if (ok == 1) {
            CHECK_MSG(valid < l->nconfigs && memcmp(l->values + valid * np, v, np * sizeof *v) == 0,
                      "config %zu differs\n%s", valid, text);
            valid++;
        } else {
            int c = named(why);
            CHECK_MSG(c >= 0 && c < 8, "%s\n%s", why, text);
            if (c >= 0 && c < 8)
                rej[c]++;
        }
        more = 0;
        for (size_t i = np; i > 0 && !more; i--) {
            if (++idx[i - 1] < s->params[i - 1].nvalues)
                more = 1;
            else
                idx[i - 1] = 0;
            v[i - 1] = s->params[i - 1].values[idx[i - 1]];
        }
    }
    CHECK_MSG(valid == l->nconfigs, "%zu valid, enumerate gave %zu\n%s", valid, l->nconfigs, text);
    for (size_t c = 0; c < s->nconstraints; c++)
        CHECK_MSG(l->rejected_by[c] == rej[c], "constraint %zu first rejected %zu, not %zu\n%s", c,
                  l->rejected_by[c], rej[c], text);
}

static void test_generated(void)
{
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    char text[2048];
    for (int n = 0; n < NSPACES; n++) {
        space_text(text, sizeof text);
        CutuneSpace *s = load_text(text);
        if (!s)
            continue;
        int64_t dims[1] = {(int64_t)rnd(12)};
        CutuneConfigList l;
        CutuneError err = {0};
        int rc = cutune_space_enumerate(s, &lim, dims, &l, &err);
        CHECK_MSG(rc == 0, "%d %s\n%s", rc, err.msg, text);
        if (rc == 0)
            compare(s, &lim, dims, &l, text);
        cutune_config_list_free(&l);
        cutune_space_free(s);
    }
}

/* c0 (of B, the second parameter) rejects every point; c1 (of A alone) divides by zero at
 * A = 0. Point by point c1 is never evaluated, so the space is valid and empty. */
static void test_guarded_error(void)
{
    CutuneSpace *s = load_text("[variant]\nname = t\n[param.A]\nvalues = 0, 1\n"
                               "[param.B]\nvalues = 0, 1\n[constraints]\nc0 = B > 5\n"
                               "c1 = 1 / A > 0\n");
    if (!s)
        return;
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    CutuneConfigList l;
    CutuneError err = {0};
    int rc = cutune_space_enumerate(s, &lim, NULL, &l, &err);
    CHECK_MSG(rc == 0, "%d %s", rc, err.msg);
    CHECK(rc != 0 || (l.nconfigs == 0 && l.rejected_by[0] == 4 && l.rejected_by[1] == 0));
    cutune_config_list_free(&l);
    /* and where c0 lets A = 0 through, the error is the first point's that meets it */
    cutune_space_free(s);
    s = load_text("[variant]\nname = t\n[param.A]\nvalues = 0, 1\n[param.B]\nvalues = 0, 1\n"
                  "[constraints]\nc0 = B > 0\nc1 = 1 / A > 0\n");
    if (!s)
        return;
    rc = cutune_space_enumerate(s, &lim, NULL, &l, &err);
    CHECK_EQ_INT(rc, CUTUNE_ERR_RANGE);
    CHECK_STR_CONTAINS(err.msg, "constraint 'c1' failed to evaluate for A=0,B=1: division by zero");
    cutune_config_list_free(&l);
    cutune_space_free(s);
}

int main(void)
{
    test_generated();
    test_guarded_error();
    return check_result("enumerate");
}
