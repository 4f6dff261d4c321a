/* Reading JSON (RFC 8259) into a tree, for files other tools wrote (Kernel Tuner's caches).
 * Python's json module also writes NaN, Infinity and -Infinity, which are accepted as
 * numbers. Every value remembers the line it starts on, so that a caller can say where a
 * field it needs is missing. Nesting is limited to 64 levels; strings are unescaped into
 * UTF-8 (a \u0000 escape is refused: it could not be told from the end of the string). */
#ifndef CUTUNE_JSONREAD_H
#define CUTUNE_JSONREAD_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"

typedef enum CutuneJvType {
    CUTUNE_JV_NULL,
    CUTUNE_JV_BOOL,
    CUTUNE_JV_NUMBER,
    CUTUNE_JV_STRING,
    CUTUNE_JV_ARRAY,
    CUTUNE_JV_OBJECT,
} CutuneJvType;

typedef struct CutuneJv {
    CutuneJvType type;
    int line;
    int boolean;
    double number;
    int is_integer;  /* a number written without fraction or exponent, in int64 range */
    int64_t integer; /* its value, exactly */
    char *string;    /* STRING: the text */
    size_t n;        /* ARRAY: items; OBJECT: members, in file order */
    struct CutuneJv *items;
    char **keys; /* OBJECT: the member names, beside items */
} CutuneJv;

/* Parse text[0..len) (the whole of it: one value, then only white space). name is what
 * errors call the text ("cache.json"): "cache.json:12:5: expected ',' or '}'". *out is
 * NULL on failure; free it with cutune_jv_free. */
int cutune_jv_parse(const char *text, size_t len, const char *name, CutuneJv **out,
                    CutuneError *err);
void cutune_jv_free(CutuneJv *v);

/* The member `key` of an object (the first, if repeated), or NULL. */
const CutuneJv *cutune_jv_get(const CutuneJv *obj, const char *key);
/* "null", "boolean", "number", "string", "array", "object". */
const char *cutune_jv_type_name(CutuneJvType t);

#endif
