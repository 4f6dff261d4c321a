#!/usr/bin/env bash
# The man page and the shell completions (cutune --man, --completion; cli/docs.c), checked
# against the option tables in the command's sources, and `cutune help <command>`.
# Usage: test_docs.sh PATH_TO_CUTUNE SOURCE_ROOT
set -u
exe=$1 src=$2
. "$(dirname "$0")/lib.sh"

"$exe" --man >"$tmp/cutune.1" || bad "cutune --man exited $?"
"$exe" --completion bash >"$tmp/cutune.bash" || bad "cutune --completion bash exited $?"
"$exe" --completion zsh >"$tmp/_cutune" || bad "cutune --completion zsh exited $?"
expect 2 "which shell? bash or zsh" -- "$exe" --completion fish

# every command of CLI_COMMANDS, and every option of its table (read here from the source,
# not from cutune), in the command's section of the man page and in the completions
commands=$(sed -n '/#define CLI_COMMANDS(X)/,/^$/p' "$src/cli/cli.h" | grep -o 'X([a-z]*)' |
    sed 's/X(\(.*\))/\1/')
[ "$(echo "$commands" | wc -w)" -ge 12 ] || bad "read the commands from cli.h: $commands"
for c in $commands; do
    section=$(sed -n "/^\.SS cutune $c\$/,/^\.SS /p" "$tmp/cutune.1")
    [ -n "$section" ] || bad "the man page has no section for $c"
    opts=$(grep -o "CLI_[A-Z0-9_]*(\('.', \)\?\"[a-z0-9-]*\"" "$src/cli/cmd_$c.c" |
        sed 's/.*"\(.*\)"/\1/')
    for o in $opts; do
        echo "$section" | grep -qF -- "\\fB\\-\\-${o//-/\\-}\\fR" ||
            bad "the man page's $c section lacks --$o"
        grep -qE -- "^    $c\)\$" "$tmp/cutune.bash" || bad "no bash case for $c"
        sed -n "/^    $c)\$/,/;;/p" "$tmp/cutune.bash" | grep -qE -- "[\" ]--$o[\" ]" ||
            bad "the bash completion of $c lacks --$o"
        sed -n "/^    $c)\$/,/;;\$/p" "$tmp/_cutune" | grep -qF -- "'*--$o[" ||
            bad "the zsh completion of $c lacks --$o"
    done
    grep -qE "^        '$c:" "$tmp/_cutune" || bad "zsh does not offer the command $c"
done
# the page is well-formed roff: groff warns of nothing
if command -v groff >/dev/null; then
    warn=$(groff -man -Tutf8 -ww -z "$tmp/cutune.1" 2>&1)
    [ -z "$warn" ] || bad "groff warns about the man page: $warn"
fi

# bash offers the commands, the options of one, and the values of --dtype
complete_words() { # complete_words WORD... : what bash's completion offers for the last one
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _cutune;
             echo "${COMPREPLY[*]}"' _ "$tmp/cutune.bash" "$@"
}
got=$(complete_words cutune re)
[ "$got" = "replay report" ] || bad "bash completes 're' to '$got', not 'replay report'"
got=$(complete_words cutune "")
for c in $commands help; do
    [[ " $got " == *" $c "* ]] || bad "bash does not offer $c: $got"
done
got=$(complete_words cutune run --dt)
[ "$got" = "--dtype" ] || bad "bash completes 'run --dt' to '$got'"
got=$(complete_words cutune run --dtype b)
[ "$got" = "bf16" ] || bad "bash completes 'run --dtype b' to '$got'"
got=$(complete_words cutune help rep)
[ "$got" = "replay report" ] || bad "bash completes 'help rep' to '$got'"

# `cutune help run` is run's help, not the top-level usage
"$exe" help >"$tmp/top" 2>&1
"$exe" help run >"$tmp/help-run" 2>&1 || bad "cutune help run exited $?"
"$exe" run --help >"$tmp/run-help" 2>&1
cmp -s "$tmp/help-run" "$tmp/run-help" || bad "cutune help run differs from cutune run --help"
cmp -s "$tmp/help-run" "$tmp/top" && bad "cutune help run prints the top-level usage"
expect 2 "unknown command 'frobnicate'" -- "$exe" help frobnicate

# an unknown option, or one without its value, is said once
for args in "run --frobnicate" "show -z" "run matmul --budget"; do
    "$exe" $args >"$tmp/out" 2>&1
    rc=$?
    n=$(grep -ciE "unknown option|unrecognized|invalid option|needs a value|requires an argument" "$tmp/out")
    [ "$rc" = 2 ] && [ "$n" = 1 ] || { bad "'cutune $args': exit $rc, said $n times"; cat "$tmp/out"; }
done
expect 2 "unknown option '--frobnicate'" -- "$exe" run --frobnicate
expect 2 "unknown option '-z'" -- "$exe" show -z
expect 2 "option '--budget' needs a value" -- "$exe" run matmul --budget
exit $fail
