/* The tree of an integer constraint expression, shared by its parser (expr_parse.c) and
 * its evaluator (expr_eval.c). See expr.h for the grammar. */
#ifndef CUTUNE_EXPR_TREE_H
#define CUTUNE_EXPR_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "expr.h"

#define EXPR_MAX_NESTING 200 /* parser recursion levels */
#define EXPR_MAX_HEIGHT 1000 /* tree height */

typedef enum {
    N_NUM,
    N_VAR,
    N_NEG,
    N_NOT,
    N_BIN,
    N_TERN,
    N_CALL,
} NodeKind;

typedef enum {
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_AND,
    OP_OR,
} BinOp;

typedef enum {
    F_MIN,
    F_MAX,
    F_ABS,
    F_CEIL_DIV,
    F_IS_POW2,
    F_LOG2,
} Func;

/* The functions: name and number of arguments, indexed by Func. */
typedef struct {
    const char *name;
    int min_args, max_args; /* max_args < 0: no upper bound */
} ExprFunc;
extern const ExprFunc expr_funcs[];
extern const size_t expr_nfuncs;
/* Each BinOp as written. */
extern const char *const expr_binop_text[];

struct CutuneExpr {
    NodeKind kind;
    int op;     /* BinOp for N_BIN, Func for N_CALL */
    int column; /* of the operator / function name / literal */
    int height;
    int64_t num;
    size_t slot;
    struct CutuneExpr *a, *b, *c; /* operands; N_TERN: a ? b : c */
    struct CutuneExpr **args;
    size_t nargs;
};

/* Fill *err (NULL: nothing): the 1-based column, the token (cut to fit) and the message. */
void expr_set_err(CutuneExprError *err, int column, const char *tok, size_t toklen, const char *fmt,
                  ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#endif
