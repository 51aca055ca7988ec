// names.js: tiles and their features in words, from the /api/tiles geometry (PROTOCOL.md "The
// tile catalogue"): "a city corner and a road curve", "the city to the north", "the road
// east–west", "the field to the south-west", and board positions relative to the start tile.
// No internal names (BA.U, c1, f2) reach the page through these. The words come from the
// catalogues (i18n.js): "tile.*" names a tile, "where.*" a feature, "dir.*" the compass in the
// forms the phrases need, "pos.*" a position.
import { currentLanguage, listText, t } from "./i18n.js";

const EDGES = ["N", "E", "S", "W"];
const HALVES = ["Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn"];
// where a half-edge lies from the tile's centre (x east, y south)
const HALF_VEC = {
  Nw: [-1, -2], Ne: [1, -2], En: [2, -1], Es: [2, 1], Se: [1, 2], Sw: [-1, 2], Ws: [-2, 1], Wn: [-2, -1],
};

function rotEdge(e, rot) {
  return EDGES[(EDGES.indexOf(e) + rot / 90) % 4];
}
function rotHalf(h, rot) {
  return HALVES[(HALVES.indexOf(h) + rot / 45) % 8];
}
function order(edges) {
  return edges.slice().sort((a, b) => EDGES.indexOf(a) - EDGES.indexOf(b));
}
function opposite(a, b) {
  return Math.abs(EDGES.indexOf(a) - EDGES.indexOf(b)) === 2;
}

// A compass point in one of the forms the phrases use: "loc" (the city to the _, the field to
// the _; all eight points), "axis" (the road _–_), "open" (open to the _), "between" (curving
// between _ and _).
function dir(d, f) {
  return t(`dir.${d}.${f}`);
}

// The compass point of a vector (x east, y south): "N", "NE", ...; null near zero.
function compass(x, y) {
  if (Math.hypot(x, y) < 0.5) return null;
  const a = (Math.atan2(x, -y) * 180) / Math.PI; // 0 = north, clockwise
  const points = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
  return points[((Math.round(a / 45) % 8) + 8) % 8];
}

// Each feature is first a key and its parameters, so that fields that would read alike can get
// their sized form ("where.field.to.small"). i18n-keys: where.*
function cityWhere(edges) {
  const e = order(edges);
  if (e.length === 4) return ["where.city.all"];
  if (e.length === 3) return ["where.city.three", { dir: dir(EDGES.find((x) => !e.includes(x)), "open") }];
  if (e.length === 2 && opposite(e[0], e[1])) return ["where.city.axis", { a: dir(e[0], "axis"), b: dir(e[1], "axis") }];
  return ["where.city.to", { dirs: listText(e.map((x) => dir(x, "loc"))) }];
}

function roadWhere(edges) {
  const e = order(edges);
  if (e.length === 2 && opposite(e[0], e[1])) return ["where.road.axis", { a: dir(e[0], "axis"), b: dir(e[1], "axis") }];
  if (e.length === 2) return ["where.road.curve", { a: dir(e[0], "between"), b: dir(e[1], "between") }];
  return ["where.road.to", { dirs: listText(e.map((x) => dir(x, "loc"))) }];
}

function fieldWhere(halves) {
  if (!halves.length) return ["where.field.middle"];
  let x = 0;
  let y = 0;
  for (const h of halves) {
    x += HALF_VEC[h][0];
    y += HALF_VEC[h][1];
  }
  const c = compass(x / halves.length, y / halves.length);
  return c ? ["where.field.to", { dir: dir(c, "loc") }] : ["where.field.around"];
}

// The features of a tile placed at rot, in words: {feature name -> "the city to the north"}.
// Fields of one tile that would read alike are told apart by size ("the small field ...").
const whereCache = new WeakMap(); // tile -> {lang + rot -> words}
export function featureWords(tile, rot) {
  if (!tile) return {};
  rot = ((rot || 0) % 360 + 360) % 360;
  if (!whereCache.has(tile)) whereCache.set(tile, {});
  const cache = whereCache.get(tile);
  const ck = currentLanguage() + rot;
  if (cache[ck]) return cache[ck];
  const phrase = {};
  const fields = tile.segments.filter((s) => s.kind === "field");
  for (const s of tile.segments) {
    if (s.kind === "cloister") phrase[s.name] = ["where.cloister"];
    else if (s.kind === "city") phrase[s.name] = cityWhere((s.edges || []).map((e) => rotEdge(e, rot)));
    else if (s.kind === "road") phrase[s.name] = roadWhere((s.edges || []).map((e) => rotEdge(e, rot)));
    else if (s.kind === "field") phrase[s.name] = fields.length === 1 ? ["where.field.one"] : fieldWhere((s.halves || []).map((h) => rotHalf(h, rot)));
    else phrase[s.name] = ["where.unknown"];
  }
  const out = {};
  for (const [name, [key, params]] of Object.entries(phrase)) out[name] = t(key, params);
  // alike fields: the smaller gets "small", the larger "large"
  const seen = {};
  for (const s of tile.segments) (seen[out[s.name]] = seen[out[s.name]] || []).push(s);
  for (const segs of Object.values(seen)) {
    if (segs.length < 2 || phrase[segs[0].name][0] !== "where.field.to") continue;
    const size = (s) => (s.halves || s.edges || []).length;
    const sorted = segs.slice().sort((a, b) => size(a) - size(b));
    sorted.forEach((s, i) => {
      const adj = i === 0 ? "small" : i === sorted.length - 1 ? "large" : "middle";
      out[s.name] = t("where.field.to." + adj, phrase[s.name][1]);
    });
  }
  cache[ck] = out;
  return out;
}

// "the city to the north"; a feature the tile lacks is "that spot".
export function featureWhere(tile, feature, rot) {
  return featureWords(tile, rot)[feature] || t(feature === "cloister" ? "where.cloister" : "where.unknown");
}

const ROLE = { city: "knight", road: "thief", field: "farmer", cloister: "monk" };
// The figure a meeple on that feature is: "knight", "thief", "farmer", "monk".
export function featureRole(tile, feature) {
  const s = tile && tile.segments.find((x) => x.name === feature);
  return t("figure." + ((s && ROLE[s.kind]) || "meeple"));
}
// "on the city to the north" / "in the field" / "in the cloister": where a meeple is put.
export function featurePlace(tile, feature, rot) {
  const s = tile && tile.segments.find((x) => x.name === feature);
  const kind = s && ROLE[s.kind] ? s.kind : "other";
  return t("place." + kind, { where: featureWhere(tile, feature, rot) });
}

// Lists inside a tile's name; `joined` tells whether one of them had two parts or more.
let joined = false;
function parts(items) {
  if (items.length > 1) joined = true;
  return listText(items);
}

function cityPart(cities) {
  if (!cities.length) return null;
  const shape = (c) => {
    const e = c.edges || [];
    if (e.length === 4) return "full";
    if (e.length === 3) return "three";
    if (e.length === 2) return opposite(e[0], e[1]) ? "across" : "corner";
    return "edge";
  };
  const extras = (c) => {
    const w = [];
    if (c.pennants) w.push(t("tile.extra.pennant"));
    if (c.flags.includes("cathedral")) w.push(t("tile.extra.cathedral"));
    if (c.flags.includes("apothecary")) w.push(t("tile.extra.apothecary"));
    return w;
  };
  const besieged = cities.some((c) => c.flags.includes("siege")) ? ".besieged" : "";
  let s;
  if (cities.length === 1) s = t(`tile.city.${shape(cities[0])}${besieged}`);
  else if (cities.every((c) => shape(c) === "edge")) s = t("tile.cityEdges" + besieged, { count: cities.length });
  else s = t("tile.cities" + besieged, { count: cities.length });
  const w = cities.flatMap(extras);
  return w.length ? t("tile.with", { base: s, extras: parts(w) }) : s;
}

// centre: the tile has a cloister or a tithe barn, which the roads that end there lead to.
function roadPart(roads, centre) {
  if (!roads.length) return null;
  const through = roads.filter((r) => !r.end);
  const ends = roads.filter((r) => r.end);
  const out = [];
  if (through.length === 1) {
    const e = through[0].edges || [];
    out.push(t(e.length === 2 && opposite(e[0], e[1]) ? "tile.road.straight" : "tile.road.curve"));
  } else if (through.length > 1) {
    out.push(t("tile.road.curves", { count: through.length }));
  }
  const junction = ends.filter((r) => r.end === "junction");
  if (junction.length >= 4) out.push(t("tile.road.crossroads"));
  else if (junction.length) out.push(t(junction.length === 3 ? "tile.road.junction3" : "tile.road.junction"));
  for (const where of ["city", "cloister", "village", "barn"]) {
    const n = ends.filter((r) => r.end === where).length;
    if (!n) continue;
    // "a cloister with two roads": the roads to the centre need not say where they go
    if (centre && (where === "cloister" || where === "barn")) out.push(t("tile.road.plain", { count: n }));
    else out.push(t("tile.road.to." + where, { count: n }));
  }
  const list = parts(out);
  return roads.some((r) => r.flags.includes("inn")) ? t("tile.road.inn", { roads: list }) : list;
}

// A short name of the tile type: "a straight road", "a city edge and a road curve", "a
// cloister with a road". For the tile of a turn, the log, the replay.
export function tileName(tile) {
  joined = false;
  if (!tile) return t("tile.unknown");
  const segs = tile.segments;
  const cloister = segs.some((s) => s.kind === "cloister");
  const barn = segs.some((s) => s.flags && s.flags.includes("barn"));
  const centre = cloister ? "cloister" : barn ? "barn" : null;
  const city = cityPart(segs.filter((s) => s.kind === "city"));
  const road = roadPart(segs.filter((s) => s.kind === "road"), centre);
  const rest = [city, road].filter(Boolean);
  if (centre) return rest.length ? t(`tile.centre.${centre}.with`, { rest: parts(rest) }) : t(`tile.centre.${centre}`);
  return rest.length ? parts(rest) : t("tile.field");
}

// Whether a tile's name lists parts ("a city edge and a road curve", "a city with a pennant
// and a cathedral"), so that a sentence about it can say "with a meeple" rather than a second
// "and".
export function tileNameJoins(tile) {
  tileName(tile);
  return joined;
}

// A board position relative to the start tile (at 0,0; y grows south): "2 east and 1 north of
// the start", "the start tile".
export function placeWords(x, y) {
  if (x === 0 && y === 0) return t("pos.start");
  const p = [];
  if (y) p.push(t(y < 0 ? "pos.N" : "pos.S", { count: Math.abs(y) }));
  if (x) p.push(t(x > 0 ? "pos.E" : "pos.W", { count: Math.abs(x) }));
  return t("pos.of", { offsets: listText(p) });
}

// "on the start tile" or "2 east of the start": after "the city", "a knight".
export function atWords(x, y) {
  return x || y ? placeWords(x, y) : t("pos.onStart");
}
