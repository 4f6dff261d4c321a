# Shared by the shell tests, sourced after `set -u`: a scratch folder $tmp removed at exit,
# $fail (the exit status to end with), bad to report a failure and expect to check a
# command's exit code and output.
fail=0
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

expect() { # expect CODE PHRASE -- command...   (CODE "nz": any non-zero)
    local want=$1 phrase=$2
    shift 3
    "$@" >"$tmp/out" 2>&1
    local got=$?
    if [ "$want" = nz ] && [ "$got" = 0 ] || [ "$want" != nz ] && [ "$got" != "$want" ]; then
        bad "'$*' exited $got, expected $want"; cat "$tmp/out"
    elif ! grep -qF -- "$phrase" "$tmp/out"; then
        bad "'$*' did not print '$phrase'"; cat "$tmp/out"
    fi
}
