/* Integer constraint expressions for tuning spaces.
 *
 * Nothing in a space file is ever executed: an expression is parsed by this small
 * recursive-descent parser into a tree and evaluated over int64 values.
 *
 * Grammar (C precedence, lowest first):
 *   expr    := ternary
 *   ternary := or ( '?' expr ':' ternary )?
 *   or      := and ( '||' and )*
 *   and     := cmp ( '&&' cmp )*
 *   cmp     := sum ( ('=='|'!='|'<'|'<='|'>'|'>=') sum )*
 *   sum     := prod ( ('+'|'-') prod )*
 *   prod    := unary ( ('*'|'/'|'%') unary )*
 *   unary   := ('-'|'!'|'+') unary | primary
 *   primary := INTEGER | IDENT | IDENT '(' args ')' | '(' expr ')'
 * Functions: min(a,b,...), max(a,b,...), abs(a), ceil_div(a,b), is_pow2(a), log2(a) (floor).
 * Comparisons and logic give 0 or 1. Division and modulo truncate like C; division or
 * modulo by zero and int64 overflow are evaluation errors, never undefined behaviour. */
#ifndef CUTUNE_EXPR_H
#define CUTUNE_EXPR_H

#include <stddef.h>
#include <stdint.h>

typedef struct CutuneExpr CutuneExpr;

/* The names an expression may refer to; a name's index is its slot in the values array
 * given to cutune_expr_eval. */
typedef struct CutuneSymbols {
    const char *const *names;
    size_t count;
} CutuneSymbols;

typedef struct CutuneExprError {
    int column;        /* 1-based column in the expression text of the offending token */
    char token[48];    /* the offending token (truncated), "" at end of input */
    char message[160]; /* e.g. "unknown name 'TILEX' (known: TILE, PAD, ...)" */
} CutuneExprError;

/* Parse text. On success *out owns the tree (free with cutune_expr_free) and 0 is
 * returned. On failure returns CUTUNE_ERR_PARSE and fills *err (may be NULL). */
int cutune_expr_compile(const char *text, const CutuneSymbols *syms, CutuneExpr **out,
                        CutuneExprError *err);

/* Evaluate with values[i] bound to syms->names[i]. Returns 0 and sets *result, or
 * CUTUNE_ERR_RANGE (division by zero, overflow) with *err filled (column of the operator). */
int cutune_expr_eval(const CutuneExpr *e, const int64_t *values, int64_t *result,
                     CutuneExprError *err);

/* 1 if the expression reads symbol `slot`, else 0. */
int cutune_expr_uses(const CutuneExpr *e, size_t slot);

void cutune_expr_free(CutuneExpr *e);

#endif
