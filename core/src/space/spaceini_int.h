/* What the two halves of the space file loader share: spaceini.c reads the file (sections,
 * keys, constraints, problems) and space_params.c holds the parameters (their sections,
 * keys and values) and the limits on the space's size. The helpers below are in
 * spaceini_int.c, which uses neither half, so that the two depend on it and spaceini.c on
 * space_params.c, never the other way. */
#ifndef CUTUNE_SPACEINI_INT_H
#define CUTUNE_SPACEINI_INT_H

#include <stddef.h>
#include <stdint.h>

#include "space.h"

typedef enum {
    SEC_NONE,
    SEC_VARIANT,
    SEC_PARAM,
    SEC_CONSTRAINTS,
    SEC_PROBLEMS,
    SEC_LAUNCH,
    SEC_TENSOR_MAP
} Section;

/* What a parameter's keys said, before its values are generated. */
typedef struct {
    int values_line, range_line, step_line, pow2_line;
    int64_t lo, hi, step; /* range or pow2 bounds */
    int *value_lines;     /* line of each explicit value */
    size_t cap;           /* capacity of values and value_lines */
} ParamState;

typedef struct {
    const char *path;
    CutuneSpace *s;
    ParamState *ps;
    size_t pcap, ccap, prcap;
    int lineno;
    Section sec;
    size_t cur;                    /* current parameter */
    char tmap[CUTUNE_SECTION_MAX]; /* current [tensor_map.*] section's name */
    int variant_line, constraints_line, problems_line, launch_line;
    int name_line, description_line;
    int failed;
    int peek; /* read without compiling constraints (cutune_space_peek) */
    CutuneError e;
} Ctx;

/* Record the first error as "<path>:<line>: <message>". Returns 0, so that a key handler
 * can `return fail(...)`. */
int space_fail(Ctx *c, int line, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Room for item n of the array *a (asize bytes an item) and of *b (bsize bytes an item; b
 * NULL: none), which hold *cap items: when n == *cap both grow to twice as many (first
 * when empty). 1, or 0 after space_fail at line (out of memory). */
int space_grow(Ctx *c, int line, size_t n, size_t *cap, size_t first, void **a, size_t asize,
               void **b, size_t bsize);

/* Calls item() on each trimmed item of a comma-separated list; a trailing comma is allowed
 * (the list continues on the next line). 1, or 0 after space_fail. */
typedef int (*ItemFn)(Ctx *c, const char *item, size_t len);
int space_for_each_item(Ctx *c, const char *value, ItemFn item, const char *what, const char *fix);

int space_is_identifier(const char *s, size_t len);
int space_name_is_limit(const char *s);

/* [param.NAME] at c->lineno: a new parameter becomes current. 1, or 0 after space_fail. */
int space_param_start(Ctx *c, const char *name, size_t len);
/* A key of the current parameter's section. 1, or 0 after space_fail. */
int space_param_key(Ctx *c, const char *key, const char *value, int cont);
/* After the file: every parameter's values. 1, or 0 after space_fail. */
int space_params_finish(Ctx *c);
/* The cartesian product and the memory its enumeration would take, within the limits of
 * space_limits.h. 1, or 0 after space_fail. */
int space_size_check(Ctx *c);

#endif
