/* What `cutune` with no command, or with --help, prints (main.c, which hands it to docs.c
 * for the man page and the completions), the table of the commands (main.c runs them, docs.c
 * describes them) and the message of a bad command line, which every command, options.c and
 * docs.c print: apart from main.c, so that none of them needs it. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

const char cli_usage[] =
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
    "  CUTUNE_COMPILE_PROCS  0: compile in threads of the cutune process itself, not in a\n"
    "                      cutune-worker process per compile thread (the default)\n"
    "  CUTUNE_COMPILE_AHEAD  0: idle compile threads do not compile the warm starts of\n"
    "                      the sizes next in line ahead of need (they do by default)\n"
    "\n"
    "exit codes: 0 success, 1 failure, 2 bad usage, 3 no CUDA driver or device,\n"
    "            4 not found, 130 interrupted\n";

#define CLI_COMMAND_ENTRY(name) {#name, cmd_##name},
const CliCommand cli_commands[] = {CLI_COMMANDS(CLI_COMMAND_ENTRY)};
#undef CLI_COMMAND_ENTRY
const size_t cli_ncommands = sizeof cli_commands / sizeof cli_commands[0];

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
