// features.js: which tiles and segments of the board a feature covers, traced from the /api/tiles
// geometry (PROTOCOL.md "The tile catalogue"): cities and roads across edges, fields across
// half-edges, a cloister's 3x3 neighbourhood. The client draws scoring with it; the server's
// score event names one tile and segment of the feature (x, y, segment) and its size (tiles).

const EDGES = ["N", "E", "S", "W"];
const HALVES = ["Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn"];
export const STEP = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };
const OPPOSITE = { N: "S", E: "W", S: "N", W: "E" };
// The half-edge a neighbour shares: the north edge's west half meets the south edge's west half.
const ACROSS = { Nw: "Sw", Ne: "Se", En: "Wn", Es: "Ws", Se: "Ne", Sw: "Nw", Ws: "Es", Wn: "En" };
const KIND = { city: "city", road: "road", farm: "field", field: "field", barn: "field", cloister: "cloister" };

// An edge or half-edge of a tile at rotation 0, turned clockwise by rot degrees.
export function turnEdge(e, rot) {
  return EDGES[(EDGES.indexOf(e) + rot / 90) % 4];
}
export function turnHalf(h, rot) {
  return HALVES[(HALVES.indexOf(h) + (2 * rot) / 90) % 8];
}

// The sides of a segment on the board (edges for cities and roads, halves for fields).
export function segmentSides(seg, rot) {
  if (seg.kind === "field") return (seg.halves || []).map((h) => turnHalf(h, rot));
  return (seg.edges || []).map((e) => turnEdge(e, rot));
}

function segmentAt(tile, rot, kind, side) {
  for (const s of tile.segments) if (s.kind === kind && segmentSides(s, rot).includes(side)) return s;
  return null;
}

// The cells of a feature: [{x, y, segment}] (one entry per tile and segment), starting from the
// tile (x, y) and its segment `name` (or the first segment of that kind there when the name is
// unknown). board: the state's board ("x,y" -> {tile, rot}); tiles: the catalogue. A cloister
// covers itself and the placed tiles around it (segment null on those).
export function traceFeature(board, tiles, feature, x, y, name) {
  const kind = KIND[feature];
  const at = (cx, cy) => {
    const b = board[cx + "," + cy];
    return b && tiles[b.tile] ? { b, t: tiles[b.tile] } : null;
  };
  const first = at(x, y);
  if (!first || !kind) return [];
  if (kind === "cloister") {
    const out = [{ x, y, segment: name || "cloister" }];
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) if ((dx || dy) && at(x + dx, y + dy)) out.push({ x: x + dx, y: y + dy, segment: null });
    return out;
  }
  const ofKind = first.t.segments.filter((s) => s.kind === kind);
  const seg = ofKind.find((s) => s.name === name) || ofKind.find((s) => (s.flags || []).includes("barn")) || ofKind[0];
  if (!seg) return [];
  const out = [];
  const seen = new Set();
  const todo = [[x, y, seg]];
  while (todo.length) {
    const [cx, cy, s] = todo.pop();
    const key = cx + "," + cy + "," + s.name;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ x: cx, y: cy, segment: s.name });
    const rot = board[cx + "," + cy].rot;
    for (const side of segmentSides(s, rot)) {
      const edge = side[0];
      const [dx, dy] = STEP[edge];
      const n = at(cx + dx, cy + dy);
      if (!n) continue;
      const other = kind === "field" ? ACROSS[side] : OPPOSITE[edge];
      const ns = segmentAt(n.t, n.b.rot, kind, other);
      if (ns) todo.push([cx + dx, cy + dy, ns]);
    }
  }
  return out;
}

// Distinct tiles of a list of cells.
export function cellTiles(cells) {
  return new Set(cells.map((c) => c.x + "," + c.y)).size;
}

// The sides of a feature's cells that no placed tile continues (a city or road with none is
// complete), and its pennants; cells from traceFeature.
export function featureFacts(board, tiles, kind, cells) {
  let open = 0;
  let pennants = 0;
  if (kind === "cloister") return { open: 9 - cells.length, pennants: 0 };
  for (const c of cells) {
    const b = board[c.x + "," + c.y];
    const seg = tiles[b.tile].segments.find((s) => s.name === c.segment);
    if (!seg) continue;
    pennants += seg.pennants || 0;
    if (kind === "field") continue;
    for (const side of segmentSides(seg, b.rot)) {
      const [dx, dy] = STEP[side];
      if (!board[c.x + dx + "," + (c.y + dy)]) open++;
    }
  }
  return { open, pennants };
}

// What a feature would score if it were scored now (the base rules: a complete city 2 a tile
// and pennant, an unfinished one 1; a road 1 a tile; a cloister 1 a tile of its 3x3); null for a
// field (scored at the end, from the cities it touches).
export function featurePoints(kind, cells, facts) {
  const n = cellTiles(cells);
  if (kind === "city") return (facts.open ? 1 : 2) * (n + facts.pennants);
  if (kind === "road") return n;
  if (kind === "cloister") return cells.length;
  return null;
}

// The players holding a feature now: seats with the most meeples on it (large ones count two).
export function featureOwners(board, cells) {
  const count = new Map();
  for (const c of cells) {
    const b = board[c.x + "," + c.y];
    if (!b || !b.meeple || b.meeple.feature !== c.segment) continue;
    count.set(b.meeple.player, (count.get(b.meeple.player) || 0) + (b.meeple.kind === "large" ? 2 : 1));
  }
  const most = Math.max(0, ...count.values());
  return [...count.keys()].filter((p) => count.get(p) === most).sort((a, b) => a - b);
}

// The highlight of one feature across its tiles: a <g class="feature-hl"> of outlined cell
// areas in `layer` (an SVG group of the board's world, cleared first); returns {kind, cells,
// owners, points, open} or null. board may hold a tile not placed yet (the pending one).
const SVGNS = "http://www.w3.org/2000/svg";
const EDGE_MID = { N: [50, 0], E: [100, 50], S: [50, 100], W: [0, 50] };
const CORNER = { Nw: [0, 0], Ne: [100, 0], En: [100, 0], Es: [100, 100], Se: [100, 100], Sw: [0, 100], Ws: [0, 100], Wn: [0, 0] };
const CORNERS = { N: [[0, 0], [100, 0]], E: [[100, 0], [100, 100]], S: [[100, 100], [0, 100]], W: [[0, 100], [0, 0]] };

function add(parent, name, attrs) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  parent.appendChild(e);
  return e;
}

let hlLayer = null;

export function highlightFeature(layer, board, tiles, x, y, segment) {
  clearHighlight();
  const b = board[x + "," + y];
  const seg = b && tiles[b.tile] && tiles[b.tile].segments.find((s) => s.name === segment);
  if (!seg) return null;
  const kind = seg.kind;
  const cells = traceFeature(board, tiles, kind, x, y, segment);
  if (!cells.length) return null;
  const facts = featureFacts(board, tiles, kind, cells);
  const g = add(layer, "g", { class: "feature-hl feature-" + kind, "aria-hidden": "true", "data-tiles": cellTiles(cells) });
  for (const c of cells) {
    const cb = board[c.x + "," + c.y];
    const cg = add(g, "g", { transform: `translate(${c.x * 100},${c.y * 100})`, "data-pos": c.x + "," + c.y });
    const s = c.segment && tiles[cb.tile].segments.find((q) => q.name === c.segment);
    if (!s || s.kind === "cloister") {
      add(cg, "rect", { x: 6, y: 6, width: 88, height: 88, rx: 6, class: "hl-area" });
      continue;
    }
    const sides = segmentSides(s, cb.rot);
    if (kind === "road") {
      add(cg, "path", { d: sides.map((e) => `M${EDGE_MID[e][0]},${EDGE_MID[e][1]} L50,50`).join(" "), class: "hl-road" });
      continue;
    }
    for (const side of sides) {
      const pts = kind === "field" ? [CORNER[side], EDGE_MID[side[0]], [50, 50]] : [...CORNERS[side], [50, sides.length === 1 ? 36 : 50]];
      add(cg, "polygon", { points: pts.map((p) => p.join(",")).join(" "), class: "hl-area" });
    }
  }
  hlLayer = g;
  return { kind, cells, owners: featureOwners(board, cells), points: featurePoints(kind, cells, facts), open: facts.open };
}

export function clearHighlight() {
  if (hlLayer) hlLayer.remove();
  hlLayer = null;
}
