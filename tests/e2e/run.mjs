// End-to-end tests of the carcd browser client (clients/web/) in headless Chromium, driven by
// playwright-core. Starts $CARC_BUILD/carcd (default build/carcd) on an ephemeral port, plays a
// complete 2-player game through the UI, and prints "N passed, N failed" last.
// Screenshots go to $CARC_BUILD/artifacts/.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BUILD, DESKTOP, PHONE, ROOT, launch, openPage, recordProtocol, serverState, startServer } from "./harness.mjs";
import { clickMove, endScores, keyboardMove, playUntilOver } from "./play.mjs";
import { phoneGame } from "./phone.mjs";
import { boardSuite } from "./board_ux.mjs";
import { i18nSuite } from "./i18n.mjs";
import { flowSuite } from "./flow_ux.mjs";
import { panelSuite } from "./panel.mjs";
import { a11ySuite } from "./a11y.mjs";
import { analysisSuite } from "./analysis.mjs";
import { accountsSuite } from "./accounts.mjs";
import { mygamesSuite } from "./mygames.mjs";
import { ratingsSuite } from "./ratings.mjs";
import { pushSuite } from "./push.mjs";
import { clocksSuite } from "./clocks.mjs";
import { sizeSuite } from "./sizes.mjs";
import { tileArtChecks } from "./tiles.mjs";
import { CODE_RE, assertNoIds, favicon, instrument, setHidden, wordsMove } from "./words.mjs";

const ART = path.join(BUILD, "artifacts");
fs.mkdirSync(ART, { recursive: true });

let passed = 0;
let failed = 0;
const consoleErrors = [];

// E2E_ONLY=REGEX runs the tests whose names match (for work on one part; tests that build on
// an earlier one's state need it too). Unset in `make e2e`.
const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : null;

async function test(name, fn) {
  if (ONLY && !ONLY.test(name)) return;
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack.split("\n").slice(0, 3).join("\n     ") : e}`);
  }
}

function assert(cond, msg) {
  if (!cond) throw new Error(msg || "assertion failed");
}

const newPage = (browser, label, viewport) => openPage(browser, label, viewport, consoleErrors);

// A screenshot at the desktop and at the phone size (name.png, name-phone.png); at the phone
// size `focus` (a selector) is scrolled into view first.
async function shots(page, name, focus) {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(ART, name + ".png") });
  await page.setViewportSize(PHONE);
  if (focus) await page.$eval(focus, (n) => n.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: path.join(ART, name + "-phone.png") });
  await page.setViewportSize(DESKTOP);
}

// The game record of a finished room (GET /api/games/{id}: the record is stored a moment after
// the end) and the final scores carc-replay computes from it.
async function recordScores(url, room) {
  let rec = null;
  for (let i = 0; i < 100 && !rec; i++) {
    const res = await fetch(url + "/api/games/" + room);
    if (res.ok) rec = await res.text();
    else await new Promise((r) => setTimeout(r, 100));
  }
  assert(rec, "no game record for " + room);
  const out = spawnSync(path.join(BUILD, "carc-replay"), ["-"], { input: rec, encoding: "utf8" });
  assert(out.status === 0, "carc-replay: " + out.stderr);
  const last = JSON.parse(out.stdout.trim().split("\n").pop());
  assert(last.final === true, "record ends before the game: " + JSON.stringify(last));
  return { record: JSON.parse(rec), scores: last.scores };
}

// Creates a room from the lobby form of a fresh page: fill(page) sets more of the form.
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

// The host adds a bot of that level from the first free seat's control; waits for its mark.
async function addBot(page, level, seat) {
  const row = `#scoreboard tbody tr[data-seat="${seat}"]`;
  await page.waitForSelector(`${row} button.add-bot`);
  await page.selectOption(`${row} select.bot-level`, level);
  await page.click(`${row} button.add-bot`);
  await page.waitForSelector(`.bot-mark[data-bot-seat="${seat}"]`);
}

function clockSeconds(text) {
  const m = /^(\d+):(\d\d)$/.exec(text.trim());
  assert(m, "clock text " + text);
  return Number(m[1]) * 60 + Number(m[2]);
}

// The placed tiles only: a feature's highlight and a scoring's outline mark their cells with
// data-pos too, and one may still be on the board.
async function boardKeys(page) {
  return page.$$eval("#world .placed[data-pos]", (ns) => ns.map((n) => n.getAttribute("data-pos")).sort());
}

// Protocol v2 on the mover's turn (rec: recordProtocol(mover)): the state document has no
// `legal`; the last `legal` message the mover's page received is for the server's turn, mover
// and tile, is the client's app.legal, and the positions shown are exactly its positions (those
// that fit the current rotation marked so).
async function checkLegalShown(mover, rec, spectator, room) {
  const st = await serverState(spectator, room);
  assert(!("legal" in st), "the state document has a legal list: " + Object.keys(st).join(","));
  let last = null;
  for (const t0 = Date.now(); ; await mover.waitForTimeout(20)) {
    last = rec.legal[rec.legal.length - 1];
    if (last && last.turn === st.turn) break;
    assert(Date.now() - t0 < 5000, `no legal message for turn ${st.turn}: last ${last && last.turn}`);
  }
  assert(last.player === st.current && last.tile === st.tile, `legal for ${last.player}/${last.tile}, state ${st.current}/${st.tile}`);
  assert(last.ref === undefined && typeof last.seq === "number" && last.seq >= 0, "legal seq/ref " + JSON.stringify([last.seq, last.ref]));
  assert(Array.isArray(last.legal) && last.legal.length > 0, "empty legal list");
  const c = await mover.evaluate(async () => {
    const { app } = await import("/js/app.js");
    return { legal: app.legal, seat: app.seat, rot: app.rot };
  });
  assert(c.seat === last.player, `legal for seat ${last.player} sent to seat ${c.seat}`);
  assert(JSON.stringify(c.legal) === JSON.stringify(last), "the client's app.legal is not the last legal message");
  const shown = await mover.$$eval("#world .legal", (ns) => ns.map((n) => n.dataset.x + "," + n.dataset.y + (n.classList.contains("fits") ? "+" : "")).sort());
  const key = (l) => l.x + "," + l.y;
  const want = [...new Set(last.legal.map(key))].map((k) => k + (last.legal.some((l) => key(l) === k && l.rot === c.rot) ? "+" : "")).sort();
  assert(JSON.stringify(shown) === JSON.stringify(want), `positions shown ${shown.join(" ")}, legal ${want.join(" ")}`);
}

async function main() {
  const srv = await startServer();
  const browser = await launch();
  const ann = await newPage(browser, "ann");
  const bob = await newPage(browser, "bob");
  const eve = await newPage(browser, "eve");
  const proto = new Map([ann, bob, eve].map((p) => [p, recordProtocol(p)]));
  let room = null;
  try {
    await test("lobby loads and lists no rooms", async () => {
      await ann.goto(srv.url + "/");
      await ann.waitForSelector("#conn.online");
      await ann.waitForFunction(() => /No public rooms/.test(document.getElementById("rooms-status").textContent));
      await ann.screenshot({ path: path.join(ART, "lobby.png") });
    });

    await test("every tile of the catalogue is drawn with its pennants, buildings and marks", async () => {
      const p = await newPage(browser, "tiles", DESKTOP);
      await tileArtChecks(p, srv.url, assert);
      await p.context().close();
    });

    await test("create a room with options; a second player joins from the list", async () => {
      await ann.fill("#create-name", "Ann");
      await ann.selectOption("#create-seats", "2");
      await ann.click("#create-btn");
      await ann.waitForSelector("#room-view:not([hidden])");
      await ann.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
      room = await ann.textContent("#room-id");
      assert(/^[A-Za-z0-9]+$/.test(room), "room id " + room);
      await bob.goto(srv.url + "/");
      await bob.fill("#join-name", "Bob");
      await bob.waitForSelector(`tr[data-room="${room}"] button.join-room`);
      await bob.click(`tr[data-room="${room}"] button.join-room`);
      await bob.waitForSelector("#room-view:not([hidden])");
      await ann.waitForFunction(() => document.querySelectorAll("#scoreboard tbody tr")[1].textContent.includes("Bob"));
      const hash = await bob.evaluate(() => location.hash);
      assert(hash === "#room=" + room, "link " + hash);
    });

    await test("spectator watches by link", async () => {
      await eve.goto(srv.url + "/#room=" + room);
      await eve.waitForFunction(() => /watching/.test(document.getElementById("room-role").textContent));
    });

    await test("host starts the game", async () => {
      await ann.click("#start-btn");
      await ann.waitForFunction(() => document.getElementById("tiles-left").textContent.includes("Tiles left"));
      await eve.waitForFunction(() => document.querySelectorAll("#world [data-pos]").length === 1);
    });

    await test("an illegal action shows the server's error", async () => {
      // Eve (watching) tries to take a seat in a started game: the server answers wrong_phase.
      const r = await eve.evaluate(() => document.getElementById("room-join-form").hidden);
      assert(r, "join form should be hidden in a running game");
      const other = await newPage(browser, "mallory");
      await other.goto(srv.url + "/");
      await other.waitForSelector("#conn.online");
      await other.fill("#join-room", room);
      await other.fill("#join-name", "Mallory");
      await other.click("#join-btn");
      await other.waitForSelector('#errors .error[data-code="wrong_phase"]');
      const text = await other.textContent("#errors .error");
      assert(/already started/.test(text) && !/_/.test(text), "error shown in words: " + text);
      // no raw code in what the user reads (only in data-code)
      assert(!CODE_RE.test(await other.innerText("#errors")), "raw code shown: " + (await other.innerText("#errors")));
      await other.fill("#join-room", "nosuchroom1");
      await other.click("#join-btn");
      await other.waitForSelector('#errors .error[data-code="no_such_room"]');
      assert(/no room with that code/.test(await other.textContent('#errors .error[data-code="no_such_room"]')), "no_such_room in words");
      await other.context().close();
    });

    await test("chat reaches players and the spectator", async () => {
      await ann.fill("#chat-text", "good luck!");
      await ann.press("#chat-text", "Enter");
      for (const p of [bob, eve]) await p.waitForFunction(() => /Ann: good luck!/.test(document.getElementById("chat").textContent));
    });

    await test("create a private room with every option; a wrong password is refused", async () => {
      const host = await newPage(browser, "host6");
      await host.goto(srv.url + "/");
      await host.waitForSelector("#conn.online");
      await host.fill("#create-name", "Hana");
      await host.selectOption("#create-seats", "6");
      for (const set of ["inns-cathedrals", "besiegers", "cathars", "siege", "apothecaries-tithes"]) {
        await host.check(`#create-form input[value="${set}"]`);
      }
      await host.click("#create-more summary"); // the rules and options fold away
      await host.uncheck("#create-farmers");
      await host.selectOption("#create-escape", "any-tile");
      await host.selectOption("#create-farms", "first");
      await host.selectOption("#create-small-city", "2");
      await host.selectOption("#create-seat-order", "random");
      await host.check("#create-private");
      await host.fill("#create-password", "s3cret");
      await host.click("#create-btn");
      await host.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
      const id = await host.textContent("#room-id");
      const st = await serverState(host, id);
      assert(st.seats.length === 6 && st.sets.length === 6, "seats/sets");
      assert(st.options.farmers === false && st.options.siege_escape === "any-tile", "options");
      assert(st.options.farms === "first" && st.options.small_city === 2 && st.options.seat_order === "random",
        "variants " + JSON.stringify(st.options));
      const opts = await host.textContent("#room-options");
      assert(/farmers off/.test(opts) && /any city tile/.test(opts), "options shown: " + opts);
      assert(/1st-edition farms/.test(opts) && /small city/.test(opts) && /random seat order/.test(opts), "variants shown: " + opts);
      const listed = await (await fetch(srv.url + "/api/rooms")).json();
      assert(!listed.some((r) => r.room === id), "private room listed");
      const guest = await newPage(browser, "guest");
      await guest.goto(srv.url + "/#room=" + id);
      await guest.waitForSelector("#room-join-form:not([hidden])");
      await guest.fill("#room-join-name", "Gus");
      await guest.fill("#room-join-password", "wrong");
      await guest.click("#room-join-btn");
      await guest.waitForSelector('#errors .error[data-code="wrong_password"]');
      await guest.fill("#room-join-password", "s3cret");
      await guest.click("#room-join-btn");
      await guest.waitForFunction(() => /You are Gus/.test(document.getElementById("room-role").textContent));
      await host.context().close();
      await guest.context().close();
    });

    let keyboardMoved = false;
    let moves = 0;
    let reloaded = false;
    let shot = false;
    await test("play a complete game by clicking highlighted positions and meeple spots", async () => {
      moves = await playUntilOver([ann, bob], ann, {
        turn: async (mover, n) => {
          if (n === 2 || n === 3 || n === 21) await checkLegalShown(mover, proto.get(mover), eve, room);
          if (n === 6) {
            await keyboardMove(mover);
            keyboardMoved = true;
            return;
          }
          await clickMove(mover, n, { undo: n === 4 });
          if (n + 1 === 12 && !shot) {
            shot = true;
            await ann.screenshot({ path: path.join(ART, "game.png") });
            await eve.screenshot({ path: path.join(ART, "spectator.png") });
          }
          if (n + 1 === 20 && !reloaded) {
            reloaded = true;
            await bob.reload();
            await bob.waitForFunction(() => /You are Bob/.test(document.getElementById("room-role").textContent));
          }
        },
      });
      assert(moves >= 60, "only " + moves + " moves");
    });

    await test("protocol v2: every message carries v 2; legal lists go to the mover alone", async () => {
      for (const [p, name] of [[ann, "ann"], [bob, "bob"], [eve, "eve"]]) {
        const bad = proto.get(p).badVersion;
        assert(bad.length === 0, `${name}: ${bad.length} messages without v 2, first: ${bad[0]}`);
      }
      assert(proto.get(eve).legal.length === 0, "the spectator got a legal message");
      const got = proto.get(ann).legal.length + proto.get(bob).legal.length;
      assert(got >= moves, `${got} legal messages for ${moves} moves`);
      for (const [p, seat] of [[ann, 0], [bob, 1]]) {
        for (const m of proto.get(p).legal) {
          assert(m.player === seat, `seat ${seat} got the legal list of seat ${m.player} (turn ${m.turn})`);
          assert(Array.isArray(m.legal) && m.legal.length > 0 && typeof m.tile === "string" && typeof m.turn === "number", "legal message " + JSON.stringify(m).slice(0, 200));
          for (const l of m.legal) {
            assert(Number.isInteger(l.x) && Number.isInteger(l.y) && [0, 90, 180, 270].includes(l.rot) && Array.isArray(l.meeples) && Array.isArray(l.escapes), "legal entry " + JSON.stringify(l));
          }
        }
      }
    });

    await test("a turn was played with the keyboard alone", async () => {
      assert(keyboardMoved, "no keyboard move");
    });

    await test("a reload mid-game returned the player to the seat", async () => {
      assert(reloaded, "no reload happened");
      const role = await bob.textContent("#room-role");
      assert(/Bob \(seat 2\)/.test(role), role);
    });

    await test("final scores shown equal the server's", async () => {
      const st = await serverState(eve, room);
      assert(st.phase === "over", "phase " + st.phase);
      for (const p of [ann, bob]) {
        await p.waitForSelector("#end:not([hidden])");
        const shown = await endScores(p);
        assert(shown.length === 2, "ranking rows " + shown.length);
        for (const [seat, score] of shown) assert(st.seats[seat].score === score, `seat ${seat}: shown ${score}, server ${st.seats[seat].score}`);
        const board = await p.$$eval("#scoreboard tbody td.score", (tds) => tds.map((t) => Number(t.textContent)));
        assert(JSON.stringify(board) === JSON.stringify(st.seats.map((s) => s.score)), "scoreboard " + board);
      }
      assertNoIds(await ann.innerText("#log"), "the events log of the game between two people");
      const fs1 = await ann.textContent("#final-scoring");
      assert(fs1.length > 20, "final scoring explained");
      const lines = await ann.$$("#chart polyline");
      assert(lines.length === 2, "chart lines " + lines.length);
      await ann.screenshot({ path: path.join(ART, "end.png") });
      await (await ann.$("#chart")).screenshot({ path: path.join(ART, "end-chart.png") });
    });

    await test("the spectator sees the same board as the players", async () => {
      const st = await serverState(eve, room);
      const want = Object.keys(st.board).sort();
      for (const p of [ann, bob, eve]) {
        const keys = await boardKeys(p);
        assert(JSON.stringify(keys) === JSON.stringify(want), "board differs");
      }
      const meeples = Object.values(st.board).filter((b) => b.meeple).length;
      const shown = await eve.$$eval("#world .meeples .meeple", (ns) => ns.length);
      assert(shown === meeples, `meeples shown ${shown}, on the board ${meeples}`);
    });

    await test("the finished game is listed and replays move by move", async () => {
      const st = await serverState(eve, room);
      await ann.click("#end-lobby");
      await ann.waitForSelector("#lobby-view:not([hidden])");
      await ann.waitForSelector("#games a.replay-link", { timeout: 15000 });
      const row = await ann.textContent("#games tbody tr");
      for (const s of st.seats) assert(row.includes(`${s.name} ${s.score}`), "row " + row);
      // The abandoned games are listed apart: none here.
      await ann.selectOption("#games-status-filter", "abandoned");
      await ann.waitForFunction(() => document.getElementById("games-status").textContent === "No abandoned games yet.");
      assert(await ann.$eval("#games", (t) => t.hidden), "the table of abandoned games shows rows");
      await ann.selectOption("#games-status-filter", "finished");
      await ann.waitForSelector("#games a.replay-link", { timeout: 15000 });
      await ann.click("#games a.replay-link");
      await ann.waitForSelector("#replay-view:not([hidden])");
      // it opens at the start (issue 26, item 14); the last position is the end of the game
      await ann.waitForFunction(() => Number(document.getElementById("replay-slider").max) > 0 && document.getElementById("replay-slider").value === "0");
      await ann.click("#replay-last");
      await ann.waitForFunction(() => /^End of the game/.test(document.getElementById("replay-move").textContent));
      const n = await ann.$$eval("#replay-world [data-pos]", (ns) => ns.length);
      assert(n === Object.keys(st.board).length, `replay shows ${n} tiles, the board has ${Object.keys(st.board).length}`);
      await ann.click("#replay-first");
      assert((await ann.$$eval("#replay-world [data-pos]", (ns) => ns.length)) === 1, "first move");
      await ann.click("#replay-next");
      await ann.click("#replay-next");
      assert((await ann.$$eval("#replay-world [data-pos]", (ns) => ns.length)) === 3, "two steps");
      const step = (await ann.textContent("#replay-move")) + " " + (await ann.textContent("#replay-events"));
      assert(/^Move 2 of \d+: Bob, .* of the start\. .*Bob placed (an? |two |three )?[a-z]/.test(step), "replay move in words: " + step);
      assertNoIds(step, "the replay");
      await ann.screenshot({ path: path.join(ART, "replay.png") });
    });

    await test("the host adds and removes bots in the lobby; a full game against a bot", async () => {
      const cleo = await newPage(browser, "cleo", DESKTOP);
      const id = await createRoom(cleo, srv.url, "Cleo", 2);
      const row1 = '#scoreboard tbody tr[data-seat="1"]';
      await cleo.waitForSelector(`${row1} button.add-bot`);
      for (const [level, hint] of [["strong", /ahead/], ["greedy", /most points/], ["random", /any legal move/]]) {
        await cleo.selectOption(`${row1} select.bot-level`, level);
        const h = await cleo.textContent(`${row1} .bot-hint`);
        assert(hint.test(h), `hint for ${level}: ${h}`);
      }
      await addBot(cleo, "greedy", 1);
      let mark = await cleo.textContent('.bot-mark[data-bot-seat="1"]');
      assert(/Bot · Greedy/.test(mark), "bot mark " + mark);
      assert(/Greedy bot/.test(await cleo.textContent(row1)), "bot name");
      let st = await serverState(cleo, id);
      assert(st.seats[1].bot === "greedy" && st.seats[1].taken, "server seat " + JSON.stringify(st.seats[1]));
      await cleo.click(`${row1} button.remove-bot`);
      await cleo.waitForSelector(`${row1} button.add-bot`);
      st = await serverState(cleo, id);
      assert(!st.seats[1].taken && !st.seats[1].bot, "bot removed on the server");
      await cleo.waitForFunction(() => /Greedy bot was removed from seat 2/.test(document.getElementById("log").textContent));
      await addBot(cleo, "random", 1);
      mark = await cleo.textContent('.bot-mark[data-bot-seat="1"]');
      assert(/Bot · Random/.test(mark), "bot mark " + mark);
      assert(/a computer player \(Random\), takes seat 2/.test(await cleo.textContent("#log")), "log of the bot seat");
      await cleo.click("#start-btn");
      await cleo.waitForFunction(() => document.getElementById("tiles-left").textContent.includes("Tiles left"));
      const seen = [];
      const n = await playUntilOver([cleo], cleo, { timeoutMs: 90000, turn: (p, k) => wordsMove(p, k, seen) });
      assert(n >= 30, "only " + n + " moves through the UI");
      // words, not ids: the events log, the meeple choices and the turn's text
      const log = await cleo.innerText("#log");
      assertNoIds(log, "the events log");
      assertNoIds(await cleo.innerText("#final-scoring"), "the final scoring");
      seen.forEach((t, i) => assertNoIds(t, `the turn card and meeple choices of move ${i}`));
      assert(/Cleo placed an? [a-z]/.test(log), "placed in words: " + log.slice(0, 300));
      assert(/ (and|with) (a|the large) meeple (on|in) the (city|road|field|cloister)/.test(log), "a meeple's place in words");
      assert(seen.some((t) => /\((knight|thief|farmer|monk)\)/.test(t) && /the (city|road|field|cloister)/.test(t)), "meeple choices in words");
      assertNoIds(await cleo.$$eval("#world [aria-label]", (ns) => ns.map((x) => x.getAttribute("aria-label")).join("\n")), "the board's labels");
      const shown = await endScores(cleo);
      const { record, scores } = await recordScores(srv.url, id);
      assert(shown.length === 2, "ranking rows " + shown.length);
      for (const [seat, score] of shown) assert(scores[seat] === score, `seat ${seat}: shown ${score}, carc-replay ${scores[seat]}`);
      assert(record.players[1].bot === "random", "record player " + JSON.stringify(record.players[1]));
      assert(/\(bot, Random\)/.test(await cleo.textContent("#ranking")), "bot named in the ranking");
      await cleo.screenshot({ path: path.join(ART, "end-bot.png") });
      await cleo.context().close();
    });

    // The events log as [class, text] (newest first) and its game lines: room events (seat,
    // autoplay, timeout) are not in the server's history.
    const logLines = (p) => p.$$eval("#log li", (lis) => lis.map((li) => [li.className, li.textContent]));
    const gameLines = (ls) => ls.filter(([c]) => !["ev-seat", "ev-autoplay", "ev-timeout"].includes(c)).map(([c, t]) => c + " " + t);
    let histRoom = null;
    let histPage = null;
    let histLines = null;
    await test("a reload fills the events log, the chat and the score chart from the room's history", async () => {
      histPage = await newPage(browser, "rita", DESKTOP);
      const p = histPage;
      histRoom = await createRoom(p, srv.url, "Rita", 2);
      await addBot(p, "random", 1);
      await p.click("#start-btn");
      for (let k = 0; k < 4; k++) {
        await p.waitForSelector("#world .legal");
        await clickMove(p, k);
      }
      await p.waitForSelector("#world .legal"); // the bot moved: our turn, nothing moves now
      await p.fill("#chat-text", "history please");
      await p.press("#chat-text", "Enter");
      await p.waitForFunction(() => /Rita: history please/.test(document.getElementById("chat").textContent));
      const before = await logLines(p);
      const histBefore = await p.evaluate(async () => (await import("/js/app.js")).app.hist);
      assert(gameLines(before).filter((l) => l.startsWith("ev-placed")).length === 8, "8 moves before: " + JSON.stringify(before));
      // the chart must come from the server's history, not from this browser's storage
      await p.evaluate((id) => localStorage.removeItem("carcd.hist." + id), histRoom);
      await p.reload();
      await p.waitForSelector("#log[data-history]");
      await p.waitForSelector("#world .legal");
      const after = await logLines(p);
      assert(after.length >= gameLines(before).length, `log entries: ${after.length} after, ${before.length} before`);
      assert(JSON.stringify(gameLines(after)) === JSON.stringify(gameLines(before)),
        "log after the reload:\n" + gameLines(after).join("\n") + "\nbefore:\n" + gameLines(before).join("\n"));
      const chat = await p.$$eval("#chat li", (lis) => lis.map((li) => li.textContent));
      assert(chat.filter((t) => t === "Rita: history please").length === 1, "chat after the reload " + JSON.stringify(chat));
      const c = await p.evaluate(async () => {
        const { app } = await import("/js/app.js");
        const { renderChart } = await import("/js/chart.js");
        const box = document.createElement("div");
        renderChart(box, app.hist, app.doc.seats.map((s) => s.name));
        return { hist: app.hist, turn: app.doc.turn, scores: app.doc.seats.map((s) => s.score), points: [...box.querySelectorAll("polyline")].map((l) => l.getAttribute("points").split(" ").length) };
      });
      assert(c.turn === 8, "turn " + c.turn);
      assert(JSON.stringify(c.hist.map((h) => h.turn)) === JSON.stringify([...Array(c.turn + 1).keys()]), "chart turns " + JSON.stringify(c.hist));
      assert(JSON.stringify(c.points) === JSON.stringify([c.turn + 1, c.turn + 1]), "chart points " + c.points);
      assert(JSON.stringify(c.hist[c.turn].scores) === JSON.stringify(c.scores), "last chart scores " + JSON.stringify(c.hist[c.turn]) + " vs " + c.scores);
      for (const h of histBefore) {
        const a = c.hist.find((x) => x.turn === h.turn);
        assert(a && JSON.stringify(a.scores) === JSON.stringify(h.scores), `turn ${h.turn}: ${JSON.stringify(a)} after, ${JSON.stringify(h)} before`);
      }
      histLines = gameLines(after);
    });

    await test("a late spectator sees the earlier turns in the log and the chat", async () => {
      assert(histLines, "no game from the previous test");
      const vic = await newPage(browser, "vic", DESKTOP);
      await vic.goto(srv.url + "/#room=" + histRoom);
      await vic.waitForFunction(() => /watching/.test(document.getElementById("room-role").textContent));
      await vic.waitForSelector("#log[data-history]");
      const lines = gameLines(await logLines(vic));
      assert(JSON.stringify(lines) === JSON.stringify(histLines), "spectator's log:\n" + lines.join("\n"));
      assert(lines.some((l) => /^ev-placed Rita placed/.test(l)) && lines.some((l) => /^ev-placed Random bot placed/.test(l)), "both players' moves");
      const chat = await vic.$$eval("#chat li", (lis) => lis.map((li) => li.textContent));
      assert(JSON.stringify(chat) === JSON.stringify(["Rita: history please"]), "spectator's chat " + JSON.stringify(chat));
      await vic.context().close();
      await histPage.context().close();
    });

    await test("every error code of common/err.h has a sentence", async () => {
      const h = fs.readFileSync(path.join(ROOT, "common/err.h"), "utf8");
      const codes = [...h.matchAll(/X\(\w+, "([a-z_]+)"/g)].map((m) => m[1]);
      assert(codes.length > 30, "codes in err.h: " + codes.length);
      const p = await newPage(browser, "codes");
      await p.goto(srv.url + "/");
      const known = await p.evaluate(async () => Object.keys((await import("/js/words.js")).ERRORS));
      const missing = codes.filter((c) => !known.includes(c));
      assert(!missing.length, "no sentence for " + missing.join(", "));
      const texts = await p.evaluate(async (cs) => {
        const w = await import("/js/words.js");
        return cs.map((c) => w.errorText(c, "raw server text"));
      }, codes);
      texts.forEach((t, i) => assert(!CODE_RE.test(t) && !t.includes(codes[i]) && t !== "Raw server text", `sentence of ${codes[i]}: ${t}`));
      await p.context().close();
    });

    await test("turn alerts in a background tab: title, favicon, sound; restored on return", async () => {
      const kai = await newPage(browser, "kai", DESKTOP);
      await instrument(kai);
      await createRoom(kai, srv.url, "Kai", 2);
      assert((await kai.title()) === "carcd" && (await favicon(kai)) === "favicon.svg", "normal title and icon");
      // the sound is off until the toggle; the choice is stored
      assert(!(await kai.isChecked("#sound-toggle")), "sound on by default");
      await kai.check("#sound-toggle");
      assert((await kai.evaluate(() => localStorage.getItem("carcd.sound"))) === "on", "sound choice stored");
      const sample = await kai.evaluate(() => window.__beeps);
      assert(sample === 1, "a sample beep on the toggle: " + sample);
      await addBot(kai, "random", 1);
      await kai.click("#start-btn");
      await kai.waitForSelector("#world .legal");
      assert((await kai.title()) === "carcd", "visible tab: normal title on our turn " + (await kai.title()));
      await setHidden(kai, true);
      await kai.waitForFunction(() => document.title === "● Your turn — carcd");
      assert((await favicon(kai)) === "favicon-turn.svg", "turn favicon while hidden");
      const icon = await fetch(srv.url + "/favicon-turn.svg");
      assert(icon.ok && /svg/.test(icon.headers.get("content-type") || ""), "the turn favicon is served");
      // move while hidden: the turn passes (normal title), the bot moves, our turn again
      await kai.evaluate(() => (window.__titles = [document.title]));
      const beeps = await kai.evaluate(() => window.__beeps);
      await clickMove(kai, 0);
      await kai.waitForFunction(() => document.title === "● Your turn — carcd" && window.__titles.length >= 3, null, { timeout: 10000 });
      const titles = await kai.evaluate(() => window.__titles);
      assert(titles[1] === "carcd" && titles[2] === "● Your turn — carcd", "titles " + JSON.stringify(titles));
      assert((await favicon(kai)) === "favicon-turn.svg", "turn favicon again");
      assert((await kai.evaluate(() => window.__beeps)) > beeps, "a beep when the turn came (sound on)");
      await shots(kai, "alert", "#turn-card");
      await setHidden(kai, false);
      await kai.waitForFunction(() => document.title === "carcd");
      assert((await favicon(kai)) === "favicon.svg", "icon restored on return");
      await kai.context().close();
    });

    await test("low time on our own clock: a warning in the page, and in the title when hidden", async () => {
      const lea = await newPage(browser, "lea", DESKTOP);
      await instrument(lea);
      await createRoom(lea, srv.url, "Lea", 2, async (p) => {
        await p.selectOption("#create-clock", "custom");
        await p.fill("#clock-minutes", "0.5");
        await p.fill("#clock-increment", "0");
        await p.selectOption("#create-timeout", "bot");
      });
      await addBot(lea, "random", 1);
      assert(await lea.$eval("#low-time", (n) => n.hidden), "no warning in the lobby");
      await lea.click("#start-btn");
      await lea.waitForSelector("#world .legal");
      await lea.waitForSelector("#low-time:not([hidden])");
      const warn = await lea.textContent("#low-time");
      assert(/^Hurry: only 0:[0-2]\d left on your clock\.$/.test(warn), "warning " + warn);
      assert((await lea.title()) === "carcd", "visible: normal title");
      await setHidden(lea, true);
      await lea.waitForFunction(() => /^⚠ 0:[0-2]\d left — your turn — carcd$/.test(document.title));
      assert((await favicon(lea)) === "favicon-turn.svg", "turn favicon");
      assert((await lea.evaluate(() => window.__beeps)) === 0, "no beep with the sound off");
      await shots(lea, "low-time", "#turn-card");
      await setHidden(lea, false);
      await lea.waitForFunction(() => document.title === "carcd");
      await lea.context().close();
    });

    await test("a room with a clock: the mover's clock ticks down; leave, then take the seat back", async () => {
      const dana = await newPage(browser, "dana", DESKTOP);
      // this browser's clock is an hour fast: the clocks must go by welcome.time, not by it
      await dana.addInitScript(() => {
        const now = Date.now.bind(Date);
        Date.now = () => now() + 3600000;
      });
      const id = await createRoom(dana, srv.url, "Dana", 3, async (p) => {
        await p.selectOption("#create-clock", "custom");
        await p.fill("#clock-minutes", "1");
        await p.fill("#clock-increment", "0");
        await p.selectOption("#create-timeout", "bot");
      });
      const opts = await dana.textContent("#room-options");
      assert(/clock 1 min \+ 0 s a move; out of time: a bot plays the turn/.test(opts), "options " + opts);
      let st = await serverState(dana, id);
      assert(st.clock && st.clock.initial === 60 && st.clock.increment === 0 && st.clock.on_timeout === "bot", "clock " + JSON.stringify(st.clock));
      await addBot(dana, "strong", 1);
      assert((await dana.textContent('[data-clock-seat="0"]')) === "1:00", "lobby clock");
      await shots(dana, "lobby-bots", "#score-h");
      await dana.click("#start-btn");
      await dana.click("#start-anyway"); // a seat is free: the host is asked first
      await dana.waitForSelector('[data-clock-seat="0"].running');
      const t0 = clockSeconds(await dana.textContent('[data-clock-seat="0"]'));
      await dana.waitForTimeout(1500);
      const t1 = clockSeconds(await dana.textContent('[data-clock-seat="0"]'));
      assert(t0 >= 55 && t1 < t0 && t0 - t1 <= 3, `clock ${t0} then ${t1}`);
      assert((await dana.textContent('[data-clock-seat="1"]')) === "1:00", "the other clock stands still");
      await shots(dana, "clock", "#score-h");
      // Leave mid-game: a bot plays the seat; watch the room, and take the seat back.
      await dana.click("#leave-btn");
      await dana.click("#ask-ok"); // the question before leaving a game (flow_ux.mjs)
      await dana.waitForSelector("#lobby-view:not([hidden])");
      st = await serverState(dana, id);
      assert(st.seats[0].autoplay === "left", "autoplay " + st.seats[0].autoplay);
      await dana.fill("#join-room", id);
      await dana.click("#watch-btn");
      await dana.waitForSelector('.autoplay-mark[data-autoplay-seat="0"]');
      const m = await dana.textContent('.autoplay-mark[data-autoplay-seat="0"]');
      assert(/Bot playing for Dana — left/.test(m), "autoplay mark " + m);
      await dana.waitForSelector("#take-back-btn:not([hidden])");
      assert(/because you left/.test(await dana.textContent("#seat-note")), "seat note");
      await dana.click("#take-back-btn");
      await dana.waitForFunction(() => /You are Dana/.test(document.getElementById("room-role").textContent));
      await dana.waitForSelector('.autoplay-mark[data-autoplay-seat="0"]', { state: "detached" });
      await dana.waitForFunction(() => /Dana took the seat back/.test(document.getElementById("log").textContent));
      st = await serverState(dana, id);
      assert(st.seats[0].autoplay === null, "autoplay after resume " + st.seats[0].autoplay);
      await dana.context().close();
    });

    await test("out of time under skip: timeout and skip events, a bot after three, take the seat back", async () => {
      const finn = await newPage(browser, "finn", DESKTOP);
      const id = await createRoom(finn, srv.url, "Finn", 2, async (p) => {
        await p.selectOption("#create-clock", "custom");
        await p.fill("#clock-minutes", "0.05");
        await p.fill("#clock-increment", "1");
        await p.selectOption("#create-timeout", "skip");
      });
      // bots move at most every 250 ms (--bot-pace-ms): the game lasts long enough to take the seat back
      await addBot(finn, "strong", 1);
      await finn.click("#start-btn");
      await finn.waitForFunction(() => /Finn's time ran out: the turn is skipped/.test(document.getElementById("log").textContent), null, { timeout: 10000 });
      // the skip is its own event; a tile's name may start without an article ("two city edges")
      await finn.waitForFunction(() => /Finn's turn was skipped: the tile \([a-z]/.test(document.getElementById("log").textContent), null, { timeout: 5000 });
      assertNoIds(await finn.innerText("#log"), "the events log");
      await finn.waitForSelector("#take-back-btn:not([hidden])", { timeout: 15000 });
      assert(/three turns in a row/.test(await finn.textContent("#seat-note")), "idle note");
      assert(/Bot playing for Finn — idle/.test(await finn.textContent('.autoplay-mark[data-autoplay-seat="0"]')), "idle mark");
      await shots(finn, "timeout", "#seat-note");
      await finn.click("#take-back-btn");
      await finn.waitForFunction(() => /Finn took the seat back/.test(document.getElementById("log").textContent));
      await finn.context().close();
    });

    await test("out of time under forfeit: the seat is marked forfeited, with no way back", async () => {
      const gina = await newPage(browser, "gina", DESKTOP);
      await createRoom(gina, srv.url, "Gina", 2, async (p) => {
        await p.selectOption("#create-clock", "custom");
        await p.fill("#clock-minutes", "0.05");
        await p.fill("#clock-increment", "0");
        await p.selectOption("#create-timeout", "forfeit");
      });
      await addBot(gina, "strong", 1);
      await gina.click("#start-btn");
      await gina.waitForSelector('.autoplay-mark[data-autoplay-seat="0"]', { timeout: 10000 });
      assert(/Bot playing for Gina — forfeited/.test(await gina.textContent('.autoplay-mark[data-autoplay-seat="0"]')), "forfeit mark");
      assert(/you forfeited/.test(await gina.textContent("#seat-note")), "forfeit note");
      assert(await gina.$eval("#take-back-btn", (b) => b.hidden), "no take-back button after a forfeit");
      assert(/Gina forfeits/.test(await gina.textContent("#log")), "timeout event in words");
      await gina.context().close();
    });

    await test("a player offline on their turn is marked, with a notice (no clock)", async () => {
      const hugo = await newPage(browser, "hugo", DESKTOP);
      const id = await createRoom(hugo, srv.url, "Hugo", 2);
      const ines = await newPage(browser, "ines", DESKTOP);
      await ines.goto(srv.url + "/#room=" + id);
      await ines.waitForSelector("#room-join-form:not([hidden])");
      await ines.fill("#room-join-name", "Ines");
      await ines.click("#room-join-btn");
      await hugo.waitForFunction(() => /Ines/.test(document.querySelectorAll("#scoreboard tbody tr")[1].textContent));
      await hugo.click("#start-btn");
      await hugo.waitForSelector("#world .legal");
      await ines.context().close();
      await hugo.waitForFunction(() => /Ines · offline/.test(document.querySelectorAll("#scoreboard tbody tr")[1].textContent));
      await clickMove(hugo, 0);
      await hugo.waitForSelector("#turn-note:not([hidden])");
      const note = await hugo.textContent("#turn-note");
      assert(/Ines is offline — a bot takes over soon/.test(note), "notice " + note);
      await hugo.context().close();
    });

    // scoring on the board, history after a reload and for a late spectator, the replay's
    // scores: at both sizes (screenshots SIZE-NAME.png in the artifacts)
    for (const [size, tag] of [[DESKTOP, "desktop"], [PHONE, "phone"]]) {
      const shot = (name, page) => page.screenshot({ path: path.join(ART, `${tag}-${name}.png`) });
      await sizeSuite({ browser, url: srv.url, test, errors: consoleErrors, size, tag, shot });
    }

    await test("[phone] a whole game with taps only; the board and Confirm in view on every turn", async () => {
      await phoneGame(browser, srv.url, assert, ART);
    });

    // languages: a German browser, the switcher, the size and load time of the page
    await i18nSuite({ browser, url: srv.url, test, errors: consoleErrors });

    // the game's flow: leaving asks, out of time, ties, the end screen, Play again (issue 26)
    await flowSuite({ browser, url: srv.url, test, errors: consoleErrors, shot: (name, page) => page.screenshot({ path: path.join(ART, name + ".png") }) });
    // the side panel, the lobby, the log, "+N", the replay's start (issue 26); the axe audit
    await panelSuite({ browser, url: srv.url, test, errors: consoleErrors });
    await a11ySuite({ browser, url: srv.url, test, errors: consoleErrors });
    // the replay's post-game analysis (issue 29): a carcd of its own with a tiny analysis budget
    await analysisSuite({ browser, test, errors: consoleErrors });
    // accounts in the page: sign up, in and out, refusals, two browsers, German, phone, keyboard (issue 27)
    await accountsSuite({ browser, url: srv.url, test, errors: consoleErrors });
    // My games, and a seat resumed from another device without its token (issue 27)
    await mygamesSuite({ browser, url: srv.url, test, errors: consoleErrors });
    // rated rooms, the profile and the ladder (issue 27, items 5 and 6): a carcd of its own (ladder-min-games 1)
    await ratingsSuite({ browser, test, errors: consoleErrors });
    // Web Push, the installable app, the offline shell, the games waiting for you (issue 28): a
    // carcd and a Chromium profile of its own
    await pushSuite({ browser, test, errors: consoleErrors });
    await (await import("./email.mjs")).emailSuite({ browser, test, errors: consoleErrors }); // e-mail's dialog: carcds of its own (issue 28)
    // the create form's days-per-move presets and their display (issue 28)
    await clocksSuite({ browser, url: srv.url, test, errors: consoleErrors });
    // the board: meeple spots, scale, keyboard, contrast, spectators (issue 26)
    await boardSuite({ browser, url: srv.url, test, errors: consoleErrors, shot: (name, page) => page.screenshot({ path: path.join(ART, name + ".png") }) });

    await test("no console errors", async () => {
      assert(consoleErrors.length === 0, consoleErrors.join("\n"));
    });
  } finally {
    await browser.close();
    await srv.stop();
  }
  console.log(`screenshots in ${ART}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((e) => {
  console.log("e2e: " + (e.stack || e));
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exitCode = 1;
});
