// End-to-end tests of the carcd browser client (clients/web/) in headless Chromium, driven by
// playwright-core. Starts $CARC_BUILD/carcd (default build/carcd) on an ephemeral port, plays a
// complete 2-player game through the UI, and prints "N passed, N failed" last.
// Screenshots go to $CARC_BUILD/artifacts/.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const BUILD = path.resolve(ROOT, process.env.CARC_BUILD || "build");
const ART = path.join(BUILD, "artifacts");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
fs.mkdirSync(ART, { recursive: true });

let passed = 0;
let failed = 0;
const consoleErrors = [];

async function test(name, fn) {
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

function startServer() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "carcd-e2e-"));
  const proc = spawn(path.join(BUILD, "carcd"),
    ["--port", "0", "--data-dir", dataDir, "--web-root", path.join(ROOT, "clients/web"), "--log-level", "warn"],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error("carcd did not start")), 10000);
    proc.stdout.on("data", (d) => {
      buf += d;
      const m = /carcd listening on (http:\/\/\S+?)\/\s/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], dataDir });
      }
    });
    proc.on("exit", (c) => reject(new Error("carcd exited " + c)));
  });
}

async function newPage(browser, label) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(`${label}: ${m.text()}`);
  });
  page.on("pageerror", (e) => consoleErrors.push(`${label}: ${e.message}`));
  return page;
}

// The server's own public state of a room, fetched over a fresh WebSocket from the page.
function serverState(page, room) {
  return page.evaluate((room) => new Promise((resolve, reject) => {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type === "welcome") ws.send(JSON.stringify({ v: 1, type: "watch", room }));
      if (m.type === "state") {
        ws.close();
        resolve(m.state);
      }
      if (m.type === "error") reject(new Error(m.message));
    };
  }), room);
}

async function boardKeys(page) {
  return page.$$eval("#world [data-pos]", (ns) => ns.map((n) => n.getAttribute("data-pos")).sort());
}

async function main() {
  const srv = await startServer();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const ann = await newPage(browser, "ann");
  const bob = await newPage(browser, "bob");
  const eve = await newPage(browser, "eve");
  let room = null;
  try {
    await test("lobby loads and lists no rooms", async () => {
      await ann.goto(srv.url + "/");
      await ann.waitForSelector("#conn.online");
      await ann.waitForFunction(() => /No public rooms/.test(document.getElementById("rooms-status").textContent));
      await ann.screenshot({ path: path.join(ART, "lobby.png") });
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
      await other.waitForSelector("#errors .error");
      const text = await other.textContent("#errors .error");
      assert(/wrong_phase/.test(text), "error shown: " + text);
      await other.fill("#join-room", "nosuchroom1");
      await other.click("#join-btn");
      await other.waitForFunction(() => /no_such_room/.test(document.getElementById("errors").textContent));
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
      await host.uncheck("#create-farmers");
      await host.selectOption("#create-escape", "any-tile");
      await host.check("#create-private");
      await host.fill("#create-password", "s3cret");
      await host.click("#create-btn");
      await host.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
      const id = await host.textContent("#room-id");
      const st = await serverState(host, id);
      assert(st.seats.length === 6 && st.sets.length === 6, "seats/sets");
      assert(st.options.farmers === false && st.options.siege_escape === "any-tile", "options");
      const opts = await host.textContent("#room-options");
      assert(/farmers off/.test(opts) && /any city tile/.test(opts), "options shown: " + opts);
      const listed = await (await fetch(srv.url + "/api/rooms")).json();
      assert(!listed.some((r) => r.room === id), "private room listed");
      const guest = await newPage(browser, "guest");
      await guest.goto(srv.url + "/#room=" + id);
      await guest.waitForSelector("#room-join-form:not([hidden])");
      await guest.fill("#room-join-name", "Gus");
      await guest.fill("#room-join-password", "wrong");
      await guest.click("#room-join-btn");
      await guest.waitForFunction(() => /wrong_password/.test(document.getElementById("errors").textContent));
      await guest.fill("#room-join-password", "s3cret");
      await guest.click("#room-join-btn");
      await guest.waitForFunction(() => /You are Gus/.test(document.getElementById("room-role").textContent));
      await host.context().close();
      await guest.context().close();
    });

    let keyboardMove = false;
    let moves = 0;
    let reloaded = false;
    let shot = false;
    await test("play a complete game by clicking highlighted positions and meeple spots", async () => {
      const pages = [ann, bob];
      const deadline = Date.now() + 150000;
      for (;;) {
        assert(Date.now() < deadline, "game took too long");
        const over = await ann.evaluate(() => !document.getElementById("end").hidden);
        if (over) break;
        let mover = null;
        for (const p of pages) {
          if ((await p.$$("#world .legal")).length) {
            mover = p;
            break;
          }
        }
        if (!mover) {
          await ann.waitForTimeout(30);
          continue;
        }
        const before = await mover.evaluate(() => document.getElementById("log").children.length);
        if (moves === 6) {
          // keyboard only: R rotates, Tab reaches a legal position, Enter places, Enter on the
          // focused meeple spot takes it, Enter on the board confirms
          await mover.focus("#board");
          await mover.keyboard.press("r");
          await mover.keyboard.press("Tab");
          const focused = await mover.evaluate(() => document.activeElement.getAttribute("class"));
          assert(/legal/.test(focused || ""), "Tab focused " + focused);
          await mover.keyboard.press("Enter");
          await mover.waitForSelector("#world .pending");
          if (await mover.$("#world .spot")) {
            await mover.keyboard.press("Enter");
            await mover.waitForSelector("#world .spot.selected");
          }
          await mover.focus("#board");
          await mover.keyboard.press("Enter");
          await mover.waitForFunction((n) => document.getElementById("log").children.length > n, before);
          moves++;
          keyboardMove = true;
          continue;
        }
        const fits = await mover.$$("#world .legal.fits");
        const target = fits.length ? fits[moves % fits.length] : (await mover.$$("#world .legal"))[0];
        await target.click();
        await mover.waitForSelector("#world .pending");
        if (moves % 3 === 0) {
          const spots = await mover.$$("#world .spot");
          if (spots.length) {
            await spots[moves % spots.length].click();
            await mover.waitForSelector("#world .spot.selected");
          }
        }
        if (moves === 4) {
          // undo before confirm, then place again
          await mover.click("#undo-btn");
          await mover.waitForSelector("#world .legal");
          await (await mover.$$("#world .legal"))[0].click();
          await mover.waitForSelector("#world .pending");
        }
        await mover.click("#confirm-btn");
        await mover.waitForFunction((n) => document.getElementById("log").children.length > n, before);
        moves++;
        if (moves === 12 && !shot) {
          shot = true;
          await ann.screenshot({ path: path.join(ART, "game.png") });
          await eve.screenshot({ path: path.join(ART, "spectator.png") });
        }
        if (moves === 20 && !reloaded) {
          reloaded = true;
          await bob.reload();
          await bob.waitForFunction(() => /You are Bob/.test(document.getElementById("room-role").textContent));
        }
      }
      assert(moves >= 60, "only " + moves + " moves");
    });

    await test("a turn was played with the keyboard alone", async () => {
      assert(keyboardMove, "no keyboard move");
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
        const shown = await p.$$eval("#ranking li", (lis) => lis.map((li) => [Number(li.dataset.seat), Number(li.querySelector(".final-score").textContent)]));
        assert(shown.length === 2, "ranking rows " + shown.length);
        for (const [seat, score] of shown) assert(st.seats[seat].score === score, `seat ${seat}: shown ${score}, server ${st.seats[seat].score}`);
        const board = await p.$$eval("#scoreboard tbody td.score", (tds) => tds.map((t) => Number(t.textContent)));
        assert(JSON.stringify(board) === JSON.stringify(st.seats.map((s) => s.score)), "scoreboard " + board);
      }
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
      await ann.waitForFunction(() => /Move \d+ of \d+/.test(document.getElementById("replay-move").textContent));
      const n = await ann.$$eval("#replay-world [data-pos]", (ns) => ns.length);
      assert(n === Object.keys(st.board).length, `replay shows ${n} tiles, the board has ${Object.keys(st.board).length}`);
      await ann.click("#replay-first");
      assert((await ann.$$eval("#replay-world [data-pos]", (ns) => ns.length)) === 1, "first move");
      await ann.click("#replay-next");
      await ann.click("#replay-next");
      assert((await ann.$$eval("#replay-world [data-pos]", (ns) => ns.length)) === 3, "two steps");
      await ann.screenshot({ path: path.join(ART, "replay.png") });
    });

    await test("no console errors", async () => {
      assert(consoleErrors.length === 0, consoleErrors.join("\n"));
    });
  } finally {
    await browser.close();
    srv.proc.kill("SIGTERM");
    fs.rmSync(srv.dataDir, { recursive: true, force: true });
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
