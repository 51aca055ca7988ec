#!/usr/bin/env bash
# tests/bench/soak.sh BUILD ROOMS RATE: `make soak` (not in CI, about 15 minutes).
#
# One carcd (storage on, room-ttl 5 s, in a temporary data directory, with the malloc setting of
# deploy/carcd.service), then:
#   1. a warm-up of 10 rooms played to the end, and 75 s without clients: the server has
#      started its thread pool, its storage has its first pages, the per-address entries of the
#      warm-up (kept a minute after an address's last create) are gone and memtrim has given
#      freed memory back. Its RSS then is the baseline; the cold RSS (before any client) is
#      printed beside it.
#   2. the soak: ROOMS rooms of 6 clients at RATE moves per second in all (1000 and 150: a move
#      per room every ~6.7 s, a game lasts about 10 minutes), a line of RSS, descriptors and
#      windowed p50/p99 every 30 s; then every client leaves, and after 90 s (room-ttl, address
#      entries, a settle trim) the server's RSS must be within 20% of the baseline
#      (carc-load --rss-limit 1.2).
# Exits nonzero when a game fails, the RSS limit is passed or carcd does not stop cleanly.
set -euo pipefail
build=${1:-build}
rooms=${2:-1000}
rate=${3:-150}
tmp=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

mkfifo "$tmp/out"
# As deploy/carcd.service runs it (server/README.md "Memory").
GLIBC_TUNABLES=glibc.malloc.tcache_count=1 "$build/carcd" --port 0 --data-dir "$tmp/data" --room-ttl 5 >"$tmp/out" 2>"$tmp/carcd.log" &
pid=$!
exec 3<"$tmp/out"
read -r line <&3 || { cat "$tmp/carcd.log" >&2; exit 1; }
url=${line#carcd listening on http://}
url="ws://${url%/}/ws"
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; }
cold=$(rss)
echo "== soak: carcd $pid at $url, cold RSS $cold KiB"

echo "== warm-up: 10 rooms"
"$build/carc-load" --url "$url" --pid "$pid" --rooms 10 --rate 400 --seconds 120 | grep -E "^games_finished"
sleep 75
echo "== warm RSS $(rss) KiB (the baseline below), cold $cold KiB"

echo "== soak: $rooms rooms x 6 at $rate moves/s"
status=0
"$build/carc-load" --url "$url" --pid "$pid" --rooms "$rooms" --rate "$rate" --seconds 900 \
    --report 30 --settle 90 --rss-limit 1.2 || status=$?
echo "== after: RSS $(rss) KiB = $(awk -v a="$(rss)" -v c="$cold" 'BEGIN {printf "%.2f", a / c}')x the cold RSS"

kill -TERM "$pid"
wait "$pid" || { echo "carcd did not stop cleanly" >&2; status=1; }
pid=
exit "$status"
