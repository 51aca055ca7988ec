# mk/e2e.mk: the browser client end-to-end tests (clients/web/, tests/e2e/)
#   make e2e               headless Chromium (Debian's chromium, deploy/deps.sh) driven by
#                          playwright-core, pinned in tests/e2e/package-lock.json and installed by
#                          `npm ci` into tests/e2e/node_modules/ (ignored by git; no browser
#                          download). Plays a whole game through the UI against a fresh carcd;
#                          screenshots in $(BUILD)/artifacts/. Part of `make test`, after integration.
#   make i18n-check        the client's language catalogues (clients/web/i18n/) against each other
#                          and the sources (tests/i18n/check.mjs; node alone, no browser). First
#                          step of `make e2e`.
E2E_DIR := tests/e2e

.PHONY: e2e screenshots i18n-check
$(E2E_DIR)/node_modules/.package-lock.json: $(E2E_DIR)/package.json $(E2E_DIR)/package-lock.json
	cd $(E2E_DIR) && $(NPM) ci --no-audit --no-fund --ignore-scripts

i18n-check: ## the client's catalogues: same keys and placeholders in every language, no English copies, every key used exists
	$(NODE) tests/i18n/check.mjs

e2e: all i18n-check $(E2E_DIR)/node_modules/.package-lock.json ## the browser client in headless Chromium (tests/e2e/, playwright-core)
	@deploy/deps.sh
	CARC_BUILD=$(BUILD) $(NODE) $(E2E_DIR)/run.mjs

# The lobby, a game, a scoring, the end-of-game scoring, the end screen and the replay at both
# sizes, taken while tests/e2e/sizes.mjs plays its games (so it fails when they fail).
screenshots: all $(E2E_DIR)/node_modules/.package-lock.json ## PNGs of the client at 1366x850 and 390x844 into $(BUILD)/screenshots/
	@deploy/deps.sh
	CARC_BUILD=$(BUILD) $(NODE) $(E2E_DIR)/screenshots.mjs
