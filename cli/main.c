/* cutune: tune CUDA kernels, store the results, look them up. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: cutune <command> [options]\n"
    "\n"
    "Tune CUDA kernel variants by timed, checked launches and keep the results in SQLite.\n"
    "\n"
    "commands:\n"
    "  run <op>        tune every variant of an op on a device (e.g. cutune run matmul --device 0)\n"
    "  list [op]       the ops, their variants and tuning spaces\n"
    "  new variant <op> <name>  the two files of a new variant, ready to edit\n"
    "  check [variant] a variant checked without a GPU: files, space, launches, compiles\n"
    "  devices         the CUDA devices of this machine\n"
    "  query <op>      the best verified config for a device and size\n"
    "  show [run]      the trials of a run (the latest by default)\n"
    "  export          the best configs as JSON, CSV or a C header\n"
    "  replay FILE     replay search strategies against a recorded exhaustive run (no GPU)\n"
    "\n"
    "`cutune <command> --help` describes each command's options.\n"
    "\n"
    "environment:\n"
    "  CUTUNE_DB           database file (default $XDG_DATA_HOME/cutune/cutune.db,\n"
    "                      else ~/.local/share/cutune/cutune.db); --db overrides it\n"
    "  CUTUNE_PLUGIN_PATH  extra folders of op (and C variant) plugins, ':'-separated,\n"
    "                      searched first\n"
    "  CUTUNE_SPACE_PATH   extra folders of variants (INI and kernel files), ':'-separated,\n"
    "                      searched first; then $XDG_DATA_HOME/cutune/tuning_spaces (else\n"
    "                      ~/.local/share/cutune/tuning_spaces), then the shipped ones\n"
    "  CUTUNE_CACHE_DIR    compiled-kernel cache (default ~/.cache/cutune)\n"
    "\n"
    "exit codes: 0 success, 1 failure, 2 bad usage, 3 no CUDA driver or device,\n"
    "            4 not found, 130 interrupted\n";

int main(int argc, char **argv)
{
    /* past a file size limit (ulimit -f) a write fails like on a full disk and the
     * database layer says so; by default the signal would kill us without a word */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("cutune %s\n", CUTUNE_VERSION);
        return EXIT_OK;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"run", cmd_run}, {"list", cmd_list}, {"devices", cmd_devices},
        {"query", cmd_query}, {"show", cmd_show}, {"export", cmd_export},
        {"replay", cmd_replay}, {"new", cmd_new}, {"check", cmd_check},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmd, cmds[i].name))
            return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "cutune: unknown command '%s'\n\n%s", cmd, usage);
    return EXIT_USAGE;
}

int cli_fail(const char *cmd, const CutuneError *err)
{
    fprintf(stderr, "cutune %s: %s\n", cmd, err->msg[0] ? err->msg : cutune_strerror(err->code));
    switch (err->code) {
    case CUTUNE_ERR_NO_DEVICE:
        return EXIT_NO_DEVICE;
    case CUTUNE_ERR_NOT_FOUND:
        return EXIT_NOT_FOUND;
    case CUTUNE_ERR_INTERRUPTED:
        return EXIT_INTERRUPTED;
    default:
        return EXIT_FAILURE_;
    }
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "cutune %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see `cutune %s --help`)\n", cmd);
    return EXIT_USAGE;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *text, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!text || *text == '-' || *text == '\0')
        return cli_usage_error(cmd, "%s needs a non-negative integer, got '%s'", opt, text ? text : "");
    *out = strtoull(text, &end, 10);
    if (errno || *end)
        return cli_usage_error(cmd, "%s needs a non-negative integer, got '%s'", opt, text);
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *text, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    if (errno || *end || end == text || !(*out >= 0))
        return cli_usage_error(cmd, "%s needs a non-negative number, got '%s'", opt, text);
    return 0;
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}
