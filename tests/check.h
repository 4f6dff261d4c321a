/* A minimal test harness: CHECK records a failure and carries on; each test program
 * returns check_result() (0 if every CHECK held, 1 otherwise, 77 = skipped). */
#ifndef CUTUNE_TESTS_CHECK_H
#define CUTUNE_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond) \
    do { \
        check_count++; \
        if (!(cond)) { \
            check_failures++; \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        } \
    } while (0)

#define CHECK_MSG(cond, ...) \
    do { \
        check_count++; \
        if (!(cond)) { \
            check_failures++; \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
        } \
    } while (0)

#define CHECK_EQ_INT(a, b) CHECK_MSG((a) == (b), "%lld != %lld", (long long)(a), (long long)(b))
#define CHECK_STR_CONTAINS(hay, needle) \
    CHECK_MSG(strstr((hay), (needle)) != NULL, "'%s' does not contain '%s'", (hay), (needle))

static inline int check_result(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#define CHECK_SKIP 77

#endif
