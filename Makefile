# carcd build. GNU make. Everything goes out of tree under $(BUILD) (default build/).
# `make help` lists the targets. Sources are found by wildcard: a new .c file needs no edit here.
#
#   common/*.c          -> $(BUILD)/libcarc.a       pure engine, libc only
#   protocol/*.c        -> $(BUILD)/libcarcproto.a  JSON codec (jansson)
#   protocol/tools/carc_NAME.c -> $(BUILD)/carc-NAME   one tool per file; any other .c file in
#                          protocol/tools/ is a helper linked into every tool
#   tests/*.c           -> $(BUILD)/carc-tests      Check runner, run from the repo root
#   server/*.c          -> $(BUILD)/carcd (and $(BUILD)/libcarcd.a, the core the tests link)

BUILD  ?= build
# The project's rules reference: the tile table is generated from it, the tests re-read it.
RULES  ?= docs/rules.md

CC      ?= cc
AR      ?= ar
PYTHON  ?= python3
PKG_CONFIG ?= pkg-config
CLANG_FORMAT ?= clang-format

# OPT and SAN are the knobs the sanitizer build turns; CFLAGS/LDFLAGS from the command line or
# the environment are appended, so `make CFLAGS=-DFOO` keeps the project's warnings.
OPT  ?= -O2 -g
SAN  ?=
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CARC_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L $(OPT) $(SAN) $(WARN) -MMD -MP \
              -Icommon -Iprotocol $(CFLAGS)
CARC_LDFLAGS = $(SAN) $(LDFLAGS)

# pkg-config is asked only when a recipe needs it (recursive =), so `make deps`, `make clean`
# and `make check-layers` work before the libraries are installed.
JANSSON_CFLAGS = $(shell $(PKG_CONFIG) --cflags jansson)
JANSSON_LIBS   = $(shell $(PKG_CONFIG) --libs jansson)
CHECK_CFLAGS   = $(shell $(PKG_CONFIG) --cflags check)
CHECK_LIBS     = $(shell $(PKG_CONFIG) --libs check)

# ---------------------------------------------------------------------------------------------
# Sources and products

COMMON_SRC := $(wildcard common/*.c)
PROTO_SRC  := $(wildcard protocol/*.c)
TOOL_MAINS := $(wildcard protocol/tools/carc_*.c)
TOOL_HELP  := $(filter-out $(TOOL_MAINS),$(wildcard protocol/tools/*.c))
TEST_SRC   := $(wildcard tests/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

COMMON_OBJ := $(call obj,$(COMMON_SRC))
PROTO_OBJ  := $(call obj,$(PROTO_SRC))
TOOL_HOBJ  := $(call obj,$(TOOL_HELP))
TEST_OBJ   := $(call obj,$(TEST_SRC))

LIBCARC  := $(BUILD)/libcarc.a
LIBPROTO := $(BUILD)/libcarcproto.a
# protocol/tools/carc_replay.c -> $(BUILD)/carc-replay
TOOLS    := $(foreach t,$(TOOL_MAINS),$(BUILD)/$(subst _,-,$(basename $(notdir $(t)))))
TESTBIN  := $(if $(TEST_SRC),$(BUILD)/carc-tests)

# ---------------------------------------------------------------------------------------------
# Server (libuv, libwebsockets): server/*.c -> $(BUILD)/carcd.
#   server/main.c is the process and server/net/*.c the network adapter (the only files that
#   include libwebsockets.h; net/net_rx.c defines recv(2), which must be in the executable for
#   the dynamic linker to bind lws's calls to it, not in an archive); every other server/*.c is
#   the transport-free core (lobby, rooms, sessions, HTTP routes, config), archived as
#   $(BUILD)/libcarcd.a and linked into both carcd and the test runner (tests/test_room.c and
#   test_session.c drive the lobby without sockets).
SERVER_SRC      := $(wildcard server/*.c server/*/*.c)
SERVER_PROC_SRC := $(filter server/main.c server/net/net%.c,$(SERVER_SRC))
SERVER_CORE_SRC := $(filter-out $(SERVER_PROC_SRC),$(SERVER_SRC))
SERVER_PROC_OBJ := $(call obj,$(SERVER_PROC_SRC))
SERVER_CORE_OBJ := $(call obj,$(SERVER_CORE_SRC))
LIBSERVER := $(if $(SERVER_CORE_SRC),$(BUILD)/libcarcd.a)
CARCD     := $(if $(SERVER_PROC_SRC),$(BUILD)/carcd)
SERVER_CFLAGS = $(shell $(PKG_CONFIG) --cflags libuv libwebsockets sqlite3 zlib libpq hiredis)
SERVER_LIBS   = $(shell $(PKG_CONFIG) --libs libuv libwebsockets sqlite3 zlib libpq hiredis)
# The test runner links libcarcd.a, whose storage (server/store.c) needs these.
CORE_LIBS     = $(shell $(PKG_CONFIG) --libs libuv sqlite3 zlib libpq hiredis)
# `make run RUN_ARGS="--port 0 --data-dir /tmp/carcd"` passes flags to carcd; `make run PORT=8081`
# is short for RUN_ARGS="--port 8081".
RUN_ARGS ?=
PORT ?=

# ---------------------------------------------------------------------------------------------
# Top-level targets

.DEFAULT_GOAL := all
.PHONY: all libs tools tests server deps test test-asan test-valgrind bench run demo tiles \
        check-layers format format-check clean help

all: libs tools tests server clients
libs: $(LIBCARC) $(LIBPROTO)
tools: $(TOOLS)
tests: $(TESTBIN)
server: $(CARCD)

help:
	@echo "make [all]          build libs, tools, carcd and the test runner into $(BUILD)/"
	@echo "make deps           install missing Debian packages (deploy/deps.sh)"
	@echo "make test           deps, build, run $(BUILD)/carc-tests, then make oracle, integration and e2e"
	@echo "make oracle         engine scores against an independent scorer (tests/gen/score_oracle.py)"
	@echo "make integration    carcd + real WebSocket clients (tests/integration/run.py)"
	@echo "make e2e            the browser client in headless Chromium (tests/e2e/, playwright-core)"
	@echo "make test-cluster   Redis, PostgreSQL, HAProxy and 3 carcd nodes: lobby, games, failover (tests/cluster/)"
	@echo "make screenshots    PNGs of the client at 1366x850 and 390x844 into $(BUILD)/screenshots/"
	@echo "make test-asan      same with ASan+UBSan, built in build/asan/"
	@echo "make test-valgrind  run the test runner under valgrind (CK_FORK=no)"
	@echo "make check-layers   check that includes point down only (README.md \"Layout\")"
	@echo "make bench          engine benchmarks pinned to CPU 0, then the server load benches"
	@echo "make bench-load     carc-load: $(LOAD_ROOMS) rooms x 6 clients against a bare relay and a fresh carcd,"
	@echo "                    then $(CLUSTER_ROOMS) rooms against 1, 2 and 3 nodes behind HAProxy (bench-cluster alone)"
	@echo "make bench-relay    only the relay baseline: carcd's CPU per move against a bare Node ws relay's"
	@echo "make bench-bots     the built-in bots against each other: win rates, time per move"
	@echo "make soak           $(SOAK_ROOMS) rooms x 6 at a human pace for ~10 min: RSS, p99, fds over time"
	@echo "make run            deps, build, start carcd on http://127.0.0.1:8080/ (PORT=..., RUN_ARGS=...)"
	@echo "make install        carcd, the web client, the systemd unit and /etc/carcd/carcd.conf (PREFIX=/usr/local, DESTDIR=)"
	@echo "make demo           play and replay one demo game with the tools"
	@echo "make tiles          regenerate common/tiles_data.c from $(RULES)"
	@echo "make format | format-check   clang-format the C sources / check them"
	@echo "make clean          remove $(BUILD)/"

deps:
	@deploy/deps.sh

# The build runs after deps in a sub-make, so a fresh machine gets its packages first even
# under -j. CARC_BUILD tells the tests where the tools they run live.
test: deps
	@$(MAKE) --no-print-directory all
	@test -n "$(TESTBIN)" || { echo "make test: no tests/*.c to build" >&2; exit 1; }
	CARC_BUILD=$(BUILD) tests/pg.sh $(BUILD)/carc-tests   # with the store_pg suites (CARC_PG_URL)
	@$(MAKE) --no-print-directory oracle
	@$(MAKE) --no-print-directory integration
	@$(MAKE) --no-print-directory e2e

# The engine's scores after every move against tests/gen/score_oracle.py, an independent
# implementation of RULES.md's scoring (random games in every configuration, the BGA games).
.PHONY: oracle
oracle: all
	PYTHON=$(INTEGRATION_PYTHON) tests/oracle.sh $(BUILD)

ASAN_BUILD := build/asan
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

test-asan: deps
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) OPT="-O1 -g" SAN="$(SAN_FLAGS)" all
	@test -n "$(TESTBIN)" || { echo "make test-asan: no tests/*.c to build" >&2; exit 1; }
	CARC_BUILD=$(ASAN_BUILD) \
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	tests/pg.sh ./$(ASAN_BUILD)/carc-tests   # with the PostgreSQL suites, as make test
	CARC_BUILD=$(ASAN_BUILD) \
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(INTEGRATION_PYTHON) tests/integration/run.py
	CARC_BUILD=$(ASAN_BUILD) \
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(INTEGRATION_PYTHON) tests/cluster/run.py   # failovers under ASan: a node's error fails its case

# Not part of CI (slow); CK_FORK=no so valgrind sees the tests themselves.
test-valgrind: deps
	@$(MAKE) --no-print-directory all
	CARC_BUILD=$(BUILD) CK_FORK=no valgrind -q --error-exitcode=1 --leak-check=full \
	    --errors-for-leak-kinds=definite $(BUILD)/carc-tests

# ---------------------------------------------------------------------------------------------
# Benchmarks. Each entry of BENCH is a label; bench_LABEL is its command. To add one:
#   BENCH += server-moves
#   bench_server-moves = $(BUILD)/carc-load --moves 100000
# and add what it needs to BENCH_PREREQS. Pinned to CPU 0 when taskset can do so here.
PIN := $(shell taskset -c 0 true >/dev/null 2>&1 && echo taskset -c 0)
BENCH_PREREQS = $(BUILD)/carc-sim
BENCH = engine-base engine-all-sets
bench_engine-base = $(PIN) $(BUILD)/carc-sim --games 20000 --seed 1
bench_engine-all-sets = $(PIN) $(BUILD)/carc-sim --games 5000 --seed 1 \
    --sets base,inns-cathedrals,besiegers,cathars,apothecaries-tithes

bench: $(BENCH_PREREQS)
	@set -e; $(foreach b,$(BENCH),echo "== bench $(b): $(strip $(bench_$(b)))"; $(bench_$(b));)

# The built-in bots against each other (common/bot.h): 200 two-player games per matchup with
# every set, seats swapped half of the time, on both cores. Fails when strong wins under 70% of
# its games against greedy, or greedy under 90% against random.
BOT_GAMES ?= 200
.PHONY: bench-bots
bench-bots: $(BUILD)/carc-botbench
	$(BUILD)/carc-botbench --games $(BOT_GAMES) --jobs 2 strong:greedy:0.70 greedy:random:0.90

# Install what is missing, build, and run the server in the foreground (Ctrl-C stops it
# gracefully). It prints "carcd listening on http://ADDR:PORT/".
run: deps
	@$(MAKE) --no-print-directory all
	exec $(BUILD)/carcd $(if $(PORT),--port $(PORT)) $(RUN_ARGS)

# make install [PREFIX=/usr/local] [DESTDIR=]: carcd and what the systemd unit expects
# (deploy/README.md "Install"). Paths below are PREFIX's; the config and the data directory
# are always /etc/carcd and /var/lib/carcd, which the unit names.
#   $(PREFIX)/bin/carcd                     the server
#   $(PREFIX)/share/carcd/web/              the browser client (web-root)
#   $(PREFIX)/share/carcd/carcd.conf.example, $(PREFIX)/share/doc/carcd/README.md (the runbook)
#   $(PREFIX)/lib/systemd/system/carcd.service   deploy/carcd.service with /usr/local -> PREFIX
#   /etc/carcd/carcd.conf                   the example with web-root and data-dir set, only
#                                           when there is none: an upgrade keeps the host's
# `make uninstall` removes all of it but /etc/carcd and the data.
PREFIX  ?= /usr/local
DESTDIR ?=
CARCD_SHARE := $(PREFIX)/share/carcd
CARCD_UNITDIR ?= $(PREFIX)/lib/systemd/system
CARCD_ETC := /etc/carcd
.PHONY: install uninstall
install: $(BUILD)/carcd
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(CARCD_SHARE)/web $(DESTDIR)$(CARCD_UNITDIR) \
	    $(DESTDIR)$(PREFIX)/share/doc/carcd $(DESTDIR)$(CARCD_ETC)
	install -m 0755 $(BUILD)/carcd $(DESTDIR)$(PREFIX)/bin/carcd
	rm -rf $(DESTDIR)$(CARCD_SHARE)/web.new
	cp -R clients/web $(DESTDIR)$(CARCD_SHARE)/web.new
	rm -f $(DESTDIR)$(CARCD_SHARE)/web.new/README.md
	rm -rf $(DESTDIR)$(CARCD_SHARE)/web && mv $(DESTDIR)$(CARCD_SHARE)/web.new $(DESTDIR)$(CARCD_SHARE)/web
	install -m 0644 deploy/carcd.conf.example $(DESTDIR)$(CARCD_SHARE)/carcd.conf.example
	install -m 0644 deploy/README.md $(DESTDIR)$(PREFIX)/share/doc/carcd/README.md
	sed 's|/usr/local|$(PREFIX)|g' deploy/carcd.service > $(DESTDIR)$(CARCD_UNITDIR)/carcd.service
	chmod 0644 $(DESTDIR)$(CARCD_UNITDIR)/carcd.service
	test -e $(DESTDIR)$(CARCD_ETC)/carcd.conf || sed \
	    -e 's|^web-root *=[^#]*|web-root = $(CARCD_SHARE)/web   |' \
	    -e 's|^data-dir *=[^#]*|data-dir = /var/lib/carcd   |' \
	    deploy/carcd.conf.example > $(DESTDIR)$(CARCD_ETC)/carcd.conf

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/carcd $(DESTDIR)$(CARCD_UNITDIR)/carcd.service
	rm -rf $(DESTDIR)$(CARCD_SHARE) $(DESTDIR)$(PREFIX)/share/doc/carcd

# Play one game with the tools, replay it, show the final line.
demo: $(BUILD)/carc-sim $(BUILD)/carc-replay
	$(BUILD)/carc-sim --games 1 --seed 42 --record $(BUILD)/demo.json
	$(BUILD)/carc-replay $(BUILD)/demo.json > $(BUILD)/demo.jsonl
	@tail -n 1 $(BUILD)/demo.jsonl
	@echo "Game record: $(BUILD)/demo.json. Replay it move by move with: $(BUILD)/carc-replay $(BUILD)/demo.json"

# Regenerate the committed tile table; a failed run leaves the old file in place.
tiles:
	$(PYTHON) common/gen/tiles.py $(RULES) > common/tiles_data.c.tmp \
	    || { rm -f common/tiles_data.c.tmp; exit 1; }
	mv common/tiles_data.c.tmp common/tiles_data.c

check-layers:
	@deploy/check-layers.sh

# Generated code (common/tiles_data.c) is left as the generator writes it.
FORMAT_FILES = $(filter-out common/tiles_data.c,$(sort $(wildcard \
    common/*.[ch] protocol/*.[ch] protocol/tools/*.[ch] server/*.[ch] server/*/*.[ch] tests/*.[ch] \
    tests/fuzz/*.[ch] clients/bot/*.[ch])))

format:
	@deploy/deps.sh clang-format
	$(CLANG_FORMAT) -i $(FORMAT_FILES)

format-check:
	@deploy/deps.sh clang-format
	$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_FILES)

clean:
	rm -rf $(BUILD)

# ---------------------------------------------------------------------------------------------
# Rules

# Per-directory compile flags. common/ gets no third-party include paths at all.
XCFLAGS =
$(BUILD)/obj/protocol/%.o: XCFLAGS = $(JANSSON_CFLAGS)
$(BUILD)/obj/tests/%.o: XCFLAGS = $(JANSSON_CFLAGS) $(CHECK_CFLAGS) -Iserver
$(BUILD)/obj/server/%.o: XCFLAGS = $(SERVER_CFLAGS) -Iserver

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CARC_CFLAGS) $(XCFLAGS) -c $< -o $@

# Archives are rebuilt from scratch so objects of deleted sources do not linger.
$(LIBCARC): $(COMMON_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(LIBPROTO): $(PROTO_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(LIBSERVER): $(SERVER_CORE_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# libwebsockets loads its libuv glue (libwebsockets-evlib-uv) at run time: link dynamically.
$(BUILD)/carcd: $(SERVER_PROC_OBJ) $(LIBSERVER) $(LIBPROTO) $(LIBCARC)
	$(CC) $(CARC_LDFLAGS) $(SERVER_PROC_OBJ) $(LIBSERVER) $(LIBPROTO) $(LIBCARC) $(SERVER_LIBS) \
	    $(JANSSON_LIBS) -lm -o $@

# One link rule per tool: protocol/tools/carc_NAME.c -> $(BUILD)/carc-NAME.
define tool_rule
$(BUILD)/$(subst _,-,$(basename $(notdir $(1)))): $(call obj,$(1)) $$(TOOL_HOBJ) $$(LIBPROTO) $$(LIBCARC)
	$$(CC) $$(CARC_LDFLAGS) $$< $$(TOOL_HOBJ) $$(LIBPROTO) $$(LIBCARC) $$(JANSSON_LIBS) -lm -o $$@
endef
$(foreach t,$(TOOL_MAINS),$(eval $(call tool_rule,$(t))))

# Tests that run the tools expect them built beside the runner.
$(BUILD)/carc-tests: $(TEST_OBJ) $(LIBSERVER) $(LIBPROTO) $(LIBCARC) | $(TOOLS)
	$(CC) $(CARC_LDFLAGS) $(TEST_OBJ) $(LIBSERVER) $(LIBPROTO) $(LIBCARC) $(JANSSON_LIBS) \
	    $(CHECK_LIBS) $(CORE_LIBS) -lm -o $@

-include $(patsubst %.o,%.d,$(COMMON_OBJ) $(PROTO_OBJ) $(TOOL_HOBJ) $(TEST_OBJ) \
    $(call obj,$(TOOL_MAINS)) $(SERVER_CORE_OBJ) $(SERVER_PROC_OBJ))

# ---------------------------------------------------------------------------------------------
# Clients and the integration suite (clients/bot/, tests/integration/)
#   clients/bot/carc_NAME.c -> $(BUILD)/carc-NAME (carc-bot, carc-load); any other .c file in
#                          clients/bot/ (the RFC 6455 client, shared bot code) is linked into each.
#                          They use protocol/client.h and link jansson only through libcarcproto.
#   make integration       carcd on an ephemeral loopback port, real WebSocket clients, complete
#                          games, errors and abuse (tests/integration/run.py); part of `make test`.
#   make bench-load        carc-load against a freshly started carcd: N rooms x 6 clients, after
#                          the same load against a bare Node relay (tests/bench/) for a baseline.

BOT_MAINS := $(wildcard clients/bot/carc_*.c)
BOT_HELP  := $(filter-out $(BOT_MAINS),$(wildcard clients/bot/*.c))
BOT_HOBJ  := $(call obj,$(BOT_HELP))
BOTS      := $(foreach t,$(BOT_MAINS),$(BUILD)/$(subst _,-,$(basename $(notdir $(t)))))
# The system interpreter, which has the Debian packages of deploy/deps.sh (websocket, jsonschema,
# jsonpatch), whatever python3 comes first on PATH.
INTEGRATION_PYTHON ?= /usr/bin/python3
LOAD_ROOMS ?= 100

.PHONY: clients integration bench-load
clients: $(BOTS)

define bot_rule
$(BUILD)/$(subst _,-,$(basename $(notdir $(1)))): $(call obj,$(1)) $$(BOT_HOBJ) $$(LIBPROTO) $$(LIBCARC)
	$$(CC) $$(CARC_LDFLAGS) $$< $$(BOT_HOBJ) $$(LIBPROTO) $$(LIBCARC) $$(JANSSON_LIBS) -lm -o $$@
endef
$(foreach t,$(BOT_MAINS),$(eval $(call bot_rule,$(t))))

integration: all
	CARC_BUILD=$(BUILD) $(INTEGRATION_PYTHON) tests/integration/run.py

# make test-cluster (CI runs it after make test; under a minute): tests/cluster/run.py starts,
# on loopback in a scratch directory, Debian's redis-server (no persistence), a PostgreSQL of its
# own (tests/integration/pg_util.py), 3 carcd nodes sharing both (--lease-ttl 3000) and HAProxy
# with deploy/haproxy-cluster.cfg made for their ports, then checks the issue's "Done when": the
# global lobby, games through HAProxy equal to carc-replay, SIGKILL / SIGSTOP+SIGCONT / SIGTERM
# of a node owning running games (failover within 10 s, every player resumed with its token, no
# acknowledged move lost, the stale node refused). On a failure every log is kept in
# $(BUILD)/cluster-logs/. `tests/cluster/run.py sigkill` runs one case.
.PHONY: test-cluster
# Its browser case (tests/e2e/cluster.mjs) needs playwright-core, installed as for make e2e.
test-cluster: deps
	@$(MAKE) --no-print-directory all $(if $(wildcard tests/e2e/cluster.mjs),\
	    tests/e2e/node_modules/.package-lock.json)
	CARC_BUILD=$(BUILD) $(INTEGRATION_PYTHON) tests/cluster/run.py

# First the bare-relay baseline (issue 14, tests/bench/README.md): tests/bench/relay.mjs, a plain
# Node `ws` relay with no game logic and no storage that replays one game recorded from carcd
# (the same messages, byte for byte), and carcd with storage off, loaded alternately by the same
# carc-load with the same LOAD_ROOMS, RELAY_RUNS times each; it prints both servers' CPU per move
# (relay_us_per_move, carcd_us_per_move: medians) and their ratio (ratio_carcd_to_relay: the
# median of the runs' ratios; the issue's target is at most 0.50). Its one npm dependency, ws,
# is pinned in tests/bench/package-lock.json and installed by `npm ci` into
# tests/bench/node_modules/ (ignored by git), as for make e2e. `make bench-relay` runs it alone.
# Then four runs: as fast as the server answers with every move stored (durable throughput), the
# same with storage off (memory only), and paced at 1,000 moves/s (where latency
# is measured), with each commit fsynced (the default) and without (storage-fsync = off); each
# prints the server's RSS per room at the start and halfway, and both processes' CPU. Then the
# durable and the paced run again with storage = postgres (server-load-postgres,
# server-load-paced-postgres), each beside a PostgreSQL of its own (tests/pg.sh).
# LOAD_SECONDS bounds each run. Last, IDLE_CONNS idle connections held at once (the machine
# lets a process open 20,000 files): the server's RSS per idle connection.
LOAD_SECONDS ?= 30
IDLE_CONNS ?= 19900
RELAY_RUNS ?= 3
BENCH_DIR := tests/bench
BENCH_NPM_STAMP := $(BENCH_DIR)/node_modules/.package-lock.json
LOAD_RUNS := server-relay-baseline server-load server-load-memory server-load-paced \
    server-load-paced-nofsync server-load-postgres server-load-paced-postgres server-idle
BENCH += $(LOAD_RUNS)
bench_server-relay-baseline = $(NODE) $(BENCH_DIR)/relay_vs_carcd.mjs --build $(BUILD) \
    --rooms $(LOAD_ROOMS) --seconds $(LOAD_SECONDS) --runs $(RELAY_RUNS)
bench_server-load = $(BUILD)/carc-load --carcd $(BUILD)/carcd --rooms $(LOAD_ROOMS) \
    --seconds $(LOAD_SECONDS)
bench_server-load-memory = $(bench_server-load) --carcd-arg --storage --carcd-arg off
bench_server-load-paced = $(bench_server-load) --rate 1000
bench_server-load-paced-nofsync = $(bench_server-load-paced) --carcd-arg --storage-fsync \
    --carcd-arg off
# The same durable runs with storage = postgres, against a PostgreSQL that tests/pg.sh starts
# for the run (fsync and synchronous_commit on, as a host would run it; a Unix socket).
bench_pg = tests/pg.sh sh -c '$(1) --carcd-arg --storage --carcd-arg postgres \
    --carcd-arg --postgres-url --carcd-arg "$$CARC_PG_URL"'
bench_server-load-postgres = $(call bench_pg,$(bench_server-load))
bench_server-load-paced-postgres = $(call bench_pg,$(bench_server-load-paced))
bench_server-idle = $(BUILD)/carc-load --carcd $(BUILD)/carcd --idle $(IDLE_CONNS)
# Last, the cluster (issue 17, tests/bench/cluster_load.py): CLUSTER_ROOMS rooms x 6 clients
# through HAProxy against 1, 2 and 3 nodes sharing one Redis and one PostgreSQL (each a
# cluster of its own, tests/cluster/cluster.py), moves/s for each and the CPU per move of the
# nodes, HAProxy, Redis and PostgreSQL, Redis commands and PostgreSQL transactions per move.
# Everything shares this machine's cores with the load itself (tests/bench/README.md).
CLUSTER_ROOMS ?= 300
CLUSTER_NODES ?= 1,2,3
LOAD_RUNS += server-load-cluster
bench_server-load-cluster = deploy/deps.sh && $(INTEGRATION_PYTHON) tests/bench/cluster_load.py \
    --build $(BUILD) --rooms $(CLUSTER_ROOMS) --seconds $(LOAD_SECONDS) --nodes $(CLUSTER_NODES)
bench: $(BUILD)/carc-load $(BUILD)/carcd $(BENCH_NPM_STAMP)
bench-load: $(BUILD)/carc-load $(BUILD)/carcd $(BENCH_NPM_STAMP)
	@set -e; $(foreach b,$(LOAD_RUNS),echo "== bench $(b): $(strip $(bench_$(b)))"; $(bench_$(b));)

.PHONY: bench-cluster
bench-cluster: $(BUILD)/carc-load $(BUILD)/carcd
	$(bench_server-load-cluster)

.PHONY: bench-relay
bench-relay: $(BUILD)/carc-load $(BUILD)/carcd $(BENCH_NPM_STAMP)
	$(bench_server-relay-baseline)

$(BENCH_NPM_STAMP): $(BENCH_DIR)/package.json $(BENCH_DIR)/package-lock.json
	cd $(BENCH_DIR) && $(NPM) ci --no-audit --no-fund --ignore-scripts

# make soak (not in CI, ~15 minutes): tests/bench/soak.sh. A warm-up of 10 rooms sets the RSS
# baseline; then SOAK_ROOMS rooms of 6 clients at SOAK_RATE moves per second in all (a move per
# room every ~6.7 s: a base + inns-cathedrals game of 89 moves lasts about 10 minutes), a line of
# server RSS, descriptors and p50/p99 every 30 s; then every client leaves, and 90 s later the
# server's RSS must be within 20% of the baseline.
SOAK_ROOMS ?= 1000
SOAK_RATE  ?= 150
.PHONY: soak
soak: $(BUILD)/carc-load $(BUILD)/carcd
	tests/bench/soak.sh $(BUILD) $(SOAK_ROOMS) $(SOAK_RATE)

-include $(patsubst %.o,%.d,$(BOT_HOBJ) $(call obj,$(BOT_MAINS)))

# ---------------------------------------------------------------------------------------------
# Browser client end-to-end tests (clients/web/, tests/e2e/)
#   make e2e               headless Chromium (Debian's chromium, deploy/deps.sh) driven by
#                          playwright-core, pinned in tests/e2e/package-lock.json and installed by
#                          `npm ci` into tests/e2e/node_modules/ (ignored by git; no browser
#                          download). Plays a whole game through the UI against a fresh carcd;
#                          screenshots in $(BUILD)/artifacts/. Part of `make test`, after integration.
E2E_DIR := tests/e2e
NPM     ?= npm
NODE    ?= node

.PHONY: e2e
$(E2E_DIR)/node_modules/.package-lock.json: $(E2E_DIR)/package.json $(E2E_DIR)/package-lock.json
	cd $(E2E_DIR) && $(NPM) ci --no-audit --no-fund --ignore-scripts

e2e: all $(E2E_DIR)/node_modules/.package-lock.json
	@deploy/deps.sh
	CARC_BUILD=$(BUILD) $(NODE) $(E2E_DIR)/run.mjs

# The lobby, a game, a scoring, the end-of-game scoring, the end screen and the replay at both
# sizes, taken while tests/e2e/sizes.mjs plays its games (so it fails when they fail).
.PHONY: screenshots
screenshots: all $(E2E_DIR)/node_modules/.package-lock.json
	@deploy/deps.sh
	CARC_BUILD=$(BUILD) $(NODE) $(E2E_DIR)/screenshots.mjs

# ---------------------------------------------------------------------------------------------
# Fuzzing (tests/fuzz/): libFuzzer harnesses, built by clang with ASan and UBSan
#   tests/fuzz/fuzz_NAME.c -> $(BUILD)/fuzz/fuzz-NAME: msg (the client-message decoder), record
#                          (the record reader, then a replay in the engine), room (the lobby and
#                          rooms driven by message scripts, no sockets). common/, protocol/ and
#                          the server core are compiled again by clang into $(BUILD)/fuzz/obj/,
#                          with -DCARC_FUZZ: carc_game_check after every move (common/check.c).
#   make fuzz              seed corpora from tests/data/ (tests/fuzz/seeds.py) into
#                          $(BUILD)/fuzz/corpus-NAME/ (kept between runs), replay the inputs that
#                          once crashed (tests/data/fuzz/NAME/), then run each harness for
#                          FUZZ_SECONDS (default 20) on one core. Fails on the first crash, which
#                          is left in $(BUILD)/fuzz/artifacts/NAME/.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 20
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS   = -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
                -DCARC_FUZZ $(WARN) -MMD -MP -Icommon -Iprotocol -Iserver
FUZZ_MAINS   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_MAINS))
FUZZ_BINS    := $(foreach n,$(FUZZ_NAMES),$(FUZZ_DIR)/fuzz-$(n))
fuzzobj       = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(1))
FUZZ_CORE_OBJ := $(call fuzzobj,$(COMMON_SRC) $(PROTO_SRC) $(SERVER_CORE_SRC))
FUZZ_CORE    := $(FUZZ_DIR)/libfuzzcore.a
FUZZ_RUN      = -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -dict=$(FUZZ_DIR)/json.dict

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)
# the harnesses' objects are kept (not intermediate files make would delete)
.SECONDARY: $(call fuzzobj,$(FUZZ_MAINS))

fuzz: fuzz-build
	@deploy/deps.sh clang libclang-rt-14-dev
	$(PYTHON) tests/fuzz/seeds.py $(FUZZ_DIR)
	@set -e; for n in $(FUZZ_NAMES); do \
	    mkdir -p $(FUZZ_DIR)/corpus-$$n $(FUZZ_DIR)/artifacts/$$n; \
	    kept=; \
	    if [ -n "$$(ls -A tests/data/fuzz/$$n 2>/dev/null)" ]; then \
	        kept=tests/data/fuzz/$$n; \
	        echo "== fuzz $$n: replay $$kept/"; \
	        $(FUZZ_DIR)/fuzz-$$n -runs=1 $$kept/* 2>$(FUZZ_DIR)/replay-$$n.log \
	            || { cat $(FUZZ_DIR)/replay-$$n.log >&2; exit 1; }; \
	    fi; \
	    echo "== fuzz $$n: $(FUZZ_SECONDS) s"; \
	    $(FUZZ_DIR)/fuzz-$$n $(FUZZ_RUN) -max_total_time=$(FUZZ_SECONDS) \
	        -artifact_prefix=$(FUZZ_DIR)/artifacts/$$n/ $(FUZZ_DIR)/corpus-$$n $$kept \
	        2>$(FUZZ_DIR)/fuzz-$$n.log || { tail -n 60 $(FUZZ_DIR)/fuzz-$$n.log >&2; exit 1; }; \
	    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)' \
	        $(FUZZ_DIR)/fuzz-$$n.log | tr '\n' ' '; echo; \
	done

$(FUZZ_DIR)/obj/protocol/%.o: FUZZ_XCFLAGS = $(JANSSON_CFLAGS)
$(FUZZ_DIR)/obj/server/%.o: FUZZ_XCFLAGS = $(SERVER_CFLAGS)
$(FUZZ_DIR)/obj/tests/%.o: FUZZ_XCFLAGS = $(JANSSON_CFLAGS) $(SERVER_CFLAGS)
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_XCFLAGS) -c $< -o $@

$(FUZZ_CORE): $(FUZZ_CORE_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/fuzz-%: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.o $(FUZZ_CORE)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $< $(FUZZ_CORE) $(JANSSON_LIBS) $(CORE_LIBS) -lm -o $@

-include $(patsubst %.o,%.d,$(FUZZ_CORE_OBJ) $(call fuzzobj,$(FUZZ_MAINS)))
