// ending.js: the end of a game as the room's end screen (main.js) and the replay's last position
// (replay.js) show it: the ranking, and the end-of-game scoring grouped by kind of feature.
import { playerBadge } from "./board.js";
import { describe } from "./words.js";

// Fills the <ol> with one <li data-seat> per seat of `seats` ([{seat, label, score}]), the
// highest score first; the score is in a <b class="final-score">.
export function renderRanking(ol, seats) {
  ol.replaceChildren();
  for (const s of seats.slice().sort((a, b) => b.score - a.score)) {
    const li = document.createElement("li");
    li.dataset.seat = s.seat;
    li.append(playerBadge(s.seat, 18), document.createTextNode(` ${s.label}: `));
    const b = document.createElement("b");
    b.className = "final-score";
    b.textContent = s.score;
    li.append(b, document.createTextNode(" points"));
    ol.append(li);
  }
}

const TITLES = {
  road: "Unfinished roads", city: "Unfinished cities", cloister: "Unfinished cloisters", farm: "Farms",
  barn: "Barns", herbs: "Herb tokens", escape: "Escapes",
};

// Fills `box` with the end-of-game events in words, one heading per kind (with each player's
// total) and a list of its events; `none` is the sentence shown when there are no events.
export function renderBreakdown(box, events, who, tiles, none) {
  box.replaceChildren();
  if (!events.length) {
    const p = document.createElement("p");
    p.textContent = none;
    box.append(p);
    return;
  }
  const groups = {};
  for (const ev of events) {
    const k = ev.type === "score" ? ev.feature : ev.type;
    (groups[k] = groups[k] || []).push(ev);
  }
  for (const k of Object.keys(groups)) {
    const h = document.createElement("h4");
    const totals = {};
    for (const ev of groups[k]) (ev.delta || []).forEach((n, i) => (totals[i] = (totals[i] || 0) + n));
    const tt = Object.keys(totals).filter((i) => totals[i]).map((i) => `${who(+i)} +${totals[i]}`);
    h.textContent = (TITLES[k] || k) + (tt.length ? ": " + tt.join(", ") : ": no points");
    const ul = document.createElement("ul");
    for (const ev of groups[k]) {
      const li = document.createElement("li");
      li.textContent = describe(ev, who, tiles);
      ul.append(li);
    }
    box.append(h, ul);
  }
}
