// a11y.mjs: an axe-core audit (pinned in package.json, installed by npm ci) of the lobby, a game
// on our turn (with a tile placed and its meeple choices shown), the account's dialog and menu,
// the end screen and the replay, a player's page and the ladder (players.html, ladder.html),
// at 1366x850 and on a 390x844 touch phone: no violation of serious or critical impact. axe is
// injected with page.addScriptTag; carcd's CSP allows only its own scripts, so these pages'
// contexts bypass the CSP (the page's own scripts are unchanged).
// a11ySuite({browser, url, test, errors}) adds its tests to run.mjs; `node tests/e2e/a11y.mjs`
// runs them alone (CARC_WEB_ROOT=DIR serves another copy of the client).
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DESKTOP, PHONE, assert, consoleError, launch, startServer } from "./harness.mjs";
import { finishedGame } from "./panel.mjs";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export async function auditPage(browser, size, label, errors) {
  const phone = size.width < 700;
  const ctx = await browser.newContext({ viewport: size, hasTouch: phone, isMobile: phone, bypassCSP: true });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  page.on("console", (m) => {
    if (consoleError(m)) errors.push(`${label}: ${m.text()}`);
  });
  return page;
}

// Runs axe on the page as it is now; fails on any serious or critical violation.
export async function audit(page, where) {
  if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ path: AXE });
  const res = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(" | ")}${v.nodes.length > 4 ? ` and ${v.nodes.length - 4} more` : ""}`);
  });
  assert(res.length === 0, `${where}:\n       ${res.join("\n       ")}`);
}

export async function a11ySuite({ browser, url, test, errors }) {
  let room = null;
  for (const [size, tag] of [[DESKTOP, "desktop"], [PHONE, "phone"]]) {
    await test(`[${tag}] axe: the lobby and a game on our turn, no serious or critical violation`, async () => {
      const page = await auditPage(browser, size, "a11y-" + tag, errors);
      await page.goto(url + "/");
      await page.waitForSelector("#conn.online");
      await page.waitForFunction(() => !/Loading/.test(document.getElementById("rooms-status").textContent));
      const problems = [];
      const check = async (where) => audit(page, where).catch((e) => problems.push(e.message));
      await check("the lobby");
      await page.fill("#create-name", "Ada");
      await page.click("#create-btn");
      await page.waitForSelector('#scoreboard tbody tr[data-seat="1"] button.add-bot');
      await check("the room before the game");
      await page.click('#scoreboard tbody tr[data-seat="1"] button.add-bot');
      await page.waitForSelector('.bot-mark[data-bot-seat="1"]');
      await page.click("#start-btn");
      await page.waitForSelector("#world .legal", { timeout: 15000 });
      await check("a game, our turn");
      await ((await page.$("#world .legal.fits")) || (await page.$("#world .legal"))).click(); // none may fit this rotation
      await page.waitForSelector("#world .pending");
      await check("a game, a tile placed with its meeple spots");
      await page.context().close();
      assert(problems.length === 0, problems.join("\n     "));
    });
  }

  for (const [size, tag] of [[DESKTOP, "desktop"], [PHONE, "phone"]]) {
    await test(`[${tag}] axe: the account dialog (both tabs, an error, Delete account) and the menu, no serious or critical violation`, async () => {
      // Chromium logs the refusal provoked below (422) as a console error (accounts.mjs): not counted
      const mine = [];
      const page = await auditPage(browser, size, "a11y-acct-" + tag, mine);
      await page.goto(url + "/");
      await page.waitForSelector("#conn.online");
      await page.waitForSelector("#acct:not([hidden])");
      const problems = [];
      const check = async (where) => audit(page, where).catch((e) => problems.push(e.message));
      await page.click("#acct-open");
      await page.waitForSelector("#acct-dlg[open]");
      await check("the sign-in dialog");
      await page.click("#acct-tab-up");
      await check("the create-account dialog");
      await page.fill("#acct-name-in", "A" + tag + Date.now().toString(36));
      await page.fill("#acct-pw", "short");
      await page.click("#acct-submit");
      await page.waitForFunction(() => document.getElementById("acct-err").textContent.length > 0);
      await check("the dialog with an error");
      await page.fill("#acct-pw", "long enough, audited");
      await page.click("#acct-submit");
      await page.waitForSelector("#acct-user:not([hidden])");
      await page.click("#acct-menu-btn");
      await check("the account's menu");
      await page.click("#acct-delete");
      await page.waitForSelector("#acct-dlg[open]");
      await check("the Delete account dialog");
      await page.context().close();
      errors.push(...mine.filter((m) => !/Failed to load resource: the server responded with a status of 422\b/.test(m)));
      assert(problems.length === 0, problems.join("\n     "));
    });
  }

  await test("[both] axe: a player's page and the ladder (players.html, ladder.html), no serious or critical violation", async () => {
    const problems = [];
    const page = await auditPage(browser, DESKTOP, "a11y-ranks", errors);
    const name = "Ax" + Date.now().toString(36);
    await page.goto(url + "/");
    await page.waitForSelector("#acct:not([hidden])");
    await page.click("#acct-open");
    await page.click("#acct-tab-up");
    await page.fill("#acct-name-in", name);
    await page.fill("#acct-pw", "long enough, audited");
    await page.click("#acct-submit");
    await page.waitForSelector("#acct-user:not([hidden])");
    for (const [size, tag] of [[DESKTOP, "1366x850"], [PHONE, "390x844"]]) {
      await page.setViewportSize(size);
      await page.goto(url + "/players/" + name);
      await page.waitForSelector("body[data-loaded]");
      await audit(page, "a player's page at " + tag).catch((e) => problems.push(e.message));
      await page.goto(url + "/ladder");
      await page.waitForSelector("body[data-loaded]");
      await audit(page, "the ladder at " + tag).catch((e) => problems.push(e.message));
    }
    await page.context().close();
    assert(problems.length === 0, problems.join("\n     "));
  });

  await test("[both] axe: the end screen and the replay, no serious or critical violation", async () => {
    const problems = [];
    const page = await auditPage(browser, DESKTOP, "a11y-end", errors);
    room = await finishedGame(page, url, "Ida");
    await audit(page, "the end screen at 1366x850").catch((e) => problems.push(e.message));
    await page.setViewportSize(PHONE);
    await audit(page, "the end screen at 390x844").catch((e) => problems.push(e.message));
    await page.context().close();
    for (const [size, tag] of [[DESKTOP, "1366x850"], [PHONE, "390x844"]]) {
      const p = await auditPage(browser, size, "a11y-replay", errors);
      for (let i = 0; i < 100; i++) {
        if ((await fetch(url + "/api/games/" + room)).ok) break;
        await p.waitForTimeout(100);
      }
      await p.goto(url + "/#replay=" + room);
      await p.waitForFunction(() => Number(document.getElementById("replay-slider").max) > 0, null, { timeout: 10000 });
      await p.waitForSelector('#replay-fair:not([data-status="checking"])', { timeout: 10000 });
      await audit(p, "the replay at " + tag).catch((e) => problems.push(e.message));
      await p.click("#replay-last");
      await audit(p, "the replay's final scoring at " + tag).catch((e) => problems.push(e.message));
      await p.context().close();
    }
    assert(problems.length === 0, problems.join("\n     "));
  });
}

// Alone: node tests/e2e/a11y.mjs
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const extra = process.env.CARC_WEB_ROOT ? ["--web-root", path.resolve(process.env.CARC_WEB_ROOT)] : [];
  const srv = await startServer(extra);
  const browser = await launch();
  const errors = [];
  let passed = 0;
  let failed = 0;
  const test = async (name, fn) => {
    const t0 = Date.now();
    try {
      await fn();
      passed++;
      console.log(`ok   ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${name}: ${e && e.message ? e.message : e}`);
    }
  };
  try {
    await a11ySuite({ browser, url: srv.url, test, errors });
  } finally {
    await browser.close();
    const exited = new Promise((r) => srv.proc.once("exit", r));
    srv.proc.kill("SIGTERM");
    await exited; // its data folder is removed once it has stopped writing
    srv.stop();
  }
  if (errors.length) console.log("console errors:\n" + errors.join("\n"));
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}
