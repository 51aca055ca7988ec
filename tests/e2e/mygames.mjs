// mygames.mjs: "My games" and resuming a seat from any device (issue 27, items 3 and 4;
// clients/web/js/mygames.js, PROTOCOL.md "Accounts (HTTP)" "My games" and "Seats of accounts"):
// an account signs up in browser context A, creates a room, adds a bot and starts; in context B
// (another device: no token) the same account signs in, opens My games (the running game listed,
// axe on the dialog), presses Resume and plays a move in the same seat; on a 390x844 phone
// (context C, the same account) the dialog is audited too, and opening the room's link resumes
// the seat without a token. A guest who played a few moves signs up with the box "Add this
// browser's 1 guest game to my account" checked (POST /api/me/claim): the dialog says it was
// added, My games lists the game and the seat plays on. mygamesSuite({browser, url, test,
// errors}) adds its tests to run.mjs (E2E_ONLY='my games').
import { createRequire } from "node:module";
import { clickMove } from "./play.mjs";
import { DESKTOP, PHONE, assert, consoleError } from "./harness.mjs";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

async function context(browser, label, errors, size = DESKTOP) {
  const phone = size.width < 700;
  const ctx = await browser.newContext({ viewport: size, hasTouch: phone, isMobile: phone, bypassCSP: true });
  const page = await ctx.newPage();
  page.on("console", (m) => consoleError(m) && errors.push(`${label}: ${m.text()}`));
  page.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  return page;
}

// Signs in or up through the dialog (the page then opens its WebSocket again, signed in).
async function signThrough(page, url, tab, name, password) {
  await page.goto(url + "/");
  await page.waitForSelector("#conn.online");
  await page.waitForSelector("#acct-open:not([hidden])");
  await page.click("#acct-open");
  await page.waitForSelector("#acct-dlg[open]");
  if (tab === "up") await page.click("#acct-tab-up");
  await page.fill("#acct-name-in", name);
  await page.fill("#acct-pw", password);
  await page.click("#acct-submit");
  await page.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name, { timeout: 5000 });
}

async function audit(page, where) {
  if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ path: AXE });
  const res = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(" | ")}`);
  });
  assert(res.length === 0, `${where}:\n       ${res.join("\n       ")}`);
}

// Opens My games from the account menu; waits for the running game of room.
async function openMyGames(page, room) {
  await page.click("#acct-menu-btn");
  await page.click("#acct-games");
  await page.waitForSelector("#games-dlg[open]");
  const ok = await page
    .waitForFunction((r) => [...document.querySelectorAll("#games-run-list .games-room")].some((n) => n.textContent.includes(r)), room, { timeout: 10000 })
    .then(() => true, () => false);
  if (!ok) {
    const api = await page.evaluate(async () => (await fetch("/api/me/games")).text());
    assert(false, `room ${room} not in My games: ${await page.$eval("#games-dlg", (d) => d.textContent)} / ${api}`);
  }
}

const seatOf = (page) => page.evaluate(async () => (await import("/js/app.js")).app.seat);

export async function mygamesSuite({ browser, url, test, errors }) {
  const name = "Mg" + Date.now().toString(36);
  const password = "my games password 27";
  let room = null;
  let seat = null;

  await test("[my games] sign up in A and start a game; in B (no token) My games lists it, Resume takes the same seat and a move is played", async () => {
    const a = await context(browser, "mygames-a", errors);
    await signThrough(a, url, "up", name, password);
    await a.waitForSelector("#conn.online"); // the WebSocket again, with the cookie
    await a.click("#create-btn");
    await a.waitForSelector('#scoreboard tbody tr[data-seat="1"] button.add-bot');
    await a.click('#scoreboard tbody tr[data-seat="1"] button.add-bot');
    await a.waitForSelector('.bot-mark[data-bot-seat="1"]');
    await a.click("#start-btn");
    await a.waitForFunction(async () => (await import("/js/app.js")).app.doc?.phase === "playing");
    room = await a.evaluate(async () => (await import("/js/app.js")).app.room);
    seat = await seatOf(a);
    assert(room && seat === 0, `A's room ${room}, seat ${seat}`);

    const b = await context(browser, "mygames-b", errors);
    await signThrough(b, url, "in", name, password);
    assert((await b.evaluate((r) => localStorage.getItem("carcd.seat." + r), room)) === null, "B holds a token");
    await openMyGames(b, room);
    const focus = await b.evaluate(() => document.getElementById("games-dlg").contains(document.activeElement));
    assert(focus, "the focus is not in the My games dialog");
    await audit(b, "My games, 1366x850");
    const yours = await b.$eval("#games-run-list .games-item", (li) => li.textContent);
    assert(/Room /.test(yours), "the running game: " + yours);
    await b.click("#games-run-list .games-item button");
    await b.waitForFunction(() => !document.getElementById("games-dlg").open);
    await b.waitForSelector("#room-view:not([hidden])");
    // app.room is set before the resume's answer gives app.seat: wait for both
    const resumed = await b.waitForFunction(async ([r, st]) => { const { app } = await import("/js/app.js"); return app.room === r && app.seat === st; }, [room, seat], { timeout: 10000 }).then(() => true, () => false);
    assert(resumed, "B's seat " + (await seatOf(b)));
    await b.waitForSelector("#world .legal", { timeout: 20000 });
    await clickMove(b, 1);
    await a.context().close();
    await b.context().close();
  });

  await test("[my games] a 390x844 phone: axe on My games; the room's link resumes the account's seat without a token", async () => {
    assert(room, "no room from the test before");
    const c = await context(browser, "mygames-c", errors, PHONE);
    await signThrough(c, url, "in", name, password);
    await openMyGames(c, room);
    await audit(c, "My games, 390x844");
    const r = await c.evaluate(() => {
      const d = document.getElementById("games-dlg").getBoundingClientRect();
      return { right: d.right, width: innerWidth, scroll: document.documentElement.scrollWidth };
    });
    assert(r.right <= r.width && r.scroll <= r.width, "the dialog is wider than the phone: " + JSON.stringify(r));
    await c.keyboard.press("Escape");
    await c.waitForFunction(() => !document.getElementById("games-dlg").open);
    await c.goto(url + "/#room=" + room);
    // the page may redial after its sign-in (the seat null again a moment): wait for the seat itself
    const got = await c.waitForFunction(async ([rm, st]) => { const { app } = await import("/js/app.js"); return app.room === rm && app.seat === st; }, [room, seat], { timeout: 10000 }).then(() => true, () => false);
    assert(got, "the link's seat " + (await seatOf(c)));
    await c.context().close();
  });

  await test("[my games] a guest plays a few moves, signs up with its guest game claimed; My games lists it and the seat plays on", async () => {
    const g = await context(browser, "mygames-guest", errors);
    await g.goto(url + "/");
    await g.waitForSelector("#conn.online");
    await g.fill("#create-name", "Guesty");
    await g.click("#create-btn");
    await g.waitForSelector('#scoreboard tbody tr[data-seat="1"] button.add-bot');
    await g.click('#scoreboard tbody tr[data-seat="1"] button.add-bot');
    await g.waitForSelector('.bot-mark[data-bot-seat="1"]');
    await g.click("#start-btn");
    await g.waitForFunction(async () => (await import("/js/app.js")).app.doc?.phase === "playing");
    const groom = await g.evaluate(async () => (await import("/js/app.js")).app.room);
    for (let i = 1; i <= 2; i++) {
      await g.waitForSelector("#world .legal", { timeout: 20000 });
      await clickMove(g, i);
    }
    await g.click("#acct-open");
    await g.waitForSelector("#acct-dlg[open]");
    await g.click("#acct-tab-up");
    await g.waitForSelector("#acct-claim-row:not([hidden])");
    const box = await g.$eval("#acct-claim-row", (l) => [l.textContent.trim(), l.querySelector("input").checked]);
    assert(box[0] === "Add this browser's 1 guest game to my account" && box[1], "the box: " + JSON.stringify(box));
    await g.fill("#acct-name-in", name + "g");
    await g.fill("#acct-pw", password);
    await g.click("#acct-submit");
    await g.waitForFunction(() => document.getElementById("acct-done").textContent.length > 0, null, { timeout: 10000 });
    const said = await g.textContent("#acct-done");
    assert(said === "1 guest game added to your account.", "the claim: " + said);
    await g.click("#acct-cancel");
    await g.waitForFunction(() => !document.getElementById("acct-dlg").open);
    await g.waitForSelector("#conn.online"); // the WebSocket again, with the cookie
    await openMyGames(g, groom);
    await g.keyboard.press("Escape");
    await g.waitForFunction(() => !document.getElementById("games-dlg").open);
    await g.waitForSelector("#world .legal", { timeout: 20000 });
    await clickMove(g, 3);
    await g.context().close();
  });
}
