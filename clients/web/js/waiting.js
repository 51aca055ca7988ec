// waiting.js: how many games wait for the signed-in player (issue 28, "Waiting for you"): the
// running games of GET /api/me/games where `your_turn` is true (PROTOCOL.md "My games"). The count
// is app.waiting, which alerts.js puts before the tab's title ("(2) carcd"), and the app's badge
// (navigator.setAppBadge / clearAppBadge, where the browser has them: an installed app's icon).
// Loaded by account.js once the page is signed in (a guest's page never fetches it); stop() at
// sign-out clears both. Counted again at start, when the tab is shown again, when the service
// worker posts a push to the page (sw.js), when the page's own game changes turn (hooks.turnChanged,
// main.js), and every 60 s otherwise; requests that come together make one.
// The server lists a player's games newest first, 20 a page: at most PAGES pages are read, so a
// game waiting for the player behind 100 newer ones is not counted.
import { app, hooks } from "./app.js";

const PAGES = 5;
const EVERY = 60000; // ms between two counts when nothing else asks
const SOON = 800; // ms: requests within this are one (a turn change, then a push about it)

let on = false;
let timer = null;
let soon = null;
let running = false;
let again = false;

function badge(n) {
  try {
    if (n > 0 && navigator.setAppBadge) navigator.setAppBadge(n).catch(() => {});
    else if (n === 0 && navigator.clearAppBadge) navigator.clearAppBadge().catch(() => {});
  } catch (e) {
    /* no badge here */
  }
}

function set(n) {
  if (app.waiting === n) return;
  app.waiting = n;
  badge(n);
}

// The count of the games waiting for the player, or null when the server could not say.
async function fetchCount() {
  let n = 0;
  for (let page = 1; page <= PAGES; page++) {
    let data = null;
    try {
      const res = await fetch("/api/me/games?page=" + page, { cache: "no-store", credentials: "same-origin" });
      if (res.status !== 200) return res.status === 401 ? 0 : null;
      data = await res.json();
    } catch (e) {
      return null;
    }
    if (!data || !Array.isArray(data.games)) return null;
    n += data.games.filter((g) => g && g.status === "running" && g.your_turn === true).length;
    if (!data.more) break;
  }
  return n;
}

// Counts now (one count at a time: a request during one makes one more after it).
export async function refresh() {
  if (!on) return;
  if (running) {
    again = true;
    return;
  }
  running = true;
  clearTimeout(timer);
  try {
    const n = await fetchCount();
    if (on && n !== null) set(n);
  } finally {
    running = false;
    if (on) timer = setTimeout(refresh, EVERY);
  }
  if (again && on) {
    again = false;
    refresh();
  }
}

function later() {
  if (!on || soon) return;
  soon = setTimeout(() => {
    soon = null;
    refresh();
  }, SOON);
}

function onVisible() {
  if (document.visibilityState === "visible") later();
}

function onMessage(e) {
  if (e.data && typeof e.data.push === "string") later();
}

// The page is signed in: count now and keep counting.
export function start() {
  if (on) return;
  on = true;
  hooks.turnChanged = later;
  document.addEventListener("visibilitychange", onVisible);
  if ("serviceWorker" in navigator) navigator.serviceWorker.addEventListener("message", onMessage);
  refresh();
}

// Signed out: no count, no title prefix, no badge.
export function stop() {
  on = false;
  clearTimeout(timer);
  clearTimeout(soon);
  soon = null;
  hooks.turnChanged = null;
  document.removeEventListener("visibilitychange", onVisible);
  if ("serviceWorker" in navigator) navigator.serviceWorker.removeEventListener("message", onMessage);
  app.waiting = 0;
  badge(0);
}
