// panel.mjs: the side panel, the lobby, the events log, the "+N" labels and the replay's first
// view (issue 26, items 3, 5, 10, 11 and 14), at 1366x850 and on a 390x844 phone:
//   - the lobby: Create in view without scrolling; the knight's escape only with a set that has
//     sieges; a link to the help page, which has a section per set; Start with a free seat asks
//     first and starts only when told to;
//   - the side panel: the players and the turn before the events log, the log in view, the room
//     card compact and last; meeple choices do not move the score table; six players with every
//     set: no column of the score table is cut off (desktop, and the phone's Players panel);
//   - the events log: oldest first, so that a line keeps its number after later moves; room for
//     three-digit numbers; no "+0" farm lines;
//   - "+N" over a scored feature: its outline contrasts 4.5:1 with every seat's colour;
//   - the replay opens at the start, and its chart's text is at least 11 px on screen.
// panelSuite({browser, url, test, errors}) adds its tests to run.mjs; `node tests/e2e/panel.mjs`
// runs them alone (CARC_WEB_ROOT=DIR serves another copy of the client, e.g. an older one).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DESKTOP, PHONE, assert, launch, openPage, recordEvents, serverState, startServer } from "./harness.mjs";
import { clickMove } from "./play.mjs";

const SETS = ["inns-cathedrals", "besiegers", "cathars", "siege", "apothecaries-tithes"];

// The page's rectangle of an element (by selector), null when there is none.
function rect(page, sel) {
  return page.evaluate((sel) => {
    const e = document.querySelector(sel);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
  }, sel);
}

async function createRoom(page, url, name, seats, fill) {
  await page.goto(url + "/");
  await page.waitForSelector("#conn.online");
  await page.fill("#create-name", name);
  await page.selectOption("#create-seats", String(seats));
  if (fill) await fill(page);
  await page.click("#create-btn");
  await page.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
  return page.textContent("#room-id");
}

async function addBot(page, level, seat) {
  const row = `#scoreboard tbody tr[data-seat="${seat}"]`;
  await page.waitForSelector(`${row} button.add-bot`);
  await page.selectOption(`${row} select.bot-level`, level);
  await page.click(`${row} button.add-bot`);
  await page.waitForSelector(`.bot-mark[data-bot-seat="${seat}"]`);
}

// A game against a bot (random: it leaves farmers in fields that score nothing) that a bot plays
// to the end for us too (our clock runs out at once and has no increment): the page is left on
// the end screen. Returns the room.
export async function finishedGame(page, url, name, level = "random") {
  const room = await createRoom(page, url, name, 2, async (p) => {
    await p.selectOption("#create-clock", "custom");
    await p.fill("#clock-minutes", "0.03");
    await p.fill("#clock-increment", "0");
    await p.selectOption("#create-timeout", "bot");
  });
  await addBot(page, level, 1);
  await page.click("#start-btn");
  await page.waitForFunction(() => {
    const b = document.getElementById("skip-scoring");
    if (b && !b.hidden) b.click(); // the end-of-game playback: not what is looked at here
    return !document.getElementById("end").hidden;
  }, null, { timeout: 90000, polling: 200 });
  return room;
}

// Every cell of the score table ends inside its card (nothing cut off or scrolled away).
async function tableFits(page, where) {
  const r = await page.evaluate(() => {
    const card = document.getElementById("players-card");
    const cr = card.getBoundingClientRect();
    const cs = getComputedStyle(card);
    const right = cr.right - parseFloat(cs.borderRightWidth) - parseFloat(cs.paddingRight) + 0.5;
    const out = [];
    for (const c of card.querySelectorAll("#scoreboard th, #scoreboard td")) {
      const b = c.getBoundingClientRect();
      if (b.width && b.right > right) out.push(`${c.className || c.tagName} ${c.textContent.trim().slice(0, 20)}: ${Math.round(b.right)} > ${Math.round(right)}`);
    }
    const side = card.closest(".side") || card;
    return { out, cols: document.querySelectorAll("#scoreboard thead th").length, scroll: side.scrollWidth - side.clientWidth };
  });
  assert(r.cols >= 7, `${where}: ${r.cols} columns (marker, name, score, meeples, large, herbs and more expected)`);
  assert(r.out.length === 0, `${where}: cut off: ${r.out.join("; ")}`);
  assert(r.scroll <= 1, `${where}: the panel scrolls sideways by ${r.scroll}px`);
}

// shot(name, page), when given, saves a screenshot of what a test checks (make screenshots).
export async function panelSuite({ browser, url, test, errors, shot = async () => {} }) {
  for (const [size, tag] of [[DESKTOP, "desktop"], [PHONE, "phone"]]) {
    await test(`[${tag}] lobby: Create in view, only the chosen sets' options, a help link with every set's rules`, async () => {
      const page = await openPage(browser, "lobby-" + tag, size, errors);
      await page.goto(url + "/");
      await page.waitForSelector("#conn.online");
      const b = await rect(page, "#create-btn");
      const vh = size.height;
      assert(b && b.top >= 0 && b.bottom <= vh, `Create is not in view without scrolling: ${JSON.stringify(b)} in ${vh}`);
      await shot(`panel-lobby-${tag}`, page);
      assert(!(await page.isVisible("#create-escape")), "the knight's escape is shown with no siege set chosen");
      await page.check('#create-form input[value="besiegers"]');
      assert(await page.isVisible("#create-escape"), "the knight's escape is hidden with Besiegers chosen");
      await page.uncheck('#create-form input[value="besiegers"]');
      assert(!(await page.isVisible("#create-escape")), "the knight's escape stays after Besiegers is unchosen");
      const link = await page.$('#lobby-view a[href="help.html"]');
      assert(link && (await link.isVisible()), "no visible link to help.html in the lobby");
      const help = await openPage(browser, "help-" + tag, size, errors);
      const res = await help.goto(url + "/help.html");
      assert(res.ok(), "help.html: HTTP " + res.status());
      for (const id of ["how", "rules-base", "rules-inns-cathedrals", "rules-sieges", "rules-apothecaries-tithes"]) {
        const h = await help.$(`#${id} h2`);
        assert(h && (await h.textContent()).trim().length > 3, `help.html has no section #${id} with a heading`);
      }
      assert((await help.$$("#how svg")).length >= 3, "How to play has fewer than three pictures");
      await shot(`panel-help-${tag}`, help);
      await help.context().close();
      await page.context().close();
    });
  }

  let game = null; // {page, room}: a game of ours against a bot, started with a seat free
  await test("[desktop] Start with a free seat asks first; Wait keeps the room open", async () => {
    const page = await openPage(browser, "panel", DESKTOP, errors);
    const room = await createRoom(page, url, "Pam", 3);
    await addBot(page, "random", 1);
    await page.click("#start-btn");
    await page.waitForSelector("#start-ask:not([hidden])", { timeout: 3000 });
    assert(/2 of the 3 seats/.test(await page.textContent("#start-ask")), "the question: " + (await page.textContent("#start-ask")));
    await shot("panel-start-ask-desktop", page);
    await page.waitForTimeout(300);
    assert((await serverState(page, room)).phase === "lobby", "the game started without the answer");
    await page.click("#start-wait");
    assert(await page.$eval("#start-ask", (n) => n.hidden), "Wait leaves the question open");
    assert((await serverState(page, room)).phase === "lobby", "Wait started the game");
    await page.click("#start-btn");
    await page.click("#start-anyway");
    await page.waitForFunction(() => /Tiles left/.test(document.getElementById("tiles-left").textContent));
    game = { page, room };
  });

  await test("[desktop] side panel: players, turn, events in view, then a compact room card; choices do not move the scores", async () => {
    assert(game, "no game from the previous test");
    const { page } = game;
    await page.waitForSelector("#world .legal", { timeout: 15000 });
    const top = {};
    for (const id of ["players-card", "turn-card", "log-card", "room-card", "chat-card"]) top[id] = (await rect(page, "#" + id)).top;
    assert(top["players-card"] < top["turn-card"] && top["turn-card"] < top["log-card"] && top["log-card"] < top["room-card"] && top["room-card"] < top["chat-card"],
      "the side panel's order: " + JSON.stringify(top));
    const log = await rect(page, "#log");
    assert(log.top + 40 <= DESKTOP.height, `the events log starts below the fold: ${Math.round(log.top)}`);
    const room = await rect(page, "#room-card");
    assert(room.height <= 170, `the room card takes ${Math.round(room.height)}px`);
    const before = await rect(page, "#scoreboard");
    await ((await page.$("#world .legal.fits")) || (await page.$("#world .legal"))).click(); // none may fit this rotation
    await page.waitForSelector("#world .pending");
    await page.waitForSelector("#choices button", { timeout: 3000 });
    const after = await rect(page, "#scoreboard");
    await shot("panel-side-desktop", page);
    assert(Math.abs(after.top - before.top) < 1, `the meeple choices moved the score table from ${before.top} to ${after.top}`);
    await page.click("#undo-btn");
  });

  await test("[desktop] events log: oldest first, numbers that stay, room for 3 digits; \"+N\" readable on every seat colour", async () => {
    assert(game, "no game from the previous test");
    const { page } = game;
    const lines = () => page.$$eval("#log li", (lis) => lis.map((li) => li.textContent));
    for (let n = 0; n < 3; n++) {
      await page.waitForSelector("#world .legal", { timeout: 15000 });
      const a = await lines();
      await clickMove(page, n + 1);
      await page.waitForSelector("#world .legal", { timeout: 15000 }); // the bot has moved too
      const b = await lines();
      assert(b.length > a.length, "the log did not grow");
      const moved = a.findIndex((x, i) => b[i] !== x);
      assert(moved === -1, `line ${moved + 1} changed after a move: "${a[moved]}" is now "${b[moved]}"`);
    }
    assert(await page.$eval("#log", (l) => l.start === 1), "the log is not numbered from 1");
    // three-digit numbers fit in the log's margin, at both sizes
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      if (size === PHONE) await page.click('#phone-tabs button[data-panel="log"]');
      const fit = await page.$eval("#log", (l) => {
        const s = document.createElement("span");
        s.textContent = "888. ";
        s.style.font = getComputedStyle(l).font;
        s.style.position = "absolute";
        document.body.append(s);
        const w = s.getBoundingClientRect().width;
        s.remove();
        return { pad: parseFloat(getComputedStyle(l).paddingLeft), need: w };
      });
      assert(fit.pad >= fit.need, `the log's numbers have ${fit.pad}px, "888." needs ${fit.need}px (${size.width}px wide)`);
      if (size === PHONE) await shot("panel-log-phone", page);
      if (size === PHONE) await page.click('#phone-tabs button[data-panel="log"]');
    }
    await page.setViewportSize(DESKTOP);
    // "+N" of each seat colour, drawn as a scoring of the start tile's first feature
    const ratios = await page.evaluate(async () => {
      // WCAG's contrast ratio of two CSS colours
      const lum = (c) => {
        const v = c.match(/[\d.]+/g).slice(0, 3).map((x) => Number(x) / 255).map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4));
        return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
      };
      const contrast = (a, b) => {
        const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
        return (x + 0.05) / (y + 0.05);
      };
      const { app } = await import("/js/app.js");
      const { scoringShow } = await import("/js/scoring.js");
      const b = app.doc.board["0,0"];
      const seg = app.tiles[b.tile].segments[0];
      const feature = seg.kind === "field" ? "farm" : seg.kind;
      for (let s = 0; s < 6; s++) {
        const delta = [0, 0, 0, 0, 0, 0];
        delta[s] = 12;
        scoringShow([{ type: "score", feature, x: 0, y: 0, segment: seg.name, scorers: [s], delta, points: 12, tiles: 1 }], {}, null);
      }
      return [...document.querySelectorAll("#world .score-points")].map((n) => {
        const cs = getComputedStyle(n);
        return [Number(n.dataset.seat), cs.fill, cs.stroke, contrast(cs.fill, cs.stroke)];
      });
    });
    assert(new Set(ratios.map((r) => r[0])).size === 6, "not every seat's +N was drawn: " + JSON.stringify(ratios));
    const weak = ratios.filter((r) => r[3] < 4.5);
    await shot("panel-points-desktop", page);
    assert(weak.length === 0, "+N below 4.5:1: " + weak.map((r) => `seat ${r[0]} ${r[1]} on ${r[2]}: ${r[3].toFixed(2)}`).join("; "));
    await page.context().close();
    game = null;
  });

  await test("[both] six players with every set: no column of the score table is cut off", async () => {
    const page = await openPage(browser, "six", DESKTOP, errors);
    await createRoom(page, url, "Sam", 6, async (p) => {
      for (const s of SETS) await p.check(`#create-form input[value="${s}"]`);
      await p.selectOption("#create-clock", "relaxed");
    });
    for (let s = 1; s < 6; s++) await addBot(page, ["random", "greedy", "strong"][s % 3], s);
    await page.click("#start-btn");
    await page.waitForFunction(() => /Tiles left/.test(document.getElementById("tiles-left").textContent));
    await tableFits(page, "1366x850");
    await shot("panel-six-desktop", page);
    await page.setViewportSize(PHONE);
    await page.click('#phone-tabs button[data-panel="players"]');
    await tableFits(page, "390x844, the Players panel");
    await shot("panel-six-phone", page);
    await page.context().close();
  });

  await test("[both] a finished game: no \"+0\" farm lines; the replay opens at the start, its chart's text at least 11 px", async () => {
    const page = await openPage(browser, "done", DESKTOP, errors);
    const events = recordEvents(page);
    const room = await finishedGame(page, url, "Dora");
    const zeroFarms = events.filter((e) => e.type === "score" && e.feature === "farm" && !(e.delta || []).some((n) => n)).length;
    const shown = await page.$$eval("#log li", (lis) => lis.filter((li) => li.carcEvent && li.carcEvent[0].type === "score" && li.carcEvent[0].feature === "farm"
      && !(li.carcEvent[0].delta || []).some((n) => n)).map((li) => li.textContent));
    assert(shown.length === 0, `${shown.length} "+0" farm lines in the log (of ${zeroFarms} such events): ${shown[0]}`);
    if (!zeroFarms) console.log("     (this game had no farm that scored nothing: the \"+0\" check saw nothing to leave out)");
    for (const size of [DESKTOP, PHONE]) {
      const p = await openPage(browser, "replay-" + size.width, size, errors);
      for (let i = 0; i < 100; i++) {
        if ((await fetch(url + "/api/games/" + room)).ok) break;
        await p.waitForTimeout(100);
      }
      await p.goto(url + "/#replay=" + room);
      await p.waitForFunction(() => Number(document.getElementById("replay-slider").max) > 0, null, { timeout: 10000 });
      await p.waitForTimeout(200);
      const at = await p.$eval("#replay-slider", (s) => [Number(s.value), Number(s.max)]);
      assert(at[0] === 0, `the replay opens at position ${at[0]} of ${at[1]}, not at the start`);
      await shot(`panel-replay-start-${size.width < 700 ? "phone" : "desktop"}`, p);
      await p.click("#replay-last"); // the whole chart
      const px = await p.$$eval("#replay-chart svg text", (ts) => ts.map((t) => {
        const svg = t.ownerSVGElement;
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return parseFloat(getComputedStyle(t).fontSize) * scale;
      }));
      assert(px.length > 0, "no chart text");
      const small = Math.min(...px);
      assert(small >= 11, `the replay chart's text is ${small.toFixed(1)} px at ${size.width}x${size.height}`);
      await p.context().close();
    }
    await page.context().close();
  });
}

// Alone: node tests/e2e/panel.mjs
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
      console.log(`FAIL ${name}: ${e && e.stack ? e.stack.split("\n").slice(0, 2).join("\n     ") : e}`);
    }
  };
  try {
    await panelSuite({ browser, url: srv.url, test, errors });
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
