// ratings.mjs: rated rooms, the profile and the ladder in the page (issue 27, items 5 and 6;
// clients/web/js/lobby.js, js/ranks.js, players.html, ladder.html; PROTOCOL.md "Ratings"). On a
// carcd of its own with `ladder-min-games` 1: an account signs up in context A, creates a rated
// room with the create form (Rated turns "No clock" into a preset), a guest in context G sees the
// room marked Rated and is refused its seat with a "Sign in" button that opens the dialog; A adds
// a built-in bot, starts and plays a few moves, My games lists the game; in context B (another
// device, no token) the account signs in, My games -> Resume takes the same seat and B plays the
// game to its end. Then the profile /players/NAME shows the 2p rating after 1 game with the game
// linked to its replay, the bot's identity has its profile, the ladder lists both, a stand-in
// answer with "stats" is drawn as tables, an unknown name says so, both pages pass axe, fit a
// 390 px phone and hold no English string in German. ratingsSuite({browser, test, errors}) adds its tests to run.mjs (E2E_ONLY=ratings);
// `node tests/e2e/ratings.mjs` runs them alone (CARC_WEB_ROOT=DIR serves another copy of the client).
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { clickMove, playUntilOver } from "./play.mjs";
import { BUILD, DESKTOP, PHONE, ROOT, assert, consoleError, runAlone, startServer } from "./harness.mjs";
import { foreignWords, noForeign } from "./i18n.mjs";

const catalogue = (lang) => JSON.parse(fs.readFileSync(path.join(ROOT, "clients/web/i18n", lang + ".json"), "utf8"));
fs.mkdirSync(path.join(BUILD, "artifacts"), { recursive: true });
const shot = (page, name) => page.screenshot({ path: path.join(BUILD, "artifacts", name + ".png"), fullPage: true });
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const appState = (page, key) => page.evaluate(async (k) => (await import("/js/app.js")).app[k], key);

async function context(browser, label, errors, size = DESKTOP) {
  const phone = size.width < 700;
  const ctx = await browser.newContext({ viewport: size, hasTouch: phone, isMobile: phone, bypassCSP: true });
  const page = await ctx.newPage();
  page.on("console", (m) => consoleError(m) && errors.push(`${label}: ${m.text()}`));
  page.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  return page;
}

async function signThrough(page, url, tab, name, password) {
  await page.goto(url + "/");
  await page.waitForSelector("#conn.online");
  await page.waitForSelector("#acct-open:not([hidden])");
  await page.click("#acct-open");
  await page.waitForSelector("#acct-dlg[open]");
  if (tab === "up") await page.click("#acct-tab-up");
  await page.fill("#acct-name-in", name);
  await page.fill("#acct-pw", password);
  await page.click("#acct-submit");
  await page.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name, { timeout: 5000 });
  await page.waitForSelector("#conn.online");
}

async function audit(page, where) {
  if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ path: AXE });
  const res = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(" | ")}`);
  });
  assert(res.length === 0, `${where}:\n       ${res.join("\n       ")}`);
}

async function openMyGames(page, room) {
  await page.click("#acct-menu-btn");
  await page.click("#acct-games");
  await page.waitForSelector("#games-dlg[open]");
  await page.waitForFunction((r) => [...document.querySelectorAll("#games-run-list .games-room")].some((n) => n.textContent.includes(r)), room, { timeout: 10000 });
}

// Nothing wider than the screen (no sideways scroll).
async function fits(page, where) {
  const r = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: innerWidth }));
  assert(r.scroll <= r.width, `${where} scrolls sideways: ${JSON.stringify(r)}`);
}

async function openPlayer(page, url, name) {
  await page.goto(url + "/players/" + name);
  await page.waitForSelector("body[data-loaded]", { timeout: 10000 });
}

export async function ratingsSuite({ browser, test, errors }) {
  const srv = await startServer(["--ladder-min-games", "1", ...(process.env.CARC_WEB_ROOT ? ["--web-root", path.resolve(process.env.CARC_WEB_ROOT)] : [])]);
  const url = srv.url;
  const name = "Rt" + Date.now().toString(36);
  const password = "rated games password 27";
  let room = null;
  let seat = null;
  try {
    await test("[ratings] a rated room from the create form (a clock forced), marked in the list and the room; a guest is asked to sign in", async () => {
      const a = await context(browser, "ratings-a", errors);
      const sent = [];
      a.on("websocket", (ws) => ws.on("framesent", (f) => sent.push(String(f.payload))));
      await a.goto(url + "/");
      await a.waitForSelector("#conn.online");
      assert(await a.$eval("#create-rated-box", (n) => n.hidden), "a guest sees Rated");
      await signThrough(a, url, "up", name, password);
      await a.waitForSelector("#create-rated-box:not([hidden])");
      assert((await a.$eval("#create-clock", (s) => s.value)) === "none", "the clock before Rated");
      await a.check("#create-rated");
      const clock = await a.$eval("#create-clock", (s) => ({ value: s.value, none: s.querySelector('[value="none"]').disabled }));
      assert(clock.value === "normal" && clock.none, "Rated left the clock " + JSON.stringify(clock));
      const hint = await a.$eval("#create-rated", (c) => document.getElementById(c.getAttribute("aria-describedby")).textContent);
      assert(/signed-in players and built-in bots/.test(hint), "the hint: " + hint);
      await shot(a, "ratings-create");
      await a.click("#create-btn");
      await a.waitForSelector('#scoreboard tbody tr[data-seat="1"] button.add-bot');
      const create = sent.map((s) => JSON.parse(s)).find((m) => m.type === "create");
      assert(create && create.rated === true && create.clock && create.clock.initial === 900, "the create message: " + JSON.stringify(create));
      await shot(a, "ratings-room");
      assert(await a.$eval("#room-rated", (n) => !n.hidden && n.textContent === "Rated"), "no Rated mark in the room card");
      room = await appState(a, "room");

      // a guest: the room is listed as rated; joining it asks to sign in, whose button opens the dialog
      const g = await context(browser, "ratings-guest", errors);
      await g.goto(url + "/");
      await g.waitForSelector("#conn.online");
      await g.waitForSelector(`#rooms tr[data-room="${room}"] .rated-mark`, { timeout: 10000 });
      await g.fill("#join-name", "Guest");
      await g.click(`#rooms tr[data-room="${room}"] button.join-room`);
      await g.waitForSelector('#errors p[data-code="sign_in_required"] button.sign-in-now');
      const said = await g.textContent('#errors p[data-code="sign_in_required"]');
      assert(/rated: sign in/.test(said), "the refusal: " + said);
      await g.click("#errors button.sign-in-now");
      await g.waitForSelector("#acct-dlg[open]");
      await g.context().close();

      await a.selectOption('#scoreboard tbody tr[data-seat="1"] select.bot-level', "greedy");
      await a.click('#scoreboard tbody tr[data-seat="1"] button.add-bot');
      await a.waitForSelector('.bot-mark[data-bot-seat="1"]');
      await a.click("#start-btn");
      await a.waitForFunction(async () => (await import("/js/app.js")).app.doc?.phase === "playing");
      seat = await appState(a, "seat");
      for (let i = 0; i < 2; i++) {
        await a.waitForSelector("#world .legal", { timeout: 20000 });
        await clickMove(a, i);
      }
      await openMyGames(a, room);
      await a.keyboard.press("Escape");
      await a.context().close();
    });

    await test("[ratings] in B (no token) My games -> Resume takes the same seat; the game is played to its end", async () => {
      assert(room, "no room from the test before");
      const b = await context(browser, "ratings-b", errors);
      await signThrough(b, url, "in", name, password);
      await openMyGames(b, room);
      const item = await b.$(`#games-run-list .games-item:has(.games-room:text("${room}")) button`);
      await (item || (await b.$("#games-run-list .games-item button"))).click();
      // the room is entered first, the seat set by the state that follows: wait for both
      const same = await b.waitForFunction(async ([r, s]) => {
        const { app } = await import("/js/app.js");
        return app.room === r && app.seat === s;
      }, [room, seat], { timeout: 10000 }).then(() => true, () => false);
      assert(same, `B's room and seat ${await appState(b, "room")} ${await appState(b, "seat")}, not ${room} ${seat}`);
      assert((await b.evaluate((r) => localStorage.getItem("carcd.seat." + r), room)) === null, "B holds a token");
      await playUntilOver([b], b, { timeoutMs: 240000 });
      await b.context().close();
    });

    await test("[ratings] the profile: the 2p rating after 1 game, its history linked to the replay; the bot's identity; stats when given; no such player", async () => {
      assert(room, "no finished room");
      const mine = [];
      const p = await context(browser, "ratings-profile", mine);
      // the rating is written a moment after the end
      let answer = null;
      for (let i = 0; i < 100; i++) {
        answer = await (await fetch(url + "/api/players/" + name)).json();
        if (answer.ratings && answer.ratings["2p"]) break;
        await p.waitForTimeout(100);
      }
      await openPlayer(p, url, name);
      assert((await p.textContent("#rank-h")) === name, "the heading");
      assert(/^Member since /.test(await p.textContent("#player-since")), "member since");
      const line = await p.textContent('section[data-pool="2p"] .rank-line');
      assert(/^Rating [\d,]+ ± \d+ after 1 game provisional$/.test(line), "the 2p line: " + line);
      assert(!(await p.$('section[data-pool="multi"]')), "a multi pool without games");
      assert(await p.$('section[data-pool="2p"] svg.rank-chart[aria-hidden="true"]'), "no chart");
      const sum = await p.textContent('section[data-pool="2p"] .rank-sum');
      assert(/^1 game: [\d,]+\.$/.test(sum), "the chart's text: " + sum);
      const link = await p.$$eval("a.rank-replay", (as) => as.map((x) => [x.href, x.textContent]));
      assert(link.length === 1 && link[0][0] === `${url}/#replay=${room}` && link[0][1] === `Room ${room}`, "the history: " + JSON.stringify(link));
      assert((await p.$eval("#player-stats", (s) => s.hidden)) === !answer.stats, "stats shown " + JSON.stringify(answer.stats));
      await audit(p, "the profile at 1366x850");
      await p.setViewportSize(PHONE);
      await fits(p, "the profile at 390 px");
      await p.waitForFunction(() => document.querySelector(".rank-chart").getBoundingClientRect().width < 390);
      const tick = await p.$eval(".rank-chart .tick", (n) => n.getBoundingClientRect().height);
      assert(tick >= 11, "the chart's text at 390 px: " + tick);
      await shot(p, "ratings-profile-phone");
      await audit(p, "the profile at 390x844");
      await p.setViewportSize(DESKTOP);
      await p.click("a.rank-replay");
      await p.waitForSelector("#replay-view:not([hidden])");
      await p.waitForFunction(() => Number(document.getElementById("replay-slider").max) > 0, null, { timeout: 10000 });

      // the bot's identity
      await openPlayer(p, url, "bot.greedy");
      assert((await p.textContent("#rank-h")) === "Greedy bot", "the bot's heading");
      assert(/after 1 game/.test(await p.textContent('section[data-pool="2p"] .rank-line')), "the bot's 2p line");

      // an answer with stats (a stand-in): a table by player count and the sets by name
      await p.route("**/api/players/" + name, (r) => r.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ ...answer, stats: { played: 3, won: 2, by_players: [{ players: 2, played: 2, won: 2, average_score: 81.25 }, { players: 4, played: 1, won: 0, average_score: 40 }], sets: [{ set: "base", played: 3 }, { set: "inns-cathedrals", played: 1 }] } }) }));
      await openPlayer(p, url, name);
      assert(!(await p.$eval("#player-stats", (s) => s.hidden)), "the stats are hidden");
      assert((await p.textContent("#player-total")) === "3 games played, 2 won.", "the total");
      const by = await p.$$eval("#player-by tbody tr", (rs) => rs.map((r) => r.textContent));
      assert(JSON.stringify(by) === JSON.stringify(["22281.3", "41040"]), "by players: " + JSON.stringify(by));
      const sets = await p.$$eval("#player-sets tbody tr", (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent).join("|")));
      assert(JSON.stringify(sets) === JSON.stringify(["Base game|3", "Inns & Cathedrals|1"]), "sets: " + JSON.stringify(sets));
      await audit(p, "the profile with stats");
      await shot(p, "ratings-profile");
      await p.unroute("**/api/players/" + name);

      // under a cluster's prefix (deploy/haproxy-cluster.cfg sends /n/NODE/... to that node without
      // the prefix; stood in for by a route): every request of both pages and their links keep it
      const n1 = await context(browser, "ratings-n1", mine);
      const asked = [];
      n1.on("request", (r) => asked.push(r.url()));
      await n1.context().route(`${url}/n/n1/**`, async (r) => {
        await r.fulfill({ response: await r.fetch({ url: r.request().url().replace("/n/n1/", "/") }) });
      });
      await n1.goto(`${url}/n/n1/players/${name}`);
      await n1.waitForSelector("body[data-loaded]");
      assert((await n1.$eval("a.rank-replay", (a) => a.href)) === `${url}/n/n1/#replay=${room}`, "the replay link under /n/n1/");
      assert((await n1.$eval('.rank-nav a[href="../ladder"]', (a) => a.href)) === `${url}/n/n1/ladder`, "the ladder link under /n/n1/");
      await n1.goto(`${url}/n/n1/ladder`);
      await n1.waitForSelector("body[data-loaded]");
      assert((await n1.$eval(`#ladder-table a:text-is("${name}")`, (a) => a.href)) === `${url}/n/n1/players/${name}`, "a profile link under /n/n1/");
      const outside = asked.filter((u) => !u.startsWith(`${url}/n/n1/`));
      assert(asked.length >= 8 && outside.length === 0, "requests outside /n/n1/: " + JSON.stringify(outside));
      // a server without accounts (a stand-in answer)
      await n1.context().route(`${url}/api/ladder?**`, (r) => r.fulfill({ status: 404, contentType: "application/json", body: '{"error":"accounts_off"}' }));
      await n1.goto(`${url}/ladder`);
      await n1.waitForSelector("body[data-loaded]");
      assert(/no accounts/.test(await n1.textContent("#rank-status")), "accounts_off: " + (await n1.textContent("#rank-status")));
      await n1.context().close();

      // a name that is nobody's (its 404 is logged by Chromium: let through)
      await openPlayer(p, url, "nobody_" + Date.now().toString(36));
      assert((await p.textContent("#rank-status")) === "There is no player of that name.", "no such player: " + (await p.textContent("#rank-status")));
      assert(await p.$eval("#player", (d) => d.hidden), "the player's part shown");
      await p.context().close();
      errors.push(...mine.filter((m) => !/status of 404\b/.test(m)));
    });

    await test("[ratings] the ladder: both players with min_games 1, names linked to profiles, the multi tab, keyboard, axe and a phone", async () => {
      const p = await context(browser, "ratings-ladder", errors);
      await p.goto(url + "/ladder");
      await p.waitForSelector("body[data-loaded]");
      assert((await p.textContent("#ladder-rule")) === "Players with at least 1 rated game in this pool.", "the rule: " + (await p.textContent("#ladder-rule")));
      const rows = await p.$$eval("#ladder-table tbody tr", (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
      const names = rows.map((r) => r[1]);
      assert(names.includes(name) && names.includes("Greedy bot"), "the ladder: " + JSON.stringify(rows));
      assert(rows.every((r, i) => r[0] === String(i + 1)), "the ranks: " + JSON.stringify(rows));
      assert(rows.every((r) => / provisional$/.test(r[2]) && r[4] === "1"), "rating and games: " + JSON.stringify(rows));
      const href = await p.$eval(`#ladder-table a:text-is("${name}")`, (a) => a.href);
      assert(href === `${url}/players/${name}`, "the profile link " + href);
      await audit(p, "the ladder at 1366x850");
      await shot(p, "ratings-ladder");
      await p.focus("#tab-2p");
      await p.keyboard.press("ArrowRight");
      await p.waitForFunction(() => document.activeElement.id === "tab-multi" && document.getElementById("tab-multi").getAttribute("aria-selected") === "true");
      await p.waitForFunction(() => document.getElementById("rank-status").textContent === "Nobody is on this ladder yet.");
      await p.click("#tab-2p");
      await p.waitForSelector("#ladder-table:not([hidden])");
      await p.setViewportSize(PHONE);
      await fits(p, "the ladder at 390 px");
      await shot(p, "ratings-ladder-phone");
      await audit(p, "the ladder at 390x844");
      await p.click(`#ladder-table a:text-is("${name}")`);
      await p.waitForSelector("body[data-loaded]");
      assert((await p.textContent("#rank-h")) === name, "the ladder's link");

      // in German: no English string left on either page
      const de = await browser.newContext({ viewport: DESKTOP, locale: "de-DE" });
      const dp = await de.newPage();
      dp.on("console", (m) => consoleError(m) && errors.push(`ratings-de: ${m.text()}`));
      const englishOnGerman = foreignWords(catalogue("en"), catalogue("de"));
      await dp.goto(url + "/ladder");
      await dp.waitForSelector("body[data-loaded]");
      await noForeign(dp, englishOnGerman, "the German ladder");
      await openPlayer(dp, url, name);
      await noForeign(dp, englishOnGerman, "the German profile");
      assert(/nach 1 Spiel/.test(await dp.textContent('section[data-pool="2p"] .rank-line')), "the German 2p line");
      await de.close();

      // the account menu's and the lobby's links
      await signThrough(p, url, "in", name, password);
      await p.click("#acct-menu-btn");
      assert((await p.$eval("#acct-profile", (a) => a.href)) === `${url}/players/${name}`, "My profile");
      assert((await p.$eval("#acct-ladder", (a) => a.href)) === `${url}/ladder`, "Ladder in the menu");
      assert((await p.$eval("#lobby-ladder", (a) => a.href)) === `${url}/ladder`, "Ladder in the lobby");
      await p.click("#acct-profile");
      await p.waitForSelector("body[data-loaded]");
      assert((await p.textContent("#rank-h")) === name, "My profile opens the profile");
      await p.context().close();
    });
  } finally {
    await srv.stop();
  }
}

// Alone: node tests/e2e/ratings.mjs
if (import.meta.url === pathToFileURL(process.argv[1]).href) await runAlone(ratingsSuite);
