// scoring.js: scoring drawn on the room's board. A score (or barn) event outlines its whole
// feature in the scorer's colour, floats "+N" over it and lifts the meeples that go home; an
// opponent's tile lands with a short motion; the end-of-game scoring is played back feature by
// feature (skippable) before the end screen. Everything lives in one persistent <g class="fx">
// that turn.js puts back on top of the board after each redraw; nothing here changes the state.
import { PLAYER_COLOURS, T, drawMeeple, el, featureSpots, rotatePoint } from "./board.js";
import { STEP, cellTiles, segmentSides, traceFeature } from "./features.js";
import { $, app } from "./app.js";
import { t } from "./i18n.js";

const LIVE_MS = 2600; // a scoring during the game stays this long
const FINAL_MS = 1300; // each feature of the end-of-game scoring, at most...
const FINAL_TOTAL_MS = 9000; // ...and the whole playback at most this long
const LAND_MS = 450; // an opponent's tile landing

export const fx = {
  layer: null, // <g class="fx">, created on first use
  landing: null, // {key, t0}: the tile being animated
  playing: null, // {events, i, timer, done} while the end-of-game scoring plays
};

// The layer, for turn.js to append after it redraws the world.
export function fxLayer() {
  if (!fx.layer) fx.layer = el("g", { class: "fx", "aria-hidden": "true" });
  return fx.layer;
}

// Where the feature is drawn on one tile: polygons and strokes in tile units (0..100).
const CORNERS = { N: [[0, 0], [100, 0]], E: [[100, 0], [100, 100]], S: [[100, 100], [0, 100]], W: [[0, 100], [0, 0]] };
const MID = { N: [50, 0], E: [100, 50], S: [50, 100], W: [0, 50] };
const HALF_CORNER = { Nw: [0, 0], Ne: [100, 0], En: [100, 0], Es: [100, 100], Se: [100, 100], Sw: [0, 100], Ws: [0, 100], Wn: [0, 0] };

function drawCell(g, tile, rot, segName, colour) {
  const seg = segName && tile ? tile.segments.find((s) => s.name === segName) : null;
  if (!seg || seg.kind === "cloister") {
    el("rect", { x: 4, y: 4, width: 92, height: 92, rx: 6, class: "fx-area", fill: colour }, g);
    return;
  }
  const sides = segmentSides(seg, rot);
  if (seg.kind === "road") {
    const d = sides.map((e) => `M${MID[e][0]},${MID[e][1]} L50,50`).join(" ");
    el("path", { d, class: "fx-road", stroke: colour }, g);
    return;
  }
  for (const side of sides) {
    const pts = seg.kind === "field" ? [HALF_CORNER[side], MID[side[0]], [50, 50]] : [...CORNERS[side], [50, sides.length === 1 ? 36 : 50]];
    el("polygon", { points: pts.map((p) => p.join(",")).join(" "), class: "fx-area", fill: colour }, g);
  }
}

// The outline of a set of cells: every cell side without a neighbour in the set.
function outlinePath(cells) {
  const keys = new Set(cells.map((c) => c.x + "," + c.y));
  let d = "";
  for (const k of keys) {
    const [x, y] = k.split(",").map(Number);
    for (const e of ["N", "E", "S", "W"]) {
      const [dx, dy] = STEP[e];
      if (keys.has(x + dx + "," + (y + dy))) continue;
      const [a, b] = CORNERS[e];
      d += `M${x * T + a[0]},${y * T + a[1]} L${x * T + b[0]},${y * T + b[1]} `;
    }
  }
  return d;
}

// The outline of a "+N" in a seat's colour: white or near-black, whichever contrasts more
// (WCAG's ratio; at least 4.5:1 for every seat colour: style.css .ink-light, .ink-dark).
function luminance(hex) {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r, g, b] = c.map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
export function inkFor(hex) {
  const l = luminance(hex);
  const onWhite = 1.05 / (l + 0.05);
  const onDark = (l + 0.05) / (luminance("#111111") + 0.05);
  return onWhite >= onDark ? "ink-light" : "ink-dark";
}

function meepleSpot(b, feature) {
  const sp = featureSpots(b.tile, app.tiles[b.tile])[feature] || [50, 50];
  return rotatePoint(sp, b.rot);
}

// Draws one scoring event. before: "x,y" -> meeple of the board before the move (the placed
// tile's own meeple comes from `placed`). Returns the group, removed after ms.
function drawScore(ev, before, placed, ms, final) {
  const board = app.doc.board;
  const cells = traceFeature(board, app.tiles, ev.type === "barn" ? "barn" : ev.feature, ev.x, ev.y, ev.segment);
  const scorers = ev.scorers || [];
  const colour = scorers.length ? PLAYER_COLOURS[scorers[0] % 6] : "#777777";
  const g = el("g", {
    class: "score-fx" + (final ? " final" : ""), "data-feature": ev.type === "barn" ? "barn" : ev.feature,
    "data-tiles": cellTiles(cells), "data-x": ev.x, "data-y": ev.y,
  }, fxLayer());
  const areas = el("g", { class: "fx-areas" }, g);
  for (const c of cells) {
    const b = board[c.x + "," + c.y];
    const cg = el("g", { transform: `translate(${c.x * T},${c.y * T})`, class: "fx-cell", "data-pos": c.x + "," + c.y }, areas);
    drawCell(cg, app.tiles[b.tile], b.rot, c.segment, colour);
  }
  const d = outlinePath(cells);
  el("path", { d, class: "fx-outline-under" }, g);
  el("path", { d, class: "fx-outline", stroke: colour }, g);
  // the meeples that go home rise and fade from where they stood
  for (const c of cells) {
    const key = c.x + "," + c.y;
    const m = before[key] || (placed && placed.meeple && placed.x === c.x && placed.y === c.y ? { ...placed.meeple, player: placed.player } : null);
    if (!m || m.feature !== c.segment || !(ev.returned || [])[m.player]) continue;
    const p = meepleSpot(board[key], m.feature);
    const mg = el("g", { transform: `translate(${c.x * T + p[0]},${c.y * T + p[1]})`, class: "meeple-home" }, g);
    drawMeeple(mg, m.player, [0, 0], m.kind === "large");
    mg.animate([{ transform: `translate(${c.x * T + p[0]}px,${c.y * T + p[1]}px)`, opacity: 1 },
      { transform: `translate(${c.x * T + p[0]}px,${c.y * T + p[1] - 60}px)`, opacity: 0 }],
    { duration: Math.min(ms, 1400), delay: 300, fill: "forwards", easing: "ease-in" });
  }
  // "+N" over the middle of the feature, one per scorer
  if (cells.length && scorers.length) {
    const cx = cells.reduce((s, c) => s + c.x, 0) / cells.length;
    const cy = cells.reduce((s, c) => s + c.y, 0) / cells.length;
    scorers.forEach((seat, i) => {
      const x = cx * T + T / 2 + (i - (scorers.length - 1) / 2) * 70;
      const fill = PLAYER_COLOURS[seat % 6];
      const txt = el("text", { x, y: cy * T + T / 2, class: "score-points " + inkFor(fill), fill, "data-seat": seat }, g);
      txt.textContent = "+" + ((ev.delta || [])[seat] ?? ev.points);
      txt.animate([{ transform: "translate(0px,12px)", opacity: 0.7 }, { transform: "translate(0px,-25px)", opacity: 1 }],
        { duration: 500, fill: "forwards", easing: "ease-out" });
    });
  }
  g.animate([{ opacity: 1 }, { opacity: 1, offset: 0.8 }, { opacity: 0 }], { duration: ms, fill: "forwards" });
  setTimeout(() => g.remove(), ms);
  return g;
}

// The meeples of the board, "x,y" -> meeple, before a delta is applied.
export function boardMeeples(doc) {
  const out = {};
  if (doc) for (const k in doc.board) if (doc.board[k].meeple) out[k] = doc.board[k].meeple;
  return out;
}

// After a delta was applied and drawn: its scoring, the landing of an opponent's tile, and the
// end-of-game playback when the final events are in it (done() then shows the end screen).
export function scoringShow(events, before, done) {
  const placed = events.find((e) => e.type === "placed");
  if (placed && placed.player !== app.seat) fx.landing = { key: placed.x + "," + placed.y, t0: performance.now() };
  const live = events.filter((e) => (e.type === "score" || e.type === "barn") && !e.final);
  for (const ev of live) drawScore(ev, before, placed, LIVE_MS, false);
  const finals = events.filter((e) => (e.type === "score" || e.type === "barn") && e.final);
  if (finals.length && done) playFinals(finals, before, placed, done);
  else if (done) done();
}

// Re-applies the landing motion to the tile just drawn (turn.js calls it after each redraw, so
// a redraw in the middle of the motion continues it instead of restarting it).
export function scoringLanding(world) {
  const l = fx.landing;
  if (!l) return;
  const t = performance.now() - l.t0;
  if (t >= LAND_MS) {
    fx.landing = null;
    return;
  }
  const g = world.querySelector(`.placed[data-pos="${l.key}"] > .tile`);
  if (!g) return;
  g.classList.add("landing");
  const a = g.animate([{ transform: "translate(-14px,-22px) scale(1.28)", opacity: 0.35 }, { transform: "none", opacity: 1 }],
    { duration: LAND_MS, easing: "ease-out" });
  a.currentTime = t;
}

function skipButton() {
  let b = $("skip-scoring");
  if (!b) {
    b = document.createElement("button");
    b.type = "button";
    b.id = "skip-scoring";
    b.className = "skip-scoring";
    b.dataset.i18n = "board.skipScoring"; // i18n.js says it again in another language
    b.textContent = t(b.dataset.i18n);
    b.addEventListener("click", () => scoringSkip());
    $("board").parentElement.append(b);
  }
  return b;
}

function playFinals(events, before, placed, done) {
  scoringSkip(); // a playback already running ends first
  const step = Math.max(350, Math.min(FINAL_MS, FINAL_TOTAL_MS / events.length));
  const p = { events, i: 0, timer: null, done, shown: null };
  fx.playing = p;
  skipButton().hidden = false;
  const next = () => {
    if (p.shown) p.shown.remove();
    if (p.i >= events.length) return scoringSkip();
    const ev = events[p.i++];
    p.shown = drawScore(ev, before, placed, step + 200, true);
    p.timer = setTimeout(next, step);
  };
  next();
}

// True while the end-of-game scoring plays (the end screen waits for it).
export function scoringPlaying() {
  return fx.playing !== null;
}

// Ends the playback now (the Skip button, leaving the room) and runs its done().
export function scoringSkip() {
  const p = fx.playing;
  if (!p) return;
  fx.playing = null;
  clearTimeout(p.timer);
  if (p.shown) p.shown.remove();
  const b = $("skip-scoring");
  if (b) b.hidden = true;
  p.done();
}

// Forgets everything drawn (entering another room).
export function scoringClear() {
  fx.landing = null;
  if (fx.playing) {
    fx.playing.done = () => {};
    scoringSkip();
  }
  if (fx.layer) fx.layer.replaceChildren();
}
