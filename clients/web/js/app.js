// app.js: the state shared by the client's modules, local storage, and messages to the user.
// main.js fills `hooks` at start so the other modules can reach the connection and re-render.
import { errorText, playerName } from "./words.js";
import { t } from "./i18n.js";

export const $ = (id) => document.getElementById(id);

export const app = {
  tiles: null, // catalogue: id -> tile
  room: null,
  seat: null, // our seat, null for a spectator
  token: null,
  doc: null,
  seq: -1,
  rot: 0,
  pending: null, // {x, y, rot, meeple, escape}
  legal: null, // the last `legal` message (only the mover gets one); turn.js legalList() checks it is the doc's
  hist: [], // [{turn, scores}]
  finals: [], // final scoring events
  histWanted: false, // the next state asks for the room's history (main.js loadHistory)
  histSince: null, // while it is asked: [[room event, seats before]] of the deltas since
  lastTurnKey: "",
  wantRoom: null, // room of the link, before we are in it
  offset: 0, // server clock - our clock, in ms (from welcome.time)
  botLevel: "random", // the level picked in the lobby's "Add bot" control
  account: null, // the signed-in account's name (account.js), null for a guest
  waiting: 0, // games where it is the signed-in player's turn (waiting.js); 0 for a guest
};

// conn: the Connection; render(): redraws the room; watch(room, seq), resume(room, token, seq),
// toLobby(): as in main.js; turnChanged(): set by waiting.js, called by main.js when the room's
// turn changes.
export const hooks = { conn: null, render: null, watch: null, resume: null, toLobby: null, turnChanged: null };

// The server's clock now, in ms since 1970.
export function serverNow() {
  return Date.now() + app.offset;
}

// ---------------------------------------------------------------------------------------------
// Storage: the seat token per room, and the score history for the chart.

export function seatKey(room) {
  return "carcd.seat." + room;
}
export function histKey(room) {
  return "carcd.hist." + room;
}
export function loadJSON(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch (e) {
    return null;
  }
}
export function saveJSON(key, v) {
  try {
    localStorage.setItem(key, JSON.stringify(v));
  } catch (e) {
    /* storage full or off: the game still works without it */
  }
}
export function saveHist() {
  if (app.room) saveJSON(histKey(app.room), { hist: app.hist.slice(-400), finals: app.finals });
}

// The password we gave a room (create or join), kept for this tab only (sessionStorage): the
// host's rematch opens a room with the same password, and our one-click join gives it.
export function rememberPassword(room, pw) {
  try {
    if (room && pw) sessionStorage.setItem("carcd.pw." + room, pw);
  } catch (e) {
    /* storage off: a rematch then asks for the password */
  }
}
export function passwordOf(room) {
  try {
    return (room && sessionStorage.getItem("carcd.pw." + room)) || "";
  } catch (e) {
    return "";
  }
}

// The stored seat {token, seat} of a room, or null.
export function storedSeat(room) {
  const s = room ? loadJSON(seatKey(room)) : null;
  return s && s.token ? s : null;
}

// ---------------------------------------------------------------------------------------------
// Messages to the user

// Shows a sentence in the error box; code (a protocol error code) is kept in data-code only.
export function showError(text, code, detail) {
  const box = $("errors");
  const p = document.createElement("p");
  p.className = "error";
  p.textContent = text;
  if (code) p.dataset.code = code;
  if (detail) p.title = detail;
  box.appendChild(p);
  setTimeout(() => p.remove(), 10000);
  while (box.children.length > 4) box.firstChild.remove();
}

// A reply marked quiet (net.js: a request cut by a dropped connection, or sent while there is
// none; the status line says that it reconnects) counts as an error but is not shown.
export function showReplyError(reply) {
  if (reply && reply.type === "error") {
    if (!reply.quiet) showError(errorText(reply.code, reply.message), reply.code, reply.message);
    return true;
  }
  return false;
}

export function who(seat) {
  const s = app.doc && app.doc.seats[seat];
  return (s && s.name && playerName(s.name)) || t("seat.n", { n: seat + 1 });
}
