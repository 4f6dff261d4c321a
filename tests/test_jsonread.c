/* The JSON reader (core/src/util/jsonread.h): values, escapes, Python's NaN and Infinity, the
 * line of every value, and malformed text refused with its line and column. */
#include "check.h"
#include "jsonread.h"

#include <math.h>
#include <string.h>

static CutuneJv *parse(const char *text, CutuneError *err)
{
    CutuneJv *v = NULL;
    memset(err, 0, sizeof *err);
    cutune_jv_parse(text, strlen(text), "t.json", &v, err);
    return v;
}

static void test_values(void)
{
    CutuneError err;
    CutuneJv *v = parse("{\"a\": [1, -2, 3.5, 1e3, true, false, null],\n"
                        " \"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\",\n"
                        " \"n\": [NaN, Infinity, -Infinity, 9223372036854775807, 1.0],\n"
                        " \"a\": 5, \"e\": {}, \"l\": []}",
                        &err);
    CHECK(v && v->type == CUTUNE_JV_OBJECT && v->n == 6);
    const CutuneJv *a = cutune_jv_get(v, "a");
    CHECK(a && a->type == CUTUNE_JV_ARRAY && a->n == 7 && a->line == 1); /* the first "a" */
    CHECK(a->items[0].is_integer && a->items[0].integer == 1);
    CHECK(a->items[1].is_integer && a->items[1].integer == -2);
    CHECK(!a->items[2].is_integer && a->items[2].number == 3.5);
    CHECK(!a->items[3].is_integer && a->items[3].number == 1000);
    CHECK(a->items[4].type == CUTUNE_JV_BOOL && a->items[4].boolean == 1);
    CHECK(a->items[5].type == CUTUNE_JV_BOOL && a->items[5].boolean == 0);
    CHECK(a->items[6].type == CUTUNE_JV_NULL);
    const CutuneJv *s = cutune_jv_get(v, "s");
    CHECK(s && s->line == 2 && !strcmp(s->string, "q\"\\/\b\f\n\r\t\xC3\xA9\xF0\x9F\x98\x80"));
    const CutuneJv *n = cutune_jv_get(v, "n");
    CHECK(n && n->line == 3 && isnan(n->items[0].number) && isinf(n->items[1].number) &&
          n->items[1].number > 0 && n->items[2].number < 0);
    CHECK(n->items[3].is_integer && n->items[3].integer == 9223372036854775807LL);
    CHECK(!n->items[4].is_integer && n->items[4].number == 1.0);
    CHECK(cutune_jv_get(v, "e")->n == 0 && cutune_jv_get(v, "l")->type == CUTUNE_JV_ARRAY);
    CHECK(cutune_jv_get(v, "missing") == NULL && cutune_jv_get(a, "a") == NULL);
    cutune_jv_free(v);
}

static void test_errors(void)
{
    static const struct {
        const char *text, *where, *what;
    } bad[] = {
        {"{\"a\": 1,}", "t.json:1:9:", "member name"},
        {"{\"a\" 1}", "t.json:1:6:", "':'"},
        {"[1 2]", "t.json:1:4:", "',' or ']'"},
        {"{\"a\": 1}\n x", "t.json:2:2:", "after the end"},
        {"\n\n  [01]", "t.json:3:4:", "expected a value"},
        {"[1.]", "t.json:1:2:", "decimal point"},
        {"[1e]", "t.json:1:2:", "exponent"},
        {"\"abc", "t.json:1:5:", "ends inside a string"},
        {"\"a\nb\"", "t.json:1:3:", "control character"},
        {"\"\\u0000\"", "t.json:1:2:", "bad escape"},
        {"\"\\x41\"", "t.json:1:2:", "bad escape"},
        {"[tru]", "t.json:1:2:", "expected a value"},
        {"", "t.json:1:1:", "ends where a value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CutuneError err;
        CutuneJv *v = parse(bad[i].text, &err);
        CHECK(v == NULL && err.code == CUTUNE_ERR_PARSE);
        CHECK_MSG(strstr(err.msg, bad[i].where) && strstr(err.msg, bad[i].what), "%s", err.msg);
        cutune_jv_free(v);
    }
    for (int levels = 64; levels <= 65; levels++) { /* 64 levels are read, 65 are not */
        char deep[200];
        memset(deep, '[', (size_t)levels);
        memset(deep + levels, ']', (size_t)levels);
        deep[2 * levels] = '\0';
        CutuneError err;
        CutuneJv *v = parse(deep, &err);
        CHECK(levels == 64 ? v != NULL : v == NULL && strstr(err.msg, "64 levels") != NULL);
        cutune_jv_free(v);
    }
}

int main(void)
{
    test_values();
    test_errors();
    return check_result("jsonread");
}
