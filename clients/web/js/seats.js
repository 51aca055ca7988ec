// seats.js: the players panel (one row per seat: name, marks, clock, score, meeples), the
// host's bot controls in the lobby (add_bot, remove_bot), the ticking clocks, and the notice
// about our own seat while a bot plays it ("Take my seat back": resume).
import { el, playerBadge, seatLook } from "./board.js";
import { BOT_LEVELS, RESUMABLE, autoplayMark, autoplayMine, botLevelHint, botLevelName, formatClock, formatDeadline } from "./words.js";
import { t } from "./i18n.js";
import { $, app, hooks, serverNow, showReplyError, storedSeat, who } from "./app.js";

// Replies to add_bot/remove_bot come only as a broadcast delta: wait this long for an error.
const NO_REPLY_MS = 5000;

function node(tag, cls, text) {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined) n.textContent = text;
  return n;
}

// A small robot head.
function botIcon() {
  const svg = el("svg", { viewBox: "0 0 16 16", width: 14, height: 14, class: "bot-icon", "aria-hidden": "true" });
  el("line", { x1: 8, y1: 1.5, x2: 8, y2: 4, class: "bot-line" }, svg);
  el("circle", { cx: 8, cy: 1.6, r: 1.3, class: "bot-head" }, svg);
  el("rect", { x: 2, y: 4, width: 12, height: 10, rx: 2.5, class: "bot-head" }, svg);
  el("circle", { cx: 5.5, cy: 8, r: 1.4, class: "bot-eye" }, svg);
  el("circle", { cx: 10.5, cy: 8, r: 1.4, class: "bot-eye" }, svg);
  el("rect", { x: 5, y: 11, width: 6, height: 1.3, class: "bot-eye" }, svg);
  return svg;
}

// The seat's time left now, in ms; null without a clock. With days per move (clock.per_move)
// the mover's is the time until clock.deadline (the server counts weekends paused into it).
export function timeLeft(d, i) {
  const s = d.seats[i];
  if (!d.clock) return null;
  if (d.phase === "lobby") return s.taken ? startTime(d) * 1000 : null; // what each seat starts with
  if (perMove(d) && d.phase === "playing" && d.current === i && typeof d.clock.deadline === "number") {
    return Math.max(0, d.clock.deadline - serverNow());
  }
  if (s.time_ms === null || s.time_ms === undefined) return null;
  if (d.phase === "playing" && d.current === i && d.clock.turn_started !== null && d.clock.turn_started !== undefined) {
    return Math.max(0, s.time_ms - (serverNow() - d.clock.turn_started));
  }
  return Math.max(0, s.time_ms);
}

const perMove = (d) => typeof d.clock.per_move === "number";
// The time a seat has at the start (of the game, or of each turn with days per move), in s.
const startTime = (d) => (perMove(d) ? d.clock.per_move : d.clock.initial);

// Red under 30 s, or under a tenth of the start time when that is more.
export function lowAt(d) {
  return Math.max(30000, startTime(d) * 100);
}

// A seat's time as shown: "2 d 4 h" with days per move, else the clock's m:ss (h:mm:ss, "2d 5h").
export function clockShown(d, ms) {
  return perMove(d) ? formatDeadline(ms) : formatClock(ms);
}

// Updates the text of every seat's clock; runs every 200 ms (no message is needed).
export function tickClocks() {
  const d = app.doc;
  if (!d || !d.clock || $("room-view").hidden) return;
  for (const n of document.querySelectorAll("[data-clock-seat]")) {
    const i = Number(n.dataset.clockSeat);
    if (!d.seats[i]) continue;
    const left = timeLeft(d, i);
    if (left === null) continue;
    const text = clockShown(d, left);
    if (n.textContent !== text) n.textContent = text;
    const running = d.phase === "playing" && d.current === i;
    n.classList.toggle("running", running);
    n.classList.toggle("low", left < lowAt(d));
    n.classList.toggle("out", left === 0);
  }
}

export function startClocks() {
  setInterval(tickClocks, 200);
}

// The columns of the players panel; each heading is seats.col.NAME in the catalogues.
function columns(d) {
  const cols = ["marker", "name"];
  if (d.clock) cols.push("time");
  if (d.phase !== "lobby") {
    cols.push("score", "meeples");
    if (d.sets.includes("inns-cathedrals")) cols.push("large");
    if (d.sets.includes("apothecaries-tithes")) cols.push("herbs");
  }
  return cols;
}

export function renderSeats() {
  const d = app.doc;
  const table = $("scoreboard");
  const cols = columns(d);
  const headRow = table.querySelector("thead tr");
  headRow.replaceChildren();
  for (const k of cols) {
    const th = node("th", "col-" + k);
    th.scope = "col";
    if (k === "marker") th.append(node("span", "sr", t("seats.col.marker")));
    else th.textContent = t("seats.col." + k);
    headRow.append(th);
  }
  const body = table.querySelector("tbody");
  body.replaceChildren();
  const host = d.phase === "lobby" && app.seat !== null && d.host === app.seat;
  const firstFree = d.seats.findIndex((s) => !s.taken);
  d.seats.forEach((s, i) => {
    const tr = document.createElement("tr");
    if (d.current === i) tr.className = "current";
    tr.dataset.seat = i;
    for (const k of cols) {
      const td = node("td", k === "score" ? "score" : k);
      if (k === "marker") td.append(playerBadge(i, 20));
      else if (k === "name") nameCell(td, d, s, i, host && i === firstFree, host);
      else if (k === "time") {
        const c = node("span", "clock");
        c.dataset.clockSeat = i;
        c.setAttribute("role", "timer");
        c.setAttribute("aria-label", t("seats.time", { player: who(i) }));
        td.append(c);
      } else td.textContent = s[k];
      tr.append(td);
    }
    body.append(tr);
  });
  tickClocks();
  let line = "";
  if (d.phase === "playing") line = t("seats.tilesLeft", { count: d.tiles_left, turn: d.turn + 1 });
  else if (d.phase === "lobby") line = t("seats.waiting", { taken: d.seats.filter((x) => x.taken).length, count: d.seats.length });
  if (d.sets.includes("apothecaries-tithes") && d.phase !== "lobby") line += " " + t("seats.herbsLeft", { count: d.herbs_left });
  $("tiles-left").textContent = line;
  renderSeatNote();
  renderStartAsk();
  // the room card's details (invite link, rules, sound) are open before the game, when the
  // link is what the host needs, and fold away once it starts
  if (d.phase !== lastPhase) {
    $("room-more").open = d.phase === "lobby";
    lastPhase = d.phase;
  }
}
let lastPhase = null;

function nameCell(td, d, s, i, addHere, host) {
  let label = s.taken ? who(i) : t("seats.free");
  if (i === app.seat) label += " " + t("seats.you");
  if (d.host === i && d.phase === "lobby") label += " · " + t("seats.host");
  if (s.taken && !s.connected && !s.bot) label += " · " + t("seats.offline");
  if (d.current === i) label = "▶ " + label;
  const line = node("div", "seat-line");
  line.append(node("span", "seat-name", label));
  td.title = seatLook(i);
  line.append(node("span", "sr", " " + t(d.current === i ? "seats.lookToMove" : "seats.look", { look: seatLook(i) })));
  if (s.bot) {
    const mark = node("span", "bot-mark");
    mark.dataset.botSeat = i;
    mark.append(botIcon(), document.createTextNode(" " + t("seats.botMark", { level: botLevelName(s.bot) })));
    line.append(" ", mark);
    if (host) {
      const b = node("button", "remove-bot", t("seats.remove"));
      b.type = "button";
      b.dataset.seat = i;
      b.setAttribute("aria-label", t("seats.removeFrom", { name: who(i), seat: i + 1 }));
      b.addEventListener("click", () => removeBot(i));
      line.append(" ", b);
    }
  }
  td.append(line);
  if (s.autoplay) {
    const m = node("div", "autoplay-mark" + (s.autoplay === "forfeit" ? " forfeit" : ""));
    m.dataset.autoplaySeat = i;
    m.append(botIcon(), document.createTextNode(" " + autoplayMark(who(i), s.autoplay)));
    td.append(m);
  }
  if (addHere) td.append(addBotControl());
}

// The host's "Add bot" control, in the first free seat (the server seats a bot there).
function addBotControl() {
  const box = node("div", "add-bot-box");
  const sel = node("select", "bot-level");
  sel.setAttribute("aria-label", t("seats.botLevel"));
  for (const level of BOT_LEVELS) {
    const o = node("option", "", botLevelName(level));
    o.value = level;
    if (level === app.botLevel) o.selected = true;
    sel.append(o);
  }
  const btn = node("button", "add-bot", t("seats.addBot"));
  btn.type = "button";
  const hint = node("p", "bot-hint");
  const setHint = () => {
    hint.textContent = botLevelHint(sel.value);
  };
  setHint();
  sel.addEventListener("change", () => {
    app.botLevel = sel.value;
    setHint();
  });
  btn.addEventListener("click", () => addBot(sel.value, btn));
  box.append(sel, " ", btn, hint);
  return box;
}

async function addBot(level, btn) {
  btn.disabled = true;
  const r = await hooks.conn.request({ type: "add_bot", level }, NO_REPLY_MS);
  btn.disabled = false;
  showReplyError(r);
}

async function removeBot(seat) {
  showReplyError(await hooks.conn.request({ type: "remove_bot", seat }, NO_REPLY_MS));
}

// Start: at once when every seat is taken (main.js sends it); with a free seat, the host is asked
// first (the game would start with fewer players, and nobody can join a started game): this
// listener, registered for the capture phase, runs before main.js's and stops it. start has no
// reply when it works (the delta is the answer): wait a while for an error only.
async function startGame() {
  $("start-ask").hidden = true;
  showReplyError(await hooks.conn.request({ type: "start" }, 5000));
}

function takenSeats(d) {
  return d.seats.filter((s) => s.taken).length;
}

function renderStartAsk() {
  const d = app.doc;
  const box = $("start-ask");
  if (box.hidden) return;
  const taken = takenSeats(d);
  if (d.phase !== "lobby" || app.seat === null || d.host !== app.seat || taken < 2 || taken === d.seats.length) {
    box.hidden = true;
    return;
  }
  $("start-ask-text").textContent = t("seats.ask.text", { count: taken, seats: d.seats.length });
  $("start-anyway").textContent = t("seats.ask.start", { count: taken });
}

$("start-btn").addEventListener("click", (e) => {
  const d = app.doc;
  if (!d || takenSeats(d) === d.seats.length) return;
  e.stopImmediatePropagation();
  $("start-ask").hidden = false;
  renderStartAsk();
  $("start-anyway").focus();
}, { capture: true });
$("start-anyway").addEventListener("click", startGame);
$("start-wait").addEventListener("click", () => {
  $("start-ask").hidden = true;
  $("start-btn").focus();
});

// Our own seat while a bot plays it: say why, and offer to take it back when the protocol
// allows (left, offline, idle). A spectator with a stored token of a seat counts as its player.
function renderSeatNote() {
  const d = app.doc;
  const box = $("seat-note");
  const stored = storedSeat(app.room);
  const mine = app.seat !== null ? app.seat : stored ? stored.seat : null;
  const s = mine !== null && d.seats[mine];
  if (d.phase !== "playing" || !s || !s.autoplay) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  $("seat-note-text").textContent = autoplayMine(s.autoplay);
  $("take-back-btn").hidden = !(stored && RESUMABLE.includes(s.autoplay));
}

$("take-back-btn").addEventListener("click", async () => {
  const stored = storedSeat(app.room);
  if (!stored) return;
  $("take-back-btn").disabled = true;
  await hooks.resume(app.room, stored.token, app.doc ? app.seq : undefined);
  $("take-back-btn").disabled = false;
});
