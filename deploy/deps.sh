#!/usr/bin/env bash
# deploy/deps.sh [--run] [--list] [EXTRA_PACKAGE...]: make sure the Debian packages carcd needs
# are installed.
#
# Two lists. RUN: what building and serving carcd need (the compiler, make, pkg-config, the -dev
# packages of the libraries carcd links, the libuv glue libwebsockets loads at run time). TEST:
# what the tests add (the test framework, the real servers and tools they start, the browser,
# the fuzzers' compiler). The test servers are TEST only: carcd links libpq and hiredis (RUN:
# libpq-dev, libhiredis-dev) but a first run stores games in SQLite and needs no PostgreSQL or
# Redis server. tests/deps/check_run_list.sh (part of `make test`) keeps test components out of
# RUN and checks that each RUN package is needed.
#   deploy/deps.sh               both lists (make deps, make test and the other test targets)
#   deploy/deps.sh --run         the run list only (make run)
#   deploy/deps.sh --list [--run]   print the packages, one a line, and install nothing
# Extra arguments are checked too (e.g. `deploy/deps.sh clang-format`).
#
# Silent and quick when everything is there. Otherwise, as root: one `apt-get update`, then one
# `apt-get install` of exactly the missing packages. Not root: names them, prints the command to
# run, exits 1.
set -euo pipefail

run_packages=(
    gcc libc6-dev make pkg-config       # toolchain (common/tiles_data.c is committed: no python3)
    libjansson-dev                      # protocol/
    libuv1-dev libwebsockets-dev libsqlite3-dev zlib1g-dev   # server/
    libwebsockets-evlib-uv              # loaded by libwebsockets at run time (not linked)
    libpq-dev                           # server/store/postgres.c (storage = postgres), linked
    libhiredis-dev                      # server/cluster/redis.c: leases and the room directory
    libsodium-dev                       # server/players/: Argon2id password hashes, tokens
    libssl-dev                          # server/notify/: Web Push encryption and VAPID (libcrypto)
    libcurl4-openssl-dev                # server/notify/outbound.c: outbound HTTPS off the loop
    tzdata                              # server/util/tz.c: clocks' time zones (zoneinfo-dir)
)

test_packages=(
    check valgrind                      # tests/*.c (the Check runner), make test-valgrind
    python3                             # tests/oracle.sh, tests/integration/, tests/cluster/, make tiles
    redis-server                        # tests/test_cluster.c, test-cluster: a real Redis
    haproxy                             # test-cluster, bench-cluster, test_deploy.py: in front of the nodes
    postgresql                          # tests/pg.sh, tests/integration/pg_util.py: a real PostgreSQL
    python3-websocket python3-jsonschema python3-jsonpatch   # tests/integration/ (/usr/bin/python3)
    python3-cryptography                # tests/push_service.py: a local Web Push service
    python3-aiosmtpd                    # tests/smtp_sink.py: a local SMTP relay for e-mail
    nginx openssl                       # tests/integration/test_proxy.py, test_deploy.py: TLS proxy
    prometheus                          # tests/integration/test_metrics.py: a real scraper, promtool
    chromium nodejs                     # tests/e2e/: headless browser, node + npm for playwright-core
    clang libclang-rt-14-dev            # make fuzz: libFuzzer, ASan and UBSan runtimes (tests/fuzz/)
    systemd strace python3-yaml         # tests/integration/test_deploy.py: deploy/
    clang-format                        # make format, make format-check
)
# Debian 12's nodejs has no npm (its own package, `npm`); NodeSource's nodejs bundles npm and
# conflicts with that package. So ask for the package only when no npm command is there.
command -v npm >/dev/null 2>&1 || test_packages+=(npm)

only_run=0 list=0 extra=()
for a in "$@"; do
    case "$a" in
        --run) only_run=1 ;;
        --list) list=1 ;;
        -*) echo "deps.sh: unknown option $a (usage: deploy/deps.sh [--run] [--list] [PACKAGE...])" >&2
            exit 2 ;;
        *) extra+=("$a") ;;
    esac
done
packages=("${run_packages[@]}")
[ "$only_run" -eq 1 ] || packages+=("${test_packages[@]}")
packages+=(${extra[@]+"${extra[@]}"})

if [ "$list" -eq 1 ]; then
    printf '%s\n' "${packages[@]}"
    exit 0
fi

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
