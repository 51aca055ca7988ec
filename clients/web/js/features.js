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
