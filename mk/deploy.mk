# mk/deploy.mk: the Debian packages, running and installing carcd, the demo game.

.PHONY: deps run install uninstall demo

# deploy/deps.sh has two lists: what building and serving need (`deploy/deps.sh --run`, which
# `make run` asks for) and what the tests add; with no flag it installs both, as every test
# target asks through this one.
deps: ## install the missing Debian packages of both lists of deploy/deps.sh (build and run, tests)
	@deploy/deps.sh

# Install what is missing for building and serving only (no test component: no check, no
# PostgreSQL or Redis server, no browser), build all but the test runner, and run the server in
# the foreground (Ctrl-C stops it gracefully). It prints "carcd listening on http://ADDR:PORT/".
# The build runs in a sub-make, so a fresh machine gets its packages first even under -j.
# `make run RUN_ARGS="--port 0 --data-dir /tmp/carcd"` passes flags to carcd; `make run PORT=8081`
# is short for RUN_ARGS="--port 8081".
RUN_ARGS ?=
PORT ?=
# What `make run` builds: everything but the test runner (tests/deps/check_run_list.sh checks
# that none of it needs a package of the test list).
RUN_BUILD := libs tools server clients
run: ## deps.sh --run, build all but the test runner, start carcd on http://127.0.0.1:8080/ (PORT=..., RUN_ARGS=...)
	@deploy/deps.sh --run
	@$(MAKE) --no-print-directory $(RUN_BUILD)
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
install: $(BUILD)/carcd ## carcd, the web client, the systemd unit and /etc/carcd/carcd.conf (PREFIX=$(PREFIX), DESTDIR=)
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

uninstall: ## remove what make install installed, but /etc/carcd and the data
	rm -f $(DESTDIR)$(PREFIX)/bin/carcd $(DESTDIR)$(CARCD_UNITDIR)/carcd.service
	rm -rf $(DESTDIR)$(CARCD_SHARE) $(DESTDIR)$(PREFIX)/share/doc/carcd

# Play one game with the tools, replay it, show the final line.
demo: $(BUILD)/carc-sim $(BUILD)/carc-replay ## play and replay one demo game with the tools
	$(BUILD)/carc-sim --games 1 --seed 42 --record $(BUILD)/demo.json
	$(BUILD)/carc-replay $(BUILD)/demo.json > $(BUILD)/demo.jsonl
	@tail -n 1 $(BUILD)/demo.jsonl
	@echo "Game record: $(BUILD)/demo.json. Replay it move by move with: $(BUILD)/carc-replay $(BUILD)/demo.json"
