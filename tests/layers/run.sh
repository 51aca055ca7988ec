#!/usr/bin/env bash
# tests/layers/run.sh: test deploy/check-layers.sh (the layer and size rules) on a copy.
#
# Copies the tree (tracked and untracked-not-ignored files, as they are in the work tree, so
# uncommitted work counts) into a temporary folder, checks that check-layers passes there on
# the include rules (CHECK_LAYERS_SIZES=0), then plants one violation at a time in a fresh copy
# and expects the check to fail with a new line naming the planted file: an upward include, a
# same-floor include, an include circle, a 5th file directly under server/, an unknown folder,
# library rules, a call upward (two tiny objects and nm), a 101-line function and an 801-line
# file (those two with sizes on, against the tree's own size findings). The real tree is never
# written. Prints "N passed, N failed"; exits 1 on any surprise.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/carc-layers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The tree as it is, deleted files left out (every file but build/ when it is not in git).
list_tree() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z --cached --others --exclude-standard
    else
        find . \( -name .git -o -name build -o -name node_modules \) -prune -o -type f -print0 |
            sed -z 's|^\./||'
    fi
}
list_tree |
    while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | (mkdir "$tmp/base" && tar -xf - -C "$tmp/base") || exit 1

passed=0
failed=0
ok() {
    echo "ok   $1"
    passed=$((passed + 1))
}
bad() { # name, why, output file
    echo "FAIL $1: $2"
    [ -n "${3:-}" ] && sed 's/^/    | /' "$3"
    failed=$((failed + 1))
}

# run DIR OUT [args...]: check-layers of the copy DIR, all its output in OUT; returns its status.
run() {
    local dir=$1 out=$2
    shift 2
    "$dir/deploy/check-layers.sh" "$@" >"$out" 2>&1
}

# fresh NAME: a new copy of the tree in $tmp/NAME, its path in $case_dir.
fresh() {
    case_dir=$tmp/$1
    cp -a "$tmp/base" "$case_dir"
}

# expect_new NAME BASELINE OUT FILE TEXT [STATUS]: the check failed (its status STATUS,
# default nonzero) and printed a line not in BASELINE that begins with FILE: and contains TEXT.
expect_new() {
    local name=$1 baseline=$2 out=$3 file=$4 text=$5 status=$6 new
    if [ "$status" -eq 0 ]; then
        bad "$name" "check-layers passed" "$out"
        return
    fi
    new=$(grep -vxF -f "$baseline" "$out" | grep -F -e "$text" |
        awk -v f="$file:" 'index($0, f) == 1' || true)
    if [ -z "$new" ]; then
        bad "$name" "no new line naming $file with \"$text\"" "$out"
    else
        ok "$name: $(head -n 1 <<<"$new")"
    fi
}

# plant NAME FILE TEXT SIZES APPEND...: copy, append lines APPEND to FILE, run, expect_new.
plant() {
    local name=$1 file=$2 text=$3 sizes=$4 status=0
    shift 4
    fresh "$name"
    mkdir -p "$(dirname "$case_dir/$file")"
    printf '%s\n' "$@" >>"$case_dir/$file"
    CHECK_LAYERS_SIZES=$sizes run "$case_dir" "$tmp/$name.out" || status=$?
    if [ "$sizes" = 0 ]; then
        expect_new "$name" "$tmp/base0.out" "$tmp/$name.out" "$file" "$text" "$status"
    else
        expect_new "$name" "$tmp/base1.out" "$tmp/$name.out" "$file" "$text" "$status"
    fi
}

# body N: a function named long_N whose body is N lines.
body() {
    echo "int long_$1(int x);"
    echo "int long_$1(int x)"
    echo "{"
    for ((i = 1; i < $1; i++)); do echo "    x += $i;"; done
    echo "    return x;"
    echo "}"
}

# Baselines: the include rules pass on the tree; sizes are what they are (other work).
if CHECK_LAYERS_SIZES=0 run "$tmp/base" "$tmp/base0.out"; then
    ok "baseline: the tree passes the include rules ($(tail -n 1 "$tmp/base0.out"))"
else
    bad "baseline" "check-layers (CHECK_LAYERS_SIZES=0) fails on the tree itself" "$tmp/base0.out"
fi
run "$tmp/base" "$tmp/base1.out" || true
if grep -q 'call check skipped' "$tmp/base0.out"; then
    ok "no build directory: the call check says it is skipped"
else
    bad "no build directory" "no 'call check skipped' line" "$tmp/base0.out"
fi

plant upward server/util/log.c 'util/ is below game/' 0 '#include "game/room.h"'
plant upward-relative server/store/store.c 'store/ is below game/' 0 '#include "../game/lobby.h"'
plant same-floor server/conn/sbuf.c 'conn/ and metrics/ share a floor' 0 \
    '#include "metrics/metrics.h"'
plant circle server/util/log.c 'include circle between folders: util -> conn' 0 \
    '#include "conn/sbuf.h"'

# A 5th .c/.h file directly under server/ (as many as it takes to make 5).
fresh main-files
n=$(find "$case_dir/server" -maxdepth 1 -type f -name '*.[ch]' | wc -l)
for ((k = n + 1; k <= 5; k++)); do echo "/* planted */" >"$case_dir/server/zz_main_$k.c"; done
status=0
CHECK_LAYERS_SIZES=0 run "$case_dir" "$tmp/main-files.out" || status=$?
expect_new main-files "$tmp/base0.out" "$tmp/main-files.out" server/zz_main_5.c \
    'source files directly under server/ (max 4)' "$status"

plant unresolved server/store/store.c 'is not a file of the tree' 0 '#include "zz_nowhere.h"'
plant unknown-folder server/zz_new/x.c 'is not a layer of server/' 0 '/* planted */'
plant websockets-outside-net server/http/api.c 'only server/net/' 0 '#include <libwebsockets.h>'
plant hiredis-outside-cluster server/store/store.c 'only server/cluster/' 0 \
    '#include <hiredis/hiredis.h>'
plant jansson-in-common common/game.c 'only protocol/ may include jansson' 0 '#include <jansson.h>'
plant common-not-std common/game.c 'common/ may include only standard C headers' 0 \
    '#include <time.h>'
plant store-names-room server/store/store.c 'names a room or lobby function' 0 \
    '/* room_close() */'

# Calls: util/zz_call.c calls a function of game/ (up: fails) and game/zz_callee.c one of
# util/ (down: fine); two tiny objects in the copy's build directory, read by nm.
if command -v "${CC:-cc}" >/dev/null; then
    fresh calls
    mkdir -p "$case_dir/build/obj/server/util" "$case_dir/build/obj/server/game"
    printf '%s\n' 'void zz_game_fn(void);' 'void zz_util_fn(void);' \
        'void zz_util_fn(void) { zz_game_fn(); }' >"$case_dir/server/util/zz_call.c"
    printf '%s\n' 'void zz_util_fn(void);' 'void zz_game_fn(void);' \
        'void zz_game_fn(void) { zz_util_fn(); }' >"$case_dir/server/game/zz_callee.c"
    "${CC:-cc}" -c "$case_dir/server/util/zz_call.c" -o "$case_dir/build/obj/server/util/zz_call.o"
    "${CC:-cc}" -c "$case_dir/server/game/zz_callee.c" \
        -o "$case_dir/build/obj/server/game/zz_callee.o"
    status=0
    (cd "$case_dir" && CHECK_LAYERS_SIZES=0 deploy/check-layers.sh build >"$tmp/calls.out" 2>&1) ||
        status=$?
    expect_new calls-up "$tmp/base0.out" "$tmp/calls.out" server/util/zz_call.c \
        'calls zz_game_fn defined in server/game/zz_callee.c' "$status"
    if grep -q 'zz_callee.c: calls' "$tmp/calls.out"; then
        bad calls-down "a call down (game -> util) was reported" "$tmp/calls.out"
    elif ! grep -q 'calls checked: .* 2 object' "$tmp/calls.out"; then
        bad calls-down "no 'calls checked' line for the 2 objects" "$tmp/calls.out"
    else
        ok "calls-down: game -> util is fine ($(grep 'calls checked' "$tmp/calls.out"))"
    fi
else
    echo "skip calls: no C compiler"
fi

# Sizes (on), against the tree's own size findings: 101 lines fails, 100 does not.
mapfile -t long101 < <(body 101)
plant function-101 server/util/log.c 'function long_101 is 101 lines (max 100)' 1 "${long101[@]}"
fresh function-100
body 100 >>"$case_dir/server/util/log.c"
run "$case_dir" "$tmp/function-100.out" || true
if grep -q 'long_100' "$tmp/function-100.out"; then
    bad function-100 "a 100-line function was reported" "$tmp/function-100.out"
else
    ok "function-100: a 100-line function is fine"
fi
mapfile -t main101 < <(body 101 | sed 's/long_101/main/')
plant main-not-exempt server/zz_main.c 'function main is 101 lines' 1 "${main101[@]}"
fresh cli-main-exempt
body 101 | sed 's/long_101/main/' >>"$case_dir/protocol/tools/carc_zz.c"
run "$case_dir" "$tmp/cli-main-exempt.out" || true
if grep -q 'carc_zz.c' "$tmp/cli-main-exempt.out"; then
    bad cli-main-exempt "main of a CLI tool was reported" "$tmp/cli-main-exempt.out"
else
    ok "cli-main-exempt: main of protocol/tools/carc_*.c may be long"
fi
mapfile -t lines801 < <(for ((i = 1; i <= 801; i++)); do echo "/* $i */"; done)
plant file-801 common/zz_big.h 'file is 801 lines (max 800)' 1 "${lines801[@]}"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
