#!/usr/bin/env bash
# tests/pg.sh CMD [ARGS...]: run CMD beside a PostgreSQL of its own, then stop it.
#
# The server (Debian's postgresql package, /usr/lib/postgresql/*/bin) is created with initdb in
# a temporary directory, listens only on a Unix socket there (no TCP port to collide with), and
# runs as `nobody` when this runs as root (initdb refuses root). CMD gets the connection string
# in CARC_PG_URL (database "postgres", superuser "carcd", trust auth on that socket only).
# Exits with CMD's status; the server and its directory are gone afterwards.
set -euo pipefail
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
[ -x "$PGBIN/initdb" ] || { echo "tests/pg.sh: no initdb (apt-get install postgresql; deploy/deps.sh)" >&2; exit 1; }
dir=$(mktemp -d /tmp/carcd-pg-XXXXXX)
as=()
if [ "$(id -u)" = 0 ]; then
    chown nobody "$dir"
    as=(runuser -u nobody --)
fi
cleanup() {
    "${as[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT
"${as[@]}" "$PGBIN/initdb" -D "$dir/data" -U carcd --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
"${as[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses='' -k $dir -p 5432 -c max_connections=50" start >/dev/null ||
    { cat "$dir/server.log" >&2; exit 1; }
export CARC_PG_URL="host=$dir port=5432 dbname=postgres user=carcd"
set +e
"$@"
rc=$?
exit $rc
