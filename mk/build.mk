# mk/build.mk: compile and link (included by the Makefile, whose head maps sources to products).

# OPT and SAN are the knobs the sanitizer build turns; CFLAGS/LDFLAGS from the command line or
# the environment are appended, so `make CFLAGS=-DFOO` keeps the project's warnings.
OPT  ?= -O2 -g
SAN  ?=
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CARC_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L $(OPT) $(SAN) $(WARN) -MMD -MP \
              -Icommon -Iprotocol $(CFLAGS)
CARC_LDFLAGS = $(SAN) $(LDFLAGS)

# pkg-config is asked only when a recipe needs it (recursive =), so `make deps`, `make clean`
# and `make check-layers` work before the libraries are installed. Check (the test framework)
# is asked for only by the test runner's rules: carcd, the tools and the bots build without it.
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
# deploy/deps.sh's run list installs the -dev package of each of these modules
# (tests/deps/check_run_list.sh checks it).
SERVER_PC_MODULES := libuv libwebsockets sqlite3 zlib libpq hiredis libsodium libcrypto libssl libcurl
SERVER_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(SERVER_PC_MODULES))
SERVER_LIBS   = $(shell $(PKG_CONFIG) --libs $(SERVER_PC_MODULES))
# The test runner links libcarcd.a, whose storage (server/store.c) needs these.
CORE_LIBS     = $(shell $(PKG_CONFIG) --libs libuv sqlite3 zlib libpq hiredis libsodium libcrypto libssl libcurl)

# Clients (clients/bot/)
#   clients/bot/carc_NAME.c -> $(BUILD)/carc-NAME (carc-bot, carc-load); any other .c file in
#                          clients/bot/ (the RFC 6455 client, shared bot code) is linked into each.
#                          They use protocol/client.h and link jansson only through libcarcproto.
BOT_MAINS := $(wildcard clients/bot/carc_*.c)
BOT_HELP  := $(filter-out $(BOT_MAINS),$(wildcard clients/bot/*.c))
BOT_HOBJ  := $(call obj,$(BOT_HELP))
BOTS      := $(foreach t,$(BOT_MAINS),$(BUILD)/$(subst _,-,$(basename $(notdir $(t)))))

# ---------------------------------------------------------------------------------------------
# Targets

.PHONY: all libs tools tests server clients tiles clean
all: libs tools tests server clients ## build libs, tools, carcd, the bots and the test runner into $(BUILD)/
libs: $(LIBCARC) $(LIBPROTO) ## $(BUILD)/libcarc.a (the engine) and $(BUILD)/libcarcproto.a (the JSON codec)
tools: $(TOOLS) ## carc-replay, carc-sim, carc-verify... (protocol/tools/) into $(BUILD)/
tests: $(TESTBIN) ## the Check test runner $(BUILD)/carc-tests (needs Debian's check)
server: $(CARCD) ## carcd alone, $(BUILD)/carcd
clients: $(BOTS) ## carc-bot and carc-load (clients/bot/) into $(BUILD)/

# Regenerate the committed tile table; a failed run leaves the old file in place. Nothing else
# in the build runs Python: the run list of deploy/deps.sh leaves python3 out, so ask for it here.
tiles: ## regenerate common/tiles_data.c from $(RULES)
	@deploy/deps.sh --run python3
	$(PYTHON) common/gen/tiles.py $(RULES) > common/tiles_data.c.tmp \
	    || { rm -f common/tiles_data.c.tmp; exit 1; }
	mv common/tiles_data.c.tmp common/tiles_data.c

clean: ## remove $(BUILD)/
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

define bot_rule
$(BUILD)/$(subst _,-,$(basename $(notdir $(1)))): $(call obj,$(1)) $$(BOT_HOBJ) $$(LIBPROTO) $$(LIBCARC)
	$$(CC) $$(CARC_LDFLAGS) $$< $$(BOT_HOBJ) $$(LIBPROTO) $$(LIBCARC) $$(JANSSON_LIBS) -lm -o $$@
endef
$(foreach t,$(BOT_MAINS),$(eval $(call bot_rule,$(t))))

-include $(patsubst %.o,%.d,$(COMMON_OBJ) $(PROTO_OBJ) $(TOOL_HOBJ) $(TEST_OBJ) \
    $(call obj,$(TOOL_MAINS)) $(SERVER_CORE_OBJ) $(SERVER_PROC_OBJ) \
    $(BOT_HOBJ) $(call obj,$(BOT_MAINS)))
