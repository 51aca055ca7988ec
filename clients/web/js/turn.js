// turn.js: the board of the room and the turn flow: pick a legal position, rotate, a meeple
// spot or a knight's escape, confirm or undo; the drawn tile and the turn's text.
import { T, el, drawLastPlaced, drawTile, drawMeeple, featureSpots, rotatePoint, segmentAtPoint, View } from "./board.js";
import { atWords, featureName, featureRole, featureWhere, placeWords, tileName } from "./words.js";
import { capital, currentLanguage, listText, t } from "./i18n.js";
import { $, app, hooks, showReplyError, who } from "./app.js";
import { fxLayer, scoringLanding } from "./scoring.js";
import { clearHighlight, highlightFeature } from "./features.js";

export const view = new View($("board"), $("world"));
// what floats over the board (the phone's bars, the zoom tools): a fit keeps the tiles clear of it
view.covers = () => [["top", $("players-card")], ["top", $("phone-tabs")], ["bottom", $("turn-card")],
  ["top", document.querySelector("#room-view .board-tools")]];
const render = () => hooks.render();

export function myTurn() {
  const d = app.doc;
  if (!d || d.phase !== "playing" || app.seat === null || d.current !== app.seat) return false;
  const me = d.seats[app.seat];
  return !(me && me.autoplay); // a bot plays this seat now: nothing to place
}

// Every legal placement of the current tile: the list of the last `legal` message (protocol v2:
// the server sends it to the mover's connection only, right after the delta or state that makes
// it our turn), while it is the document's turn, mover and tile; null until it has come (then
// nothing can be placed yet: main.js renders again when it arrives).
export function legalList() {
  const d = app.doc;
  const l = app.legal;
  if (!d || !l || !Array.isArray(l.legal)) return null;
  if (l.turn !== d.turn || l.player !== d.current || l.tile !== d.tile) return null;
  return l.legal;
}

function legalAt(x, y) {
  return (legalList() || []).filter((l) => l.x === x && l.y === y);
}

export function pendingEntry() {
  const p = app.pending;
  const legal = legalList();
  if (!p || !legal) return null;
  return legal.find((l) => l.x === p.x && l.y === p.y && l.rot === p.rot) || null;
}


// A re-render (a delta, a chat line, a clock) rebuilds the board: the square, spot or Confirm
// that had the focus gets it back, or a key meant for it would reach the page (where Enter
// confirms the move as it stands).
export function renderBoard() {
  const a = document.activeElement;
  const world = $("world");
  let again = null;
  if (a && world.contains(a)) {
    if (a.classList.contains("spot")) again = `.pending .spot[data-feature="${a.dataset.feature}"]`;
    else if (a.classList.contains("board-confirm")) again = ".pending .board-confirm";
    else if (a.classList.contains("legal")) again = `.legal[data-x="${a.dataset.x}"][data-y="${a.dataset.y}"]`;
    else if (a.classList.contains("escape-spot")) again = `.escape-spot[data-at="${a.dataset.at}"]`;
  }
  drawBoard();
  // the placed feature shown (a hover, a tap, a log line) is drawn again on the new board
  if (shownAt && !preview) showFeature(shownAt.x, shownAt.y, shownAt.segment);
  if (!again) return;
  const n = world.querySelector(again);
  if (n) n.focus({ preventScroll: true });
  else if (!world.contains(document.activeElement)) $("board").focus({ preventScroll: true });
}

function drawBoard() {
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
    const drawn = drawTile(b.tile, app.tiles[b.tile], b.rot, g);
    drawn.setAttribute("role", "img");
    drawn.setAttribute("aria-label", tileLabel(b, x, y));
    if (b.meeple) {
      const sp = featureSpots(b.tile, app.tiles[b.tile])[b.meeple.feature] || [50, 50];
      const mg = el("g", { transform: `translate(${x * T},${y * T})` }, meepleG);
      drawMeeple(mg, b.meeple.player, rotatePoint(sp, b.rot), b.meeple.kind === "large", isField(b.tile, b.meeple.feature));
    }
    last = [x, y];
  }
  if (last && d.turn > 0) {
    // its player comes from the last `placed` event this window saw, live or in the history
    const lp = app.lastPlaced;
    drawLastPlaced(markG, last[0], last[1], lp && lp.x === last[0] && lp.y === last[1] ? lp.player : null);
  }
  world.append(fxLayer());
  scoringLanding(world);
  fitBoard(false);
  if (!myTurn()) return;
  const legal = legalList();
  if (!legal) return; // the `legal` message follows the delta: nothing to place until it comes
  if (!app.pending) {
    const seen = new Set();
    for (const l of legal) {
      const key = l.x + "," + l.y;
      if (seen.has(key)) continue;
      seen.add(key);
      const fits = legal.some((m) => m.x === l.x && m.y === l.y && m.rot === app.rot);
      const g = el("g", {
        class: "legal" + (fits ? " fits" : ""), transform: `translate(${l.x * T},${l.y * T})`,
        tabindex: 0, role: "button", "data-x": l.x, "data-y": l.y,
        "aria-label": t(fits ? "board.place" : "board.placeRotate", { where: l.x || l.y ? placeWords(l.x, l.y) : t("board.here") }),
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
  if (!entry) return;
  const g = el("g", { class: "pending", transform: `translate(${p.x * T},${p.y * T})` }, markG);
  drawTile(d.tile, app.tiles[d.tile], p.rot, g);
  el("rect", { x: 1, y: 1, width: T - 2, height: T - 2, class: "pending-box" }, g);
  // where a spot's feature is drawn: over the board and the tile, under the spots
  el("g", { class: "hl-slot", transform: `translate(${-p.x * T},${-p.y * T})` }, g);
  const spots = featureSpots(d.tile, app.tiles[d.tile]);
  // a spot is hit over about 32 px on screen (its ring 22 px), whatever the zoom, but never over
  // another spot's middle (fitBoard zooms in while placing when the spots are close)
  const ringR = Math.min(22, Math.max(13, 11 / view.s));
  const hitR = Math.min(34, Math.max(ringR, 16 / view.s));
  for (const f of entry.meeples) {
    const pt = rotatePoint(spots[f] || [50, 50], p.rot);
    const gap = spotGap(spots, entry.meeples, f);
    const selected = p.meeple && p.meeple.feature === f;
    const s = el("g", {
      class: "spot" + (selected ? " selected" : "") + (preview === f ? " previewed" : ""), transform: `translate(${pt[0]},${pt[1]})`,
      tabindex: 0, role: "button", "data-feature": f, "aria-pressed": selected ? "true" : "false",
      "aria-label": t("board.putMeeple", { feature: featureName(app.tiles[d.tile], f, p.rot, true) }),
    }, g);
    el("circle", { r: Math.min(hitR, gap - 1), class: "spot-hit" }, s);
    el("circle", { r: Math.min(ringR, gap / 2), class: "spot-ring" }, s);
    if (selected) drawMeeple(s, app.seat, [0, 0], p.meeple.kind === "large", isField(d.tile, f));
    spotEvents(s, f);
  }
  // Confirm on the board, right under the tile: one Tab after the spots, one tap on a phone
  const ok = el("g", {
    class: "board-confirm", transform: `translate(${T / 2},${T + hitR + 4})`, tabindex: 0, role: "button",
    "aria-label": t("turn.confirm"),
  }, g);
  el("circle", { r: hitR, class: "board-confirm-ring" }, ok);
  el("path", { d: "M-9,0 L-3,7 L9,-7", class: "board-confirm-tick", transform: `scale(${(hitR / 16).toFixed(2)})` }, ok);
  activate(ok, () => confirm());
  if (preview) showSpot(preview);
  if (!p.meeple) {
    for (const e of entry.escapes) {
      const b = d.board[e.x + "," + e.y];
      if (!b) continue;
      const pt = rotatePoint(featureSpots(b.tile, app.tiles[b.tile])[e.feature] || [50, 50], b.rot);
      const selected = p.escape && p.escape.x === e.x && p.escape.y === e.y && p.escape.feature === e.feature;
      const s = el("g", {
        class: "escape-spot" + (selected ? " selected" : ""), transform: `translate(${e.x * T + pt[0]},${e.y * T + pt[1]})`,
        tabindex: 0, role: "button", "aria-pressed": selected ? "true" : "false", "data-at": `${e.x},${e.y},${e.feature}`,
        "aria-label": t("board.letEscape", { at: atWords(e.x, e.y) }),
      }, markG);
      el("circle", { r: 16, class: "escape-ring" }, s);
      activate(s, () => chooseEscape(e));
    }
  }
}

// A meeple spot: hover or focus shows the feature it claims across the board (with the pending
// tile), who holds it and what it would score now. Enter takes the spot and confirms (as the
// board's label says), Space takes or changes it; a click takes it, but on a touch screen the
// first tap only shows the feature and the second takes it.
let preview = null;
let touched = false;

function spotEvents(s, f) {
  s.addEventListener("pointerdown", (e) => (touched = e.pointerType === "touch"));
  s.addEventListener("mouseenter", () => showSpot(f));
  s.addEventListener("focus", () => showSpot(f));
  s.addEventListener("mouseleave", hideSpot);
  s.addEventListener("blur", hideSpot);
  s.addEventListener("click", (e) => {
    e.stopPropagation();
    const p = app.pending;
    if (touched && preview !== f && !(p && p.meeple && p.meeple.feature === f)) {
      preview = f;
      render();
      return;
    }
    preview = null;
    chooseMeeple(f);
  });
  s.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault();
    e.stopPropagation();
    const p = app.pending;
    if (e.key === " ") return chooseMeeple(f);
    if (!(p && p.meeple && p.meeple.feature === f)) {
      const me = app.doc.seats[app.seat];
      p.meeple = { feature: f, kind: me.meeples > 0 ? "normal" : "large" };
      p.escape = null;
    }
    confirm();
  });
}

// The board with the pending tile on it (it is not placed yet).
function boardWithPending() {
  const p = app.pending;
  const board = Object.assign({}, app.doc.board);
  if (p) board[p.x + "," + p.y] = { tile: app.doc.tile, rot: p.rot, meeple: p.meeple };
  return board;
}

function featureInfo() {
  let n = $("feature-info");
  if (!n) {
    n = document.createElement("p");
    n.id = "feature-info";
    n.className = "feature-info";
    n.setAttribute("role", "status");
    n.hidden = true;
    $("board").after(n);
  }
  return n;
}

// Shows the feature of the pending tile's segment f; returns what highlightFeature found.
function showSpot(f) {
  const p = app.pending;
  if (!p) return null;
  const board = boardWithPending();
  const layer = $("world").querySelector(".pending .hl-slot");
  if (!layer) return null;
  const hl = highlightFeature(layer, board, app.tiles, p.x, p.y, f);
  if (hl) describeFeature(hl, featureName(app.tiles[app.doc.tile], f, p.rot, false));
  return hl;
}

function describeFeature(hl, name) {
  const info = featureInfo();
  info.textContent = t("hl.info", {
    feature: capital(name), tiles: new Set(hl.cells.map((c) => c.x + "," + c.y)).size,
    owners: hl.owners.length ? listText(hl.owners.map(who)) : t("hl.nobody"),
    score: hl.points === null ? t("hl.field") : t("hl.points", { points: hl.points }),
  });
  info.hidden = false;
}

function hideSpot() {
  if (preview) return;
  clearHighlight();
  featureInfo().hidden = true;
}

// For other modules (the events log): shows the feature of the placed tile (x, y) and its
// segment on the room's board; clearFeature() takes it away.
let shownAt = null; // {x, y, segment} of the placed feature shown, or null

export function showFeature(x, y, segment) {
  shownAt = { x, y, segment };
  const layer = $("world").querySelector(".marks") || $("world");
  const b = app.doc && app.doc.board[x + "," + y];
  const hl = b ? highlightFeature(layer, app.doc.board, app.tiles, x, y, segment) : null;
  if (hl) describeFeature(hl, featureName(app.tiles[b.tile], segment, b.rot, false));
  return hl;
}

export function clearFeature() {
  shownAt = null;
  clearHighlight();
  featureInfo().hidden = true;
}

// Makes a node (an events log line of a scoring) show its feature while hovered or focused.
export function hoverFeature(node, x, y, segment) {
  node.addEventListener("mouseenter", () => showFeature(x, y, segment));
  node.addEventListener("focus", () => showFeature(x, y, segment));
  node.addEventListener("mouseleave", clearFeature);
  node.addEventListener("blur", clearFeature);
}

// A placed tile shows the feature under the pointer (mouse or pen: on hover; touch: a tap, as
// a tap has nothing else to do there), with its holders and its points now. A meeple spot's
// feature, shown by a first tap, keeps the board until it is taken or another tap.
function placedFeatureAt(e) {
  const g = e.target && e.target.closest ? e.target.closest("#world .placed") : null;
  const b = g && app.doc && app.doc.board[g.dataset.pos];
  const m = b && app.tiles[b.tile] && g.getScreenCTM();
  if (!m) return null;
  const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
  const segment = segmentAtPoint(b.tile, app.tiles[b.tile], rotatePoint([pt.x, pt.y], (360 - b.rot) % 360));
  const [x, y] = g.dataset.pos.split(",").map(Number);
  return segment ? { x, y, segment } : null;
}

function pointPlaced(e) {
  if (preview) return;
  const at = placedFeatureAt(e);
  const same = at && shownAt && at.x === shownAt.x && at.y === shownAt.y && at.segment === shownAt.segment;
  if (same) return;
  if (at) showFeature(at.x, at.y, at.segment);
  else if (shownAt) clearFeature();
}

$("board").addEventListener("pointermove", (e) => {
  if (e.pointerType !== "touch" && e.buttons === 0) pointPlaced(e);
});
$("board").addEventListener("pointerleave", (e) => {
  if (e.pointerType !== "touch" && shownAt) clearFeature();
});
$("board").addEventListener("click", (e) => {
  if (e.pointerType === "touch") pointPlaced(e);
});

// The distance from spot f to the nearest other spot of the placed tile (99 when alone).
function spotGap(spots, names, f) {
  const a = spots[f] || [50, 50];
  let d = 99;
  for (const g of names) if (g !== f) d = Math.min(d, Math.hypot(a[0] - (spots[g] || [50, 50])[0], a[1] - (spots[g] || [50, 50])[1]));
  return d;
}

function isField(id, feature) {
  const tile = app.tiles[id];
  const s = tile && tile.segments.find((x) => x.name === feature);
  return !!s && s.kind === "field";
}

// Fits the placed tiles and the legal positions into the view (unless the user moved it).
export function fitBoard(force) {
  const d = app.doc;
  if (!d) return;
  let x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  const cells = Object.keys(d.board).map((k) => k.split(",").map(Number));
  if (myTurn()) for (const l of legalList() || []) cells.push([l.x, l.y]);
  for (const [x, y] of cells) {
    x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
  }
  // too big to show whole at a readable size: follow the pending tile, else the last placed one
  // (or, on our turn, the legal square nearest to it, so that one can always be reached)
  const p = app.pending;
  // while placing, close spots are drawn big enough to hit (13 px from each to the next)
  const entry = p ? pendingEntry() : null;
  let floor = 0;
  if (entry && entry.meeples.length > 1) {
    const spots = featureSpots(d.tile, app.tiles[d.tile]);
    const gap = Math.min(...entry.meeples.map((f) => spotGap(spots, entry.meeples, f)));
    floor = Math.min(1, 13 / Math.max(1, gap - 1));
  }
  view.floor = floor;
  const lastKey = Object.keys(d.board).slice(-1)[0];
  let focus = p ? [p.x, p.y] : lastKey ? lastKey.split(",").map(Number) : [0, 0];
  const legal = !p && myTurn() ? legalList() || [] : [];
  if (legal.length) {
    const d2 = (l) => (l.x - focus[0]) ** 2 + (l.y - focus[1]) ** 2;
    const near = legal.reduce((a, b) => (d2(b) < d2(a) ? b : a));
    focus = [near.x, near.y];
  }
  view.fit(x0 - 1, y0 - 1, x1 + 1, y1 + 1, force, focus);
}

function tileLabel(b, x, y) {
  const tile = app.tiles[b.tile];
  const p = { tile: tileName(tile), rot: b.rot, where: placeWords(x, y) };
  let s = t(x || y ? "board.tile" : "board.startTile", p);
  if (b.meeple) {
    s += t("board.tileMeeple", {
      player: who(b.meeple.player), meeple: t(b.meeple.kind === "large" ? "meeple.large" : "meeple.normal"),
      figure: featureRole(tile, b.meeple.feature), where: featureWhere(tile, b.meeple.feature, b.rot),
    });
  }
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
  preview = null;
  if (view.s < view.minScale()) {
    // zoomed out by hand: come in to a readable size around the tile, so its spots can be hit
    view.s = view.minScale();
    view.centre(x, y);
  }
  render();
  focusBoardItem(".pending .spot") || focusBoardItem(".pending .board-confirm") || $("confirm-btn").focus();
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

// R or Rotate: the next legal rotation of the pending tile, or of the tile to place. The focus
// stays where it was on the board (the same square, or the board), never on the page's body.
export function rotate() {
  if (!myTurn()) return;
  const a = document.activeElement;
  const onBoard = a && $("board").contains(a);
  const at = onBoard && a.dataset && a.dataset.x !== undefined ? `.legal[data-x="${a.dataset.x}"][data-y="${a.dataset.y}"]` : null;
  rotateTile();
  if (!onBoard) return;
  if (!(at && focusBoardItem(at)) && !focusBoardItem(".pending .spot") && !focusBoardItem(".pending .board-confirm")) $("board").focus();
}

function rotateTile() {
  const p = app.pending;
  if (p) {
    const rots = legalAt(p.x, p.y).map((l) => l.rot).sort((a, b) => a - b);
    if (rots.length < 2) return;
    p.rot = rots[(rots.indexOf(p.rot) + 1) % rots.length];
    app.rot = p.rot;
    p.meeple = null;
    p.escape = null;
    preview = null;
  } else {
    app.rot = (app.rot + 90) % 360;
  }
  render();
}

export function undo() {
  if (!app.pending) return;
  app.pending = null;
  preview = null;
  render();
  $("board").focus();
}

export async function confirm() {
  const p = app.pending;
  if (!p || !myTurn()) return;
  const msg = { type: "play", tile: app.doc.tile, x: p.x, y: p.y, rot: p.rot, meeple: p.meeple, escape: p.escape };
  $("confirm-btn").disabled = true;
  const r = await hooks.conn.request(msg);
  if (showReplyError(r)) render();
}

// Every legal placement as a list of buttons, for a screen reader (visually hidden until the
// focus is in it); the meeple spots are the choices' buttons once the tile is placed.
function renderPlaceList() {
  let box = $("place-list");
  if (!box) {
    box = document.createElement("div");
    box.id = "place-list";
    box.className = "place-list";
    $("choices").after(box);
  }
  box.replaceChildren();
  const legal = myTurn() && !app.pending ? legalList() : null;
  if (!legal || !legal.length) return;
  const h = document.createElement("p");
  h.textContent = t("turn.listTitle");
  const ul = document.createElement("ul");
  for (const l of legal) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t("turn.placeAt", { where: l.x || l.y ? placeWords(l.x, l.y) : t("board.here"), rot: l.rot });
    b.addEventListener("click", () => {
      app.rot = l.rot;
      choosePosition(l.x, l.y);
    });
    li.append(b);
    ul.append(li);
  }
  box.append(h, ul);
}

// Says each new turn once to a screen reader: its number, the mover and the drawn tile (the
// turn text says what to do, the events log each scoring).
let announced = null;
function announceTurn(d, tile) {
  let live = $("board-live");
  if (!live) {
    live = document.createElement("p");
    live.id = "board-live";
    live.className = "sr";
    live.setAttribute("aria-live", "polite");
    $("turn-text").before(live);
  }
  const key = d.room + ":" + d.turn + ":" + d.current + ":" + currentLanguage(); // said again in a new language
  if (key === announced) return;
  announced = key;
  live.textContent = t("live.turn", { turn: d.turn + 1, player: who(d.current), tile: tileName(tile) });
}

export function renderTurn() {
  const d = app.doc;
  const text = $("turn-text");
  const drawn = $("drawn");
  drawn.replaceChildren();
  const choices = $("choices");
  choices.replaceChildren();
  $("confirm-btn").disabled = !(myTurn() && app.pending);
  $("undo-btn").disabled = !app.pending;
  $("rotate-btn").disabled = !myTurn();
  // a spectator has no tile to turn, place or take back
  $("rotate-btn").parentElement.hidden = app.seat === null;
  const note = $("turn-note");
  note.hidden = true;
  renderPlaceList();
  if (d.phase === "over") {
    text.textContent = t("turn.over");
    return;
  }
  if (d.phase !== "playing") return;
  const tile = app.tiles[d.tile];
  const cur = d.seats[d.current] || {};
  announceTurn(d, tile);
  if (myTurn()) {
    const legal = legalList();
    // when no square takes the tile as it is turned, the text says so (none is highlighted)
    const p = { tile: tileName(tile) };
    if (app.pending) text.textContent = t("turn.meeple");
    else if (!legal) text.textContent = t("turn.yours", p);
    else if (legal.some((l) => l.rot === app.rot)) text.textContent = t("turn.yoursShown", p);
    else text.textContent = t("turn.yoursRotate", p);
  } else if (cur.bot) {
    text.textContent = t("turn.botThinking", { player: who(d.current) });
  } else if (cur.autoplay) {
    text.textContent = d.current === app.seat ? t("turn.botForYou") : t("turn.botFor", { player: who(d.current) });
  } else {
    text.textContent = t("turn.placing", { player: who(d.current) });
  }
  if (cur.taken && !cur.connected && !cur.bot && !cur.autoplay && !d.clock && d.current !== app.seat) {
    // PROTOCOL.md "Takeover": without a clock a bot takes over after the server's takeover
    // grace (60 s by default, which the client is not told)
    note.textContent = t("turn.offline", { player: who(d.current) });
    note.hidden = false;
  }
  const svg = el("svg", { viewBox: "0 0 100 100", width: 96, height: 96 }, drawn);
  drawTile(d.tile, tile, app.pending ? app.pending.rot : app.rot, svg);
  drawn.setAttribute("title", tileName(tile));
  if (!myTurn() || !app.pending) return;
  const entry = pendingEntry();
  if (!entry) return;
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
    h.textContent = t(me.large ? "turn.meeplesLarge" : "turn.meeples", { count: me.meeples });
    choices.append(h);
    mk(t("turn.noMeeple"), !p.meeple, () => {
      p.meeple = null;
      render();
    }, "no-meeple");
    for (const f of entry.meeples) {
      if (me.meeples > 0) {
        mk(capital(featureName(tile, f, p.rot, true)), p.meeple && p.meeple.feature === f && p.meeple.kind === "normal", () => {
          p.meeple = { feature: f, kind: "normal" };
          p.escape = null;
          render();
        });
      }
      if (me.large > 0) {
        mk(t("turn.largeMeeple", { feature: featureName(tile, f, p.rot, true) }), p.meeple && p.meeple.feature === f && p.meeple.kind === "large", () => {
          p.meeple = { feature: f, kind: "large" };
          p.escape = null;
          render();
        });
      }
    }
  }
  if (entry.escapes.length && !p.meeple) {
    const h = document.createElement("p");
    h.textContent = t("turn.escapeInstead");
    choices.append(h);
    for (const e of entry.escapes) {
      mk(t("turn.escape", { at: atWords(e.x, e.y) }), p.escape && p.escape.x === e.x && p.escape.y === e.y && p.escape.feature === e.feature, () => chooseEscape(e));
    }
  }
}
