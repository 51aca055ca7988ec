# mk/fuzz.mk: fuzzing (tests/fuzz/): libFuzzer harnesses, built by clang with ASan and UBSan
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
fuzz-build: $(FUZZ_BINS) ## build the libFuzzer harnesses (clang, ASan, UBSan) into $(FUZZ_DIR)/
# the harnesses' objects are kept (not intermediate files make would delete)
.SECONDARY: $(call fuzzobj,$(FUZZ_MAINS))

fuzz: fuzz-build ## replay the kept crashers, then run each harness for $(FUZZ_SECONDS) s (FUZZ_SECONDS=...)
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
