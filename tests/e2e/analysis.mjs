// analysis.mjs: the replay's post-game analysis (issue 29; clients/web/js/analysis.js, PROTOCOL.md
// "Game analysis") against a real carcd of its own, started with `--analysis-ms-per-move 2` so
// that a game's analysis takes seconds. A game against a bot, finished by the clock (panel.mjs
// finishedGame), is opened in the replay; Analyse (pressed with Enter) posts the request (202, or
// 200 when it is already stored), the page polls until the document is there and the focus goes
// to the section's heading. Then, against the document the page itself fetches from GET
// /api/games/{id}/analysis:
// - the summary lists every player with the document's accuracy, class counts, luck and points
//   lost, and the sentence names them;
// - the move list has one class mark per rated move, each the move's class (and its name in the
//   button's label), and moves through the replay by click and by keyboard (arrows, Home, End);
//   its box scrolls to the replay's move when the replay's own controls move it;
// - the evaluation chart has one point per rated move, drawn higher for a higher chance of
//   player 0 (win when player 0 moved, 1 - win otherwise); a click on a point goes to that move;
// - a move whose best_is_played is false shows the ghost tile at best.x/best.y (with a meeple
//   when best.meeple is set) and its class in words; a move played as the best shows none;
// - opened again at the phone size the analysis is shown at once (GET answers 200), with
//   nothing overflowing sideways; the German page says it in German, and in French after the
//   switcher, the replay's move still marked;
// - axe finds no serious or critical violation at both sizes (contexts that bypass the CSP for
//   axe; the other pages keep carcd's CSP, whose violations would be console errors).
// analysisSuite({browser, test, errors}) adds its tests to run.mjs (`E2E_ONLY=analysis`);
// `node tests/e2e/analysis.mjs` runs them alone (CARC_WEB_ROOT=DIR serves another copy).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BUILD, DESKTOP, PHONE, ROOT, assert, openPage, runAlone, startServer, waitRecord } from "./harness.mjs";
import { finishedGame } from "./panel.mjs";
import { audit, auditPage } from "./a11y.mjs";

const ART = path.join(BUILD, "artifacts");
const catalogue = (lang) => JSON.parse(fs.readFileSync(path.join(ROOT, "clients/web/i18n", lang + ".json"), "utf8"));
const EN = catalogue("en");
const DE = catalogue("de");

// A number as the page writes it in English ("1,234.5", "+0.96", "−5.17") back to a number.
function num(text) {
  return Number(String(text).trim().replace(/[,\s]/g, "").replace(/\u2212/g, "-"));
}

async function slider(page) {
  return Number(await page.$eval("#replay-slider", (s) => s.value));
}

async function getAnalysis(page, id) {
  return page.evaluate(async (id) => {
    const res = await fetch("/api/games/" + encodeURIComponent(id) + "/analysis", { cache: "no-store" });
    return { status: res.status, cache: res.headers.get("cache-control"), body: await res.json() };
  }, id);
}

// The summary table against the document's players: every number of every player.
async function checkSummary(page, doc) {
  const shown = await page.$$eval("#an-summary td[data-seat][data-key]", (tds) =>
    tds.map((td) => [Number(td.dataset.seat), td.dataset.key, td.textContent]));
  const heads = await page.$$eval("#an-summary thead th[data-seat]", (ths) => ths.map((th) => th.textContent.trim()));
  assert(heads.length === doc.players.length, `${heads.length} player columns for ${doc.players.length} players`);
  const classes = ["best", "good", "inaccuracy", "mistake", "blunder"];
  for (const p of doc.players) {
    assert(heads[p.seat].includes(p.name), `column ${p.seat} is headed "${heads[p.seat]}", the document names ${p.name}`);
    const want = { accuracy: p.accuracy, luck: p.luck, loss: p.loss };
    for (const c of classes) want[c] = p.classes[c];
    for (const [key, v] of Object.entries(want)) {
      const cell = shown.find(([s, k]) => s === p.seat && k === key);
      assert(cell, `no ${key} of seat ${p.seat} in the summary`);
      assert(Math.abs(num(cell[2]) - v) < 1e-9, `seat ${p.seat} ${key}: the page shows ${cell[2]}, the document has ${v}`);
    }
  }
  const verdict = await page.textContent("#an-verdict");
  const names = doc.players.map((p) => p.name);
  assert(names.some((n) => verdict.includes(n)) || /even/.test(verdict), "the summary's sentence names no player: " + verdict);
}

export async function analysisSuite({ browser, test, errors }) {
  const extra = ["--analysis-ms-per-move", "2"];
  if (process.env.CARC_WEB_ROOT) extra.push("--web-root", path.resolve(process.env.CARC_WEB_ROOT));
  let srv;
  try {
    srv = await startServer(extra);
  } catch (e) {
    // a carcd that does not know the setting: one failure here, not the whole run's end
    await test("[analysis] carcd starts with --analysis-ms-per-move 2", async () => assert(false, e.message));
    return;
  }
  const url = srv.url;
  let room = null;
  let doc = null;
  try {
    await test("[analysis] Analyse a finished game: progress, then the summary, marks, chart and ghost tile of GET /api/games/{id}/analysis", async () => {
      const page = await openPage(browser, "analysis", DESKTOP, errors);
      room = await finishedGame(page, url, "Ann", "greedy");
      await waitRecord(url, room);
      await page.goto(url + "/#replay=" + encodeURIComponent(room));
      await page.waitForSelector("#replay-view:not([hidden]) #an-go:not([hidden])", { timeout: 10000 });
      const before = await getAnalysis(page, room);
      assert(before.status === 404 && before.body.status === "none", "before: " + JSON.stringify(before));
      assert(await page.isHidden("#an-body"), "no analysis shown before there is one");

      // every text of the status line, from the click on
      await page.evaluate(() => {
        window.anSeen = [];
        new MutationObserver(() => window.anSeen.push(document.getElementById("an-status").textContent))
          .observe(document.getElementById("an-status"), { childList: true, characterData: true, subtree: true });
      });
      const posted = page.waitForResponse((r) => r.request().method() === "POST" && /\/analysis$/.test(r.url()));
      const t0 = Date.now();
      await page.focus("#an-go");
      await page.keyboard.press("Enter"); // by keyboard: the focus then goes to the section's heading
      const post = await posted;
      assert(post.status() === 202 || post.status() === 200, "POST answered " + post.status());
      if (post.status() === 202) {
        const b = await post.json();
        // moves is 0 until the server has read the record
        assert(["queued", "running"].includes(b.status) && typeof b.done === "number" && typeof b.moves === "number" && b.done <= b.moves, "202: " + JSON.stringify(b));
      }
      await page.waitForSelector("#an-body:not([hidden])", { timeout: 120000 });
      console.log(`     analysed in ${Date.now() - t0} ms; the status said ${JSON.stringify(await page.evaluate(() => [...new Set(window.anSeen)]))}`);
      const got = await getAnalysis(page, room);
      assert(got.status === 200 && got.body.format === "carcd-analysis/1", "GET after: " + JSON.stringify(got).slice(0, 300));
      doc = got.body;
      const n = doc.moves.length;
      for (const s of await page.evaluate(() => window.anSeen)) {
        const m = /^Rated (\d+) of (\d+) moves/.exec(s);
        if (m) assert(Number(m[2]) === n && Number(m[1]) <= n, `progress "${s}" for ${n} moves`);
        else assert(s === "" || s === EN["analysis.queued"], "the status said " + JSON.stringify(s));
      }
      assert(await page.isHidden("#an-go"), "Analyse is gone once the analysis is shown");
      assert(await page.evaluate(() => document.activeElement && document.activeElement.id === "an-h"), "the focus is not on the analysis' heading");

      await checkSummary(page, doc);

      // one mark per rated move, each the move's class
      const rated = doc.moves.filter((m) => m.class);
      assert(rated.length > 10, `only ${rated.length} rated moves`);
      const marks = await page.$$eval("#an-moves button[data-move]", (bs) => bs.map((b) => {
        const mk = b.querySelectorAll(".an-mark");
        return { move: Number(b.dataset.move), n: mk.length, cls: mk.length ? mk[0].dataset.class : null, label: b.getAttribute("aria-label") };
      }));
      assert(marks.length === n, `${marks.length} moves in the list, the document has ${n}`);
      assert(marks.reduce((a, b) => a + b.n, 0) === rated.length, `${marks.reduce((a, b) => a + b.n, 0)} class marks for ${rated.length} rated moves`);
      for (const m of doc.moves) {
        const b = marks[m.move];
        assert(b.cls === m.class, `move ${m.move + 1}: mark ${b.cls}, the document's class ${m.class}`);
        if (m.class) assert(b.label.includes(EN["analysis.class." + m.class]), `move ${m.move + 1}'s label says no class: ${b.label}`);
      }

      // the evaluation chart: a point per rated move, higher for a higher chance of player 0
      const pts = await page.$$eval("#an-win svg .pt[data-move]", (gs) => gs.map((g) => ({ move: Number(g.dataset.move), y: g.transform.baseVal[0].matrix.f })));
      assert(pts.length === rated.length, `${pts.length} chart points for ${rated.length} rated moves`);
      assert(JSON.stringify(pts.map((p) => p.move)) === JSON.stringify(rated.map((m) => m.move)), "the points are not the rated moves in order");
      if (doc.players.length === 2) {
        const v = (m) => (m.player === 0 ? m.win : 1 - m.win);
        const byVal = rated.map((m, i) => [v(m), pts[i].y]).sort((a, b) => a[0] - b[0]);
        for (let i = 1; i < byVal.length; i++) {
          assert(byVal[i][0] === byVal[i - 1][0] || byVal[i][1] < byVal[i - 1][1] + 1e-6, `a chance of ${byVal[i][0]} is drawn lower than ${byVal[i - 1][0]}`);
        }
      }
      const bars = await page.$$eval("#an-luck svg .bar[data-move]", (rs) => rs.length);
      assert(bars === rated.filter((m) => m.luck).length, `${bars} luck bars for ${rated.filter((m) => m.luck).length} moves with luck`);
      const mid = rated[Math.floor(rated.length / 2)].move;
      // a click where the point is drawn (a neighbour's shape may overlap it: the chart takes the nearest move)
      await page.$eval(`#an-win .pt[data-move="${mid}"]`, (g) => g.scrollIntoView({ block: "center" }));
      const at = await page.$eval(`#an-win .pt[data-move="${mid}"]`, (g) => {
        const r = g.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2];
      });
      await page.mouse.click(at[0], at[1]);
      assert((await slider(page)) === mid + 1, `a click on move ${mid + 1}'s point: the replay is at ${await slider(page)}`);
      assert(await page.$eval(`#an-moves button[data-move="${mid}"]`, (b) => b.getAttribute("aria-current") === "step"), "the list marks the current move");

      // a move not played as the best: its ghost at best.x/best.y; one played as the best: none
      const worse = doc.moves.find((m) => m.class && !m.best_is_played && m.best);
      assert(worse, "no move of the game was worse than the best found");
      await page.click(`#an-moves button[data-move="${worse.move}"]`);
      assert((await slider(page)) === worse.move + 1, "the list's button goes to its move");
      const ghost = await page.$$eval("#replay-world .an-ghost", (gs) => gs.map((g) => ({
        at: g.dataset.ghost, x: g.transform.baseVal[0].matrix.e, y: g.transform.baseVal[0].matrix.f,
        tile: !!g.querySelector(".tile"), meeple: g.querySelectorAll(".meeple").length, opacity: Number(g.getAttribute("opacity")),
      })));
      const b = worse.best;
      assert(ghost.length === 1, `${ghost.length} ghost tiles at move ${worse.move + 1}`);
      assert(ghost[0].at === `${b.x},${b.y}` && ghost[0].x === b.x * 100 && ghost[0].y === b.y * 100, `the ghost is at ${JSON.stringify(ghost[0])}, best at ${b.x},${b.y}`);
      assert(ghost[0].tile && ghost[0].opacity > 0 && ghost[0].opacity < 1, "the ghost is a translucent tile: " + JSON.stringify(ghost[0]));
      assert(ghost[0].meeple === (b.meeple ? 1 : 0), `the ghost has ${ghost[0].meeple} meeples, best.meeple ${JSON.stringify(b.meeple)}`);
      const line = await page.textContent("#an-move");
      assert(line.includes(EN["analysis.class." + worse.class]) && /lost/.test(line), `move ${worse.move + 1} in words: ${line}`);
      await page.screenshot({ path: path.join(ART, "analysis.png") });
      const best = doc.moves.find((m) => m.class && m.best_is_played);
      if (best) {
        await page.click(`#an-moves button[data-move="${best.move}"]`);
        assert((await page.$$eval("#replay-world .an-ghost", (g) => g.length)) === 0, `a ghost at move ${best.move + 1}, played as the best`);
      }

      // the keyboard: the list is one tab stop; arrows, Home and End move the replay and the focus
      await page.focus(`#an-moves button[data-move="${worse.move}"]`);
      const stops = await page.$$eval("#an-moves button", (bs) => bs.filter((x) => x.tabIndex === 0).length);
      assert(stops === 1, `${stops} tab stops in the move list`);
      const start = worse.move;
      await page.keyboard.press("ArrowRight");
      assert((await slider(page)) === Math.min(n, start + 2), "ArrowRight: the next move");
      assert(await page.evaluate((k) => document.activeElement.dataset.move === String(k), Math.min(n - 1, start + 1)), "the focus follows the move");
      await page.keyboard.press("End");
      assert((await slider(page)) === n, "End: the last move");
      await page.keyboard.press("Home");
      assert((await slider(page)) === 1, "Home: the first move");
      // the replay's own controls: the list's box scrolls to the move
      await page.click("#replay-last");
      const inBox = await page.$eval("#an-moves", (ol) => {
        const b = ol.lastElementChild.getBoundingClientRect();
        const r = ol.getBoundingClientRect();
        return b.top >= r.top - 1 && b.bottom <= r.bottom + 1;
      });
      assert(inBox, "after the replay's last move the list does not show its last move");
      await page.context().close();
    });

    await test("[analysis] shown at once when stored; a phone has no horizontal overflow; German words", async () => {
      assert(room && doc, "needs the analysed game of the test before");
      const page = await openPage(browser, "analysis-phone", PHONE, errors);
      await page.goto(url + "/#replay=" + encodeURIComponent(room));
      await page.waitForSelector("#an-body:not([hidden])", { timeout: 10000 });
      assert(await page.isHidden("#an-go"), "no Analyse button when the analysis is stored");
      await checkSummary(page, doc);
      await page.click("#replay-next");
      const over = await page.evaluate(() => {
        const side = document.querySelector("#replay-view .side");
        const out = [...document.querySelectorAll("#analysis, #analysis *")].filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
          .map((e) => e.id || e.className.baseVal || e.className || e.tagName).slice(0, 5);
        return { doc: document.documentElement.scrollWidth - innerWidth, side: side.scrollWidth - side.clientWidth, out };
      });
      assert(over.doc <= 0 && over.side <= 1 && over.out.length === 0, "the phone overflows sideways: " + JSON.stringify(over));
      await page.$eval("#analysis", (a) => a.scrollIntoView({ block: "start" }));
      await page.screenshot({ path: path.join(ART, "analysis-phone.png") });
      await page.context().close();

      const de = await browser.newContext({ viewport: DESKTOP, locale: "de-DE" });
      const dp = await de.newPage();
      dp.on("pageerror", (e) => errors.push("analysis-de: " + e.message));
      await dp.goto(url + "/#replay=" + encodeURIComponent(room));
      await dp.waitForSelector("#an-body:not([hidden])", { timeout: 10000 });
      const text = await dp.textContent("#analysis");
      assert(/Genauigkeit/.test(text) && /Verlorene Punkte/.test(text), "the German analysis: " + text.slice(0, 200));
      const german = new Set(Object.values(DE)); // "Analyse" is a word of both
      const english = Object.entries(EN).filter(([k, v]) => k.startsWith("analysis.") && typeof v === "string" && v.length >= 5 && !v.includes("{"))
        .map(([, v]) => v).filter((v) => text.includes(v) && !german.has(v));
      assert(english.length === 0, "English left in the German analysis: " + english.join(" | "));
      // the switcher redraws it in place, keeping the replay's move marked
      await dp.click("#replay-next");
      await dp.selectOption("#lang-select", "fr");
      await dp.waitForFunction(() => /Précision/.test(document.getElementById("an-summary").textContent));
      assert(await dp.$eval('#an-moves button[data-move="0"]', (b) => b.getAttribute("aria-current") === "step" && b.tabIndex === 0), "French: move 1 is no longer the list's current move");
      await de.close();
    });

    for (const [size, tag] of [[DESKTOP, "desktop"], [PHONE, "phone"]]) {
      await test(`[analysis] [${tag}] axe: the replay with its analysis and a ghost tile, no serious or critical violation`, async () => {
        assert(room && doc, "needs the analysed game of the first test");
        const page = await auditPage(browser, size, "analysis-a11y-" + tag, errors);
        await page.goto(url + "/#replay=" + encodeURIComponent(room));
        await page.waitForSelector("#an-body:not([hidden])", { timeout: 10000 });
        const worse = doc.moves.find((m) => m.class && !m.best_is_played && m.best);
        await page.click(`#an-moves button[data-move="${worse.move}"]`);
        await page.waitForSelector("#replay-world .an-ghost");
        await audit(page, "the analysis at " + tag);
        await page.context().close();
      });
    }
  } finally {
    await srv.stop();
  }
}

// Alone: node tests/e2e/analysis.mjs
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  fs.mkdirSync(ART, { recursive: true });
  await runAlone(analysisSuite);
}
