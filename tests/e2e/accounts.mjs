// accounts.mjs: the page's accounts (issue 27; clients/web/js/account.js, PROTOCOL.md "Accounts
// (HTTP)"): a guest makes no account request and plays as before; sign up (the header shows the
// name, the lobby's name fields take it, a reload keeps it through GET /api/me, the CSRF token
// is in no storage), sign out, sign in again, the server's refusals in words (wrong password,
// name taken, a short password; invite_needed and rate_limited answered by a stand-in route),
// a second browser signing in to the same account, Change password and Delete account; the
// German dialog with no English string; the dialog inside a 390x844 phone with nothing to scroll
// sideways; the keyboard (open, Tab, the tabs' arrows, Escape, the focus back on the button).
// accountsSuite({browser, url, test, errors}) adds its tests to run.mjs (E2E_ONLY=accounts);
// `node tests/e2e/accounts.mjs` runs them alone (CARC_WEB_ROOT=DIR serves another client).
//
// Chromium logs every HTTP answer of 400 or more as a console error ("Failed to load resource:
// the server responded with a status of 401"): the refusals these tests provoke on purpose are
// not counted as errors, anything else is.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DESKTOP, PHONE, ROOT, assert, consoleError, launch, startServer } from "./harness.mjs";
import { foreignWords, noForeign } from "./i18n.mjs";

const catalogue = (lang) => JSON.parse(fs.readFileSync(path.join(ROOT, "clients/web/i18n", lang + ".json"), "utf8"));
const REFUSED = /^Failed to load resource: the server responded with a status of (401|403|409|422|429)\b/;

// A page in a context of its own; `refusals` lets the answers of 401, 403, 409, 422 and 429
// through (see the header). Every account request it makes is kept in page.accountCalls.
async function accountPage(browser, label, errors, { size = DESKTOP, locale, refusals = false } = {}) {
  const phone = size.width < 700;
  const ctx = await browser.newContext({ viewport: size, hasTouch: phone, isMobile: phone, locale });
  const page = await ctx.newPage();
  page.on("console", (m) => {
    if (consoleError(m) && !(refusals && REFUSED.test(m.text()))) errors.push(`${label}: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  page.accountCalls = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (/^\/api\/(account|session|me)/.test(u.pathname)) page.accountCalls.push(`${r.method()} ${u.pathname}`);
  });
  return page;
}

async function lobby(page, url) {
  await page.goto(url + "/");
  await page.waitForSelector("#conn.online");
  await page.waitForSelector("#acct:not([hidden])");
}

async function openDialog(page, tab) {
  await page.click("#acct-open");
  await page.waitForSelector("#acct-dlg[open]");
  if (tab === "up") {
    await page.click("#acct-tab-up");
    await page.waitForSelector('#acct-tab-up[aria-selected="true"]');
  }
}

// Signs in (tab "in") or up ("up") through the dialog; waits for the header's name.
async function signThrough(page, tab, name, password) {
  await openDialog(page, tab);
  await page.fill("#acct-name-in", name);
  await page.fill("#acct-pw", password);
  await page.click("#acct-submit");
  await page.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name, { timeout: 5000 });
  assert(!(await page.evaluate(() => document.getElementById("acct-dlg").open)), "the dialog is still open");
}

// The dialog's error after a submit, as shown; whether it is in a live region.
async function submitError(page) {
  await page.click("#acct-submit");
  await page.waitForFunction(() => document.getElementById("acct-err").textContent.length > 0, null, { timeout: 5000 });
  const [text, role] = await page.$eval("#acct-err", (n) => [n.textContent, n.getAttribute("role")]);
  assert(role === "alert", "the error is not in a live region: role " + role);
  return text;
}

async function signOut(page) {
  await page.click("#acct-menu-btn");
  await page.click("#acct-signout");
  await page.waitForSelector("#acct-open:not([hidden])");
  assert((await page.evaluate(() => document.activeElement.id)) === "acct-open", "the focus after signing out is not on Sign in");
}

async function header(page) {
  return page.evaluate(() => ({
    signIn: !document.getElementById("acct-open").hidden,
    name: document.getElementById("acct-user").hidden ? null : document.getElementById("acct-name").textContent,
  }));
}

// No horizontal scroll, and every element of the open dialog inside the viewport's width.
async function fitsPhone(page, where) {
  const r = await page.evaluate(() => {
    const d = document.getElementById("acct-dlg");
    const out = [];
    for (const el of [d, ...d.querySelectorAll("*")]) {
      if (!el.checkVisibility()) continue;
      const b = el.getBoundingClientRect();
      if (b.width && (b.left < -0.5 || b.right > innerWidth + 0.5)) out.push(`${el.tagName}#${el.id} ${Math.round(b.left)}..${Math.round(b.right)}`);
    }
    const db = d.getBoundingClientRect();
    return { out, scroll: document.documentElement.scrollWidth, inner: innerWidth, dScroll: d.scrollWidth, dClient: d.clientWidth, bottom: db.bottom, height: innerHeight };
  });
  assert(r.out.length === 0, `${where}: outside the ${r.inner} px width: ${r.out.join(", ")}`);
  assert(r.scroll <= r.inner, `${where}: the page scrolls sideways (${r.scroll} > ${r.inner})`);
  assert(r.dScroll <= r.dClient, `${where}: the dialog scrolls sideways (${r.dScroll} > ${r.dClient})`);
  assert(r.bottom <= r.height, `${where}: the dialog ends under the screen (${r.bottom} > ${r.height})`);
}

// The header on a phone: one row (as high as before the account's button), nothing outside the screen.
async function headerFits(page, where) {
  const r = await page.evaluate(() => {
    const h = document.querySelector("header.top");
    const kids = [...h.children].filter((e) => e.checkVisibility()).map((e) => [e.id || e.className, e.getBoundingClientRect()]);
    return { height: h.getBoundingClientRect().height, scroll: h.scrollWidth, width: h.clientWidth, out: kids.filter(([, b]) => b.right > innerWidth).map(([n]) => n) };
  });
  assert(r.height <= 30 && r.scroll <= r.width && r.out.length === 0, `${where}: the header ${JSON.stringify(r)}`);
}

export async function accountsSuite({ browser, url, test, errors }) {
  const en = catalogue("en");
  const de = catalogue("de");
  const name = "E2e" + Date.now().toString(36);
  let password = "correct horse 27";
  const state = {};

  await test("[accounts] a guest sees Sign in, makes no account request and plays as before", async () => {
    const page = await accountPage(browser, "acct-guest", errors);
    await lobby(page, url);
    assert(JSON.stringify(await header(page)) === JSON.stringify({ signIn: true, name: null }), "header " + JSON.stringify(await header(page)));
    assert((await page.textContent("#acct-open")) === en["acct.signIn"], "the button's text");
    await page.fill("#create-name", "Gus");
    await page.click("#create-btn");
    await page.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
    await page.waitForSelector('#scoreboard tbody tr[data-seat="1"] button.add-bot');
    assert(/Gus/.test(await page.textContent("#room-role")), "the room's role line: " + (await page.textContent("#room-role")));
    assert(page.accountCalls.length === 0, "a guest's account requests: " + page.accountCalls.join(", "));
    await page.context().close();
  });

  await test("[accounts] sign up, a reload keeps the name, sign out, sign in again; refusals in words", async () => {
    const page = await accountPage(browser, "acct-a", errors, { refusals: true });
    await lobby(page, url);
    // refusals of the sign-up form
    await openDialog(page, "up");
    assert((await page.getAttribute("#acct-pw", "autocomplete")) === "new-password", "sign-up password autocomplete");
    assert((await page.getAttribute("#acct-name-in", "autocomplete")) === "username", "name autocomplete");
    await page.fill("#acct-name-in", name);
    await page.fill("#acct-pw", "short");
    let err = await submitError(page);
    assert(err === en["acct.err.passwordLength"], "a short password: " + err);
    await page.fill("#acct-name-in", "x");
    await page.fill("#acct-pw", password);
    err = await submitError(page);
    assert(err === en["acct.err.nameLength"], "a one-letter name: " + err);
    await page.keyboard.press("Escape");
    await signThrough(page, "up", name, password);
    assert((await page.inputValue("#create-name")) === name && (await page.inputValue("#join-name")) === name, "the lobby's name fields");
    const kept = await page.evaluate(() => JSON.stringify([document.cookie, { ...localStorage }, { ...sessionStorage }]));
    assert(!/carcd_session/.test(kept), "the session cookie is readable: " + kept);
    assert(!/[A-Za-z0-9_-]{43}/.test(kept), "a token in storage: " + kept);
    // a reload asks GET /api/me
    page.accountCalls.length = 0;
    await page.reload();
    await page.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name);
    assert(page.accountCalls.includes("GET /api/me"), "no GET /api/me after the reload: " + page.accountCalls.join(", "));
    assert((await page.inputValue("#create-name")) === name, "the create form's name after the reload");
    await signOut(page);
    assert(page.accountCalls.includes("DELETE /api/session"), "sign out: " + page.accountCalls.join(", "));
    assert(JSON.stringify(await header(page)) === JSON.stringify({ signIn: true, name: null }), "header after signing out");
    const me = await page.evaluate(async () => (await fetch("/api/me")).status);
    assert(me === 401, "GET /api/me after signing out: " + me);
    // the name is taken now, in any case
    await openDialog(page, "up");
    await page.fill("#acct-name-in", name.toUpperCase());
    await page.fill("#acct-pw", password);
    err = await submitError(page);
    assert(err === en["acct.err.name_taken"], "name taken: " + err);
    await page.click("#acct-cancel");
    // a wrong password, then the right one
    await openDialog(page, "in");
    assert((await page.getAttribute("#acct-pw", "autocomplete")) === "current-password", "sign-in password autocomplete");
    await page.fill("#acct-name-in", name);
    await page.fill("#acct-pw", "not the password");
    err = await submitError(page);
    assert(err === en["acct.err.wrong_credentials"], "wrong password: " + err);
    assert(await page.evaluate(() => document.getElementById("acct-dlg").open), "the dialog closed on an error");
    await page.fill("#acct-pw", password);
    await page.click("#acct-submit");
    await page.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name);
    state.page = page;
  });

  await test("[accounts] a second browser signs in to the same account, sees the name and signs out", async () => {
    const page = await accountPage(browser, "acct-b", errors);
    await lobby(page, url);
    await signThrough(page, "in", name, password);
    await page.reload();
    await page.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name);
    await signOut(page);
    await page.context().close();
    // the first browser is still signed in
    const a = state.page;
    assert(a, "no page from the previous test");
    await a.reload();
    await a.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name);
  });

  await test("[accounts] change the password, then delete the account (asked for the password and a confirmation)", async () => {
    const page = state.page;
    assert(page, "no page from the earlier tests");
    await page.click("#acct-menu-btn");
    assert((await page.getAttribute("#acct-menu-btn", "aria-expanded")) === "true", "the menu's button says it is folded");
    await page.click("#acct-password");
    await page.waitForSelector("#acct-dlg[open]");
    assert((await page.textContent("#acct-h")) === en["acct.password.title"], "the dialog's title");
    await page.fill("#acct-pw", "wrong wrong wrong");
    await page.fill("#acct-new", "another horse 27");
    let err = await submitError(page);
    assert(err === en["acct.err.wrongPassword"], "a wrong current password: " + err);
    await page.fill("#acct-pw", password);
    await page.fill("#acct-new", "another horse 27");
    await page.click("#acct-submit");
    await page.waitForFunction(() => document.getElementById("acct-done").textContent.length > 0);
    assert((await page.textContent("#acct-done")) === en["acct.password.done"], "password changed: " + (await page.textContent("#acct-done")));
    password = "another horse 27";
    await page.click("#acct-cancel");
    // still signed in; sign out and in with the new password
    await signOut(page);
    await signThrough(page, "in", name, password);
    // delete: the password and the confirmation are both asked
    await page.click("#acct-menu-btn");
    await page.click("#acct-delete");
    await page.waitForSelector("#acct-dlg[open]");
    assert(await page.isVisible("#acct-confirm"), "no confirmation box");
    await page.fill("#acct-pw", password);
    await page.click("#acct-submit"); // the box unchecked: the browser keeps the form
    await page.waitForTimeout(200);
    assert((await header(page)).name === name, "deleted without the confirmation");
    await page.check("#acct-confirm");
    await page.fill("#acct-pw", "not it at all");
    err = await submitError(page);
    assert(err === en["acct.err.wrongPassword"], "delete with a wrong password: " + err);
    await page.fill("#acct-pw", password);
    await page.click("#acct-submit");
    await page.waitForSelector("#acct-open:not([hidden])");
    assert(!(await page.evaluate(() => document.getElementById("acct-dlg").open)), "the dialog is still open");
    await openDialog(page, "in");
    await page.fill("#acct-name-in", name);
    await page.fill("#acct-pw", password);
    err = await submitError(page);
    assert(err === en["acct.err.wrong_credentials"], "sign in to a deleted account: " + err);
    await page.context().close();
  });

  await test("[accounts] invite_needed shows the invite field; rate_limited says the wait (stand-in answers)", async () => {
    const page = await accountPage(browser, "acct-stub", errors, { refusals: true });
    await page.route("**/api/account", (r) => r.fulfill({ status: 403, contentType: "application/json", body: '{"error":"invite_needed","message":"an unused invite is needed"}' }));
    await page.route("**/api/session", (r) => r.fulfill({ status: 429, contentType: "application/json", headers: { "Retry-After": "300" }, body: '{"error":"rate_limited","message":"too many failed sign-ins: wait and retry"}' }));
    await lobby(page, url);
    await openDialog(page, "up");
    assert(!(await page.isVisible("#acct-invite")), "the invite field before it is needed");
    await page.fill("#acct-name-in", "Newcomer");
    await page.fill("#acct-pw", "long enough pw");
    const err = await submitError(page);
    assert(err === en["acct.err.invite_needed"], "invite_needed: " + err);
    assert(await page.isVisible("#acct-invite"), "no invite field");
    assert((await page.evaluate(() => document.activeElement.id)) === "acct-invite", "the focus is not on the invite field");
    let body = null;
    await page.unroute("**/api/account");
    await page.route("**/api/account", (r) => {
      body = r.request().postDataJSON();
      return r.fulfill({ status: 403, contentType: "application/json", body: '{"error":"registration_closed","message":"registration is closed"}' });
    });
    await page.fill("#acct-invite", "INV-123");
    const closed = await submitError(page);
    assert(body && body.invite === "INV-123" && body.name === "Newcomer", "the sign-up body: " + JSON.stringify(body));
    assert(closed === en["acct.err.registration_closed"], "registration_closed: " + closed);
    await page.click("#acct-tab-in");
    await page.fill("#acct-name-in", "Newcomer");
    await page.fill("#acct-pw", "long enough pw");
    const wait = await submitError(page);
    assert(wait === en["acct.err.rateMinutes"].other.replace("{count}", "5"), "rate_limited: " + wait);
    await page.context().close();
  });

  await test("[accounts] keyboard: Enter opens the dialog, Tab and the tabs' arrows move, Escape closes it, the focus returns", async () => {
    const page = await accountPage(browser, "acct-keys", errors);
    await lobby(page, url);
    await page.focus("#acct-open");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#acct-dlg[open]");
    const active = () => page.evaluate(() => document.activeElement.id);
    assert((await active()) === "acct-name-in", "the focus in the dialog: " + (await active()));
    const order = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      order.push(await active());
    }
    assert(JSON.stringify(order.slice(0, 3)) === JSON.stringify(["acct-pw", "acct-cancel", "acct-submit"]), "Tab order " + order.join(" "));
    await page.focus("#acct-name-in");
    await page.keyboard.press("Shift+Tab");
    assert((await active()) === "acct-tab-in", "Shift+Tab from the name: " + (await active()));
    await page.keyboard.press("ArrowRight");
    assert((await active()) === "acct-tab-up", "the arrow to the second tab: " + (await active()));
    assert((await page.textContent("#acct-h")) === en["acct.create"], "the heading after the arrow");
    assert(await page.isVisible("#acct-name-hint"), "no name rule on the sign-up tab");
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => !document.getElementById("acct-dlg").open);
    assert((await active()) === "acct-open", "the focus after Escape: " + (await active()));
    // the focus is drawn on the button
    const ring = await page.$eval("#acct-open", (b) => getComputedStyle(b).outlineStyle);
    assert(ring !== "none", "no focus ring on Sign in");
    await page.context().close();
  });

  await test("[accounts] German: the dialog, its tabs and an error with no English string", async () => {
    const page = await accountPage(browser, "acct-de", errors, { locale: "de-DE", refusals: true });
    const englishOnGerman = foreignWords(en, de);
    await lobby(page, url);
    assert((await page.textContent("#acct-open")) === de["acct.signIn"], "the button in German");
    await openDialog(page, "in");
    await noForeign(page, englishOnGerman, "the sign-in dialog");
    await page.fill("#acct-name-in", "Niemand");
    await page.fill("#acct-pw", "falsches Passwort");
    const err = await submitError(page);
    assert(err === de["acct.err.wrong_credentials"], "the error in German: " + err);
    await noForeign(page, englishOnGerman, "the sign-in dialog with an error");
    await page.click("#acct-tab-up");
    await noForeign(page, englishOnGerman, "the sign-up dialog");
    await page.context().close();
  });

  await test("[accounts] phone 390x844: the dialog and the signed-in header fit, nothing scrolls sideways", async () => {
    const page = await accountPage(browser, "acct-phone", errors, { size: PHONE });
    await lobby(page, url);
    await openDialog(page, "in");
    await fitsPhone(page, "sign in");
    await page.click("#acct-tab-up");
    await fitsPhone(page, "create account");
    await page.keyboard.press("Escape");
    const phoneName = ("Phone" + Date.now().toString(36) + "x".repeat(24)).slice(0, 24); // the longest name
    await signThrough(page, "up", phoneName, "a phone password");
    const h = await page.evaluate(() => {
      const b = document.getElementById("acct-menu-btn").getBoundingClientRect();
      return { right: b.right, scroll: document.documentElement.scrollWidth, inner: innerWidth };
    });
    assert(h.right <= h.inner && h.scroll <= h.inner, "the header's account button: " + JSON.stringify(h));
    await headerFits(page, "signed in");
    await page.click("#acct-menu-btn");
    const m = await page.$eval("#acct-menu", (n) => n.getBoundingClientRect().left);
    assert(m >= 0, "the menu starts left of the screen: " + m);
    await page.click("#acct-delete");
    await fitsPhone(page, "delete account");
    await page.context().close();
    // a guest's header in every language: one row, inside the screen
    for (const locale of ["en-GB", "de-DE", "fr-FR", "pl-PL", "es-ES", "it-IT"]) {
      const p = await accountPage(browser, "acct-phone-" + locale, errors, { size: PHONE, locale });
      await lobby(p, url);
      await headerFits(p, locale);
      await p.context().close();
    }
  });
}

// Screenshots of the dialog and the menu (make screenshots): shot(name, page) at both sizes.
export async function accountShots(browser, url, shot) {
  for (const [size, tag] of [[DESKTOP, "desktop"], [PHONE, "phone"]]) {
    const page = await accountPage(browser, "acct-shot", [], { size, refusals: true });
    await lobby(page, url);
    await openDialog(page, "up");
    await shot(`account-signup-${tag}`, page);
    await page.click("#acct-tab-in");
    await page.fill("#acct-name-in", "Nobody");
    await page.fill("#acct-pw", "not a password");
    await submitError(page);
    await shot(`account-error-${tag}`, page);
    await page.keyboard.press("Escape");
    await signThrough(page, "up", "Shot" + tag + Date.now().toString(36).slice(-5), "a screenshot password");
    await page.click("#acct-menu-btn");
    await shot(`account-menu-${tag}`, page);
    await page.context().close();
  }
}

// Alone: node tests/e2e/accounts.mjs
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
    await accountsSuite({ browser, url: srv.url, test, errors });
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
