// Shared pieces of the e2e drivers (run.mjs, screenshots.mjs): a fresh carcd on an ephemeral
// port, headless Chromium, pages at the two sizes the client is tested at, and the server's own
// view of a room.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BUILD = path.resolve(ROOT, process.env.CARC_BUILD || "build");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

export const DESKTOP = { width: 1366, height: 850 };
export const PHONE = { width: 390, height: 844 };

export function assert(cond, msg) {
  if (!cond) throw new Error(msg || "assertion failed");
}

// Starts build/carcd with a data folder of its own; resolves {proc, url, dataDir, stop()};
// stop() resolves once carcd has exited and its folder is gone.
export function startServer(extra = []) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "carcd-e2e-"));
  const proc = spawn(path.join(BUILD, "carcd"),
    ["--port", "0", "--data-dir", dataDir, "--web-root", path.join(ROOT, "clients/web"), "--log-level", "warn",
      "--bot-pace-ms", "250", ...extra],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error("carcd did not start")), 10000);
    proc.stdout.on("data", (d) => {
      buf += d;
      const m = /carcd listening on (http:\/\/\S+?)\/\s/.exec(buf);
      if (m) {
        clearTimeout(timer);
        // SIGTERM, then the data folder once carcd has gone: a clean stop still writes in it
        // (carcd.state, the store's last commit), and removing it meanwhile races those
        // writes (rmdir: ENOTEMPTY).
        const stop = () => new Promise((done) => {
          const remove = () => {
            fs.rmSync(dataDir, { recursive: true, force: true });
            done();
          };
          if (proc.exitCode !== null || proc.signalCode !== null) return remove();
          proc.once("exit", remove);
          proc.kill("SIGTERM");
        });
        resolve({ proc, url: m[1], dataDir, stop });
      }
    });
    proc.on("exit", (c) => reject(new Error("carcd exited " + c)));
  });
}

const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"];

export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

// A suite run alone (`node tests/e2e/NAME.mjs`): suite({browser, test, errors}) in a browser of
// its own, each test's line as run.mjs prints it, a console error counted as one more failure,
// the counts last and the exit status set.
export async function runAlone(suite) {
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
      console.log(`FAIL ${name}: ${e && e.stack ? e.stack.split("\n").slice(0, 3).join("\n     ") : e}`);
    }
  };
  try {
    await suite({ browser, test, errors });
  } finally {
    await browser.close();
  }
  if (errors.length) {
    failed++;
    console.log("console errors:\n" + errors.join("\n"));
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

// A browser with a profile in dir (not incognito, as every newContext() is): what the Push API
// and Chromium's installability check need (push.mjs). options: launchPersistentContext's.
export function launchPersistent(dir, options = {}) {
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: ARGS, ...options });
}

// Whether a console message is an error of the page. Chromium logs every HTTP answer of 400 or
// more as a console error, so a page that gets one counts it too: a test that expects a refusal
// says which (accounts.mjs's REFUSED, the vacation-days = 0 server in clocks.mjs). One refusal is
// every suite's: the suites' carcd has no smtp-url, so the account menu's GET /api/me/email (the
// only way a page learns whether the server sends e-mail: js/email.js) answers 404 mail_off.
// Another every replay's: GET /api/games/{id}/analysis answers 404 until the game is analysed
// (js/analysis.js asks it when a replay opens, and polls it while the analysis runs).
export function consoleError(m) {
  if (m.type() !== "error") return false;
  const at = m.location() && m.location().url;
  return !(at && /\/api\/(me\/email|games\/[^/]+\/analysis)$/.test(at) && /status of 404/.test(m.text()));
}

// A page in a context of its own; at the phone size it is a touch device. Console errors and
// page errors go to `errors`.
export async function openPage(browser, label, viewport, errors) {
  const phone = viewport && viewport.width < 700;
  const ctx = await browser.newContext({ viewport: viewport || { width: 1280, height: 800 }, hasTouch: !!phone, isMobile: !!phone });
  const page = await ctx.newPage();
  page.on("console", (m) => {
    if (consoleError(m)) errors.push(`${label}: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  return page;
}

// The protocol version every message carries, both ways (PROTOCOL.md).
export const PROTOCOL_VERSION = 2;

// The server's own public state of a room, fetched over a fresh WebSocket from the page (a
// spectator's `watch`: it never gets a `legal` message, and the state has no `legal` list).
export function serverState(page, room) {
  return page.evaluate(([room, v]) => new Promise((resolve, reject) => {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type === "welcome") ws.send(JSON.stringify({ v, type: "watch", room }));
      if (m.type === "state") {
        ws.close();
        resolve(m.state);
      }
      if (m.type === "error") reject(new Error(m.message));
    };
  }), [room, PROTOCOL_VERSION]);
}

// Every event of the deltas this page receives, in order (from the WebSocket frames).
export function recordEvents(page) {
  const events = [];
  page.on("websocket", (ws) => {
    ws.on("framereceived", (f) => {
      let m;
      try {
        m = JSON.parse(f.payload);
      } catch (e) {
        return;
      }
      if (m && m.type === "delta" && Array.isArray(m.events)) events.push(...m.events);
    });
  });
  return events;
}

// What the page's WebSockets carry of protocol v2, from the frames: every `legal` message it
// receives, in order, and the messages either way without "v": PROTOCOL_VERSION ("in"/"out").
export function recordProtocol(page) {
  const rec = { legal: [], badVersion: [] };
  page.on("websocket", (ws) => {
    const check = (dir) => (f) => {
      let m;
      try {
        m = JSON.parse(f.payload);
      } catch (e) {
        return;
      }
      if (!m || typeof m !== "object") return;
      if (m.v !== PROTOCOL_VERSION) rec.badVersion.push(dir + " " + String(f.payload).slice(0, 120));
      if (dir === "in" && m.type === "legal") rec.legal.push(m);
    };
    ws.on("framereceived", check("in"));
    ws.on("framesent", check("out"));
  });
  return rec;
}

// A finished game's record is stored a moment after the end: waits for GET /api/games/{id}.
export async function waitRecord(url, id) {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(url + "/api/games/" + id);
    if (res.ok) return res.json();
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no game record for " + id);
}
