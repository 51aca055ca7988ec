// The e2e tests that run at both sizes (1366x850 and a 390x844 touch phone): a game against a
// bot in which every scoring the server sends is checked against what the board drew (the
// feature's outline over the right number of tiles and "+N" per scorer), the end-of-game
// scoring played back (whole on the desktop, skipped on the phone), a reload and a late
// spectator that get the whole events log and chat, and the replay page against
// GET /api/games/{id}/replay. `shot(name, page)` saves the screenshots of `make screenshots`.
import { assert, openPage, recordEvents, waitRecord } from "./harness.mjs";
import { replayChecks } from "./replay.mjs";

// Records every scoring group the page draws (js/scoring.js) into window.__fx.
async function instrumentFx(page) {
  await page.addInitScript(() => {
    window.__fx = [];
    window.__landings = new Set(); // tiles drawn with the landing motion (an opponent's move)
    const seen = new WeakSet();
    new MutationObserver((ms) => {
      for (const m of ms) {
        for (const n of m.addedNodes) {
          if (n instanceof Element && n.classList.contains("placed") && n.querySelector(".tile.landing")) window.__landings.add(n.dataset.pos);
          if (!(n instanceof Element) || !n.classList.contains("score-fx") || seen.has(n)) continue;
          seen.add(n);
          window.__fx.push({
            feature: n.dataset.feature, x: Number(n.dataset.x), y: Number(n.dataset.y), tiles: Number(n.dataset.tiles),
            final: n.classList.contains("final"), outline: (n.querySelector(".fx-outline") || { getAttribute: () => "" }).getAttribute("d").length,
            cells: [...n.querySelectorAll(".fx-cell")].map((c) => c.getAttribute("data-pos")),
            points: [...n.querySelectorAll(".score-points")].map((t) => [Number(t.dataset.seat), t.textContent]),
          });
        }
      }
    }).observe(document, { childList: true, subtree: true });
  });
}

// The centre of the n-th element matching `sel` that the user can hit: inside the viewport and
// not covered by anything (controls floating over the board on a phone); null if none.
function hitPoint(page, sel, n) {
  return page.evaluate(([sel, n]) => {
    const pts = [];
    for (const e of document.querySelectorAll(sel)) {
      const r = e.getBoundingClientRect();
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      if (x < 1 || y < 1 || x > innerWidth - 1 || y > innerHeight - 1) continue;
      const top = document.elementFromPoint(x, y);
      if (top && (top === e || e.contains(top))) pts.push([x, y]);
    }
    return pts.length ? pts[n % pts.length] : null;
  }, [sel, n]);
}

async function press(page, phone, [x, y]) {
  if (phone) await page.touchscreen.tap(x, y);
  else await page.mouse.click(x, y);
}

async function pressButton(page, phone, sel) {
  if (phone) await page.tap(sel);
  else await page.click(sel);
}

// One turn as a user: a legal square that fits (tapped on the phone), a meeple every third turn,
// Confirm.
async function move(page, phone, n) {
  const before = await page.evaluate(() => document.getElementById("log").children.length);
  let pt = (await hitPoint(page, "#world .legal.fits", n)) || (await hitPoint(page, "#world .legal", n));
  if (!pt) {
    await pressButton(page, phone, "#zoom-centre");
    pt = (await hitPoint(page, "#world .legal.fits", n)) || (await hitPoint(page, "#world .legal", n));
  }
  assert(pt, "no legal square the user can reach");
  await press(page, phone, pt);
  await page.waitForSelector("#world .pending");
  if (n % 3 === 0) {
    const sp = await hitPoint(page, "#world .pending .spot", n);
    if (sp) {
      await press(page, phone, sp);
      if (phone) {
        // a first tap shows the feature, the second takes it
        await page.waitForSelector("#world .spot.previewed");
        await press(page, phone, (await hitPoint(page, "#world .pending .spot.previewed", 0)) || sp);
      }
      await page.waitForSelector("#world .spot.selected");
    }
  }
  await pressButton(page, phone, "#confirm-btn");
  await page.waitForFunction((k) => document.getElementById("log").children.length > k, before);
}

const logLines = (p) => p.$$eval("#log li", (lis) => lis.map((li) => [li.className, li.textContent]));
// room events (seat, autoplay, timeout) are not in the server's history
const gameLines = (ls) => ls.filter(([c]) => !["ev-seat", "ev-autoplay", "ev-timeout"].includes(c)).map(([c, t]) => c + " " + t);

// Each scoring event (with scorers) matched by a drawn group: same feature and tile, its outline
// over ev.tiles tiles (cities, roads, cloisters, barns), the tile of the event among them, "+N"
// for each scorer.
function checkFx(events, drawn, final, limit) {
  const scored = events.filter((e) => (e.type === "score" || e.type === "barn") && !!e.final === final && (e.scorers || []).length).slice(0, limit);
  const pool = drawn.filter((f) => f.final === final);
  for (const ev of scored) {
    const feature = ev.type === "barn" ? "barn" : ev.feature;
    const i = pool.findIndex((f) => f.feature === feature && f.x === ev.x && f.y === ev.y);
    assert(i >= 0, `no outline drawn for ${JSON.stringify(ev)}; drawn: ${JSON.stringify(pool.slice(0, 3))}`);
    const f = pool.splice(i, 1)[0];
    if (typeof ev.tiles === "number") assert(f.tiles === ev.tiles, `${feature} at ${ev.x},${ev.y}: outlined ${f.tiles} tiles, the server says ${ev.tiles}`);
    assert(f.cells.includes(ev.x + "," + ev.y) && f.outline > 0, `${feature} at ${ev.x},${ev.y}: the outline misses its tile`);
    for (const seat of ev.scorers) {
      const p = f.points.find(([s]) => s === seat);
      assert(p && p[1] === "+" + ev.delta[seat], `${feature}: points shown ${JSON.stringify(f.points)}, delta ${ev.delta}`);
    }
  }
  return scored.length;
}

export async function sizeSuite({ browser, url, test, errors, size, tag, shot }) {
  const phone = size.width < 700;
  const state = {};

  await test(`[${tag}] a game against a bot: each scoring outlines its feature and shows its points`, async () => {
    const p = await openPage(browser, tag + "-player", size, errors);
    state.page = p;
    await instrumentFx(p);
    const events = recordEvents(p);
    state.events = events;
    await p.goto(url + "/");
    await p.waitForSelector("#conn.online");
    await shot("lobby", p);
    await p.fill("#create-name", phone ? "Pia" : "Dirk");
    await pressButton(p, phone, "#create-btn");
    await p.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
    state.room = await p.textContent("#room-id");
    const row = '#scoreboard tbody tr[data-seat="1"]';
    await p.waitForSelector(`${row} button.add-bot`);
    await p.selectOption(`${row} select.bot-level`, "greedy"); // it completes features: scorings to check
    await pressButton(p, phone, `${row} button.add-bot`);
    await p.waitForSelector('.bot-mark[data-bot-seat="1"]');
    await pressButton(p, phone, "#start-btn");
    let n = 0;
    let drawn = [];
    let scoringShot = false;
    const deadline = Date.now() + 150000;
    while (await p.evaluate(() => document.getElementById("end").hidden)) {
      assert(Date.now() < deadline, `game took too long (${n} moves)`);
      if (!(await p.$("#world .legal"))) {
        if (!state.finalShot && (await p.$("#world .score-fx.final"))) {
          state.finalShot = true;
          await shot("final-scoring", p);
        }
        if (phone && !state.skipped && (await p.$("#skip-scoring:not([hidden])"))) {
          // the phone skips the end-of-game playback once its first feature is on the board
          await p.waitForFunction(() => window.__fx.some((f) => f.final));
          await pressButton(p, phone, "#skip-scoring");
          await p.waitForSelector("#end:not([hidden])", { timeout: 1000 });
          state.skipped = true;
          continue;
        }
        if (!scoringShot && (await p.$("#world .score-fx:not(.final)"))) {
          scoringShot = true;
          await p.waitForTimeout(400); // the "+N" has risen
          await shot("scoring", p);
        }
        await p.waitForTimeout(40);
        continue;
      }
      if (n === 5) {
        // the bot moved last: its tile landed with a motion and carries its own mark
        const seen = await p.evaluate(() => [...window.__landings]);
        assert(seen.length >= 4, "opponent tiles animated: " + JSON.stringify(seen));
        const mark = await p.$eval("#world .last-placed", (g) => [g.dataset.seat, g.querySelector(".last-frame").getAttribute("stroke")]);
        const skipped = await p.evaluate(() => /skipped/.test(document.getElementById("log").lastElementChild.textContent));
        assert(skipped || mark[0] === "1", "last placed mark " + JSON.stringify(mark));
      }
      if (n === 8 && !state.history) {
        // a chat line, then a reload: the whole log and chat come back (PROTOCOL.md "history")
        if (phone) await p.tap('#phone-tabs button[data-panel="chat"]'); // the chat is a drawer there
        await p.fill("#chat-text", "history at " + tag);
        await p.press("#chat-text", "Enter");
        await p.waitForFunction((t) => document.getElementById("chat").textContent.includes(t), "history at " + tag);
        await shot("game", p);
        const before = gameLines(await logLines(p));
        const chat = await p.$$eval("#chat li", (lis) => lis.map((li) => li.textContent));
        drawn = drawn.concat(await p.evaluate(() => window.__fx));
        await p.reload();
        await p.waitForSelector("#log[data-history]", { state: "attached" });
        await p.waitForSelector("#world .legal");
        const after = gameLines(await logLines(p));
        assert(JSON.stringify(after) === JSON.stringify(before), "log after the reload:\n" + after.join("\n") + "\nbefore:\n" + before.join("\n"));
        const chatAfter = await p.$$eval("#chat li", (lis) => lis.map((li) => li.textContent));
        assert(JSON.stringify(chatAfter) === JSON.stringify(chat), "chat after the reload " + JSON.stringify(chatAfter));
        state.history = { lines: before, chat };
      }
      await move(p, phone, n++);
    }
    assert(n >= 30, "only " + n + " moves through the UI");
    drawn = drawn.concat(await p.evaluate(() => window.__fx));
    const live = checkFx(events, drawn, false);
    assert(live > 0, "no scoring during the game to check");
    state.liveScorings = live;
    state.drawn = drawn;
  });

  await test(`[${tag}] a late spectator gets the whole events log and chat`, async () => {
    assert(state.history, "no game from the previous test");
    const v = await openPage(browser, tag + "-late", size, errors);
    await v.goto(url + "/#room=" + state.room);
    await v.waitForSelector("#log[data-history]", { state: "attached" });
    const lines = gameLines(await logLines(v));
    const mine = gameLines(await logLines(state.page));
    assert(JSON.stringify(lines) === JSON.stringify(mine), "spectator's log:\n" + lines.slice(0, 10).join("\n") + "\nplayer's:\n" + mine.slice(0, 10).join("\n"));
    assert(lines.length > state.history.lines.length, "the log grew after the reload");
    const chat = await v.$$eval("#chat li", (lis) => lis.map((li) => li.textContent));
    assert(JSON.stringify(chat) === JSON.stringify(state.history.chat), "spectator's chat " + JSON.stringify(chat));
    await v.context().close();
  });

  await test(`[${tag}] the end-of-game scoring is played back on the board, then the end screen`, async () => {
    assert(state.drawn, "no game from the first test");
    const p = state.page;
    // skipped: only the first feature was drawn
    const finals = checkFx(state.events, state.drawn, true, state.skipped ? 1 : undefined);
    assert(finals > 0 || !state.events.some((e) => e.final && (e.scorers || []).length), "final scorings drawn");
    await p.waitForSelector("#end:not([hidden])");
    await shot("end", p);
    const over = await p.evaluate(async () => (await import("/js/scoring.js")).scoringPlaying());
    assert(!over, "the playback still runs under the end screen");
    state.finals = finals;
  });

  await test(`[${tag}] the replay page shows the per-move scores of GET /api/games/{id}/replay`, async () => {
    assert(state.room, "no game");
    await waitRecord(url, state.room);
    const p = await openPage(browser, tag + "-replay", size, errors);
    await replayChecks(p, url, state.room, assert);
    await shot("replay", p);
    await p.context().close();
    await state.page.context().close();
  });
}
