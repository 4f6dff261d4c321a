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
 * int cmd_name(int argc, char **argv) (cmd_name.c) returning the exit code. main.c's table
 * of them is made from this list too. */
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

/* cutune export --format kernel-tuner (export_kt.c): returns the exit code. */
int cli_export_kernel_tuner(const char *db_path, const char *device, const char *variant,
                            const char *size, const char *output);

/* Print "cutune <cmd>: <message>" on stderr and return the exit code that fits err->code. */
int cli_fail(const char *cmd, const CutuneError *err);
/* Print a usage error with a pointer to --help; returns EXIT_USAGE. */
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

/* An option of a command for cli_parse_options: --name VALUE sets *text (CLI_TEXT), or
 * --name sets *flag to 1 (CLI_FLAG). */
typedef struct CliOption {
    const char *name;
    const char **text;
    int *flag;
} CliOption;
#define CLI_TEXT(name, text) \
    { \
        (name), (text), NULL \
    }
#define CLI_FLAG(name, flag) \
    { \
        (name), NULL, (flag) \
    }
#define CLI_END \
    { \
        NULL, NULL, NULL \
    }
/* The options of a command whose options are all texts and flags: opts (ended by an entry
 * whose name is NULL; at most CLI_MAX_OPTIONS) and --help (-h), which prints help. Returns
 * -1 to go on with the operands from optind, or the exit code for the command to return
 * now: EXIT_OK after the help, EXIT_USAGE for an option it does not know. */
#define CLI_MAX_OPTIONS 16
int cli_parse_options(const char *cmd, const char *help, int argc, char **argv,
                      const CliOption *opts);

/* The largest CUDA device ordinal an option accepts. */
#define CLI_MAX_DEVICE 1023
/* Refuse an output file that is the database (or recording) at db_path or one of its
 * journal files, compared by device and inode; call before anything is opened for writing.
 * Returns 0, or EXIT_USAGE after printing why. */
int cli_refuse_db_output(const char *cmd, const char *output, const char *db_path);

#endif
