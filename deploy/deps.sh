#!/usr/bin/env bash
# deploy/deps.sh [EXTRA_PACKAGE...]: make sure the Debian packages carcd needs are installed.
#
# Silent and quick when everything is there. Otherwise, as root: one `apt-get update`, then one
# `apt-get install` of exactly the missing packages. Not root: names them, prints the command to
# run, exits 1. Extra arguments are checked too (e.g. `deploy/deps.sh clang-format`).
set -euo pipefail

packages=(
    gcc make pkg-config python3         # toolchain; python3 runs common/gen/tiles.py
    check valgrind                      # tests
    libjansson-dev                      # protocol/
    libuv1-dev libwebsockets-dev libwebsockets-evlib-uv libsqlite3-dev zlib1g-dev   # server/
    libpq-dev                           # server/store/postgres.c (storage = postgres)
    libhiredis-dev                      # server/cluster/redis.c: leases and the room directory
    redis-server                        # tests/test_cluster.c, test-cluster: a real Redis
    haproxy                             # test-cluster, bench-cluster: in front of the nodes
    postgresql                          # tests/pg.sh, tests/integration/pg_util.py: a real PostgreSQL
    python3-websocket python3-jsonschema python3-jsonpatch   # tests/integration/ (/usr/bin/python3)
    nginx openssl                       # tests/integration/test_proxy.py: TLS reverse proxy in front of carcd
    prometheus                          # tests/integration/test_metrics.py: a real scraper, promtool
    chromium nodejs                     # tests/e2e/: headless browser, node + npm for playwright-core
    clang libclang-rt-14-dev            # make fuzz: libFuzzer, ASan and UBSan runtimes (tests/fuzz/)
    nginx haproxy prometheus systemd strace openssl python3-yaml   # tests/integration/test_deploy.py: deploy/
    "$@"
)
# Debian 12's nodejs has no npm (its own package, `npm`); NodeSource's nodejs bundles npm and
# conflicts with that package. So ask for the package only when no npm command is there.
command -v npm >/dev/null 2>&1 || packages+=(npm)

if ! command -v dpkg >/dev/null 2>&1; then
    echo "deps.sh: no dpkg here (not Debian?); make sure these or their equivalents are" \
         "installed: ${packages[*]}" >&2
    exit 0
fi

# dpkg -s also succeeds for removed packages whose config files remain: read the status. Not
# through `dpkg -s | grep -q`: grep stops at the match, dpkg dies of SIGPIPE on a long entry
# (prometheus), and pipefail took that for a missing package.
installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing Debian packages: ${missing[*]}" >&2
    echo "deps.sh: install them with:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi

echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-o DPkg::Lock::Timeout=300 -q)
apt-get "${apt_opts[@]}" update
apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" </dev/null

still=()
for p in "${missing[@]}"; do
    installed "$p" || still+=("$p")
done
if [ ${#still[@]} -ne 0 ]; then
    echo "deps.sh: still missing after apt-get install: ${still[*]}" >&2
    exit 1
fi
