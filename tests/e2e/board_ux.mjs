// The room's board as a Board Game Arena player meets it (issue 26, items 2, 4, 6, 12, 13): meeple
// spots inside their feature, the feature they claim shown, spots big enough to hit on a phone,
// the meeple choices wrapping; a board that pans rather than shrinking, the zoom tools off the
// board; the keyboard (R keeps the focus, Enter on a spot takes it and confirms, Confirm one Tab
// away); squares needing a rotation visible, and an honest text when no square fits; nothing of
// a player's turn controls for a spectator. Then a whole game with the keyboard alone in German
// and one with taps only on a phone in French, both against a random bot.
//
// Run alone: node tests/e2e/board_ux.mjs (CARC_WEB_ROOT=DIR serves another copy of the client,
// e.g. the old one, to see the assertions fail); run.mjs calls boardSuite().
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DESKTOP, PHONE, consoleError, launch, startServer } from "./harness.mjs";

function assert(cond, msg) {
  if (!cond) throw new Error(msg || "assertion failed");
}

const MIN_TILE = 48; // px: the smallest a fit draws a tile (board.js MIN_TILE_PX)

async function page(browser, label, viewport, locale, errors) {
  const phone = viewport.width < 700;
  const ctx = await browser.newContext({ viewport, hasTouch: phone, isMobile: phone, locale: locale || "en-US" });
  const p = await ctx.newPage();
  p.on("console", (m) => consoleError(m) && errors.push(`${label}: ${m.text()}`));
  p.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  return p;
}

// A 2-seat room against a random bot, started; resolves the room id once a legal square shows.
async function gameVsBot(p, url, name, { tap = false } = {}) {
  await p.goto(url + "/");
  await p.waitForSelector("#conn.online");
  await p.fill("#create-name", name);
  await p.selectOption("#create-seats", "2");
  if (tap) await p.tap("#create-btn");
  else await p.click("#create-btn");
  await p.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
  const row = '#scoreboard tbody tr[data-seat="1"]';
  await p.waitForSelector(`${row} button.add-bot`);
  await p.selectOption(`${row} select.bot-level`, "random");
  if (tap) await p.tap(`${row} button.add-bot`);
  else await p.click(`${row} button.add-bot`);
  await p.waitForSelector('.bot-mark[data-bot-seat="1"]');
  if (tap) await p.tap("#start-btn");
  else await p.click("#start-btn");
  await p.waitForSelector("#world .legal", { timeout: 15000 });
  return p.textContent("#room-id");
}

const logLength = (p) => p.evaluate(() => document.getElementById("log").children.length);
const scale = (p) => p.evaluate(() => Number(/scale\(([-\d.]+)\)/.exec(document.getElementById("world").getAttribute("transform"))[1]));
const focusInfo = (p) => p.evaluate(() => {
  const a = document.activeElement;
  return { body: a === document.body, onBoard: document.getElementById("board").contains(a), cls: a && a.getAttribute("class"), label: a && a.getAttribute("aria-label") };
});

// WCAG contrast of two CSS colours (rgb()/rgba(), alpha ignored).
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
  return (x + 0.05) / (y + 0.05);
}

// A point of the first element that a tap reaches (elementFromPoint hits it or a child), inside the
// viewport; null when none.
function tapPoint(p, selector) {
  return p.evaluate((sel) => {
    for (const n of document.querySelectorAll(sel)) {
      const r = n.getBoundingClientRect();
      for (const [fx, fy] of [[0.5, 0.5], [0.3, 0.3], [0.7, 0.3], [0.3, 0.7], [0.7, 0.7], [0.5, 0.2], [0.5, 0.8]]) {
        const x = r.left + r.width * fx;
        const y = r.top + r.height * fy;
        if (x < 1 || y < 1 || x > innerWidth - 1 || y > innerHeight - 1) continue;
        const hit = document.elementFromPoint(x, y);
        if (hit && n.contains(hit)) return [x, y];
      }
    }
    return null;
  }, selector);
}

// The screen points of the start tile's meeple spots: [{name, kind, x, y}], one per feature.
function startTileSpots(p) {
  return p.evaluate(async () => {
    const { app } = await import("/js/app.js");
    const { featureSpots, rotatePoint } = await import("/js/board.js");
    const b = app.doc.board["0,0"];
    const m = document.querySelector('#world .placed[data-pos="0,0"]').getScreenCTM();
    const tile = app.tiles[b.tile];
    const spots = featureSpots(b.tile, tile);
    return tile.segments.filter((s) => spots[s.name]).map((s) => {
      const q = rotatePoint(spots[s.name], b.rot);
      const at = new DOMPoint(q[0], q[1]).matrixTransform(m);
      const under = document.elementFromPoint(at.x, at.y);
      const hit = !!under && !!under.closest('#world .placed[data-pos="0,0"]');
      // px from the point to the nearest legal square
      let clear = Infinity;
      for (const n of document.querySelectorAll("#world .legal")) {
        const r = n.getBoundingClientRect();
        clear = Math.min(clear, Math.hypot(Math.max(r.left - at.x, 0, at.x - r.right), Math.max(r.top - at.y, 0, at.y - r.bottom)));
      }
      return { name: s.name, kind: s.kind, x: at.x, y: at.y, hit, clear };
    });
  });
}

// Every meeple spot of every tile of the catalogue stands inside its own feature: the ground
// under it and at 8 points 5 units around it (a tile drawn 400 px wide) is the feature's kind
// (a city's area, not its wall; a field, not a wall or a road; a road).
async function spotsInside(p) {
  return p.evaluate(async () => {
    const { drawTile, el, featureSpots } = await import("/js/board.js");
    const cat = await (await fetch("/api/tiles")).json();
    const svg = el("svg", { viewBox: "0 0 100 100", width: 400, height: 400 });
    svg.style.position = "fixed";
    svg.style.left = "0px";
    svg.style.top = "0px";
    svg.style.zIndex = "99";
    document.body.append(svg);
    const bad = [];
    const GROUND = ["field", "city", "wall", "wall-crenel", "road", "road-edge"];
    const ground = (x, y) => {
      for (const n of document.elementsFromPoint(x * 4, y * 4)) {
        if (!svg.contains(n)) continue;
        if (n.closest(".icon")) continue;
        const c = [...n.classList].find((k) => GROUND.includes(k));
        if (c) return c === "road-edge" ? "road" : c;
      }
      return null;
    };
    let n = 0;
    for (const [id, tile] of Object.entries(cat.tiles)) {
      svg.replaceChildren();
      drawTile(id, tile, 0, svg);
      const spots = featureSpots(id, tile);
      for (const s of tile.segments) {
        if (s.kind === "cloister" || (s.kind === "field" && !(s.halves || []).length)) continue;
        const [x, y] = spots[s.name];
        const want = s.kind;
        const around = s.kind === "road" ? [[0, 0]] : [[0, 0], ...[0, 1, 2, 3, 4, 5, 6, 7].map((k) => [5 * Math.cos(k * Math.PI / 4), 5 * Math.sin(k * Math.PI / 4)])];
        n++;
        for (const [dx, dy] of around) {
          const g = ground(x + dx, y + dy);
          if (g !== want) {
            bad.push(`${id} ${s.name} (${want}) at ${x.toFixed(0)},${y.toFixed(0)}: ${g} at ${dx.toFixed(0)},${dy.toFixed(0)}`);
            break;
          }
        }
      }
    }
    svg.remove();
    return { n, bad };
  });
}

// Places the tile on the first legal square that has a meeple spot (trying a few), with clicks.
async function pendingWithSpot(p) {
  const n = await p.$$eval("#world .legal", (ns) => ns.length);
  for (let i = 0; i < n; i++) {
    await p.$$eval("#world .legal", (ns, k) => ns[k].dispatchEvent(new MouseEvent("click", { bubbles: true })), i);
    await p.waitForSelector("#world .pending");
    if (await p.$("#world .pending .spot")) return true;
    await p.keyboard.press("Escape");
    await p.waitForSelector("#world .legal");
  }
  return false;
}

async function waitMoved(p, before) {
  await p.waitForFunction((k) => document.getElementById("log").children.length > k, before, { timeout: 5000 });
}

// Waits for our turn (a legal square) or the end screen; true when it is our turn.
async function ourTurn(p, timeout = 30000) {
  await p.waitForFunction(() => document.querySelector("#world .legal") || !document.getElementById("end").hidden, null, { timeout });
  return p.evaluate(() => document.getElementById("end").hidden);
}

// shot(name, page): a screenshot of a fixed item (board-NAME-desktop.png, board-NAME-phone.png).
export async function boardSuite({ browser, url, test, errors, shot = async () => {} }) {
  let desk = null;
  let room = null;

  await test("[board] item 2: every meeple spot of the catalogue stands inside its feature, off walls and field edges", async () => {
    desk = await page(browser, "board-desk", DESKTOP, "en-US", errors);
    await desk.goto(url + "/");
    await desk.waitForSelector("#conn.online");
    const { n, bad } = await spotsInside(desk);
    assert(n > 150, "only " + n + " spots checked");
    assert(bad.length === 0, `${bad.length} of ${n} spots are not inside their feature: ${bad.slice(0, 12).join(" | ")}`);
  });

  await test("[board] item 12: squares that need a rotation stand out (3:1); when none fits, the text says so", async () => {
    room = await gameVsBot(desk, url, "Ada");
    // some square needs another rotation: turn the tile until one does (4 turns at most)
    for (let i = 0; i < 4 && !(await desk.$("#world .legal:not(.fits)")); i++) await desk.click("#rotate-btn");
    // a tile that fits every legal square in every rotation (a cloister south of the start):
    // one square's placement in this rotation is taken out of the list for the measure
    const faked = await desk.evaluate(async () => {
      if (document.querySelector("#world .legal:not(.fits)")) return false;
      const { app, hooks } = await import("/js/app.js");
      const l0 = app.legal.legal.find((l) => l.rot === app.rot);
      window.keptLegal = app.legal.legal;
      app.legal.legal = app.legal.legal.filter((l) => !(l.x === l0.x && l.y === l0.y && l.rot === app.rot));
      hooks.render();
      return true;
    });
    const c = await desk.evaluate(() => {
      const box = document.querySelector("#world .legal:not(.fits) .legal-box");
      return box && [getComputedStyle(box).stroke, getComputedStyle(document.getElementById("board")).backgroundColor];
    });
    if (faked) {
      await desk.evaluate(async () => {
        const { app, hooks } = await import("/js/app.js");
        app.legal.legal = window.keptLegal;
        hooks.render();
      });
    }
    assert(c, "no square needs another rotation in 4 turns of the tile");
    const k = contrast(c[0], c[1]);
    assert(k >= 3, `a square needing a rotation is drawn at ${k.toFixed(2)}:1 (${c[0]} on ${c[1]})`);
    // the tile turned so that no square takes it: nothing is highlighted, and the text says so
    await shot("board-rotate-squares-desktop", desk);
    const honest = await desk.evaluate(async () => {
      const { app, hooks } = await import("/js/app.js");
      const keep = app.legal.legal;
      window.keptLegal = keep;
      const rots = [...new Set(keep.map((l) => l.rot))];
      const other = [0, 90, 180, 270].find((r) => !rots.includes(r));
      if (other === undefined) app.legal.legal = keep.filter((l) => l.rot !== app.rot);
      else app.rot = other;
      hooks.render();
      return { fits: document.querySelectorAll("#world .legal.fits").length, text: document.getElementById("turn-text").textContent };
    });
    await shot("board-none-fits-desktop", desk);
    await desk.evaluate(async () => {
      const { app, hooks } = await import("/js/app.js");
      app.legal.legal = window.keptLegal;
      hooks.render();
    });
    assert(honest.fits === 0, "squares still marked as fitting: " + honest.fits);
    // every legal placement is also a button of a list, for a screen reader
    const list = await desk.evaluate(async () => {
      const { app } = await import("/js/app.js");
      return [document.querySelectorAll("#place-list button").length, app.legal.legal.length, (document.querySelector("#place-list button") || {}).textContent];
    });
    assert(list[0] === list[1] && /^Place the tile .+, turned \d+ degrees$/.test(list[2]), "the list of placements: " + JSON.stringify(list));
    assert(!/Highlighted squares are legal/.test(honest.text) && /rotate/i.test(honest.text), "turn text with nothing highlighted: " + honest.text);
  });

  await test("[board] item 6: R keeps the focus on the board; Confirm one Tab after the last spot; Enter on a spot takes it and confirms", async () => {
    await desk.focus("#board");
    await desk.keyboard.press("Tab");
    let f = await focusInfo(desk);
    assert(/legal/.test(f.cls || ""), "Tab from the board focused " + f.cls);
    await desk.keyboard.press("r");
    f = await focusInfo(desk);
    assert(!f.body && f.onBoard, "after R the focus is on " + (f.body ? "the page's body" : f.cls));
    assert(await pendingWithSpot(desk), "no legal square with a meeple spot");
    f = await focusInfo(desk);
    assert(/spot/.test(f.cls || ""), "placing the tile focused " + f.cls);
    await desk.$$eval("#world .pending .spot", (ns) => ns[ns.length - 1].focus());
    await desk.keyboard.press("Tab");
    f = await focusInfo(desk);
    assert(f.label === "Confirm" || /board-confirm/.test(f.cls || ""), "one Tab after the last spot: " + f.cls + " " + f.label);
    // back to the first spot: Enter takes it and confirms, as the board's label says
    await desk.$eval("#world .pending .spot", (n) => n.focus());
    const feature = await desk.$eval("#world .pending .spot", (n) => n.dataset.feature);
    const x = await desk.evaluate(async () => (await import("/js/app.js")).app.pending);
    // a re-render while the spot has the focus (any delta or chat line does it) keeps the focus there
    await desk.evaluate(async () => (await import("/js/app.js")).hooks.render());
    f = await focusInfo(desk);
    assert(/spot/.test(f.cls || ""), "after a re-render the focus is on " + (f.body ? "the page's body" : f.cls));
    const before = await logLength(desk);
    await desk.keyboard.press("Enter");
    await waitMoved(desk, before).catch(() => {
      throw new Error("Enter on a meeple spot did not confirm the move");
    });
    // the move as the server took it (the board alone would not do: a feature closed by the
    // move scores its meeple back at once)
    const played = await desk.evaluate(async (at) => {
      const { hooks } = await import("/js/app.js");
      const h = await hooks.conn.request({ type: "history" });
      for (const turn of h.turns || []) for (const ev of turn.events) if (ev.type === "placed" && ev.x === at.x && ev.y === at.y) return ev;
      return null;
    }, { x: x.x, y: x.y });
    assert(played && played.player === 0 && played.meeple && played.meeple.feature === feature, "the tile and meeple played: " + JSON.stringify(played));
  });

  await test("[board] item 2: a meeple spot shows the feature it claims, its holders and its points now", async () => {
    assert(await ourTurn(desk), "the game ended early");
    assert(await pendingWithSpot(desk), "no legal square with a meeple spot");
    await desk.hover("#world .pending .spot");
    await desk.waitForSelector("#world .feature-hl", { state: "attached", timeout: 2000 }).catch(() => {
      throw new Error("hovering a spot highlights no feature");
    });
    const hl = await desk.evaluate(() => ({
      cells: document.querySelectorAll("#world .feature-hl [data-pos]").length,
      info: document.getElementById("feature-info") && !document.getElementById("feature-info").hidden ? document.getElementById("feature-info").textContent : "",
    }));
    assert(hl.cells >= 1, "the highlight covers no tile");
    await shot("board-feature-desktop", desk);
    assert(/tiles: \d+; held by: .+; (points if scored now: \d+|scored at the end of the game)/.test(hl.info), "feature info: " + hl.info);
    await desk.keyboard.press("Escape");
  });

  await test("[board] a placed tile shows the feature under the pointer: each of its features, then none off the board", async () => {
    // the start tile's features, each hovered at its meeple spot (inside it, item 2's test)
    const pts = (await startTileSpots(desk)).filter((q) => q.hit);
    assert(pts.length >= 3, "the start tile has " + pts.length + " features");
    const kindWord = { city: /^The city/, road: /^The road/, field: /^The (field|farm)/, cloister: /^The (cloister|monastery)/ };
    for (const q of pts) {
      await desk.mouse.move(q.x, q.y);
      const got = await desk.evaluate(() => {
        const hl = document.querySelector("#world .feature-hl");
        const info = document.getElementById("feature-info");
        return { cls: hl && hl.getAttribute("class"), tiles: hl ? hl.querySelectorAll("[data-pos]").length : 0, info: info && !info.hidden ? info.textContent : "" };
      });
      assert(got.cls && got.cls.includes("feature-" + q.kind) && got.tiles >= 1, `${q.kind} ${q.name} hovered: highlight ${got.cls}`);
      assert(kindWord[q.kind].test(got.info) && /held by/.test(got.info), `${q.kind} ${q.name} hovered: info "${got.info}"`);
    }
    await shot("board-placed-feature-desktop", desk);
    await desk.mouse.move(2, 2);
    const after = await desk.evaluate(() => ({ hl: !!document.querySelector("#world .feature-hl"), info: !document.getElementById("feature-info").hidden }));
    assert(!after.hl && !after.info, "the highlight stays after the pointer left: " + JSON.stringify(after));
  });

  await test("[board] items 4, 13: the zoom tools are off the board; a spectator sees no Rotate, Confirm, Undo or beep", async () => {
    const r = await desk.evaluate(() => {
      const b = document.getElementById("board").getBoundingClientRect();
      const z = document.getElementById("zoom-in").closest(".board-tools").getBoundingClientRect();
      return { overlap: Math.max(0, Math.min(b.right, z.right) - Math.max(b.left, z.left)) * Math.max(0, Math.min(b.bottom, z.bottom) - Math.max(b.top, z.top)), z: z.height };
    });
    assert(r.z > 0 && r.overlap === 0, "the zoom tools cover " + r.overlap + " px² of the board");
    const eve = await page(browser, "board-eve", DESKTOP, "en-US", errors);
    await eve.goto(url + "/#room=" + room);
    await eve.waitForFunction(() => /watching/.test(document.getElementById("room-role").textContent));
    await eve.waitForSelector("#world [data-pos]");
    const shown = await eve.evaluate(() => ["rotate-btn", "confirm-btn", "undo-btn", "sound-toggle"].filter((id) => {
      const n = document.getElementById(id);
      const r = n.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(n).visibility !== "hidden";
    }));
    assert(shown.length === 0, "a spectator sees " + shown.join(", "));
    await shot("board-spectator-desktop", eve);
    await eve.context().close();
    await desk.context().close();
  });

  await test("[board] a whole game with the keyboard alone, in German (R, Tab, Enter; the focus always on the board)", async () => {
    const p = await page(browser, "board-de", DESKTOP, "de-DE", errors);
    await gameVsBot(p, url, "Jürgen");
    assert((await p.evaluate(() => document.documentElement.lang)) === "de", "not German");
    // each turn is said to a screen reader: its number, the mover, the drawn tile
    const live = await p.evaluate(() => {
      const n = document.getElementById("board-live");
      return n ? [n.getAttribute("aria-live"), n.textContent] : null;
    });
    assert(live && live[0] === "polite" && /^Zug \d+ — Jürgen: \S/.test(live[1]), "the turn said to a screen reader: " + JSON.stringify(live));
    let moves = 0;
    let logShown = 0;
    const t0 = Date.now();
    while (await ourTurn(p, 60000)) {
      assert(Date.now() - t0 < 240000, "the game took too long: " + moves + " moves");
      const before = await logLength(p);
      await p.focus("#board");
      if (moves % 4 === 1) {
        await p.keyboard.press("r");
        const f = await focusInfo(p);
        assert(f.onBoard, "after R the focus left the board");
      }
      await p.keyboard.press("Tab");
      let f = await focusInfo(p);
      assert(/legal/.test(f.cls || ""), `move ${moves}: Tab focused ${f.cls}`);
      await p.keyboard.press("Enter");
      await p.waitForSelector("#world .pending");
      f = await focusInfo(p);
      assert(f.onBoard && /spot|board-confirm/.test(f.cls || ""), `move ${moves}: after placing the focus is on ${f.cls}`);
      if (moves === 6) await shot("board-keyboard-desktop", p);
      if (/spot/.test(f.cls) && moves % 3 === 0) {
        await p.keyboard.press("Enter"); // takes the spot and confirms
      } else {
        // Tab past the spots to Confirm on the board, then Enter
        for (let i = 0; i < 8 && !/board-confirm/.test((await focusInfo(p)).cls || ""); i++) await p.keyboard.press("Tab");
        f = await focusInfo(p);
        assert(/board-confirm/.test(f.cls || ""), `move ${moves}: Confirm not reached by Tab: ${f.cls}`);
        await p.keyboard.press("Enter");
      }
      await waitMoved(p, before);
      moves++;
      if (!logShown && (await p.$("#log li.ev-score")) && (await ourTurn(p, 60000))) {
        // a scoring's line in the events log shows its feature on the board while hovered
        await p.hover("#log li.ev-score");
        logShown = await p.evaluate(() => document.querySelectorAll("#world .feature-hl [data-pos]").length);
        assert(logShown > 0, "hovering a scoring's log line shows no feature");
        await p.mouse.move(5, 5);
      }
    }
    assert(moves >= 25, "only " + moves + " moves");
    if (!logShown) {
      // Nobody completed a feature they held during this game (the bot is random, and so are
      // the tiles): the final scoring's lines show their features too.
      await p.waitForSelector("#log li.ev-score", { timeout: 10000 });
      await p.hover("#log li.ev-score");
      logShown = await p.evaluate(() => document.querySelectorAll("#world .feature-hl [data-pos]").length);
      assert(logShown > 0, "hovering a final scoring's log line shows no feature");
      await p.mouse.move(5, 5);
    }
    assert(logShown, "no scoring line was hovered");
    assert(!(await p.evaluate(() => document.getElementById("end").hidden)), "no end screen");
    // Play again by keyboard: Tab from the end screen reaches it, Enter opens the new room
    const room0 = await p.textContent("#room-id");
    for (let i = 0; i < 12 && (await p.evaluate(() => document.activeElement.id)) !== "rematch-btn"; i++) await p.keyboard.press("Tab");
    assert((await p.evaluate(() => document.activeElement.id)) === "rematch-btn", "Tab from the end screen does not reach Play again");
    await p.keyboard.press("Enter");
    await p.waitForFunction((old) => {
      const id = document.getElementById("room-id").textContent;
      return id && id !== old && /Jürgen/.test(document.getElementById("room-role").textContent);
    }, room0, { timeout: 5000 });
    await p.context().close();
  });

  await test("[board] a whole game on a phone with taps only, in French: spots shown then taken, big enough, choices wrap, tiles readable", async () => {
    const p = await page(browser, "board-fr", PHONE, "fr-FR", errors);
    await gameVsBot(p, url, "Amélie", { tap: true });
    assert((await p.evaluate(() => document.documentElement.lang)) === "fr", "not French");
    // a tap on a placed tile shows the feature there (a tap has nothing else to do there): the
    // start tile's feature farthest from the legal squares (a touch screen gives a tap near a
    // button to the button), once the board has stopped moving (it is fitted as the legal list comes)
    let far = null;
    for (let i = 0; i < 20 && !far; i++) {
      await p.waitForTimeout(100);
      far = (await startTileSpots(p)).filter((q) => q.hit && q.clear >= 16).sort((a, b) => b.clear - a.clear)[0];
    }
    assert(far, "no feature of the start tile can be tapped clear of the legal squares");
    await p.touchscreen.tap(far.x, far.y);
    await p.waitForSelector("#world .feature-hl.feature-" + far.kind, { state: "attached", timeout: 2000 }).catch(() => {
      throw new Error(`a tap on the start tile's ${far.kind} shows no feature`);
    });
    assert(!(await p.$("#world .pending")), "the tap on the start tile placed the tile instead");
    // the zoom tools are not over the board's free part (between the bars)
    const tools = await p.evaluate(() => {
      const z = document.getElementById("zoom-in").closest(".board-tools").getBoundingClientRect();
      const top = document.getElementById("phone-tabs").getBoundingClientRect().top;
      const bottom = document.getElementById("turn-card").getBoundingClientRect().top;
      return { zt: z.top, zb: z.bottom, top, bottom };
    });
    assert(tools.zb <= tools.bottom && tools.zt <= tools.top + 60 && tools.zb < tools.bottom - 100, "the zoom tools float over the board: " + JSON.stringify(tools));
    let moves = 0;
    let previewed = 0;
    let smallest = Infinity;
    const t0 = Date.now();
    while (await ourTurn(p, 60000)) {
      assert(Date.now() - t0 < 240000, "the game took too long: " + moves + " moves");
      const s = await scale(p);
      assert(s * 100 >= MIN_TILE - 0.5, `move ${moves}: tiles drawn ${(s * 100).toFixed(0)} px wide`);
      const before = await logLength(p);
      let pt = (await tapPoint(p, "#world .legal.fits")) || (await tapPoint(p, "#world .legal"));
      if (!pt) {
        await p.tap("#zoom-centre");
        pt = (await tapPoint(p, "#world .legal.fits")) || (await tapPoint(p, "#world .legal"));
      }
      if (!pt) {
        const why = await p.evaluate(() => ({
          legal: [...document.querySelectorAll("#world .legal")].map((n) => { const r = n.getBoundingClientRect(); const h = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return [Math.round(r.left), Math.round(r.top), Math.round(r.width), h && (h.id || h.getAttribute("class") || h.tagName)]; }),
          world: document.getElementById("world").getAttribute("transform"),
          tabs: document.getElementById("phone-tabs").getBoundingClientRect().bottom, turn: document.getElementById("turn-card").getBoundingClientRect().top,
        }));
        assert(false, `move ${moves}: no legal square can be tapped: ${JSON.stringify(why)}`);
      }
      await p.touchscreen.tap(pt[0], pt[1]);
      await p.waitForSelector("#world .pending");
      const sizes = await p.$$eval("#world .pending .spot", (ns) => ns.map((n) => Math.min(n.getBoundingClientRect().width, n.getBoundingClientRect().height)));
      for (const w of sizes) smallest = Math.min(smallest, w);
      const wrap = await p.evaluate(() => {
        const c = document.getElementById("choices");
        const cut = [...c.querySelectorAll("button")].filter((b) => {
          const r = b.getBoundingClientRect();
          return r.left < 0 || r.right > innerWidth + 0.5;
        }).length;
        const tile = document.querySelector("#world .pending").getBoundingClientRect();
        const bar = document.getElementById("turn-card").getBoundingClientRect();
        return { over: c.scrollWidth - c.clientWidth, cut, covered: Math.max(0, tile.bottom - bar.top) };
      });
      // the choices wrap: none cut off or hidden sideways, and the grown bar leaves the tile clear
      assert(wrap.over <= 1 && wrap.cut === 0, `move ${moves}: the meeple choices scroll sideways: ${JSON.stringify(wrap)}`);
      assert(wrap.covered <= 1, `move ${moves}: the turn bar covers ${wrap.covered} px of the tile being placed`);
      if (moves === 3) await shot("board-choices-phone", p);
      if (sizes.length && moves % 3 === 0) {
        const sp = await tapPoint(p, "#world .pending .spot");
        if (sp) {
          await p.touchscreen.tap(sp[0], sp[1]);
          await p.waitForSelector("#world .spot.previewed");
          const first = await p.evaluate(() => ({ sel: document.querySelectorAll("#world .spot.selected").length, hl: document.querySelectorAll("#world .feature-hl").length }));
          assert(first.sel === 0 && first.hl === 1, `move ${moves}: the first tap on a spot: ${JSON.stringify(first)}`);
          if (previewed === 2) await shot("board-spot-preview-phone", p);
          const sp2 = await tapPoint(p, "#world .pending .spot.previewed");
          await p.touchscreen.tap(sp2[0], sp2[1]);
          await p.waitForSelector("#world .spot.selected");
          previewed++;
        }
      }
      await p.tap("#confirm-btn");
      await waitMoved(p, before);
      moves++;
    }
    assert(moves >= 25, "only " + moves + " moves");
    assert(previewed >= 3, "only " + previewed + " spots taken with two taps");
    assert(smallest >= 24, `a meeple spot was ${smallest.toFixed(1)} px on the phone`);
    await p.waitForSelector("#end:not([hidden])");
    await p.tap("#end-close");
    await p.tap("#zoom-centre");
    const s = await scale(p);
    await shot("board-end-fit-phone", p);
    assert(s * 100 >= MIN_TILE - 0.5, `after Fit at the end the tiles are ${(s * 100).toFixed(0)} px wide`);
    await p.context().close();
  });
}

// Alone: a server of its own (CARC_WEB_ROOT: another copy of the client), the suite, a count.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const extra = process.env.CARC_WEB_ROOT ? ["--web-root", process.env.CARC_WEB_ROOT] : [];
  const srv = await startServer(extra);
  const browser = await launch();
  const errors = [];
  let passed = 0;
  let failed = 0;
  const test = async (name, fn) => {
    if (process.env.BOARD_ONLY && !name.includes(process.env.BOARD_ONLY)) return;
    const t0 = Date.now();
    try {
      await fn();
      passed++;
      console.log(`ok   ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${name}: ${e && e.stack ? e.stack.split("\n").slice(0, 3).join("\n     ") : e}`);
    }
  };
  try {
    await boardSuite({ browser, url: srv.url, test, errors });
    if (errors.length) console.log("console errors:\n  " + errors.join("\n  "));
  } finally {
    await browser.close();
    try {
      srv.stop();
    } catch (e) {
      /* carcd still writing its data folder as it stops */
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}
