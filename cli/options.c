/* Options. Numeric ones are parsed into their real type and range: every numeric option of
 * every command goes through here, so that a bad value is a usage error (exit 2) that says
 * what was wrong, never a silent wrap (--device 4294967299 is not GPU 3). Every command reads
 * its options from one table (cli_parse_options). */
#include "cli.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Strict decimal, as the core reads integers everywhere (cutune_parse_whole: an optional
 * sign, then digits only; no spaces, no hex). Returns NULL with *neg and *mag set, or what
 * was wrong. */
static const char *digits(const char *text, int *neg, uint64_t *mag)
{
    if (!text || !*text)
        return "it is empty";
    switch (cutune_parse_whole(text, strlen(text), neg, mag)) {
    case 0: return NULL;
    case CUTUNE_I64_RANGE: return "it is too large";
    default:
        return text[1] || (*text != '-' && *text != '+') ? "it is not a whole decimal number"
                                                         : "there is no digit";
    }
}

static int refuse(const char *cmd, const char *opt, const char *text, const char *range,
                  const char *why)
{
    return cli_usage_error(cmd, "%s needs %s, got '%s': %s", opt, range, text ? text : "", why);
}

/* A whole number as sign and magnitude: the int64 and the uint64 ranges compare alike. */
typedef struct Whole {
    int neg; /* never set for 0 */
    uint64_t mag;
} Whole;

static Whole whole_of_int64(int64_t v)
{
    return (Whole){v < 0, v < 0 ? (uint64_t) - (v + 1) + 1 : (uint64_t)v};
}

static int whole_below(Whole a, Whole b)
{
    if (a.neg != b.neg)
        return a.neg;
    return a.neg ? a.mag > b.mag : a.mag < b.mag;
}

/* text as a whole number in [min, max] (at_least: max is the type's own, left unsaid). */
static int parse_whole(const char *cmd, const char *opt, const char *text, Whole min, Whole max,
                       int at_least, Whole *out)
{
    char range[96];
    const char *min_sign = min.neg ? "-" : "", *max_sign = max.neg ? "-" : "";
    if (at_least)
        snprintf(range, sizeof range, "a whole number of at least %s%" PRIu64, min_sign, min.mag);
    else
        snprintf(range, sizeof range, "a whole number from %s%" PRIu64 " to %s%" PRIu64, min_sign,
                 min.mag, max_sign, max.mag);
    Whole v;
    const char *why = digits(text, &v.neg, &v.mag);
    if (why)
        return refuse(cmd, opt, text, range, why);
    if (whole_below(v, min))
        return refuse(cmd, opt, text, range, "it is too small");
    if (whole_below(max, v))
        return refuse(cmd, opt, text, range, "it is too large");
    *out = v;
    return 0;
}

int cli_parse_int64(const char *cmd, const char *opt, const char *text, int64_t min, int64_t max,
                    int64_t *out)
{
    Whole v;
    int rc = parse_whole(cmd, opt, text, whole_of_int64(min), whole_of_int64(max), max == INT64_MAX,
                         &v);
    if (rc == 0)
        *out = v.neg ? -(int64_t)(v.mag - 1) - 1 : (int64_t)v.mag;
    return rc;
}

int cli_parse_uint64(const char *cmd, const char *opt, const char *text, uint64_t min, uint64_t max,
                     uint64_t *out)
{
    Whole v;
    int rc = parse_whole(cmd, opt, text, (Whole){0, min}, (Whole){0, max}, max == UINT64_MAX, &v);
    if (rc == 0)
        *out = v.mag;
    return rc;
}

int cli_parse_int(const char *cmd, const char *opt, const char *text, int min, int max, int *out)
{
    int64_t v;
    int rc = cli_parse_int64(cmd, opt, text, min, max, &v);
    if (rc == 0)
        *out = (int)v;
    return rc;
}

int cli_parse_size(const char *cmd, const char *opt, const char *text, size_t min, size_t max,
                   size_t *out)
{
    uint64_t v;
    int rc = cli_parse_uint64(cmd, opt, text, min, max, &v);
    if (rc == 0)
        *out = (size_t)v;
    return rc;
}

int cli_parse_real(const char *cmd, const char *opt, const char *text, double min, double max,
                   double *out)
{
    char range[96];
    if (max == DBL_MAX)
        snprintf(range, sizeof range, "a number of at least %g", min);
    else
        snprintf(range, sizeof range, "a number from %g to %g", min, max);
    if (!text || !*text)
        return refuse(cmd, opt, text, range, "it is empty");
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || text[0] == ' ' || text[0] == '\t')
        return refuse(cmd, opt, text, range, "it is not a number");
    if (!isfinite(v) || errno == ERANGE)
        return refuse(cmd, opt, text, range, "it is not a finite number in range");
    if (v < min)
        return refuse(cmd, opt, text, range, "it is too small");
    if (v > max)
        return refuse(cmd, opt, text, range, "it is too large");
    *out = v;
    return 0;
}

/* What option o does with value (NULL for a flag): 0, or the exit code. */
static int apply(const char *cmd, const CliOption *o, const char *value)
{
    char opt[96];
    snprintf(opt, sizeof opt, "--%s", o->name);
    switch (o->kind) {
    case CLI_KIND_TEXT: *o->to.text = value; return 0;
    case CLI_KIND_FLAG: *o->to.flag = 1; return 0;
    case CLI_KIND_INT:
        return cli_parse_int(cmd, opt, value, o->range.i.min, o->range.i.max, o->to.i);
    case CLI_KIND_SIZE:
        return cli_parse_size(cmd, opt, value, o->range.z.min, o->range.z.max, o->to.z);
    case CLI_KIND_UINT64:
        return cli_parse_uint64(cmd, opt, value, o->range.u.min, o->range.u.max, o->to.u);
    case CLI_KIND_REAL:
        return cli_parse_real(cmd, opt, value, o->range.r.min, o->range.r.max, o->to.r);
    case CLI_KIND_CALL: return o->fn(cmd, opt, value, o->to.user);
    }
    return 0;
}

/* Where cli_parse_options writes a command's table instead of parsing (cli_describe). */
static CliDescription *describing;

void cli_describe(CliDescription *d)
{
    describing = d;
}

/* The table of one command, copied for the man page and the completions (docs.c). */
static int describe(const char *help, const CliOption *opts)
{
    CliDescription *d = describing;
    d->help = help;
    d->seen = 1;
    d->n = 0;
    for (; opts && opts[d->n].name && d->n < CLI_MAX_OPTIONS; d->n++)
        d->opts[d->n] = opts[d->n];
    return EXIT_OK;
}

/* What getopt refused: an option this command does not know, or one without its value,
 * said once (getopt's own message is off: opterr = 0). */
static int refused(const char *cmd, int c, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    if (c == ':')
        return cli_usage_error(cmd, "option '%s' needs a value", arg);
    if (optopt > 0 && optopt < 256)
        return cli_usage_error(cmd, "unknown option '-%c'", optopt);
    return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_parse_options(const char *cmd, const char *help, int argc, char **argv,
                      const CliOption *opts)
{
    if (describing)
        return describe(help, opts);
    enum { FIRST = 256 }; /* getopt_long's value for opts[i] is FIRST + i */
    struct option longopts[CLI_MAX_OPTIONS + 2];
    /* ":h" (':' first: a missing value is told apart), then "c" or "c:" a short option */
    char shorts[2 * CLI_MAX_OPTIONS + 3] = ":h";
    size_t ns = 2;
    int n = 0;
    for (; opts && opts[n].name; n++) {
        if (n == CLI_MAX_OPTIONS) {
            fprintf(stderr, "cutune %s: more than %d options (a bug in cutune)\n", cmd,
                    CLI_MAX_OPTIONS);
            return EXIT_FAILURE_;
        }
        int arg = opts[n].kind == CLI_KIND_FLAG ? no_argument : required_argument;
        longopts[n] = (struct option){opts[n].name, arg, NULL, FIRST + n};
        if (opts[n].short_name) {
            shorts[ns++] = opts[n].short_name;
            if (arg == required_argument)
                shorts[ns++] = ':';
        }
    }
    shorts[ns] = '\0';
    longopts[n] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[n + 1] = (struct option){NULL, 0, NULL, 0};
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return EXIT_OK;
        }
        for (int i = 0; i < n && c < FIRST; i++)
            if (opts[i].short_name && c == opts[i].short_name)
                c = FIRST + i;
        if (c < FIRST || c >= FIRST + n)
            return refused(cmd, c, argv);
        int rc = apply(cmd, &opts[c - FIRST], optarg);
        if (rc)
            return rc;
    }
    return -1;
}

int cli_append(const char *cmd, const char *opt, const char *value, void *list)
{
    (void)cmd;
    (void)opt;
    CliList *l = list;
    l->items[(*l->n)++] = value;
    return 0;
}

int cli_dtype(const char *cmd, const char *opt, const char *value, void *out)
{
    for (int d = 0; d < CUTUNE_DTYPE_COUNT; d++)
        if (!strcmp(value, cutune_dtype_name(d))) {
            *(int *)out = d;
            return 0;
        }
    return cli_usage_error(cmd, "%s takes an element type: fp32, tf32, fp16 or bf16, not '%s'", opt,
                           value);
}

int cli_layout(const char *cmd, const char *opt, const char *value, void *out)
{
    for (int l = 0; l < CUTUNE_LAYOUT_COUNT; l++)
        if (!strcmp(value, cutune_layout_name(l))) {
            *(int *)out = l;
            return 0;
        }
    return cli_usage_error(cmd,
                           "%s takes a layout: nn (every operand row-major) or nt (the second "
                           "transposed: B is N x K), not '%s'",
                           opt, value);
}

int cli_epilogue(const char *cmd, const char *opt, const char *value, void *out)
{
    for (int e = 0; e < CUTUNE_EPILOGUE_COUNT; e++)
        if (!strcmp(value, cutune_epilogue_name(e))) {
            *(int *)out = e;
            return 0;
        }
    return cli_usage_error(cmd,
                           "%s takes an epilogue: none, or bias (C = A B + bias, a row of N "
                           "added to every row), not '%s'",
                           opt, value);
}
