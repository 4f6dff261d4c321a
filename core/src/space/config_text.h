/* A config's canonical text ("TILE=16,PAD=1") read back from an untrusted place: a
 * database that was merged, imported or shared, or a file. The one strict reader that the
 * exports, `cutune query` and the lookup's launches use, so that what they pass on (JSON, a
 * C header, NVRTC's -D options) is always NAME=integer, with NAME an identifier. */
#ifndef CUTUNE_CONFIG_TEXT_H
#define CUTUNE_CONFIG_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"
#include "space_limits.h"
#include "space.h"

typedef struct CutuneConfigPairs {
    size_t count;
    char names[CUTUNE_MAX_PARAMS][CUTUNE_NAME_MAX];
    int64_t values[CUTUNE_MAX_PARAMS];
} CutuneConfigPairs;

/* Parse text: NAME=value items separated by single commas, no spaces; NAME matches
 * [A-Za-z_][A-Za-z0-9_]* in at most CUTUNE_NAME_MAX - 1 bytes, value is a decimal int64,
 * no NAME twice, at most CUTUNE_MAX_PARAMS items; "" is the config without parameters.
 * Returns 0, or CUTUNE_ERR_PARSE with a message naming the item and what is wrong with it
 * (out->count is then 0). */
int cutune_config_pairs_parse(const char *text, CutuneConfigPairs *out, CutuneError *err);

/* Write the pairs as a JSON object of integers: {"TILE": 16, "PAD": 1}. */
struct CutuneJson;
void cutune_config_pairs_json(struct CutuneJson *j, const CutuneConfigPairs *p);

#endif
