/* cutune: tune CUDA kernels, store the results, look them up. */
#include "cli.h"
#include "outfile.h"
#include "utf8.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
        fputs(cli_usage, stderr);
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
        fputs(cli_usage, stdout);
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
        return finish_stdout(cmd, cli_docs(cmd[2] == 'm' ? "man" : argv[2], cli_usage, stdout));
    }
    for (size_t i = 0; i < cli_ncommands; i++)
        if (!strcmp(cmd, cli_commands[i].name))
            return finish_stdout(cmd, cli_commands[i].fn(argc - 1, argv + 1));
    fprintf(stderr, "cutune: unknown command '%s'\n\n%s", cmd, cli_usage);
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
