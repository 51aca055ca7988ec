// push.mjs: Web Push, the installable app, the offline shell and the games waiting for you in
// the page (issue 28 items 2 and 6; clients/web/sw.js, js/push.js, js/waiting.js,
// manifest.webmanifest; PROTOCOL.md "Notifications", "My games"). A carcd of its own (the last
// test stops it) and a Chromium with a profile (launchPersistent: Playwright's contexts are
// incognito, where Chromium has neither the Push API nor installability).
// Headless Chromium has no push service, so PushManager's subscribe and getSubscription are
// replaced in the page (an init script) by a subscription with a real P-256 key and auth secret:
// it still goes to carcd (POST /api/push/subscriptions), which checks it (204, and 404 once
// deleted). Delivery is real: the DevTools protocol's ServiceWorker.deliverPushMessage gives the
// documented `your_turn` JSON to the real worker, and the test reads the notices it shows
// (registration.getNotifications()). A click on a notice cannot be made headless: a
// `notificationclick` event carrying the shown notification is dispatched in the worker (its
// waitUntil kept by the test), and the page must end up at the room.
// The tests: Notifications on from the account menu (the key given to subscribe is carcd's;
// sent again after a reload); the worker controls the page, static files come from the network
// first (a stale cached copy is replaced), /api/ is never cached; two games, one waiting for
// the player -> "(1) carcd" and the app badge 1, the other's turn change -> "(2)" in its page,
// a push -> "(2)" in the lobby's page; a `your_turn` push shows a notice in German tagged by
// room, and the page is told; the click takes the tab to the room; time_low and game_over in
// German; installable (Chromium's
// Page.getInstallabilityErrors, the manifest and its icons); Turn off (DELETE, then 404); sign
// out deletes the subscription on the server and in the browser and drops the count; offline
// (carcd stopped) a reload still shows the lobby from the cache.
// pushSuite({browser, test, errors}) adds its tests to run.mjs (E2E_ONLY=push); `node
// tests/e2e/push.mjs` runs them alone.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { assert, consoleError, launchPersistent, runAlone, startServer } from "./harness.mjs";
import { clickMove } from "./play.mjs";

const b64url = (buf) => Buffer.from(buf).toString("base64url");

// The page's side of a push service: subscribe() keeps a subscription in localStorage (so a
// reload finds it), unsubscribe() removes it and counts; setAppBadge is recorded.
function stubPush(sub) {
  const KEY = "e2e.push.sub";
  const make = (json) => ({
    endpoint: json.endpoint,
    expirationTime: null,
    toJSON: () => json,
    unsubscribe: async () => {
      localStorage.removeItem(KEY);
      localStorage.setItem("e2e.push.unsubscribed", String(Number(localStorage.getItem("e2e.push.unsubscribed") || 0) + 1));
      return true;
    },
  });
  PushManager.prototype.subscribe = async function (opts) {
    const key = new Uint8Array(opts.applicationServerKey);
    localStorage.setItem("e2e.push.key", btoa(String.fromCharCode(...key)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""));
    localStorage.setItem("e2e.push.visible", String(opts.userVisibleOnly));
    localStorage.setItem(KEY, JSON.stringify(sub));
    return make(sub);
  };
  PushManager.prototype.getSubscription = async function () {
    const s = localStorage.getItem(KEY);
    return s ? make(JSON.parse(s)) : null;
  };
  const real = Navigator.prototype.setAppBadge;
  Navigator.prototype.setAppBadge = function (n) {
    window.__badge = n;
    return real ? real.call(this, n).catch(() => {}) : Promise.resolve();
  };
  const clear = Navigator.prototype.clearAppBadge;
  Navigator.prototype.clearAppBadge = function () {
    window.__badge = 0;
    return clear ? clear.call(this).catch(() => {}) : Promise.resolve();
  };
  window.__told = [];
  if (navigator.serviceWorker) navigator.serviceWorker.addEventListener("message", (e) => window.__told.push(e.data));
}

async function signUp(page, url, name, password) {
  await page.goto(url + "/");
  await page.waitForSelector("#conn.online");
  await page.click("#acct-open");
  await page.waitForSelector("#acct-dlg[open]");
  await page.click("#acct-tab-up");
  await page.fill("#acct-name-in", name);
  await page.fill("#acct-pw", password);
  await page.click("#acct-submit");
  await page.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name, { timeout: 5000 });
}

const titleIs = (page, want) =>
  page.waitForFunction((w) => document.title === w, want, { timeout: 15000 }).then(() => true, () => false);

export async function pushSuite({ browser, test, errors }) {
  const srv = await startServer();
  const url = srv.url;
  const origin = new URL(url).origin;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "carcd-push-"));
  const ctx = await launchPersistent(dir, { locale: "de-DE", viewport: { width: 1280, height: 800 } });
  await ctx.grantPermissions(["notifications"], { origin });
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.generateKeys();
  const sub = { endpoint: "https://push.invalid/e2e/" + b64url(crypto.randomBytes(12)), expirationTime: null, keys: { p256dh: b64url(ecdh.getPublicKey()), auth: b64url(crypto.randomBytes(16)) } };
  await ctx.addInitScript(stubPush, sub);
  let offline = false; // once carcd is stopped, the page's failed requests are the point
  const watch = (p, label) => {
    p.on("console", (m) => !offline && consoleError(m) && errors.push(`${label}: ${m.text()}`));
    p.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
    return p;
  };
  const page = watch(ctx.pages()[0] || (await ctx.newPage()), "push");
  const name = "Push" + Date.now().toString(36).slice(-6);
  const password = "a push password";
  let rooms = { mine: null, theirs: null };
  let guest = null;

  try {
    await test("[push] Notifications on from the account menu: carcd's key, the subscription kept, sent again after a reload", async () => {
      await signUp(page, url, name, password);
      await page.click("#acct-menu-btn");
      await page.waitForSelector('#acct-push[data-state="off"]');
      const off = await page.textContent("#acct-push");
      assert(off === "Benachrichtigungen: aus — einschalten", "the item off: " + off);
      const posted = page.waitForResponse((r) => r.url().endsWith("/api/push/subscriptions") && r.request().method() === "POST");
      await page.click("#acct-push");
      const res = await posted;
      assert(res.status() === 204, "POST /api/push/subscriptions: " + res.status());
      const body = JSON.parse(res.request().postData());
      assert(JSON.stringify(body) === JSON.stringify(sub), "the subscription sent: " + res.request().postData());
      assert(res.request().headers()["x-csrf-token"], "no X-CSRF-Token");
      const key = (await (await fetch(url + "/api/push/key")).json()).key;
      const given = await page.evaluate(() => [localStorage.getItem("e2e.push.key"), localStorage.getItem("e2e.push.visible")]);
      assert(given[0] === key && Buffer.from(key, "base64url").length === 65 && given[1] === "true", "subscribe() got " + given + ", carcd's key is " + key);
      await page.waitForSelector('#acct-push[data-state="on"]');
      assert((await page.textContent("#acct-push")) === "Benachrichtigungen: an — ausschalten", "the item on");
      assert(await page.isVisible("#acct-menu"), "the menu closed on the click");

      // a reload: the same subscription sent again (the server keeps what browsers send)
      const again = page.waitForResponse((r) => r.url().endsWith("/api/push/subscriptions") && r.request().method() === "POST");
      await page.reload();
      const res2 = await again;
      assert(res2.status() === 204, "the POST after a reload: " + res2.status());
      assert(JSON.parse(res2.request().postData()).endpoint === sub.endpoint, "another endpoint after the reload");
      await page.click("#acct-menu-btn");
      await page.waitForSelector('#acct-push[data-state="on"]');
      await page.click("#acct-menu-btn");
    });

    await test("[push] the worker controls the page: static files from the network first (a stale copy replaced), never /api/", async () => {
      await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 10000 });
      const got = await page.evaluate(async () => {
        const shell = (await caches.keys()).filter((k) => k.startsWith("carcd-shell-"));
        const cache = await caches.open(shell[0]);
        // a stale copy of a module in the cache: online, the network's answer wins and replaces it
        await cache.put(new URL("js/app.js", location.href).href, new Response("stale"));
        const live = await (await fetch("js/app.js")).text();
        await new Promise((r) => setTimeout(r, 300)); // the worker's put of the fresh copy
        const kept = await (await cache.match(new URL("js/app.js", location.href).href)).text();
        await fetch("/api/tiles");
        const cached = (await cache.keys()).map((r) => new URL(r.url).pathname);
        return { shell, live: live.slice(0, 200), kept: kept.slice(0, 200), cached };
      });
      assert(got.shell.length === 1, "shell caches: " + got.shell);
      assert(got.live.includes("app.js:") && got.kept === got.live, "js/app.js online: " + JSON.stringify(got));
      for (const f of ["/", "/js/main.js", "/js/waiting.js", "/js/push.js", "/i18n/de.json", "/style.css", "/icon-192.png", "/manifest.webmanifest"]) {
        assert(got.cached.includes(f), f + " not in the shell: " + got.cached);
      }
      assert(!got.cached.some((p) => p.startsWith("/api/") || p === "/ws" || p === "/sw.js"), "not a static file in the shell: " + got.cached);
    });

    await test("[push] waiting for you: two games, one your turn -> \"(1) carcd\" and badge 1; a turn change and a push count again", async () => {
      // game 1: ours, against a bot; we move first
      const mine = watch(await ctx.newPage(), "push-mine");
      await mine.goto(url + "/");
      await mine.waitForSelector("#conn.online");
      await mine.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name);
      await mine.click("#create-btn");
      await mine.waitForSelector('#scoreboard tbody tr[data-seat="1"] button.add-bot');
      await mine.click('#scoreboard tbody tr[data-seat="1"] button.add-bot');
      await mine.waitForSelector('.bot-mark[data-bot-seat="1"]');
      await mine.click("#start-btn");
      await mine.waitForFunction(async () => (await import("/js/app.js")).app.doc?.phase === "playing");
      rooms.mine = await mine.evaluate(async () => (await import("/js/app.js")).app.room);
      // game 2: a guest's, which we join; the guest moves first
      const gctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      guest = watch(await gctx.newPage(), "push-guest");
      await guest.goto(url + "/");
      await guest.waitForSelector("#conn.online");
      await guest.fill("#create-name", "Gus");
      await guest.click("#create-btn");
      await guest.waitForSelector("#room-view:not([hidden])");
      await guest.waitForFunction(async () => !!(await import("/js/app.js")).app.room);
      rooms.theirs = await guest.evaluate(async () => (await import("/js/app.js")).app.room);
      const theirs = watch(await ctx.newPage(), "push-theirs");
      await theirs.goto(url + "/#room=" + rooms.theirs);
      await theirs.waitForSelector("#room-join-form:not([hidden])");
      await theirs.click("#room-join-btn");
      await guest.waitForSelector('#scoreboard tbody tr[data-seat="1"]');
      await guest.waitForSelector("#start-btn:not([disabled])");
      await guest.click("#start-btn");
      await guest.waitForSelector("#world .legal", { timeout: 15000 });

      const api = await page.evaluate(async () => (await (await fetch("/api/me/games")).json()).games.filter((g) => g.status === "running"));
      const yours = Object.fromEntries(api.map((g) => [g.room, g.your_turn]));
      assert(yours[rooms.mine] === true && yours[rooms.theirs] === false, "GET /api/me/games: " + JSON.stringify(api));
      await page.reload();
      await page.waitForSelector("#conn.online");
      assert(await titleIs(page, "(1) carcd"), "the lobby's title: " + (await page.title()));
      assert((await page.evaluate(() => window.__badge)) === 1, "the badge: " + (await page.evaluate(() => window.__badge)));
      // the guest moves: in the page of that game it is now our turn too (its turn change counts)
      await clickMove(guest, 0);
      assert(await titleIs(theirs, "(2) carcd"), "the joined game's page: " + (await theirs.title()));
      await theirs.close();
      await mine.close();
    });

    let reg = null;
    let cdp = null;
    const notices = () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, lang: n.lang, data: n.data, icon: n.icon })));
    await test("[push] a your_turn push shows a notice in German, by room, with the room's URL; the page counts again", async () => {
      cdp = await ctx.newCDPSession(page);
      const regs = [];
      cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => regs.push(...e.registrations));
      await cdp.send("ServiceWorker.enable");
      for (let i = 0; i < 50 && !regs.some((r) => r.scopeURL === url + "/"); i++) await page.waitForTimeout(100);
      reg = regs.find((r) => r.scopeURL === url + "/");
      assert(reg, "no registration for " + url + "/: " + JSON.stringify(regs));
      const push = (payload) => cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId: reg.registrationId, data: JSON.stringify(payload) });
      const r = rooms.mine;
      const turn = { v: 1, type: "your_turn", room: r, url: "/#room=" + r, seat: 0, deadline: null, players: [name, "Ann", "Bob"],
        title: "Your turn", body: `It is your turn in room ${r} against Ann and Bob` };
      assert((await page.title()) === "(1) carcd", "before the push: " + (await page.title()));
      await push(turn);
      let shown = [];
      for (let i = 0; i < 50 && !shown.length; i++) {
        await page.waitForTimeout(100);
        shown = await notices();
      }
      assert(shown.length === 1, "notices: " + JSON.stringify(shown));
      const n = shown[0];
      assert(n.title === "Du bist dran" && n.body === `Partie gegen Ann und Bob (Raum ${r})` && n.lang === "de", "the notice in German: " + JSON.stringify(n));
      assert(n.tag === r && n.data.url === `${url}/#room=${r}` && n.icon === url + "/icon-192.png", "tag, url, icon: " + JSON.stringify(n));
      // the page was told, and counted again: the guest's move made it two
      await page.waitForFunction(() => window.__told.some((m) => m.push === "your_turn"), null, { timeout: 5000 });
      assert(await titleIs(page, "(2) carcd"), "after the push: " + (await page.title()));
      // a second notice of the same room replaces the first; an unknown type shows its own words
      await push({ ...turn, players: [name, "Ann", "Cleo"] });
      await push({ v: 1, type: "something_new", title: "Hello", body: "A notice of a kind this client does not know", url: "/" });
      for (let i = 0; i < 50 && shown.length < 2; i++) {
        await page.waitForTimeout(100);
        shown = await notices();
      }
      const byTag = shown.filter((x) => x.tag === r);
      assert(shown.length === 2 && byTag.length === 1 && byTag[0].body === `Partie gegen Ann und Cleo (Raum ${r})`, "after two more: " + JSON.stringify(shown));
      const other = shown.find((x) => x.tag !== r);
      assert(other.title === "Hello" && other.body === "A notice of a kind this client does not know", "the unknown type: " + JSON.stringify(other));
    });

    await test("[push] a click on the notice takes the app's tab to the game", async () => {
      const worker = ctx.serviceWorkers().find((w) => w.url() === url + "/sw.js");
      assert(worker, "no worker: " + ctx.serviceWorkers().map((w) => w.url()));
      const r = rooms.mine;
      assert(new URL(page.url()).hash === "", "the page is not in the lobby: " + page.url());
      const out = await worker.evaluate(async (room) => {
        const [n] = await self.registration.getNotifications({ tag: room });
        if (!n) return { url: null, left: -1 }; // no notice of the room to click
        const ev = new NotificationEvent("notificationclick", { notification: n });
        let kept = null;
        ev.waitUntil = (p) => (kept = p); // an event made here is not trusted: its own waitUntil throws
        self.dispatchEvent(ev);
        const client = await kept;
        const left = await self.registration.getNotifications({ tag: room });
        return { url: client && client.url, left: left.length };
      }, r);
      await page.waitForFunction((room) => location.hash === "#room=" + room, r, { timeout: 5000 });
      assert(out.url && out.url.startsWith(url + "/") && out.left === 0, "the click: " + JSON.stringify(out));
      await page.waitForFunction(async (room) => { const { app } = await import("/js/app.js"); return app.room === room && app.seat === 0; }, r, { timeout: 10000 });
      // targets of other notices: this site's URL, else the app's start
      const targets = await worker.evaluate(() => [clickTarget({ url: "https://elsewhere.example/x" }), clickTarget({}), clickTarget(null)]);
      assert(targets.every((x) => x === url + "/"), "targets: " + JSON.stringify(targets));
    });

    await test("[push] time_low and game_over notices in German, from the payload's deadline, rank and scores", async () => {
      const push = (payload) => cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId: reg.registrationId, data: JSON.stringify(payload) });
      const deadline = Date.now() + (2 * 3600 + 5 * 60) * 1000;
      await push({ v: 1, type: "time_low", room: "LowRm001", url: "/#room=LowRm001", seat: 1, deadline, players: ["Ann", name], title: "Time is running low", body: "x" });
      await push({ v: 1, type: "game_over", room: "OverRm01", url: "/#replay=OverRm01", seat: 1, rank: 1, players: ["Ann", name, "Bob"], scores: [80, 95, 60], title: "Game over", body: "x" });
      let shown = [];
      for (let i = 0; i < 50 && shown.filter((n) => n.tag === "LowRm001" || n.tag === "OverRm01").length < 2; i++) {
        await page.waitForTimeout(100);
        shown = await notices();
      }
      const low = shown.find((n) => n.tag === "LowRm001");
      const over = shown.find((n) => n.tag === "OverRm01");
      assert(low && low.title === "Die Zeit wird knapp" && /^Noch 2 Std\. [45] Min\. in der Partie gegen Ann \(Raum LowRm001\)$/.test(low.body), "time_low: " + JSON.stringify(low));
      assert(over && over.title === "Partie beendet" && over.body === "Raum OverRm01: Platz 1 von 3, 95 Punkte" && over.data.url === url + "/#replay=OverRm01", "game_over: " + JSON.stringify(over));
    });

    await test("[push] installable: no installability error, the manifest as Chromium reads it, its icons", async () => {
      await page.goto(url + "/");
      await page.waitForSelector("#conn.online");
      const m = await cdp.send("Page.getAppManifest");
      assert(m.url === url + "/manifest.webmanifest", "manifest url " + m.url);
      assert(m.errors.length === 0, "manifest errors: " + JSON.stringify(m.errors));
      const parsed = JSON.parse(m.data);
      assert(parsed.name && parsed.short_name === "carcd" && ["standalone", "minimal-ui"].includes(parsed.display), "manifest: " + m.data);
      assert(new URL(parsed.start_url, m.url).href === url + "/" && new URL(parsed.scope, m.url).href === url + "/", "start_url/scope: " + m.data);
      const sizes = await page.evaluate(async (icons) => {
        const out = {};
        for (const i of icons.filter((x) => x.type === "image/png")) {
          const img = new Image();
          img.src = i.src;
          await img.decode();
          out[i.sizes] = `${img.naturalWidth}x${img.naturalHeight}`;
        }
        return out;
      }, parsed.icons);
      assert(sizes["192x192"] === "192x192" && sizes["512x512"] === "512x512", "icon sizes: " + JSON.stringify(sizes));
      let inst = null;
      for (let i = 0; i < 20; i++) {
        inst = await cdp.send("Page.getInstallabilityErrors");
        if (!inst.installabilityErrors.length) break;
        await page.waitForTimeout(250); // the manifest and the worker are checked as they come
      }
      assert(inst.installabilityErrors.length === 0, "installability errors: " + JSON.stringify(inst.installabilityErrors));
    });

    await test("[push] Turn off: the subscription deleted on the server and in the browser; on again", async () => {
      await page.click("#acct-menu-btn");
      await page.waitForSelector('#acct-push[data-state="on"]');
      const deleted = page.waitForResponse((r) => r.url().endsWith("/api/push/subscriptions") && r.request().method() === "DELETE");
      await page.click("#acct-push");
      const res = await deleted;
      assert(res.status() === 204, "DELETE: " + res.status());
      assert(JSON.parse(res.request().postData()).endpoint === sub.endpoint, "DELETE of another endpoint");
      await page.waitForSelector('#acct-push[data-state="off"]');
      assert((await page.evaluate(() => localStorage.getItem("e2e.push.unsubscribed"))) === "1", "not unsubscribed in the browser");
      // the server has it no more: a second DELETE of it is 404 no_such_subscription
      const again = await page.evaluate(async (ep) => {
        const me = await (await fetch("/api/me")).json();
        const r = await fetch("/api/push/subscriptions", { method: "DELETE", headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf }, body: JSON.stringify({ endpoint: ep }) });
        return [r.status, (await r.json()).error];
      }, sub.endpoint);
      assert(again[0] === 404 && again[1] === "no_such_subscription", "a second DELETE: " + again);
      const i = errors.findIndex((e) => /^push: Failed to load resource: .*404/.test(e)); // that refusal, on purpose
      if (i >= 0) errors.splice(i, 1);
      const posted = page.waitForResponse((r) => r.url().endsWith("/api/push/subscriptions") && r.request().method() === "POST");
      await page.click("#acct-push");
      assert((await posted).status() === 204, "on again");
      await page.waitForSelector('#acct-push[data-state="on"]');
      await page.click("#acct-menu-btn");
    });

    await test("[push] Sign out: the subscription deleted on the server and in the browser, no count in the title", async () => {
      assert(await titleIs(page, "(2) carcd"), "signed in: " + (await page.title()));
      const deleted = page.waitForResponse((r) => r.url().endsWith("/api/push/subscriptions") && r.request().method() === "DELETE");
      await page.click("#acct-menu-btn");
      await page.click("#acct-signout");
      const res = await deleted;
      assert(res.status() === 204 && JSON.parse(res.request().postData()).endpoint === sub.endpoint, "DELETE at sign-out: " + res.status());
      await page.waitForSelector("#acct-open:not([hidden])");
      const left = await page.evaluate(() => [localStorage.getItem("e2e.push.sub"), localStorage.getItem("e2e.push.unsubscribed"), window.__badge]);
      assert(left[0] === null && left[1] === "2" && left[2] === 0, "in the browser after sign-out (subscription, unsubscribes, badge): " + JSON.stringify(left));
      assert(await titleIs(page, "carcd"), "signed out: " + (await page.title()));
    });

    await test("[push] offline (carcd stopped): a reload shows the lobby from the shell, in German", async () => {
      offline = true;
      await srv.stop();
      await page.reload();
      await page.waitForSelector("#create-form");
      await page.waitForFunction(() => document.documentElement.lang === "de" && document.getElementById("create-btn").textContent === "Raum erstellen", null, { timeout: 10000 });
      const api = await page.evaluate(() => fetch("/api/me", { cache: "no-store" }).then((r) => r.status, (e) => e.name));
      assert(api === "TypeError", "/api/me offline: " + api);
    });
  } finally {
    await ctx.close();
    if (guest) await guest.context().close();
    if (!offline) await srv.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Alone: node tests/e2e/push.mjs
if (import.meta.url === pathToFileURL(process.argv[1]).href) await runAlone(pushSuite);
