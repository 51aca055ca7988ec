// replay.js: finished and abandoned games (GET /api/games) and a move-by-move replay of one
// (GET /api/games/{id}/replay, PROTOCOL.md "Replays"): the board with its meeples after each
// move, the move's events in words, every player's score then, the score chart up to that move
// and, at the end, the final scoring. The analysis: js/analysis.js, imported when a replay opens
// (onDraw, onRelabel).
import { T, el, drawLastPlaced, drawTile, drawMeeple, featureSpots, fitCells, rotatePoint, playerBadge, View } from "./board.js";
import { renderChart } from "./chart.js";
import { renderBreakdown, renderRanking } from "./ending.js";
import { botLevelName, describe, playerName, setName, variantTexts } from "./words.js";
import { placeWords } from "./names.js";
import { verifyDraw } from "./fair.js";
import { formatDate, listText, signed, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

export class Replay {
  constructor(getTiles, showError) {
    this.getTiles = getTiles;
    this.showError = showError;
    this.page = 1;
    this.total = 0;
    this.status = "finished";
    this.lastJSON = "";
    this.rec = null; // the replay document
    this.meta = null;
    this.n = 0;
    this.timer = null;
    this.fair = null; // the last draw check shown: {status, say()}
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
    $("replay-last").addEventListener("click", () => this.go(this.last()));
    $("replay-slider").addEventListener("input", (e) => this.go(Number(e.target.value)));
    $("replay-play").addEventListener("click", () => this.toggle());
    $("replay-play").textContent = t("replay.play");
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
      $("games-status").textContent = t(`games.${this.status}.failed`, { reason: e.message });
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
    $("games-status").textContent = d.total ? t(`games.${this.status}.count`, { count: d.total, page: d.page }) : t(`games.${this.status}.none`);
    $("games-prev").disabled = d.page <= 1;
    $("games-next").disabled = d.page * d.per_page >= d.total;
    for (const g of d.games) {
      const tr = document.createElement("tr");
      tr.dataset.game = g.id;
      const when = document.createElement("td");
      when.textContent = formatDate(new Date(g.finished));
      const who = document.createElement("td");
      who.textContent = g.players.map((p, i) => t("games.playerScore", { player: playerName(p), score: g.scores[i] })).join(", ");
      const act = document.createElement("td");
      const b = document.createElement("a");
      b.href = "#replay=" + encodeURIComponent(g.id);
      b.className = "replay-link";
      b.textContent = t("games.replay");
      b.setAttribute("aria-label", t("games.replayOf", { players: listText(g.players.map(playerName)) }));
      act.append(b);
      tr.append(when, who, act);
      body.append(tr);
      if (!this.metaById) this.metaById = {};
      this.metaById[g.id] = g;
    }
  }

  // Positions: 0 the start tile, k after move k, and one more for the end-of-game scoring
  // when the game ended (an abandoned game stops at its last move).
  last() {
    if (!this.rec) return 0;
    return this.rec.moves.length + (this.rec.final.over ? 1 : 0);
  }

  async open(id) {
    this.stop();
    let rec;
    let players = null;
    let record = null; // the game record: who was a bot, and the fair draw to check
    try {
      const url = "/api/games/" + encodeURIComponent(id);
      // the record only for who was a bot: the replay names the players
      const [res, recRes] = await Promise.all([fetch(url + "/replay"), fetch(url).catch(() => null)]);
      if (!res.ok) {
        const msg = await res.json().then((e) => e.error, () => null);
        throw new Error(msg || "HTTP " + res.status);
      }
      rec = await res.json();
      if (recRes && recRes.ok) {
        record = await recRes.json();
        players = record.players;
      }
    } catch (e) {
      this.showError(t("error.game", { reason: e.message }));
      return false;
    }
    this.rec = rec;
    this.id = id;
    this.onDraw = this.onRelabel = null;
    this.players = players;
    this.meta = (this.metaById && this.metaById[id]) || null;
    const tiles = this.getTiles();
    // the scores after every position, for the chart
    this.hist = [{ turn: 0, scores: rec.players.map(() => 0) }];
    rec.moves.forEach((m, i) => this.hist.push({ turn: i + 1, scores: m.scores }));
    if (rec.final.over) this.hist.push({ turn: rec.moves.length, scores: rec.final.scores });
    // every tile of the game with its position (to draw, and to turn the meeples' spots)
    this.cells = [[0, 0, rec.start.tile, rec.start.rot]];
    for (const m of rec.moves) if (!m.skip) this.cells.push([m.x, m.y, m.tile, m.rot]);
    let b = [0, 0, 0, 0];
    for (const [x, y] of this.cells) b = [Math.min(b[0], x), Math.min(b[1], y), Math.max(b[2], x), Math.max(b[3], y)];
    this.bounds = b; // the whole game's extent, so the view does not jump while stepping
    $("replay-id").textContent = id;
    this.labelPlayers();
    $("replay-slider").max = this.last();
    const scores = $("replay-scores");
    scores.replaceChildren();
    rec.players.forEach((n, i) => {
      const li = document.createElement("li");
      li.dataset.seat = i;
      const name = document.createElement("span");
      name.className = "replay-name";
      name.textContent = this.labels[i];
      const sc = document.createElement("b");
      sc.className = "replay-score";
      const d = document.createElement("span");
      d.className = "replay-delta";
      li.append(playerBadge(i, 16), name, sc, d);
      scores.append(li);
    });
    this.renderFinal(tiles);
    this.view.userMoved = false;
    this.go(0); // from the start: Play or ▶ goes through the game, ▶| to the end
    this.showFair(record, rec, tiles, id);
    import("./analysis.js").then((m) => m.attach(this), () => {});
    return true;
  }

  // The players with their marks (a bot, a forfeit), and the line about the game.
  labelPlayers() {
    const rec = this.rec;
    const players = this.players;
    const marks = (i) => {
      const p = players && players[i];
      if (!p) return "";
      return (p.bot ? t("end.markBot", { level: botLevelName(p.bot) }) : "") + (p.forfeited ? t("end.markForfeit") : "");
    };
    this.labels = rec.players.map((n, i) => playerName(n) + marks(i));
    const parts = [this.labels.join(", "), rec.sets.map(setName).join(", "), ...variantTexts(rec.options)];
    parts.push(t("replay.moves", { count: rec.moves.length }));
    if (rec.closed) parts.push(t("replay.abandoned", { reason: rec.closed }));
    $("replay-info").textContent = parts.join(" · ");
  }

  // Says the open replay again (another language): its labels, the move, the final scoring.
  relabel() {
    if (!this.rec) return;
    this.labelPlayers();
    for (const li of $("replay-scores").children) li.querySelector(".replay-name").textContent = this.labels[Number(li.dataset.seat)];
    this.renderFinal(this.getTiles());
    this.draw();
    $("replay-play").textContent = t(this.timer ? "replay.pause" : "replay.play");
    if (this.fair) $("replay-fair-text").textContent = this.fair.say();
    if (this.onRelabel) this.onRelabel();
  }

  // Lists the games again (another language).
  relabelList() {
    this.lastJSON = "";
    if (!$("lobby-view").hidden) this.loadList();
  }

  // "draw verified", computed here from the record (fair.js), or why not.
  async showFair(record, replay, tiles, id) {
    const box = $("replay-fair");
    const out = $("replay-fair-text");
    box.dataset.status = "checking";
    this.fair = { status: "checking", say: () => t("fair.checking") };
    out.textContent = this.fair.say();
    let v;
    try {
      v = record ? await verifyDraw(record, replay, tiles, id) : { status: "none", say: () => t("fair.noRecord") };
    } catch (e) {
      v = { status: "failed", say: () => t("fair.error", { reason: e.message }) };
    }
    if (this.rec !== replay) return; // another game was opened meanwhile
    this.fair = v;
    box.dataset.status = v.status;
    out.textContent = v.say();
  }

  go(n) {
    if (!this.rec) return;
    n = Math.max(0, Math.min(this.last(), n));
    this.n = n;
    $("replay-slider").value = n;
    this.draw();
    if (n >= this.last()) this.stop();
  }

  toggle() {
    if (this.timer) return this.stop();
    if (this.n >= this.last()) this.go(0);
    $("replay-play").textContent = t("replay.pause");
    this.timer = setInterval(() => this.go(this.n + 1), 500);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    $("replay-play").textContent = t("replay.play");
  }

  fit(force) {
    if (!this.bounds) return;
    const [x0, y0, x1, y1] = this.bounds;
    this.view.fit(x0 - 1, y0 - 1, x1 + 1, y1 + 1, force);
  }

  who(i) {
    return playerName(this.rec.players[i]) || t("replay.player", { n: i + 1 });
  }

  draw() {
    const tiles = this.getTiles();
    const rec = this.rec;
    const nm = rec.moves.length;
    const end = rec.final.over && this.n === nm + 1;
    const k = Math.min(this.n, nm); // moves played at this position
    const move = k > 0 ? rec.moves[k - 1] : null;
    const world = $("replay-world");
    world.replaceChildren();
    // the tiles placed so far: the start tile, then one a placing move
    let placed = 1;
    for (let i = 0; i < k; i++) if (!rec.moves[i].skip) placed++;
    const at = {};
    for (const [x, y, id, rot] of this.cells.slice(0, placed)) {
      const g = el("g", { transform: `translate(${x * T},${y * T})`, "data-pos": x + "," + y }, world);
      drawTile(id, tiles[id], rot, g);
      at[x + "," + y] = [id, rot];
    }
    if (move && !move.skip) drawLastPlaced(world, move.x, move.y, move.player);
    // the meeples on the board after the move, as the server's engine has them
    for (const mp of move ? move.meeples : []) {
      const [id, rot] = at[mp.x + "," + mp.y] || [null, 0];
      const tile = tiles[id];
      const sp = (id && featureSpots(id, tile)[mp.feature]) || [50, 50];
      const seg = tile && (tile.segments || []).find((s) => s.name === mp.feature);
      const g = el("g", { transform: `translate(${mp.x * T},${mp.y * T})`, "data-meeple": mp.player }, world);
      drawMeeple(g, mp.player, rotatePoint(sp, rot), mp.kind === "large", !!seg && seg.kind === "field");
    }
    // the scale of the board at this move, not the final board's (issue 26, item 4)
    fitCells(this.view, this.cells.slice(0, placed), false);

    // the scores then, and what changed them
    const scores = end ? rec.final.scores : move ? move.scores : rec.players.map(() => 0);
    const prev = end ? (move ? move.scores : scores) : k > 1 ? rec.moves[k - 2].scores : rec.players.map(() => 0);
    const best = Math.max(...scores);
    for (const li of $("replay-scores").children) {
      const i = Number(li.dataset.seat);
      li.querySelector(".replay-score").textContent = scores[i];
      const d = scores[i] - prev[i];
      li.querySelector(".replay-delta").textContent = d ? signed(d) : "";
      li.classList.toggle("replay-mover", !end && !!move && move.player === i);
      li.classList.toggle("replay-leader", best > 0 && scores[i] === best);
    }

    // the move in words
    const who = (i) => this.who(i);
    const text = $("replay-move");
    const list = $("replay-events");
    list.replaceChildren();
    let events = [];
    $("replay-scores-h").textContent = t(end ? "replay.scores.final" : move ? "replay.scores.move" : "replay.scores.start");
    if (end) {
      // the events themselves are the breakdown below
      text.textContent = t("replay.end");
      const li = document.createElement("li");
      const n = rec.final.events.length;
      li.textContent = n ? t("replay.endScorings", { count: n }) : t("replay.endNothing");
      list.append(li);
    } else if (!move) {
      text.textContent = t("replay.start");
      events = rec.start.events;
    } else {
      // where the tile went is worth saying here (the board shows no live motion)
      const p = { n: k, count: nm, player: this.labels[move.player] || who(move.player), where: move.skip ? "" : placeWords(move.x, move.y) };
      text.textContent = t(move.skip ? "replay.moveSkip" : "replay.move", p);
      events = move.events;
    }
    for (const ev of events) {
      const li = document.createElement("li");
      li.className = "ev-" + ev.type;
      li.textContent = describe(ev, who, tiles);
      list.append(li);
    }
    if (!events.length && !end) {
      const li = document.createElement("li");
      li.textContent = t("replay.nothing");
      list.append(li);
    }
    $("replay-final").hidden = !end;
    renderChart($("replay-chart"), this.hist.slice(0, this.n + 1), rec.players);
    if (this.onDraw) this.onDraw();
  }

  // The end-of-game scoring grouped by kind of feature, and the final ranking.
  renderFinal(tiles) {
    const rec = this.rec;
    const who = (i) => this.who(i);
    renderRanking($("replay-ranking"), rec.players.map((p, i) => ({ seat: i, label: this.labels[i], score: rec.final.scores[i] })));
    renderBreakdown($("replay-breakdown"), rec.final.events, who, tiles, t("replay.noFinal"));
  }
}
