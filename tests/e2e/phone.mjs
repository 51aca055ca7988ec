// The phone layout (issue 12): a whole game against a bot at 390x844 in a touch context, with
// taps only. On every one of our turns the board (#board) must be mostly visible and Confirm
// (#confirm-btn) wholly inside the viewport and not covered; a touch drag and a pinch on the
// board must move the view (#world's transform). The lobby, the room's lobby, the drawer, the
// end screen and the replay of the game are checked to fit the width. Screenshots: phone-*.png.
import path from "node:path";

const W = 390;
const H = 844;

// Fractions of the viewport, and of the board's samples that must reach the board.
const BOARD_MIN = 0.6;

function logLength(page) {
  return page.evaluate(() => document.getElementById("log").children.length);
}

// Rectangles of elements by id, and what is hit at the centre of each.
function rects(page, ids) {
  return page.evaluate((ids) => {
    const out = {};
    for (const id of ids) {
      const n = document.getElementById(id);
      const b = n.getBoundingClientRect();
      const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
      out[id] = { left: b.left, top: b.top, right: b.right, bottom: b.bottom, width: b.width, height: b.height, onTop: !!hit && n.contains(hit) };
    }
    return out;
  }, ids);
}

// The part of the viewport where a tap reaches the board: a 20 x 40 grid of sample points.
function boardVisible(page) {
  return page.evaluate(() => {
    const board = document.getElementById("board");
    let on = 0;
    let all = 0;
    for (let i = 0; i < 20; i++) {
      for (let j = 0; j < 40; j++) {
        const x = ((i + 0.5) / 20) * innerWidth;
        const y = ((j + 0.5) / 40) * innerHeight;
        const hit = document.elementFromPoint(x, y);
        all++;
        if (hit && board.contains(hit)) on++;
      }
    }
    return on / all;
  });
}

function inside(r) {
  return r.left >= 0 && r.top >= 0 && r.right <= W && r.bottom <= H && r.width > 0 && r.height > 0;
}

// No horizontal scrolling: nothing is wider than the screen.
async function fitsWidth(page, assert, what) {
  const w = await page.evaluate(() => document.documentElement.scrollWidth);
  assert(w <= W, `${what}: the page is ${w}px wide at ${W}px`);
}

// The turn conditions: the board fills most of the screen, Confirm is fully on it and on top.
async function checkTurn(page, assert, what) {
  const vp = page.viewportSize();
  assert(vp.width === W && vp.height === H, "viewport " + JSON.stringify(vp));
  const r = await rects(page, ["board", "confirm-btn", "rotate-btn", "undo-btn", "scoreboard"]);
  assert(inside(r.scoreboard) && r.scoreboard.height <= 60, `${what}: the scores are not a compact bar: ${JSON.stringify(r.scoreboard)}`);
  const b = r.board;
  const area = Math.max(0, Math.min(b.right, W) - Math.max(b.left, 0)) * Math.max(0, Math.min(b.bottom, H) - Math.max(b.top, 0));
  assert(area >= BOARD_MIN * W * H, `${what}: the board shows ${(area / (W * H) * 100).toFixed(0)}% of the viewport`);
  const vis = await boardVisible(page);
  assert(vis >= BOARD_MIN, `${what}: taps reach the board on ${(vis * 100).toFixed(0)}% of the viewport`);
  for (const id of ["confirm-btn", "rotate-btn", "undo-btn"]) {
    assert(inside(r[id]), `${what}: #${id} is not inside the viewport: ${JSON.stringify(r[id])}`);
    assert(r[id].onTop, `${what}: #${id} is covered`);
    assert(r[id].height >= 36 && r[id].width >= 60, `${what}: #${id} is too small to tap: ${r[id].width}x${r[id].height}`);
  }
  return vis;
}

function transform(page) {
  return page.getAttribute("#world", "transform");
}

// The centres of the board elements matching sel that a tap would reach (not under a bar).
function tappable(page, sel) {
  return page.evaluate((sel) => {
    const out = [];
    for (const n of document.querySelectorAll(sel)) {
      const b = n.getBoundingClientRect();
      const x = b.left + b.width / 2;
      const y = b.top + b.height / 2;
      if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) continue;
      const hit = document.elementFromPoint(x, y);
      if (hit && n.contains(hit)) out.push({ x, y, size: Math.min(b.width, b.height) });
    }
    return out;
  }, sel);
}

// A touch gesture through CDP: each step lists the fingers' positions.
async function touch(cdp, steps) {
  const pts = (s) => s.map(([x, y], id) => ({ x, y, id, radiusX: 4, radiusY: 4, force: 1 }));
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: pts(steps[0]) });
  for (const s of steps.slice(1)) await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: pts(s) });
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
}

function lerp(a, b, n) {
  const out = [];
  for (let i = 0; i <= n; i++) out.push(a.map((p, k) => [p[0] + ((b[k][0] - p[0]) * i) / n, p[1] + ((b[k][1] - p[1]) * i) / n]));
  return out;
}

// A one-finger drag and a two-finger pinch on the board must change the view; Fit brings the
// board back.
async function gestures(page, assert) {
  const cdp = await page.context().newCDPSession(page);
  const t0 = await transform(page);
  await touch(cdp, lerp([[150, 400]], [[230, 460]], 8));
  const t1 = await transform(page);
  assert(t1 !== t0, `a touch drag did not move the board (${t0})`);
  await touch(cdp, lerp([[170, 420], [220, 420]], [[110, 420], [280, 420]], 8));
  const t2 = await transform(page);
  const scale = (t) => Number(/scale\(([-\d.]+)\)/.exec(t || "")[1]);
  assert(scale(t2) > scale(t1) * 1.2, `a pinch did not zoom in: ${t1} -> ${t2}`);
  await page.tap("#zoom-centre");
  await page.waitForFunction((t) => document.getElementById("world").getAttribute("transform") !== t, t2);
  await cdp.detach();
}

// One of our turns by taps: a position that fits (after a Rotate now and then), a meeple from
// the turn bar's choices or a spot on the board now and then, an Undo once, then Confirm.
async function tapMove(page, n, assert, artDir) {
  const before = await logLength(page);
  await checkTurn(page, assert, `turn ${n}`);
  if (n % 4 === 1) await page.tap("#rotate-btn");
  let cells = await tappable(page, "#world .legal.fits");
  if (!cells.length) cells = await tappable(page, "#world .legal");
  if (!cells.length) {
    // every legal position is under a bar or off the screen: Fit, then take any
    await page.tap("#zoom-centre");
    await page.waitForTimeout(50);
    cells = await tappable(page, "#world .legal");
  }
  assert(cells.length, `turn ${n}: no legal position can be tapped`);
  const c = cells[n % cells.length];
  await page.touchscreen.tap(c.x, c.y);
  await page.waitForSelector("#world .pending");
  if (n === 2) {
    await page.tap("#undo-btn");
    await page.waitForSelector("#world .pending", { state: "detached" });
    await page.waitForSelector("#world .legal");
    const again = await tappable(page, "#world .legal");
    assert(again.length, "no legal position after Undo");
    await page.touchscreen.tap(again[0].x, again[0].y);
    await page.waitForSelector("#world .pending");
  }
  if (n % 3 === 0) {
    const meeples = await page.$$("#choices button:not(#no-meeple)");
    if (meeples.length) {
      await meeples[n % meeples.length].tap();
      await page.waitForSelector('#choices button:not(#no-meeple)[aria-pressed="true"]');
    }
  } else if (n % 3 === 1) {
    const spots = await tappable(page, "#world .spot");
    if (spots.length) {
      // the first tap shows the spot's feature, the second takes it
      await page.touchscreen.tap(spots[0].x, spots[0].y);
      await page.waitForSelector("#world .spot.previewed");
      const again = (await tappable(page, "#world .pending .spot.previewed"))[0] || spots[0];
      await page.touchscreen.tap(again.x, again.y);
      await page.waitForSelector("#world .spot.selected");
    }
  }
  await checkTurn(page, assert, `turn ${n}, tile placed`);
  if (n === 3 && artDir) await page.screenshot({ path: path.join(artDir, "phone-placed.png") });
  await page.tap("#confirm-btn");
  await page.waitForFunction((k) => document.getElementById("log").children.length > k, before);
  return c.size;
}

export async function phoneGame(browser, url, assert, artDir) {
  const t0 = Date.now();
  const ctx = await browser.newContext({ viewport: { width: W, height: H }, hasTouch: true, isMobile: true, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const shot = (name) => artDir && page.screenshot({ path: path.join(artDir, `phone-${name}.png`) });
  try {
    await page.goto(url + "/");
    await page.waitForSelector("#conn.online");
    await fitsWidth(page, assert, "lobby");
    await shot("lobby");

    // create a room with the form, by taps
    await page.tap("#create-name");
    await page.fill("#create-name", "Pia");
    await page.selectOption("#create-seats", "2");
    const btn = (await rects(page, ["create-btn"]))["create-btn"];
    assert(btn.left >= 0 && btn.right <= W, "Create room is outside the width: " + JSON.stringify(btn));
    await page.tap("#create-btn");
    await page.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
    const room = await page.textContent("#room-id");

    // the room is listed in a second phone's lobby: its Join and Watch fit the width
    const other = await ctx.newPage();
    await other.goto(url + "/");
    await other.waitForSelector(`tr[data-room="${room}"] button.watch-room`);
    await fitsWidth(other, assert, "lobby with a room");
    for (const sel of ["button.join-room", "button.watch-room"]) {
      const b = await other.$eval(`tr[data-room="${room}"] ${sel}`, (n) => {
        const r = n.getBoundingClientRect();
        return { left: r.left, right: r.right };
      });
      assert(b.left >= 0 && b.right <= W, `${sel} is outside the width: ${JSON.stringify(b)}`);
    }
    await other.$eval(`tr[data-room="${room}"]`, (n) => n.scrollIntoView({ block: "center" }));
    if (artDir) await other.screenshot({ path: path.join(artDir, "phone-lobby-rooms.png") });
    await other.close();

    // a bot in the free seat, then start
    const row = '#scoreboard tbody tr[data-seat="1"]';
    await page.waitForSelector(`${row} button.add-bot`);
    await page.selectOption(`${row} select.bot-level`, "random");
    await page.tap(`${row} button.add-bot`);
    await page.waitForSelector('.bot-mark[data-bot-seat="1"]');
    await fitsWidth(page, assert, "room lobby");
    await shot("room-lobby");
    await page.tap("#start-btn");
    await page.waitForFunction(() => !document.getElementById("room-view").classList.contains("in-lobby"));

    // the game
    let turns = 0;
    let minVisible = 1;
    let minCell = Infinity;
    let skipped = false;
    const deadline = Date.now() + 240000;
    for (;;) {
      assert(Date.now() < deadline, `the phone game took too long (${turns} turns)`);
      if (await page.evaluate(() => !document.getElementById("end").hidden)) break;
      if (!(await page.$("#world .legal"))) {
        if (!skipped && (await page.$("#skip-scoring:not([hidden])"))) {
          // the end-of-game scoring plays on the board (js/scoring.js): its Skip is tappable
          skipped = true;
          const sk = (await rects(page, ["skip-scoring"]))["skip-scoring"];
          assert(inside(sk) && sk.onTop, "Skip the final scoring is covered or off the screen: " + JSON.stringify(sk));
          await shot("final-scoring");
          await page.tap("#skip-scoring");
          continue;
        }
        await page.waitForTimeout(30);
        continue;
      }
      if (turns === 0) {
        await shot("turn");
        await gestures(page, assert);
      }
      if (turns === 6) {
        // the drawer: the chat over the board, and closed again
        await page.tap('#phone-tabs button[data-panel="chat"]');
        await page.waitForSelector("#chat-form", { state: "visible" });
        await shot("drawer");
        await page.tap('#phone-tabs button[data-panel="chat"]');
        await page.waitForSelector("#chat-form", { state: "hidden" });
        await page.tap('#phone-tabs button[data-panel="players"]');
        await page.waitForSelector("#tiles-left", { state: "visible" });
        await shot("drawer-players");
        await page.tap('#phone-tabs button[data-panel="players"]');
        await page.waitForSelector("#tiles-left", { state: "hidden" });
      }
      minVisible = Math.min(minVisible, await boardVisible(page));
      minCell = Math.min(minCell, await tapMove(page, turns, assert, artDir));
      turns++;
          if (turns === 15) await shot("mid");
    }
    assert(turns >= 20, `only ${turns} turns through the phone UI`);
    // the end screen fits
    const end = (await rects(page, ["end", "end-lobby"]));
    assert(end.end.left >= 0 && end.end.right <= W && end.end.top >= 0 && end.end.bottom <= H, "the end screen is outside the viewport: " + JSON.stringify(end.end));
    await fitsWidth(page, assert, "end screen");
    await shot("end");

    // the replay of this game, from the lobby's list (the record is stored a moment after the
    // end): the board takes most of the screen, the controls are within it
    let stored = false;
    for (let i = 0; i < 100 && !stored; i++) {
      stored = (await fetch(url + "/api/games/" + encodeURIComponent(room))).ok;
      if (!stored) await new Promise((r) => setTimeout(r, 100));
    }
    assert(stored, "no game record for " + room);
    await page.tap("#end-lobby");
    const link = `#games tr[data-game="${room}"] a.replay-link`;
    await page.waitForSelector(link);
    await fitsWidth(page, assert, "lobby with a finished game");
    await page.tap(link);
    await page.waitForFunction(() => Number(document.getElementById("replay-slider").max) > 0, null, { timeout: 15000 });
    const rp = await rects(page, ["replay-board", "replay-next", "replay-prev", "replay-slider"]);
    assert(rp["replay-board"].height * rp["replay-board"].width >= 0.4 * W * H, "the replay board is small: " + JSON.stringify(rp["replay-board"]));
    for (const id of ["replay-next", "replay-prev", "replay-slider"]) assert(inside(rp[id]) && rp[id].onTop, `#${id} is not within the viewport: ${JSON.stringify(rp[id])}`);
    await page.tap("#replay-first");
    await page.tap("#replay-next");
    await page.tap("#replay-next");
    await page.waitForFunction(() => document.getElementById("replay-slider").value === "2");
    await fitsWidth(page, assert, "replay");
    await shot("replay");
    assert(!errors.length, "page errors: " + errors.join("; "));
    return { turns, ms: Date.now() - t0, minVisible, minCell, room };
  } catch (e) {
    await shot("fail").catch(() => {});
    throw e;
  } finally {
    await ctx.close();
  }
}
