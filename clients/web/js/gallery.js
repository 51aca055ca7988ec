// gallery.js: a developer page (tiles.html) that draws every tile of the catalogue, a few turned,
// and meeples of every seat and pose, at the board's default zoom (?size=45 for a phone's).

import { el, drawTile, drawMeeple, featureSpots, rotatePoint, seatLook } from "./board.js";
import { t } from "./i18n.js";
import { setName } from "./words.js";

const size = Number(new URLSearchParams(location.search).get("size")) || 80;

function cell(grid, caption, cls, data) {
  const fig = document.createElement("figure");
  fig.className = cls;
  for (const k in data || {}) fig.dataset[k] = data[k];
  const svg = el("svg", { viewBox: "0 0 100 100", width: size, height: size, role: "img", "aria-label": caption });
  fig.append(svg);
  const cap = document.createElement("figcaption");
  cap.textContent = caption;
  fig.append(cap);
  grid.append(fig);
  return svg;
}

function section(root, title) {
  const h = document.createElement("h2");
  h.textContent = title;
  const grid = document.createElement("div");
  grid.className = "gallery-grid";
  root.append(h, grid);
  return grid;
}

async function main() {
  const status = document.getElementById("gallery-status");
  const root = document.getElementById("gallery");
  const cat = await (await fetch("api/tiles")).json();
  const tiles = cat.tiles;
  const ids = Object.keys(tiles);
  for (const set of cat.sets) {
    const grid = section(root, setName(set));
    for (const id of ids.filter((i) => tiles[i].set === set)) {
      const svg = cell(grid, id, "gallery-tile", { tile: id });
      drawTile(id, tiles[id], 0, svg);
    }
  }
  const turned = section(root, t("gallery.turned"));
  for (const id of ["BA.D", "BA.S", "IC.01", "IC.13", "BS.02", "AT.04", "AT.07", "BA.A"]) {
    if (!tiles[id]) continue;
    for (const rot of [90, 180, 270]) drawTile(id, tiles[id], rot, cell(turned, `${id} ${rot}`, "gallery-turned"));
  }
  const meeples = section(root, t("gallery.meeples"));
  const poses = [["standing", false, false], ["lying", false, true], ["large", true, false]];
  for (let seat = 0; seat < 6; seat++) {
    for (const [pose, large, lying] of poses) {
      const id = lying ? "BA.U" : seat % 2 ? "BA.D" : "BA.E";
      const tile = tiles[id];
      const rot = (seat * 90) % 360;
      const svg = cell(meeples, t("gallery.pose." + pose, { look: seatLook(seat) }), "gallery-meeple");
      drawTile(id, tile, rot, svg);
      const spots = featureSpots(id, tile);
      const seg = tile.segments.find((s) => s.kind === (lying ? "field" : "city"));
      drawMeeple(svg, seat, rotatePoint(spots[seg.name], rot), large, lying);
    }
  }
  const played = section(root, t("gallery.played"));
  const few = ["BA.A", "BA.J", "BA.L", "IC.01", "IC.13", "AT.08", "CA.04", "AT.04"];
  few.forEach((id, n) => {
    const tile = tiles[id];
    if (!tile) return;
    const rot = (n * 90) % 360;
    const svg = cell(played, `${id} ${rot}`, "gallery-played");
    drawTile(id, tile, rot, svg);
    const spots = featureSpots(id, tile);
    tile.segments.forEach((s, k) => {
      drawMeeple(svg, (n + k) % 6, rotatePoint(spots[s.name], rot), k === 0 && n % 3 === 0, s.kind === "field");
    });
  });
  status.textContent = t("gallery.status", { count: ids.length, sets: cat.sets.length, size });
  root.dataset.ready = "1";
}

main().catch((e) => {
  document.getElementById("gallery-status").textContent = t("gallery.failed", { reason: e.message });
});
