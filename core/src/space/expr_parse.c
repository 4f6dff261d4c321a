/* Parsing integer constraint expressions: a tokenizer and a recursive-descent parser into
 * the tree of expr_tree.h, evaluated by expr_eval.c. See expr.h for the grammar.
 *
 * Hostile input is bounded two ways: the parser's nesting (parentheses, unary chains,
 * ternaries) and the height of the tree (long left-associative chains such as
 * 1+1+...+1 build deep trees without deep parsing), so that neither the parser nor the
 * recursive evaluator and destructor can run out of stack. */
#include "expr_tree.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutune/cutune.h"

/* ------------------------------------------------------------------------------------ */
/* Tokens */

typedef enum {
    T_END,
    T_INT,
    T_IDENT,
    T_LPAREN,
    T_RPAREN,
    T_COMMA,
    T_QUESTION,
    T_COLON,
    T_NOT,
    T_BINOP, /* op in tok.op */
} TokKind;

typedef struct {
    TokKind kind;
    int op;
    size_t start, len;
    int64_t value;
} Token;

typedef struct {
    const char *text;
    size_t pos;
    Token tok;
    const CutuneSymbols *syms;
    CutuneExprError *err;
    int nesting;
    int failed;
} Parser;

/* Report a parse error at the current token. Only the first error is kept. */
#define PERR(p, ...) \
    do { \
        if (!(p)->failed) { \
            (p)->failed = 1; \
            expr_set_err((p)->err, (int)(p)->tok.start + 1, (p)->text + (p)->tok.start, \
                         (p)->tok.len, __VA_ARGS__); \
        } \
    } while (0)

static int is_ident_start(int c)
{
    return isalpha(c) || c == '_';
}
static int is_ident_char(int c)
{
    return isalnum(c) || c == '_';
}

/* The punctuation and operators, each a token; a two-character one before its first
 * character alone. */
static const struct {
    const char *text;
    TokKind kind;
    int op; /* for T_BINOP */
} punct[] = {
    {"(", T_LPAREN, 0},     {")", T_RPAREN, 0},      {",", T_COMMA, 0},      {"?", T_QUESTION, 0},
    {":", T_COLON, 0},      {"+", T_BINOP, OP_ADD},  {"-", T_BINOP, OP_SUB}, {"*", T_BINOP, OP_MUL},
    {"/", T_BINOP, OP_DIV}, {"%", T_BINOP, OP_MOD},  {"!=", T_BINOP, OP_NE}, {"!", T_NOT, 0},
    {"<=", T_BINOP, OP_LE}, {"<", T_BINOP, OP_LT},   {">=", T_BINOP, OP_GE}, {">", T_BINOP, OP_GT},
    {"==", T_BINOP, OP_EQ}, {"&&", T_BINOP, OP_AND}, {"||", T_BINOP, OP_OR},
};

/* The current token is of `kind` and ends at `end`, where the next one starts. */
static void token_end(Parser *p, TokKind kind, size_t end)
{
    p->tok.kind = kind;
    p->tok.len = end - p->tok.start;
    p->pos = end;
}

/* Read the next token into p->tok. Returns 0, or -1 after reporting a lexical error. */
static int next_token(Parser *p)
{
    const char *s = p->text;
    size_t i = p->pos;
    while (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n' || s[i] == '\v' ||
           s[i] == '\f')
        i++;
    Token *t = &p->tok;
    t->start = i;
    t->len = 1;
    t->op = 0;
    t->value = 0;
    unsigned char c = (unsigned char)s[i];
    if (c == '\0') {
        token_end(p, T_END, i);
        return 0;
    }
    if (isdigit(c)) {
        size_t j = i;
        while (isdigit((unsigned char)s[j]))
            j++;
        size_t digits_end = j;
        while (is_ident_char((unsigned char)s[j]) || s[j] == '.')
            j++;
        token_end(p, T_INT, j);
        if (j != digits_end) {
            PERR(p, "bad integer '%.*s' (integers are decimal digits only)", (int)(j - i), s + i);
            return -1;
        }
        int64_t v = 0;
        for (size_t k = i; k < j; k++) {
            if (__builtin_mul_overflow(v, 10, &v) ||
                __builtin_add_overflow(v, (int64_t)(s[k] - '0'), &v)) {
                PERR(p, "integer '%.*s' is out of the int64 range", (int)(j - i), s + i);
                return -1;
            }
        }
        t->value = v;
        return 0;
    }
    if (is_ident_start(c)) {
        size_t j = i;
        while (is_ident_char((unsigned char)s[j]))
            j++;
        token_end(p, T_IDENT, j);
        return 0;
    }
    for (size_t k = 0; k < sizeof punct / sizeof punct[0]; k++) {
        size_t n = strlen(punct[k].text);
        if (strncmp(s + i, punct[k].text, n) == 0) {
            t->op = punct[k].op;
            token_end(p, punct[k].kind, i + n);
            return 0;
        }
    }
    token_end(p, T_END, i + 1);
    if (c == '=') {
        PERR(p, "unexpected '=' (write '==' to compare)");
        return -1;
    }
    if (c == '&' || c == '|') {
        PERR(p, "unexpected '%c' (bitwise operators are not supported; '%c%c' is logical)", c, c,
             c);
        return -1;
    }
    if (c >= 0x80) {
        /* show the whole UTF-8 sequence, not half a character */
        size_t j = i + 1;
        while ((unsigned char)s[j] >= 0x80 && (unsigned char)s[j] < 0xC0 && j - i < 4)
            j++;
        token_end(p, T_END, j);
    }
    if (isprint(c))
        PERR(p, "unexpected character '%c'", c);
    else
        PERR(p, "unexpected character (byte 0x%02x)", c);
    return -1;
}

static struct CutuneExpr *node_new(Parser *p, NodeKind kind, int column)
{
    struct CutuneExpr *n = calloc(1, sizeof *n);
    if (!n) {
        PERR(p, "out of memory");
        return NULL;
    }
    n->kind = kind;
    n->column = column;
    n->height = 1;
    return n;
}

static int height_of(const struct CutuneExpr *n)
{
    return n ? n->height : 0;
}

/* A node complete with its children: n with its height set from theirs, or NULL (n and its
 * children freed, the error reported) when the tree grows too tall. */
static struct CutuneExpr *node_done(Parser *p, struct CutuneExpr *n)
{
    int h = height_of(n->a);
    if (height_of(n->b) > h)
        h = height_of(n->b);
    if (height_of(n->c) > h)
        h = height_of(n->c);
    for (size_t i = 0; i < n->nargs; i++)
        if (height_of(n->args[i]) > h)
            h = height_of(n->args[i]);
    n->height = h + 1;
    if (n->height > EXPR_MAX_HEIGHT) {
        PERR(p, "expression is too long or nested too deeply (more than %d levels)",
             EXPR_MAX_HEIGHT);
        cutune_expr_free(n);
        return NULL;
    }
    return n;
}

/* ------------------------------------------------------------------------------------ */
/* Parser */

static struct CutuneExpr *parse_ternary(Parser *p);

static int levenshtein(const char *a, size_t la, const char *b, size_t lb)
{
    /* names are short; anything long is simply not a near miss */
    if (la > 63 || lb > 63)
        return 1000;
    int row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            int best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* "unknown name 'X' (did you mean 'Y'?)" or "(known: A, B, C, ...)" */
static void unknown_name(Parser *p, const char *name, size_t len)
{
    const CutuneSymbols *sy = p->syms;
    size_t n = sy ? sy->count : 0;
    int best = 1000;
    const char *best_name = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!sy->names[i])
            continue;
        int d = levenshtein(name, len, sy->names[i], strlen(sy->names[i]));
        if (d < best) {
            best = d;
            best_name = sy->names[i];
        }
    }
    for (size_t f = 0; f < expr_nfuncs; f++) {
        if (strlen(expr_funcs[f].name) == len && strncmp(expr_funcs[f].name, name, len) == 0) {
            PERR(p, "'%s' is a function: write %s(...)", expr_funcs[f].name, expr_funcs[f].name);
            return;
        }
    }
    int threshold = len <= 3 ? 1 : 2;
    if (!best_name || best > threshold)
        best_name = NULL;
    char known[96];
    size_t k = 0;
    known[0] = '\0';
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (!sy->names[i])
            continue;
        size_t l = strlen(sy->names[i]);
        if (k + l + 8 >= sizeof known)
            break;
        k += (size_t)snprintf(known + k, sizeof known - k, "%s%s", shown ? ", " : "", sy->names[i]);
        shown++;
    }
    if (shown < n)
        snprintf(known + k, sizeof known - k, "%s...", shown ? ", " : "");
    int shown_len = len > 40 ? 40 : (int)len; /* the message has 160 bytes */
    if (n == 0)
        PERR(p, "unknown name '%.*s' (no names are defined here)", shown_len, name);
    else if (best_name)
        PERR(p, "unknown name '%.*s' (did you mean '%s'? known: %s)", shown_len, name, best_name,
             known);
    else
        PERR(p, "unknown name '%.*s' (known: %s)", shown_len, name, known);
}

static struct CutuneExpr *parse_call(Parser *p, size_t name_start, size_t name_len)
{
    const char *name = p->text + name_start;
    int column = (int)name_start + 1;
    int f = -1;
    for (size_t i = 0; i < expr_nfuncs; i++)
        if (strlen(expr_funcs[i].name) == name_len &&
            strncmp(expr_funcs[i].name, name, name_len) == 0)
            f = (int)i;
    if (f < 0) {
        /* point at the name, not at the '(' */
        p->tok.start = name_start;
        p->tok.len = name_len;
        PERR(p, "unknown function '%.*s' (known: min, max, abs, ceil_div, is_pow2, log2)",
             (int)name_len, name);
        return NULL;
    }
    struct CutuneExpr *n = node_new(p, N_CALL, column);
    if (!n)
        return NULL;
    n->op = f;
    if (next_token(p)) /* skip '(' */
        goto fail;
    size_t cap = 0;
    if (p->tok.kind != T_RPAREN) {
        for (;;) {
            struct CutuneExpr *arg = parse_ternary(p);
            if (!arg)
                goto fail;
            if (n->nargs == cap) {
                size_t ncap = cap ? 2 * cap : 4;
                struct CutuneExpr **na = realloc(n->args, ncap * sizeof *na);
                if (!na) {
                    cutune_expr_free(arg);
                    PERR(p, "out of memory");
                    goto fail;
                }
                n->args = na;
                cap = ncap;
            }
            n->args[n->nargs++] = arg;
            if (p->tok.kind == T_COMMA) {
                if (next_token(p))
                    goto fail;
                continue;
            }
            break;
        }
    }
    if (p->tok.kind != T_RPAREN) {
        PERR(p, "expected ',' or ')' in the arguments of %s()", expr_funcs[f].name);
        goto fail;
    }
    size_t nargs = n->nargs;
    if ((int)nargs < expr_funcs[f].min_args ||
        (expr_funcs[f].max_args >= 0 && (int)nargs > expr_funcs[f].max_args)) {
        p->tok.start = name_start;
        p->tok.len = name_len;
        if (expr_funcs[f].max_args < 0)
            PERR(p, "%s() takes at least %d argument%s, got %zu", expr_funcs[f].name,
                 expr_funcs[f].min_args, expr_funcs[f].min_args == 1 ? "" : "s", nargs);
        else
            PERR(p, "%s() takes %d argument%s, got %zu", expr_funcs[f].name, expr_funcs[f].max_args,
                 expr_funcs[f].max_args == 1 ? "" : "s", nargs);
        goto fail;
    }
    if (next_token(p)) /* skip ')' */
        goto fail;
    return node_done(p, n);
fail:
    cutune_expr_free(n);
    return NULL;
}

static struct CutuneExpr *parse_primary(Parser *p)
{
    Token t = p->tok;
    int column = (int)t.start + 1;
    switch (t.kind) {
    case T_INT: {
        struct CutuneExpr *n = node_new(p, N_NUM, column);
        if (!n)
            return NULL;
        n->num = t.value;
        if (next_token(p)) {
            cutune_expr_free(n);
            return NULL;
        }
        return n;
    }
    case T_IDENT: {
        if (next_token(p))
            return NULL;
        if (p->tok.kind == T_LPAREN)
            return parse_call(p, t.start, t.len);
        const char *name = p->text + t.start;
        const CutuneSymbols *sy = p->syms;
        size_t n = sy ? sy->count : 0;
        for (size_t i = 0; i < n; i++) {
            const char *s = sy->names[i];
            if (s && strlen(s) == t.len && strncmp(s, name, t.len) == 0) {
                struct CutuneExpr *v = node_new(p, N_VAR, column);
                if (v)
                    v->slot = i;
                return v;
            }
        }
        p->tok = t; /* report at the name */
        unknown_name(p, name, t.len);
        return NULL;
    }
    case T_LPAREN: {
        if (next_token(p))
            return NULL;
        struct CutuneExpr *n = parse_ternary(p);
        if (!n)
            return NULL;
        if (p->tok.kind != T_RPAREN) {
            PERR(p, "missing ')' (the '(' at column %d is not closed)", column);
            cutune_expr_free(n);
            return NULL;
        }
        if (next_token(p)) {
            cutune_expr_free(n);
            return NULL;
        }
        return n;
    }
    case T_END:
        PERR(p, "unexpected end of expression (expected a number, a name or '(')");
        return NULL;
    default:
        PERR(p, "expected a number, a name or '(', found '%.*s'", (int)t.len, p->text + t.start);
        return NULL;
    }
}

static struct CutuneExpr *parse_unary(Parser *p)
{
    if (++p->nesting > EXPR_MAX_NESTING) {
        PERR(p, "expression is nested too deeply (more than %d levels)", EXPR_MAX_NESTING);
        p->nesting--;
        return NULL;
    }
    struct CutuneExpr *r = NULL;
    Token t = p->tok;
    if (t.kind == T_NOT || (t.kind == T_BINOP && (t.op == OP_SUB || t.op == OP_ADD))) {
        if (next_token(p))
            goto out;
        struct CutuneExpr *operand = parse_unary(p);
        if (!operand)
            goto out;
        if (t.kind == T_BINOP && t.op == OP_ADD) {
            r = operand;
            goto out;
        }
        r = node_new(p, t.kind == T_NOT ? N_NOT : N_NEG, (int)t.start + 1);
        if (!r) {
            cutune_expr_free(operand);
            goto out;
        }
        r->a = operand;
        r = node_done(p, r);
        goto out;
    }
    r = parse_primary(p);
out:
    p->nesting--;
    return r;
}

/* One left-associative binary level: operand (op operand)* for ops in [lo, hi]. */
typedef struct CutuneExpr *(*ParseFn)(Parser *);

static struct CutuneExpr *parse_binary_level(Parser *p, ParseFn operand, int lo, int hi)
{
    struct CutuneExpr *left = operand(p);
    if (!left)
        return NULL;
    while (p->tok.kind == T_BINOP && p->tok.op >= lo && p->tok.op <= hi) {
        Token t = p->tok;
        if (next_token(p))
            goto fail;
        struct CutuneExpr *right = operand(p);
        if (!right)
            goto fail;
        struct CutuneExpr *n = node_new(p, N_BIN, (int)t.start + 1);
        if (!n) {
            cutune_expr_free(right);
            goto fail;
        }
        n->op = t.op;
        n->a = left;
        n->b = right;
        if (!(left = node_done(p, n)))
            return NULL;
    }
    return left;
fail:
    cutune_expr_free(left);
    return NULL;
}

static struct CutuneExpr *parse_prod(Parser *p)
{
    return parse_binary_level(p, parse_unary, OP_MUL, OP_MOD);
}
static struct CutuneExpr *parse_sum(Parser *p)
{
    return parse_binary_level(p, parse_prod, OP_ADD, OP_SUB);
}
static struct CutuneExpr *parse_cmp(Parser *p)
{
    return parse_binary_level(p, parse_sum, OP_EQ, OP_GE);
}
static struct CutuneExpr *parse_and(Parser *p)
{
    return parse_binary_level(p, parse_cmp, OP_AND, OP_AND);
}
static struct CutuneExpr *parse_or(Parser *p)
{
    return parse_binary_level(p, parse_and, OP_OR, OP_OR);
}

static struct CutuneExpr *parse_ternary(Parser *p)
{
    if (++p->nesting > EXPR_MAX_NESTING) {
        PERR(p, "expression is nested too deeply (more than %d levels)", EXPR_MAX_NESTING);
        p->nesting--;
        return NULL;
    }
    struct CutuneExpr *n = NULL, *cond = parse_or(p);
    if (!cond)
        goto out;
    if (p->tok.kind != T_QUESTION) {
        n = cond;
        goto out;
    }
    int column = (int)p->tok.start + 1;
    n = node_new(p, N_TERN, column);
    if (!n) {
        cutune_expr_free(cond);
        goto out;
    }
    n->a = cond;
    if (next_token(p))
        goto fail;
    n->b = parse_ternary(p);
    if (!n->b)
        goto fail;
    if (p->tok.kind != T_COLON) {
        PERR(p, "expected ':' to complete the '?' at column %d", column);
        goto fail;
    }
    if (next_token(p))
        goto fail;
    n->c = parse_ternary(p);
    if (!n->c)
        goto fail;
    n = node_done(p, n);
    goto out;
fail:
    cutune_expr_free(n);
    n = NULL;
out:
    p->nesting--;
    return n;
}

int cutune_expr_compile(const char *text, const CutuneSymbols *syms, CutuneExpr **out,
                        CutuneExprError *err)
{
    if (out)
        *out = NULL;
    if (err) {
        err->column = 0;
        err->token[0] = '\0';
        err->message[0] = '\0';
    }
    if (!text || !out) {
        expr_set_err(err, 1, NULL, 0, "no expression given");
        return CUTUNE_ERR_PARSE;
    }
    Parser p = {.text = text, .syms = syms, .err = err};
    if (next_token(&p))
        return CUTUNE_ERR_PARSE;
    if (p.tok.kind == T_END) {
        PERR(&p, "empty expression");
        return CUTUNE_ERR_PARSE;
    }
    struct CutuneExpr *e = parse_ternary(&p);
    if (!e)
        return CUTUNE_ERR_PARSE;
    if (p.tok.kind != T_END) {
        PERR(&p, "unexpected '%.*s' after the end of the expression (missing operator?)",
             (int)p.tok.len, text + p.tok.start);
        cutune_expr_free(e);
        return CUTUNE_ERR_PARSE;
    }
    *out = e;
    return 0;
}
