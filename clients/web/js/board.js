// board.js: SVG drawing of tiles from the /api/tiles geometry, and the pannable, zoomable board.

export const SVGNS = "http://www.w3.org/2000/svg";
export const T = 100; // tile size in board units

export const PLAYER_COLOURS = ["#d7263d", "#1b6ca8", "#f2c14e", "#222222", "#8e44ad", "#f4f4f4"];
export const PLAYER_COLOUR_NAMES = ["red", "blue", "yellow", "black", "purple", "white"];
export const PLAYER_SHAPES = ["circle", "square", "triangle", "diamond", "pentagon", "star"];

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

function cityPath(edges) {
  const idx = edges.map((e) => EDGE_INDEX[e]).sort((a, b) => a - b);
  let d;
  let turn = 0;
  if (idx.length >= 4) {
    d = "M0,0 H100 V100 H0 Z";
  } else if (idx.length === 3) {
    const missing = [0, 1, 2, 3].find((i) => !idx.includes(i));
    d = "M0,0 L100,0 L100,100 Q50,58 0,100 Z"; // missing S
    turn = (missing - 2 + 4) % 4;
  } else if (idx.length === 2 && (idx[1] - idx[0]) % 2 === 0) {
    d = "M0,0 L100,0 Q62,50 100,100 L0,100 Q38,50 0,0 Z"; // N and S
    turn = idx[0];
  } else if (idx.length === 2) {
    d = "M0,0 L100,0 L100,100 Q42,58 0,0 Z"; // N and E
    turn = idx[0] === 0 && idx[1] === 3 ? 3 : idx[0];
  } else {
    d = "M0,0 L100,0 Q50,48 0,0 Z"; // N only
    turn = idx[0];
  }
  return { d, turn };
}

function icon(g, kind, p, cls) {
  const [x, y] = p;
  const i = el("g", { class: "icon " + (cls || kind), transform: `translate(${x},${y})` }, g);
  if (kind === "pennant") {
    el("path", { d: "M-5,-6 H5 V1 L0,6 L-5,1 Z", class: "pennant" }, i);
  } else if (kind === "cathedral") {
    el("path", { d: "M-7,7 V-2 L0,-8 L7,-2 V7 Z", class: "cathedral" }, i);
    el("path", { d: "M0,-6 V4 M-3,-2 H3", class: "cross" }, i);
  } else if (kind === "siege") {
    el("path", { d: "M-9,5 L-5,-3 L-1,5 Z M1,5 L5,-3 L9,5 Z", class: "siege" }, i);
  } else if (kind === "apothecary") {
    el("circle", { r: 6, class: "apothecary" }, i);
    el("path", { d: "M0,-4 V4 M-4,0 H4", class: "herbcross" }, i);
  } else if (kind === "inn") {
    el("ellipse", { rx: 7, ry: 4, class: "inn" }, i);
  } else if (kind === "barn") {
    el("path", { d: "M-8,7 V-1 L0,-8 L8,-1 V7 Z", class: "barn" }, i);
    el("rect", { x: -3, y: 1, width: 6, height: 6, class: "barndoor" }, i);
  } else if (kind === "cloister") {
    el("rect", { x: -13, y: -11, width: 26, height: 24, rx: 2, class: "cloister" }, i);
    el("path", { d: "M-13,-11 L0,-20 L13,-11 Z", class: "cloisterroof" }, i);
    el("path", { d: "M0,-4 V8 M-4,0 H4", class: "cross" }, i);
  } else if (kind === "junction") {
    el("rect", { x: -6, y: -6, width: 12, height: 12, class: "junction" }, i);
  } else if (kind === "village") {
    el("path", { d: "M-9,6 V0 L-5,-4 L-1,0 V6 Z M1,6 V-1 L5,-5 L9,-1 V6 Z", class: "village" }, i);
  }
  return i;
}

// Draws one tile (at rotation rot) into a new <g> at the origin of its cell.
export function drawTile(id, tile, rot, parent) {
  const g = el("g", { class: "tile" }, parent);
  const inner = el("g", { transform: `rotate(${rot} 50 50)` }, g);
  el("rect", { x: 0, y: 0, width: 100, height: 100, class: "field" }, inner);
  if (!tile) {
    el("text", { x: 50, y: 55, class: "unknown" }, inner).textContent = id;
    return g;
  }
  const spots = featureSpots(id, tile);
  for (const s of tile.segments) {
    if (s.kind !== "city") continue;
    const { d, turn } = cityPath(s.edges);
    const flags = s.flags || [];
    el("path", { d, transform: `rotate(${turn * 90} 50 50)`, class: "city" + (flags.includes("siege") ? " besieged" : "") }, inner);
  }
  let centreMark = null;
  for (const s of tile.segments) {
    if (s.kind !== "road") continue;
    const pts = s.edges.map((e) => EDGE_MID[e]);
    let d;
    if (pts.length === 2) {
      d = `M${pts[0][0]},${pts[0][1]} Q50,50 ${pts[1][0]},${pts[1][1]}`;
    } else {
      const stop = s.end === "city" ? pull(pts[0], 0.55) : [50, 50];
      d = pts.map((p) => `M${p[0]},${p[1]} L${stop[0]},${stop[1]}`).join(" ");
      if (s.end === "junction" || s.end === "village") centreMark = s.end;
    }
    el("path", { d, class: "road-edge" }, inner);
    el("path", { d, class: "road" }, inner);
  }
  if (tile.cloister) icon(inner, "cloister", [50, 52]);
  else if (centreMark) icon(inner, centreMark, [50, 50]);
  for (const s of tile.segments) {
    const flags = s.flags || [];
    const sp = spots[s.name];
    if (s.kind === "city") {
      for (let k = 0; k < (s.pennants || 0); k++) icon(inner, "pennant", [sp[0] + 13 + 11 * k, sp[1] - 9]);
      if (flags.includes("cathedral")) icon(inner, "cathedral", [sp[0] - 15, sp[1] - 10]);
      if (flags.includes("siege")) icon(inner, "siege", [sp[0] - 14, sp[1] + 12]);
      if (flags.includes("apothecary")) icon(inner, "apothecary", [sp[0] + 14, sp[1] + 12]);
    } else if (s.kind === "road" && flags.includes("inn")) {
      icon(inner, "inn", [sp[0] + 12, sp[1] + 11]);
    } else if (s.kind === "field" && flags.includes("barn")) {
      icon(inner, "barn", tile.cloister ? [sp[0], sp[1]] : (tile.segments.some((x) => x.kind === "road" && x.end === "barn") ? [50, 50] : [sp[0], sp[1]]));
    }
  }
  el("rect", { x: 0, y: 0, width: 100, height: 100, class: "tile-border" }, g);
  return g;
}

// A player's marker: shape by seat, colour by seat; large meeples are bigger and marked.
export function drawMeeple(parent, seat, p, large) {
  const s = large ? 1.5 : 1;
  const g = el("g", { class: "meeple" + (large ? " large" : ""), transform: `translate(${p[0]},${p[1]}) scale(${s})` }, parent);
  shape(g, seat, 11, { fill: PLAYER_COLOURS[seat % 6], class: "meeple-shape" });
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
