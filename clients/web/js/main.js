// main.js: the carcd browser client. Speaks protocol v2 only. This module: the connection,
// entering and leaving rooms, applying state and deltas, the room card, events log, chat, end
// screen, keys and start-up; the room's history (log, chat, chart) on entering a room.
// lobby.js: the lobby view; turn.js: the board and the turn flow; seats.js: the players panel,
// bots and clocks; app.js: the shared state.
import { Connection, applyPatch } from "./net.js";
import { botLevelName, clockText, describe, playerName, setName, variantTexts } from "./words.js";
import { currentLanguage, onLanguageChange, t } from "./i18n.js";
import { renderChart } from "./chart.js";
import { renderBreakdown, renderRanking } from "./ending.js";
import {
  $, app, hooks, histKey, loadJSON, passwordOf, rememberPassword, saveHist, saveJSON, seatKey, showError, showReplyError,
  storedSeat, who,
} from "./app.js";
import { relabelLobby, replay, startPolling, stopPolling } from "./lobby.js";
import { confirm, fitBoard, hoverFeature, pendingEntry, renderBoard, renderTurn, rotate, undo, view } from "./turn.js";
import { renderSeats, startClocks } from "./seats.js";
import { startAlerts, updateAlerts } from "./alerts.js";
import { setupLayout } from "./layout.js";
import { entropyKeep, entropyNew } from "./fair.js";
import { boardMeeples, scoringClear, scoringPlaying, scoringShow, scoringSkip } from "./scoring.js";

// The status line: kind (online, connecting, offline) and the key of its text (net.js's too),
// kept to be said again in another language. i18n-keys: status.*
let status = ["connecting", "status.connecting", null];
function setStatus(kind, key, params) {
  status = [kind, key, params];
  const c = $("conn");
  c.className = "conn " + kind;
  c.textContent = t(key, params);
}

// ---------------------------------------------------------------------------------------------
// Connection

const conn = new Connection({
  onStatus: setStatus,
  onOpen: (welcome) => {
    setStatus("online", "status.connected");
    // the server's clock against ours, for the clocks' turn_started (half the trip ignored)
    if (welcome && typeof welcome.time === "number") app.offset = welcome.time - Date.now();
    reenter();
  },
  onMessage: handle,
});

async function reenter() {
  const room = app.room || app.wantRoom;
  if (!room) return;
  const stored = storedSeat(room);
  if (stored) {
    await resume(room, stored.token, app.room === room && app.doc ? app.seq : undefined);
    return;
  }
  if (app.room === room && app.seat === null) return watch(room, app.doc ? app.seq : undefined);
  // Signed in, without a token for the room (another device, "My games"): the server may know
  // the account's seat there (PROTOCOL.md "Seats of accounts"); bad_token falls back to watching.
  if (signedIn()) {
    await resume(room, undefined, app.room === room && app.doc ? app.seq : undefined);
    return;
  }
  // A link without a seat: show the room as a spectator; the join form takes a seat.
  return watch(room);
}

// This browser has signed in (account.js keeps the hint; the WebSocket carries the cookie).
function signedIn() {
  if (app.account) return true;
  try {
    return localStorage.getItem("carcd.account") === "1";
  } catch (e) {
    return false;
  }
}

// Takes the seat of the token (after a reconnect, a reload, or "Take my seat back"), or without
// a token the seat of the signed-in account; shows an error in words, and a stale token falls
// back to watching (an account without a seat there watches without an error).
async function resume(room, token, seq) {
  const msg = { type: "resume", room };
  if (token) msg.token = token;
  if (seq !== undefined && seq >= 0) msg.seq = seq;
  const r = await conn.request(msg);
  if (r.type === "error" && retryLater(r, room)) return;
  if (r.type === "error") {
    if (r.code === "bad_token" && !token) {
      await watch(room);
      return;
    }
    if (r.code === "bad_token") {
      localStorage.removeItem(seatKey(room));
      forgetLeft(room);
      showError(t("error.seatGone"), "bad_token");
      await watch(room);
      return;
    }
    showReplyError(r);
    if (r.code === "no_such_room") {
      forgetLeft(room);
      toLobby();
    }
  }
}

async function watch(room, seq) {
  const msg = { type: "watch", room };
  if (seq !== undefined && seq >= 0) msg.seq = seq;
  const r = await conn.request(msg);
  if (r.type === "error" && retryLater(r, room)) return;
  if (r.type === "error") {
    showReplyError(r);
    if (r.code === "no_such_room") toLobby();
  }
}

// storage_error on the way back into a room changes nothing (PROTOCOL.md): the server cannot
// reach its cluster's Redis or its database just now, or is handing its rooms over. Try again
// in a second rather than leave the player outside their game.
function retryLater(r, room) {
  if (r.code !== "storage_error") return false;
  setStatus("offline", "status.busy");
  setTimeout(() => {
    if ((app.room || app.wantRoom) === room) reenter();
  }, 1000);
  return true;
}

// The fair draw (PROTOCOL.md "The fair draw"): a seat of ours in the lobby without entropy gets
// 32 random bytes of this browser's, so that the server alone does not choose the draw. Once
// acknowledged they are remembered, for the replay's check.
let entropyPending = false;
function contribute() {
  const d = app.doc;
  if (entropyPending || !d || d.phase !== "lobby" || app.seat === null || !app.room) return;
  const seat = d.seats[app.seat];
  if (!seat || seat.entropy !== false) return;
  entropyPending = true;
  const room = app.room;
  const data = entropyNew();
  conn.request({ type: "entropy", data }).then((r) => {
    entropyPending = false;
    if (r.type === "ack") entropyKeep(room, data);
  });
}

function handle(msg) {
  switch (msg.type) {
    case "joined":
      enterRoom(msg.room, msg.seat);
      if (msg.token) {
        app.token = msg.token;
        saveJSON(seatKey(msg.room), { token: msg.token, seat: msg.seat });
      }
      break;
    case "watching":
      enterRoom(msg.room, null);
      break;
    case "state":
      app.doc = msg.state;
      app.seq = msg.seq;
      if (app.hist.length === 0) recordHist();
      render();
      if (app.histWanted) {
        app.histWanted = false;
        loadHistory();
      }
      contribute();
      break;
    case "delta": {
      if (!app.doc || msg.seq <= app.seq) return;
      if (msg.seq > app.seq + 1) {
        conn.send({ type: "sync", seq: app.seq });
        return;
      }
      const prevSeats = JSON.parse(JSON.stringify(app.doc.seats));
      const before = boardMeeples(app.doc);
      try {
        app.doc = applyPatch(app.doc, msg.patch);
      } catch (e) {
        conn.send({ type: "sync" });
        return;
      }
      app.seq = msg.seq;
      for (const ev of msg.events) {
        onEvent(ev, prevSeats);
        if (app.histSince && ROOM_EVENTS.includes(ev.type)) app.histSince.push([ev, prevSeats]);
      }
      recordHist();
      // the end screen waits for the end-of-game scoring to be played on the board
      scoringShow(msg.events, before, () => renderEnd());
      render();
      contribute();
      break;
    }
    case "legal":
      // protocol v2: every legal placement of the current tile, to the mover's connection only,
      // right after the delta (or the state / synced of a catch-up) that made it our turn; the
      // render on that delta had none to show (turn.js legalList), so the turn comes now
      if (!app.room) return; // we left the room meanwhile
      app.legal = msg;
      render();
      break;
    case "chat":
      addChat(msg);
      break;
    case "notice":
      // the server's administrator (POST /admin/notice, or a room closed: then `left` follows)
      showError(t("error.notice", { text: msg.text }), "notice");
      break;
    case "rematch":
      // the host of our finished game opened a new room (PROTOCOL.md "rematch")
      if (app.room) offerRematch(msg);
      break;
    case "left":
      break;
    case "error":
      if (msg.ref === undefined) showReplyError(msg);
      break;
    default:
      break;
  }
}

function enterRoom(room, seat) {
  if (app.room !== room) {
    app.doc = null;
    app.seq = -1;
    app.legal = null;
    const h = loadJSON(histKey(room)) || {};
    app.hist = h.hist || [];
    app.finals = h.finals || [];
    $("log").replaceChildren();
    delete $("log").dataset.history;
    $("chat").replaceChildren();
    app.centred = false;
    app.histWanted = true; // the state that follows asks for the room's history
    app.histSince = null;
    app.lastPlaced = null;
    scoringClear();
    if ($("rematch-card")) $("rematch-card").hidden = true;
  }
  app.room = room;
  app.wantRoom = null;
  app.seat = seat;
  app.pending = null;
  forgetLeft(room);
  if (location.hash !== "#room=" + room) history.replaceState(null, "", "#room=" + room);
  showView("room-view");
  stopPolling();
}

function showView(id) {
  for (const v of ["lobby-view", "room-view", "replay-view"]) $(v).hidden = v !== id;
}

function toLobby() {
  app.room = null;
  app.wantRoom = null;
  app.doc = null;
  app.legal = null;
  app.seat = null;
  history.replaceState(null, "", location.pathname);
  showView("lobby-view");
  $("end").hidden = true;
  if ($("rematch-card")) $("rematch-card").hidden = true;
  scoringClear();
  updateAlerts();
  replay.stop();
  startPolling();
  renderResumeCard();
}

// ---------------------------------------------------------------------------------------------
// Leaving a game, and coming back

// A question in a modal <dialog> (#ask): resolves true for its OK button, false for Cancel,
// Escape or a click outside. Focus starts on Cancel (the safe answer) and goes back to the
// element that had it.
function ask(title, text, ok, cancel) {
  let d = $("ask");
  if (!d) {
    d = document.createElement("dialog");
    d.id = "ask";
    d.className = "ask";
    d.setAttribute("aria-labelledby", "ask-h");
    d.setAttribute("aria-describedby", "ask-text");
    d.innerHTML = '<h2 id="ask-h"></h2><p id="ask-text"></p><form method="dialog" class="ask-buttons">' +
      '<button value="cancel" id="ask-cancel"></button> <button value="ok" id="ask-ok"></button></form>';
    document.body.append(d);
  }
  $("ask-h").textContent = title;
  $("ask-text").textContent = text;
  $("ask-ok").textContent = ok;
  $("ask-cancel").textContent = cancel;
  const back = document.activeElement;
  d.returnValue = "cancel";
  d.showModal();
  $("ask-cancel").focus();
  return new Promise((resolve) => {
    d.addEventListener("close", () => {
      if (back && back.isConnected && typeof back.focus === "function") back.focus();
      resolve(d.returnValue === "ok");
    }, { once: true });
  });
}

// In a game with a seat of ours, leaving asks first: the seat is kept (a bot plays it at the
// game's pace, and a game nobody is connected to pauses), and the lobby offers the way back.
async function leaveAsked() {
  const d = app.doc;
  if (!app.room || !d || d.phase !== "playing" || app.seat === null) return true;
  return ask(t("leave.title"), t("leave.text"), t("leave.ok"), t("leave.cancel"));
}

// The room we left mid-game with our seat kept (localStorage carcd.left): the lobby shows a
// "Resume my game" card for it until we are back in it, or its token or room is gone.
const LEFT_KEY = "carcd.left";
function forgetLeft(room) {
  if (localStorage.getItem(LEFT_KEY) === room) localStorage.removeItem(LEFT_KEY);
  renderResumeCard();
}

function renderResumeCard() {
  const room = localStorage.getItem(LEFT_KEY);
  let card = $("resume-card");
  const show = room && storedSeat(room) && !$("lobby-view").hidden;
  if (!show) {
    if (card) card.hidden = true;
    return;
  }
  if (!card) {
    card = document.createElement("section");
    card.id = "resume-card";
    card.className = "card resume-card";
    card.setAttribute("role", "region");
    card.setAttribute("aria-labelledby", "resume-text");
    card.innerHTML = '<p id="resume-text"></p><button type="button" id="resume-btn"></button>';
    $("lobby-view").prepend(card);
    $("resume-btn").addEventListener("click", () => {
      const r = localStorage.getItem(LEFT_KEY);
      if (!r) return renderResumeCard();
      app.wantRoom = r;
      stopPolling();
      showView("room-view");
      card.hidden = true;
      reenter();
    });
  }
  card.hidden = false;
  $("resume-text").textContent = t("leave.resumeText", { room });
  $("resume-btn").textContent = t("leave.resume");
}

async function leaveRoom() {
  if (!(await leaveAsked())) return;
  const room = app.room;
  const d = app.doc;
  const lobbyPhase = d && d.phase === "lobby";
  const kept = d && d.phase === "playing" && app.seat !== null;
  await conn.request({ type: "leave" });
  // in the lobby the seat is freed; in a game it is held (a bot plays it) and the token kept
  if (lobbyPhase) localStorage.removeItem(seatKey(room));
  if (kept) localStorage.setItem(LEFT_KEY, room);
  toLobby();
}

// ---------------------------------------------------------------------------------------------
// Events, history

function onEvent(ev, prevSeats) {
  if (ev.final && ev.type !== "discard") app.finals.push(ev);
  if (ev.type === "placed") app.lastPlaced = ev;
  if (ev.type === "start") {
    app.hist = [];
    app.finals = [];
  }
  addLog(ev, prevSeats);
}

// Room events: the server's history does not keep them (PROTOCOL.md "history").
const ROOM_EVENTS = ["seat", "start", "timeout", "autoplay"];

// After the first state in a room (create, join, resume after a reload, watch): asks for the
// room's history and rebuilds the events log, the chat and the score chart from it. The server
// answers in order, so the reply already holds every move and chat line this window received
// between the state and the reply (those were shown live and are replaced); only the room
// events of those deltas are kept (app.histSince) and shown again after the history's turns.
async function loadHistory() {
  const room = app.room;
  const started = app.doc.phase !== "lobby";
  app.histSince = [];
  const r = await conn.request({ type: "history" });
  const since = app.histSince || [];
  app.histSince = null;
  if (app.room !== room || !app.doc || r.type !== "history") return; // we left, or an old server
  $("log").replaceChildren();
  app.finals = [];
  const start = since.find(([ev]) => ev.type === "start");
  if (started) {
    // the game's start event is a room event: say it again from the seats
    onEvent({ type: "start", players: app.doc.seats.filter((s) => s.taken).map((s) => s.name) });
  } else if (start) {
    onEvent(start[0], start[1]);
  }
  // the chart: the scores after every turn, from the turns' score changes
  const scores = app.doc.seats.map(() => 0);
  const hist = started || start ? [{ turn: 0, scores: scores.slice() }] : [];
  let turn = 0;
  for (const turnRec of r.turns || []) {
    for (const ev of turnRec.events || []) {
      onEvent(ev);
      if (ev.type === "placed") turn++;
      if (Array.isArray(ev.delta)) ev.delta.forEach((n, i) => (scores[i] = (scores[i] || 0) + n));
    }
    const last = hist[hist.length - 1];
    if (last && last.turn === turn) last.scores = scores.slice();
    else hist.push({ turn, scores: scores.slice() });
  }
  app.hist = hist;
  for (const [ev, prev] of since) if (ev !== (start && start[0])) onEvent(ev, prev);
  recordHist(); // the document has the last word on the scores now
  saveHist();
  $("chat").replaceChildren();
  for (const line of r.chat || []) addChat(line);
  $("log").dataset.history = "loaded";
  if (app.doc.phase === "over" && !$("end").hidden) {
    app.endShown = false; // the end screen again, with the final scoring and the whole chart
    renderEnd();
  }
}

// A line of the events log; it keeps its event, to be said again in another language.
function addLog(ev, prevSeats) {
  // a farm that scores nobody anything (no completed city beside it) is not worth a line
  if (ev.type === "score" && ev.feature === "farm" && Array.isArray(ev.delta) && !ev.delta.some((n) => n)) return;
  const li = document.createElement("li");
  li.className = "ev-" + ev.type;
  li.textContent = describe(ev, who, app.tiles, prevSeats);
  li.carcEvent = [ev, prevSeats];
  if (ev.type === "score" && ev.segment) hoverFeature(li, ev.x, ev.y, ev.segment); // its feature on the board
  // oldest first, so that a line keeps its number; the box follows the newest line unless the
  // reader has scrolled up
  const log = $("log");
  if (!log.children.length) log.removeAttribute("start");
  const follow = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
  log.append(li);
  while (log.children.length > 1000) {
    log.firstChild.remove();
    log.start = (log.start || 1) + 1;
  }
  if (follow) log.scrollTop = log.scrollHeight;
}

function chatWho(msg) {
  return t(msg.seat === null ? "chat.whoWatching" : "chat.who", { name: msg.name || "?" });
}

function addChat(msg) {
  const li = document.createElement("li");
  const b = document.createElement("b");
  b.textContent = chatWho(msg);
  li.carcChat = msg;
  li.append(b, document.createTextNode(msg.text));
  $("chat").append(li);
  li.scrollIntoView({ block: "nearest" });
}

function recordHist() {
  const d = app.doc;
  if (!d || d.phase === "lobby") return;
  const scores = d.seats.map((s) => s.score);
  const last = app.hist[app.hist.length - 1];
  if (last && last.turn === d.turn && JSON.stringify(last.scores) === JSON.stringify(scores)) return;
  if (last && last.turn === d.turn) last.scores = scores;
  else app.hist.push({ turn: d.turn, scores });
  saveHist();
}

// ---------------------------------------------------------------------------------------------
// Rendering

function render() {
  const d = app.doc;
  if (!d) return;
  const turnKey = d.turn + ":" + d.current + ":" + d.tile;
  if (turnKey !== app.lastTurnKey) {
    app.lastTurnKey = turnKey;
    app.pending = null;
    if (hooks.turnChanged) hooks.turnChanged();
  }
  if (app.pending && !pendingEntry()) app.pending = null;
  renderRoomCard();
  renderBoard();
  const bar = $("turn-card").offsetHeight;
  renderTurn();
  // the turn bar grew or shrank (the meeple choices came or went; on a phone it floats over
  // the board): the board again, fitted to the room left (its spots are sized for the scale)
  if ($("turn-card").offsetHeight !== bar) renderBoard();
  renderSeats();
  renderOutOfTime();
  renderEnd();
  updateAlerts();
}

// Our seat out of time for good (PROTOCOL.md "Clocks and bots": on_timeout bot, no increment):
// a bot plays every remaining turn until we take the seat back, which gives us a minute. The
// players panel's seat note (seats.js) says so instead of "this turn", with its "Take my seat
// back" (resume) shown.
function renderOutOfTime() {
  const d = app.doc;
  const stored = storedSeat(app.room);
  const mine = app.seat !== null ? app.seat : stored ? stored.seat : null;
  const s = mine !== null && d.seats[mine];
  const forGood = d.phase === "playing" && s && s.autoplay === "timeout" && d.clock && d.clock.increment === 0 && !(s.time_ms > 0);
  $("seat-note").classList.toggle("out-of-time", !!forGood);
  if (!forGood) return;
  $("seat-note-text").textContent = t("autoplay.mine.outOfTime", { seconds: Math.min(60, d.clock.initial) });
  $("take-back-btn").hidden = !stored;
}

function renderRoomCard() {
  const d = app.doc;
  $("room-id").textContent = d.room;
  $("room-rated").hidden = !d.rated;
  const link = location.origin + location.pathname + "#room=" + d.room;
  $("invite").href = link;
  $("invite").textContent = link;
  const role = app.seat === null ? t("room.role.watching")
    : t(d.host === app.seat ? "room.role.host" : "room.role.seat", { name: who(app.seat), seat: app.seat + 1 });
  $("room-role").textContent = role;
  const opts = [d.sets.map(setName).join(", ")];
  opts.push(t(d.options.farmers ? "room.farmersOn" : "room.farmersOff"));
  if (d.sets.some((s) => s === "besiegers" || s === "cathars" || s === "siege")) {
    opts.push(t(d.options.siege_escape === "any-tile" ? "room.escapeAny" : "room.escapeSiege"));
  }
  opts.push(...variantTexts(d.options));
  if (d.clock) opts.push(clockText(d.clock));
  $("room-options").textContent = opts.join(" · ");
  const taken = d.seats.filter((s) => s.taken).length;
  $("start-btn").hidden = !(d.phase === "lobby" && app.seat !== null && d.host === app.seat);
  $("start-btn").disabled = taken < 2;
  const canJoin = app.seat === null && d.phase === "lobby" && taken < d.seats.length;
  $("room-join-form").hidden = !canJoin;
  if (canJoin && !$("room-join-name").value) $("room-join-name").value = app.account || localStorage.getItem("carcd.name") || "";
  $("turn-card").hidden = d.phase === "lobby";
  $("room-view").classList.toggle("in-lobby", d.phase === "lobby");
}

function renderEnd() {
  const d = app.doc;
  const end = $("end");
  if (d.phase !== "over") {
    end.hidden = true;
    $("results-line").hidden = true;
    app.endShown = false;
    return;
  }
  $("results-line").hidden = !end.hidden || scoringPlaying();
  if (app.endShown || scoringPlaying()) return;
  app.endShown = true;
  const opening = end.hidden;
  end.hidden = false;
  const seats = d.seats.map((s, i) => i).filter((i) => d.seats[i].taken).map((i) => {
    const mark = d.seats[i].bot ? t("end.markBot", { level: botLevelName(d.seats[i].bot) }) : d.seats[i].autoplay === "forfeit" ? t("end.markForfeit") : "";
    return { seat: i, label: who(i) + mark, score: d.seats[i].score };
  });
  renderRanking($("ranking"), seats);
  renderBreakdown($("final-scoring"), app.finals, who, app.tiles, t("end.noFinal"));
  renderChart($("chart"), app.hist, d.seats.map((s, i) => (s.taken ? who(i) : null)));
  $("results-line").hidden = true;
  $("rematch-btn").hidden = !(app.seat !== null && d.host === app.seat);
  placeEnd();
  if (opening) end.focus();
}

// On a phone the end screen lies over the board, under the score bar (whose height depends on
// what the room shows above it), so that the scores stay in view; on a wide screen style.css
// and flow.css place it.
function placeEnd() {
  const end = $("end");
  if (end.hidden || !end.offsetParent || !matchMedia("(max-width: 800px)").matches) {
    end.style.top = end.style.maxHeight = "";
    return;
  }
  const top = Math.max(6, Math.round($("players-card").getBoundingClientRect().bottom - end.offsetParent.getBoundingClientRect().top + 4));
  end.style.top = top + "px";
  end.style.maxHeight = `calc(100% - ${top + 6}px)`;
}

// Play again (PROTOCOL.md "rematch"): the host's button opens a new room with the same seats,
// settings and bots; the `joined` that answers takes us there (handle).
async function rematch() {
  const b = $("rematch-btn");
  b.disabled = true;
  const pw = passwordOf(app.room); // the new room has the finished one's password
  const r = await conn.request({ type: "rematch" });
  if (!showReplyError(r)) rememberPassword(r.room, pw);
  b.disabled = false;
}

// The others' invitation: one click leaves the finished room and joins the new one by our
// seat's name (a spectator watches it: its join form takes a seat).
function offerRematch(msg) {
  let card = $("rematch-card");
  if (!card) {
    card = document.createElement("section");
    card.id = "rematch-card";
    card.className = "card rematch-card";
    card.setAttribute("role", "alertdialog");
    card.setAttribute("aria-labelledby", "rematch-text");
    card.innerHTML = '<p id="rematch-text"></p><p><button type="button" id="rematch-join"></button> ' +
      '<button type="button" id="rematch-dismiss"></button></p>';
    $("room-view").append(card);
    $("rematch-dismiss").addEventListener("click", () => (card.hidden = true));
    $("rematch-join").addEventListener("click", () => joinRematch(card.carcOffer));
  }
  card.carcOffer = {
    room: msg.room, host: msg.host, name: app.seat !== null && app.doc ? app.doc.seats[app.seat].name : null,
    password: passwordOf(app.room),
  };
  card.hidden = false;
  relabelRematch();
  $("rematch-join").focus();
}

function relabelRematch() {
  const card = $("rematch-card");
  if (!card || card.hidden) return;
  const o = card.carcOffer;
  $("rematch-text").textContent = t("rematch.offer", { host: playerName(o.host) });
  $("rematch-join").textContent = t(o.name ? "rematch.join" : "rematch.watch");
  $("rematch-dismiss").textContent = t("rematch.dismiss");
}

async function joinRematch(o) {
  $("rematch-card").hidden = true;
  if (app.room) await conn.request({ type: "leave" });
  app.room = null;
  if (!o.name) return watch(o.room);
  const msg = { type: "join", room: o.room, name: o.name };
  if (o.password) msg.password = o.password;
  const r = await conn.request(msg);
  if (!showReplyError(r)) rememberPassword(o.room, o.password);
  // no password known here (another tab joined the old room): the room's join form asks for it
  else if (r.code === "wrong_password") watch(o.room);
  else toLobby();
}

// "Look at the board" closes the end screen; "Results" (in the turn card) opens it again.
function closeEnd() {
  $("end").hidden = true;
  $("results-line").hidden = !(app.doc && app.doc.phase === "over");
  if (!$("results-line").hidden) $("results-btn").focus();
}

// start has no reply when it works (the delta is the answer): wait a while for an error only
$("start-btn").addEventListener("click", async () => showReplyError(await conn.request({ type: "start" }, 5000)));
$("leave-btn").addEventListener("click", leaveRoom);
$("copy-link").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("invite").href);
  } catch (e) {
    showError(t("error.copy"));
  }
});
$("chat-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const text = $("chat-text").value;
  if (!text.trim()) return;
  // a chat that went through comes back as a broadcast `chat`, not as a reply: clear the box
  // now and put the text back if an error answers
  $("chat-text").value = "";
  if (showReplyError(await conn.request({ type: "chat", text }, 5000))) $("chat-text").value = text;
});
$("rotate-btn").addEventListener("click", rotate);
$("confirm-btn").addEventListener("click", confirm);
$("undo-btn").addEventListener("click", undo);
view.onFit = () => fitBoard(true);
window.addEventListener("resize", () => {
  fitBoard(false); // a turned phone, a resized window
  placeEnd();
});
$("zoom-in").addEventListener("click", () => (view.userMoved = true) && view.zoomAt(1.25, ...view.size().map((v) => v / 2)));
$("zoom-out").addEventListener("click", () => (view.userMoved = true) && view.zoomAt(0.8, ...view.size().map((v) => v / 2)));
$("zoom-centre").addEventListener("click", () => {
  view.userMoved = false;
  fitBoard(true);
});
$("end-close").addEventListener("click", closeEnd);
$("rematch-btn").addEventListener("click", rematch);
$("results-btn").addEventListener("click", () => {
  app.endShown = false;
  renderEnd();
});
$("end-lobby").addEventListener("click", async () => {
  await conn.request({ type: "leave" });
  toLobby();
});
$("home").addEventListener("click", (e) => {
  e.preventDefault();
  if (app.room) leaveRoom();
  else toLobby();
});

document.addEventListener("keydown", (e) => {
  const t = e.target;
  if (document.querySelector("dialog[open]")) return; // the question before leaving, or the account's dialog, has the keys
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
  if (!$("replay-view").hidden && !e.ctrlKey && !e.metaKey && !e.altKey && t.tagName !== "INPUT") {
    if (e.key === "," || e.key === "PageUp") replay.go(replay.n - 1);
    else if (e.key === "." || e.key === "PageDown") replay.go(replay.n + 1);
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey || $("room-view").hidden) return;
  if (e.key === "r" || e.key === "R") {
    rotate();
    e.preventDefault();
  } else if (e.key === "Enter" && app.pending && t.tagName !== "BUTTON") {
    confirm();
    e.preventDefault();
  } else if (e.key === "Escape") {
    if (scoringPlaying()) scoringSkip();
    else undo();
  }
});

async function openReplay(id) {
  if (app.room) {
    conn.request({ type: "leave" });
    app.room = null;
  }
  stopPolling();
  showView("replay-view");
  if (!(await replay.open(id))) toLobby();
}

$("replay-back").addEventListener("click", () => toLobby());

window.addEventListener("hashchange", () => {
  const r = /^#replay=([^&]+)$/.exec(location.hash);
  if (r) return openReplay(decodeURIComponent(r[1]));
  const m = /^#room=([A-Za-z0-9]{1,16})$/.exec(location.hash);
  if (m && m[1] !== app.room) {
    if (app.room) conn.request({ type: "leave" });
    app.room = null;
    app.wantRoom = m[1];
    reenter();
  }
});

// ---------------------------------------------------------------------------------------------
// Start

hooks.conn = conn;
hooks.render = render;
hooks.watch = watch;
hooks.resume = resume;
hooks.toLobby = toLobby;

// Another language chosen in the header: what is drawn from data is said again (i18n.js has
// translated the page's fixed texts already).
onLanguageChange(() => {
  setStatus(...status);
  for (const li of $("log").children) if (li.carcEvent) li.textContent = describe(li.carcEvent[0], who, app.tiles, li.carcEvent[1]);
  for (const li of $("chat").children) if (li.carcChat) li.firstChild.textContent = chatWho(li.carcChat);
  relabelLobby();
  renderResumeCard();
  relabelRematch();
  if (app.doc) {
    if (!$("end").hidden) app.endShown = false; // the end screen again, in the new words
    render();
  }
  if (!$("replay-view").hidden) replay.relabel();
  updateAlerts();
});

// account.js (the sign-in dialog and menu, 4 KB compressed) is loaded only for a browser that
// signed in before (it asks GET /api/me) or on the first "Sign in": a guest's page stays light.
let accountModule = null;
function loadAccount() {
  return (accountModule ||= import("./account.js"));
}
function accountBoot() {
  let signedIn = null;
  try {
    signedIn = localStorage.getItem("carcd.account");
  } catch (e) {
    /* storage off: a guest */
  }
  if (signedIn) {
    loadAccount().then((m) => m.whoAmI());
    return;
  }
  $("acct").hidden = false; // "Sign in"; account.js answers accounts_off by hiding it again
  $("acct-open").addEventListener(
    "click",
    () => loadAccount().then((m) => $("acct-dlg").open || m.openSignIn()),
    { once: true },
  );
}

async function boot() {
  const saved = localStorage.getItem("carcd.name") || "";
  $("create-name").value = saved;
  $("join-name").value = saved;
  accountBoot(); // signed in: the account's name in the header and in those fields
  try {
    const res = await fetch("/api/tiles");
    app.tiles = (await res.json()).tiles;
  } catch (e) {
    showError(t("error.tiles", { reason: e.message }));
    app.tiles = {};
  }
  const m = /^#room=([A-Za-z0-9]{1,16})$/.exec(location.hash);
  const r = /^#replay=([^&]+)$/.exec(location.hash);
  if (m) {
    app.wantRoom = m[1];
    showView("room-view");
  } else if (r) {
    openReplay(decodeURIComponent(r[1]));
  } else {
    startPolling();
    renderResumeCard();
  }
  setupLayout();
  startClocks();
  startAlerts();
  conn.connect();
}

// The service worker (sw.js: the offline shell, Web Push's notices), registered once the page is
// idle so that its install's fetches stay out of the page's load; none where there is no support.
// It is told the page's language (it keeps that catalogue for offline use and the notices).
if ("serviceWorker" in navigator) {
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 200));
  const tell = (reg) => reg.active && reg.active.postMessage({ lang: currentLanguage() });
  const ready = () => navigator.serviceWorker.ready.then(tell);
  const register = () => idle(() => navigator.serviceWorker.register("sw.js").then(ready, () => {}));
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

boot();
