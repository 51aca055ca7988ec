// words.js: events (PROTOCOL.md "Events") as sentences; tiles and features by name (names.js),
// never by id; bots, clocks, rule variants and error codes in words. Every text comes from the
// language's catalogue (i18n.js): "ev.*" the events, "score.*" the parts of a scoring, "bot.*",
// "timeout.*", "dur.*", "variant.*", "error.*".
import { atWords, featurePlace, featureRole, featureWhere, placeWords, tileName, tileNameJoins } from "./names.js";
import { hasKey, listText, signed, t } from "./i18n.js";
export { atWords, featurePlace, featureRole, featureWhere, placeWords, tileName };

export function names(list) {
  return listText(list);
}

// A player's name as shown. The server names the bots it seats "Greedy bot", "Random bot 2"
// (server/game/turn.c turn_bot_name): those read in the page's language.
const BOT_NAME = /^(Random|Greedy|Strong) bot(?: (\d+))?$/;
export function playerName(name) {
  const m = BOT_NAME.exec(name || "");
  if (!m) return name;
  const n = t(`bot.${m[1].toLowerCase()}.seat`);
  return m[2] ? `${n} ${m[2]}` : n;
}

// A set's name (set.ID in the catalogues); an unknown set by its id.
export function setName(id) {
  return hasKey("set." + id) ? t("set." + id) : id;
}

// A feature of a tile placed at rot in words: "the city to the north (knight)" when role.
export function featureName(tile, feature, rot, role) {
  const where = featureWhere(tile, feature, rot);
  return role ? t("feature.withRole", { where, figure: featureRole(tile, feature) }) : where;
}

// who(seat) -> a name. tiles: the catalogue's tiles. prevSeats: the seats before the delta
// (to tell a removed bot from a player who left the lobby), when known.
export function describe(ev, who, tiles, prevSeats) {
  const tname = (id) => tileName(tiles && tiles[id]);
  switch (ev.type) {
    case "seat": {
      const seat = ev.seat + 1;
      if (ev.name === null) {
        const was = prevSeats && prevSeats[ev.seat];
        if (was && was.bot) return t("ev.seat.botRemoved", { name: was.name ? playerName(was.name) : t("ev.theBot"), seat });
        return t("ev.seat.free", { seat });
      }
      const name = playerName(ev.name);
      if (ev.bot) return t("ev.seat.bot", { name, level: botLevelName(ev.bot), seat });
      return t(ev.connected ? "ev.seat.taken" : "ev.seat.lost", { name, seat });
    }
    case "timeout": {
      const rule = ["bot", "skip", "forfeit"].includes(ev.on_timeout) ? ev.on_timeout : "other";
      return t("ev.timeout." + rule, { player: who(ev.seat) });
    }
    case "skip":
      return t("ev.skip", { player: who(ev.player), tile: tname(ev.tile) });
    case "autoplay":
      return autoplayEvent(who(ev.seat), ev.reason);
    case "start":
      return t("ev.start", { players: names(ev.players.map(playerName)) });
    case "placed": {
      const tile = tiles && tiles[ev.tile];
      const p = { player: who(ev.player), tile: tileName(tile) };
      let s;
      if (ev.meeple) {
        // "a straight road and a meeple on ...", "a city edge and a road curve, with a meeple on ..."
        p.meeple = t(ev.meeple.kind === "large" ? "meeple.large.obj" : "meeple.normal.obj");
        p.place = featurePlace(tile, ev.meeple.feature, ev.rot);
        s = t(tileNameJoins(tile) ? "ev.placed.meepleWith" : "ev.placed.meeple", p);
        if (ev.escape) s += " " + t("ev.placed.escapeToo", { at: atWords(ev.escape.x, ev.escape.y) });
        return s;
      }
      if (ev.escape) return t("ev.placed.escape", { ...p, at: atWords(ev.escape.x, ev.escape.y) });
      return t("ev.placed", p);
    }
    case "score":
      return scoreSentence(ev, who);
    case "barn": {
      const p = { count: Math.max(1, ev.scorers.length), who: names(ev.scorers.map(who)), farms: t("score.farms", { count: ev.farms }) };
      if (ev.tithe) return t("ev.tithe", p);
      p.tiles = t("score.tiles", { count: ev.tiles });
      p.points = t(ev.scorers.length > 1 ? "score.pointsEach" : "score.points", { points: signed(ev.points) });
      return t("ev.barn", p);
    }
    case "escape": {
      const seat = (ev.returned || []).findIndex((n) => n > 0);
      const at = atWords(ev.x, ev.y);
      return seat >= 0 ? t("ev.escape", { player: who(seat), at }) : t("ev.escape.anon", { at });
    }
    case "discard":
      return t("ev.discard", { tile: tname(ev.tile) });
    case "herbs": {
      const seat = (ev.delta || []).findIndex((n) => n !== 0);
      return t("ev.herbs", {
        count: ev.herbs, player: seat >= 0 ? who(seat) : t("ev.aPlayer"),
        points: signed(seat >= 0 ? ev.delta[seat] : 5 * ev.herbs),
      });
    }
    default:
      return t("ev.other");
  }
}

const FEATURES = ["city", "road", "farm", "cloister"];

export function scoreSentence(ev, who) {
  const n = ev.scorers.length;
  const w = n ? names(ev.scorers.map(who)) : t("score.nobody");
  const f = FEATURES.includes(ev.feature) ? ev.feature : "other";
  const first = ev.delta ? ev.delta[ev.scorers[0]] : ev.points;
  if (ev.feature === "farm" && /^c/.test(ev.segment || "")) {
    // 1st-edition farm scoring (options.farms "first"): one event per player, naming a city
    return t(ev.besieged ? "ev.farmFirst.besieged" : "ev.farmFirst", {
      who: w, count: ev.cities, besieged: ev.besieged, points: signed(first),
    });
  }
  const final = ev.final && ev.feature !== "farm";
  let what;
  if (f === "farm") {
    what = t("score.what.farm", { count: ev.cities });
    if (ev.besieged) what += t("score.besiegedCities", { count: ev.besieged });
  } else if (f === "cloister") {
    what = t(final ? "score.what.cloister.final" : "score.what.cloister", { count: ev.tiles });
  } else {
    what = t(`score.what.${f}${final ? ".final" : ""}`, { count: ev.tiles });
    if (ev.pennants) what += t("score.pennants", { count: ev.pennants });
  }
  const extras = [];
  if (ev.inn) extras.push(t("score.inn"));
  if (ev.cathedral) extras.push(t("score.cathedral"));
  if (ev.besieged && ev.feature === "city") extras.push(t("score.besieged"));
  if (ev.apothecary) extras.push(t("score.apothecary"));
  if (ev.void) extras.push(t("score.void"));
  if (ev.herbs_to !== undefined && ev.herbs) extras.push(t("score.herbsTo", { player: who(ev.herbs_to), count: ev.herbs }));
  // 2nd-edition farms (options.farms "second"): a city already scored through another farm is not
  // scored again, so tied scorers may get different points
  const uneven = ev.delta && ev.scorers.some((s) => ev.delta[s] !== ev.delta[ev.scorers[0]]);
  const points = !n ? t("score.noPoints")
    : uneven ? t("score.pointsUneven", { list: ev.scorers.map((s) => t("score.pointsOf", { player: who(s), points: signed(ev.delta[s]) })).join(", ") })
    : t(n > 1 ? "score.pointsEach" : "score.points", { points: signed(first) });
  const verb = final ? "final" : ev.feature === "farm" ? "farm" : "done";
  // count: the scorers, for the verb ("Ann completed", "Ann and Bob completed", "Nobody ...")
  return t("ev.score." + verb, {
    count: n, who: w, what, extras: extras.length ? t("score.extras", { list: extras.join(", ") }) : "", points,
  });
}

// ---------------------------------------------------------------------------------------------
// Bots, clocks, take-overs (PROTOCOL.md "Clocks and bots")

// The levels, with their names and hints in the catalogue: bot.LEVEL.name, bot.LEVEL.hint.
export const BOT_LEVELS = ["random", "greedy", "strong"];

export function botLevelName(level) {
  return BOT_LEVELS.includes(level) ? t(`bot.${level}.name`) : level;
}
export function botLevelHint(level) {
  return BOT_LEVELS.includes(level) ? t(`bot.${level}.hint`) : "";
}

// The create form's "When time runs out" choices: timeout.VALUE.choice; timeout.VALUE.rule
// is the same as a phrase inside the room's options.
export const TIMEOUT_RULES = ["bot", "skip", "forfeit"];

// The short mark of a seat a bot plays for its player: "Bot playing for Ann — left".
const AUTOPLAY_REASONS = ["left", "offline", "timeout", "idle", "forfeit"];
export function autoplayMark(name, reason) {
  return t("autoplay.mark", { player: name, reason: AUTOPLAY_REASONS.includes(reason) ? t("autoplay.short." + reason) : reason });
}

// What the player of that seat is told about their own seat.
export function autoplayMine(reason) {
  return t(AUTOPLAY_REASONS.includes(reason) ? "autoplay.mine." + reason : "autoplay.mine.other");
}
// Reasons a player may end by taking the seat back (`resume`).
export const RESUMABLE = ["left", "offline", "idle"];

function autoplayEvent(player, reason) {
  if (reason === null || reason === undefined) return t("ev.autoplay.back", { player });
  if (AUTOPLAY_REASONS.includes(reason)) return t("ev.autoplay." + reason, { player });
  return t("ev.autoplay.other", { player, reason });
}

// Time left on a clock: m:ss under an hour, h:mm:ss under a day, else "2d 5h".
export function formatClock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n) => String(n).padStart(2, "0");
  if (s < 3600) return `${Math.floor(s / 60)}:${two(s % 60)}`;
  if (s < 86400) return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return t("dur.clockDays", { d: Math.floor(s / 86400), h: Math.floor((s % 86400) / 3600) });
}

// The time left on a clock of days per move (per_move): "2 d 4 h", "5 h 12 min", else m:ss.
export function formatDeadline(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s >= 86400) return t("dur.daysHours", { d: Math.floor(s / 86400), h: Math.floor((s % 86400) / 3600) });
  if (s >= 3600) return t("dur.hoursMinutes", { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
  return formatClock(ms);
}

// A duration in seconds in words: "5 min", "1 h", "3 days", "90 s".
export function durationText(sec) {
  if (sec >= 86400 && sec % 86400 === 0) return t("dur.days", { count: sec / 86400 });
  if (sec >= 3600 && sec % 3600 === 0) return t("dur.hours", { count: sec / 3600 });
  if (sec >= 60 && sec % 60 === 0) return t("dur.minutes", { count: sec / 60 });
  if (sec >= 60 && sec < 3600) return t("dur.minSec", { min: Math.floor(sec / 60), sec: sec % 60 });
  return t("dur.seconds", { count: sec });
}

// The room's clock as a phrase: "clock 5 min + 10 s a move; out of time: a bot plays the turn",
// "clock 2 days per move; out of time: …; paused on weekends (Europe/Berlin)".
export function clockText(c) {
  if (!c) return t("clock.none");
  const rule = TIMEOUT_RULES.includes(c.on_timeout) ? t(`timeout.${c.on_timeout}.rule`) : c.on_timeout;
  if (typeof c.per_move === "number") {
    const text = t("clock.perMove", { time: durationText(c.per_move), rule });
    return c.weekend_pause ? `${text}; ${t("clock.weekend", { zone: c.time_zone || "UTC" })}` : text;
  }
  return t("clock.text", { initial: durationText(c.initial), increment: durationText(c.increment), rule });
}

// The rule variants of a room's options (RULES.md 2.8) that differ from the current rules, as
// phrases: [] for a room with the current rules and the seated order.
export function variantTexts(o) {
  const out = [];
  if (!o) return out;
  if (o.farms === "second") out.push(t("variant.farms2"));
  if (o.farms === "first") out.push(t("variant.farms1"));
  if (o.small_city === 2) out.push(t("variant.smallCity2"));
  if (o.seat_order === "random") out.push(t("variant.randomOrder"));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Errors (PROTOCOL.md "Errors") in plain words

// Every wire code of common/err.h, and the client's own offline and closed: code -> the key of
// its sentence in the catalogues (tests/i18n/check.mjs checks err.h against them).
// i18n-keys: error.*
export const ERRORS = Object.fromEntries([
  "bad_request", "game_over", "not_your_turn", "wrong_tile", "position_taken", "not_adjacent", "edge_mismatch",
  "bad_rotation", "unknown_feature", "feature_occupied", "no_meeple_left", "farmers_off", "large_meeple_unavailable",
  "illegal_escape", "bad_player_count", "bad_sets", "bad_deck", "bad_record", "malformed_json", "bad_version",
  "unknown_type", "out_of_memory", "io_error", "no_such_room", "room_full", "wrong_password", "bad_token", "not_host",
  "wrong_phase", "spectator", "not_in_room", "already_in_room", "not_enough_players", "not_a_bot", "time_out",
  "rate_limited", "message_too_big", "limit_reached", "too_many_rooms", "name_taken", "sign_in_required", "storage_error",
  "offline", "closed",
].map((c) => [c, "error." + c]));

// A protocol error code in plain words; the server's own sentence for codes we do not know.
export function errorText(code, message) {
  if (Object.hasOwn(ERRORS, code) && hasKey(ERRORS[code])) return t(ERRORS[code]);
  return message ? message.charAt(0).toUpperCase() + message.slice(1) : t("error.unknown");
}
