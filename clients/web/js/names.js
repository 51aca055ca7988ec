// names.js: tiles and their features in words, from the /api/tiles geometry (PROTOCOL.md "The
// tile catalogue"): "a city corner and a road curve", "the city to the north", "the road
// east–west", "the field to the south-west", and board positions relative to the start tile.
// No internal names (BA.U, c1, f2) reach the page through these.

const EDGES = ["N", "E", "S", "W"];
const HALVES = ["Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn"];
const DIR = { N: "north", E: "east", S: "south", W: "west" };
// where a half-edge lies from the tile's centre (x east, y south)
const HALF_VEC = {
  Nw: [-1, -2], Ne: [1, -2], En: [2, -1], Es: [2, 1], Se: [1, 2], Sw: [-1, 2], Ws: [-2, 1], Wn: [-2, -1],
};
const COUNT = ["no", "one", "two", "three", "four", "five"];

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
function list(words) {
  if (words.length <= 1) return words.join("");
  return words.slice(0, -1).join(", ") + " and " + words[words.length - 1];
}

// The compass word of a vector (x east, y south): "north", "north-east", ...; null near zero.
function compass(x, y) {
  if (Math.hypot(x, y) < 0.5) return null;
  const a = (Math.atan2(x, -y) * 180) / Math.PI; // 0 = north, clockwise
  const names = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"];
  return names[((Math.round(a / 45) % 8) + 8) % 8];
}

function cityWhere(edges) {
  const e = order(edges);
  if (e.length === 4) return "the city covering the tile";
  if (e.length === 3) return `the city on three sides (open to the ${DIR[EDGES.find((x) => !e.includes(x))]})`;
  if (e.length === 2 && opposite(e[0], e[1])) return `the city ${DIR[e[0]]}–${DIR[e[1]]}`;
  return `the city to the ${list(e.map((x) => DIR[x]))}`;
}

function roadWhere(edges) {
  const e = order(edges);
  if (e.length === 1) return `the road to the ${DIR[e[0]]}`;
  if (e.length === 2 && opposite(e[0], e[1])) return `the road ${DIR[e[0]]}–${DIR[e[1]]}`;
  if (e.length === 2) return `the road curving between ${DIR[e[0]]} and ${DIR[e[1]]}`;
  return `the road to the ${list(e.map((x) => DIR[x]))}`;
}

function fieldWhere(halves) {
  let x = 0;
  let y = 0;
  for (const h of halves) {
    x += HALF_VEC[h][0];
    y += HALF_VEC[h][1];
  }
  const c = halves.length ? compass(x / halves.length, y / halves.length) : null;
  if (!halves.length) return "the field in the middle";
  return c ? `the field to the ${c}` : "the field around the middle";
}

// The features of a tile placed at rot, in words: {feature name -> "the city to the north"}.
// Fields of one tile that would read alike are told apart by size ("the small field ...").
const whereCache = new WeakMap(); // tile -> {rot -> words}
export function featureWords(tile, rot) {
  if (!tile) return {};
  rot = ((rot || 0) % 360 + 360) % 360;
  if (!whereCache.has(tile)) whereCache.set(tile, {});
  const byRot = whereCache.get(tile);
  if (byRot[rot]) return byRot[rot];
  const out = {};
  const fields = tile.segments.filter((s) => s.kind === "field");
  for (const s of tile.segments) {
    if (s.kind === "cloister") out[s.name] = "the cloister";
    else if (s.kind === "city") out[s.name] = cityWhere((s.edges || []).map((e) => rotEdge(e, rot)));
    else if (s.kind === "road") out[s.name] = roadWhere((s.edges || []).map((e) => rotEdge(e, rot)));
    else if (s.kind === "field") out[s.name] = fields.length === 1 ? "the field" : fieldWhere((s.halves || []).map((h) => rotHalf(h, rot)));
    else out[s.name] = "the " + s.kind;
  }
  // alike names: the smaller gets "small", the larger "large"
  const seen = {};
  for (const s of tile.segments) (seen[out[s.name]] = seen[out[s.name]] || []).push(s);
  for (const [words, segs] of Object.entries(seen)) {
    if (segs.length < 2) continue;
    const size = (s) => (s.halves || s.edges || []).length;
    const sorted = segs.slice().sort((a, b) => size(a) - size(b));
    sorted.forEach((s, i) => {
      const adj = i === 0 ? "small" : i === sorted.length - 1 ? "large" : "middle";
      out[s.name] = words.replace(/^the /, `the ${adj} `);
    });
  }
  byRot[rot] = out;
  return out;
}

// "the city to the north"; a feature the tile lacks is "that spot".
export function featureWhere(tile, feature, rot) {
  return featureWords(tile, rot)[feature] || (feature === "cloister" ? "the cloister" : "that spot");
}

const ROLE = { city: "knight", road: "thief", field: "farmer", cloister: "monk" };
// The figure a meeple on that feature is: "knight", "thief", "farmer", "monk".
export function featureRole(tile, feature) {
  const s = tile && tile.segments.find((x) => x.name === feature);
  return s ? ROLE[s.kind] || "meeple" : "meeple";
}
// "on the city" / "in the field" / "in the cloister"
export function featurePlace(tile, feature, rot) {
  const s = tile && tile.segments.find((x) => x.name === feature);
  const inside = s && (s.kind === "field" || s.kind === "cloister");
  return (inside ? "in " : "on ") + featureWhere(tile, feature, rot);
}

function cityPart(cities) {
  if (!cities.length) return null;
  const shape = (c) => {
    const e = c.edges || [];
    if (e.length === 4) return "city";
    if (e.length === 3) return "three-sided city";
    if (e.length === 2) return opposite(e[0], e[1]) ? "city across the tile" : "city corner";
    return "city edge";
  };
  const extras = (c) => {
    const w = [];
    if (c.pennants) w.push("a pennant");
    if (c.flags.includes("cathedral")) w.push("a cathedral");
    if (c.flags.includes("apothecary")) w.push("an apothecary");
    return w;
  };
  const besieged = cities.some((c) => c.flags.includes("siege")) ? "besieged " : "";
  let s;
  if (cities.length === 1) s = (/^[aeiou]/.test(besieged + shape(cities[0])) ? "an " : "a ") + besieged + shape(cities[0]);
  else if (cities.every((c) => shape(c) === "city edge")) s = `${COUNT[cities.length] || cities.length} ${besieged}city edges`;
  else s = `${COUNT[cities.length] || cities.length} ${besieged}cities`;
  const w = cities.flatMap(extras);
  return w.length ? `${s} with ${list(w)}` : s;
}

function roadPart(roads) {
  if (!roads.length) return null;
  const inn = roads.some((r) => r.flags.includes("inn")) ? " with an inn" : "";
  const through = roads.filter((r) => !r.end);
  const ends = roads.filter((r) => r.end);
  const parts = [];
  if (through.length === 1) {
    const e = through[0].edges || [];
    parts.push(e.length === 2 && opposite(e[0], e[1]) ? "a straight road" : "a road curve");
  } else if (through.length > 1) {
    parts.push(`${COUNT[through.length] || through.length} road curves`);
  }
  const junction = ends.filter((r) => r.end === "junction");
  if (junction.length >= 4) parts.push("a crossroads");
  else if (junction.length) parts.push(junction.length === 3 ? "a three-way junction" : "roads meeting at a junction");
  const to = { city: "into the city", cloister: "to the cloister", village: "to a village", barn: "to the barn" };
  for (const where of ["city", "cloister", "village", "barn"]) {
    const n = ends.filter((r) => r.end === where).length;
    if (n) parts.push(`${n === 1 ? "a road" : (COUNT[n] || n) + " roads"} ${to[where]}`);
  }
  return list(parts) + inn;
}

// A short name of the tile type: "a straight road", "a city edge and a road curve", "a
// cloister with a road". For the tile of a turn, the log, the replay.
export function tileName(tile) {
  if (!tile) return "a tile";
  const segs = tile.segments;
  const city = cityPart(segs.filter((s) => s.kind === "city"));
  let road = roadPart(segs.filter((s) => s.kind === "road"));
  const cloister = segs.some((s) => s.kind === "cloister");
  const barn = segs.some((s) => s.flags && s.flags.includes("barn"));
  if (road && (cloister || barn)) road = road.replace(/ to the (cloister|barn)$/, "");
  const rest = [city, road].filter(Boolean);
  const centre = cloister ? "a cloister" : barn ? "a tithe barn" : null;
  if (centre) return rest.length ? `${centre} with ${list(rest)}` : centre;
  return rest.length ? list(rest) : "a field";
}

// A board position relative to the start tile (at 0,0; y grows south): "2 east and 1 north of
// the start", "the start tile".
export function placeWords(x, y) {
  if (x === 0 && y === 0) return "the start tile";
  const p = [];
  if (y) p.push(`${Math.abs(y)} ${y < 0 ? "north" : "south"}`);
  if (x) p.push(`${Math.abs(x)} ${x > 0 ? "east" : "west"}`);
  return p.join(" and ") + " of the start";
}

// "on the start tile" or "2 east of the start": after "the city", "a knight".
export function atWords(x, y) {
  return x || y ? placeWords(x, y) : "on the start tile";
}
