// The e2e tests of the client's languages (clients/web/js/i18n.js, clients/web/i18n/): a browser
// whose language is German gets the lobby and a running game against a bot (turn card, meeple
// choices, players panel, events log, the board's labels) with no English string left; the
// header's switcher, worked with the keyboard, turns the page French without a reload (no
// German or English left, the log said again), and a reload keeps French and the seat. Then the
// size and the load time of the page, on a carcd of its own (a new server's lists): a fresh load,
// cache off, under 150 KB on the wire (gzip), and under a second to a connected, translated
// lobby (the median of three loads). The time is
// judged only on a quiet machine (a load average under half its cores): CONTRIBUTING.md keeps
// timings out of tests that must pass on a busy machine; it is printed always.
//
// "No English string left": every text the user can see or hear (visible text nodes, the
// visually hidden ones for screen readers included, aria-label, title, placeholder, the options
// of visible selects, the document's title) is matched against the English catalogue's values
// that the page's language does not share: a whole template (placeholders as wildcards), a
// phrase of two words or more anywhere, or a single word as a whole text.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DESKTOP, ROOT, assert, consoleError, startServer } from "./harness.mjs";
import { legalInView } from "./play.mjs";

const catalogue = (lang) => JSON.parse(fs.readFileSync(path.join(ROOT, "clients/web/i18n", lang + ".json"), "utf8"));
const forms = (v) => (v === undefined ? [] : typeof v === "string" ? [v] : Object.values(v));
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const letters = (s) => s.replace(/[^\p{L}]/gu, "").length;

// What of catalogue `from` must not show on a page in the language of catalogue `to`.
export function foreignWords(from, to) {
  const toText = Object.values(to).flatMap(forms).join("\n");
  const templates = [];
  const phrases = new Set();
  const words = new Set();
  for (const [key, v] of Object.entries(from)) {
    const same = new Set(forms(to[key]));
    for (const text of forms(v)) {
      if (same.has(text)) continue; // written alike in both languages on purpose
      const parts = text.split(/\{\w+\}/);
      if (parts.length > 1 && letters(parts.join("")) >= 4) {
        templates.push({ key, re: new RegExp("^" + parts.map((p) => escape(p.trim())).join("[^]+?") + "$", "u") });
      }
      for (const p of parts) {
        const frag = p.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, "");
        if (letters(frag) < 4 || toText.includes(frag)) continue; // short, or the page's language has it too
        (/\s/.test(frag) ? phrases : words).add(frag);
      }
    }
  }
  const phraseRes = [...phrases].map((p) => ({ p, re: new RegExp(`(?<!\\p{L})${escape(p)}(?!\\p{L})`, "u") }));
  // Returns the texts of `units` that hold a foreign string, with what matched.
  return (units) => {
    const bad = [];
    for (const u of units) {
      const text = u.replace(/\s+/g, " ").trim();
      if (!text) continue;
      const bare = text.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, "");
      const tpl = templates.find((x) => x.re.test(text));
      const ph = phraseRes.find((x) => x.re.test(text));
      if (tpl) bad.push(`"${text}" (the template ${tpl.key})`);
      else if (ph) bad.push(`"${text}" (holds "${ph.p}")`);
      else if (words.has(bare)) bad.push(`"${text}"`);
    }
    return bad;
  };
}

// Every text of the page a user meets (see the header).
export function pageTexts(page) {
  return page.evaluate(() => {
    const shown = (el) => !!el && el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
    const out = [document.title];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (el && el.tagName !== "OPTION" && n.nodeValue.trim() && shown(el)) out.push(n.nodeValue);
    }
    for (const el of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
      if (!shown(el)) continue;
      for (const a of ["aria-label", "title", "placeholder"]) if (el.hasAttribute(a)) out.push(el.getAttribute(a));
    }
    for (const sel of document.querySelectorAll("select")) if (shown(sel)) for (const o of sel.options) out.push(o.textContent);
    return out;
  });
}

export async function noForeign(page, check, where) {
  const texts = await pageTexts(page);
  const bad = check(texts);
  assert(bad.length === 0, `${where}: ${bad.length} foreign strings:\n  ${bad.slice(0, 15).join("\n  ")}`);
  return texts.length;
}

// A page in a context of its own with the browser's language set to locale.
async function localePage(browser, label, locale, errors) {
  const ctx = await browser.newContext({ viewport: DESKTOP, locale });
  const page = await ctx.newPage();
  page.on("console", (m) => {
    if (consoleError(m)) errors.push(`${label}: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  return page;
}

// The lobby is up: connected, and the lists of rooms and games have answered.
async function lobbyReady(page) {
  await page.waitForSelector("#conn.online");
  await page.waitForFunction(() => ["rooms-status", "games-status"].every((id) => !/…$/.test(document.getElementById(id).textContent)));
}

// One turn by clicking: a legal position that fits, then (every other turn) a meeple from the
// turn card's choices, the page's texts checked while they are shown, then Confirm.
async function checkedMove(page, n, check, where) {
  const before = await page.evaluate(() => document.getElementById("log").children.length);
  await (await legalInView(page, n)).click();
  await page.waitForSelector("#world .pending");
  const choices = await page.$$("#choices button:not(#no-meeple)");
  if (choices.length && n % 2 === 0) {
    await choices[n % choices.length].click();
    await page.waitForSelector("#world .spot.selected");
  }
  await noForeign(page, check, `${where}, placing a tile`);
  await page.click("#confirm-btn");
  await page.waitForFunction((k) => document.getElementById("log").children.length > k, before);
}

// Waits for our turn again (the bot has moved).
async function ourTurn(page) {
  await page.waitForSelector("#world .legal", { timeout: 15000 });
}

// The bytes on the wire (gzip where the server compresses) and the time to a connected,
// translated lobby, for a fresh load with the cache off; the median of `runs` loads.
async function measureLoad(browser, url, locale, runs = 3) {
  const results = [];
  for (let i = 0; i < runs; i++) {
    const page = await localePage(browser, "load", locale, []);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    const sizes = new Map();
    const urls = new Map();
    cdp.on("Network.responseReceived", (e) => urls.set(e.requestId, e.response.url));
    cdp.on("Network.loadingFinished", (e) => sizes.set(e.requestId, e.encodedDataLength));
    const t0 = Date.now();
    await page.goto(url + "/");
    await lobbyReady(page);
    const ms = Date.now() - t0;
    await page.waitForTimeout(200); // the last loadingFinished events
    let bytes = 0;
    const files = [];
    for (const [id, n] of sizes) {
      bytes += n;
      files.push(`${new URL(urls.get(id) || "http://x/?").pathname} ${n}`);
    }
    results.push({ ms, bytes, files });
    await page.context().close();
  }
  results.sort((a, b) => a.ms - b.ms);
  return results[Math.floor(results.length / 2)];
}

export async function i18nSuite({ browser, url, test, errors }) {
  const en = catalogue("en");
  const de = catalogue("de");
  const fr = catalogue("fr");
  const englishOnGerman = foreignWords(en, de);
  const englishOnFrench = foreignWords(en, fr);
  const germanOnFrench = foreignWords(de, fr);
  const state = {};

  await test("[i18n] the check finds English on a German page (it can fail)", async () => {
    const bad = englishOnGerman(["Your turn: place the tile (Straßenkurve).", "Jürgen legt eine Karte: a straight road.", "Join", "Bot · Gierig"]);
    assert(bad.length === 3, "the English strings found: " + JSON.stringify(bad));
    assert(englishOnGerman(["Du bist dran: Lege die Karte (Straßenkurve).", "Chat", "Bot · Gierig", "offline"]).length === 0, "German taken for English");
  });

  await test("[i18n] a German browser gets the lobby in German, with no English string", async () => {
    const page = await localePage(browser, "de-lobby", "de-DE", errors);
    state.page = page;
    await page.goto(url + "/");
    await lobbyReady(page);
    const lang = await page.evaluate(() => [document.documentElement.lang, document.getElementById("lang-select").value, localStorage.getItem("carcd.lang")]);
    assert(JSON.stringify(lang) === JSON.stringify(["de", "de", null]), "html lang, switcher, stored choice: " + JSON.stringify(lang));
    const n = await noForeign(page, englishOnGerman, "the lobby");
    assert(n > 50, "only " + n + " texts on the lobby");
    assert((await page.textContent("#create-h")) === de["create.title"], "the create form's heading");
    // the switcher is a labelled control that the keyboard reaches from the page's start
    assert((await page.getByRole("combobox", { name: de["lang.label"] }).count()) === 1, "no select labelled " + de["lang.label"]);
    await page.focus("#home");
    await page.keyboard.press("Tab");
    assert((await page.evaluate(() => document.activeElement.id)) === "lang-select", "Tab from the home link does not reach the switcher");
  });

  await test("[i18n] a game against a bot in German: turn card, meeple choices, players, log, board", async () => {
    const page = state.page;
    assert(page, "no page from the previous test");
    await page.fill("#create-name", "Jürgen");
    await page.click("#create-btn");
    await page.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
    const row = '#scoreboard tbody tr[data-seat="1"]';
    await page.waitForSelector(`${row} button.add-bot`);
    await page.selectOption(`${row} select.bot-level`, "greedy");
    await noForeign(page, englishOnGerman, "the room's lobby");
    await page.click(`${row} button.add-bot`);
    await page.waitForSelector('.bot-mark[data-bot-seat="1"]');
    assert((await page.textContent(`${row} .seat-name`)) === de["bot.greedy.seat"], "the bot's name: " + (await page.textContent(`${row} .seat-name`)));
    await page.click("#start-btn");
    for (let n = 0; n < 3; n++) {
      await ourTurn(page);
      await checkedMove(page, n, englishOnGerman, "German game");
    }
    await ourTurn(page);
    const log = await page.$$eval("#log li", (lis) => lis.map((li) => li.textContent));
    assert(log.some((l) => l.startsWith(de["bot.greedy.seat"] + " legt eine Karte")), "the bot's move in German:\n" + log.join("\n"));
    assert(log.some((l) => l.startsWith("Jürgen legt eine Karte")), "our move in German:\n" + log.join("\n"));
    await noForeign(page, englishOnGerman, "the German game");
    state.room = await page.textContent("#room-id");
  });

  await test("[i18n] the switcher turns the game French without a reload; a reload keeps French and the seat", async () => {
    const page = state.page;
    assert(state.room, "no game from the previous test");
    await page.evaluate(() => (window.__sameDocument = true));
    await page.focus("#lang-select");
    await page.keyboard.press("ArrowDown"); // de -> fr, the next choice
    await page.waitForFunction(() => document.documentElement.lang === "fr");
    assert(await page.evaluate(() => window.__sameDocument === true), "the page reloaded");
    assert((await page.evaluate(() => localStorage.getItem("carcd.lang"))) === "fr", "the choice is not stored");
    await noForeign(page, englishOnFrench, "the game switched to French");
    await noForeign(page, germanOnFrench, "the game switched to French (German left)");
    const log = await page.$$eval("#log li", (lis) => lis.map((li) => li.textContent));
    assert(log.some((l) => l.startsWith("Jürgen pose ")), "the log said again in French:\n" + log.join("\n"));
    await checkedMove(page, 4, englishOnFrench, "French game");
    await page.reload();
    await page.waitForSelector("#log[data-history]", { state: "attached" });
    await page.waitForFunction(() => /Jürgen/.test(document.getElementById("room-role").textContent));
    const after = await page.evaluate(() => [document.documentElement.lang, document.getElementById("lang-select").value, document.getElementById("room-role").textContent]);
    assert(after[0] === "fr" && after[1] === "fr", "after the reload: " + JSON.stringify(after));
    assert(after[2].startsWith("Vous êtes Jürgen"), "the seat after the reload: " + after[2]);
    await ourTurn(page);
    await noForeign(page, englishOnFrench, "the French game after a reload");
    await noForeign(page, germanOnFrench, "the French game after a reload (German left)");
    await page.context().close();
  });

  await test("[i18n] the page loads under 150 KB compressed, and under 1 s on a quiet machine", async () => {
    // A carcd of its own: the lobby's lists (GET /api/rooms, /api/games) are a new server's, not
    // those of the games the suite played before this test (2 KB more by then, and more with
    // each test added before it), so that the page's own weight is what is judged.
    const srv = await startServer(process.env.CARC_WEB_ROOT ? ["--web-root", path.resolve(process.env.CARC_WEB_ROOT)] : []);
    try {
      for (const locale of ["en-US", "de-DE"]) {
        const load = os.loadavg()[0];
        const judged = load < os.cpus().length / 2;
        const m = await measureLoad(browser, srv.url, locale);
        console.log(`     ${locale}: ${m.bytes} bytes on the wire in ${m.files.length} responses, ${m.ms} ms to a connected lobby` +
          (judged ? "" : ` (not judged: load average ${load.toFixed(1)} on ${os.cpus().length} cores)`));
        assert(m.bytes < 150000, `${locale}: ${m.bytes} bytes:\n  ${m.files.join("\n  ")}`);
        if (judged) assert(m.ms < 1000, `${locale}: ${m.ms} ms to a connected lobby`);
      }
    } finally {
      await srv.stop();
    }
  });
}
