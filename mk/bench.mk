# mk/bench.mk: benchmarks. `make bench` runs every entry of BENCH in order: the engine's, then
# the server's under load (LOAD_RUNS, which is also `make bench-load`; its last, `make bench-push`).
#
# Each entry of BENCH is a label; bench_LABEL is its command. To add one:
#   BENCH += server-moves
#   bench_server-moves = $(BUILD)/carc-load --moves 100000
# and add what it needs to BENCH_PREREQS. Pinned to CPU 0 when taskset can do so here.

.PHONY: bench bench-load bench-relay bench-cluster bench-push bench-bots bench-analysis soak

PIN := $(shell taskset -c 0 true >/dev/null 2>&1 && echo taskset -c 0)
BENCH = engine-base engine-all-sets
bench_engine-base = $(PIN) $(BUILD)/carc-sim --games 20000 --seed 1
bench_engine-all-sets = $(PIN) $(BUILD)/carc-sim --games 5000 --seed 1 \
    --sets base,inns-cathedrals,besiegers,cathars,apothecaries-tithes

# The server under load (clients/bot/carc_load.c, tests/bench/). make bench-load: carc-load
# against a freshly started carcd, N rooms x 6 clients, after the same load against a bare Node
# relay (tests/bench/) for a baseline.
#
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
LOAD_ROOMS ?= 100
LOAD_SECONDS ?= 30
IDLE_CONNS ?= 19900
RELAY_RUNS ?= 3
BENCH_DIR := tests/bench
BENCH_NPM_STAMP := $(BENCH_DIR)/node_modules/.package-lock.json
LOAD_RUNS := server-relay-baseline server-load server-load-memory server-load-paced \
    server-load-paced-nofsync server-load-postgres server-load-paced-postgres server-idle
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
# Last, issue 28's dead push endpoints (tests/bench/push_load.py, tests/bench/README.md): one
# carcd with storage and accounts, PUSH_RATE failing pushes a second (POST /api/push/test to
# subscriptions whose endpoints hang or refuse) during a play load of PUSH_ROOMS rooms at
# PUSH_MOVES moves a second, against the same play load alone, PUSH_RUNS times alternately; the
# loop's busy p50/p99 from carcd_loop_turn_seconds, moves/s, pushes answered, and the ratio of
# the p99s. About a minute per pair.
PUSH_RATE ?= 100
PUSH_RUNS ?= 3
PUSH_ROOMS ?= 40
PUSH_MOVES ?= 200
LOAD_RUNS += server-push
bench_server-push = $(INTEGRATION_PYTHON) $(BENCH_DIR)/push_load.py --build $(BUILD) \
    --pushes $(PUSH_RATE) --runs $(PUSH_RUNS) --rooms $(PUSH_ROOMS) --rate $(PUSH_MOVES)
BENCH += $(LOAD_RUNS)

BENCH_PREREQS = $(BUILD)/carc-sim $(BUILD)/carc-load $(BUILD)/carcd $(BENCH_NPM_STAMP)
run_benches = @set -e; $(foreach b,$(1),echo "== bench $(b): $(strip $(bench_$(b)))"; $(bench_$(b));)

bench: $(BENCH_PREREQS) ## engine benchmarks pinned to CPU 0, then the server load benches (bench-load)
	$(call run_benches,$(BENCH))

bench-load: $(BUILD)/carc-load $(BUILD)/carcd $(BENCH_NPM_STAMP) ## carc-load: $(LOAD_ROOMS) rooms x 6 against a bare relay and a fresh carcd, then $(CLUSTER_ROOMS) rooms on 1-3 nodes
	$(call run_benches,$(LOAD_RUNS))

bench-relay: $(BUILD)/carc-load $(BUILD)/carcd $(BENCH_NPM_STAMP) ## only the relay baseline: carcd's CPU per move against a bare Node ws relay's
	$(bench_server-relay-baseline)

bench-cluster: $(BUILD)/carc-load $(BUILD)/carcd ## only the cluster: $(CLUSTER_ROOMS) rooms through HAProxy against 1, 2 and 3 nodes
	$(bench_server-load-cluster)

bench-push: $(BUILD)/carc-load $(BUILD)/carcd ## only the dead push endpoints: loop busy p99 under $(PUSH_RATE) failing pushes/s against none
	$(bench_server-push)

$(BENCH_NPM_STAMP): $(BENCH_DIR)/package.json $(BENCH_DIR)/package-lock.json
	cd $(BENCH_DIR) && $(NPM) ci --no-audit --no-fund --ignore-scripts

# The built-in bots against each other (common/bot.h): 200 two-player games per matchup with
# every set, seats swapped half of the time, on both cores. Fails when strong wins under 70% of
# its games against greedy, or greedy under 90% against random. Then a bot that plays the
# post-game analysis' best move (common/analysis.h, default budget) against strong in 200
# two-player base games: it must win 55% of them (issue 29).
BOT_GAMES ?= 200
bench-bots: $(BUILD)/carc-botbench ## the built-in bots against each other, and the analysis' best move against strong
	$(BUILD)/carc-botbench --games $(BOT_GAMES) --jobs 2 strong:greedy:0.70 greedy:random:0.90
	$(BUILD)/carc-botbench --games $(BOT_GAMES) --jobs 2 --sets base analysis:strong:0.55

# The post-game analysis' cost (issue 29): ANALYSIS_GAMES two-player base games of the greedy
# bots analysed at the default budget on one pinned core; CPU time per game and per move, and
# their medians (the target: at most 30 s a game).
ANALYSIS_GAMES ?= 5
bench-analysis: $(BUILD)/carc-analyze ## the post-game analysis: CPU time per game and per move (median of $(ANALYSIS_GAMES) base games)
	$(PIN) $(BUILD)/carc-analyze --bench $(ANALYSIS_GAMES)

# make soak (not in CI, ~15 minutes): tests/bench/soak.sh. A warm-up of 10 rooms sets the RSS
# baseline; then SOAK_ROOMS rooms of 6 clients at SOAK_RATE moves per second in all (a move per
# room every ~6.7 s: a base + inns-cathedrals game of 89 moves lasts about 10 minutes), a line of
# server RSS, descriptors and p50/p99 every 30 s; then every client leaves, and 90 s later the
# server's RSS must be within 20% of the baseline.
SOAK_ROOMS ?= 1000
SOAK_RATE  ?= 150
soak: $(BUILD)/carc-load $(BUILD)/carcd ## $(SOAK_ROOMS) rooms x 6 at a human pace for ~10 min: RSS, p99, fds over time
	tests/bench/soak.sh $(BUILD) $(SOAK_ROOMS) $(SOAK_RATE)
