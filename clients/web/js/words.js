// words.js: events (PROTOCOL.md "Events") as English sentences.

const FEATURE_WORD = { city: "city", road: "road", farm: "farm", cloister: "cloister", field: "field" };

export function names(list) {
  if (list.length <= 1) return list.join("");
  return list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
}

function pts(n) {
  return (n >= 0 ? "+" : "") + n;
}

export function featureName(tile, feature) {
  if (!tile) return feature;
  const s = tile.segments.find((x) => x.name === feature);
  if (!s) return feature;
  const kind = s.kind === "field" ? "field (farmer)" : s.kind === "road" ? "road (thief)" : s.kind === "city" ? "city (knight)" : "cloister (monk)";
  return kind + " " + feature;
}

// who(seat) -> a name. tiles: the catalogue's tiles.
export function describe(ev, who, tiles) {
  switch (ev.type) {
    case "seat":
      if (ev.name === null) return `Seat ${ev.seat + 1} is free again.`;
      return ev.connected ? `${ev.name} is at seat ${ev.seat + 1}.` : `${ev.name} lost the connection.`;
    case "start":
      return `The game started: ${names(ev.players)}.`;
    case "placed": {
      let s = `${who(ev.player)} placed a tile at (${ev.x}, ${ev.y})`;
      if (ev.rot) s += `, turned ${ev.rot}°`;
      if (ev.meeple) {
        const tile = tiles && tiles[ev.tile];
        s += `, with ${ev.meeple.kind === "large" ? "the large meeple" : "a meeple"} on the ${featureName(tile, ev.meeple.feature)}`;
      }
      if (ev.escape) s += `; a knight escapes from (${ev.escape.x}, ${ev.escape.y})`;
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
      return `${seat >= 0 ? who(seat) + "'s" : "A"} knight escaped from the besieged city at (${ev.x}, ${ev.y}).`;
    }
    case "discard":
      return `Tile ${ev.tile} fits nowhere and was discarded.`;
    case "herbs": {
      const seat = (ev.delta || []).findIndex((n) => n !== 0);
      return `${seat >= 0 ? who(seat) : "A player"} cashes ${ev.herbs} herb token${ev.herbs === 1 ? "" : "s"}: ${pts(seat >= 0 ? ev.delta[seat] : 5 * ev.herbs)}.`;
    }
    default:
      return `${ev.type}`;
  }
}

export function scoreSentence(ev, who) {
  const w = ev.scorers.length ? names(ev.scorers.map(who)) : "Nobody";
  const f = FEATURE_WORD[ev.feature] || ev.feature;
  let what;
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
  const pointsText = ev.scorers.length ? `: ${pts(ev.delta ? ev.delta[ev.scorers[0]] : ev.points)}${each}` : " (no meeple there, no points)";
  const x = extras.length ? ` (${extras.join(", ")})` : "";
  if (ev.final && ev.feature !== "farm") return `${w} ${verb} ${what.replace(/^an? /, "")}${x}${pointsText}.`;
  return `${w} ${verb} ${what}${x}${pointsText}.`;
}
