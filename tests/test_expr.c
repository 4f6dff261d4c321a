/* Constraint expressions: precedence, C arithmetic, functions, errors with columns. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutune/cutune.h"
#include "expr.h"

static const char *const names[] = {"TILE", "PAD", "UNROLL", "M"};
static const CutuneSymbols syms = {names, 4};
static const int64_t vals[] = {16, 1, 4, 1024};

/* Compile and evaluate text; a failure is reported and gives -999999. */
static int64_t ev_at(const char *text, int line)
{
    CutuneExpr *e = NULL;
    CutuneExprError err;
    memset(&err, 0, sizeof err);
    int rc = cutune_expr_compile(text, &syms, &e, &err);
    CHECK_MSG(rc == 0 && e, "line %d: '%s' did not compile: %s (column %d)", line, text,
              err.message, err.column);
    if (rc)
        return -999999;
    int64_t r = -999999;
    rc = cutune_expr_eval(e, vals, &r, &err);
    CHECK_MSG(rc == 0, "line %d: '%s' did not evaluate: %s", line, text, err.message);
    cutune_expr_free(e);
    return r;
}
#define EV(text, expect) CHECK_EQ_INT(ev_at(text, __LINE__), (expect))

/* Expect a parse error at `column` near `token` whose message contains `msg`. */
static void parse_error_at(const char *text, int column, const char *token, const char *msg,
                           int line)
{
    CutuneExpr *e = (CutuneExpr *)&e; /* must be reset to NULL on failure */
    CutuneExprError err;
    memset(&err, 0, sizeof err);
    int rc = cutune_expr_compile(text, &syms, &e, &err);
    CHECK_MSG(rc == CUTUNE_ERR_PARSE, "line %d: '%s' gave %d, not a parse error", line, text, rc);
    CHECK_MSG(e == NULL, "line %d: '%s': *out not NULL after an error", line, text);
    if (rc == 0)
        cutune_expr_free(e);
    CHECK_MSG(err.column == column, "line %d: '%s': column %d, expected %d (%s)", line, text,
              err.column, column, err.message);
    CHECK_MSG(strcmp(err.token, token) == 0, "line %d: '%s': token '%s', expected '%s'", line, text,
              err.token, token);
    CHECK_STR_CONTAINS(err.message, msg);
}
#define PARSE_ERROR(text, col, tok, msg) parse_error_at(text, col, tok, msg, __LINE__)

/* Expect an evaluation error (CUTUNE_ERR_RANGE) at `column` on operator `token`. */
static void eval_error_at(const char *text, int column, const char *token, const char *msg,
                          int line)
{
    CutuneExpr *e = NULL;
    CutuneExprError err;
    memset(&err, 0, sizeof err);
    int rc = cutune_expr_compile(text, &syms, &e, &err);
    CHECK_MSG(rc == 0, "line %d: '%s' did not compile: %s", line, text, err.message);
    if (rc)
        return;
    int64_t r = 12345;
    rc = cutune_expr_eval(e, vals, &r, &err);
    cutune_expr_free(e);
    CHECK_MSG(rc == CUTUNE_ERR_RANGE, "line %d: '%s' gave %d (result %lld), not a range error",
              line, text, rc, (long long)r);
    CHECK_MSG(r == 12345, "line %d: '%s': result written despite the error", line, text);
    CHECK_MSG(err.column == column, "line %d: '%s': column %d, expected %d", line, text, err.column,
              column);
    CHECK_MSG(strcmp(err.token, token) == 0, "line %d: '%s': token '%s', expected '%s'", line, text,
              err.token, token);
    CHECK_STR_CONTAINS(err.message, msg);
}
#define EVAL_ERROR(text, col, tok, msg) eval_error_at(text, col, tok, msg, __LINE__)

static void test_precedence(void)
{
    EV("2+3*4", 14);
    EV("2+3*4==14", 1);
    EV("(2+3)*4", 20);
    EV("10-4-3", 3);   /* left associative: (10-4)-3, not 10-(4-3)=9 */
    EV("100/10/5", 2); /* (100/10)/5, not 100/(10/5)=50 */
    EV("2*3%4", 2);    /* (2*3)%4, not 2*(3%4)=6 */
    EV("-2*-3", 6);
    EV("2--3", 5);
    EV("- -4", 4);
    EV("+5", 5);
    EV("-TILE", -16);
    EV("!0", 1);
    EV("!5", 0);
    EV("!!7", 1);
    EV("!0+1", 2); /* unary binds tighter than + */
    EV("1<2==1", 1);
    EV("3>2>1", 0); /* (3>2)>1 = 1>1 */
    EV("1+1<3", 1); /* + before <: (1+1)<3; 1+(1<3) would be 2 */
    EV("3<=3", 1);
    EV("3>=4", 0);
    EV("3!=3", 0);
    EV("3==3", 1);
    EV("1||0&&0", 1); /* && binds tighter: 1||(0&&0); (1||0)&&0 would be 0 */
    EV("0&&1||1", 1);
    EV("5&&7", 1); /* logic gives 0 or 1 */
    EV("0||9", 1);
    EV("1?2:3", 2);
    EV("0?2:3", 3);
    EV("0?1:0?2:3", 3); /* right associative: 0?1:(0?2:3) */
    EV("1?0?4:5:6", 5);
    EV("1||0?7:8", 7); /* ?: is the lowest: (1||0)?7:8 */
    EV("TILE*TILE+PAD", 257);
    EV("  TILE \t*\n 2 ", 32);
    EV("9223372036854775807", INT64_MAX);
    EV("0-9223372036854775807-1", INT64_MIN);
}

static void test_arithmetic(void)
{
    /* C truncates toward zero; the remainder has the sign of the dividend */
    EV("7/2", 3);
    EV("-7/2", -3);
    EV("7/-2", -3);
    EV("-7/-2", 3);
    EV("7%2", 1);
    EV("-7%2", -1);
    EV("7%-2", 1);
    EV("-7%-2", -1);
    EV("(0-9223372036854775807-1) % -1", 0);
    /* && || ?: do not evaluate what they skip */
    EV("0 && 1/0", 0);
    EV("1 || 1/0", 1);
    EV("PAD == 0 ? 0 : TILE / PAD", 16);
    EV("1 ? 5 : 1/0", 5);
}

static void test_functions(void)
{
    EV("min(3, 1, 2)", 1);
    EV("max(3, 1, 2)", 3);
    EV("min(5)", 5);
    EV("max(-1, -7)", -1);
    EV("abs(-5)", 5);
    EV("abs(5)", 5);
    EV("ceil_div(7, 2)", 4);
    EV("ceil_div(8, 2)", 4);
    EV("ceil_div(0, 5)", 0);
    EV("ceil_div(-7, 2)", -3);
    EV("ceil_div(7, -2)", -3);
    EV("ceil_div(-7, -2)", 4);
    EV("ceil_div(M, TILE * 3)", 22); /* 1024/48 = 21.33 */
    EV("is_pow2(1)", 1);
    EV("is_pow2(64)", 1);
    EV("is_pow2(0)", 0);
    EV("is_pow2(-4)", 0);
    EV("is_pow2(6)", 0);
    EV("log2(1)", 0);
    EV("log2(1023)", 9);
    EV("log2(1024)", 10);
    EV("log2(9223372036854775807)", 62);
    EV("max(TILE, min(PAD, 3)) + 1", 17);
    EV("min ( 4 , 2 )", 2);
}

static void test_eval_errors(void)
{
    EVAL_ERROR("TILE / (PAD - PAD)", 6, "/", "division by zero");
    EVAL_ERROR("TILE % 0", 6, "%", "by zero");
    EVAL_ERROR("1 + 9223372036854775807", 3, "+", "overflow");
    EVAL_ERROR("-9223372036854775807 - 2", 22, "-", "overflow");
    EVAL_ERROR("3037000500*3037000500", 11, "*", "overflow");
    EVAL_ERROR("(0-9223372036854775807-1) / -1", 27, "/", "overflow");
    EVAL_ERROR("-(0-9223372036854775807-1)", 1, "-", "overflow");
    EVAL_ERROR("1 + abs(0-9223372036854775807-1)", 5, "abs", "overflow");
    EVAL_ERROR("ceil_div(1, PAD - 1)", 1, "ceil_div", "division by zero");
    EVAL_ERROR("2 * log2(PAD - 1)", 5, "log2", "log2");
    EVAL_ERROR("1 ? M / 0 : 0", 7, "/", "division by zero");
}

static void test_parse_errors(void)
{
    PARSE_ERROR("TILEX + 1", 1, "TILEX", "unknown name 'TILEX'");
    PARSE_ERROR("TILEX + 1", 1, "TILEX", "did you mean 'TILE'? known: TILE, PAD");
    PARSE_ERROR("1 + FOO", 5, "FOO", "known: TILE, PAD, UNROLL, M");
    PARSE_ERROR("(TILE + 1", 10, "", "missing ')'");
    PARSE_ERROR("max(TILE, 1", 12, "", "')'");
    PARSE_ERROR("TILE 3", 6, "3", "after the end");
    PARSE_ERROR("(1) (2)", 5, "(", "after the end");
    PARSE_ERROR("", 1, "", "empty");
    PARSE_ERROR("   ", 4, "", "empty");
    PARSE_ERROR("1 +", 4, "", "end of expression");
    PARSE_ERROR("TILE * * 2", 8, "*", "expected a number");
    PARSE_ERROR("12abc", 1, "12abc", "bad integer");
    PARSE_ERROR("1 + 1.5", 5, "1.5", "bad integer");
    PARSE_ERROR("99999999999999999999", 1, "99999999999999999999", "out of the int64 range");
    PARSE_ERROR("9223372036854775808", 1, "9223372036854775808", "out of the int64 range");
    PARSE_ERROR("foo(1)", 1, "foo", "unknown function 'foo'");
    PARSE_ERROR("TILE(1)", 1, "TILE", "unknown function");
    PARSE_ERROR("1 + abs(1, 2)", 5, "abs", "abs() takes 1 argument, got 2");
    PARSE_ERROR("ceil_div(1)", 1, "ceil_div", "takes 2 arguments, got 1");
    PARSE_ERROR("log2()", 1, "log2", "got 0");
    PARSE_ERROR("min()", 1, "min", "at least 1");
    PARSE_ERROR("min", 1, "min", "is a function");
    PARSE_ERROR("TILE = 4", 6, "=", "'=='");
    PARSE_ERROR("TILE & 1", 6, "&", "'&&'");
    PARSE_ERROR("1 ? 2", 6, "", "expected ':'");
    PARSE_ERROR("TILE $ 1", 6, "$", "unexpected character");
    PARSE_ERROR("max(1 2)", 7, "2", "expected ',' or ')'");
    PARSE_ERROR(")", 1, ")", "expected a number");

    /* no symbols at all */
    CutuneExpr *e = NULL;
    CutuneExprError err;
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(cutune_expr_compile("X + 1", NULL, &e, &err), CUTUNE_ERR_PARSE);
    CHECK_STR_CONTAINS(err.message, "unknown name 'X'");
    CHECK(e == NULL);
    CHECK_EQ_INT(cutune_expr_compile("1 + 2", NULL, &e, NULL), 0);
    int64_t r = 0;
    CHECK_EQ_INT(cutune_expr_eval(e, NULL, &r, NULL), 0);
    CHECK_EQ_INT(r, 3);
    cutune_expr_free(e);
    cutune_expr_free(NULL);
    /* a NULL error pointer is allowed on failure too */
    e = NULL;
    CHECK_EQ_INT(cutune_expr_compile("1 +", &syms, &e, NULL), CUTUNE_ERR_PARSE);
    CHECK(e == NULL);
}

/* Hostile input: deep nesting and long chains are errors, not stack overflows. */
static void test_limits(void)
{
    size_t n = 5000;
    char *s = malloc(4 * n + 16);
    CHECK(s != NULL);
    if (!s)
        return;
    CutuneExpr *e = NULL;
    CutuneExprError err;

    /* (((...(1)...))) 5000 deep */
    memset(s, '(', n);
    s[n] = '1';
    memset(s + n + 1, ')', n);
    s[2 * n + 1] = '\0';
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(cutune_expr_compile(s, &syms, &e, &err), CUTUNE_ERR_PARSE);
    CHECK_STR_CONTAINS(err.message, "too deeply");

    /* ------...1 */
    memset(s, '-', n);
    s[n] = '1';
    s[n + 1] = '\0';
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(cutune_expr_compile(s, &syms, &e, &err), CUTUNE_ERR_PARSE);
    CHECK_STR_CONTAINS(err.message, "too deeply");

    /* 1+1+...+1, 5000 terms: a left-deep tree without deep parsing */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        s[k++] = '1';
        s[k++] = '+';
    }
    s[k - 1] = '\0';
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(cutune_expr_compile(s, &syms, &e, &err), CUTUNE_ERR_PARSE);
    CHECK_STR_CONTAINS(err.message, "too");

    /* but 50 levels of parentheses and 500 terms are fine */
    memset(s, '(', 50);
    s[50] = '7';
    memset(s + 51, ')', 50);
    s[101] = '\0';
    EV(s, 7);
    k = 0;
    for (size_t i = 0; i < 500; i++) {
        s[k++] = '2';
        s[k++] = '+';
    }
    s[k - 1] = '\0';
    EV(s, 1000);
    free(s);
}

static void test_uses(void)
{
    CutuneExpr *e = NULL;
    CHECK_EQ_INT(cutune_expr_compile("TILE + M", &syms, &e, NULL), 0);
    CHECK_EQ_INT(cutune_expr_uses(e, 0), 1);
    CHECK_EQ_INT(cutune_expr_uses(e, 1), 0);
    CHECK_EQ_INT(cutune_expr_uses(e, 2), 0);
    CHECK_EQ_INT(cutune_expr_uses(e, 3), 1);
    CHECK_EQ_INT(cutune_expr_uses(e, 4), 0);
    cutune_expr_free(e);

    CHECK_EQ_INT(cutune_expr_compile("max(1, -PAD) + (0 ? UNROLL : 1)", &syms, &e, NULL), 0);
    CHECK_EQ_INT(cutune_expr_uses(e, 0), 0);
    CHECK_EQ_INT(cutune_expr_uses(e, 1), 1);
    CHECK_EQ_INT(cutune_expr_uses(e, 2), 1); /* read by the text, even if not evaluated */
    CHECK_EQ_INT(cutune_expr_uses(e, 3), 0);
    cutune_expr_free(e);

    CHECK_EQ_INT(cutune_expr_compile("5", &syms, &e, NULL), 0);
    CHECK_EQ_INT(cutune_expr_uses(e, 0), 0);
    cutune_expr_free(e);
    CHECK_EQ_INT(cutune_expr_uses(NULL, 0), 0);
}

int main(void)
{
    test_precedence();
    test_arithmetic();
    test_functions();
    test_eval_errors();
    test_parse_errors();
    test_limits();
    test_uses();
    return check_result("expr");
}
