/* cutune: tune CUDA kernels, store the results, look them up. */
#include "cli.h"
#include "outfile.h"
#include "utf8.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    "  merge OUT IN... merge tuning databases (the shards of a run) into one\n"
    "  import kernel-tuner CACHE  a Kernel Tuner cache into the database or a recording\n"
    "  report [run]    a run for a person: the best per size, convergence, spread,\n"
    "                  parameters, failures (--html FILE: one self-contained page)\n"
    "\n"
    "`cutune <command> --help` (or `cutune help <command>`) describes each command's\n"
    "options. `cutune --man` writes the man page, `cutune --completion bash|zsh` the shell\n"
    "completion (meson installs both).\n"
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
    "  CUTUNE_NVRTC_CACHE  1: let NVRTC (12.9+) also keep its own cache of cutune's compiles\n"
    "                      in the driver's compute cache (~/.nv/ComputeCache); off otherwise\n"
    "\n"
    "exit codes: 0 success, 1 failure, 2 bad usage, 3 no CUDA driver or device,\n"
    "            4 not found, 130 interrupted\n";

/* Every command's output is checked to the end: what a full disk, /dev/full or a closed
 * pipe refused to take is a failure (exit 1), never a success with half an answer. */
static int finish_stdout(const char *cmd, int rc)
{
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad)
        return rc;
    fprintf(stderr, "cutune %s: writing the output failed: %s\n", cmd,
            e == ENOSPC ? "no space left on the device"
            : e         ? strerror(e)
                        : "a write failed (a full disk, or the reader went away)");
    return rc == EXIT_OK ? EXIT_FAILURE_ : rc;
}

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
    /* `cutune help run` is `cutune run --help` */
    char help_flag[] = "--help", *help_argv[] = {argv[0], NULL, help_flag, NULL};
    if (!strcmp(cmd, "help") && argc > 2) {
        if (argc > 3)
            return cli_usage_error("help", "one command at a time, not '%s' and '%s'", argv[2],
                                   argv[3]);
        help_argv[1] = argv[2];
        argc = 3;
        argv = help_argv;
        cmd = argv[1];
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return finish_stdout("--help", EXIT_OK);
    }
    if (!strcmp(cmd, "--version")) {
        printf("cutune %s\n", CUTUNE_VERSION);
        return finish_stdout("--version", EXIT_OK);
    }
    if (!strcmp(cmd, "--man") || !strcmp(cmd, "--completion")) {
        if (argc != (cmd[2] == 'm' ? 2 : 3))
            return cli_usage_error(cmd + 2, cmd[2] == 'm' ? "--man takes no argument"
                                                          : "which shell? bash or zsh");
        return finish_stdout(cmd, cli_docs(cmd[2] == 'm' ? "man" : argv[2], usage, stdout));
    }
#define COMMAND_ENTRY(name) {#name, cmd_##name},
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {CLI_COMMANDS(COMMAND_ENTRY)};
#undef COMMAND_ENTRY
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmd, cmds[i].name))
            return finish_stdout(cmd, cmds[i].fn(argc - 1, argv + 1));
    fprintf(stderr, "cutune: unknown command '%s'\n\n%s", cmd, usage);
    return EXIT_USAGE;
}

int cli_fail(const char *cmd, const CutuneError *err)
{
    /* a message may quote a database's strings: its lines are made safe for a terminal */
    const char *msg = err->msg[0] ? err->msg : cutune_strerror(err->code);
    fprintf(stderr, "cutune %s: ", cmd);
    for (const char *p = msg; p;) {
        const char *nl = strchr(p, '\n');
        char line[sizeof err->msg];
        snprintf(line, sizeof line, "%.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
        cutune_text_write(stderr, line, 0);
        fputc('\n', stderr);
        p = nl && nl[1] ? nl + 1 : NULL;
    }
    switch (err->code) {
    case CUTUNE_ERR_NO_DEVICE: return EXIT_NO_DEVICE;
    case CUTUNE_ERR_NOT_FOUND: return EXIT_NOT_FOUND;
    case CUTUNE_ERR_INTERRUPTED: return EXIT_INTERRUPTED;
    default: return EXIT_FAILURE_;
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

int cli_refuse_db_output(const char *cmd, const char *output, const char *db_path)
{
    /* the database's journal files hold committed data too */
    char wal[4200], shm[4200], journal[4200];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    snprintf(shm, sizeof shm, "%s-shm", db_path);
    snprintf(journal, sizeof journal, "%s-journal", db_path);
    const char *inputs[] = {db_path, wal, shm, journal};
    CutuneError err = {0};
    if (cutune_outfile_refuse_input(output, inputs, 4, &err) == 0)
        return 0;
    fprintf(stderr, "cutune %s: %s\n", cmd, err.msg);
    return EXIT_USAGE;
}

int cli_refuse_db_folder(const char *cmd, const char *db_path)
{
    size_t n = strlen(db_path), bare = n;
    while (bare > 0 && db_path[bare - 1] == '/')
        bare--;
    struct stat st;
    if (stat(db_path, &st) == 0 && S_ISDIR(st.st_mode)) /* a file in it, then */
        return cli_usage_error(cmd,
                               "the database %s is a folder; pass the path of a database file, "
                               "e.g. %.*s/cutune.db",
                               db_path, (int)bare, db_path);
    if (bare == n)
        return 0;
    return cli_usage_error(cmd,
                           "the database %s ends in '/', which names a folder; pass the path "
                           "of a database file, e.g. %.*s",
                           db_path, (int)bare, db_path);
}
