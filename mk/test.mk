# mk/test.mk: make test and its suites, the sanitizer and valgrind runs, the cluster, the checks.

.PHONY: test-faults test test-suites oracle integration test-asan test-valgrind test-cluster \
        check-layers format format-check asan-unit asan-integration

# The build runs after deps in a sub-make, so a fresh machine gets its packages first even
# under -j. CARC_BUILD tells the tests where the tools they run live. The quick checks of the
# build itself run first, before the long suites: the run list of deploy/deps.sh holds no test
# component (tests/deps/check_run_list.sh), `make help` names every target
# (tests/make/check_help.sh), and the layer check fails on an upward include
# (tests/layers/run.sh, when there is one).
test: deps ## deps, build, quick checks, run $(BUILD)/carc-tests, then make oracle, integration and e2e
	@$(MAKE) --no-print-directory all
	@test -n "$(TESTBIN)" || { echo "make test: no tests/*.c to build" >&2; exit 1; }
	tests/deps/check_run_list.sh
	tests/make/check_help.sh
	$(if $(wildcard tests/layers/run.sh),CARC_BUILD=$(BUILD) tests/layers/run.sh)
	CARC_BUILD=$(BUILD) tests/pg.sh $(BUILD)/carc-tests   # with the store_pg suites (CARC_PG_URL)
	@$(MAKE) --no-print-directory --output-sync=target test-suites

# The long suites after the unit tests. They spend most of their time waiting on servers,
# browsers and sleeps (a whole `make test` uses a few minutes of CPU in twenty), and each starts
# its own servers on ephemeral ports and scratch folders, so under `make -jN` they run side by
# side; --output-sync keeps each one's output in one piece, printed when it ends.
test-suites: oracle integration e2e ## make test's long suites (oracle, integration, e2e), side by side under -jN

# The engine's scores after every move against tests/gen/score_oracle.py, an independent
# implementation of RULES.md's scoring (random games in every configuration, the BGA games).
oracle: all ## engine scores against an independent scorer (tests/gen/score_oracle.py)
	PYTHON=$(INTEGRATION_PYTHON) tests/oracle.sh $(BUILD)

# make integration: carcd on an ephemeral loopback port, real WebSocket clients, complete games,
# errors and abuse (tests/integration/run.py); part of `make test`.
integration: all ## carcd + real WebSocket clients (tests/integration/run.py)
	CARC_BUILD=$(BUILD) $(INTEGRATION_PYTHON) tests/integration/run.py

ASAN_BUILD := build/asan
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# The unit tests and integration run side by side under -jN (as make test's suites: the one is
# CPU, the other mostly waiting), then the cluster alone (its failover bounds are timed).
test-asan: deps ## the unit tests, integration and tests/cluster/ with ASan+UBSan, built in $(ASAN_BUILD)/
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) OPT="-O1 -g" SAN="$(SAN_FLAGS)" all
	@test -n "$(TESTBIN)" || { echo "make test-asan: no tests/*.c to build" >&2; exit 1; }
	@$(MAKE) --no-print-directory --output-sync=target asan-unit asan-integration
	CARC_BUILD=$(ASAN_BUILD) \
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(INTEGRATION_PYTHON) tests/cluster/run.py   # failovers under ASan: a node's error fails its case

asan-unit: ## part of make test-asan: the unit tests of the ASan build
	CARC_BUILD=$(ASAN_BUILD) \
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	tests/pg.sh ./$(ASAN_BUILD)/carc-tests   # with the PostgreSQL suites, as make test

# The whole run's watchdog (tests/integration/run.py, 1200 s by default) is longer here: under
# ASan, beside the unit tests, the suite runs near twenty minutes without any test hanging.
asan-integration: ## part of make test-asan: integration against the ASan build
	CARC_BUILD=$(ASAN_BUILD) CARC_IT_TIMEOUT=1800 \
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(INTEGRATION_PYTHON) tests/integration/run.py

# Not part of CI (slow); CK_FORK=no so valgrind sees the tests themselves.
test-valgrind: deps ## run the test runner under valgrind (CK_FORK=no)
	@$(MAKE) --no-print-directory all
	CARC_BUILD=$(BUILD) CK_FORK=no valgrind -q --error-exitcode=1 --leak-check=full \
	    --errors-for-leak-kinds=definite $(BUILD)/carc-tests

# make test-cluster (CI runs it after make test; under a minute): tests/cluster/run.py starts,
# on loopback in a scratch directory, Debian's redis-server (no persistence), a PostgreSQL of its
# own (tests/integration/pg_util.py), 3 carcd nodes sharing both (--lease-ttl 3000) and HAProxy
# with deploy/haproxy-cluster.cfg made for their ports, then checks the issue's "Done when": the
# global lobby, games through HAProxy equal to carc-replay, SIGKILL / SIGSTOP+SIGCONT / SIGTERM
# of a node owning running games (failover within 10 s, every player resumed with its token, no
# acknowledged move lost, the stale node refused). On a failure every log is kept in
# $(BUILD)/cluster-logs/. `tests/cluster/run.py sigkill` runs one case.
# Its browser case (tests/e2e/cluster.mjs) needs playwright-core, installed as for make e2e.
# The fault suite (tests/faults/): descriptors exhausted, a full disk (a tmpfs the test mounts;
# root), SIGSTOP, a damaged write-ahead log, a foreign Origin, floods, bot rooms left alone.
test-faults: deps ## the real carcd against real faults: fds exhausted, disk full, SIGSTOP, damaged WAL... (tests/faults/)
	@$(MAKE) --no-print-directory all
	CARC_BUILD=$(BUILD) $(INTEGRATION_PYTHON) tests/faults/run.py

test-cluster: deps ## Redis, PostgreSQL, HAProxy and 3 carcd nodes: lobby, games, failover (tests/cluster/)
	@$(MAKE) --no-print-directory all $(if $(wildcard tests/e2e/cluster.mjs),\
	    tests/e2e/node_modules/.package-lock.json)
	CARC_BUILD=$(BUILD) $(INTEGRATION_PYTHON) tests/cluster/run.py

# deploy/check-layers.sh reads the includes of the sources and, given the build directory, the
# object files built there.
check-layers: ## check that includes point down only (README.md "Layout")
	@deploy/check-layers.sh $(BUILD)

# Generated code (common/tiles_data.c) is left as the generator writes it.
FORMAT_FILES = $(filter-out common/tiles_data.c,$(sort $(wildcard \
    common/*.[ch] protocol/*.[ch] protocol/tools/*.[ch] server/*.[ch] server/*/*.[ch] tests/*.[ch] \
    tests/fuzz/*.[ch] clients/bot/*.[ch])))

format: ## clang-format the C sources in place
	@deploy/deps.sh clang-format
	$(CLANG_FORMAT) -i $(FORMAT_FILES)

format-check: ## check the C sources' format (clang-format --dry-run)
	@deploy/deps.sh clang-format
	$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_FILES)
