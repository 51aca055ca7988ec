# carcd build. GNU make. Everything goes out of tree under $(BUILD) (default build/).
# `make help` lists the targets. Sources are found by wildcard: a new .c file needs no edit here.
#
#   common/*.c          -> $(BUILD)/libcarc.a       pure engine, libc only
#   protocol/*.c        -> $(BUILD)/libcarcproto.a  JSON codec (jansson)
#   protocol/tools/carc_NAME.c -> $(BUILD)/carc-NAME   one tool per file; any other .c file in
#                          protocol/tools/ is a helper linked into every tool
#   tests/*.c           -> $(BUILD)/carc-tests      Check runner, run from the repo root
#   server/*.c          -> $(BUILD)/carcd (and $(BUILD)/libcarcd.a, the core the tests link)
#   clients/bot/carc_NAME.c -> $(BUILD)/carc-NAME   the example bot and the load generator
#
# This file holds the settings every part shares; the rules are in mk/, one file per concern:
#   mk/build.mk    compile and link: all, libs, tools, tests, server, clients, tiles, clean
#   mk/deploy.mk   deps, run, install, uninstall, demo
#   mk/test.mk     test and its suites, test-asan, test-valgrind, test-cluster, the checks
#   mk/e2e.mk      the browser client in headless Chromium: e2e, screenshots
#   mk/bench.mk    bench, bench-load, bench-relay, bench-cluster, bench-push, bench-bots, soak
#   mk/fuzz.mk     fuzz, fuzz-build
# A target's `## text` on its rule line is its line in `make help` (tests/make/check_help.sh
# fails when a .PHONY target has none), so a new target documents itself there.

BUILD  ?= build
# The project's rules reference: the tile table is generated from it, the tests re-read it.
RULES  ?= docs/rules.md

CC      ?= cc
AR      ?= ar
PYTHON  ?= python3
PKG_CONFIG ?= pkg-config
CLANG_FORMAT ?= clang-format
NPM     ?= npm
NODE    ?= node
# The system interpreter, which has the Debian packages of deploy/deps.sh (websocket, jsonschema,
# jsonpatch), whatever python3 comes first on PATH.
INTEGRATION_PYTHON ?= /usr/bin/python3

.DEFAULT_GOAL := all

include mk/build.mk
include mk/deploy.mk
include mk/test.mk
include mk/e2e.mk
include mk/bench.mk
include mk/fuzz.mk

# Every `target: ... ## text` line of the files above, in their order; a $(VAR) in the text is
# shown with its value.
HELP_FILES := $(filter mk/%.mk,$(MAKEFILE_LIST)) $(firstword $(MAKEFILE_LIST))
HELP_VARS   = $(sort $(patsubst $$(%),%,$(shell sed -n 's/.*\#\# //p' $(HELP_FILES) \
                  | grep -o '\$$([A-Z_]*)')))
.PHONY: help
help: ## list the targets (this list: a `## text` on each rule line in Makefile and mk/*.mk)
	@$(foreach v,$(HELP_VARS),$(v)='$($(v))') awk ' \
	    /^[a-zA-Z0-9_.-]+( [a-zA-Z0-9_.-]+)*:([^=]|$$).*## / { \
	        i = index($$0, "## "); text = substr($$0, i + 3); \
	        while (match(text, /\$$\([A-Z_]+\)/)) \
	            text = substr(text, 1, RSTART - 1) ENVIRON[substr(text, RSTART + 2, RLENGTH - 3)] \
	                   substr(text, RSTART + RLENGTH); \
	        split($$0, t, ":"); n = split(t[1], names, " "); \
	        for (k = 1; k <= n; k++) printf "make %-18s %s\n", names[k], text; \
	    }' $(HELP_FILES)
