// replay.js: finished and abandoned games (GET /api/games, GET /api/games/{id}) and a
// move-by-move replay.
import { featurePlace, placeWords, tileName } from "./names.js";
import { T, el, drawTile, drawMeeple, featureSpots, rotatePoint, playerBadge, View } from "./board.js";

const $ = (id) => document.getElementById(id);

export class Replay {
  constructor(getTiles, showError) {
    this.getTiles = getTiles;
    this.showError = showError;
    this.page = 1;
    this.total = 0;
    this.status = "finished";
    this.lastJSON = "";
    this.rec = null;
    this.meta = null;
    this.n = 0;
    this.timer = null;
    this.view = new View($("replay-board"), $("replay-world"));
    this.view.onFit = () => this.fit(true);
    $("games-status-filter").addEventListener("change", (e) => {
      this.status = e.target.value;
      this.lastJSON = "";
      this.loadList(1);
    });
    $("games-prev").addEventListener("click", () => this.loadList(this.page - 1));
    $("games-next").addEventListener("click", () => this.loadList(this.page + 1));
    $("replay-first").addEventListener("click", () => this.go(0));
    $("replay-prev").addEventListener("click", () => this.go(this.n - 1));
    $("replay-next").addEventListener("click", () => this.go(this.n + 1));
    $("replay-last").addEventListener("click", () => this.go(this.rec ? this.rec.moves.length : 0));
    $("replay-slider").addEventListener("input", (e) => this.go(Number(e.target.value)));
    $("replay-play").addEventListener("click", () => this.toggle());
  }

  async loadList(page) {
    if (page === undefined) page = this.page;
    if (page < 1) return;
    let d;
    try {
      const res = await fetch("/api/games?status=" + this.status + "&page=" + page, { cache: "no-store" });
      if (!res.ok) throw new Error("HTTP " + res.status);
      d = await res.json();
    } catch (e) {
      $("games-status").textContent = `Could not load the ${this.status} games: ` + e.message;
      return;
    }
    if (page > 1 && !d.games.length) return;
    this.page = d.page;
    this.total = d.total;
    const json = JSON.stringify(d);
    if (json === this.lastJSON) return;
    this.lastJSON = json;
    const body = $("games").querySelector("tbody");
    body.replaceChildren();
    $("games").hidden = d.games.length === 0;
    $("games-status").textContent = d.total ? `${d.total} ${this.status} game${d.total === 1 ? "" : "s"} (page ${d.page})` : `No ${this.status} games yet.`;
    $("games-prev").disabled = d.page <= 1;
    $("games-next").disabled = d.page * d.per_page >= d.total;
    for (const g of d.games) {
      const tr = document.createElement("tr");
      tr.dataset.game = g.id;
      const when = document.createElement("td");
      when.textContent = new Date(g.finished).toLocaleString();
      const who = document.createElement("td");
      who.textContent = g.players.map((p, i) => `${p} ${g.scores[i]}`).join(", ");
      const act = document.createElement("td");
      const b = document.createElement("a");
      b.href = "#replay=" + encodeURIComponent(g.id);
      b.className = "replay-link";
      b.textContent = "Replay";
      b.setAttribute("aria-label", "Replay the game of " + g.players.join(" and "));
      act.append(b);
      tr.append(when, who, act);
      body.append(tr);
      if (!this.metaById) this.metaById = {};
      this.metaById[g.id] = g;
    }
  }

  async open(id) {
    this.stop();
    let rec;
    try {
      const res = await fetch("/api/games/" + encodeURIComponent(id));
      if (!res.ok) throw new Error(res.status === 404 ? "no finished or abandoned game with that id" : "HTTP " + res.status);
      rec = await res.json();
    } catch (e) {
      this.showError("Could not load the game: " + e.message);
      return false;
    }
    this.rec = rec;
    this.meta = (this.metaById && this.metaById[id]) || null;
    $("replay-id").textContent = id;
    const sets = rec.sets.join(", ");
    const players = rec.players.map((p) => p.name + (p.bot ? " (bot)" : "") + (p.forfeited ? " (forfeited)" : ""));
    $("replay-info").textContent = `${players.join(", ")} · ${sets} · ${rec.moves.length} moves`;
    $("replay-slider").max = rec.moves.length;
    const scores = $("replay-scores");
    scores.replaceChildren();
    if (this.meta) {
      const order = this.meta.players.map((p, i) => i).sort((a, b) => this.meta.scores[b] - this.meta.scores[a]);
      for (const i of order) {
        const li = document.createElement("li");
        li.append(playerBadge(i, 16), document.createTextNode(` ${this.meta.players[i]}: ${this.meta.scores[i]} points`));
        scores.append(li);
      }
    }
    this.view.userMoved = false;
    this.go(rec.moves.length);
    return true;
  }

  go(n) {
    if (!this.rec) return;
    n = Math.max(0, Math.min(this.rec.moves.length, n));
    this.n = n;
    $("replay-slider").value = n;
    this.draw();
    if (n >= this.rec.moves.length) this.stop();
  }

  toggle() {
    if (this.timer) return this.stop();
    if (this.n >= this.rec.moves.length) this.go(0);
    $("replay-play").textContent = "Pause";
    this.timer = setInterval(() => this.go(this.n + 1), 500);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    $("replay-play").textContent = "Play";
  }

  fit(force) {
    if (!this.bounds) return;
    const [x0, y0, x1, y1] = this.bounds;
    this.view.fit(x0 - 1, y0 - 1, x1 + 1, y1 + 1, force);
  }

  draw() {
    const tiles = this.getTiles();
    const rec = this.rec;
    const world = $("replay-world");
    world.replaceChildren();
    const np = rec.players.length;
    const cells = [[0, 0, rec.start, 0]];
    for (let i = 0; i < this.n; i++) {
      const m = rec.moves[i];
      if (!m.skip) cells.push([m.x, m.y, m.tile, m.rot]); // a skip (clock time-out) places nothing
    }
    let b = [0, 0, 0, 0];
    for (const [x, y, id, rot] of cells) {
      const g = el("g", { transform: `translate(${x * T},${y * T})`, "data-pos": x + "," + y }, world);
      drawTile(id, tiles[id], rot, g);
      b = [Math.min(b[0], x), Math.min(b[1], y), Math.max(b[2], x), Math.max(b[3], y)];
    }
    // the whole game's extent, so the view does not jump while stepping
    for (const m of rec.moves) if (!m.skip) b = [Math.min(b[0], m.x), Math.min(b[1], m.y), Math.max(b[2], m.x), Math.max(b[3], m.y)];
    this.bounds = b;
    this.fit(false);
    const text = $("replay-move");
    if (this.n === 0) {
      text.textContent = "Start tile.";
      return;
    }
    const m = rec.moves[this.n - 1];
    const player = (this.n - 1) % np; // players move in turn (skips too); discarded tiles are not moves
    const name = rec.players[player] ? rec.players[player].name : "Player " + (player + 1);
    if (m.skip) {
      text.textContent = `Move ${this.n} of ${rec.moves.length}: ${name}'s time ran out; the turn was skipped and the tile (${tileName(tiles[m.tile])}) went under the pile.`;
      return;
    }
    el("rect", { x: m.x * T + 2, y: m.y * T + 2, width: T - 4, height: T - 4, class: "last-placed" }, world);
    if (m.meeple) {
      const sp = featureSpots(m.tile, tiles[m.tile])[m.meeple.feature] || [50, 50];
      const g = el("g", { transform: `translate(${m.x * T},${m.y * T})` }, world);
      drawMeeple(g, player, rotatePoint(sp, m.rot), m.meeple.kind === "large");
    }
    let s = `Move ${this.n} of ${rec.moves.length}: ${name} placed ${tileName(tiles[m.tile])} ${placeWords(m.x, m.y)}`;
    if (m.meeple) s += `, with ${m.meeple.kind === "large" ? "the large meeple" : "a meeple"} ${featurePlace(tiles[m.tile], m.meeple.feature, m.rot)}`;
    text.textContent = s + ".";
  }
}
