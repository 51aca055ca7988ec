// email.mjs: e-mail for correspondence play in the page (clients/web/js/email.js; PROTOCOL.md
// "Notifications", "E-mail"). Two carcds of its own: one with `smtp-url` (and the `mail-from`
// and `public-url` it needs), one without. carcd does not reach its relay until it has a mail to
// send, and this test's account has no game (no digest) and no clock (no reminder), so the
// relay's address is a port nothing listens on. What the page did is checked against what the
// server kept: GET /api/me/email fetched from the page (its session cookie).
// The tests: with e-mail, the account menu has "E-mail", its dialog refuses a bad address with
// the server's message (nothing stored), saves an address with one box and then both (PUT), and
// removes it (DELETE); in German too, with an axe audit at the desktop and the phone size (a
// screenshot $CARC_BUILD/artifacts/email-phone.png); without smtp-url the item stays hidden (the 404 mail_off).
// emailSuite({browser, test, errors}) adds its tests to run.mjs (E2E_ONLY=email); `node
// tests/e2e/email.mjs` runs them alone.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BUILD, PHONE, assert, consoleError, runAlone, startServer } from "./harness.mjs";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

const MAIL = ["--smtp-url", "smtp://127.0.0.1:9", "--mail-from", "carcd@example.org", "--public-url", "http://127.0.0.1"];

// A page of a context of its own. Chromium logs every HTTP answer of 400 or more as a console
// error: the answers this suite asks for on purpose (the 400 of a bad address, the 404 mail_off
// of the server without e-mail) are not counted; any other is.
async function openPage(browser, label, errors, locale) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: locale || "en-US", bypassCSP: true });
  const page = await ctx.newPage();
  page.expected = [];
  page.on("console", (m) => {
    const at = (m.location() && m.location().url) || "";
    const wanted = page.expected.some(([path, status]) => at.endsWith(path) && m.text().includes("status of " + status));
    if (consoleError(m) && !wanted) errors.push(`${label}: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  return page;
}

async function signUp(page, url, name) {
  await page.goto(url + "/");
  await page.waitForSelector("#conn.online");
  await page.click("#acct-open");
  await page.waitForSelector("#acct-dlg[open]");
  await page.click("#acct-tab-up");
  await page.fill("#acct-name-in", name);
  await page.fill("#acct-pw", "an e-mail password");
  await page.click("#acct-submit");
  await page.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name, { timeout: 5000 });
}

// axe-core (a11y.mjs's audit) on the page as it is now: no serious or critical violation.
async function audit(page, where) {
  if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ path: AXE });
  const res = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
  });
  assert(res.length === 0, `${where}:\n       ${res.join("\n       ")}`);
}

// What the server keeps for the page's account.
const kept = (page) => page.evaluate(() => fetch("/api/me/email", { cache: "no-store" }).then(async (r) => ({ status: r.status, body: await r.json() })));

// The menu opened, and the answer of its GET /api/me/email.
async function openMenu(page) {
  const got = page.waitForResponse((r) => r.url().endsWith("/api/me/email") && r.request().method() === "GET");
  got.catch(() => {}); // a failed click is the error to report, not this wait's timeout
  await page.click("#acct-menu-btn");
  return (await got).status();
}

export async function emailSuite({ browser, test, errors }) {
  const srv = await startServer(MAIL);
  const name = "Mail" + Date.now().toString(36).slice(-6);
  const page = await openPage(browser, "email", errors);
  try {
    await test("[email] the account menu's E-mail: a bad address refused in words, an address with both boxes kept, then removed", async () => {
      await signUp(page, srv.url, name);
      assert((await openMenu(page)) === 200, "GET /api/me/email on a carcd with smtp-url");
      await page.waitForSelector("#acct-email:not([hidden])");
      assert((await page.textContent("#acct-email")) === "E-mail", "the item: " + (await page.textContent("#acct-email")));
      await page.click("#acct-email");
      await page.waitForSelector("#mail-dlg[open]");
      assert(await page.isHidden("#acct-menu"), "the menu stayed open behind the dialog");
      assert((await page.textContent("#mail-now")) === "No address given: no mail.", "no address yet: " + (await page.textContent("#mail-now")));
      assert(await page.isHidden("#mail-remove"), "Remove shown with nothing to remove");
      assert((await page.evaluate(() => document.activeElement.id)) === "mail-addr", "the focus is not on the address");
      assert((await page.isChecked("#mail-digest")) && (await page.isChecked("#mail-reminders")), "a new address's boxes are not both on");

      // a bad address: the server's 400 and its message in the dialog, nothing kept
      page.expected.push(["/api/me/email", 400]);
      await page.fill("#mail-addr", "ann at example.org");
      const bad = page.waitForResponse((r) => r.url().endsWith("/api/me/email") && r.request().method() === "PUT");
      await page.click("#mail-save");
      const res = await bad;
      assert(res.status() === 400 && res.request().headers()["x-csrf-token"], "PUT of a bad address: " + res.status());
      await page.waitForFunction(() => document.getElementById("mail-err").textContent.length > 0);
      const err = await page.textContent("#mail-err");
      assert(/^The server does not take this address \(address: must be an e-mail address: one '@'.*\)\.$/.test(err), "the refusal: " + err);
      let k = await kept(page);
      assert(k.status === 200 && k.body.address === null, "kept after a bad address: " + JSON.stringify(k));

      // one box, then both: each PUT is what the boxes say
      await page.fill("#mail-addr", "ann@example.org");
      await page.uncheck("#mail-reminders");
      await page.click("#mail-save");
      await page.waitForFunction(() => document.getElementById("mail-done").textContent === "Saved.");
      assert((await page.textContent("#mail-err")) === "", "the old error stayed: " + (await page.textContent("#mail-err")));
      k = await kept(page);
      assert(JSON.stringify(k.body) === JSON.stringify({ address: "ann@example.org", digest: true, reminders: false }), "kept: " + JSON.stringify(k));
      await page.check("#mail-reminders");
      await page.fill("#mail-addr", " bob@example.org ");
      await page.click("#mail-save");
      await page.waitForFunction(() => document.getElementById("mail-now").textContent === "Mail goes to bob@example.org.");
      k = await kept(page);
      assert(JSON.stringify(k.body) === JSON.stringify({ address: "bob@example.org", digest: true, reminders: true }), "kept: " + JSON.stringify(k));

      // opened again: the form shows what the server keeps
      await page.click("#mail-close");
      await page.waitForSelector("#mail-dlg", { state: "hidden" });
      await page.evaluate(() => {
        document.getElementById("mail-addr").value = "";
        document.getElementById("mail-reminders").checked = false;
      });
      await openMenu(page);
      await page.click("#acct-email");
      await page.waitForSelector("#mail-dlg[open]");
      await page.waitForFunction(() => document.getElementById("mail-addr").value === "bob@example.org");
      assert(await page.isChecked("#mail-reminders"), "the reminders box as the server keeps it");

      // removed
      assert(await page.isVisible("#mail-remove"), "no Remove with an address");
      await page.click("#mail-remove");
      await page.waitForFunction(() => document.getElementById("mail-done").textContent === "The address is removed: no more mail.");
      k = await kept(page);
      assert(JSON.stringify(k.body) === JSON.stringify({ address: null, digest: false, reminders: false }), "kept after Remove: " + JSON.stringify(k));
      assert((await page.inputValue("#mail-addr")) === "" && (await page.isHidden("#mail-remove")), "the form after Remove");
      await page.click("#mail-close");
    });

    await test("[email] the dialog in German, axe-clean, fits a phone; a language change redraws it", async () => {
      await page.evaluate(() => document.getElementById("mail-dlg").close()); // were it left open by a failure above
      await page.selectOption("#lang-select", "de");
      await openMenu(page);
      await page.waitForFunction(() => document.getElementById("acct-email").textContent === "E-Mail");
      await page.click("#acct-email");
      await page.waitForSelector("#mail-dlg[open]");
      assert((await page.textContent("#mail-h")) === "E-Mail" && (await page.textContent("#mail-save")) === "Speichern", "German: " + (await page.textContent("#mail-dlg")));
      await page.click("#mail-save"); // no address: said in the page, nothing sent
      assert((await page.textContent("#mail-err")) === "Gib eine E-Mail-Adresse ein.", "empty address: " + (await page.textContent("#mail-err")));
      await audit(page, "the dialog with an error");
      await page.setViewportSize(PHONE);
      const wide = await page.evaluate(() => [document.getElementById("mail-dlg").getBoundingClientRect().right, document.documentElement.scrollWidth]);
      assert(wide[0] <= PHONE.width && wide[1] <= PHONE.width, "the dialog on a phone: " + wide);
      fs.mkdirSync(path.join(BUILD, "artifacts"), { recursive: true });
      await page.screenshot({ path: path.join(BUILD, "artifacts", "email-phone.png") }); // for a look
      await audit(page, "the dialog on a phone");
      await page.setViewportSize({ width: 1280, height: 800 });
      // the dialog is modal (the header's switcher is inert behind it): the language set as the switcher does
      await page.evaluate(async () => (await import("/js/i18n.js")).setLanguage("en"));
      await page.waitForFunction(() => document.getElementById("mail-err").textContent === "Enter an e-mail address.");
      await page.click("#mail-close");
    });
  } finally {
    await page.context().close();
    await srv.stop();
  }

  const plain = await startServer();
  const guest = await openPage(browser, "email-off", errors);
  guest.expected.push(["/api/me/email", 404]);
  try {
    await test("[email] a carcd without smtp-url: the account menu has no E-mail item", async () => {
      await signUp(guest, plain.url, name);
      assert((await openMenu(guest)) === 404, "GET /api/me/email without smtp-url");
      await guest.waitForSelector("#acct-vacation:not([hidden])"); // the menu's other items are drawn
      assert(await guest.isHidden("#acct-email"), "the E-mail item is shown");
      const k = await kept(guest);
      assert(k.status === 404 && k.body.error === "mail_off", "GET: " + JSON.stringify(k));
      // the menu once more: still hidden, and not asked again
      let asked = 0;
      guest.on("request", (r) => r.url().endsWith("/api/me/email") && asked++);
      await guest.click("#acct-menu-btn"); // closed
      await guest.click("#acct-menu-btn"); // open again
      await guest.waitForSelector("#acct-vacation:not([hidden])");
      await guest.waitForTimeout(300); // time for a request, were one made
      assert(asked === 0 && (await guest.isHidden("#acct-email")), `asked again ${asked} times, or shown`);
    });
  } finally {
    await guest.context().close();
    await plain.stop();
  }
}

// Alone: node tests/e2e/email.mjs
if (import.meta.url === pathToFileURL(process.argv[1]).href) await runAlone(emailSuite);
