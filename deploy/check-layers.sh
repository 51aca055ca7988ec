#!/usr/bin/env bash
# deploy/check-layers.sh: enforce the include rules of README.md "Layout" (`make check-layers`).
#
#   common/    #include <...> only of standard C headers (list below; no time.h: no clock),
#              #include "..." only of files in common/, no computed #include.
#   jansson    included only under protocol/.
#   uv.h, sqlite3.h   included only under server/;
#              uv.h also by tests/, whose server tests drive a real loop.
#   libwebsockets.h   included only by files under server/net/ (the network adapter:
#              everything else in server/ is plain C it calls).
#   libpq-fe.h included only under server/store/ (the PostgreSQL backend).
#   hiredis    included only under server/cluster/ (the Redis client, cluster/redis.c).
#   server/cluster/ (Redis: leases, the room directory; below the rooms) includes none of the
#              game, network and storage layers: the rooms' side of it is server/roomnode.c.
#   server/store/ (storage, below the rooms) includes none of the game and network layers
#              (room.h, roomdb.h, lobby.h, session.h, turn.h, bots.h, api.h, net/..., admin/...);
#              metrics/metrics.h, log.h, loopstat.h and sbuf.h are allowed: plain leaves that
#              include only standard headers (and uv.h) and call nothing back. And no call
#              into rooms or the lobby: `grep "room_\|lobby_"` over server/store/ finds nothing.
#
# Scans tracked and untracked (not ignored) .c/.h files, skipping build/ and node_modules/.
# Prints file:line: reason for each violation and exits 1 if there was any.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# stdatomic.h: the bots' search (common/bot.h) is stopped by a flag another thread sets.
COMMON_STD=" assert.h ctype.h errno.h float.h inttypes.h limits.h math.h stdalign.h stdarg.h \
stdatomic.h stdbool.h stddef.h stdint.h stdio.h stdlib.h string.h "

list_files() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z --cached --others --exclude-standard
    else
        find . -type f -print0 | sed -z 's|^\./||'
    fi
}

files=()
while IFS= read -r -d '' f; do
    case "$f" in
        build/* | */build/* | node_modules/* | */node_modules/*) continue ;;
        *.c | *.h) ;;
        *) continue ;;
    esac
    [ -f "$f" ] || continue # tracked but deleted in the work tree
    files+=("$f")
done < <(list_files | sort -zu)

errors=0
fail() { # file line message
    echo "$1:$2: $3" >&2
    errors=$((errors + 1))
}

inc_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*(.*)$'
name_re='^([<"])([^>"]*)[>"]'

if [ ${#files[@]} -gt 0 ]; then
    while IFS= read -r hit; do
        file=${hit%%:*}
        rest=${hit#*:}
        line=${rest%%:*}
        text=${rest#*:}
        [[ $text =~ $inc_re ]] || continue
        arg=${BASH_REMATCH[1]}
        area=${file%%/*}
        if ! [[ $arg =~ $name_re ]]; then
            [ "$area" = common ] && fail "$file" "$line" "computed #include not allowed in common/: $arg"
            continue
        fi
        delim=${BASH_REMATCH[1]}
        name=${BASH_REMATCH[2]}

        if [ "$area" = common ]; then
            if [ "$delim" = "<" ]; then
                case "$COMMON_STD" in
                    *" $name "*) ;;
                    *) fail "$file" "$line" "common/ may include only standard C headers, not <$name>" ;;
                esac
            else
                # Resolved as the compiler would: beside the file, then via -Icommon.
                found=
                for cand in "$(dirname "$file")/$name" "common/$name"; do
                    if [ -f "$cand" ]; then
                        found=$(realpath -m --relative-to=. "$cand")
                        break
                    fi
                done
                case "$found" in
                    common/*) ;;
                    "") fail "$file" "$line" "common/ may include only files in common/: \"$name\" not found there" ;;
                    *) fail "$file" "$line" "common/ may include only files in common/, not \"$name\" ($found)" ;;
                esac
            fi
        fi

        base=${name##*/}
        case "$name" in
            *jansson*)
                [ "$area" = protocol ] ||
                    fail "$file" "$line" "only protocol/ may include jansson: $name" ;;
        esac
        case "$base" in
            uv.h)
                [ "$area" = server ] || [ "$area" = tests ] ||
                    fail "$file" "$line" "only server/ and tests/ may include $name" ;;
            sqlite3.h | sqlite3ext.h)
                [ "$area" = server ] ||
                    fail "$file" "$line" "only server/ may include $name" ;;
        esac
        case "$base" in
            libpq-fe.h | libpq-int.h)
                case "$file" in server/store/*) ;;
                    *) fail "$file" "$line" "only server/store/ may include $name" ;;
                esac ;;
        esac
        case "$file" in server/store/*)
            case "$name" in
                room.h | roomdb.h | lobby.h | session.h | turn.h | bots.h | api.h | net/* | \
                    webroot.h | admin/* | proxy/* | ../*)
                    fail "$file" "$line" "server/store/ lies below the rooms and may not include \"$name\"" ;;
            esac ;;
        esac
        case "$file" in server/cluster/*)
            case "$name" in
                room.h | roomdb.h | roomnode.h | lobby.h | session.h | turn.h | bots.h | api.h | \
                    net/* | webroot.h | admin/* | proxy/* | store/* | ../*)
                    fail "$file" "$line" "server/cluster/ lies below the rooms and storage and may not include \"$name\"" ;;
            esac ;;
        esac
        case "$name" in hiredis/* | hiredis.h)
            case "$file" in server/cluster/*) ;;
                *) fail "$file" "$line" "only server/cluster/ may include $name" ;;
            esac ;;
        esac
        case "$name" in uv/*)
            [ "$area" = server ] || fail "$file" "$line" "only server/ may include $name" ;;
        esac
        case "$name" in
            libwebsockets.h | */libwebsockets.h | libwebsockets/*)
                case "$file" in server/net/*) ;;
                    *) fail "$file" "$line" "only server/net/ (the network adapter) may include $name" ;;
                esac ;;
        esac
    done < <(grep -HnE '^[[:space:]]*#[[:space:]]*include' "${files[@]}" || true)
fi

# The store never calls the rooms or the lobby (not even in a comment naming one).
while IFS= read -r hit; do
    fail "${hit%%:*}" "$(echo "$hit" | cut -d: -f2)" "server/store/ names a room or lobby function: ${hit#*:*:}"
done < <(printf '%s\n' "${files[@]}" | grep '^server/store/' | xargs -r grep -Hn 'room_\|lobby_' || true)

if [ "$errors" -gt 0 ]; then
    echo "check-layers: $errors violation(s) of the layer rules (README.md "Layout")" >&2
    exit 1
fi
echo "check-layers: ok (${#files[@]} files)"
