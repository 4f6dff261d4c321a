/* The cutune command: shared declarations of its subcommands. */
#ifndef CUTUNE_CLI_H
#define CUTUNE_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cutune/cutune.h"

/* Exit codes (documented in `cutune --help`). */
enum {
    EXIT_OK = 0,
    EXIT_FAILURE_ = 1,  /* the command failed; the message says why */
    EXIT_USAGE = 2,     /* bad command line */
    EXIT_NO_DEVICE = 3, /* no CUDA driver or device */
    EXIT_NOT_FOUND = 4, /* nothing recorded for the query, or unknown op/variant/run */
    EXIT_INTERRUPTED = 130,
};

/* The subcommands: X(name) each, for `cutune name`, whose function is
 * int cmd_name(int argc, char **argv) (cmd_name.c) returning the exit code. cli_commands
 * below is made from this list. */
#define CLI_COMMANDS(X) \
    X(run) \
    X(list) \
    X(devices) \
    X(query) \
    X(show) \
    X(export) \
    X(replay) \
    X(new) \
    X(check) \
    X(merge) \
    X(import) \
    X(report)
#define CLI_DECLARE_COMMAND(name) int cmd_##name(int argc, char **argv);
CLI_COMMANDS(CLI_DECLARE_COMMAND)

/* Every subcommand's name and function, in the order of CLI_COMMANDS (usage.c): the one
 * table that main.c runs them from and docs.c describes them from. */
typedef struct CliCommand {
    const char *name;
    int (*fn)(int argc, char **argv);
} CliCommand;
extern const CliCommand cli_commands[];
extern const size_t cli_ncommands;

/* cutune export --format kernel-tuner (export_kt.c): returns the exit code. */
int cli_export_kernel_tuner(const char *db_path, const char *device, const char *variant,
                            const char *size, const char *output);

/* Print "cutune <cmd>: <message>" on stderr and return the exit code that fits err->code. */
int cli_fail(const char *cmd, const CutuneError *err);
/* The usage of `cutune` itself: its commands, environment and exit codes (usage.c). */
extern const char cli_usage[];
/* Print a usage error with a pointer to --help; returns EXIT_USAGE (usage.c). */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Numeric options (options.c): the value of option `opt` of command `cmd` parsed into its
 * real type within [min, max]: strict decimal (an optional '-', digits; no spaces, '+' or
 * hex), or for cli_parse_real a finite number as strtod reads it. On failure they print a
 * usage error saying the range and what was wrong ("it is too large") and return
 * EXIT_USAGE; *out is set only on success. */
int cli_parse_int64(const char *cmd, const char *opt, const char *text, int64_t min, int64_t max,
                    int64_t *out);
int cli_parse_uint64(const char *cmd, const char *opt, const char *text, uint64_t min, uint64_t max,
                     uint64_t *out);
int cli_parse_int(const char *cmd, const char *opt, const char *text, int min, int max, int *out);
int cli_parse_size(const char *cmd, const char *opt, const char *text, size_t min, size_t max,
                   size_t *out);
int cli_parse_real(const char *cmd, const char *opt, const char *text, double min, double max,
                   double *out);

/* An option of a command for cli_parse_options, made with the macros below: what --name
 * does with its value (kind), where it goes (to) and the range of a number. */
typedef enum CliKind {
    CLI_KIND_TEXT,   /* --name VALUE sets *to.text */
    CLI_KIND_FLAG,   /* --name sets *to.flag to 1 */
    CLI_KIND_INT,    /* cli_parse_int into *to.i within range.i */
    CLI_KIND_SIZE,   /* cli_parse_size into *to.z within range.z */
    CLI_KIND_UINT64, /* cli_parse_uint64 into *to.u within range.u */
    CLI_KIND_REAL,   /* cli_parse_real into *to.r within range.r */
    CLI_KIND_CALL,   /* fn(cmd, "--name", VALUE, to.user): an option with its own grammar */
} CliKind;
/* An option's own reading of its value: 0, or the exit code for the command to return (it
 * has said why, as cli_usage_error does). */
typedef int CliOptionFn(const char *cmd, const char *opt, const char *value, void *user);
typedef struct CliOption {
    const char *name;
    CliKind kind;
    union {
        const char **text;
        int *flag, *i;
        size_t *z;
        uint64_t *u;
        double *r;
        void *user;
    } to;
    union {
        struct {
            int min, max;
        } i;
        struct {
            size_t min, max;
        } z;
        struct {
            uint64_t min, max;
        } u;
        struct {
            double min, max;
        } r;
    } range;
    CliOptionFn *fn;
    char short_name; /* -c as well as --name, or 0 */
} CliOption;
#define CLI_TEXT(name_, p) \
    { \
        .name = (name_), .kind = CLI_KIND_TEXT, .to.text = (p) \
    }
#define CLI_SHORT_FLAG(c, name_, p) \
    { \
        .name = (name_), .kind = CLI_KIND_FLAG, .to.flag = (p), .short_name = (c) \
    }
#define CLI_FLAG(name_, p) CLI_SHORT_FLAG(0, name_, p)
/* A number of member m of to and range (i, z, u or r): what CLI_INT and the others make. */
#define CLI_NUMBER_(name_, kind_, m, p, lo, hi) \
    { \
        .name = (name_), .kind = (kind_), .to.m = (p), .range.m = {(lo), (hi) } \
    }
#define CLI_INT(name_, p, lo, hi) CLI_NUMBER_(name_, CLI_KIND_INT, i, p, lo, hi)
#define CLI_SIZE(name_, p, lo, hi) CLI_NUMBER_(name_, CLI_KIND_SIZE, z, p, lo, hi)
#define CLI_UINT64(name_, p, lo, hi) CLI_NUMBER_(name_, CLI_KIND_UINT64, u, p, lo, hi)
#define CLI_REAL(name_, p, lo, hi) CLI_NUMBER_(name_, CLI_KIND_REAL, r, p, lo, hi)
#define CLI_CALL(name_, f, user_) \
    { \
        .name = (name_), .kind = CLI_KIND_CALL, .to.user = (user_), .fn = (f) \
    }
#define CLI_END \
    { \
        .name = NULL \
    }
/* A command's options: opts (ended by CLI_END; at most CLI_MAX_OPTIONS) and --help (-h),
 * which prints help, read in the order given. Returns -1 to go on with the operands from
 * optind, or the exit code for the command to return now: EXIT_OK after the help,
 * EXIT_USAGE for an option it does not know or a value refused (with the message of
 * cli_parse_int and the others), or what a CLI_CALL option's function returned. */
#define CLI_MAX_OPTIONS 32
int cli_parse_options(const char *cmd, const char *help, int argc, char **argv,
                      const CliOption *opts);
/* A command's help and option table as cli_parse_options was given them, for the man page
 * and the shell completions (docs.c). While cli_describe(d) is on (d not NULL),
 * cli_parse_options parses nothing: it copies its help and table into *d, sets d->seen and
 * returns EXIT_OK, so that calling a command with no arguments describes it. */
typedef struct CliDescription {
    const char *help;
    CliOption opts[CLI_MAX_OPTIONS];
    int n, seen;
} CliDescription;
void cli_describe(CliDescription *d);
/* cutune --man, cutune --completion bash|zsh (docs.c): written to f from the usage text and
 * every command's description; returns the exit code. */
int cli_docs(const char *what, const char *usage, FILE *f);

/* A CLI_CALL function for a repeatable option: each value is appended to the list (user, a
 * CliList whose items have room for every value: argc of them). */
typedef struct CliList {
    const char **items;
    size_t *n;
} CliList;
int cli_append(const char *cmd, const char *opt, const char *value, void *list);

/* CLI_CALL functions for --dtype and --layout: the index (CutuneDtype, CutuneLayout) of a
 * name of cutune/op.h into the int at out, or a usage error naming the choices. */
int cli_dtype(const char *cmd, const char *opt, const char *value, void *out);
int cli_layout(const char *cmd, const char *opt, const char *value, void *out);
int cli_epilogue(const char *cmd, const char *opt, const char *value, void *out);

/* The largest CUDA device ordinal an option accepts. */
#define CLI_MAX_DEVICE 1023
/* Refuse an output file that is the database (or recording) at db_path or one of its
 * journal files, compared by device and inode; call before anything is opened for writing.
 * Returns 0, or EXIT_USAGE after printing why. */
int cli_refuse_db_output(const char *cmd, const char *output, const char *db_path);
/* Refuse a database path that names a folder: one that ends in '/' (opening it would first
 * create the database's folder under the database's own name, then fail, leaving that
 * empty folder), or an existing folder. Call before the database is opened for writing.
 * Returns 0, or EXIT_USAGE after printing why. */
int cli_refuse_db_folder(const char *cmd, const char *db_path);

#endif
