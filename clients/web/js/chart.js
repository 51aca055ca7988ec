// chart.js: the score of every player per turn, as an SVG line chart.
import { el, shape, PLAYER_COLOURS } from "./board.js";
import { t } from "./i18n.js";

// hist: [{turn, scores}], players: names by seat (null for an empty seat). The legend is a list
// under the chart (ul.chart-legend, one li per player: shape and "Ann: 42"), in the page's font
// size and wrapping as it needs, so no long name is cut at the chart's edge.
export function renderChart(box, hist, players) {
  box.replaceChildren();
  if (!hist.length) {
    box.textContent = t("chart.none");
    return;
  }
  // as wide as its box (up to 560), so that its 12px text stays 12px on a phone or a side panel
  const W = Math.max(300, Math.min(560, Math.round(box.clientWidth) || 560));
  const H = 260;
  const L = 40;
  const B = 30;
  const maxTurn = Math.max(1, ...hist.map((h) => h.turn));
  const maxScore = Math.max(10, ...hist.flatMap((h) => h.scores));
  const R = 20; // room for the last points' marks
  const sx = (t) => L + (t / maxTurn) * (W - L - R);
  const sy = (s) => H - B - (s / maxScore) * (H - B - 10);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img" }, box);
  const names = players.map((n, i) => (n ? t("chart.score", { player: n, score: hist[hist.length - 1].scores[i] }) : null)).filter(Boolean);
  svg.setAttribute("aria-label", t("chart.label", { list: names.join(", ") }));
  el("path", { d: `M${L},10 V${H - B} H${W - R}`, class: "axis" }, svg);
  for (let k = 0; k <= 4; k++) {
    const v = Math.round((maxScore * k) / 4);
    el("text", { x: L - 4, y: sy(v) + 4, class: "tick", "text-anchor": "end" }, svg).textContent = v;
  }
  for (const v of [0, Math.round(maxTurn / 2), maxTurn]) {
    el("text", { x: sx(v), y: H - B + 16, class: "tick", "text-anchor": "middle" }, svg).textContent = v;
  }
  el("text", { x: (W - R + L) / 2, y: H - 2, class: "tick", "text-anchor": "middle" }, svg).textContent = t("chart.turn");
  const legend = document.createElement("ul");
  legend.className = "chart-legend";
  legend.setAttribute("aria-hidden", "true"); // the chart's aria-label says it already
  box.append(legend);
  players.forEach((n, i) => {
    if (!n) return;
    const pts = hist.map((h) => `${sx(h.turn).toFixed(1)},${sy(h.scores[i] || 0).toFixed(1)}`);
    el("polyline", { points: pts.join(" "), class: "line", stroke: PLAYER_COLOURS[i], "stroke-dasharray": ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 4"][i] }, svg);
    const last = hist[hist.length - 1];
    const g = el("g", { transform: `translate(${sx(last.turn)},${sy(last.scores[i] || 0)})` }, svg);
    shape(g, i, 6, { fill: PLAYER_COLOURS[i], class: "meeple-shape" });
    const li = document.createElement("li");
    li.dataset.seat = i;
    const mark = el("svg", { viewBox: "-8 -8 16 16", width: 16, height: 16, "aria-hidden": "true" }, li);
    shape(mark, i, 6, { fill: PLAYER_COLOURS[i], class: "meeple-shape" });
    li.append(" " + t("chart.legend", { player: n, score: last.scores[i] || 0 }));
    legend.append(li);
  });
}
