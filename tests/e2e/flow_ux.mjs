// The game's flow from the player's side (issue 26, items 1, 7, 8, 9 and Play again), one test
// per item, each failing on the client before it:
//  1. Leave (and the carcd logo) in a game asks first in a modal dialog; Cancel keeps the game;
//     confirming leaves, and "Resume my game" in the lobby brings the player back to a game
//     that is not over (the server's bots keep bot-pace-ms and pause a game nobody is in).
//  7. A clock that runs out under "a bot plays the turn" with no increment: the seat note says
//     a bot plays every remaining turn, and "Take my seat back" gives the seat back.
//  8. Tied players share a rank (1, 1, 3).
//  9. The end screen beside the side panel (desktop), inside the screen (phone), its chart
//     legend whole, and "Results" opens it again once closed.
//  Play again: the host offers a rematch, a second browser accepts in one click, both are in
//     the new room.
// Run by run.mjs (flowSuite), or alone: `node tests/e2e/flow_ux.mjs` (CARC_WEB_ROOT=dir serves
// another client, e.g. an older one, to see these tests fail on it; screenshots flow-*.png in
// $CARC_BUILD/artifacts/).
import { fileURLToPath } from "node:url";
import fs from "node:fs";
import path from "node:path";
import { BUILD, DESKTOP, PHONE, assert, launch, openPage, serverState, startServer } from "./harness.mjs";

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

// Leave through the question: the dialog opens with the focus on its safe answer.
async function leaveConfirmed(page) {
  await page.click("#leave-btn");
  await page.waitForSelector("dialog#ask[open]", { timeout: 5000 });
  await page.click("#ask-ok");
  await page.waitForSelector("#lobby-view:not([hidden])");
}

async function waitPhase(page, room, phase, ms) {
  const t0 = Date.now();
  for (;;) {
    const st = await serverState(page, room);
    if (st.phase === phase) return st;
    assert(Date.now() - t0 < ms, `room ${room} still ${st.phase} after ${ms} ms (turn ${st.turn})`);
    await page.waitForTimeout(500);
  }
}

// Rectangles of elements by selector (null when absent).
function rect(page, sel) {
  return page.evaluate((sel) => {
    const e = document.querySelector(sel);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height };
  }, sel);
}

// Every legend entry of the end screen's chart lies within the chart's box (none cut off at
// its edge): the HTML legend's items, or an older client's SVG legend texts.
async function legendWhole(page, label) {
  const r = await page.evaluate(() => {
    const box = document.getElementById("chart").getBoundingClientRect();
    const items = [...document.querySelectorAll("#chart .chart-legend li, #chart text.legend")];
    return { box: { left: box.left, right: box.right }, items: items.map((e) => {
      const b = e.getBoundingClientRect();
      return { text: e.textContent, left: b.left, right: b.right, scroll: e.scrollWidth > e.clientWidth + 1 };
    }) };
  });
  assert(r.items.length >= 2, `${label}: ${r.items.length} legend entries`);
  for (const it of r.items) {
    assert(it.left >= r.box.left - 0.5 && it.right <= r.box.right + 0.5 && !it.scroll,
      `${label}: legend "${it.text}" cut off: ${it.left.toFixed(1)}..${it.right.toFixed(1)} outside ${r.box.left.toFixed(1)}..${r.box.right.toFixed(1)}`);
  }
}

// shot(name, page), when given, saves a screenshot (make screenshots, run.mjs's artifacts):
// each one at both sizes, NAME-desktop and NAME-phone.
export async function flowSuite({ browser, url, test, errors, shot }) {
  const newPage = (label, viewport) => openPage(browser, label, viewport || DESKTOP, errors);
  const shots = async (name, page) => {
    if (!shot) return;
    await page.setViewportSize(DESKTOP);
    await shot(name + "-desktop", page);
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(100);
    await shot(name + "-phone", page);
    await page.setViewportSize(DESKTOP);
  };

  await test("[flow 1] Leave and the logo ask first; Cancel keeps the game; the player comes back to a game not over", async () => {
    const p = await newPage("leaver");
    const room = await createRoom(p, url, "Lena", 2);
    await addBot(p, "random", 1);
    await p.click("#start-btn");
    await p.waitForFunction(() => document.querySelectorAll("#world .placed, #world [data-pos]").length > 0);
    await p.click("#leave-btn");
    await p.waitForSelector("dialog#ask[open]", { timeout: 5000 });
    const q = await p.evaluate(() => ({
      text: document.getElementById("ask").textContent,
      focus: document.activeElement && document.activeElement.id,
      modal: document.getElementById("ask").matches(":modal"),
    }));
    assert(q.modal, "the question is not a modal dialog");
    assert(q.focus === "ask-cancel", "focus on " + q.focus);
    assert(/bot plays your turns/.test(q.text) && /Resume my game/.test(q.text), "the question says " + q.text);
    await shots("flow-leave-question", p);
    await p.click("#ask-cancel");
    await p.waitForSelector("dialog#ask", { state: "hidden" });
    assert(await p.isVisible("#room-view"), "Cancel left the game");
    let st = await serverState(p, room);
    assert(st.seats[0].autoplay === null && st.seats[0].connected, "after Cancel: " + JSON.stringify(st.seats[0]));
    // the logo asks too; Escape answers no
    await p.click("#home");
    await p.waitForSelector("dialog#ask[open]", { timeout: 5000 });
    await p.keyboard.press("Escape");
    await p.waitForSelector("dialog#ask", { state: "hidden" });
    assert(await p.isVisible("#room-view"), "Escape on the logo's question left the game");
    await leaveConfirmed(p);
    st = await serverState(p, room);
    assert(st.seats[0].autoplay === "left", "autoplay " + st.seats[0].autoplay);
    const turnLeft = st.turn;
    const leftAt = Date.now();
    await p.waitForSelector("#resume-btn", { timeout: 5000 });
    await shots("flow-resume-card", p);
    await p.waitForTimeout(1500);
    await p.click("#resume-btn");
    await p.waitForFunction(() => /You are Lena/.test(document.getElementById("room-role").textContent));
    st = await serverState(p, room);
    // bots keep their pace (250 ms a move here): a few seconds away is a few moves, not the game
    const away = Date.now() - leftAt;
    assert(st.phase === "playing", "the game went on to its end: " + st.phase);
    assert(st.turn - turnLeft <= away / 250 + 2, `bots played ${st.turn - turnLeft} moves in ${away} ms`);
    assert(st.seats[0].autoplay === null, "seat not back: " + st.seats[0].autoplay);
    assert(await p.isHidden("#resume-card"), "the way back is still offered");
    await p.context().close();
  });

  await test("[flow 7] out of time with no increment under 'a bot plays': told, and the seat taken back in one click", async () => {
    const p = await newPage("late");
    const room = await createRoom(p, url, "Tim", 2, async (pg) => {
      await pg.selectOption("#create-clock", "custom");
      await pg.fill("#clock-minutes", "0.05");
      await pg.fill("#clock-increment", "0");
      await pg.selectOption("#create-timeout", "bot");
    });
    await addBot(p, "random", 1);
    await p.click("#start-btn");
    await p.waitForSelector("#take-back-btn:not([hidden])", { timeout: 15000 });
    const note = await p.textContent("#seat-note");
    assert(/a bot now plays all your remaining turns/.test(note), "seat note " + note);
    let st = await serverState(p, room);
    assert(st.seats[0].autoplay === "timeout", "autoplay " + st.seats[0].autoplay);
    await p.click("#take-back-btn");
    await p.waitForFunction(() => /Tim took the seat back/.test(document.getElementById("log").textContent), null, { timeout: 5000 });
    st = await serverState(p, room);
    assert(st.seats[0].autoplay === null, "after taking it back: " + st.seats[0].autoplay);
    assert(st.seats[0].time_ms > 0, "no time after taking it back: " + st.seats[0].time_ms);
    // the 3 s it got back run out too: the note again, for the screenshots (the bots may have
    // finished the game meanwhile on a busy machine: then there is nothing to show)
    if (shot) {
      const again = await p.waitForSelector("#take-back-btn:not([hidden])", { timeout: 10000 }).catch(() => null);
      if (again) await shots("flow-out-of-time", p).catch(() => null); // a busy machine's slow screenshot is no failure
    }
    await p.context().close();
  });

  await test("[flow 8] tied players share a rank: 1, 1, 3", async () => {
    const p = await newPage("ties");
    await p.goto(url + "/");
    await p.waitForSelector("#conn.online");
    const ranks = await p.evaluate(async () => {
      const { renderRanking } = await import("/js/ending.js");
      const ol = document.createElement("ol");
      document.body.append(ol);
      renderRanking(ol, [{ seat: 0, label: "Ann", score: 40 }, { seat: 1, label: "Bob", score: 52 }, { seat: 2, label: "Cleo", score: 52 }]);
      const r = [...ol.children].map((li) => [li.value, li.dataset.seat]);
      ol.remove();
      return r;
    });
    assert(JSON.stringify(ranks.map((r) => r[0])) === "[1,1,3]", "ranks " + JSON.stringify(ranks));
    assert(ranks[2][1] === "0", "the lower score last " + JSON.stringify(ranks));
    await p.context().close();
  });

  await test("[flow 9, Play again] end screen beside the panel, legend whole, Results reopens it; rematch accepted in one click", async () => {
    // a room with a password: the rematch has it too, and Bob's one click gives it
    const ann = await newPage("host");
    const room = await createRoom(ann, url, "Maximilian-Alexander", 3, async (p) => {
      await p.click("#create-more summary");
      await p.fill("#create-password", "tr0ubador");
    });
    const bob = await newPage("guest");
    await bob.goto(url + "/#room=" + room);
    await bob.waitForSelector("#room-join-form:not([hidden])");
    await bob.fill("#room-join-name", "Bob");
    await bob.fill("#room-join-password", "tr0ubador");
    await bob.click("#room-join-btn");
    await ann.waitForFunction(() => /Bob/.test(document.getElementById("scoreboard").textContent));
    await addBot(ann, "random", 2);
    await ann.click("#start-btn");
    // both pages in the game before they leave (Leave in a room's lobby frees the seat, unasked)
    for (const p of [ann, bob]) await p.waitForFunction(() => document.getElementById("tiles-left").textContent.length > 0);
    // both leave: the bots play the game out at their pace (nobody connected: within bots-alone-grace)
    await leaveConfirmed(ann);
    await leaveConfirmed(bob);
    await waitPhase(ann, room, "over", 120000);
    for (const p of [ann, bob]) {
      await p.click("#resume-btn");
      await p.waitForSelector("#end:not([hidden])", { timeout: 10000 });
    }
    // desktop: the end screen beside the side panel, not over it
    const end = await rect(ann, "#end");
    const side = await rect(ann, "#room-view .side");
    assert(end.right <= side.left + 0.5, `the end screen (${end.left}..${end.right}) overlaps the side panel (from ${side.left})`);
    await legendWhole(ann, "desktop");
    await shots("flow-end", ann);
    // closed, it opens again from Results
    await ann.click("#end-close");
    await ann.waitForSelector("#end", { state: "hidden" });
    await ann.waitForSelector("#results-btn", { state: "visible", timeout: 5000 });
    await shots("flow-results", ann);
    await ann.click("#results-btn");
    await ann.waitForSelector("#end:not([hidden])");
    // phone: inside the screen, the legend whole
    await ann.setViewportSize(PHONE);
    await ann.waitForTimeout(200);
    const pe = await rect(ann, "#end");
    assert(pe.left >= 0 && pe.right <= PHONE.width && pe.top >= 0 && pe.bottom <= PHONE.height, "phone end screen " + JSON.stringify(pe));
    // the score bar stays in view above it
    const bar = await rect(ann, "#players-card");
    assert(bar && bar.bottom <= pe.top + 0.5 && bar.bottom > 0, `the end screen (from ${pe.top}) covers the score bar (to ${bar && bar.bottom})`);
    await legendWhole(ann, "phone");
    await ann.setViewportSize(DESKTOP);
    // Play again: the host offers, Bob accepts in one click, both in the new room
    assert(await bob.isHidden("#rematch-btn"), "Play again shown to a player who is not the host");
    await ann.click("#rematch-btn");
    await ann.waitForFunction((old) => {
      const id = document.getElementById("room-id").textContent;
      return id && id !== old;
    }, room);
    const fresh = await ann.textContent("#room-id");
    assert(await ann.isHidden("#end"), "the end screen over the new room");
    await bob.waitForSelector("#rematch-card:not([hidden])", { timeout: 5000 });
    assert(/Maximilian-Alexander offers a new game/.test(await bob.textContent("#rematch-card")), "invitation " + await bob.textContent("#rematch-card"));
    await shots("flow-rematch-invitation", bob);
    await bob.click("#rematch-join");
    await bob.waitForFunction((id) => document.getElementById("room-id").textContent === id && /You are Bob/.test(document.getElementById("room-role").textContent), fresh);
    const st = await serverState(ann, fresh);
    assert(st.phase === "lobby", "new room phase " + st.phase);
    assert(JSON.stringify(st.seats.map((s) => [s.name, s.bot])) === JSON.stringify([["Maximilian-Alexander", null], ["Random bot", "random"], ["Bob", null]]),
      "new room seats " + JSON.stringify(st.seats.map((s) => [s.name, s.bot])));
    assert(await ann.isVisible("#start-btn"), "the host can start the new game");
    await ann.context().close();
    await bob.context().close();
  });
}

// Alone: a server of its own (CARC_WEB_ROOT: another client's folder).
async function main() {
  const srv = await startServer(process.env.CARC_WEB_ROOT ? ["--web-root", process.env.CARC_WEB_ROOT] : []);
  const browser = await launch();
  const errors = [];
  let passed = 0;
  let failed = 0;
  const test = async (name, fn) => {
    try {
      await fn();
      passed++;
      console.log("ok   " + name);
    } catch (e) {
      failed++;
      console.log(`FAIL ${name}: ${e && e.stack ? e.stack.split("\n").slice(0, 4).join("\n     ") : e}`);
    }
  };
  try {
    const art = path.join(BUILD, "artifacts");
    fs.mkdirSync(art, { recursive: true });
    await flowSuite({ browser, url: srv.url, test, errors, shot: (name, page) => page.screenshot({ path: path.join(art, name + ".png") }) });
  } finally {
    await browser.close();
    try {
      srv.stop();
    } catch (e) {
      /* the data folder is removed while carcd writes its last file: nothing to check */
    }
  }
  if (errors.length) console.log("console errors:\n" + errors.join("\n"));
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
