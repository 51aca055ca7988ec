// board.js: SVG drawing of tiles from the /api/tiles geometry, and the pannable, zoomable board.
import { t } from "./i18n.js";

export const SVGNS = "http://www.w3.org/2000/svg";
export const T = 100; // tile size in board units

export const PLAYER_COLOURS = ["#d7263d", "#1b6ca8", "#f2c14e", "#222222", "#8e44ad", "#f4f4f4"];
// The mark on each seat's meeples (what shape() draws; ids, not words: see seatLook).
export const PLAYER_SHAPES = ["circle", "square", "triangle", "diamond", "pentagon", "star"];

// A seat's colour and mark in words: "red circle" (look.SEAT in the catalogues).
export function seatLook(seat) {
  return t("look." + (seat % 6));
}

const EDGE_INDEX = { N: 0, E: 1, S: 2, W: 3 };
const EDGE_MID = { N: [50, 0], E: [100, 50], S: [50, 100], W: [0, 50] };
const HALF_PT = {
  Nw: [25, 0], Ne: [75, 0], En: [100, 25], Es: [100, 75],
  Se: [75, 100], Sw: [25, 100], Ws: [0, 75], Wn: [0, 25],
};

export function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// Rotates a point of a tile (0..100) clockwise by rot degrees about its centre.
export function rotatePoint(p, rot) {
  let [x, y] = p;
  for (let r = 0; r < rot; r += 90) [x, y] = [100 - y, x];
  return [x, y];
}

function pull(p, f) {
  return [p[0] + (50 - p[0]) * f, p[1] + (50 - p[1]) * f];
}

function avg(points) {
  let x = 0;
  let y = 0;
  for (const p of points) {
    x += p[0];
    y += p[1];
  }
  return [x / points.length, y / points.length];
}

function dist(a, b) {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}

// Where a meeple stands on each feature of a tile (rot 0 coordinates); cached per tile id.
const spotCache = new Map();
export function featureSpots(id, tile) {
  if (spotCache.has(id)) return spotCache.get(id);
  const order = { cloister: 0, city: 1, road: 2, field: 3 };
  const segs = tile.segments.slice().sort((a, b) => order[a.kind] - order[b.kind]);
  const spots = {};
  const taken = [];
  for (const s of segs) {
    const cands = [];
    if (s.kind === "cloister") {
      cands.push([50, 50]);
    } else if (s.kind === "city") {
      const pts = s.edges.map((e) => EDGE_MID[e]);
      const a = avg(pts);
      cands.push(s.edges.length === 1 ? pull(a, 0.42) : pull(a, 0.25));
      for (const p of pts) cands.push(pull(p, 0.3));
    } else if (s.kind === "road") {
      const pts = s.edges.map((e) => EDGE_MID[e]);
      if (pts.length === 2) {
        const m = [0.25 * pts[0][0] + 0.5 * 50 + 0.25 * pts[1][0], 0.25 * pts[0][1] + 0.5 * 50 + 0.25 * pts[1][1]];
        cands.push(m, pull(pts[0], 0.45), pull(pts[1], 0.45));
      } else {
        for (const p of pts) cands.push(pull(p, 0.5), pull(p, 0.3));
      }
    } else {
      const pts = (s.halves || []).map((h) => HALF_PT[h]);
      if (pts.length) {
        cands.push(pull(avg(pts), 0.2));
        for (const p of pts) cands.push(pull(p, 0.22));
      } else {
        cands.push([20, 20]);
      }
    }
    let best = cands[0];
    let bestD = -1;
    for (const c of cands) {
      const d = taken.length ? Math.min(...taken.map((t) => dist(t, c))) : 99;
      if (d >= 22) {
        best = c;
        bestD = d;
        break;
      }
      if (d > bestD) {
        best = c;
        bestD = d;
      }
    }
    taken.push(best);
    spots[s.name] = best;
  }
  spotCache.set(id, spots);
  return spots;
}

// City shapes at turn 0 (rotate by turn * 90 to get the city's real edges): the area, its
// inner boundary (the wall), the places for icons (shields, siege, apothecary) in order of
// preference, and a few roof marks.
const CITY_SHAPES = {
  cap: {
    d: "M0,0 L100,0 Q50,48 0,0 Z", walls: ["M100,0 Q50,48 0,0"],
    slots: [[74, 10], [26, 10], [50, 9]], roofs: [[40, 6], [60, 6]],
  },
  corner: {
    d: "M0,0 L100,0 L100,100 Q42,58 0,0 Z", walls: ["M100,100 Q42,58 0,0"],
    slots: [[85, 14], [50, 11], [88, 52], [28, 8]], roofs: [[66, 8], [93, 32], [75, 58], [38, 16]],
  },
  band: {
    d: "M0,0 L100,0 Q62,50 100,100 L0,100 Q38,50 0,0 Z", walls: ["M100,0 Q62,50 100,100", "M0,100 Q38,50 0,0"],
    slots: [[66, 16], [34, 84], [34, 16], [66, 84]], roofs: [[50, 8], [50, 92], [30, 46], [70, 54]],
  },
  three: {
    d: "M0,0 L100,0 L100,100 Q50,58 0,100 Z", walls: ["M100,100 Q50,58 0,100"],
    slots: [[78, 18], [22, 18], [84, 62], [16, 62]], roofs: [[50, 10], [28, 40], [72, 40], [91, 84], [9, 84]],
  },
  full: {
    d: "M0,0 H100 V100 H0 Z", walls: [],
    slots: [[78, 20], [22, 80], [22, 20], [78, 80]],
    roofs: [[50, 12], [14, 50], [86, 50], [50, 88], [22, 20], [78, 80], [78, 20], [22, 80]],
  },
};

function cityPath(edges) {
  const idx = edges.map((e) => EDGE_INDEX[e]).sort((a, b) => a - b);
  let kind;
  let turn = 0;
  if (idx.length >= 4) {
    kind = "full";
  } else if (idx.length === 3) {
    kind = "three"; // missing S at turn 0
    turn = ([0, 1, 2, 3].find((i) => !idx.includes(i)) - 2 + 4) % 4;
  } else if (idx.length === 2 && (idx[1] - idx[0]) % 2 === 0) {
    kind = "band"; // N and S at turn 0
    turn = idx[0];
  } else if (idx.length === 2) {
    kind = "corner"; // N and E at turn 0
    turn = idx[0] === 0 && idx[1] === 3 ? 3 : idx[0];
  } else {
    kind = "cap"; // N only at turn 0
    turn = idx[0];
  }
  return { d: CITY_SHAPES[kind].d, turn, kind };
}

// The outline of a city path (M, L, H, V, Q and Z only), as points, turned by turn * 90.
function cityPolygon(d, turn) {
  const pts = [];
  const nums = d.match(/[MLHVQZ]|-?[0-9.]+/g);
  let cur = [0, 0];
  for (let i = 0; i < nums.length; ) {
    const c = nums[i++];
    const num = () => Number(nums[i++]);
    if (c === "M" || c === "L") cur = [num(), num()];
    else if (c === "H") cur = [num(), cur[1]];
    else if (c === "V") cur = [cur[0], num()];
    else if (c === "Q") {
      const q = [num(), num()];
      const e = [num(), num()];
      for (let t = 0.125; t < 1; t += 0.125) {
        const a = (1 - t) * (1 - t);
        const b = 2 * t * (1 - t);
        pts.push([a * cur[0] + b * q[0] + t * t * e[0], a * cur[1] + b * q[1] + t * t * e[1]]);
      }
      cur = e;
    } else continue;
    pts.push(cur);
  }
  return pts.map((p) => rotatePoint(p, turn * 90));
}

function inPolygon(p, poly) {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i];
    const [xj, yj] = poly[j];
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

const SWORDS = "M-5,-5 L5,5 M5,-5 L-5,5 M-6.5,-1.5 L-1.5,-6.5 M6.5,-1.5 L1.5,-6.5";

// An upright icon at p (board units inside the tile's cell); the outer <g> carries the class the
// tests count, the parts have their own classes.
const ICON_SCALE = { pennant: 1.15, siege: 1.15, apothecary: 1.2, inn: 1.25, cloister: 1.3 };

function icon(g, kind, p, cls) {
  const [x, y] = p;
  const sc = ICON_SCALE[kind] ? ` scale(${ICON_SCALE[kind]})` : "";
  const i = el("g", { class: "icon " + (cls || kind), transform: `translate(${x},${y})${sc}` }, g);
  const part = (name, attrs) => el(name, attrs, i);
  if (kind === "pennant") {
    part("path", { d: "M-6.5,-8 H6.5 V-1 Q6.5,5.5 0,9 Q-6.5,5.5 -6.5,-1 Z", class: "shield" });
    part("path", { d: "M-3.5,-4.5 L0,-1 L3.5,-4.5", class: "shield-chevron" });
  } else if (kind === "cathedral") {
    part("rect", { x: -24, y: 14, width: 48, height: 5, rx: 2, class: "cathedral-steps" });
    part("path", { d: "M-10,14 V-4 L0,-14 L10,-4 V14 Z", class: "cathedral-nave" });
    const towers = "M-20,14 V-6 L-15,-24 L-10,-6 V14 Z M20,14 V-6 L15,-24 L10,-6 V14 Z";
    part("path", { d: towers, class: "cathedral-tower" });
    part("path", { d: "M-20,-6 L-15,-24 L-10,-6 Z M20,-6 L15,-24 L10,-6 Z M-10,-4 L0,-14 L10,-4 Z", class: "cathedral-roof" });
    part("circle", { cx: 0, cy: 0, r: 3.6, class: "cathedral-window" });
    part("path", { d: "M-4,14 V8 A4,4 0 0 1 4,8 V14 Z", class: "cathedral-door" });
    part("path", { d: "M0,-14 V-24 M-3.5,-20.5 H3.5", class: "cathedral-cross" });
  } else if (kind === "siege") {
    part("circle", { r: 8.5, class: "siege-badge" });
    part("path", { d: SWORDS, class: "siege-swords" });
  } else if (kind === "apothecary") {
    part("path", { d: "M-2.5,-9 H2.5 V-5 A7,7 0 1 1 -2.5,-5 Z", class: "apothecary-flask" });
    part("path", { d: "M0,-2 V6 M-4,2 H4", class: "apothecary-cross" });
  } else if (kind === "inn") {
    part("ellipse", { cx: 6, cy: 3, rx: 9.5, ry: 5.5, class: "inn-pond" });
    part("path", { d: "M-15,6 V-3 H-3 V6 Z", class: "inn-house" });
    part("path", { d: "M-17,-2 L-9,-10 L-1,-2 Z", class: "inn-roof" });
    part("rect", { x: -10.5, y: 1, width: 3, height: 5, class: "inn-door" });
  } else if (kind === "barn") {
    part("path", { d: "M-18,12 V-2 H18 V12 Z", class: "barn-wall" });
    part("path", { d: "M-21,-1 L-15,-11 L0,-16 L15,-11 L21,-1 Z", class: "barn-roof" });
    part("rect", { x: -6, y: 1, width: 12, height: 11, class: "barn-door" });
    part("path", { d: "M-6,1 L6,12 M6,1 L-6,12", class: "barn-brace" });
  } else if (kind === "cloister") {
    part("rect", { x: -17, y: -15, width: 34, height: 32, rx: 7, class: "cloister-garden" });
    part("path", { d: "M-11,12 V0 H11 V12 Z", class: "cloister-church" });
    part("path", { d: "M-13,1 L-4,-7 H13 L13,1 Z", class: "cloister-roof" });
    part("path", { d: "M-9,12 V-6 L-5,-10 L-1,-6 V12 Z", class: "cloister-tower" });
    part("path", { d: "M-5,-10 V-18 M-8,-15 H-2", class: "cloister-cross" });
    part("path", { d: "M3,12 V7 A2.5,2.5 0 0 1 8,7 V12 Z", class: "cloister-door" });
  } else if (kind === "junction") {
    part("circle", { r: 6, class: "junction" });
  } else if (kind === "village") {
    part("path", { d: "M-12,8 V0 H-2 V8 Z M2,8 V-1 H12 V8 Z", class: "village-house" });
    part("path", { d: "M-14,1 L-7,-6 L0,1 Z M0,0 L7,-8 L14,0 Z", class: "village-roof" });
  } else if (kind === "roof") {
    part("path", { d: "M-5,3 V-1 L0,-4.5 L5,-1 V3 Z", class: "roof" });
  }
  return i;
}

// Draws one tile (at rotation rot) into a new <g> at the origin of its cell. The ground (fields,
// roads, cities and their walls) turns with the tile; buildings and marks stay upright.
export function drawTile(id, tile, rot, parent) {
  const g = el("g", { class: "tile" }, parent);
  const inner = el("g", { transform: `rotate(${rot} 50 50)` }, g);
  el("rect", { x: 0, y: 0, width: 100, height: 100, class: "field" }, inner);
  if (!tile) {
    el("text", { x: 50, y: 55, class: "unknown" }, inner).textContent = id;
    return g;
  }
  const top = el("g", { class: "tile-marks" }, g);
  const up = (p) => rotatePoint(p, rot);
  const spots = featureSpots(id, tile);
  const cities = tile.segments.filter((s) => s.kind === "city");
  let centreMark = null;
  for (const s of tile.segments) {
    if (s.kind !== "road") continue;
    const pts = s.edges.map((e) => EDGE_MID[e]);
    let d;
    if (pts.length === 2) {
      d = `M${pts[0][0]},${pts[0][1]} Q50,50 ${pts[1][0]},${pts[1][1]}`;
    } else {
      let stop = [50, 50];
      const cap = cities.length === 1 && cities[0].edges.length === 1;
      if (s.end === "city" && cap) stop = pull(EDGE_MID[cities[0].edges[0]], 0.3);
      d = pts.map((p) => `M${p[0]},${p[1]} L${stop[0]},${stop[1]}`).join(" ");
      if (s.end === "junction" || s.end === "village") centreMark = s.end;
    }
    el("path", { d, class: "road-edge" }, inner);
    el("path", { d, class: "road" }, inner);
  }
  const used = [];
  const marks = [];
  for (const s of cities) {
    const { d, turn, kind } = cityPath(s.edges);
    const shapeDef = CITY_SHAPES[kind];
    const flags = s.flags || [];
    const besieged = flags.includes("siege");
    const tr = `rotate(${turn * 90} 50 50)`;
    el("path", { d, transform: tr, class: "city" + (besieged ? " besieged" : "") }, inner);
    for (const w of shapeDef.walls) {
      el("path", { d: w, transform: tr, class: "wall-crenel" + (besieged ? " besieged" : "") }, inner);
      el("path", { d: w, transform: tr, class: "wall" + (besieged ? " besieged" : "") }, inner);
    }
    const slots = shapeDef.slots.map((p) => rotatePoint(p, turn * 90));
    const want = [];
    for (let k = 0; k < (s.pennants || 0); k++) want.push("pennant");
    if (besieged) want.push("siege");
    if (flags.includes("apothecary")) want.push("apothecary");
    const here = [];
    if (flags.includes("cathedral")) {
      const c = kind === "full" ? [50, 44] : rotatePoint(pull(avg(s.edges.map((e) => EDGE_MID[e])), 0.2), 0);
      marks.push(["cathedral", c]);
      here.push(c, [c[0] - 15, c[1] - 10], [c[0] + 15, c[1] - 10], [c[0], c[1] + 12]);
    }
    want.forEach((k, n) => {
      const p = slots[n % slots.length];
      marks.push([k, p]);
      here.push(p);
    });
    used.push(...here);
    for (const r of shapeDef.roofs) {
      const p = rotatePoint(r, turn * 90);
      if (here.some((q) => dist(p, q) < 14)) continue;
      marks.push(["roof", p]);
    }
  }
  for (const [k, p] of marks) if (k === "roof") icon(top, "roof", up(p));
  if (tile.cloister) icon(top, "cloister", up([50, 50]));
  else if (centreMark) icon(top, centreMark, up([50, 50]));
  if (tile.barn || tile.segments.some((s) => (s.flags || []).includes("barn"))) {
    const field = tile.segments.find((s) => s.kind === "field" && (s.flags || []).includes("barn"));
    const onRoad = tile.segments.some((x) => x.kind === "road" && x.end === "barn");
    const p = onRoad || !cities.length || !field ? [50, 52] : spots[field.name];
    icon(top, "barn", up(p));
  }
  for (const [k, p] of marks) if (k !== "roof") icon(top, k, up(p));
  for (const s of tile.segments) {
    if (s.kind !== "road" || !(s.flags || []).includes("inn")) continue;
    const sp = spots[s.name];
    const pts = s.edges.map((e) => EDGE_MID[e]);
    const dir = pts.length === 2 ? [pts[1][0] - pts[0][0], pts[1][1] - pts[0][1]] : [50 - pts[0][0], 50 - pts[0][1]];
    const len = Math.hypot(dir[0], dir[1]) || 1;
    const n = [-dir[1] / len, dir[0] / len];
    const avoid = used.concat(cities.map((c) => pull(avg(c.edges.map((e) => EDGE_MID[e])), 0.3)));
    avoid.push(...Object.keys(spots).filter((k) => k !== s.name).map((k) => spots[k]));
    let best = sp;
    let bestScore = -Infinity;
    const polys = cities.map((c) => {
      const { d, turn } = cityPath(c.edges);
      return cityPolygon(d, turn);
    });
    const off = Math.abs(n[0]) * 21 + Math.abs(n[1]) * 13 + 6;
    for (const side of [1, -1]) {
      const c = [sp[0] + side * n[0] * off, sp[1] + side * n[1] * off];
      const inside = Math.min(c[0] - 14, 86 - c[0], c[1] - 10, 90 - c[1]);
      let score = Math.min(inside * 2, ...avoid.map((q) => dist(q, c))) - 0.6 * dist(c, [50, 50]);
      for (const dx of [-16, 0, 16]) {
        for (const dy of [-12, 0, 12]) if (polys.some((poly) => inPolygon([c[0] + dx, c[1] + dy], poly))) score -= 25;
      }
      if (score > bestScore) {
        best = c;
        bestScore = score;
      }
    }
    icon(top, "inn", up([Math.max(24, Math.min(79, best[0])), Math.max(15, Math.min(86, best[1]))]));
  }
  el("rect", { x: 0, y: 0, width: 100, height: 100, class: "tile-border" }, g);
  return g;
}

// The classic meeple: head, arms, legs; about 24 units tall, its body centre at (0,1.5).
const MEEPLE_D =
  "M-3,-4.5 A4.8,4.8 0 1 1 3,-4.5 L10,-1.8 Q12.6,0 10.4,2.6 L5,3.6 L9.2,10.2 Q10,12 7.8,12 L2.6,12 L0,7.8 " +
  "L-2.6,12 L-7.8,12 Q-10,12 -9.2,10.2 L-5,3.6 L-10.4,2.6 Q-12.6,0 -10,-1.8 Z";
const LIGHT_SEATS = new Set([2, 5]);

// A player's meeple in the seat's colour with the seat's shape on its body; large meeples are
// bigger, lying ones (farmers) lie on their side.
export function drawMeeple(parent, seat, p, large, lying) {
  const s = large ? 1.5 : 1.1;
  const cls = "meeple" + (large ? " large" : "") + (lying ? " lying" : "");
  const g = el("g", { class: cls, transform: `translate(${p[0]},${p[1]}) scale(${s})` }, parent);
  const fig = el("g", { transform: lying ? "rotate(-90) scale(1,0.92)" : "translate(0,-1)" }, g);
  el("path", { d: MEEPLE_D, class: "meeple-halo" }, fig);
  el("path", { d: MEEPLE_D, class: "meeple-body", fill: PLAYER_COLOURS[seat % 6] }, fig);
  const m = el("g", { transform: lying ? "translate(1.4,0)" : "translate(0,0.6)" }, g);
  shape(m, seat, 4, { class: "meeple-mark" + (LIGHT_SEATS.has(seat % 6) ? " on-light" : "") });
  return g;
}

export function shape(parent, seat, r, attrs) {
  const kind = PLAYER_SHAPES[seat % 6];
  let e;
  if (kind === "circle") {
    e = el("circle", { r }, parent);
  } else if (kind === "square") {
    e = el("rect", { x: -r * 0.85, y: -r * 0.85, width: r * 1.7, height: r * 1.7 }, parent);
  } else {
    const pts = [];
    const n = { triangle: 3, diamond: 4, pentagon: 5, star: 10 }[kind];
    for (let i = 0; i < n; i++) {
      const a = -Math.PI / 2 + (i * 2 * Math.PI) / n;
      const rr = kind === "star" && i % 2 ? r * 0.5 : kind === "triangle" ? r * 1.15 : r;
      pts.push(`${(rr * Math.cos(a)).toFixed(2)},${(rr * Math.sin(a)).toFixed(2)}`);
    }
    e = el("polygon", { points: pts.join(" ") }, parent);
  }
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  return e;
}

// The mark of the last placed tile at cell (x, y): a frame in its player's colour (white when
// seat is null: unknown) with the seat's shape badge in the corner (fx.css).
export function drawLastPlaced(parent, x, y, seat) {
  const g = el("g", { class: "last-placed", transform: `translate(${x * T},${y * T})`, "data-seat": seat ?? "" }, parent);
  el("rect", { x: 3, y: 3, width: T - 6, height: T - 6, class: "last-frame-under" }, g);
  el("rect", { x: 3, y: 3, width: T - 6, height: T - 6, class: "last-frame", stroke: seat === null ? "#ffffff" : PLAYER_COLOURS[seat % 6] }, g);
  if (seat !== null) {
    const b = el("g", { transform: "translate(88,12)", class: "last-badge" }, g);
    el("circle", { r: 10, class: "last-badge-bg" }, b);
    shape(b, seat, 6, { fill: PLAYER_COLOURS[seat % 6], class: "meeple-shape" });
  }
  return g;
}

// A small standalone SVG of a player's shape (scoreboard, chart legend).
export function playerBadge(seat, size) {
  const svg = el("svg", { viewBox: "-10 -10 20 20", width: size, height: size, class: "badge", "aria-hidden": "true" });
  shape(svg, seat, 8, { fill: PLAYER_COLOURS[seat % 6], class: "meeple-shape" });
  return svg;
}

// Pan and zoom of a <g> inside an <svg>: mouse drag, wheel, touch (one finger pans, two pinch),
// keyboard (arrows pan, + and - zoom, 0 re-centres). Clicks on children pass through unless the
// pointer moved.
export class View {
  constructor(svg, world) {
    this.svg = svg;
    this.world = world;
    this.s = 0.8;
    this.tx = 0;
    this.ty = 0;
    this.pointers = new Map();
    this.dragged = false;
    this.centred = false;
    svg.addEventListener("pointerdown", (e) => this.down(e));
    svg.addEventListener("pointermove", (e) => this.move(e));
    svg.addEventListener("pointerup", (e) => this.up(e));
    svg.addEventListener("pointercancel", (e) => this.up(e));
    svg.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.userMoved = true;
      this.zoomAt(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.offsetX, e.offsetY);
    }, { passive: false });
    svg.addEventListener("click", (e) => {
      if (this.dragged) {
        e.stopPropagation();
        e.preventDefault();
        this.dragged = false;
      }
    }, true);
    svg.addEventListener("keydown", (e) => this.key(e));
  }

  size() {
    const r = this.svg.getBoundingClientRect();
    return [r.width || 600, r.height || 400];
  }

  // Shows the cells [x0..x1] x [y0..y1] whole, unless the user has moved the view.
  fit(x0, y0, x1, y1, force) {
    if (this.userMoved && !force) return;
    const [w, h] = this.size();
    const bw = (x1 - x0 + 1) * T;
    const bh = (y1 - y0 + 1) * T;
    this.s = Math.max(0.15, Math.min(1, Math.min(w / bw, h / bh) * 0.92));
    this.tx = w / 2 - ((x0 + x1 + 1) / 2) * T * this.s;
    this.ty = h / 2 - ((y0 + y1 + 1) / 2) * T * this.s;
    this.apply();
  }

  centre(x, y) {
    const [w, h] = this.size();
    this.tx = w / 2 - (x * T + T / 2) * this.s;
    this.ty = h / 2 - (y * T + T / 2) * this.s;
    this.apply();
  }

  apply() {
    this.world.setAttribute("transform", `translate(${this.tx.toFixed(1)},${this.ty.toFixed(1)}) scale(${this.s.toFixed(3)})`);
  }

  zoomAt(f, cx, cy) {
    const s = Math.max(0.15, Math.min(3, this.s * f));
    f = s / this.s;
    this.tx = cx - (cx - this.tx) * f;
    this.ty = cy - (cy - this.ty) * f;
    this.s = s;
    this.apply();
  }

  down(e) {
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY });
    this.dragged = false;
  }

  move(e) {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      const before = Math.hypot(a.x - b.x, a.y - b.y);
      p.x = e.clientX;
      p.y = e.clientY;
      const after = Math.hypot(a.x - b.x, a.y - b.y);
      const r = this.svg.getBoundingClientRect();
      if (before > 0) this.zoomAt(after / before, (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
      this.dragged = true;
      return;
    }
    const dx = e.clientX - p.x;
    const dy = e.clientY - p.y;
    if (!this.dragged && Math.hypot(e.clientX - p.x0, e.clientY - p.y0) < 6) return;
    if (!this.dragged) {
      this.dragged = true;
      this.userMoved = true;
      try {
        this.svg.setPointerCapture(e.pointerId);
      } catch (err) {
        /* the pointer is gone */
      }
    }
    p.x = e.clientX;
    p.y = e.clientY;
    this.tx += dx;
    this.ty += dy;
    this.apply();
  }

  up(e) {
    this.pointers.delete(e.pointerId);
  }

  key(e) {
    const step = 60;
    const [w, h] = this.size();
    const k = e.key;
    if (k === "ArrowLeft") this.tx += step;
    else if (k === "ArrowRight") this.tx -= step;
    else if (k === "ArrowUp") this.ty += step;
    else if (k === "ArrowDown") this.ty -= step;
    else if (k === "+" || k === "=") return (this.userMoved = true), this.zoomAt(1.2, w / 2, h / 2), e.preventDefault();
    else if (k === "-" || k === "_") return (this.userMoved = true), this.zoomAt(1 / 1.2, w / 2, h / 2), e.preventDefault();
    else if (k === "0") return (this.userMoved = false), this.onFit && this.onFit(), e.preventDefault();
    else return;
    e.preventDefault();
    this.userMoved = true;
    this.apply();
  }
}
