/* Shards of a run's job list: what --shard accepts and refuses (with a message that says
 * the index counts from 0), and that the shards of any split cover every job exactly once
 * with counts that differ by at most one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "shard.h"

static void parses(const char *text, unsigned index, unsigned count)
{
    CutuneShard s = {99, 99};
    CutuneError err = {0};
    int rc = cutune_shard_parse(text, &s, &err);
    CHECK_MSG(rc == 0, "'%s' refused: %s", text, err.msg);
    CHECK_MSG(s.index == index && s.count == count, "'%s' read as %u/%u, want %u/%u", text, s.index,
              s.count, index, count);
}

/* Refused with CUTUNE_ERR_INVALID, the output untouched, and `phrase` in the message. */
static void refused(const char *text, const char *phrase)
{
    CutuneShard s = {7, 9};
    CutuneError err = {0};
    int rc = cutune_shard_parse(text, &s, &err);
    CHECK_MSG(rc == CUTUNE_ERR_INVALID, "'%s' gave %d, want CUTUNE_ERR_INVALID",
              text ? text : "NULL", rc);
    CHECK_MSG(s.index == 7 && s.count == 9, "'%s' changed the output on failure",
              text ? text : "NULL");
    CHECK_MSG(strstr(err.msg, phrase) != NULL, "'%s': message '%s' lacks '%s'",
              text ? text : "NULL", err.msg, phrase);
}

static void test_parse(void)
{
    parses("0/1", 0, 1);
    parses("0/4", 0, 4);
    parses("3/4", 3, 4);
    parses("007/8", 7, 8);
    parses("999999/1000000", 999999, 1000000);

    refused("3/2", "counts from 0, so it is 0..1");
    refused("2/2", "index 2 is out of range for 2 shards");
    refused("1/1", "0..0");
    refused("0/0", "at least 1");
    refused("x", "not of the form I/N");
    refused("", "no value");
    refused(NULL, "no value");
    refused("1", "not of the form");
    refused("1/", "not of the form");
    refused("/4", "not of the form");
    refused("-1/4", "not of the form");
    refused("+1/4", "not of the form");
    refused("1/4x", "not of the form");
    refused(" 1/4", "not of the form");
    refused("1 /4", "not of the form");
    refused("1/4/5", "not of the form");
    refused("0x1/4", "not of the form");
    refused("0/1000001", "at most 1000000 shards");
    refused("0/99999999999999999999999", "at most");
    refused("99999999999999999999999/4", "out of range");
}

/* Every job in exactly one shard, and shards within one job of each other. */
static void test_cover(void)
{
    static const size_t jobs[] = {0, 1, 2, 5, 7, 30, 101};
    static const unsigned counts[] = {1, 2, 3, 4, 8, 13, 64};
    for (size_t a = 0; a < sizeof jobs / sizeof *jobs; a++)
        for (size_t b = 0; b < sizeof counts / sizeof *counts; b++) {
            size_t n = jobs[a];
            unsigned N = counts[b];
            size_t lo = (size_t)-1, hi = 0;
            int bad = 0;
            for (size_t k = 0; k < n; k++) {
                int owners = 0;
                for (unsigned i = 0; i < N; i++) {
                    CutuneShard s = {i, N};
                    owners += cutune_shard_has(&s, k);
                }
                bad += owners != 1;
            }
            CHECK_MSG(bad == 0, "%zu jobs over %u shards: %d jobs not in exactly one shard", n, N,
                      bad);
            for (unsigned i = 0; i < N; i++) {
                CutuneShard s = {i, N};
                size_t mine = 0;
                for (size_t k = 0; k < n; k++)
                    mine += (size_t)cutune_shard_has(&s, k);
                lo = mine < lo ? mine : lo;
                hi = mine > hi ? mine : hi;
            }
            CHECK_MSG(hi - lo <= 1, "%zu jobs over %u shards: counts from %zu to %zu", n, N, lo,
                      hi);
        }
    CutuneShard none = {0, 0};
    int all = 1;
    for (size_t k = 0; k < 50; k++)
        all &= cutune_shard_has(&none, k);
    CHECK_MSG(all, "an unsharded run (count 0) must take every job");
    CHECK(cutune_shard_has(NULL, 3));
    /* the split is fixed: job 5 of shards of 4 is shard 1's */
    CutuneShard one = {1, 4};
    CHECK(cutune_shard_has(&one, 5) && !cutune_shard_has(&one, 6));
}

int main(void)
{
    test_parse();
    test_cover();
    return check_result("shard");
}
