// ending.js: the end of a game as the room's end screen (main.js) and the replay's last position
// (replay.js) show it: the ranking, and the end-of-game scoring grouped by kind of feature.
import { playerBadge } from "./board.js";
import { describe } from "./words.js";
import { signed, t } from "./i18n.js";

// The rank of each score of `scores` (sorted highest first), ties sharing one: 1, 1, 3
// (Carcassonne has no tie-break: tied players share the place).
export function ranks(scores) {
  return scores.map((s) => 1 + scores.filter((o) => o > s).length);
}

// Fills the <ol> with one <li data-seat data-rank> per seat of `seats` ([{seat, label, score}]),
// the highest score first; tied players share a rank (the <li>'s value: "1. 1. 3."); the score
// is in a <b class="final-score">.
export function renderRanking(ol, seats) {
  ol.replaceChildren();
  const sorted = seats.slice().sort((a, b) => b.score - a.score);
  const rank = ranks(sorted.map((s) => s.score));
  for (const [k, s] of sorted.entries()) {
    const li = document.createElement("li");
    li.dataset.seat = s.seat;
    li.dataset.rank = rank[k];
    li.value = rank[k];
    // "Ann: <b>42</b> points", the score in its own element wherever the language puts it
    const [before, after] = t("end.rankLine", { name: s.label, score: "\u0000", count: s.score }).split("\u0000");
    li.append(playerBadge(s.seat, 18), document.createTextNode(" " + before));
    const b = document.createElement("b");
    b.className = "final-score";
    b.textContent = s.score;
    li.append(b, document.createTextNode(after || ""));
    ol.append(li);
  }
}

// The groups' headings: end.group.KIND in the catalogues.
const GROUPS = ["road", "city", "cloister", "farm", "barn", "herbs", "escape"];

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
    const tt = Object.keys(totals).filter((i) => totals[i]).map((i) => t("score.pointsOf", { player: who(+i), points: signed(totals[i]) }));
    const title = GROUPS.includes(k) ? t("end.group." + k) : k;
    h.textContent = tt.length ? t("end.groupPoints", { title, list: tt.join(", ") }) : t("end.groupNone", { title });
    const ul = document.createElement("ul");
    for (const ev of groups[k]) {
      const li = document.createElement("li");
      li.textContent = describe(ev, who, tiles);
      ul.append(li);
    }
    box.append(h, ul);
  }
}
