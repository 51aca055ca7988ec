#!/usr/bin/env bash
# tests/oracle.sh BUILD: the engine's scores against an independent implementation of the rules
# (tests/gen/score_oracle.py, written from RULES.md alone). Part of `make test`.
#
# The oracle's self-test (RULES.md section 7 and section 6 cases), the two real BGA games, then
# random games from carc-sim in every rule configuration (the variants of RULES.md 2.8 included): after every move and at the end,
# carc-replay's scores must equal the oracle's. GAMES games per configuration (default 20).
set -euo pipefail
build=${1:-build}
py=${PYTHON:-/usr/bin/python3}
games=${GAMES:-20}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
oracle="$here/gen/score_oracle.py"
bga=$here/data/games   # the real BGA games, wrapped with their expected scores
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$py" "$oracle" --selftest >"$tmp/selftest.log" || { cat "$tmp/selftest.log"; exit 1; }

# sets | extra carc-sim options | player counts
configs=(
    "base||2 3 4 5"
    "base|--no-farmers|2 4"
    "base,inns-cathedrals||2 3 4 5 6"
    "besiegers|--escapes|2 3 5"
    "besiegers,inns-cathedrals|--escapes|3 6"
    "cathars|--escapes|2 4"
    "siege|--escapes --escape any-tile|2 4"
    "apothecaries-tithes||2 3 5"
    "apothecaries-tithes|--no-farmers|2 4"
    "all|--escapes|2 4 6"
    "all|--escapes --escape any-tile|3 5"
    "all|--escapes --no-farmers|2 6"
    "base|--farms second|2 3 4"
    "base|--farms first|2 3 5"
    "base|--small-city 2|2 4"
    "all|--escapes --farms second|2 5"
    "all|--escapes --farms first --small-city 2|3 6"
)
n=0
for c in "${configs[@]}"; do
    IFS='|' read -r sets extra players <<<"$c"
    for p in $players; do
        for ((s = 1; s <= games; s++)); do
            n=$((n + 1))
            # shellcheck disable=SC2086 # extra holds several options
            "$build/carc-sim" --games 1 --seed $((s * 7919 + p)) --players "$p" --sets "$sets" \
                $extra --record "$tmp/g$n.json" >/dev/null
        done
    done
done
"$py" "$oracle" --compare --replay "$build/carc-replay" "$bga"/bga-*.json \
    "$tmp"/g*.json >"$tmp/compare.log" || { grep -v '^AGREE' "$tmp/compare.log"; exit 1; }
agree=$(grep -c '^AGREE' "$tmp/compare.log")
echo "oracle: self-test ok; $agree games agree with carc-replay after every move ($n random, 2 BGA)"
[ "$agree" -eq $((n + 2)) ] || { grep -v '^AGREE' "$tmp/compare.log"; exit 1; }
