#!/usr/bin/env bash
# tests/make/check_help.sh: `make help` names every target, and no target has two rules.
# Part of `make test`. Fails when
#   1. a .PHONY target has no line in `make help` (no `## text` on its rule line), or a line
#      of `make help` names no target;
#   2. a target that CI, the READMEs or the docs call is gone (REQUIRED below);
#   3. a target has more than one rule line in Makefile and mk/*.mk (a second rule that only
#      adds prerequisites is legal make, but hides half of what the target does).
# Prints what it checked.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

REQUIRED="all libs tools tests server clients deps run install uninstall demo tiles clean help
test test-asan test-valgrind test-cluster test-faults integration e2e oracle screenshots check-layers format
format-check bench bench-load bench-relay bench-cluster bench-bots soak fuzz fuzz-build"

fail=0
bad() { echo "check_help: FAIL: $*" >&2; fail=1; }
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory "$@"; }

helped=$(mk help | awk '$1 == "make" { print $2 }' | sort)
phony=$({ mk -pRrq : 2>/dev/null || true; } | sed -n 's/^\.PHONY: //p' | tr ' ' '\n' | grep . | sort -u)
[ -n "$helped" ] || bad "make help lists nothing"
[ -n "$phony" ] || bad "no .PHONY target found"

for t in $phony; do
    grep -qx -- "$t" <<<"$helped" || bad "make help does not list the .PHONY target $t"
done
for t in $helped; do
    grep -qx -- "$t" <<<"$phony" || bad "make help lists $t, which is no .PHONY target"
done
for t in $REQUIRED; do
    grep -qx -- "$t" <<<"$helped" || bad "target $t is gone (CI or the docs call it)"
done
echo "check_help: checked make help's $(wc -l <<<"$helped") targets against the" \
     "$(wc -l <<<"$phony") .PHONY ones and the $(wc -w <<<"$REQUIRED") that CI and the docs call"

# Rule lines "a b: ..." (not variable assignments, target-specific ones included), per target.
dups=$(awk '
    /^[A-Za-z0-9_.$()\/%-]+( [A-Za-z0-9_.$()\/%-]+)*:/ {
        head = $0; sub(/:.*/, "", head); rest = substr($0, length(head) + 2)
        if (rest ~ /^[:!?+]?=/ || rest ~ /^ *[A-Za-z_][A-Za-z0-9_]* *[:!?+]?=/) next
        n = split(head, names, " ")
        for (i = 1; i <= n; i++) if (names[i] !~ /^\.(PHONY|SECONDARY)$/) print names[i]
    }' Makefile mk/*.mk | sort | uniq -d)
[ -z "$dups" ] || bad "targets with more than one rule line: $(echo $dups)"
echo "check_help: no target has two rule lines in Makefile and mk/*.mk"

if [ "$fail" -ne 0 ]; then
    echo "check_help: failed" >&2
    exit 1
fi
echo "check_help: ok"
