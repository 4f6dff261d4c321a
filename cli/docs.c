/* cutune --man and cutune --completion bash|zsh: the man page and the shell completions,
 * made from what `--help` prints (the usage text, each command's help) and from the option
 * table each command parses with (cli_parse_options in describe mode), so that neither can
 * fall behind the command line. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct Command {
    const char *name;
    CliDescription d;
} Command;

/* Every command's table: each is called with no arguments while cli_describe is on, and
 * returns at its cli_parse_options. A command that did not reach it is a bug in cutune. */
static int describe_all(Command *cmds)
{
    for (size_t i = 0; i < cli_ncommands; i++) {
        const CliCommand *c = &cli_commands[i];
        char name[32];
        snprintf(name, sizeof name, "%s", c->name);
        char *argv[] = {name, NULL};
        cmds[i].name = c->name;
        memset(&cmds[i].d, 0, sizeof cmds[i].d);
        cli_describe(&cmds[i].d);
        int rc = c->fn(1, argv);
        cli_describe(NULL);
        if (rc != EXIT_OK || !cmds[i].d.seen) {
            fprintf(stderr, "cutune: the command %s gave no option table (a bug in cutune)\n",
                    c->name);
            return EXIT_FAILURE_;
        }
    }
    return EXIT_OK;
}

/* The value an option takes, as the man page names it; NULL for a flag. */
static const char *value_name(const CliOption *o)
{
    if (o->kind == CLI_KIND_FLAG)
        return NULL;
    if (o->fn == cli_dtype)
        return "TYPE";
    if (o->fn == cli_layout)
        return "LAYOUT";
    if (o->fn == cli_epilogue)
        return "EPILOGUE";
    switch (o->kind) {
    case CLI_KIND_INT:
    case CLI_KIND_SIZE:
    case CLI_KIND_UINT64: return "N";
    case CLI_KIND_REAL: return "X";
    default: return "VALUE";
    }
}

/* The words a shell may offer for an option's value; NULL: files. */
static const char *value_words(const CliOption *o)
{
    if (o->fn == cli_dtype)
        return "fp32 tf32 fp16 bf16";
    if (o->fn == cli_layout)
        return "nn nt";
    if (o->fn == cli_epilogue)
        return "none bias";
    return NULL;
}

/* The line of text of `help` (or of the usage) that starts with `key` after its indent,
 * past the key's own words: the description a completion shows. Copied into buf (empty if
 * there is none), up to the end of the line. */
static void description(const char *help, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);
    buf[0] = '\0';
    for (const char *p = help; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *q = p;
        while (*q == ' ')
            q++;
        if (q == p || strncmp(q, key, kl) != 0 || (q[kl] != ' ' && q[kl] != '\n'))
            continue;
        const char *gap = strstr(q + kl, "  "), *nl = strchr(q, '\n');
        if (!gap || (nl && gap > nl))
            return;
        while (*gap == ' ')
            gap++;
        size_t n = nl ? (size_t)(nl - gap) : strlen(gap);
        snprintf(buf, len, "%.*s", (int)n, gap);
        return;
    }
}

/* Text for roff: backslashes and hyphens escaped; at a line's start (bol), a character that
 * would begin a request is guarded. Returns whether s ended a line. */
static int roff_text(FILE *f, const char *s, int bol)
{
    for (; *s; s++) {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
        bol = *s == '\n';
    }
    return bol;
}

/* Lines of text for roff, the last one ended. */
static void roff(FILE *f, const char *s)
{
    if (!roff_text(f, s, 1))
        fputc('\n', f);
}

static void man(FILE *f, const char *usage, const Command *cmds)
{
    fprintf(f,
            ".TH CUTUNE 1 \"\" \"cutune %s\" \"User Commands\"\n"
            ".SH NAME\ncutune \\- tune CUDA kernels, store the results, look them up\n"
            ".SH SYNOPSIS\n.B cutune\n.I command\n[options]\n.br\n.B cutune help\n"
            ".I command\n.SH DESCRIPTION\n.nf\n",
            CUTUNE_VERSION);
    roff(f, usage);
    fputs(".fi\n.SH COMMANDS\n", f);
    for (size_t i = 0; i < cli_ncommands; i++) {
        const CliDescription *d = &cmds[i].d;
        fprintf(f, ".SS cutune %s\n.nf\n", cmds[i].name);
        roff(f, d->help);
        fputs(".fi\n.PP\nOptions:\n", f);
        for (int k = 0; k < d->n; k++) {
            const CliOption *o = &d->opts[k];
            const char *v = value_name(o);
            fputs(".TP\n", f);
            if (o->short_name)
                fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
            fputs("\\fB\\-\\-", f);
            roff_text(f, o->name, 0);
            fputs("\\fR", f);
            if (v)
                fprintf(f, " \\fI%s\\fR", v);
            fputc('\n', f);
            char text[512], key[96];
            snprintf(key, sizeof key, "--%s", o->name);
            description(d->help, key, text, sizeof text);
            roff(f, text[0] ? text : "(not described in the help above)");
        }
        fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nthis command's help\n", f);
    }
    fputs(".SH SEE ALSO\nREADME.md of cutune, and `cutune <command> \\-\\-help`.\n", f);
}

static void bash(FILE *f, const Command *cmds)
{
    fputs("# bash completion for cutune (made by `cutune --completion bash`)\n"
          "_cutune() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local commands=\"",
          f);
    for (size_t i = 0; i < cli_ncommands; i++)
        fprintf(f, "%s ", cmds[i].name);
    fputs("help\"\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"$commands --help --version --man --completion\" "
          "-- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    local opts= words=\n"
          "    case ${COMP_WORDS[1]} in\n"
          "    help) [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"$commands\" -- "
          "\"$cur\")); return ;;\n",
          f);
    for (size_t i = 0; i < cli_ncommands; i++) {
        const CliDescription *d = &cmds[i].d;
        fprintf(f, "    %s)\n        opts=\"--help", cmds[i].name);
        for (int k = 0; k < d->n; k++)
            fprintf(f, " --%s", d->opts[k].name);
        fputs("\"\n        case $prev in\n", f);
        for (int k = 0; k < d->n; k++)
            if (value_words(&d->opts[k]))
                fprintf(f, "        --%s) words=\"%s\" ;;\n", d->opts[k].name,
                        value_words(&d->opts[k]));
        fputs("        esac ;;\n", f);
    }
    fputs("    esac\n"
          "    if [ -n \"$words\" ]; then\n"
          "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
          "    elif [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -o default -F _cutune cutune\n",
          f);
}

/* Text inside a zsh single-quoted _arguments spec: no quote, bracket or colon. */
static void zsh_text(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(strchr("'[]:\\", *s) ? ' ' : *s, f);
}

static void zsh(FILE *f, const char *usage, const Command *cmds)
{
    fputs("#compdef cutune\n# zsh completion for cutune (made by `cutune --completion zsh`)\n"
          "_cutune() {\n    local -a commands\n    commands=(\n",
          f);
    char text[512];
    for (size_t i = 0; i < cli_ncommands; i++) {
        description(usage, cmds[i].name, text, sizeof text);
        fprintf(f, "        '%s:", cmds[i].name);
        zsh_text(f, text);
        fputs("'\n", f);
    }
    fputs("        'help:the usage of a command'\n    )\n"
          "    if (( CURRENT == 2 )); then\n"
          "        _describe -t commands 'cutune command' commands\n        return\n    fi\n"
          "    case $words[2] in\n"
          "    help) (( CURRENT == 3 )) && _describe -t commands 'cutune command' commands ;;\n",
          f);
    for (size_t i = 0; i < cli_ncommands; i++) {
        const CliDescription *d = &cmds[i].d;
        fprintf(f, "    %s)\n        _arguments \\\n", cmds[i].name);
        for (int k = 0; k < d->n; k++) {
            const CliOption *o = &d->opts[k];
            char key[96];
            snprintf(key, sizeof key, "--%s", o->name);
            description(d->help, key, text, sizeof text);
            fprintf(f, "            '*--%s[", o->name);
            zsh_text(f, text);
            fputc(']', f);
            /* the value: its words, a file for text, nothing to offer for a number */
            if (value_words(o))
                fprintf(f, ":%s:(%s)", value_name(o), value_words(o));
            else if (value_name(o))
                fprintf(f, ":%s:%s", value_name(o),
                        o->kind == CLI_KIND_TEXT || o->kind == CLI_KIND_CALL ? "_files" : " ");
            fputs("' \\\n", f);
        }
        fputs("            '(- *)--help[this command'\"'\"'s help]' \\\n"
              "            '*:argument:_files' ;;\n",
              f);
    }
    fputs("    esac\n}\n_cutune \"$@\"\n", f);
}

int cli_docs(const char *what, const char *usage, FILE *f)
{
    if (!what || (strcmp(what, "man") && strcmp(what, "bash") && strcmp(what, "zsh")))
        return cli_usage_error("--completion", "which shell? bash or zsh, not '%s'",
                               what ? what : "");
    Command *cmds = calloc(cli_ncommands, sizeof *cmds);
    if (!cmds)
        return EXIT_FAILURE_;
    int rc = describe_all(cmds);
    if (rc == EXIT_OK) {
        if (!strcmp(what, "man"))
            man(f, usage, cmds);
        else if (!strcmp(what, "bash"))
            bash(f, cmds);
        else
            zsh(f, usage, cmds);
    }
    free(cmds);
    return rc;
}
