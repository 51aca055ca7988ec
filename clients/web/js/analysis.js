// analysis.js: the post-game analysis in the replay (PROTOCOL.md "Game analysis"; README
// "Analysis"). replay.js imports it when a replay opens, so the page's first load does not carry
// it; it loads analysis.css itself. attach(replay) asks GET /api/games/{id}/analysis: a 200 is
// shown at once; a 404 whose status is "queued" or "running" shows "Rated k of n moves" and asks
// again every second; otherwise the Analyse button posts the request (202, then the same
// polling; 200 when it was stored meanwhile). The document shown gives:
// - a summary: one sentence on luck and play from the players' `luck` and `loss` differences,
//   and a table per player (accuracy, the count of each class, luck, points lost);
// - the evaluation chart (two players: player 0's winning chance after each rated move, `win`
//   when player 0 moved, 1 - `win` otherwise; three or more: each mover's `margin`) and the luck
//   chart (each move's `luck`, a bar in the mover's colour); a click on either goes to the move
//   nearest it across;
// - the move list: a button per move with its number, the mover's shape and the class's mark
//   (its name for screen readers and in the title), one tab stop (arrows, Home and End move);
// - for the replay's current move: its class and loss in words, and, when the best move found
//   is not the one played, that move as a faded tile on the board with its meeple.
import { T, el, drawMeeple, drawTile, featureSpots, playerBadge, rotatePoint, shape, PLAYER_COLOURS } from "./board.js";
import { formatNumber, locale, signed, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const CLASSES = ["best", "good", "inaccuracy", "mistake", "blunder"];
const MARKS = { best: "★", good: "✓", inaccuracy: "?!", mistake: "?", blunder: "??" };
const DASH = ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 4"]; // chart.js's, per seat
const POLL_MS = 1000;
const L = 40, R = 12; // the charts' margins left (for the ticks) and right

let current = null; // the open replay's: {replay, rec, id, doc, timer, say: the status line}

function url(id) {
  return "/api/games/" + encodeURIComponent(id) + "/analysis";
}

// The section under the replay's move (once per page): the button and its status, the summary,
// the charts and the move list; and the current move's line inside #replay-now.
// i18n-keys: analysis.title analysis.analyse analysis.moves
function setup() {
  if ($("analysis")) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("../analysis.css", import.meta.url).href;
  document.head.append(link);
  const sec = document.createElement("section");
  sec.id = "analysis";
  sec.className = "analysis";
  sec.setAttribute("aria-labelledby", "an-h");
  sec.innerHTML = `<h3 id="an-h" class="replay-sub" tabindex="-1" data-i18n="analysis.title"></h3>
<p class="an-ask"><button type="button" id="an-go" data-i18n="analysis.analyse"></button> <span id="an-status" role="status"></span></p>
<div id="an-body" hidden>
<p id="an-verdict" class="an-verdict"></p>
<table id="an-summary" class="an-summary"></table>
<h4 id="an-win-h" class="an-h"></h4><div id="an-win" class="an-chart"></div>
<h4 id="an-luck-h" class="an-h" data-i18n="analysis.luckChart"></h4><div id="an-luck" class="an-chart"></div>
<h4 id="an-moves-h" class="an-h" data-i18n="analysis.moves"></h4><ol id="an-moves" class="an-moves" aria-labelledby="an-moves-h"></ol>
</div>`;
  for (const e of sec.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  const chartH = $("replay-chart").previousElementSibling; // "Scores per move"
  chartH.before(sec);
  const line = document.createElement("p");
  line.id = "an-move";
  line.className = "an-move";
  $("replay-now").append(line);
  $("an-go").addEventListener("click", request);
  $("an-moves").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-move]");
    if (b) goMove(Number(b.dataset.move), false);
  });
  $("an-moves").addEventListener("keydown", listKey);
  for (const id of ["an-win", "an-luck"]) $(id).addEventListener("click", chartClick);
}

// Starts the analysis part of a replay just opened (replay.rec, replay.id).
export function attach(replay) {
  setup();
  if (current) clearTimeout(current.timer);
  current = { replay, rec: replay.rec, id: replay.id, doc: null, timer: null, say: () => "" };
  replay.onDraw = () => drawMove();
  replay.onRelabel = () => relabel();
  $("an-body").hidden = true;
  $("an-go").hidden = true;
  $("an-go").disabled = false;
  status(() => "");
  drawMove();
  ask(current, false);
}

function live(cur) {
  return cur === current && cur.replay.rec === cur.rec;
}

function status(say) {
  current.say = say;
  $("an-status").textContent = say();
}

// GET: the document, or where the analysis is; polls while it is queued or running.
async function ask(cur, again) {
  let res;
  let body = null;
  try {
    res = await fetch(url(cur.id), again ? { cache: "no-store" } : {});
    body = await res.json().catch(() => null);
  } catch (e) {
    res = null;
  }
  if (!live(cur)) return;
  if (res && res.ok && body) return show(body);
  if (res && res.status === 404 && body && (body.status === "queued" || body.status === "running")) return progress(cur, body);
  if (again && !res) return poll(cur); // a dropped poll: the analysis goes on at the server
  if (again) status(() => ""); // no longer queued (the server restarted): no stale progress
  $("an-go").hidden = false; // none yet, or the server does not say: the button asks for it
  $("an-go").disabled = false;
}

// "Rated k of n moves…"; "Waiting…" while queued with none done, or while the server has not
// read the record yet (`moves` 0: it does not know n).
function progress(cur, p) {
  $("an-go").hidden = true;
  const done = Number(p.done) || 0;
  const moves = Number(p.moves) || 0;
  status(() => ((p.status === "queued" && !done) || !moves ? t("analysis.queued") : t("analysis.progress", { done, count: moves })));
  poll(cur);
}

function poll(cur) {
  clearTimeout(cur.timer);
  cur.timer = setTimeout(() => {
    // stop when the replay is left; opening it again attaches again
    if (live(cur) && !$("replay-view").hidden) ask(cur, true);
  }, POLL_MS);
}

// The Analyse button: POST, then the document (200) or the polling (202).
async function request() {
  const cur = current;
  const btn = $("an-go");
  const had = document.activeElement === btn; // before it is disabled, which may blur it
  btn.disabled = true;
  status(() => t("analysis.queued"));
  let res = null;
  let body = null;
  let err = "";
  try {
    res = await fetch(url(cur.id), { method: "POST" });
    body = await res.json().catch(() => null);
  } catch (e) {
    err = e.message;
  }
  if (!live(cur)) return;
  if (res && res.status === 200 && body) {
    show(body);
  } else if (res && res.status === 202) {
    progress(cur, body || { status: "queued", done: 0, moves: 0 });
  } else {
    btn.disabled = false;
    const reason = body && body.error ? body.error : res ? "HTTP " + res.status : err;
    status(() => (res && res.status === 503 ? t("analysis.busy") : t("analysis.failed", { reason })));
    if (had) btn.focus();
    return;
  }
  if (had) $("an-h").focus(); // the button is gone: the focus goes to what replaced it
}

function show(doc) {
  const cur = current;
  if (!doc || doc.format !== "carcd-analysis/1" || !Array.isArray(doc.moves) || !Array.isArray(doc.players)) {
    $("an-go").hidden = false;
    status(() => t("analysis.failed", { reason: "format" }));
    return;
  }
  clearTimeout(cur.timer);
  cur.doc = doc;
  $("an-go").hidden = true;
  status(() => "");
  $("an-body").hidden = false;
  render();
  cur.replay.draw(); // the current move's line and ghost
}

function relabel() {
  $("an-status").textContent = current.say();
  for (const e of $("analysis").querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  if (current.doc) {
    render();
    markMove(); // the board was drawn already (replay.relabel draws before it calls this)
  }
}

function who(i) {
  return current.replay.who(i);
}

// Points rounded to one decimal, as the sentences say them.
function pts(x) {
  return Math.round(x * 10) / 10;
}

function render() {
  const doc = current.doc;
  renderVerdict(doc);
  renderSummary(doc);
  renderWin(doc);
  renderLuck(doc);
  renderMoves(doc);
}

// "Ann was 14 points luckier than Bob. Bob played 9 points better than Ann." From the players'
// luck and loss sums: the luckiest against the least lucky, the least loss against the most.
function renderVerdict(doc) {
  const ps = doc.players;
  const out = [];
  if (ps.length >= 2) {
    const by = (k, dir) => ps.reduce((a, p) => (dir * (p[k] - a[k]) > 0 ? p : a));
    const lucky = by("luck", 1), unlucky = by("luck", -1);
    const dl = Math.round(lucky.luck - unlucky.luck);
    out.push(dl ? t("analysis.luckier", { player: who(lucky.seat), other: who(unlucky.seat), count: dl }) : t("analysis.sameLuck"));
    const good = by("loss", -1), bad = by("loss", 1);
    const dp = Math.round(bad.loss - good.loss);
    out.push(dp ? t("analysis.better", { player: who(good.seat), other: who(bad.seat), count: dp }) : t("analysis.samePlay"));
  }
  $("an-verdict").textContent = out.join(" ");
}

function cell(tag, text, attrs) {
  const c = document.createElement(tag);
  if (text !== null) c.textContent = text;
  for (const k in attrs || {}) c.setAttribute(k, attrs[k]);
  return c;
}

// Rows: accuracy, each class, luck, points lost; a column per player (data-seat, data-key).
function renderSummary(doc) {
  const table = $("an-summary");
  table.replaceChildren();
  const head = document.createElement("tr");
  head.append(cell("td", null));
  for (const p of doc.players) {
    const th = cell("th", null, { scope: "col", "data-seat": p.seat });
    th.append(playerBadge(p.seat, 14), " " + who(p.seat));
    head.append(th);
  }
  table.append(cell("thead", null));
  table.tHead.append(head);
  const body = cell("tbody", null);
  const row = (key, label, value) => {
    const tr = cell("tr", null, { "data-key": key });
    tr.append(label);
    for (const p of doc.players) tr.append(cell("td", value(p), { "data-seat": p.seat, "data-key": key }));
    body.append(tr);
  };
  row("accuracy", cell("th", t("analysis.accuracy"), { scope: "row" }), (p) => formatNumber(p.accuracy));
  for (const c of CLASSES) {
    const th = cell("th", null, { scope: "row" });
    th.append(mark(c), " " + t(`analysis.class.${c}`));
    row(c, th, (p) => formatNumber((p.classes && p.classes[c]) || 0));
  }
  row("luck", cell("th", t("analysis.luck"), { scope: "row" }), (p) => signed(p.luck));
  row("loss", cell("th", t("analysis.loss"), { scope: "row" }), (p) => formatNumber(p.loss));
  table.append(body);
}

// A class's mark: a symbol on the class's colour, hidden from screen readers (its name is said).
function mark(c) {
  return cell("span", MARKS[c], { class: "an-mark", "data-class": c, "aria-hidden": "true" });
}

// The chart's frame: an SVG as wide as its box, with x for move index i (0..n-1).
function frame(box, label, n) {
  box.replaceChildren();
  const W = Math.max(300, Math.min(560, Math.round(box.clientWidth) || 560));
  const H = 180, TOP = 8, B = 26;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": label }, box);
  const sx = (i) => L + (n > 1 ? i / (n - 1) : 0.5) * (W - L - R);
  el("path", { d: `M${L},${TOP} V${H - B} H${W - R}`, class: "axis" }, svg);
  for (const i of [...new Set([0, Math.floor((n - 1) / 2), n - 1])]) {
    if (i >= 0) el("text", { x: sx(i), y: H - B + 15, class: "tick", "text-anchor": "middle" }, svg).textContent = formatNumber(i + 1);
  }
  svg.dataset.n = n;
  return { svg, W, H, L, R, TOP, B, sx, y: (v, lo, hi) => H - B - ((v - lo) / (hi - lo)) * (H - B - TOP) };
}

function yTicks(f, vals, lo, hi, text) {
  for (const v of vals) {
    el("line", { x1: f.L, x2: f.W - f.R, y1: f.y(v, lo, hi), y2: f.y(v, lo, hi), class: "grid" }, f.svg);
    el("text", { x: f.L - 4, y: f.y(v, lo, hi) + 4, class: "tick", "text-anchor": "end" }, f.svg).textContent = text(v);
  }
}

// The legend under a chart: each player's shape and name (the chart's label says the rest).
function legend(box, doc) {
  const ul = cell("ul", null, { class: "chart-legend", "aria-hidden": "true" });
  for (const p of doc.players) {
    const li = cell("li", null, { "data-seat": p.seat });
    const m = el("svg", { viewBox: "-8 -8 16 16", width: 14, height: 14 }, li);
    shape(m, p.seat, 6, { fill: PLAYER_COLOURS[p.seat % 6], class: "meeple-shape" });
    li.append(" " + who(p.seat));
    ul.append(li);
  }
  box.append(ul);
}

// Two players: player 0's winning chance after each rated move; three or more: each mover's
// expected margin. One point (circle.pt, data-move) per rated move, in the mover's colour and shape.
function renderWin(doc) {
  const box = $("an-win");
  const two = doc.players.length === 2;
  const label = two ? t("analysis.winChart", { player: who(0) }) : t("analysis.marginChart");
  $("an-win-h").textContent = label;
  const rated = doc.moves.filter((m) => m.class);
  const val = (m) => (two ? (m.player === 0 ? m.win : 1 - m.win) : m.margin);
  let lo = 0, hi = 1;
  if (!two) {
    hi = Math.max(10, ...rated.map((m) => Math.abs(m.margin)));
    hi = Math.ceil(hi / 5) * 5;
    lo = -hi;
  }
  const f = frame(box, label, doc.moves.length);
  const pct = new Intl.NumberFormat(locale(), { style: "percent" });
  yTicks(f, two ? [0, 0.5, 1] : [lo, 0, hi], lo, hi, (v) => (two ? pct.format(v) : v ? signed(v) : formatNumber(0)));
  el("line", { class: "now", y1: f.TOP, y2: f.H - f.B, x1: -10, x2: -10 }, f.svg);
  const lines = two ? [rated] : doc.players.map((p) => rated.filter((m) => m.player === p.seat));
  lines.forEach((ms, k) => {
    if (ms.length < 2) return;
    const points = ms.map((m) => `${f.sx(m.move).toFixed(1)},${f.y(val(m), lo, hi).toFixed(1)}`).join(" ");
    el("polyline", { points, class: "line", stroke: two ? "#555" : PLAYER_COLOURS[k % 6], "stroke-dasharray": two ? "" : DASH[k % 6] }, f.svg);
  });
  for (const m of rated) {
    const g = el("g", { class: "pt", "data-move": m.move, transform: `translate(${f.sx(m.move).toFixed(1)},${f.y(val(m), lo, hi).toFixed(1)})` }, f.svg);
    shape(g, m.player, 4.5, { fill: PLAYER_COLOURS[m.player % 6], class: "meeple-shape" });
  }
  legend(box, doc);
}

// Each move's luck (points: the drawn tile's value against the mean), a bar in the mover's colour.
function renderLuck(doc) {
  const box = $("an-luck");
  const ms = doc.moves;
  const hi = Math.ceil(Math.max(4, ...ms.map((m) => Math.abs(m.luck || 0))) / 2) * 2;
  const f = frame(box, t("analysis.luckChart"), ms.length);
  yTicks(f, [-hi, 0, hi], -hi, hi, (v) => (v ? signed(v) : formatNumber(0)));
  el("line", { class: "now", y1: f.TOP, y2: f.H - f.B, x1: -10, x2: -10 }, f.svg);
  const w = Math.max(1.5, Math.min(10, (f.W - f.L - f.R) / Math.max(1, ms.length) - 1));
  const y0 = f.y(0, -hi, hi);
  for (const m of ms) {
    if (!m.class || !m.luck) continue;
    const y = f.y(m.luck, -hi, hi);
    el("rect", {
      class: "bar", "data-move": m.move, x: (f.sx(m.move) - w / 2).toFixed(1), y: Math.min(y, y0).toFixed(1), width: w.toFixed(1),
      height: Math.max(0.5, Math.abs(y - y0)).toFixed(1), fill: PLAYER_COLOURS[m.player % 6],
    }, f.svg);
  }
  legend(box, doc);
}

// One button per move: its number, the mover's shape, and the class's mark with its name.
function renderMoves(doc) {
  const ol = $("an-moves");
  ol.replaceChildren();
  for (const m of doc.moves) {
    const li = cell("li", null, { "data-move": m.move });
    const label = m.class
      ? t("analysis.moveItem", { n: m.move + 1, player: who(m.player), class: t(`analysis.class.${m.class}`) })
      : t("analysis.moveSkip", { n: m.move + 1, player: who(m.player) });
    const b = cell("button", null, { type: "button", "data-move": m.move, tabindex: "-1", "aria-label": label, title: label });
    b.append(cell("span", formatNumber(m.move + 1), { class: "an-n" }), playerBadge(m.player, 12));
    if (m.class) b.append(mark(m.class));
    li.append(b);
    ol.append(li);
  }
}

// The analysed move at the replay's position: the one just played (none at the start and the end).
function moveAt() {
  const cur = current;
  const r = cur.replay;
  if (!cur.doc || r.n < 1 || r.n > r.rec.moves.length) return null;
  return cur.doc.moves[r.n - 1] || null;
}

// After every replay draw (which empties the board): the move's marks, and its ghost.
function drawMove() {
  const m = markMove();
  if (m && m.class && m.best && !m.best_is_played) drawGhost(m);
}

// The replay's move in the line under its events, on the charts and in the list; returns it.
function markMove() {
  const line = $("an-move");
  if (!current.doc) {
    line.textContent = "";
    return null;
  }
  const m = moveAt();
  const i = m ? m.move : -1;
  line.textContent = m && m.class ? moveText(m) : "";
  for (const id of ["an-win", "an-luck"]) {
    const svg = $(id).querySelector("svg");
    const now = svg && svg.querySelector(".now");
    if (!now) continue;
    const n = Number(svg.dataset.n);
    const W = svg.viewBox.baseVal.width;
    const x = i < 0 ? -10 : L + (n > 1 ? i / (n - 1) : 0.5) * (W - L - R);
    now.setAttribute("x1", x);
    now.setAttribute("x2", x);
  }
  // the list: the current move is the list's one tab stop (the first move at the start)
  const ol = $("an-moves");
  const stop = Math.max(0, Math.min(ol.children.length - 1, i < 0 ? (current.replay.n > 0 ? ol.children.length - 1 : 0) : i));
  for (const b of ol.querySelectorAll("button")) {
    const k = Number(b.dataset.move);
    b.tabIndex = k === stop ? 0 : -1;
    if (k === i) b.setAttribute("aria-current", "step");
    else b.removeAttribute("aria-current");
  }
  // the list's own box scrolls to the move (not the panel: the board may be what is watched)
  const li = ol.children[stop];
  if (li && (li.offsetTop < ol.scrollTop || li.offsetTop + li.offsetHeight > ol.scrollTop + ol.clientHeight)) {
    ol.scrollTop = li.offsetTop - ol.clientHeight / 2;
  }
  return m;
}

function moveText(m) {
  const c = t(`analysis.class.${m.class}`);
  const play = m.best_is_played ? t("analysis.played", { class: c }) : t("analysis.lostMove", { class: c, count: pts(m.loss_points) });
  return play + " " + t("analysis.moveLuck", { luck: signed(pts(m.luck)) });
}

// The best move found, faded, at best.x/best.y turned best.rot, with its meeple.
function drawGhost(m) {
  const r = current.replay;
  const tiles = r.getTiles();
  const id = (r.rec.moves[m.move] && r.rec.moves[m.move].tile) || m.tile;
  const tile = tiles[id];
  if (!tile) return;
  const b = m.best;
  const g = el("g", { class: "an-ghost", "data-ghost": b.x + "," + b.y, transform: `translate(${b.x * T},${b.y * T})`, opacity: "0.6" }, $("replay-world"));
  drawTile(id, tile, b.rot, g);
  el("rect", { x: 3, y: 3, width: T - 6, height: T - 6, class: "an-ghost-frame" }, g);
  if (b.meeple) {
    const sp = featureSpots(id, tile)[b.meeple.feature] || [50, 50];
    const seg = (tile.segments || []).find((s) => s.name === b.meeple.feature);
    const mg = el("g", { class: "an-ghost-meeple" }, g);
    drawMeeple(mg, m.player, rotatePoint(sp, b.rot), b.meeple.kind === "large", !!seg && seg.kind === "field");
  }
}

function goMove(i, focus) {
  current.replay.stop();
  current.replay.go(i + 1);
  if (focus) {
    const b = $("an-moves").querySelector(`button[data-move="${i}"]`);
    if (b) b.focus();
  }
}

function listKey(e) {
  const b = e.target.closest("button[data-move]");
  if (!b || !current.doc) return;
  const n = current.doc.moves.length;
  const i = Number(b.dataset.move);
  const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: n - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  e.stopPropagation();
  goMove(Math.max(0, Math.min(n - 1, to)), true);
}

// A click on a chart: the move nearest the click across (its points overlap on a narrow chart,
// so the one on top is not always the one meant).
function chartClick(e) {
  if (!current.doc) return;
  const svg = e.currentTarget.querySelector("svg");
  if (!svg) return;
  const box = svg.getBoundingClientRect();
  const W = svg.viewBox.baseVal.width;
  const x = ((e.clientX - box.left) * W) / box.width;
  const n = current.doc.moves.length;
  const i = Math.round(((x - L) / (W - L - R)) * (n - 1));
  goMove(Math.max(0, Math.min(n - 1, i)), false);
}
