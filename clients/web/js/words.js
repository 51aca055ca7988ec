// words.js: events (PROTOCOL.md "Events") as English sentences; tiles and features by name
// (names.js), never by id.
import { atWords, featurePlace, featureRole, featureWhere, placeWords, tileName } from "./names.js";
export { atWords, featurePlace, featureRole, featureWhere, placeWords, tileName };

const FEATURE_WORD = { city: "city", road: "road", farm: "farm", cloister: "cloister", field: "field" };

export function names(list) {
  if (list.length <= 1) return list.join("");
  return list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
}

function pts(n) {
  return (n >= 0 ? "+" : "") + n;
}

// A feature of a tile placed at rot in words: "the city to the north (knight)" when role.
export function featureName(tile, feature, rot, role) {
  const w = featureWhere(tile, feature, rot);
  return role ? `${w} (${featureRole(tile, feature)})` : w;
}

// who(seat) -> a name. tiles: the catalogue's tiles. prevSeats: the seats before the delta
// (to tell a removed bot from a player who left the lobby), when known.
export function describe(ev, who, tiles, prevSeats) {
  const tname = (id) => tileName(tiles && tiles[id]);
  switch (ev.type) {
    case "seat": {
      if (ev.name === null) {
        const was = prevSeats && prevSeats[ev.seat];
        if (was && was.bot) return `${was.name || "The bot"} was removed from seat ${ev.seat + 1}.`;
        return `Seat ${ev.seat + 1} is free again.`;
      }
      if (ev.bot) return `${ev.name}, a computer player (${botLevelName(ev.bot)}), takes seat ${ev.seat + 1}.`;
      return ev.connected ? `${ev.name} is at seat ${ev.seat + 1}.` : `${ev.name} lost the connection.`;
    }
    case "timeout":
      return `${who(ev.seat)}'s time ran out: ${TIMEOUT_DONE[ev.on_timeout] ? TIMEOUT_DONE[ev.on_timeout](who(ev.seat)) : "the time-out rule applies."}`;
    case "skip":
      return `${who(ev.player)}'s turn was skipped: the tile (${tname(ev.tile)}) goes under the draw pile.`;
    case "autoplay":
      return autoplayEvent(who(ev.seat), ev.reason);
    case "start":
      return `The game started: ${names(ev.players)}.`;
    case "placed": {
      const tile = tiles && tiles[ev.tile];
      const name = tileName(tile);
      let s = `${who(ev.player)} placed ${name}`;
      if (ev.meeple) {
        // "a straight road and a meeple on ...", "a city edge and a road curve, with a meeple on ..."
        s += `${name.includes(" and ") ? ", with" : " and"} ${ev.meeple.kind === "large" ? "the large meeple" : "a meeple"} ${featurePlace(tile, ev.meeple.feature, ev.rot)}`;
      }
      if (ev.escape) s += `; a knight escapes from the city ${atWords(ev.escape.x, ev.escape.y)}`;
      return s + ".";
    }
    case "score":
      return scoreSentence(ev, who);
    case "barn": {
      const w = names(ev.scorers.map(who));
      if (ev.tithe) return `${w} paid the tithe on a barn's ${ev.farms} farm(s).`;
      return `${w} scored a barn (${ev.tiles} tiles, ${ev.farms} farm${ev.farms === 1 ? "" : "s"}): ${pts(ev.points)}${ev.scorers.length > 1 ? " each" : ""}.`;
    }
    case "escape": {
      const seat = (ev.returned || []).findIndex((n) => n > 0);
      return `${seat >= 0 ? who(seat) + "'s" : "A"} knight escaped from the besieged city ${atWords(ev.x, ev.y)}.`;
    }
    case "discard":
      return `A tile (${tname(ev.tile)}) fits nowhere and was discarded.`;
    case "herbs": {
      const seat = (ev.delta || []).findIndex((n) => n !== 0);
      return `${seat >= 0 ? who(seat) : "A player"} cashes ${ev.herbs} herb token${ev.herbs === 1 ? "" : "s"}: ${pts(seat >= 0 ? ev.delta[seat] : 5 * ev.herbs)}.`;
    }
    default:
      return "Something happened in the game.";
  }
}

export function scoreSentence(ev, who) {
  const w = ev.scorers.length ? names(ev.scorers.map(who)) : "Nobody";
  const f = FEATURE_WORD[ev.feature] || ev.feature;
  let what;
  if (ev.feature === "farm" && /^c/.test(ev.segment || "")) {
    // 1st-edition farm scoring (options.farms "first"): one event per player, naming a city
    const b = ev.besieged ? ` (${ev.besieged} besieged)` : "";
    return `${w} had the most farmers around ${ev.cities} completed cit${ev.cities === 1 ? "y" : "ies"}${b}: ${pts(ev.delta ? ev.delta[ev.scorers[0]] : ev.points)}.`;
  }
  if (ev.feature === "farm") {
    what = `a farm next to ${ev.cities} completed cit${ev.cities === 1 ? "y" : "ies"}`;
    if (ev.besieged) what += ` (${ev.besieged} besieged)`;
  } else if (ev.feature === "cloister") {
    what = `a cloister with ${ev.tiles} tile${ev.tiles === 1 ? "" : "s"} around it`;
  } else {
    what = `a ${f} of ${ev.tiles} tile${ev.tiles === 1 ? "" : "s"}`;
    if (ev.pennants) what += ` and ${ev.pennants} pennant${ev.pennants === 1 ? "" : "s"}`;
  }
  const extras = [];
  if (ev.inn) extras.push("with an inn");
  if (ev.cathedral) extras.push("with a cathedral");
  if (ev.besieged && ev.feature === "city") extras.push("besieged");
  if (ev.apothecary) extras.push("apothecary bonus");
  if (ev.void) extras.push("worth nothing: unfinished");
  if (ev.herbs_to !== undefined && ev.herbs) extras.push(`${who(ev.herbs_to)} takes ${ev.herbs} herb token${ev.herbs === 1 ? "" : "s"}`);
  const verb = ev.final ? (ev.feature === "farm" ? "scored" : "scored the unfinished") : ev.feature === "farm" ? "scored" : "completed";
  const each = ev.scorers.length > 1 ? " each" : "";
  // 2nd-edition farms (options.farms "second"): a city already scored through another farm is not
  // scored again, so tied scorers may get different points
  const uneven = ev.delta && ev.scorers.some((s) => ev.delta[s] !== ev.delta[ev.scorers[0]]);
  const pointsText = !ev.scorers.length ? " (no meeple there, no points)"
    : uneven ? `: ${ev.scorers.map((s) => `${who(s)} ${pts(ev.delta[s])}`).join(", ")}`
    : `: ${pts(ev.delta ? ev.delta[ev.scorers[0]] : ev.points)}${each}`;
  const x = extras.length ? ` (${extras.join(", ")})` : "";
  if (ev.final && ev.feature !== "farm") return `${w} ${verb} ${what.replace(/^an? /, "")}${x}${pointsText}.`;
  return `${w} ${verb} ${what}${x}${pointsText}.`;
}

// ---------------------------------------------------------------------------------------------
// Bots, clocks, take-overs (PROTOCOL.md "Clocks and bots")

export const BOT_LEVELS = [
  { level: "random", name: "Random", hint: "Plays any legal move: easy to beat, and quick." },
  { level: "greedy", name: "Greedy", hint: "Takes the most points it can on each turn." },
  { level: "strong", name: "Strong", hint: "Thinks ahead over the tiles still unseen: the hardest, about a second a move." },
];

export function botLevelName(level) {
  const b = BOT_LEVELS.find((x) => x.level === level);
  return b ? b.name : level;
}

const TIMEOUT_DONE = {
  bot: (n) => `a bot plays this turn for ${n}.`,
  skip: () => "the turn is skipped.",
  forfeit: (n) => `${n} forfeits, and a bot plays the seat to the end of the game.`,
};

// The create form's "When time runs out" choices.
export const TIMEOUT_RULES = [
  { value: "bot", text: "A bot plays the turn" },
  { value: "skip", text: "Skip the turn" },
  { value: "forfeit", text: "Forfeit: a bot plays the rest" },
];

// The short mark of a seat a bot plays for its player: "Bot playing for Ann — left".
const AUTOPLAY_SHORT = { left: "left", offline: "offline", timeout: "time out", idle: "idle", forfeit: "forfeited" };
export function autoplayMark(name, reason) {
  return `Bot playing for ${name} — ${AUTOPLAY_SHORT[reason] || reason}`;
}

// What the player of that seat is told about their own seat.
const AUTOPLAY_MINE = {
  left: "A bot is playing your seat because you left the game.",
  offline: "A bot is playing your seat because you were offline on your turn.",
  timeout: "Your time ran out: a bot plays this turn for you.",
  idle: "A bot is playing your seat because your time ran out three turns in a row.",
  forfeit: "Your time ran out and you forfeited: a bot plays your seat to the end of the game. You can still watch and chat.",
};
export function autoplayMine(reason) {
  return AUTOPLAY_MINE[reason] || "A bot is playing your seat.";
}
// Reasons a player may end by taking the seat back (`resume`).
export const RESUMABLE = ["left", "offline", "idle"];

function autoplayEvent(n, reason) {
  switch (reason) {
    case null:
    case undefined:
      return `${n} took the seat back from the bot.`;
    case "left":
      return `${n} left the game: a bot plays for ${n} until ${n} comes back.`;
    case "offline":
      return `${n} is offline: a bot plays for ${n} until ${n} comes back.`;
    case "timeout":
      return `A bot plays this turn for ${n}.`;
    case "idle":
      return `${n}'s time ran out three turns in a row: a bot plays for ${n} until ${n} comes back.`;
    case "forfeit":
      return `A bot plays for ${n} to the end of the game.`;
    default:
      return `A bot plays for ${n} (${reason}).`;
  }
}

// Time left on a clock: m:ss under an hour, h:mm:ss under a day, else "2d 5h".
export function formatClock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n) => String(n).padStart(2, "0");
  if (s < 3600) return `${Math.floor(s / 60)}:${two(s % 60)}`;
  if (s < 86400) return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

// A duration in seconds in words: "5 min", "1 h", "3 days", "90 s".
export function durationText(sec) {
  const units = [[86400, "day", "days"], [3600, "h", "h"], [60, "min", "min"]];
  for (const [n, one, many] of units) if (sec >= n && sec % n === 0) return `${sec / n} ${sec === n ? one : many}`;
  if (sec >= 60 && sec < 3600) return `${Math.floor(sec / 60)} min ${sec % 60} s`;
  return `${sec} s`;
}

// The room's clock as a phrase: "clock 5 min + 10 s a move; out of time: a bot plays the turn".
export function clockText(c) {
  if (!c) return "no clock";
  const rule = TIMEOUT_RULES.find((r) => r.value === c.on_timeout);
  return `clock ${durationText(c.initial)} + ${durationText(c.increment)} a move; out of time: ${rule ? rule.text.toLowerCase() : c.on_timeout}`;
}

// The rule variants of a room's options (RULES.md 2.8) that differ from the current rules, as
// phrases: [] for a room with the current rules and the seated order.
export function variantTexts(o) {
  const out = [];
  if (!o) return out;
  if (o.farms === "second") out.push("2nd-edition farms (a city once per player)");
  if (o.farms === "first") out.push("1st-edition farms (4 a city to the most farmers)");
  if (o.small_city === 2) out.push("1st-edition small city (2 points)");
  if (o.seat_order === "random") out.push("random seat order");
  return out;
}

// ---------------------------------------------------------------------------------------------
// Errors (PROTOCOL.md "Errors") in plain words

export const ERRORS = {
  bad_request: "The server refused that request as malformed.",
  game_over: "The game is over.",
  not_your_turn: "It is not your turn.",
  wrong_tile: "That is not the tile drawn for this turn.",
  position_taken: "A tile already lies there.",
  not_adjacent: "The tile must touch a placed tile along an edge.",
  edge_mismatch: "An edge of the tile does not match its neighbour.",
  bad_rotation: "That rotation is not allowed.",
  unknown_feature: "The tile has no such place for a meeple.",
  feature_occupied: "That feature already has a meeple on it.",
  no_meeple_left: "You have no meeple of that kind left.",
  farmers_off: "Farmers are turned off in this game.",
  large_meeple_unavailable: "Large meeples need the Inns & Cathedrals set.",
  illegal_escape: "That knight cannot escape.",
  bad_player_count: "A game needs 2 to 5 players, or 6 with Inns & Cathedrals.",
  bad_sets: "That choice of sets cannot be played.",
  bad_deck: "The game record names a tile that is not in its sets.",
  bad_record: "The game record is damaged.",
  malformed_json: "The server could not read a message from this page. Reload the page.",
  bad_version: "This page speaks another protocol version than the server. Reload the page.",
  unknown_type: "The server does not know that request. Reload the page.",
  out_of_memory: "The server is out of memory; nothing changed. Try again later.",
  io_error: "The server could not read or write its files; nothing changed. Try again later.",
  no_such_room: "There is no room with that code (it may have closed).",
  room_full: "Every seat of the room is taken.",
  wrong_password: "Wrong password for this room.",
  bad_token: "Your seat in this room is no longer valid.",
  not_host: "Only the host can do that.",
  wrong_phase: "That is not possible now: the game has already started, or is over.",
  spectator: "Spectators can watch and chat, but not play.",
  not_in_room: "Join or watch a room first.",
  already_in_room: "You are already in a room: leave it first.",
  not_enough_players: "A game needs at least two seated players.",
  not_a_bot: "That seat holds no bot.",
  time_out: "Your time ran out before the move arrived: the time-out rule was applied instead.",
  rate_limited: "Too many messages at once: slow down a little.",
  message_too_big: "That message is too long for the server.",
  limit_reached: "The server is full right now (too many rooms or connections). Try again later.",
  too_many_rooms: "You already have too many rooms waiting for players: start one or leave one first.",
  name_taken: "Someone in this room already has that name: choose another.",
  storage_error: "The server could not save that; nothing changed. Try again in a moment.",
  offline: "Not connected to the server: wait until it reconnects.",
  closed: "The connection closed before the server answered; it is reconnecting.",
};

// A protocol error code in plain words; the server's own sentence for codes we do not know.
export function errorText(code, message) {
  return ERRORS[code] || (message ? message.charAt(0).toUpperCase() + message.slice(1) : "Something went wrong.");
}
