// ranks.js: the player pages (PROTOCOL.md "Ratings"), not loaded by index.html:
//   players.html, served at /players/NAME: a player's (or a bot identity's) ratings per pool,
//     the rating history as a chart with a table of the same points (each game linked to its
//     replay), and the games' stats when GET /api/players/NAME has them;
//   ladder.html, served at /ladder: a pool's ladder (tabs 2p / multi), 50 players a page, "More".
// The page may be served under a cluster's /n/NODE/ prefix, so every address is relative: the
// API beside this module's folder (import.meta.url), the links as each page's HTML places them.
import { formatDate, formatNumber, hasKey, locale, onLanguageChange, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const api = (path) => new URL("../" + path, import.meta.url);
const SVG = "http://www.w3.org/2000/svg";
const POOLS = ["2p", "multi"];
const onLadder = !!$("ladder");
// Where the other pages are, seen from this page (players.html is one level down).
const up = onLadder ? "" : "../";

// A name as shown: a bot identity ("bot.strong") in the page's words, an account as it is.
// i18n-keys: bot.*
function shown(name) {
  const key = /^bot\.[a-z]+$/.test(name) ? name + ".seat" : null;
  return key && hasKey(key) ? t(key) : name;
}

function cell(tr, content, header) {
  const td = document.createElement(header ? "th" : "td");
  if (header) td.scope = "row";
  td.append(content);
  tr.append(td);
  return td;
}

function profileLink(name) {
  const a = document.createElement("a");
  a.href = up + "players/" + encodeURIComponent(name);
  a.textContent = shown(name);
  return a;
}

function provisional() {
  const s = document.createElement("span");
  s.className = "rank-prov";
  s.textContent = t("rank.provisional");
  return s;
}

// GET of an API path: {status, data} (status 0: no answer).
async function get(path) {
  try {
    const res = await fetch(api(path), { cache: "no-store" });
    return { status: res.status, data: await res.json().catch(() => ({})) };
  } catch (e) {
    return { status: 0, data: {} };
  }
}

// A refusal in words: the server without accounts, or anything else.
function failText(r) {
  if (r.data && r.data.error === "accounts_off") return t("acct.err.accounts_off");
  return t("rank.failed");
}

// ---------------------------------------------------------------------------------------------
// The profile

let player = null; // the last answer of GET /api/players/NAME
let playerState = "loading"; // loading, ok, none, error: [status, data]

function nameFromPath() {
  const m = /\/players\/([^/]+)$/.exec(location.pathname);
  if (!m) return null;
  try {
    const n = decodeURIComponent(m[1]);
    return /^[A-Za-z0-9_.-]{1,40}$/.test(n) ? n : null;
  } catch (e) {
    return null;
  }
}

// The rating history as a line chart, oldest game left; hidden from screen readers, who get the
// summary and the table under it (the same points).
// As wide as the page's column (300 to 560), so that its 12px text stays 12px on a phone.
function chart(box, points) {
  const W = Math.max(300, Math.min(560, Math.round($("player-pools").clientWidth) || 480));
  const H = 160;
  const L = 44;
  const R = 10;
  const T = 10;
  const B = 20;
  const ratings = points.map((p) => p.rating);
  let lo = Math.min(...ratings);
  let hi = Math.max(...ratings);
  if (hi - lo < 20) {
    lo -= 10;
    hi += 10;
  }
  const sx = (i) => L + (points.length === 1 ? (W - L - R) / 2 : (i / (points.length - 1)) * (W - L - R));
  const sy = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "rank-chart");
  svg.setAttribute("aria-hidden", "true");
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  add("path", { d: `M${L},${T} V${H - B} H${W - R}`, class: "axis" });
  for (const v of [hi, (hi + lo) / 2, lo]) add("text", { x: L - 4, y: sy(v) + 4, class: "tick", "text-anchor": "end" }, formatNumber(Math.round(v)));
  add("polyline", { points: points.map((p, i) => `${sx(i).toFixed(1)},${sy(p.rating).toFixed(1)}`).join(" "), class: "line" });
  points.forEach((p, i) => add("circle", { cx: sx(i).toFixed(1), cy: sy(p.rating).toFixed(1), r: 3 }));
  box.append(svg);
}

function poolSection(pool, p) {
  const sec = document.createElement("section");
  sec.className = "rank-pool";
  sec.dataset.pool = pool;
  const h = document.createElement("h2");
  h.id = "pool-h-" + pool;
  h.textContent = t("rank.pool." + pool);
  sec.setAttribute("aria-labelledby", h.id);
  const line = document.createElement("p");
  line.className = "rank-line";
  line.append(t("rank.line", { rating: Math.round(p.rating), deviation: Math.round(p.deviation), count: p.games }));
  if (p.provisional) line.append(" ", provisional());
  sec.append(h, line);
  const hist = Array.isArray(p.history) ? p.history : [];
  if (hist.length) {
    const oldest = hist.slice().reverse();
    const h3 = document.createElement("h3");
    h3.textContent = t("rank.history");
    const sum = document.createElement("p");
    sum.className = "rank-sum";
    sum.textContent = t("rank.trend", { first: Math.round(oldest[0].rating), last: Math.round(oldest[oldest.length - 1].rating), count: oldest.length });
    sec.append(h3, sum);
    chart(sec, oldest);
    const table = document.createElement("table");
    table.className = "rank-table";
    const head = table.createTHead().insertRow();
    for (const text of [t("games.col.finished"), t("rank.col.game"), t("rank.col.rating")]) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = text;
      head.append(th);
    }
    const body = table.createTBody();
    for (const g of hist) {
      const tr = body.insertRow();
      cell(tr, formatDate(new Date(g.time)));
      const a = document.createElement("a");
      a.href = up + "#replay=" + encodeURIComponent(g.game);
      a.className = "rank-replay";
      a.textContent = t("mygames.room", { room: g.game });
      cell(tr, a);
      cell(tr, formatNumber(Math.round(g.rating)));
    }
    sec.append(table);
  }
  return sec;
}

// i18n-keys: set.*
function renderStats(s) {
  const box = $("player-stats");
  box.hidden = !(s && typeof s === "object");
  if (box.hidden) return;
  $("player-total").textContent = t("rank.total", { count: s.played || 0, won: s.won || 0 });
  const by = $("player-by").tBodies[0];
  by.replaceChildren();
  for (const b of s.by_players || []) {
    const tr = by.insertRow();
    cell(tr, formatNumber(b.players), true);
    cell(tr, formatNumber(b.played || 0));
    cell(tr, formatNumber(b.won || 0));
    cell(tr, formatNumber(Math.round((b.average_score || 0) * 10) / 10));
  }
  $("player-by").hidden = !by.rows.length;
  const sets = $("player-sets").tBodies[0];
  sets.replaceChildren();
  for (const x of s.sets || []) {
    const tr = sets.insertRow();
    cell(tr, hasKey("set." + x.set) ? t("set." + x.set) : x.set, true);
    cell(tr, formatNumber(x.played || 0));
  }
  $("player-sets").hidden = !sets.rows.length;
}

function renderPlayer(name) {
  $("rank-h").textContent = shown(player && player.name ? player.name : name || "?");
  document.title = $("rank-h").textContent + " — carcd";
  $("player").hidden = playerState !== "ok";
  const st = $("rank-status");
  if (playerState === "loading") st.textContent = t("mygames.loading");
  else if (playerState === "none") st.textContent = t("rank.none");
  else if (playerState !== "ok") st.textContent = failText(playerState[1]);
  else st.textContent = "";
  if (playerState !== "ok") return;
  const since = new Intl.DateTimeFormat(locale(), { dateStyle: "long" });
  $("player-since").textContent = player.created ? t("rank.since", { date: since.format(new Date(player.created)) }) : "";
  const pools = $("player-pools");
  pools.replaceChildren();
  const ratings = player.ratings || {};
  for (const pool of POOLS) if (ratings[pool]) pools.append(poolSection(pool, ratings[pool]));
  if (!pools.children.length) {
    const p = document.createElement("p");
    p.textContent = t("rank.unrated");
    pools.append(p);
  }
  renderStats(player.stats);
}

async function loadPlayer() {
  const name = nameFromPath();
  if (!name) {
    playerState = "none";
    return renderPlayer(name);
  }
  renderPlayer(name);
  const r = await get("api/players/" + encodeURIComponent(name));
  if (r.status === 200 && r.data && r.data.name) {
    player = r.data;
    playerState = "ok";
  } else if (r.status === 404 && r.data.error === "no_such_player") playerState = "none";
  else playerState = ["error", r];
  renderPlayer(name);
  document.body.dataset.loaded = "1"; // for the tests: the answer is drawn
}

// ---------------------------------------------------------------------------------------------
// The ladder

let pool = "2p";
let rows = []; // the players of the pages read so far
let page = 0;
let more = false;
let minGames = null;
let ladderState = "loading";

function renderLadder() {
  for (const b of document.querySelectorAll("#ladder-tabs [role=tab]")) {
    const on = b.dataset.pool === pool;
    b.setAttribute("aria-selected", String(on));
    b.tabIndex = on ? 0 : -1;
    if (on) $("ladder").setAttribute("aria-labelledby", b.id);
  }
  $("ladder-rule").textContent = minGames === null ? "" : t("rank.rule", { count: minGames });
  const st = $("rank-status");
  st.textContent = ladderState === "loading" ? t("mygames.loading")
    : ladderState !== "ok" ? failText(ladderState[1])
    : rows.length ? "" : t("rank.empty");
  const table = $("ladder-table");
  table.hidden = !rows.length;
  const body = table.tBodies[0];
  body.replaceChildren();
  rows.forEach((p, i) => {
    const tr = body.insertRow();
    tr.dataset.index = i;
    cell(tr, formatNumber(p.rank));
    cell(tr, profileLink(p.name), true);
    const c = cell(tr, formatNumber(Math.round(p.rating)));
    if (p.provisional) c.append(" ", provisional());
    cell(tr, formatNumber(Math.round(p.deviation)));
    cell(tr, formatNumber(p.games));
  });
  $("ladder-more").hidden = !(ladderState === "ok" && more);
}

async function loadLadder(n) {
  const want = pool;
  ladderState = "loading";
  if (n === 1) rows = [];
  renderLadder();
  const r = await get(`api/ladder?pool=${want}&page=${n}`);
  if (want !== pool) return; // another tab meanwhile
  document.body.dataset.loaded = "1"; // for the tests: an answer is drawn
  if (r.status !== 200 || !Array.isArray(r.data.players)) {
    ladderState = ["error", r];
    return renderLadder();
  }
  const first = rows.length;
  rows = rows.concat(r.data.players);
  minGames = r.data.min_games ?? minGames;
  page = n;
  // a full page of 50 may have more after it
  more = r.data.players.length >= 50;
  ladderState = "ok";
  renderLadder();
  if (n > 1) {
    const a = document.querySelector(`#ladder-table tr[data-index="${first}"] a`);
    if (a) a.focus();
  }
}

function choose(p, focus) {
  if (p !== pool) {
    pool = p;
    loadLadder(1);
  }
  if (focus) $("tab-" + p).focus();
}

if (onLadder) {
  for (const b of document.querySelectorAll("#ladder-tabs [role=tab]")) b.addEventListener("click", () => choose(b.dataset.pool));
  $("ladder-tabs").addEventListener("keydown", (e) => {
    if (!["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key)) return;
    e.preventDefault();
    choose(e.key === "Home" ? "2p" : e.key === "End" ? "multi" : pool === "2p" ? "multi" : "2p", true);
  });
  $("ladder-more").addEventListener("click", () => loadLadder(page + 1));
  const q = new URLSearchParams(location.search).get("pool");
  if (POOLS.includes(q)) pool = q;
  onLanguageChange(renderLadder);
  loadLadder(1);
} else {
  onLanguageChange(() => renderPlayer(nameFromPath()));
  // the chart is drawn for the column's width: again when that changes (a phone turned)
  let drawnFor = 0;
  addEventListener("resize", () => {
    const w = $("player-pools").clientWidth;
    if (playerState === "ok" && w && Math.abs(w - drawnFor) > 40) renderPlayer(nameFromPath());
    drawnFor = w;
  });
  loadPlayer();
}
