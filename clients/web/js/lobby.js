// lobby.js: the lobby view: public rooms (polled; a rated one marked), finished games, create a
// room (sets, options, time control, Rated for a signed-in page), join by code or from the list.
import { Replay } from "./replay.js";
import { TIMEOUT_RULES, durationText, errorText, playerName, setName, variantTexts } from "./words.js";
import { hasKey, onLanguageChange, t } from "./i18n.js";
import { $, app, hooks, rememberPassword, showError, showReplyError } from "./app.js";

export const replay = new Replay(() => app.tiles, showError);

let pollTimer = null;
let lastRooms = null;
export function startPolling() {
  stopPolling();
  loadRooms();
  replay.loadList();
  pollTimer = setInterval(() => {
    loadRooms();
    if (++pollCount % 5 === 0) replay.loadList();
  }, 2000);
}
let pollCount = 0;
export function stopPolling() {
  clearInterval(pollTimer);
  pollTimer = null;
}

async function loadRooms() {
  const status = $("rooms-status");
  let rooms;
  try {
    const res = await fetch("/api/rooms", { cache: "no-store" });
    if (!res.ok) throw new Error("HTTP " + res.status);
    rooms = await res.json();
  } catch (e) {
    status.textContent = t("lobby.rooms.failed", { reason: e.message });
    return;
  }
  const json = JSON.stringify(rooms);
  if (json === lastRooms) return; // unchanged: keep the rows (and the keyboard focus)
  lastRooms = json;
  const table = $("rooms");
  const body = table.querySelector("tbody");
  body.replaceChildren();
  status.textContent = rooms.length ? t("lobby.rooms.count", { count: rooms.length }) : t("lobby.rooms.none");
  table.hidden = rooms.length === 0;
  for (const r of rooms) {
    const tr = document.createElement("tr");
    tr.dataset.room = r.room;
    const rules = variantTexts(r.options).join(", ") || t("lobby.rules.current");
    const phase = hasKey("phase." + r.phase) ? t("phase." + r.phase) : r.phase;
    const cells = [r.room, playerName(r.host || ""), t("lobby.seatsTaken", { taken: r.taken, seats: r.seats }), phase,
      r.sets.map(setName).join(", "), rules, t(r.password ? "lobby.yes" : "lobby.no")];
    for (const c of cells) {
      const td = document.createElement("td");
      td.textContent = c;
      tr.append(td);
    }
    if (r.rated) tr.cells[0].append(" ", ratedMark());
    const td = document.createElement("td");
    if (r.phase === "lobby" && r.taken < r.seats) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = t("lobby.join");
      b.className = "join-room";
      b.setAttribute("aria-label", t("lobby.joinRoom", { room: r.room }));
      b.addEventListener("click", () => joinRoom(r.room, r.password));
      td.append(b);
    }
    const w = document.createElement("button");
    w.type = "button";
    w.textContent = t("lobby.watch");
    w.className = "watch-room";
    w.setAttribute("aria-label", t("lobby.watchRoom", { room: r.room }));
    w.addEventListener("click", () => hooks.watch(r.room));
    td.append(" ", w);
    tr.append(td);
    body.append(tr);
  }
}

function myName(input) {
  const n = (input.value || $("create-name").value || $("join-name").value || localStorage.getItem("carcd.name") || "").trim();
  if (!n) {
    showError(t("error.nameFirst"));
    input.focus();
    return null;
  }
  localStorage.setItem("carcd.name", n);
  return n;
}

async function joinRoom(room, needsPassword, nameInput, passwordInput) {
  const name = myName(nameInput || $("join-name"));
  if (!name) return;
  const pw = (passwordInput || $("join-password")).value;
  if (needsPassword && !pw) {
    showError(t("error.passwordFirst"));
    $("join-password").focus();
    return;
  }
  const msg = { type: "join", room, name };
  if (pw) msg.password = pw;
  const r = await hooks.conn.request(msg);
  if (!refused(r)) rememberPassword(room, pw);
}

function ratedMark() {
  const s = document.createElement("span");
  s.className = "rated-mark";
  s.textContent = t("rank.rated");
  return s;
}

// A refused request in words (app.js showReplyError); a guest refused a rated room
// (`sign_in_required`) gets the sentence with a "Sign in" button, which opens the account's
// dialog (main.js loads account.js on its first click). True when r is an error.
export function refused(r) {
  if (!r || r.type !== "error" || r.code !== "sign_in_required" || $("acct").hidden) return showReplyError(r);
  showError(errorText(r.code, r.message), r.code, r.message);
  const b = document.createElement("button");
  b.type = "button";
  b.className = "sign-in-now";
  b.textContent = t("acct.signIn");
  b.addEventListener("click", () => {
    b.parentElement.remove();
    $("acct-open").click();
  });
  $("errors").lastElementChild.append(" ", b);
  b.focus();
  return true;
}

$("create-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = myName($("create-name"));
  if (!name) return;
  const sets = ["base"];
  for (const c of document.querySelectorAll('#create-form input[name="set"]:checked')) if (c.value !== "base") sets.push(c.value);
  const msg = {
    type: "create", name, seats: Number($("create-seats").value), sets,
    options: {
      farmers: $("create-farmers").checked, siege_escape: $("create-escape").value,
      farms: $("create-farms").value, small_city: Number($("create-small-city").value),
      seat_order: $("create-seat-order").value,
    },
    private: $("create-private").checked,
  };
  if ($("create-password").value) msg.password = $("create-password").value;
  const clock = readClock();
  if (clock === false) return;
  if (clock) msg.clock = clock;
  if (!$("create-rated-box").hidden && $("create-rated").checked) msg.rated = true;
  const r = await hooks.conn.request(msg);
  if (!refused(r) && r.room) rememberPassword(r.room, msg.password);
});

$("join-form").addEventListener("submit", (e) => {
  e.preventDefault();
  joinRoom($("join-room").value.trim(), false);
});
$("watch-btn").addEventListener("click", () => {
  const room = $("join-room").value.trim();
  if (!room) return showError(t("error.codeFirst"));
  hooks.watch(room);
});
$("room-join-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const room = app.room;
  const name = myName($("room-join-name"));
  if (!name) return;
  await hooks.conn.request({ type: "leave" });
  const msg = { type: "join", room, name };
  if ($("room-join-password").value) msg.password = $("room-join-password").value;
  const r = await hooks.conn.request(msg);
  if (refused(r)) hooks.watch(room);
  else rememberPassword(room, msg.password);
});

// ---------------------------------------------------------------------------------------------
// Time control of the create form (PROTOCOL.md create.clock)

const CLOCK_PRESETS = {
  fast: { initial: 300, increment: 10 },
  normal: { initial: 900, increment: 20 },
  relaxed: { initial: 3600, increment: 60 },
  correspondence: { initial: 259200, increment: 86400 },
};

// Correspondence: days per move (PROTOCOL.md create.clock `per_move`): every turn gets the whole
// time, nothing carries over; options "pm1".."pm14" before "Custom…", said again in each language.
const PER_MOVE_DAYS = [1, 2, 3, 5, 7, 14];
for (const n of PER_MOVE_DAYS) {
  const o = document.createElement("option");
  o.value = "pm" + n;
  $("create-clock").insertBefore(o, $("create-clock").querySelector('option[value="custom"]'));
}
// The browser's time zone (the weekend pause's): "UTC" when the browser cannot say.
function timeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch (e) {
    return "UTC";
  }
}
function labelPerMove() {
  for (const n of PER_MOVE_DAYS) {
    const o = $("create-clock").querySelector(`option[value="pm${n}"]`);
    o.textContent = t("create.clock.perMove", { time: durationText(n * 86400) });
  }
  $("create-weekend-hint").textContent = t("create.weekendHint", { zone: timeZone() });
}
labelPerMove();
onLanguageChange(labelPerMove);

for (const r of TIMEOUT_RULES) {
  const o = document.createElement("option");
  o.value = r;
  o.dataset.i18n = `timeout.${r}.choice`; // i18n.js says it again in another language
  o.textContent = t(o.dataset.i18n);
  $("create-timeout").append(o);
}

// A rated room needs a clock (the server refuses one without): checking Rated turns "No clock"
// into the normal preset and keeps "No clock" unselectable while it is checked.
function showRated() {
  const on = !!app.account;
  $("create-rated-box").hidden = !on;
  if (!on) $("create-rated").checked = false;
  const rated = $("create-rated").checked;
  const none = $("create-clock").querySelector('option[value="none"]');
  none.disabled = rated;
  if (rated && $("create-clock").value === "none") {
    $("create-clock").value = "normal";
    showClockFields();
  }
}
$("create-rated").addEventListener("change", showRated);
// Signing in or out (account.js) shows or hides the account's header: Rated follows it.
new MutationObserver(showRated).observe($("acct-user"), { attributes: true, attributeFilter: ["hidden"] });
new MutationObserver(showRated).observe($("acct"), { attributes: true, attributeFilter: ["hidden"] });

function showClockFields() {
  const v = $("create-clock").value;
  $("clock-custom").hidden = v !== "custom";
  $("clock-weekend").hidden = !v.startsWith("pm"); // the weekend pause goes with days per move
  $("clock-timeout").hidden = v === "none";
}
$("create-clock").addEventListener("change", showClockFields);
showClockFields();

// Only the options of the sets chosen: the knight's escape with a set that has sieges.
const SIEGE_SETS = ["besiegers", "cathars", "siege"];
function showSetOptions() {
  const siege = SIEGE_SETS.some((v) => document.querySelector(`#create-form input[name="set"][value="${v}"]`).checked);
  $("create-escape-box").hidden = !siege;
}
for (const c of document.querySelectorAll('#create-form input[name="set"]')) c.addEventListener("change", showSetOptions);
showSetOptions();

// The create message's clock: null for none, false (and an error shown) when the custom
// fields are out of range; days per move: {per_move, on_timeout, weekend_pause} and, with the
// weekend pause, the browser's time_zone.
function readClock() {
  const v = $("create-clock").value;
  if (v === "none") return null;
  if (v.startsWith("pm")) {
    const c = { per_move: Number(v.slice(2)) * 86400, on_timeout: $("create-timeout").value, weekend_pause: $("create-weekend").checked };
    if (c.weekend_pause) c.time_zone = timeZone();
    return c;
  }
  let c = CLOCK_PRESETS[v];
  if (v === "custom") {
    const min = Number($("clock-minutes").value);
    const inc = Number($("clock-increment").value);
    const initial = Math.round(min * 60);
    if (!Number.isFinite(min) || initial < 1 || initial > 2592000) {
      showError(t("error.clockStart"));
      $("clock-minutes").focus();
      return false;
    }
    if (!Number.isInteger(inc) || inc < 0 || inc > 604800) {
      showError(t("error.clockIncrement"));
      $("clock-increment").focus();
      return false;
    }
    c = { initial, increment: inc };
  }
  return { initial: c.initial, increment: c.increment, on_timeout: $("create-timeout").value };
}

// Another language: the rooms and the games are listed again in its words.
export function relabelLobby() {
  lastRooms = null;
  if (pollTimer !== null) loadRooms();
  replay.relabelList();
}
