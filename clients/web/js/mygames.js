// mygames.js: "My games" of a signed-in account (GET /api/me/games, PROTOCOL.md "Accounts (HTTP)"):
// the dialog #games-dlg, opened from the account menu, lists the running games first, those
// waiting for you before the others (your turn, the least time left first; whose turn,
// "Your turn" highlighted, the time left on the account's clock) with "Resume", then the finished
// ones with the result and a "Replay" link, 20 more with each "More". Resume opens the room's link;
// main.js then sends `resume` without a token (the server finds the account's seat), so it works on
// a device that never held the seat's token. Loaded by account.js on the first open: a guest's page
// never fetches it.
import { $, showError } from "./app.js";
import { formatDate, formatNumber, onLanguageChange, t } from "./i18n.js";
import { formatClock } from "./words.js";

let games = []; // every entry of the pages read so far, in the server's order (newest first)
let page = 0;
let more = false;
let state = "idle"; // idle, loading, error
let back = null; // where the focus goes when the dialog closes

async function load(n) {
  state = "loading";
  render();
  let res = null;
  let data = null;
  try {
    res = await fetch("/api/me/games?page=" + n, { cache: "no-store", credentials: "same-origin" });
    data = await res.json().catch(() => null);
  } catch (e) {
    res = null;
  }
  if (res && res.status === 401) {
    close();
    return showError(t("acct.err.not_signed_in"), "not_signed_in");
  }
  if (!res || res.status !== 200 || !data || !Array.isArray(data.games)) {
    state = "error";
    return render();
  }
  const first = games.length;
  games = games.concat(data.games);
  page = n;
  more = !!data.more;
  state = "idle";
  render();
  // after "More", the first new game's control; else the dialog keeps its focus
  if (n > 1) {
    const added = document.querySelector(`#games-dlg [data-index="${first}"]`);
    if (added) added.focus();
    else $("games-close").focus();
  }
}

function item(g, i) {
  const li = document.createElement("li");
  li.className = "games-item";
  const title = document.createElement("span");
  title.className = "games-room";
  title.id = "games-room-" + i;
  title.textContent = t("mygames.room", { room: g.room });
  const detail = document.createElement("span");
  detail.className = "games-detail";
  const parts = [];
  let act;
  if (g.status === "running") {
    if (g.your_turn) {
      const yours = document.createElement("strong");
      yours.className = "games-yours";
      yours.textContent = t("mygames.yourTurn");
      detail.append(yours, " ");
    } else if (typeof g.turn_name === "string") {
      parts.push(t("mygames.turnOf", { name: g.turn_name }));
    }
    if (typeof g.time_ms === "number") parts.push(t("mygames.timeLeft", { time: formatClock(g.time_ms) }));
    act = document.createElement("button");
    act.type = "button";
    act.textContent = t("mygames.resume");
    act.addEventListener("click", () => resumeRoom(g.room));
  } else {
    const players = (g.players || []).map((name, k) => `${name} ${formatNumber((g.scores || [])[k] ?? 0)}`);
    if (players.length) parts.push(players.join(" · "));
    if (g.status === "abandoned") parts.push(t("mygames.abandoned"));
    else if (g.result) parts.push(t("mygames.result", { rank: g.result.rank, score: g.result.score }));
    if (g.finished) parts.push(formatDate(new Date(g.finished)));
    act = document.createElement("a");
    act.href = g.replay || "#replay=" + encodeURIComponent(g.room);
    act.className = "games-replay";
    act.textContent = t("mygames.replay");
    act.addEventListener("click", () => {
      back = null; // the replay takes the page
      close();
    });
  }
  detail.append(parts.join(" — "));
  act.dataset.index = String(i);
  act.setAttribute("aria-describedby", title.id);
  const text = document.createElement("span");
  text.className = "games-text";
  text.append(title, detail);
  li.append(text, act);
  return li;
}

// i18n-keys: mygames.loading mygames.error mygames.none
function render() {
  const run = $("games-run-list");
  const end = $("games-end-list");
  run.replaceChildren();
  end.replaceChildren();
  // Waiting for you first: the running games where it is your turn, the least time left first
  // (no clock last), then the other running ones as the server lists them (newest first).
  const waiting = (g) => (g.your_turn ? 0 : 1);
  const left = (g) => (typeof g.time_ms === "number" ? g.time_ms : Infinity);
  const running = games.map((g, i) => i).filter((i) => games[i].status === "running");
  running.sort((a, b) => waiting(games[a]) - waiting(games[b]) || (games[a].your_turn ? left(games[a]) - left(games[b]) : 0) || a - b);
  running.forEach((i) => run.append(item(games[i], i)));
  games.forEach((g, i) => g.status !== "running" && end.append(item(g, i)));
  $("games-run").hidden = run.children.length === 0;
  $("games-end").hidden = end.children.length === 0;
  const moreBtn = $("games-more");
  moreBtn.hidden = !more;
  moreBtn.disabled = state === "loading";
  const status = state === "loading" ? "mygames.loading" : state === "error" ? "mygames.error" : games.length === 0 ? "mygames.none" : null;
  $("games-status").textContent = status ? t(status) : "";
}

// Resume: the room's link, which main.js enters (resume without a token when this device has none).
function resumeRoom(room) {
  back = null; // the room takes the page
  close();
  if (location.hash !== "#room=" + room) location.hash = "#room=" + room;
}

function close() {
  if ($("games-dlg").open) $("games-dlg").close();
}

export function openGames() {
  back = document.activeElement;
  games = [];
  page = 0;
  more = false;
  $("games-dlg").showModal();
  $("games-close").focus();
  load(1);
}

$("games-more").addEventListener("click", () => state !== "loading" && load(page + 1));
$("games-close").addEventListener("click", close);
$("games-dlg").addEventListener("close", () => {
  const to = back && back.isConnected && back.checkVisibility() ? back : $("acct-menu-btn");
  if (back !== null && !$("acct-user").hidden) to.focus();
});
onLanguageChange(() => $("games-dlg").open && render());
