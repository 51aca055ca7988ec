// WORK IN PROGRESS, not in run.mjs: 2 of its 7 checks pass (the your_turn notice in German with
// tag and URL; clickTarget). Blockers: Playwright's contexts are incognito, where Chromium has no
// Push API (subscribe fails), and a persistent context crashed on subscribe headless; carcd's CSP
// (default-src 'none', no manifest-src) blocks the manifest, so the installability checks fail.
// push.mjs: Web Push and the installable app in the page (issue 28 item 2; clients/web/sw.js,
// js/push.js, manifest.webmanifest; PROTOCOL.md "Notifications"). A German browser that allows
// notifications signs up, turns Notifications on in the account menu (the subscription POSTed,
// 204) and after a reload the page sends it again and the menu says "on"; the worker controls the
// page, serves the shell from its cache and leaves /api/ to the network; a `your_turn` push
// delivered through the DevTools protocol shows a notice in German, tagged with the room, with the
// room's URL; an unknown type shows the payload's words; the click's target URL (a real click on
// a notice cannot be made headless: sw.js clickTarget() is evaluated in the worker instead);
// Turn off (DELETE, 204; the server then has it no more: 404). The manifest as Chromium parses
// it (Page.getAppManifest: no errors, the names, start_url, display, icons of 192 and 512 that
// load at those sizes) and no installability error (Page.getInstallabilityErrors).
// pushSuite({browser, url, test, errors}) adds its tests to run.mjs (E2E_ONLY=push);
// `node tests/e2e/push.mjs` runs them alone (CARC_WEB_ROOT=DIR serves another client).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { assert, launch, startServer } from "./harness.mjs";

export async function pushSuite({ browser, url, test, errors }) {
  const origin = new URL(url).origin;
  const ctx = await browser.newContext({ locale: "de-DE", viewport: { width: 1280, height: 800 } });
  await ctx.grantPermissions(["notifications"], { origin });
  const page = await ctx.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`push: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`push: ${e.message}`));
  const name = "Push" + Date.now().toString(36).slice(-6);
  let endpoint = null;

  try {
    await test("[push] Notifications on from the account menu: the subscription kept, sent again after a reload", async () => {
      await page.goto(url + "/");
      await page.waitForSelector("#conn.online");
      await page.click("#acct-open");
      await page.waitForSelector("#acct-dlg[open]");
      await page.click("#acct-tab-up");
      await page.fill("#acct-name-in", name);
      await page.fill("#acct-pw", "a push password");
      await page.click("#acct-submit");
      await page.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name, { timeout: 5000 });
      await page.click("#acct-menu-btn");
      await page.waitForSelector('#acct-push[data-state="off"]');
      const off = await page.textContent("#acct-push");
      assert(off === "Benachrichtigungen: aus — einschalten", "the item off: " + off);
      const posted = page.waitForResponse((r) => r.url().endsWith("/api/push/subscriptions") && r.request().method() === "POST");
      await page.click("#acct-push");
      const res = await posted;
      assert(res.status() === 204, "POST /api/push/subscriptions: " + res.status());
      const body = JSON.parse(res.request().postData());
      endpoint = body.endpoint;
      assert(/^https:\/\//.test(endpoint) && body.keys && body.keys.p256dh && body.keys.auth, "the subscription sent: " + res.request().postData());
      assert(res.request().headers()["x-csrf-token"], "no X-CSRF-Token");
      await page.waitForSelector('#acct-push[data-state="on"]');
      assert((await page.textContent("#acct-push")) === "Benachrichtigungen: an — ausschalten", "the item on");
      assert(await page.isVisible("#acct-menu"), "the menu closed on the click");

      // a reload: the same subscription sent again (the server keeps what browsers send)
      const again = page.waitForResponse((r) => r.url().endsWith("/api/push/subscriptions") && r.request().method() === "POST");
      await page.reload();
      const res2 = await again;
      assert(res2.status() === 204, "the POST after a reload: " + res2.status());
      assert(JSON.parse(res2.request().postData()).endpoint === endpoint, "another endpoint after the reload");
      await page.click("#acct-menu-btn");
      await page.waitForSelector('#acct-push[data-state="on"]');
    });

    await test("[push] the worker controls the page and serves the shell, never /api/", async () => {
      await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 5000 });
      const sources = await page.evaluate(async () => {
        const out = {};
        for (const u of ["js/main.js", "i18n/de.json", "icon-512.png", "/api/tiles"]) {
          const e0 = performance.getEntriesByName(new URL(u, location.href).href).length;
          await fetch(u);
          const all = performance.getEntriesByName(new URL(u, location.href).href);
          out[u] = all.length > e0 ? all[all.length - 1].workerStart > 0 : null;
        }
        out.shell = (await caches.keys()).filter((k) => k.startsWith("carcd-shell-"));
        out.cached = (await (await caches.open(out.shell[0])).keys()).map((r) => new URL(r.url).pathname);
        return out;
      });
      assert(sources.shell.length === 1, "shell caches: " + sources.shell);
      for (const f of ["/", "/index.html", "/js/main.js", "/js/push.js", "/i18n/pl.json", "/style.css", "/icon-192.png"]) {
        assert(sources.cached.includes(f), f + " not in the shell: " + sources.cached);
      }
      assert(!sources.cached.some((p) => p.startsWith("/api/") || p === "/ws"), "an API answer in the shell: " + sources.cached);
      // a response from the cache has no size on the wire; /api/tiles goes to the server
      const wire = await page.evaluate(async () => {
        const sizes = {};
        for (const u of ["style.css", "/api/tiles"]) {
          performance.clearResourceTimings();
          await fetch(u, { cache: "no-store" });
          const e = performance.getEntriesByType("resource")[0];
          sizes[u] = e ? e.transferSize : -1;
        }
        return sizes;
      });
      assert(wire["style.css"] === 0, "style.css came over the wire: " + JSON.stringify(wire));
      assert(wire["/api/tiles"] > 0, "/api/tiles did not reach the server: " + JSON.stringify(wire));
    });

    let worker = null;
    await test("[push] a your_turn push shows a notice in the page's language, by room, with the room's URL", async () => {
      worker = ctx.serviceWorkers().find((w) => w.url().endsWith("/sw.js"));
      assert(worker, "no worker: " + ctx.serviceWorkers().map((w) => w.url()));
      const cdp = await ctx.newCDPSession(page);
      const regs = [];
      cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => regs.push(...e.registrations));
      await cdp.send("ServiceWorker.enable");
      for (let i = 0; i < 50 && !regs.some((r) => r.scopeURL === url + "/"); i++) await page.waitForTimeout(100);
      const reg = regs.find((r) => r.scopeURL === url + "/");
      assert(reg, "no registration for " + url + "/: " + JSON.stringify(regs));
      const push = async (payload) => {
        await cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId: reg.registrationId, data: JSON.stringify(payload) });
      };
      const notices = () => page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, lang: n.lang, data: n.data, icon: n.icon })));
      const turn = { v: 1, type: "your_turn", room: "AB12cd34", url: "/#room=AB12cd34", seat: 1, deadline: null, players: ["Ann", name, "Bob"],
        title: "Your turn", body: "It is your turn in room AB12cd34 against Ann and Bob" };
      await push(turn);
      let shown = [];
      for (let i = 0; i < 50 && !shown.length; i++) {
        await page.waitForTimeout(100);
        shown = await notices();
      }
      assert(shown.length === 1, "notices: " + JSON.stringify(shown));
      const n = shown[0];
      assert(n.title === "Du bist dran" && n.body === "Partie gegen Ann und Bob (Raum AB12cd34)", "the notice in German: " + JSON.stringify(n));
      assert(n.tag === "AB12cd34" && n.data.url === url + "/#room=AB12cd34" && n.icon === url + "/icon-192.png", "tag, url, icon: " + JSON.stringify(n));
      // a second notice of the same room replaces the first; an unknown type shows its own words
      await push({ ...turn, players: ["Ann", name, "Cleo"] });
      await push({ v: 1, type: "something_new", title: "Hello", body: "A notice of a kind this client does not know", url: "/" });
      for (let i = 0; i < 50 && shown.length < 2; i++) {
        await page.waitForTimeout(100);
        shown = await notices();
      }
      const byTag = shown.filter((x) => x.tag === "AB12cd34");
      assert(shown.length === 2 && byTag.length === 1 && byTag[0].body === "Partie gegen Ann und Cleo (Raum AB12cd34)", "after two more: " + JSON.stringify(shown));
      const other = shown.find((x) => x.tag !== "AB12cd34");
      assert(other.title === "Hello" && other.body === "A notice of a kind this client does not know", "the unknown type: " + JSON.stringify(other));
      await cdp.detach();
    });

    await test("[push] a click's target: the notice's URL on this site, else the app's start", async () => {
      assert(worker, "no worker");
      const got = await worker.evaluate(() => [
        clickTarget({ url: "/#room=AB12cd34" }), clickTarget({ url: "https://elsewhere.example/x" }), clickTarget({}), clickTarget(null),
      ]);
      const want = [url + "/#room=AB12cd34", url + "/", url + "/", url + "/"];
      assert(JSON.stringify(got) === JSON.stringify(want), "targets: " + JSON.stringify(got));
    });

    await test("[push] installable: the manifest as Chromium reads it, its icons, no installability error", async () => {
      const cdp = await ctx.newCDPSession(page);
      const m = await cdp.send("Page.getAppManifest");
      assert(m.url === url + "/manifest.webmanifest", "manifest url " + m.url);
      assert(m.errors.length === 0, "manifest errors: " + JSON.stringify(m.errors));
      const parsed = JSON.parse(m.data);
      assert(parsed.name && parsed.short_name === "carcd" && parsed.display === "standalone", "manifest: " + m.data);
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
      const inst = await cdp.send("Page.getInstallabilityErrors");
      assert(inst.installabilityErrors.length === 0, "installability errors: " + JSON.stringify(inst.installabilityErrors));
      await cdp.detach();
    });

    await test("[push] Turn off: the subscription deleted on the server and in the browser", async () => {
      await page.click("#acct-menu-btn");
      await page.waitForSelector('#acct-push[data-state="on"]');
      const deleted = page.waitForResponse((r) => r.url().endsWith("/api/push/subscriptions") && r.request().method() === "DELETE");
      await page.click("#acct-push");
      const res = await deleted;
      assert(res.status() === 204, "DELETE: " + res.status());
      assert(JSON.parse(res.request().postData()).endpoint === endpoint, "DELETE of another endpoint");
      await page.waitForSelector('#acct-push[data-state="off"]');
      // the server has it no more: a second DELETE of it is 404 no_such_subscription
      const again = await page.evaluate(async (ep) => {
        const me = await (await fetch("/api/me")).json();
        const r = await fetch("/api/push/subscriptions", { method: "DELETE", headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf }, body: JSON.stringify({ endpoint: ep }) });
        return [r.status, (await r.json()).error];
      }, endpoint);
      assert(again[0] === 404 && again[1] === "no_such_subscription", "a second DELETE: " + again);
      // that refusal is logged by Chromium as a console error on purpose
      const i = errors.findIndex((e) => /^push: Failed to load resource: .*404/.test(e));
      if (i >= 0) errors.splice(i, 1);
    });
  } finally {
    await ctx.close();
  }
}

// Alone: node tests/e2e/push.mjs
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
      console.log(`FAIL ${name}: ${e && e.stack ? e.stack.split("\n").slice(0, 3).join("\n     ") : e}`);
    }
  };
  try {
    await pushSuite({ browser, url: srv.url, test, errors });
  } finally {
    await browser.close();
    await srv.stop();
  }
  if (errors.length) {
    failed++;
    console.log("console errors:\n" + errors.join("\n"));
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}
