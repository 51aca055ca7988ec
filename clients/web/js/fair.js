// fair.js: the fair draw in the browser (PROTOCOL.md "The fair draw", fair.html).
//
// A seated player's contribution (entropyNew: 32 bytes from crypto.getRandomValues, remembered
// per room so the replay can show that it is in the record), and the check of a finished game's
// draw from its record alone, with crypto.subtle: the commitment is SHA-256 of the secret, the
// seed follows from the secret and the entropies, and dealing from that seed (a port of the
// engine's xoshiro256** generator and Fisher-Yates shuffle, common/rng.c and common/game.c)
// draws exactly the tiles of the replay's moves and discards. The same steps as carc-verify.

import { t } from "./i18n.js";

const SCHEME = "carcd-draw/1";
const M64 = (1n << 64n) - 1n;
const HEX64 = /^[0-9a-f]{64}$/;

const entropyKey = (room) => "carcd.entropy." + room;

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function unhex(s) {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(2 * i, 2), 16);
  return out;
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

// 32 fresh random bytes as 64 hex digits.
export function entropyNew() {
  return hex(crypto.getRandomValues(new Uint8Array(32)));
}

// The server acknowledged data for room: remembered, so that the replay can find it.
export function entropyKeep(room, data) {
  try {
    localStorage.setItem(entropyKey(room), data);
  } catch (e) {
    // private mode: the check of the replay just cannot name ours
  }
}

// The entropy this browser sent for room, or null.
export function entropySent(room) {
  try {
    return localStorage.getItem(entropyKey(room));
  } catch (e) {
    return null;
  }
}

// The seed of step 3: SHA-256 of the text, its first 8 bytes big-endian, >> 11.
export async function fairSeed(secret, entropies) {
  const text = SCHEME + "\n" + secret + "\n" + entropies.map((e) => (e || "") + "\n").join("");
  const d = await sha256(new TextEncoder().encode(text));
  let v = 0n;
  for (let i = 0; i < 8; i++) v = (v << 8n) | BigInt(d[i]);
  return v >> 11n;
}

// common/rng.c, in BigInt.
class Rng {
  constructor(seed) {
    let x = BigInt(seed) & M64;
    this.s = [];
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b97f4a7c15n) & M64;
      let z = x;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
      this.s.push(z ^ (z >> 31n));
    }
  }

  next() {
    const s = this.s;
    const rotl = (x, k) => ((x << BigInt(k)) | (x >> BigInt(64 - k))) & M64;
    const result = (rotl((s[1] * 5n) & M64, 7) * 9n) & M64;
    const t = (s[1] << 17n) & M64;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }

  // Lemire's multiply-and-reject, as carc_rng_below.
  below(n) {
    const N = BigInt(n);
    let m = (this.next() >> 32n) * N;
    let low = m & 0xffffffffn;
    if (low < N) {
      const threshold = ((1n << 32n) - N) % N;
      while (low < threshold) {
        m = (this.next() >> 32n) * N;
        low = m & 0xffffffffn;
      }
    }
    return Number(m >> 32n);
  }
}

// The draw pile of common/game.c deck_build: catalogue order, one start tile out, shuffled.
export function dealFrom(seed, sets, start, tiles) {
  const deck = [];
  let startLeft = true;
  for (const [id, t] of Object.entries(tiles)) {
    if (!sets.includes(t.set)) continue;
    for (let c = 0; c < t.count; c++) {
      if (id === start && startLeft) {
        startLeft = false;
        continue;
      }
      deck.push(id);
    }
  }
  const rng = new Rng(seed);
  for (let i = deck.length - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

// Check record's draw against replay (GET /api/games/{id}/replay) with the catalogue tiles.
// Returns {status: "verified" | "failed" | "none", say, mine}: say() is the result in words in
// the page's language (fair.* in the catalogues); mine: this browser's entropy is in the
// record: true, false, or null when it sent none. i18n-keys: fair.fail.* fair.verified fair.verified.*
export async function verifyDraw(record, replay, tiles, room) {
  const fair = record && record.fair;
  if (!fair) return { status: "none", say: () => t("fair.none") };
  const fail = (key, params) => ({ status: "failed", say: () => t("fair.failed", { reason: t(key, params) }) });
  if (!HEX64.test(fair.secret || "") || !HEX64.test(fair.commitment || "")) return fail("fair.fail.malformed");
  const commit = hex(await sha256(unhex(fair.secret)));
  if (commit !== fair.commitment) return fail("fair.fail.commitment");
  const ents = fair.entropy || [];
  if (ents.length !== record.players.length) return fail("fair.fail.entropies", { count: ents.length, players: record.players.length });
  if (ents.some((e) => e !== null && !HEX64.test(e))) return fail("fair.fail.entropy");
  const seed = await fairSeed(fair.secret, ents);
  if (record.seed === undefined || BigInt(record.seed) !== seed) return fail("fair.fail.seed");
  if (record.deck) return fail("fair.fail.deck");
  const deck = dealFrom(seed, record.sets || ["base"], record.start || "BA.D", tiles);
  let pos = 0;
  // what: [key, params] of the draw ("move 3", "after move 3 (a discard)"); a mismatch throws
  // the words of what went wrong as a function of the language
  // i18n-keys: fair.draw.*
  const mismatch = (say) => Object.assign(new Error("the draw does not match"), { say });
  const drawn = (id, what) => {
    if (pos >= deck.length) throw mismatch(() => t("fair.fail.ends", { what: t(...what) }));
    const want = deck[pos++];
    if (want !== id) throw mismatch(() => t("fair.fail.tile", { what: t(...what), tile: id, want }));
  };
  const discards = (events, what) => {
    for (const ev of events || []) if (ev.type === "discard") drawn(ev.tile, [what[0] + ".discard", what[1]]);
  };
  try {
    discards(replay.start.events, ["fair.draw.first"]);
    for (const m of replay.moves) {
      drawn(m.tile, ["fair.draw.move", { n: m.move + 1 }]);
      if (m.skip) {
        // the tile goes under the pile (common/game.c skip_apply)
        deck.splice(pos - 1, 1);
        deck.push(m.tile);
        pos--;
      }
      discards(m.events, ["fair.draw.after", { n: m.move + 1 }]);
    }
  } catch (e) {
    if (!e || typeof e.say !== "function") throw e;
    return { status: "failed", say: () => t("fair.failed", { reason: t("fair.fail.order", { detail: e.say() }) }) };
  }
  const given = ents.filter((e) => e).length;
  const ours = room ? entropySent(room) : null;
  const mine = ours ? ents.includes(ours) : null;
  const key = mine === true ? "fair.verified.mine" : mine === false ? "fair.verified.notMine" : "fair.verified";
  const params = { count: replay.moves.length, given, players: ents.length };
  return { status: "verified", say: () => t(key, params), mine };
}
