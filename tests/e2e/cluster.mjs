// The browser client against a cluster of carcd nodes behind HAProxy (issue 17: "the web client
// follows it transparently"; PROTOCOL.md "Redirects between nodes"), in headless Chromium:
//
//   node tests/e2e/cluster.mjs --base http://127.0.0.1:PROXY --node-a A --node-b B [--moves 6]
//
// The cluster is started by the caller (make test-cluster). Page 1 opens BASE/n/A/ (served by
// node A; its WebSocket is /n/A/ws) and creates a 2-seat room there. Page 2 opens BASE/n/B/ and
// joins that room from the lobby list (the global lobby), or by its code when the list does not
// show it: node B answers `redirect`, and the page must follow it to /n/A/ws without showing an
// error. Both pages must show the seated game; the host starts and both play --moves moves
// through the UI (or to the end if it comes first). Then page 2 reloads: its `resume` goes to
// its own base, /n/B/ws, is redirected again, and the seat comes back; one more move each.
// Prints `ok ...` per step and exits 0, or prints `FAIL ...` and exits 1 (2 on usage).
import { launch, openPage } from "./harness.mjs";
import { clickMove } from "./play.mjs";

function usage() {
  console.error("usage: node tests/e2e/cluster.mjs --base http://HOST:PORT --node-a A --node-b B [--moves N]");
  process.exit(2);
}

function args(argv) {
  const a = { moves: 6 };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) usage();
    if (k === "--base") a.base = v.replace(/\/+$/, "");
    else if (k === "--node-a") a.nodeA = v;
    else if (k === "--node-b") a.nodeB = v;
    else if (k === "--moves") a.moves = Number(v);
    else usage();
  }
  const id = /^[A-Za-z0-9_-]{1,32}$/;
  if (!a.base || !/^https?:\/\//.test(a.base) || !id.test(a.nodeA || "") || !id.test(a.nodeB || "") || a.nodeA === a.nodeB || !(a.moves >= 1)) usage();
  return a;
}

function assert(cond, msg) {
  if (!cond) throw new Error(msg || "assertion failed");
}

// What a page's WebSockets did: every URL opened (in order), the `redirect` messages received,
// and the URL of the socket that received each `joined`.
function recordSockets(page) {
  const rec = { opened: [], redirects: [], joinedOn: [] };
  page.on("websocket", (ws) => {
    rec.opened.push(ws.url());
    ws.on("framereceived", (f) => {
      let m;
      try {
        m = JSON.parse(f.payload);
      } catch (e) {
        return;
      }
      if (m && m.type === "redirect") rec.redirects.push(m);
      if (m && m.type === "joined") rec.joinedOn.push(ws.url());
    });
  });
  return rec;
}

// Every sentence the page showed in its error box (kept by an observer from the first load on,
// since a shown error disappears after 10 s), and the connection status lines.
function watchErrors(page) {
  return page.addInitScript(() => {
    window.__shown = { errors: [], status: [] };
    const start = () => {
      const box = document.getElementById("errors");
      const conn = document.getElementById("conn");
      if (!box || !conn) return setTimeout(start, 10);
      new MutationObserver(() => {
        for (const p of box.querySelectorAll("p.error")) {
          const t = (p.dataset.code || "") + ": " + p.textContent;
          if (!window.__shown.errors.includes(t)) window.__shown.errors.push(t);
        }
      }).observe(box, { childList: true });
      new MutationObserver(() => window.__shown.status.push(conn.textContent)).observe(conn, { childList: true, characterData: true, subtree: true });
    };
    start();
  });
}

// The client's own state (js/app.js of this page: imported relative to the page, so that it is
// the module instance the page runs, whatever prefix the page was loaded under).
function clientState(page) {
  return page.evaluate(async () => {
    const { app } = await import(new URL("js/app.js", location.href).href);
    const d = app.doc;
    return d && { room: app.room, seat: app.seat, seq: app.seq, phase: d.phase, turn: d.turn, board: Object.keys(d.board).sort().join(" "), names: d.seats.map((s) => s.name) };
  });
}

const wsBase = (base, node) => base.replace(/^http/, "ws") + "/n/" + node + "/ws";

async function main() {
  const a = args(process.argv.slice(2));
  const wsA = wsBase(a.base, a.nodeA);
  const wsB = wsBase(a.base, a.nodeB);
  const errors = [];
  const browser = await launch();
  let failed = null;
  const step = async (name, fn) => {
    if (failed) return;
    const t0 = Date.now();
    try {
      await fn();
      console.log(`ok   ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed = `${name}: ${e && e.message ? e.message : e}`;
      console.log(`FAIL ${name}: ${e && e.stack ? e.stack.split("\n").slice(0, 3).join("\n     ") : e}`);
    }
  };
  try {
    const ann = await openPage(browser, "ann (node " + a.nodeA + ")", null, errors);
    const bob = await openPage(browser, "bob (node " + a.nodeB + ")", null, errors);
    ann.setDefaultTimeout(20000);
    bob.setDefaultTimeout(20000);
    await watchErrors(ann);
    await watchErrors(bob);
    const recA = recordSockets(ann);
    const recB = recordSockets(bob);
    let room = null;
    let moves = 0;

    await step(`page 1 from /n/${a.nodeA}/ creates a 2-seat room on node ${a.nodeA}`, async () => {
      await ann.goto(a.base + "/n/" + a.nodeA + "/");
      await ann.waitForSelector("#conn.online");
      assert(recA.opened[0] === wsA, `page 1's WebSocket is ${recA.opened[0]}, not ${wsA}`);
      await ann.fill("#create-name", "Ann");
      await ann.selectOption("#create-seats", "2");
      await ann.click("#create-btn");
      await ann.waitForSelector("#room-view:not([hidden])");
      await ann.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
      room = await ann.textContent("#room-id");
      assert(/^[A-Za-z0-9]+$/.test(room), "room id " + room);
      assert(recA.redirects.length === 0, "a create was redirected: " + JSON.stringify(recA.redirects));
    });

    let how = "";
    await step(`page 2 from /n/${a.nodeB}/ joins it, following node ${a.nodeB}'s redirect to /n/${a.nodeA}/ws`, async () => {
      await bob.goto(a.base + "/n/" + a.nodeB + "/");
      await bob.waitForSelector("#conn.online");
      assert(recB.opened[0] === wsB, `page 2's WebSocket is ${recB.opened[0]}, not ${wsB}`);
      await bob.fill("#join-name", "Bob");
      const join = `tr[data-room="${room}"] button.join-room`;
      const listed = await bob.waitForSelector(join, { timeout: 8000 }).then(() => true, () => false);
      if (listed) {
        how = "from the lobby list";
        await bob.click(join);
      } else {
        // the lobby does not list it (yet): by its code, as a spectator first, then the seat
        how = "by its code (the lobby list did not show it within 8 s)";
        await bob.fill("#join-room", room);
        await bob.click("#join-btn");
        await bob.waitForSelector("#room-join-form:not([hidden])");
        await bob.fill("#room-join-name", "Bob");
        await bob.click("#room-join-btn");
      }
      await bob.waitForSelector("#room-view:not([hidden])");
      await bob.waitForFunction(() => document.querySelectorAll("#scoreboard tbody tr").length === 2 && document.querySelectorAll("#scoreboard tbody tr")[1].textContent.includes("Bob"));
      await ann.waitForFunction(() => document.querySelectorAll("#scoreboard tbody tr")[1].textContent.includes("Bob"));
      const r = recB.redirects.find((m) => m.room === room);
      assert(r, `node ${a.nodeB} sent no redirect for room ${room} (sockets: ${recB.opened.join(", ")})`);
      assert(r.node === a.nodeA && r.path === "/n/" + a.nodeA + "/ws", "redirect " + JSON.stringify(r));
      assert(recB.opened.includes(wsA), `page 2 never opened ${wsA}: ${recB.opened.join(", ")}`);
      assert(recB.joinedOn[recB.joinedOn.length - 1] === wsA, `page 2 got its seat on ${recB.joinedOn.join(", ")}`);
      const st = await clientState(bob);
      assert(st && st.room === room && st.seat === 1 && st.phase === "lobby", "page 2's state " + JSON.stringify(st));
      console.log(`     joined ${how}; page 2's sockets: ${recB.opened.join(" -> ")}`);
    });

    const playSome = async (n) => {
      const deadline = Date.now() + 60000;
      for (let done = 0; done < n; ) {
        assert(Date.now() < deadline, `only ${done} of ${n} moves in 60 s`);
        if (await ann.evaluate(() => !document.getElementById("end").hidden)) return;
        let mover = null;
        for (const p of [ann, bob]) if ((await p.$$("#world .legal")).length) mover = p;
        if (!mover) {
          await ann.waitForTimeout(30);
          continue;
        }
        await clickMove(mover, moves++);
        done++;
      }
    };
    // both pages at the same seq, board and turn (the deltas of one room on one node)
    const same = async () => {
      const t0 = Date.now();
      for (;;) {
        const [x, y] = [await clientState(ann), await clientState(bob)];
        const keep = (s) => s && JSON.stringify([s.room, s.seq, s.phase, s.turn, s.board, s.names]);
        if (keep(x) === keep(y)) return x;
        assert(Date.now() - t0 < 5000, `the pages disagree: ${JSON.stringify(x)} / ${JSON.stringify(y)}`);
        await ann.waitForTimeout(50);
      }
    };

    await step(`the host starts; ${a.moves} moves through both pages`, async () => {
      await ann.waitForSelector("#start-btn:not([hidden])");
      await ann.click("#start-btn");
      await bob.waitForFunction(() => document.getElementById("tiles-left").textContent.includes("Tiles left"));
      await playSome(a.moves);
      const st = await same();
      assert(st.phase === "over" || st.board.split(" ").length === 1 + moves, `${moves} moves, board ${st.board}`);
    });

    await step(`page 2 reloads: its resume through /n/${a.nodeB}/ws is redirected again and the seat comes back`, async () => {
      const before = recB.redirects.length;
      const opened = recB.opened.length;
      await bob.reload();
      await bob.waitForFunction(() => document.getElementById("log").dataset.history === "loaded");
      assert(recB.opened[opened] === wsB, `after the reload page 2 connected to ${recB.opened[opened]}, not ${wsB}`);
      assert(recB.redirects.length > before, "no redirect after the reload");
      assert(recB.joinedOn[recB.joinedOn.length - 1] === wsA, "resumed on " + recB.joinedOn[recB.joinedOn.length - 1]);
      const st = await same();
      assert(st.phase === "over" || (await clientState(bob)).seat === 1, "page 2 lost its seat");
      await playSome(2);
      await same();
    });

    await step("no error shown, no console error", async () => {
      for (const [p, who] of [[ann, "page 1"], [bob, "page 2"]]) {
        const shown = await p.evaluate(() => window.__shown);
        assert(shown.errors.length === 0, `${who} showed: ${shown.errors.join(" | ")}`);
        const bad = shown.status.filter((s) => /Disconnected|taken over/.test(s));
        assert(bad.length === 0, `${who}'s status said: ${bad.join(" | ")}`);
      }
      assert(errors.length === 0, errors.join("\n"));
    });
  } catch (e) {
    failed = failed || String(e && e.stack ? e.stack : e);
  } finally {
    await browser.close();
  }
  if (failed) {
    console.log(`cluster e2e FAILED: ${failed}`);
    process.exit(1);
  }
  console.log("cluster e2e: ok");
}

main().catch((e) => {
  console.log("cluster e2e FAILED: " + (e && e.stack ? e.stack : e));
  process.exit(1);
});
