/* The cutune command: shared declarations of its subcommands. */
#ifndef CUTUNE_CLI_H
#define CUTUNE_CLI_H

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

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_new(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* Print "cutune <cmd>: <message>" on stderr and return the exit code that fits err->code. */
int cli_fail(const char *cmd, const CutuneError *err);
/* Print a usage error with a pointer to --help; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Parse a non-negative integer option value; prints the error itself. */
int cli_parse_u64(const char *cmd, const char *opt, const char *text, unsigned long long *out);
int cli_parse_double(const char *cmd, const char *opt, const char *text, double *out);
/* Write s as a JSON string literal. */
void cli_json_string(FILE *f, const char *s);

#endif
