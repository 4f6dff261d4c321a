/* Shards of a run's job list (see shard.h). */
#include "shard.h"

#include <string.h>

/* Leading decimal digits of s as a value (capped past max), their count in *len. */
static unsigned long long digits(const char *s, size_t *len, unsigned long long max)
{
    unsigned long long v = 0;
    size_t n = 0;
    for (; s[n] >= '0' && s[n] <= '9'; n++)
        if (v <= max)
            v = v * 10 + (unsigned)(s[n] - '0');
    *len = n;
    return v;
}

int cutune_shard_parse(const char *text, CutuneShard *out, CutuneError *err)
{
    static const char form[] = "I/N, shard I of N counted from 0 (e.g. 0/4 .. 3/4; Slurm: "
                               "--array=0-3 and $SLURM_ARRAY_TASK_ID/4; Kubernetes: "
                               "$JOB_COMPLETION_INDEX/4)";
    if (!text || !*text)
        return cutune_error(err, CUTUNE_ERR_INVALID, "--shard: no value; expected %s", form);
    size_t ni, nn = 0;
    unsigned long long i = digits(text, &ni, CUTUNE_SHARD_MAX);
    const char *slash = text + ni;
    unsigned long long n = *slash == '/' ? digits(slash + 1, &nn, CUTUNE_SHARD_MAX) : 0;
    if (ni == 0 || *slash != '/' || nn == 0 || slash[1 + nn] != '\0')
        return cutune_error(err, CUTUNE_ERR_INVALID, "--shard '%s' is not of the form %s", text,
                            form);
    if (n == 0)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "--shard '%s': the number of shards must be at least 1; expected %s",
                            text, form);
    if (n > CUTUNE_SHARD_MAX)
        return cutune_error(err, CUTUNE_ERR_INVALID, "--shard '%s': at most %u shards", text,
                            CUTUNE_SHARD_MAX);
    if (i >= n)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "--shard '%s': index %llu is out of range for %llu shard%s: the index "
                            "counts from 0, so it is 0..%llu (a Slurm array of %llu tasks is "
                            "--array=0-%llu)",
                            text, i, n, n == 1 ? "" : "s", n - 1, n, n - 1);
    out->index = (unsigned)i;
    out->count = (unsigned)n;
    return 0;
}

int cutune_shard_has(const CutuneShard *s, size_t k)
{
    if (!s || s->count == 0)
        return 1;
    return k % s->count == s->index;
}
