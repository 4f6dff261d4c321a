/* Evaluating an integer constraint expression over int64, with every overflow, division by
 * zero and domain error reported, never undefined behaviour; and freeing its tree. */
#include "expr_tree.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutune/cutune.h"

const ExprFunc expr_funcs[] = {
    [F_MIN] = {"min", 1, -1},          [F_MAX] = {"max", 1, -1},        [F_ABS] = {"abs", 1, 1},
    [F_CEIL_DIV] = {"ceil_div", 2, 2}, [F_IS_POW2] = {"is_pow2", 1, 1}, [F_LOG2] = {"log2", 1, 1},
};
const size_t expr_nfuncs = sizeof expr_funcs / sizeof expr_funcs[0];

const char *const expr_binop_text[] = {
    [OP_ADD] = "+", [OP_SUB] = "-",  [OP_MUL] = "*", [OP_DIV] = "/", [OP_MOD] = "%",
    [OP_EQ] = "==", [OP_NE] = "!=",  [OP_LT] = "<",  [OP_LE] = "<=", [OP_GT] = ">",
    [OP_GE] = ">=", [OP_AND] = "&&", [OP_OR] = "||",
};

void expr_set_err(CutuneExprError *err, int column, const char *tok, size_t toklen, const char *fmt,
                  ...)
{
    if (!err)
        return;
    err->column = column;
    if (toklen >= sizeof err->token)
        toklen = sizeof err->token - 1;
    if (tok && toklen)
        memcpy(err->token, tok, toklen);
    else
        toklen = 0;
    err->token[toklen] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

static void node_free(struct CutuneExpr *n)
{
    if (!n)
        return;
    node_free(n->a);
    node_free(n->b);
    node_free(n->c);
    for (size_t i = 0; i < n->nargs; i++)
        node_free(n->args[i]);
    free(n->args);
    free(n);
}

void cutune_expr_free(CutuneExpr *e)
{
    node_free(e);
}

/* ------------------------------------------------------------------------------------ */
/* Evaluation */

static int eval_fail(const struct CutuneExpr *n, const char *tok, CutuneExprError *err,
                     const char *msg)
{
    expr_set_err(err, n->column, tok, strlen(tok), "%s", msg);
    return CUTUNE_ERR_RANGE;
}

static int eval(const struct CutuneExpr *n, const int64_t *v, int64_t *r, CutuneExprError *err)
{
    int64_t x, y;
    int rc;
    switch (n->kind) {
    case N_NUM: *r = n->num; return 0;
    case N_VAR: *r = v[n->slot]; return 0;
    case N_NEG:
        if ((rc = eval(n->a, v, &x, err)))
            return rc;
        if (__builtin_sub_overflow((int64_t)0, x, r))
            return eval_fail(n, "-", err, "integer overflow");
        return 0;
    case N_NOT:
        if ((rc = eval(n->a, v, &x, err)))
            return rc;
        *r = !x;
        return 0;
    case N_TERN:
        if ((rc = eval(n->a, v, &x, err)))
            return rc;
        return eval(x ? n->b : n->c, v, r, err);
    case N_BIN:
        if ((rc = eval(n->a, v, &x, err)))
            return rc;
        if (n->op == OP_AND && !x) {
            *r = 0;
            return 0;
        }
        if (n->op == OP_OR && x) {
            *r = 1;
            return 0;
        }
        if ((rc = eval(n->b, v, &y, err)))
            return rc;
        switch ((BinOp)n->op) {
        case OP_ADD:
            if (__builtin_add_overflow(x, y, r))
                return eval_fail(n, expr_binop_text[n->op], err, "integer overflow");
            return 0;
        case OP_SUB:
            if (__builtin_sub_overflow(x, y, r))
                return eval_fail(n, expr_binop_text[n->op], err, "integer overflow");
            return 0;
        case OP_MUL:
            if (__builtin_mul_overflow(x, y, r))
                return eval_fail(n, expr_binop_text[n->op], err, "integer overflow");
            return 0;
        case OP_DIV:
            if (y == 0)
                return eval_fail(n, expr_binop_text[n->op], err, "division by zero");
            if (x == INT64_MIN && y == -1)
                return eval_fail(n, expr_binop_text[n->op], err, "integer overflow");
            *r = x / y;
            return 0;
        case OP_MOD:
            if (y == 0)
                return eval_fail(n, expr_binop_text[n->op], err, "modulo by zero");
            *r = (y == -1) ? 0 : x % y; /* INT64_MIN % -1 traps on x86; the answer is 0 */
            return 0;
        case OP_EQ: *r = x == y; return 0;
        case OP_NE: *r = x != y; return 0;
        case OP_LT: *r = x < y; return 0;
        case OP_LE: *r = x <= y; return 0;
        case OP_GT: *r = x > y; return 0;
        case OP_GE: *r = x >= y; return 0;
        case OP_AND:
        case OP_OR: *r = y != 0; return 0;
        }
        return eval_fail(n, "?", err, "internal error: bad operator");
    case N_CALL: {
        const char *fname = expr_funcs[n->op].name;
        switch ((Func)n->op) {
        case F_MIN:
        case F_MAX: {
            int64_t best = 0;
            for (size_t i = 0; i < n->nargs; i++) {
                if ((rc = eval(n->args[i], v, &x, err)))
                    return rc;
                if (i == 0 || (n->op == F_MIN ? x < best : x > best))
                    best = x;
            }
            *r = best;
            return 0;
        }
        case F_ABS:
            if ((rc = eval(n->args[0], v, &x, err)))
                return rc;
            if (x == INT64_MIN)
                return eval_fail(n, fname, err, "integer overflow in abs()");
            *r = x < 0 ? -x : x;
            return 0;
        case F_CEIL_DIV: {
            if ((rc = eval(n->args[0], v, &x, err)) || (rc = eval(n->args[1], v, &y, err)))
                return rc;
            if (y == 0)
                return eval_fail(n, fname, err, "division by zero in ceil_div()");
            if (x == INT64_MIN && y == -1)
                return eval_fail(n, fname, err, "integer overflow in ceil_div()");
            int64_t q = x / y, m = x % y;
            if (m != 0 && ((m < 0) == (y < 0)))
                q++; /* |q| < |x| here, so this cannot overflow */
            *r = q;
            return 0;
        }
        case F_IS_POW2:
            if ((rc = eval(n->args[0], v, &x, err)))
                return rc;
            *r = x > 0 && (x & (x - 1)) == 0;
            return 0;
        case F_LOG2:
            if ((rc = eval(n->args[0], v, &x, err)))
                return rc;
            if (x <= 0)
                return eval_fail(n, fname, err, "log2() of a value <= 0");
            *r = 63 - __builtin_clzll((unsigned long long)x);
            return 0;
        }
        return eval_fail(n, fname, err, "internal error: bad function");
    }
    }
    return eval_fail(n, "?", err, "internal error: bad node");
}

int cutune_expr_eval(const CutuneExpr *e, const int64_t *values, int64_t *result,
                     CutuneExprError *err)
{
    if (!e || !result) {
        expr_set_err(err, 0, NULL, 0, "no expression given");
        return CUTUNE_ERR_INVALID;
    }
    int64_t r = 0;
    int rc = eval(e, values, &r, err);
    if (rc == 0)
        *result = r;
    return rc;
}

int cutune_expr_uses(const CutuneExpr *e, size_t slot)
{
    if (!e)
        return 0;
    if (e->kind == N_VAR)
        return e->slot == slot;
    if (cutune_expr_uses(e->a, slot) || cutune_expr_uses(e->b, slot) ||
        cutune_expr_uses(e->c, slot))
        return 1;
    for (size_t i = 0; i < e->nargs; i++)
        if (cutune_expr_uses(e->args[i], slot))
            return 1;
    return 0;
}
