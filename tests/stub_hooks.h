/* Hooks that do nothing and succeed, for the plugin descriptors the tests build: the
 * loader wants them present, the tests never run them on a GPU. */
#ifndef CUTUNE_TESTS_STUB_HOOKS_H
#define CUTUNE_TESTS_STUB_HOOKS_H

#include <stddef.h>

#include "cutune/plugin.h"

static inline int stub_check_problem(CutuneProblem *p, char *e, size_t n)
{
    (void)p, (void)e, (void)n;
    return 0;
}
static inline int stub_geometry(const CutuneConfig *c, const CutuneProblem *p, CutuneLaunch *l)
{
    (void)c, (void)p, (void)l;
    return 0;
}
static inline int stub_setup(const CutuneHost *h, const CutuneProblem *p, uint64_t s, void **st)
{
    (void)h, (void)p, (void)s, (void)st;
    return 0;
}
static inline int stub_args(void *s, const CutuneConfig *c, void **a, int m)
{
    (void)s, (void)c, (void)a, (void)m;
    return 0;
}
static inline int stub_poison(const CutuneHost *h, void *s)
{
    (void)h, (void)s;
    return 0;
}
static inline int stub_check(const CutuneHost *h, void *s, CutuneCheck *o)
{
    (void)h, (void)s, (void)o;
    return 0;
}
static inline void stub_teardown(const CutuneHost *h, void *s)
{
    (void)h, (void)s;
}
static inline double stub_zero(const CutuneProblem *p)
{
    (void)p;
    return 0;
}

static inline int stub_library_prepare(const CutuneHost *h, void *const *a, const CutuneProblem *p,
                                       const CutuneConfig *c, void **handle, char *w, size_t n)
{
    (void)h, (void)a, (void)p, (void)c, (void)w, (void)n;
    *handle = NULL;
    return 0;
}
static inline int stub_library_run(void *handle, void *const *a, void *stream)
{
    (void)handle, (void)a, (void)stream;
    return 0;
}
static inline void stub_library_release(void *handle)
{
    (void)handle;
}

/* An op's contract in a descriptor's initializer, every hook a stub. */
#define STUB_CONTRACT \
    .check_problem = stub_check_problem, .setup = stub_setup, .kernel_args = stub_args, \
    .poison_output = stub_poison, .check = stub_check, .teardown = stub_teardown, \
    .flops = stub_zero, .bytes = stub_zero

#endif
