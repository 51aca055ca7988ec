// clocks.mjs: correspondence clocks and vacations in the browser, against carcd's own routes
// (issue 28 item 1; clients/web/js/lobby.js, seats.js, words.js, vacation.js; PROTOCOL.md
// create.clock, "Clocks and bots", "Vacations"). No answer here is a stand-in.
// - A German browser in Europe/Berlin: the 1..14 day presets in German; "2 Tage pro Zug" with "Am
//   Wochenende pausieren" sends (read off the WebSocket) clock {per_move: 172800, on_timeout,
//   weekend_pause: true, time_zone: "Europe/Berlin"}; without the box no pause and no zone.
// - The display of a clock of days per move on a state made in the page (the others' time_ms,
//   the lobby, hours and minutes, the clock's phrase in German).
// - An English browser in Australia/Adelaide creates "2 days per move" with "Pause on weekends"
//   through the form, seats a bot and starts: the server's state (serverState) has per_move
//   172800, weekend_pause true, time_zone "Australia/Adelaide", and a deadline that is
//   turn_started + time_ms with Adelaide's Saturdays and Sundays left out (counted here, a minute
//   at a time); the mover's clock in the players panel shows the time until that deadline in days
//   and hours, and the room's line says "paused on weekends (Australia/Adelaide)".
// - Vacation, in German, a new account on the suite's carcd (vacation-days 14): the account
//   menu's item and the dialog say the server's bank (14 of 14); 15 days are refused in the page
//   (the field's max); 3 are taken through the dialog (POST {"days": 3}, answered 200); GET
//   /api/me/vacation from the page then says 11 left and a vacation until 3 days on, as the item
//   and the dialog do; End (DELETE, 200) gives back the 2 whole days not begun: 13 left, none on.
// - A carcd of its own with `vacation-days = 0`: GET /api/me/vacation is 404 vacations_off and the
//   account menu has no Vacation item (that 404 is the one console error that page may log).
// clocksSuite({browser, url, test, errors}) adds its tests to run.mjs (E2E_ONLY=clocks).
import path from "node:path";
import { assert, consoleError, serverState, startServer } from "./harness.mjs";

// The page's own view of GET /api/me/vacation: {status, body}.
const bankOf = (page) =>
  page.evaluate(async () => {
    const r = await fetch("/api/me/vacation", { cache: "no-store" });
    return { status: r.status, body: await r.json().catch(() => null) };
  });

async function signUp(page, prefix) {
  await page.click("#acct-open");
  await page.waitForSelector("#acct-dlg[open]");
  await page.click("#acct-tab-up");
  const name = prefix + Date.now().toString(36).slice(-6);
  await page.fill("#acct-name-in", name);
  await page.fill("#acct-pw", "a vacation password");
  // the guest seats of this browser's earlier rooms are not the point here: not claimed, so the
  // dialog closes on sign-up (a claim leaves it open to say what was claimed)
  if (await page.isVisible("#acct-claim")) await page.uncheck("#acct-claim");
  await page.click("#acct-submit");
  await page.waitForSelector("#acct-dlg", { state: "hidden" });
  await page.waitForFunction((n) => document.getElementById("acct-name").textContent === n, name, { timeout: 5000 });
  return name;
}

// Opens the account menu; resolves the response to the GET /api/me/vacation that this makes.
async function openMenu(page) {
  const [asked] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith("/api/me/vacation") && r.request().method() === "GET", { timeout: 10000 }),
    page.click("#acct-menu-btn", { timeout: 10000 }),
  ]);
  return asked;
}

// When a correspondence clock with `ms` left, started at `start`, runs out if nobody moves, the
// weekend (Saturday 00:00 to Monday 00:00 in `zone`) charged to nobody: counted a minute at a
// time (a zone's midnight falls on a whole minute), apart from the server's own reckoning.
function pausedDeadline(start, ms, zone) {
  const weekday = new Intl.DateTimeFormat("en-US", { timeZone: zone, weekday: "short" });
  let t = start;
  let left = ms;
  while (left > 0) {
    const next = (Math.floor(t / 60000) + 1) * 60000;
    const day = weekday.format(t);
    if (day === "Sat" || day === "Sun") {
      t = next;
      continue;
    }
    const take = Math.min(next - t, left);
    t += take;
    left -= take;
  }
  return t;
}

// ms as the English page says a clock of days per move: "2 d 4 h", "5 h 12 min" (dur.daysHours,
// dur.hoursMinutes; under an hour is not needed here).
function daysHours(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s >= 86400) return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

// Every `create` the page sends, read off its WebSockets.
function recordCreates(page) {
  const sent = [];
  page.on("websocket", (ws) =>
    ws.on("framesent", (f) => {
      try {
        const m = JSON.parse(f.payload);
        if (m && m.type === "create") sent.push(m);
      } catch (e) {
        /* not JSON */
      }
    }),
  );
  return sent;
}

// A page of its own in a context of its own; console and page errors go to `errors`, except the
// console messages `allowed` says are expected.
async function newPage(browser, label, options, errors, allowed = () => false) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await ctx.newPage();
  page.on("console", (m) => consoleError(m) && !allowed(m) && errors.push(`${label}: ${m.text()}`));
  page.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  return page;
}

export async function clocksSuite({ browser, url, test, errors }) {
  const page = await newPage(browser, "clocks", { locale: "de-DE", timezoneId: "Europe/Berlin" }, errors);
  const sent = recordCreates(page);
  try {
    await test("[clocks] days per move: the presets, the weekend pause and the browser's time zone in `create`", async () => {
      await page.goto(url + "/");
      await page.waitForSelector("#conn.online");
      const labels = await page.$$eval("#create-clock option", (os) => os.filter((o) => o.value.startsWith("pm")).map((o) => `${o.value}=${o.textContent}`));
      assert(labels.join("|") === "pm1=1 Tag pro Zug|pm2=2 Tage pro Zug|pm3=3 Tage pro Zug|pm5=5 Tage pro Zug|pm7=7 Tage pro Zug|pm14=14 Tage pro Zug", "presets: " + labels);
      assert(await page.isHidden("#clock-weekend"), "the weekend box without days per move");
      await page.selectOption("#create-clock", "pm2");
      assert(await page.isVisible("#create-weekend"), "no weekend box with days per move");
      const hint = await page.textContent("#create-weekend-hint");
      assert(hint === "Die Uhren stehen von Samstag 00:00 bis Montag 00:00 (Europe/Berlin).", "hint: " + hint);
      await page.check("#create-weekend");
      await page.selectOption("#create-timeout", "skip");
      await page.fill("#create-name", "Clara");
      await page.click("#create-btn");
      for (let i = 0; i < 50 && !sent.length; i++) await page.waitForTimeout(100);
      assert(sent.length === 1, "create messages: " + JSON.stringify(sent));
      const want = { per_move: 172800, on_timeout: "skip", weekend_pause: true, time_zone: "Europe/Berlin" };
      assert(JSON.stringify(sent[0].clock) === JSON.stringify(want), "the clock sent: " + JSON.stringify(sent[0].clock));
      // without the box: no pause, no zone (the server's default, UTC, is not needed)
      await page.goto(url + "/");
      await page.waitForSelector("#conn.online");
      await page.selectOption("#create-clock", "pm14");
      await page.fill("#create-name", "Clara");
      await page.click("#create-btn");
      for (let i = 0; i < 50 && sent.length < 2; i++) await page.waitForTimeout(100);
      assert(sent.length === 2, "create messages: " + JSON.stringify(sent));
      const want2 = { per_move: 1209600, on_timeout: "bot", weekend_pause: false };
      assert(JSON.stringify(sent[1].clock) === JSON.stringify(want2), "the clock sent: " + JSON.stringify(sent[1].clock));
    });

    await test("[clocks] a clock of days per move is shown as the time until its deadline, in days and hours", async () => {
      const got = await page.evaluate(async () => {
        const { timeLeft, clockShown } = await import("/js/seats.js");
        const { clockText } = await import("/js/words.js");
        const { serverNow } = await import("/js/app.js");
        const clock = { per_move: 259200, on_timeout: "bot", weekend_pause: true, time_zone: "Europe/Berlin", deadline: serverNow() + (2 * 86400 + 4 * 3600 + 600) * 1000, turn_started: serverNow() - 1000 };
        const d = { phase: "playing", current: 0, clock, seats: [{ taken: true, time_ms: 259200000 }, { taken: true, time_ms: 259200000 }] };
        const mover = timeLeft(d, 0);
        const lobby = { ...d, phase: "lobby" };
        return {
          mover: clockShown(d, mover),
          other: clockShown(d, timeLeft(d, 1)),
          lobby: clockShown(lobby, timeLeft(lobby, 0)),
          hours: clockShown(d, (5 * 3600 + 12 * 60) * 1000),
          text: clockText(clock),
        };
      });
      assert(got.mover === "2 T. 4 Std." && got.other === "3 T. 0 Std." && got.lobby === "3 T. 0 Std." && got.hours === "5 Std. 12 Min.", "shown: " + JSON.stringify(got));
      assert(got.text.startsWith("Uhr 3 Tage pro Zug; bei Zeitablauf: "), "the clock's phrase: " + got.text);
      assert(got.text.endsWith("; am Wochenende pausiert (Europe/Berlin)"), "the clock's phrase: " + got.text);
    });


    await test("[clocks] 2 days per move with the weekend pause, created through the form: the server's clock and the mover's time until its deadline", async () => {
      // not the machine's zone nor the server's default (UTC), so it can only come from the
      // browser; a name the browser gives back as such (Chromium says "Asia/Calcutta" for
      // "Asia/Kolkata"), a half-hour offset, and summer time in December
      const zone = "Australia/Adelaide";
      const p = await newPage(browser, "clocks-game", { locale: "en-US", timezoneId: zone }, errors);
      const made = recordCreates(p);
      try {
        await p.goto(url + "/");
        await p.waitForSelector("#conn.online");
        await p.fill("#create-name", "Kavya");
        await p.selectOption("#create-seats", "2");
        await p.selectOption("#create-clock", { label: "2 days per move" });
        await p.check("#create-weekend");
        await p.selectOption("#create-timeout", "bot");
        await p.click("#create-btn");
        await p.waitForFunction(() => document.getElementById("room-id").textContent.length > 0);
        const room = await p.textContent("#room-id");
        const row = '#scoreboard tbody tr[data-seat="1"]';
        await p.waitForSelector(`${row} button.add-bot`);
        await p.selectOption(`${row} select.bot-level`, "random");
        await p.click(`${row} button.add-bot`);
        await p.waitForSelector('.bot-mark[data-bot-seat="1"]');
        await p.click("#start-btn");
        const want = { per_move: 172800, on_timeout: "bot", weekend_pause: true, time_zone: zone };
        assert(made.length === 1 && JSON.stringify(made[0].clock) === JSON.stringify(want), "the create sent: " + JSON.stringify(made));

        // the server's own state, once it is the person's turn (seat 0: seats in the order taken)
        let st;
        for (let i = 0; i < 50; i++) {
          st = await serverState(p, room);
          if (st.phase === "playing" && st.current === 0) break;
          await p.waitForTimeout(100);
        }
        assert(st.phase === "playing" && st.current === 0, `phase ${st.phase}, current ${st.current}`);
        const c = st.clock;
        assert(c && c.per_move === 172800 && c.weekend_pause === true && c.time_zone === zone && c.on_timeout === "bot", "the server's clock: " + JSON.stringify(c));
        assert(typeof c.turn_started === "number" && typeof c.deadline === "number", "no turn_started or deadline: " + JSON.stringify(c));
        assert(st.seats[0].time_ms === 172800000, "the mover's time_ms: " + st.seats[0].time_ms);
        const deadline = pausedDeadline(c.turn_started, st.seats[0].time_ms, zone);
        assert(c.deadline === deadline, `deadline ${new Date(c.deadline).toISOString()}, counted ${new Date(deadline).toISOString()} (turn started ${new Date(c.turn_started).toISOString()})`);

        // the page: the mover's clock counts down to that deadline, in days and hours (the
        // clocks tick every 200 ms: the text is of a moment between t0 - 400 ms and t1)
        const cell = '#scoreboard [data-clock-seat="0"]';
        await p.waitForSelector(`${cell}.running`);
        const t0 = Date.now();
        const shown = (await p.textContent(cell)).trim();
        const t1 = Date.now();
        const ok = [daysHours(c.deadline - t0 + 400), daysHours(c.deadline - t1)];
        assert(ok.includes(shown), `the mover's clock shows "${shown}", the deadline says ${ok.join(" or ")}`);
        const other = (await p.textContent('#scoreboard [data-clock-seat="1"]')).trim();
        assert(other === "2 d 0 h", "the bot's clock: " + other);
        const line = await p.textContent("#room-options");
        assert(line.includes(`clock 2 days per move; out of time: `) && line.includes(`; paused on weekends (${zone})`), "the room's line: " + line);
      } finally {
        await p.context().close();
      }
    });

    await test("[clocks] vacation: the server's bank in the account menu and its dialog; Take 3 days and End, as GET /api/me/vacation says", async () => {
      const changes = [];
      page.on("response", (r) => {
        const m = r.request().method();
        if (r.url().endsWith("/api/me/vacation") && m !== "GET") changes.push([m, r.request().postData(), r.status()]);
      });
      await page.goto(url + "/");
      await page.waitForSelector("#conn.online");
      await signUp(page, "Vac");
      const year = new Date().getUTCFullYear();
      let got = await bankOf(page);
      assert(got.status === 200 && got.body.days_per_year === 14 && got.body.days_left === 14 && got.body.year === year && got.body.from === null && got.body.until === null, "a new account's bank: " + JSON.stringify(got));
      const asked = await openMenu(page);
      assert(asked.status() === 200, "the menu's GET: " + asked.status());
      await page.waitForSelector("#acct-vacation:not([hidden])");
      assert((await page.textContent("#acct-vacation")) === "Urlaub: noch 14 Tage", "the item: " + (await page.textContent("#acct-vacation")));
      await page.click("#acct-vacation");
      await page.waitForSelector("#vac-dlg[open]");
      assert((await page.textContent("#vac-bank")) === `Noch 14 von 14 Urlaubstagen in ${year}.`, "the bank: " + (await page.textContent("#vac-bank")));
      assert(await page.evaluate(() => document.activeElement.id === "vac-days"), "the focus is not on the days");
      await page.fill("#vac-days", "15");
      await page.click("#vac-take"); // the field's max (the days left) stops it in the browser
      await page.waitForTimeout(200);
      assert(await page.$eval("#vac-days", (i) => i.validity.rangeOverflow && i.max === "14"), "15 of 14 days not refused");
      assert(changes.length === 0, "15 of 14 days sent: " + JSON.stringify(changes));

      // Take 3: the server's bank afterwards, and the page says the same
      const t0 = Date.now();
      await page.fill("#vac-days", "3");
      await page.click("#vac-take");
      await page.waitForSelector("#vac-end:not([hidden])");
      const t1 = Date.now();
      assert(JSON.stringify(changes) === JSON.stringify([["POST", '{"days":3}', 200]]), "sent: " + JSON.stringify(changes));
      got = await bankOf(page);
      const b = got.body;
      assert(got.status === 200 && b.days_left === 11 && b.days_per_year === 14, "after Take 3: " + JSON.stringify(got));
      assert(b.from >= t0 - 1000 && b.from <= t1 + 1000 && b.until === b.from + 3 * 86400000, "the vacation taken: " + JSON.stringify(b));
      const until = await page.evaluate(async (u) => (await import("/js/i18n.js")).formatDate(u), b.until);
      assert((await page.textContent("#vac-bank")) === `Noch 11 von 14 Urlaubstagen in ${year}. Im Urlaub bis ${until}.`, "the dialog after Take: " + (await page.textContent("#vac-bank")));
      assert((await page.textContent("#acct-vacation")) === `Im Urlaub bis ${until}`, "the item after Take: " + (await page.textContent("#acct-vacation")));
      assert(await page.isHidden("#vac-form"), "the form while away");

      // End: the whole days not begun go back (a day begun is spent)
      await page.click("#vac-end");
      await page.waitForSelector("#vac-form:not([hidden])");
      assert(await page.isHidden("#vac-end"), "End after the end");
      assert(JSON.stringify(changes[1]) === JSON.stringify(["DELETE", null, 200]), "sent: " + JSON.stringify(changes));
      got = await bankOf(page);
      assert(got.status === 200 && got.body.days_left === 13 && got.body.from === null && got.body.until === null, "after End: " + JSON.stringify(got));
      assert((await page.textContent("#vac-bank")) === `Noch 13 von 14 Urlaubstagen in ${year}.`, "the dialog after End: " + (await page.textContent("#vac-bank")));
      assert((await page.textContent("#acct-vacation")) === "Urlaub: noch 13 Tage", "the item after End: " + (await page.textContent("#acct-vacation")));
      await page.click("#vac-close");
      // the menu read afresh says the same
      await page.reload();
      await page.waitForSelector("#acct-user:not([hidden])");
      assert((await (await openMenu(page)).json()).days_left === 13, "the menu's GET after a reload");
      await page.waitForSelector("#acct-vacation:not([hidden])");
      assert((await page.textContent("#acct-vacation")) === "Urlaub: noch 13 Tage", "the item after a reload: " + (await page.textContent("#acct-vacation")));
    });

    await test("[clocks] vacation: a carcd with vacation-days = 0 answers 404 vacations_off and the account menu has no Vacation item", async () => {
      const web = process.env.CARC_WEB_ROOT ? ["--web-root", path.resolve(process.env.CARC_WEB_ROOT)] : [];
      const srv = await startServer(["--vacation-days", "0", ...web]);
      // Chromium logs the 404 it is meant to get; any other console error counts
      const theOff404 = (m) => /\/api\/me\/vacation$/.test((m.location() && m.location().url) || "") && /status of 404/.test(m.text());
      const p = await newPage(browser, "clocks-off", { locale: "en-US" }, errors, theOff404);
      try {
        await p.goto(srv.url + "/");
        await p.waitForSelector("#conn.online");
        await signUp(p, "Off");
        const got = await bankOf(p);
        assert(got.status === 404 && got.body && got.body.error === "vacations_off", "GET /api/me/vacation: " + JSON.stringify(got));
        const asked = await openMenu(p);
        assert(asked.status() === 404, "the menu's GET: " + asked.status());
        await p.waitForSelector("#acct-signout", { state: "visible" });
        await p.waitForTimeout(300);
        assert(await p.isHidden("#acct-vacation"), "a Vacation item without vacations");
        // not asked again in this page
        let again = false;
        p.on("request", (r) => (again ||= r.url().endsWith("/api/me/vacation")));
        await p.click("#acct-menu-btn");
        await p.click("#acct-menu-btn");
        await p.waitForTimeout(300);
        assert(!again && (await p.isHidden("#acct-vacation")), "asked again, or the item shown");
      } finally {
        await p.context().close();
        await srv.stop();
      }
    });
  } finally {
    await page.context().close();
  }
}
