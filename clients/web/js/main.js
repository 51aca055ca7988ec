// main.js: the carcd browser client. Lobby, room, game, end screen. Speaks protocol v1 only.
import { Connection, applyPatch } from "./net.js";
import {
  T, el, drawTile, drawMeeple, featureSpots, rotatePoint, playerBadge, View,
  PLAYER_COLOURS, PLAYER_COLOUR_NAMES, PLAYER_SHAPES,
} from "./board.js";
import { describe, featureName, names } from "./words.js";
import { renderChart } from "./chart.js";
import { Replay } from "./replay.js";

const $ = (id) => document.getElementById(id);

const SET_NAMES = {
  base: "Base game", "inns-cathedrals": "Inns & Cathedrals", besiegers: "Besiegers",
  cathars: "Cathars", siege: "Siege", "apothecaries-tithes": "Apothecaries & Tithes",
};

const app = {
  tiles: null, // catalogue: id -> tile
  room: null,
  seat: null, // our seat, null for a spectator
  token: null,
  doc: null,
  seq: -1,
  rot: 0,
  pending: null, // {x, y, rot, meeple, escape}
  hist: [], // [{turn, scores}]
  finals: [], // final scoring events
  lastTurnKey: "",
  wantRoom: null, // room of the link, before we are in it
};

// ---------------------------------------------------------------------------------------------
// Storage: the seat token per room, and the score history for the chart.

function seatKey(room) {
  return "carcd.seat." + room;
}
function histKey(room) {
  return "carcd.hist." + room;
}
function loadJSON(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch (e) {
    return null;
  }
}
function saveJSON(key, v) {
  try {
    localStorage.setItem(key, JSON.stringify(v));
  } catch (e) {
    /* storage full or off: the game still works without it */
  }
}
function saveHist() {
  if (app.room) saveJSON(histKey(app.room), { hist: app.hist.slice(-400), finals: app.finals });
}

// ---------------------------------------------------------------------------------------------
// Messages to the user

function showError(text) {
  const box = $("errors");
  const p = document.createElement("p");
  p.className = "error";
  p.textContent = text;
  box.appendChild(p);
  setTimeout(() => p.remove(), 10000);
  while (box.children.length > 4) box.firstChild.remove();
}

function showReplyError(reply) {
  if (reply && reply.type === "error") {
    showError(`${reply.message} (${reply.code})`);
    return true;
  }
  return false;
}

function setStatus(kind, text) {
  const c = $("conn");
  c.className = "conn " + kind;
  c.textContent = text;
}

// ---------------------------------------------------------------------------------------------
// Connection

const conn = new Connection({
  onStatus: setStatus,
  onOpen: () => {
    setStatus("online", "Connected");
    reenter();
  },
  onMessage: handle,
});

async function reenter() {
  const room = app.room || app.wantRoom;
  if (!room) return;
  const stored = loadJSON(seatKey(room));
  if (stored && stored.token) {
    const msg = { type: "resume", room, token: stored.token };
    if (app.room === room && app.doc) msg.seq = app.seq;
    const r = await conn.request(msg);
    if (r.type === "error") {
      if (r.code === "bad_token") {
        localStorage.removeItem(seatKey(room));
        showError("Your seat in this room is gone; watching instead.");
        return watch(room);
      }
      showReplyError(r);
      if (r.code === "no_such_room") toLobby();
    }
    return;
  }
  if (app.room === room && app.seat === null) return watch(room, app.doc ? app.seq : undefined);
  // A link without a seat: show the room as a spectator; the join form takes a seat.
  return watch(room);
}

async function watch(room, seq) {
  const msg = { type: "watch", room };
  if (seq !== undefined && seq >= 0) msg.seq = seq;
  const r = await conn.request(msg);
  if (r.type === "error") {
    showReplyError(r);
    if (r.code === "no_such_room") toLobby();
  }
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
      break;
    case "delta":
      if (!app.doc || msg.seq <= app.seq) return;
      if (msg.seq > app.seq + 1) {
        conn.send({ type: "sync", seq: app.seq });
        return;
      }
      try {
        app.doc = applyPatch(app.doc, msg.patch);
      } catch (e) {
        conn.send({ type: "sync" });
        return;
      }
      app.seq = msg.seq;
      for (const ev of msg.events) onEvent(ev);
      recordHist();
      render();
      break;
    case "chat":
      addChat(msg);
      break;
    case "left":
      break;
    case "error":
      if (msg.ref === undefined) showError(`${msg.message} (${msg.code})`);
      break;
    default:
      break;
  }
}

function enterRoom(room, seat) {
  if (app.room !== room) {
    app.doc = null;
    app.seq = -1;
    const h = loadJSON(histKey(room)) || {};
    app.hist = h.hist || [];
    app.finals = h.finals || [];
    $("log").replaceChildren();
    $("chat").replaceChildren();
    app.centred = false;
  }
  app.room = room;
  app.wantRoom = null;
  app.seat = seat;
  app.pending = null;
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
  app.seat = null;
  history.replaceState(null, "", location.pathname);
  showView("lobby-view");
  $("end").hidden = true;
  replay.stop();
  startPolling();
}

// ---------------------------------------------------------------------------------------------
// Events, history

function who(seat) {
  const s = app.doc && app.doc.seats[seat];
  return (s && s.name) || `Seat ${seat + 1}`;
}

function onEvent(ev) {
  if (ev.final && ev.type !== "discard") app.finals.push(ev);
  if (ev.type === "start") {
    app.hist = [];
    app.finals = [];
  }
  addLog(describe(ev, who, app.tiles), ev.type);
}

function addLog(text, kind) {
  const li = document.createElement("li");
  li.className = "ev-" + kind;
  li.textContent = text;
  const log = $("log");
  log.prepend(li);
  while (log.children.length > 300) log.lastChild.remove();
}

function addChat(msg) {
  const li = document.createElement("li");
  const b = document.createElement("b");
  b.textContent = (msg.name || "?") + (msg.seat === null ? " (watching)" : "") + ": ";
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

const view = new View($("board"), $("world"));
const replay = new Replay(() => app.tiles, showError);

function myTurn() {
  const d = app.doc;
  return d && d.phase === "playing" && app.seat !== null && d.current === app.seat;
}

function legalAt(x, y) {
  return app.doc.legal.filter((l) => l.x === x && l.y === y);
}

function pendingEntry() {
  const p = app.pending;
  if (!p) return null;
  return app.doc.legal.find((l) => l.x === p.x && l.y === p.y && l.rot === p.rot) || null;
}

function render() {
  const d = app.doc;
  if (!d) return;
  const turnKey = d.turn + ":" + d.current + ":" + d.tile;
  if (turnKey !== app.lastTurnKey) {
    app.lastTurnKey = turnKey;
    app.pending = null;
  }
  if (app.pending && !pendingEntry()) app.pending = null;
  renderRoomCard();
  renderBoard();
  renderTurn();
  renderScores();
  renderEnd();
}

function renderRoomCard() {
  const d = app.doc;
  $("room-id").textContent = d.room;
  const link = location.origin + location.pathname + "#room=" + d.room;
  $("invite").href = link;
  $("invite").textContent = link;
  const role = app.seat === null ? "You are watching." : `You are ${who(app.seat)} (seat ${app.seat + 1}${d.host === app.seat ? ", host" : ""}).`;
  $("room-role").textContent = role;
  const opts = [d.sets.map((s) => SET_NAMES[s] || s).join(", ")];
  opts.push(d.options.farmers ? "farmers on" : "farmers off");
  if (d.sets.some((s) => s === "besiegers" || s === "cathars" || s === "siege")) {
    opts.push(d.options.siege_escape === "any-tile" ? "escape next to any city tile" : "escape next to a siege tile");
  }
  $("room-options").textContent = opts.join(" · ");
  const taken = d.seats.filter((s) => s.taken).length;
  $("start-btn").hidden = !(d.phase === "lobby" && app.seat !== null && d.host === app.seat);
  $("start-btn").disabled = taken < 2;
  const canJoin = app.seat === null && d.phase === "lobby" && taken < d.seats.length;
  $("room-join-form").hidden = !canJoin;
  if (canJoin && !$("room-join-name").value) $("room-join-name").value = localStorage.getItem("carcd.name") || "";
  $("turn-card").hidden = d.phase === "lobby";
}

function renderBoard() {
  const d = app.doc;
  const world = $("world");
  world.replaceChildren();
  const tilesG = el("g", { class: "tiles" }, world);
  const meepleG = el("g", { class: "meeples" }, world);
  const markG = el("g", { class: "marks" }, world);
  let last = null;
  for (const key of Object.keys(d.board)) {
    const [x, y] = key.split(",").map(Number);
    const b = d.board[key];
    const g = el("g", { transform: `translate(${x * T},${y * T})`, "data-pos": key, class: "placed" }, tilesG);
    const t = drawTile(b.tile, app.tiles[b.tile], b.rot, g);
    t.setAttribute("role", "img");
    t.setAttribute("aria-label", tileLabel(b, x, y));
    if (b.meeple) {
      const sp = featureSpots(b.tile, app.tiles[b.tile])[b.meeple.feature] || [50, 50];
      const mg = el("g", { transform: `translate(${x * T},${y * T})` }, meepleG);
      drawMeeple(mg, b.meeple.player, rotatePoint(sp, b.rot), b.meeple.kind === "large");
    }
    last = [x, y];
  }
  if (last && d.turn > 0) {
    el("rect", { x: last[0] * T + 2, y: last[1] * T + 2, width: T - 4, height: T - 4, class: "last-placed" }, markG);
  }
  fitBoard(false);
  if (!myTurn()) return;
  if (!app.pending) {
    const seen = new Set();
    for (const l of d.legal) {
      const key = l.x + "," + l.y;
      if (seen.has(key)) continue;
      seen.add(key);
      const fits = d.legal.some((m) => m.x === l.x && m.y === l.y && m.rot === app.rot);
      const g = el("g", {
        class: "legal" + (fits ? " fits" : ""), transform: `translate(${l.x * T},${l.y * T})`,
        tabindex: 0, role: "button", "data-x": l.x, "data-y": l.y,
        "aria-label": `Place the tile at ${l.x}, ${l.y}` + (fits ? "" : " (needs another rotation)"),
      }, markG);
      if (fits) {
        const ghost = drawTile(d.tile, app.tiles[d.tile], app.rot, g);
        ghost.setAttribute("class", "tile ghost");
      }
      el("rect", { x: 3, y: 3, width: T - 6, height: T - 6, rx: 6, class: "legal-box" }, g);
      activate(g, () => choosePosition(l.x, l.y));
    }
    return;
  }
  const p = app.pending;
  const entry = pendingEntry();
  const g = el("g", { class: "pending", transform: `translate(${p.x * T},${p.y * T})` }, markG);
  drawTile(d.tile, app.tiles[d.tile], p.rot, g);
  el("rect", { x: 1, y: 1, width: T - 2, height: T - 2, class: "pending-box" }, g);
  const spots = featureSpots(d.tile, app.tiles[d.tile]);
  for (const f of entry.meeples) {
    const pt = rotatePoint(spots[f] || [50, 50], p.rot);
    const selected = p.meeple && p.meeple.feature === f;
    const s = el("g", {
      class: "spot" + (selected ? " selected" : ""), transform: `translate(${pt[0]},${pt[1]})`,
      tabindex: 0, role: "button", "data-feature": f, "aria-pressed": selected ? "true" : "false",
      "aria-label": `Put a meeple on the ${featureName(app.tiles[d.tile], f)}`,
    }, g);
    el("circle", { r: 13, class: "spot-ring" }, s);
    if (selected) drawMeeple(s, app.seat, [0, 0], p.meeple.kind === "large");
    activate(s, () => chooseMeeple(f));
  }
  if (!p.meeple) {
    for (const e of entry.escapes) {
      const b = d.board[e.x + "," + e.y];
      if (!b) continue;
      const pt = rotatePoint(featureSpots(b.tile, app.tiles[b.tile])[e.feature] || [50, 50], b.rot);
      const selected = p.escape && p.escape.x === e.x && p.escape.y === e.y && p.escape.feature === e.feature;
      const s = el("g", {
        class: "escape-spot" + (selected ? " selected" : ""), transform: `translate(${e.x * T + pt[0]},${e.y * T + pt[1]})`,
        tabindex: 0, role: "button", "aria-pressed": selected ? "true" : "false",
        "aria-label": `Let the knight at ${e.x}, ${e.y} escape`,
      }, markG);
      el("circle", { r: 16, class: "escape-ring" }, s);
      activate(s, () => chooseEscape(e));
    }
  }
}

// Fits the placed tiles and the legal positions into the view (unless the user moved it).
function fitBoard(force) {
  const d = app.doc;
  if (!d) return;
  let x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  const cells = Object.keys(d.board).map((k) => k.split(",").map(Number));
  if (myTurn()) for (const l of d.legal) cells.push([l.x, l.y]);
  for (const [x, y] of cells) {
    x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
  }
  view.fit(x0 - 1, y0 - 1, x1 + 1, y1 + 1, force);
}

function tileLabel(b, x, y) {
  const t = app.tiles[b.tile];
  let s = `Tile at ${x}, ${y}: ${t ? t.what : b.tile}, turned ${b.rot} degrees`;
  if (b.meeple) s += `; ${who(b.meeple.player)}'s ${b.meeple.kind === "large" ? "large meeple" : "meeple"} on the ${featureName(t, b.meeple.feature)}`;
  return s;
}

function activate(node, fn) {
  node.addEventListener("click", (e) => {
    e.stopPropagation();
    fn();
  });
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      e.stopPropagation();
      fn();
    }
  });
}

function focusBoardItem(selector) {
  const n = $("world").querySelector(selector);
  if (n) n.focus();
  return n;
}

function choosePosition(x, y) {
  const ls = legalAt(x, y);
  if (!ls.length) return;
  const l = ls.find((m) => m.rot === app.rot) || ls[0];
  app.rot = l.rot;
  app.pending = { x, y, rot: l.rot, meeple: null, escape: null };
  render();
  focusBoardItem(".pending .spot") || $("confirm-btn").focus();
}

function chooseMeeple(f) {
  const p = app.pending;
  if (!p) return;
  const me = app.doc.seats[app.seat];
  if (p.meeple && p.meeple.feature === f) {
    // a second click: switch to the large meeple when there is one, else take it back
    if (p.meeple.kind === "normal" && me.large > 0) p.meeple.kind = "large";
    else p.meeple = null;
  } else {
    p.meeple = { feature: f, kind: me.meeples > 0 ? "normal" : "large" };
    p.escape = null;
  }
  render();
  focusBoardItem(`.spot[data-feature="${f}"]`);
}

function chooseEscape(e) {
  const p = app.pending;
  if (!p) return;
  const same = p.escape && p.escape.x === e.x && p.escape.y === e.y && p.escape.feature === e.feature;
  p.escape = same ? null : { x: e.x, y: e.y, feature: e.feature };
  render();
}

function rotate() {
  if (!myTurn()) return;
  const p = app.pending;
  if (p) {
    const rots = legalAt(p.x, p.y).map((l) => l.rot).sort((a, b) => a - b);
    if (rots.length < 2) return;
    p.rot = rots[(rots.indexOf(p.rot) + 1) % rots.length];
    app.rot = p.rot;
    p.meeple = null;
    p.escape = null;
  } else {
    app.rot = (app.rot + 90) % 360;
  }
  render();
}

function undo() {
  if (!app.pending) return;
  app.pending = null;
  render();
  $("board").focus();
}

async function confirm() {
  const p = app.pending;
  if (!p || !myTurn()) return;
  const msg = { type: "play", tile: app.doc.tile, x: p.x, y: p.y, rot: p.rot, meeple: p.meeple, escape: p.escape };
  $("confirm-btn").disabled = true;
  const r = await conn.request(msg);
  if (showReplyError(r)) render();
}

function renderTurn() {
  const d = app.doc;
  const text = $("turn-text");
  const drawn = $("drawn");
  drawn.replaceChildren();
  const choices = $("choices");
  choices.replaceChildren();
  $("confirm-btn").disabled = !(myTurn() && app.pending);
  $("undo-btn").disabled = !app.pending;
  $("rotate-btn").disabled = !myTurn();
  if (d.phase === "over") {
    text.textContent = "The game is over.";
    return;
  }
  if (d.phase !== "playing") return;
  const tile = app.tiles[d.tile];
  if (myTurn()) {
    text.textContent = app.pending
      ? "Choose a meeple spot or none, then confirm. Undo takes the tile back."
      : `Your turn: place the tile (${tile ? tile.what : d.tile}). Highlighted squares are legal.`;
  } else {
    text.textContent = `${who(d.current)} is placing a tile.`;
  }
  const svg = el("svg", { viewBox: "0 0 100 100", width: 96, height: 96 }, drawn);
  drawTile(d.tile, tile, app.pending ? app.pending.rot : app.rot, svg);
  drawn.setAttribute("title", tile ? tile.what : d.tile);
  if (!myTurn() || !app.pending) return;
  const entry = pendingEntry();
  const me = d.seats[app.seat];
  const p = app.pending;
  const mk = (label, pressed, fn, id) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.setAttribute("aria-pressed", pressed ? "true" : "false");
    if (id) b.id = id;
    b.addEventListener("click", fn);
    choices.append(b);
    return b;
  };
  if (entry.meeples.length) {
    const h = document.createElement("p");
    h.textContent = `Meeple (${me.meeples} left${me.large ? ", large available" : ""}):`;
    choices.append(h);
    mk("No meeple", !p.meeple, () => {
      p.meeple = null;
      render();
    }, "no-meeple");
    for (const f of entry.meeples) {
      if (me.meeples > 0) {
        mk(featureName(tile, f), p.meeple && p.meeple.feature === f && p.meeple.kind === "normal", () => {
          p.meeple = { feature: f, kind: "normal" };
          p.escape = null;
          render();
        });
      }
      if (me.large > 0) {
        mk("Large: " + featureName(tile, f), p.meeple && p.meeple.feature === f && p.meeple.kind === "large", () => {
          p.meeple = { feature: f, kind: "large" };
          p.escape = null;
          render();
        });
      }
    }
  }
  if (entry.escapes.length && !p.meeple) {
    const h = document.createElement("p");
    h.textContent = "A knight may escape instead:";
    choices.append(h);
    for (const e of entry.escapes) {
      mk(`Knight at ${e.x}, ${e.y} escapes`, p.escape && p.escape.x === e.x && p.escape.y === e.y && p.escape.feature === e.feature, () => chooseEscape(e));
    }
  }
}

function renderScores() {
  const d = app.doc;
  const body = $("scoreboard").querySelector("tbody");
  body.replaceChildren();
  const large = d.sets.includes("inns-cathedrals");
  const herbs = d.sets.includes("apothecaries-tithes");
  d.seats.forEach((s, i) => {
    const tr = document.createElement("tr");
    if (d.current === i) tr.className = "current";
    tr.dataset.seat = i;
    const td0 = document.createElement("td");
    td0.append(playerBadge(i, 20));
    const name = document.createElement("td");
    name.className = "name";
    let label = s.taken ? s.name : "(free seat)";
    if (i === app.seat) label += " (you)";
    if (d.host === i && d.phase === "lobby") label += " · host";
    if (s.taken && !s.connected) label += " · offline";
    if (d.current === i) label = "▶ " + label;
    name.textContent = label;
    name.title = `${PLAYER_COLOUR_NAMES[i]} ${PLAYER_SHAPES[i]}`;
    const sr = document.createElement("span");
    sr.className = "sr";
    sr.textContent = ` (${PLAYER_COLOUR_NAMES[i]} ${PLAYER_SHAPES[i]})` + (d.current === i ? ", to move" : "");
    name.append(sr);
    const cells = [s.score, s.meeples, large ? s.large : "–", herbs ? s.herbs : "–"];
    tr.append(td0, name);
    cells.forEach((c, k) => {
      const td = document.createElement("td");
      td.textContent = c;
      if (k === 0) td.className = "score";
      tr.append(td);
    });
    body.append(tr);
  });
  let t = "";
  if (d.phase === "playing") t = `Tiles left: ${d.tiles_left} (plus the one being placed). Turn ${d.turn + 1}.`;
  else if (d.phase === "lobby") t = `Waiting for players: ${d.seats.filter((s) => s.taken).length} of ${d.seats.length} seats taken.`;
  if (herbs && d.phase !== "lobby") t += ` Herb tokens left: ${d.herbs_left}.`;
  $("tiles-left").textContent = t;
}

function renderEnd() {
  const d = app.doc;
  const end = $("end");
  if (d.phase !== "over") {
    end.hidden = true;
    app.endShown = false;
    return;
  }
  if (app.endShown) return;
  app.endShown = true;
  end.hidden = false;
  const ranking = $("ranking");
  ranking.replaceChildren();
  const order = d.seats.map((s, i) => i).filter((i) => d.seats[i].taken).sort((a, b) => d.seats[b].score - d.seats[a].score);
  for (const i of order) {
    const li = document.createElement("li");
    li.dataset.seat = i;
    li.append(playerBadge(i, 18), document.createTextNode(` ${who(i)}: `));
    const b = document.createElement("b");
    b.className = "final-score";
    b.textContent = d.seats[i].score;
    li.append(b, document.createTextNode(" points"));
    ranking.append(li);
  }
  const fs = $("final-scoring");
  fs.replaceChildren();
  if (!app.finals.length) {
    const p = document.createElement("p");
    p.textContent = "No end-of-game scoring was seen by this window (nothing was left unfinished, or the game ended before it connected).";
    fs.append(p);
  } else {
    const groups = {};
    for (const ev of app.finals) {
      const k = ev.type === "score" ? ev.feature : ev.type;
      (groups[k] = groups[k] || []).push(ev);
    }
    const titles = { road: "Unfinished roads", city: "Unfinished cities", cloister: "Unfinished cloisters", farm: "Farms", barn: "Barns", herbs: "Herb tokens", escape: "Escapes" };
    for (const k of Object.keys(groups)) {
      const h = document.createElement("h4");
      const totals = {};
      for (const ev of groups[k]) (ev.delta || []).forEach((n, i) => (totals[i] = (totals[i] || 0) + n));
      const tt = Object.keys(totals).filter((i) => totals[i]).map((i) => `${who(+i)} +${totals[i]}`);
      h.textContent = (titles[k] || k) + (tt.length ? ": " + tt.join(", ") : ": no points");
      const ul = document.createElement("ul");
      for (const ev of groups[k]) {
        const li = document.createElement("li");
        li.textContent = describe(ev, who, app.tiles);
        ul.append(li);
      }
      fs.append(h, ul);
    }
  }
  renderChart($("chart"), app.hist, d.seats.map((s, i) => (s.taken ? who(i) : null)));
  end.focus();
}

// ---------------------------------------------------------------------------------------------
// Lobby

let pollTimer = null;
let lastRooms = null;
function startPolling() {
  stopPolling();
  loadRooms();
  replay.loadList();
  pollTimer = setInterval(() => {
    loadRooms();
    if (++pollCount % 5 === 0) replay.loadList();
  }, 2000);
}
let pollCount = 0;
function stopPolling() {
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
    status.textContent = "Could not load the rooms: " + e.message;
    return;
  }
  const json = JSON.stringify(rooms);
  if (json === lastRooms) return; // unchanged: keep the rows (and the keyboard focus)
  lastRooms = json;
  const table = $("rooms");
  const body = table.querySelector("tbody");
  body.replaceChildren();
  status.textContent = rooms.length ? `${rooms.length} public room${rooms.length === 1 ? "" : "s"}` : "No public rooms right now. Create one below.";
  table.hidden = rooms.length === 0;
  for (const r of rooms) {
    const tr = document.createElement("tr");
    tr.dataset.room = r.room;
    for (const c of [r.room, r.host || "", `${r.taken} / ${r.seats}`, r.phase, r.sets.map((s) => SET_NAMES[s] || s).join(", "), r.password ? "yes" : "no"]) {
      const td = document.createElement("td");
      td.textContent = c;
      tr.append(td);
    }
    const td = document.createElement("td");
    if (r.phase === "lobby" && r.taken < r.seats) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "Join";
      b.className = "join-room";
      b.setAttribute("aria-label", `Join room ${r.room}`);
      b.addEventListener("click", () => joinRoom(r.room, r.password));
      td.append(b);
    }
    const w = document.createElement("button");
    w.type = "button";
    w.textContent = "Watch";
    w.className = "watch-room";
    w.setAttribute("aria-label", `Watch room ${r.room}`);
    w.addEventListener("click", () => watch(r.room));
    td.append(" ", w);
    tr.append(td);
    body.append(tr);
  }
}

function myName(input) {
  const n = (input.value || $("create-name").value || $("join-name").value || localStorage.getItem("carcd.name") || "").trim();
  if (!n) {
    showError("Enter your name first.");
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
    showError("This room has a password: enter it in the Password box.");
    $("join-password").focus();
    return;
  }
  const msg = { type: "join", room, name };
  if (pw) msg.password = pw;
  const r = await conn.request(msg);
  showReplyError(r);
}

$("create-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = myName($("create-name"));
  if (!name) return;
  const sets = ["base"];
  for (const c of document.querySelectorAll('#create-form input[name="set"]:checked')) if (c.value !== "base") sets.push(c.value);
  const msg = {
    type: "create", name, seats: Number($("create-seats").value), sets,
    options: { farmers: $("create-farmers").checked, siege_escape: $("create-escape").value },
    private: $("create-private").checked,
  };
  if ($("create-password").value) msg.password = $("create-password").value;
  const r = await conn.request(msg);
  showReplyError(r);
});

$("join-form").addEventListener("submit", (e) => {
  e.preventDefault();
  joinRoom($("join-room").value.trim(), false);
});
$("watch-btn").addEventListener("click", () => {
  const room = $("join-room").value.trim();
  if (!room) return showError("Enter a room code first.");
  watch(room);
});
$("room-join-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const room = app.room;
  const name = myName($("room-join-name"));
  if (!name) return;
  await conn.request({ type: "leave" });
  const msg = { type: "join", room, name };
  if ($("room-join-password").value) msg.password = $("room-join-password").value;
  const r = await conn.request(msg);
  if (showReplyError(r)) watch(room);
});

$("start-btn").addEventListener("click", async () => showReplyError(await conn.request({ type: "start" })));
$("leave-btn").addEventListener("click", async () => {
  const room = app.room;
  const lobbyPhase = app.doc && app.doc.phase === "lobby";
  await conn.request({ type: "leave" });
  if (lobbyPhase || app.seat === null) localStorage.removeItem(seatKey(room));
  toLobby();
});
$("copy-link").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("invite").href);
  } catch (e) {
    showError("Could not copy; select the link instead.");
  }
});
$("chat-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const text = $("chat-text").value;
  if (!text.trim()) return;
  const r = await conn.request({ type: "chat", text });
  if (!showReplyError(r)) $("chat-text").value = "";
});
$("rotate-btn").addEventListener("click", rotate);
$("confirm-btn").addEventListener("click", confirm);
$("undo-btn").addEventListener("click", undo);
view.onFit = () => fitBoard(true);
$("zoom-in").addEventListener("click", () => (view.userMoved = true) && view.zoomAt(1.25, ...view.size().map((v) => v / 2)));
$("zoom-out").addEventListener("click", () => (view.userMoved = true) && view.zoomAt(0.8, ...view.size().map((v) => v / 2)));
$("zoom-centre").addEventListener("click", () => {
  view.userMoved = false;
  fitBoard(true);
});
$("end-close").addEventListener("click", () => ($("end").hidden = true));
$("end-lobby").addEventListener("click", async () => {
  await conn.request({ type: "leave" });
  toLobby();
});
$("home").addEventListener("click", (e) => {
  e.preventDefault();
  if (app.room) conn.request({ type: "leave" });
  toLobby();
});

document.addEventListener("keydown", (e) => {
  const t = e.target;
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
    undo();
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

async function boot() {
  const saved = localStorage.getItem("carcd.name") || "";
  $("create-name").value = saved;
  $("join-name").value = saved;
  try {
    const res = await fetch("/api/tiles");
    app.tiles = (await res.json()).tiles;
  } catch (e) {
    showError("Could not load the tile catalogue: " + e.message);
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
  }
  conn.connect();
}

boot();
