// board.js: SVG drawing of tiles from the /api/tiles geometry, and the pannable, zoomable board.
import { t } from "./i18n.js";

export const SVGNS = "http://www.w3.org/2000/svg";
export const T = 100; // tile size in board units

// The seats' colours: style.css --seat-0 .. --seat-5 (a colour-vision-safe palette), these hues
// when the page has no such variables.
const SEAT_CSS = getComputedStyle(document.documentElement);
export const PLAYER_COLOURS = ["#d55e00", "#0072b2", "#f0e442", "#222222", "#cc79a7", "#f4f4f4"]
  .map((c, i) => SEAT_CSS.getPropertyValue("--seat-" + i).trim() || c);
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

// Where a meeple stands on each feature of a tile (rot 0 coordinates); cached per tile id. A
// city's or a field's spot is the point of its own area farthest from its borders (walls, roads,
// tile edges, the cloister) and from the spots already taken, so that it sits inside the feature,
// never on a wall or a field's edge; a road's is on the road; a cloister's in its middle.
const spotCache = new Map();
export function featureSpots(id, tile) {
  if (spotCache.has(id)) return spotCache.get(id);
  const order = { cloister: 0, city: 1, road: 2, field: 3 };
  const segs = tile.segments.slice().sort((a, b) => order[a.kind] - order[b.kind]);
  const spots = {};
  const taken = [];
  const polys = tile.segments.filter((s) => s.kind === "city").map((c) => {
    const { d, turn } = cityPath(c.edges);
    return { name: c.name, poly: cityPolygon(d, turn) };
  });
  const border = [];
  for (let i = 0; i <= 100; i += 5) border.push([i, 0], [i, 100], [0, i], [100, i]);
  const roadPts = [];
  for (const s of tile.segments) if (s.kind === "road") roadPts.push(...roadPoints(s));
  // a road under a city (one that ends at it) is hidden by the city: no border there
  for (let i = roadPts.length - 1; i >= 0; i--) if (polys.some((c) => inPolygon(roadPts[i], c.poly))) roadPts.splice(i, 1);
  // the walls as drawn (their crenels reach 5 units either side), roads (6), the tile's edges
  const wallPts = [];
  for (const c of tile.segments.filter((q) => q.kind === "city")) {
    const { turn, kind } = cityPath(c.edges);
    for (const w of CITY_SHAPES[kind].walls) {
      const m = w.match(/-?[0-9.]+/g).map(Number);
      for (let k = 0; k <= 1.0001; k += 0.05) {
        const a = (1 - k) * (1 - k);
        const b = 2 * k * (1 - k);
        wallPts.push(rotatePoint([a * m[0] + b * m[2] + k * k * m[4], a * m[1] + b * m[3] + k * k * m[5]], turn * 90));
      }
    }
  }
  const near = (p, list) => (list.length ? Math.min(...list.map((q) => dist(p, q))) : 99);
  // the field a point belongs to: the one whose half-edges are nearest (roads and walls part them)
  const fields = tile.segments.filter((s) => s.kind === "field" && (s.halves || []).length);
  const fieldOf = (p) => {
    let best = null;
    let bd = Infinity;
    for (const f of fields) {
      const d = near(p, f.halves.map((h) => HALF_PT[h]));
      if (d < bd) [best, bd] = [f.name, d];
    }
    return best;
  };
  const cloisterBox = tile.cloister ? [[50, 50], [33, 35], [67, 35], [33, 67], [67, 67]] : [];
  const room = (p) => Math.min(near(p, wallPts) - 5, near(p, roadPts) - 6, near(p, border) - 2, near(p, cloisterBox) - 2);
  const score = (p) => Math.min(room(p), near(p, taken) - 8) - 0.05 * dist(p, [50, 50]);
  // the point of the area farthest from its borders: on a grid, then refined around the best
  const pole = (inside) => {
    let best = null;
    let bestScore = -Infinity;
    const consider = (p) => {
      if (p[0] < 3 || p[0] > 97 || p[1] < 3 || p[1] > 97 || !inside(p)) return;
      const sc = score(p);
      if (sc > bestScore) [best, bestScore] = [p, sc];
    };
    for (let y = 6; y <= 94; y += 4) for (let x = 6; x <= 94; x += 4) consider([x, y]);
    if (best) {
      const [bx, by] = best;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) consider([bx + dx, by + dy]);
    }
    return best;
  };
  for (const s of segs) {
    let best = null;
    if (s.kind === "cloister") {
      best = [50, 50];
    } else if (s.kind === "city") {
      const own = polys.find((c) => c.name === s.name);
      best = pole((p) => inPolygon(p, own.poly));
    } else if (s.kind === "road") {
      const pts = s.edges.map((e) => EDGE_MID[e]);
      let cands = pts.length === 2
        ? [[0.25 * pts[0][0] + 25 + 0.25 * pts[1][0], 0.25 * pts[0][1] + 25 + 0.25 * pts[1][1]], pull(pts[0], 0.45), pull(pts[1], 0.45)]
        : pts.flatMap((p) => [0.5, 0.3, 0.4, 0.2, 0.15].map((f) => pull(p, f)));
      // on the part of the road that shows: not under a city, off its wall
      const shows = cands.filter((c) => !polys.some((q) => inPolygon(c, q.poly)) && near(c, wallPts) >= 8);
      if (shows.length) cands = shows;
      let bestD = -1;
      for (const c of cands) {
        const d = near(c, taken);
        if (d >= 22) {
          best = c;
          break;
        }
        if (d > bestD) [best, bestD] = [c, d];
      }
    } else if ((s.halves || []).length) {
      const inside = (p) => !polys.some((c) => inPolygon(p, c.poly)) && (fields.length < 2 || fieldOf(p) === s.name);
      best = pole(inside);
    }
    if (!best) best = [20, 20];
    taken.push(best);
    spots[s.name] = best;
  }
  spotCache.set(id, spots);
  return spots;
}

// Points along a road segment as drawn (at turn 0): a curve through the middle for two ends,
// spokes to the middle otherwise.
function roadPoints(s) {
  const out = [];
  const pts = s.edges.map((e) => EDGE_MID[e]);
  if (pts.length === 2) {
    for (let k = 0; k <= 1.0001; k += 0.05) {
      const a = (1 - k) * (1 - k);
      const b = 2 * k * (1 - k);
      out.push([a * pts[0][0] + b * 50 + k * k * pts[1][0], a * pts[0][1] + b * 50 + k * k * pts[1][1]]);
    }
  } else {
    for (const p of pts) for (let k = 0; k <= 1.0001; k += 0.1) out.push([p[0] + (50 - p[0]) * k, p[1] + (50 - p[1]) * k]);
  }
  return out;
}

// The segment of tile `id` drawn under point p (tile units at turn 0, 0..100): the cloister in
// its middle, a city inside its walls, a road within its width, else the field whose half-edges
// are nearest. null when none (a tile with no field there).
const hitCache = new Map();
export function segmentAtPoint(id, tile, p) {
  let h = hitCache.get(id);
  if (!h) {
    h = {
      cloister: tile.segments.find((s) => s.kind === "cloister"),
      cities: tile.segments.filter((s) => s.kind === "city").map((c) => {
        const { d, turn } = cityPath(c.edges);
        return { name: c.name, poly: cityPolygon(d, turn) };
      }),
      roads: tile.segments.filter((s) => s.kind === "road").map((r) => ({ name: r.name, pts: roadPoints(r) })),
      fields: tile.segments.filter((s) => s.kind === "field" && (s.halves || []).length),
    };
    hitCache.set(id, h);
  }
  if (h.cloister && Math.abs(p[0] - 50) < 20 && Math.abs(p[1] - 50) < 20) return h.cloister.name;
  const city = h.cities.find((c) => inPolygon(p, c.poly));
  if (city) return city.name;
  let best = null;
  let bd = 7; // a road is drawn about 12 units wide
  for (const r of h.roads) for (const q of r.pts) if (dist(p, q) < bd) [best, bd] = [r.name, dist(p, q)];
  if (best) return best;
  bd = Infinity;
  for (const f of h.fields) {
    const d = Math.min(...f.halves.map((x) => dist(p, HALF_PT[x])));
    if (d < bd) [best, bd] = [f.name, d];
  }
  return best;
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

// A tile is never fitted smaller than this on screen: the meeples and marks stay readable.
export const MIN_TILE_PX = 48;

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

  // The smallest scale a fit may choose: a tile never drawn under MIN_TILE_PX (the board pans
  // instead), whatever the size of the board.
  minScale() {
    return MIN_TILE_PX / T;
  }

  // The part of the svg not under what floats over it (the phone's bars, the zoom tools):
  // [top, right, bottom, left] in pixels; this.covers() gives the elements to avoid.
  insets() {
    const pad = [0, 0, 0, 0];
    if (!this.covers) return pad;
    const r = this.svg.getBoundingClientRect();
    for (const [side, node] of this.covers()) {
      if (!node || node.hidden) continue;
      const c = node.getBoundingClientRect();
      if (!c.width || !c.height || c.right <= r.left || c.left >= r.right || c.bottom <= r.top || c.top >= r.bottom) continue;
      if (side === "top") pad[0] = Math.max(pad[0], c.bottom - r.top);
      else if (side === "right") pad[1] = Math.max(pad[1], r.right - c.left);
      else if (side === "bottom") pad[2] = Math.max(pad[2], r.bottom - c.top);
    }
    return pad;
  }

  // Shows the cells [x0..x1] x [y0..y1] whole, unless the user has moved the view, in the part of
  // the board nothing covers; when they would be drawn too small, at the smallest readable scale
  // centred on `focus` ([x, y], a cell; default the middle) instead.
  fit(x0, y0, x1, y1, force, focus) {
    if (this.userMoved && !force) return;
    const [W, H] = this.size();
    const [pt, pr, pb, pl] = this.insets();
    const w = Math.max(100, W - pl - pr);
    const h = Math.max(100, H - pt - pb);
    const bw = (x1 - x0 + 1) * T;
    const bh = (y1 - y0 + 1) * T;
    const want = Math.min(1, Math.min(w / bw, h / bh) * 0.92);
    this.s = Math.max(this.minScale(), this.floor || 0, want);
    let cx = ((x0 + x1 + 1) / 2) * T;
    let cy = ((y0 + y1 + 1) / 2) * T;
    if (want < this.s && focus) {
      // too big to show whole: follow the focus, but show no empty space past the board's edges
      const half = [w / 2 / this.s, h / 2 / this.s];
      cx = Math.min(Math.max(focus[0] * T + T / 2, x0 * T + half[0]), (x1 + 1) * T - half[0]);
      cy = Math.min(Math.max(focus[1] * T + T / 2, y0 * T + half[1]), (y1 + 1) * T - half[1]);
      if (bw * this.s <= w) cx = ((x0 + x1 + 1) / 2) * T;
      if (bh * this.s <= h) cy = ((y0 + y1 + 1) / 2) * T;
    }
    this.tx = pl + w / 2 - cx * this.s;
    this.ty = pt + h / 2 - cy * this.s;
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

// Fits a view to the cells placed so far ([[x, y, ...], ...], in the order they were placed), a
// cell of margin around them, following the last one when they are too many to show whole at
// a readable size: the replay's board at move n (replay.js may call it with its cells up to n,
// instead of the final board's bounds, so that the scale follows the move).
export function fitCells(view, cells, force) {
  if (!cells.length) return;
  let x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  for (const [x, y] of cells) {
    x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
  }
  const last = cells[cells.length - 1];
  view.fit(x0 - 1, y0 - 1, x1 + 1, y1 + 1, force, [last[0], last[1]]);
}
