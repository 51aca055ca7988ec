// sw.js: carcd's service worker (clients/web/README.md "Service worker and Web Push"), registered
// by main.js once the page is idle, scope: the folder of index.html ("/", or a cluster's /n/NODE/).
// Three jobs:
// - the offline shell: at install, the static files the lobby needs go into the cache SHELL;
//   a GET of one of those exact URLs is answered from it first (network if it is missing). Only
//   the files listed below: never /api/, /ws, /admin or anything else (they go to the network
//   untouched). SHELL's name carries VERSION: change VERSION whenever a listed file changes, so
//   the new worker caches afresh and its activate deletes the older shells.
// - Web Push (PROTOCOL.md "Notifications"): a `your_turn` push shows a notification in the page's
//   language (push.notice.* of i18n/LANG.json, from the shell; the payload's English title and body
//   when that fails), tag = the room, so a later notice of the same room replaces it; any other
//   type shows the payload's title and body.
// - a notification's click focuses a tab of the app and takes it to the notice's URL, or opens one.
// The language is the page's: push.js posts {lang} and it is kept in the cache PREFS (kept across
// versions), since a worker has no localStorage.
const VERSION = "1";
const SHELL = "carcd-shell-v" + VERSION;
const PREFS = "carcd-prefs";
const LANGS = ["en", "de", "fr", "pl", "es", "it"];
const FILES = [
  "./",
  "index.html",
  "style.css",
  "replay.css",
  "tiles.css",
  "fx.css",
  "flow.css",
  "favicon.svg",
  "favicon-turn.svg",
  "icon-192.png",
  "icon-512.png",
  "manifest.webmanifest",
  ...[
    "account", "alerts", "app", "board", "chart", "ending", "fair", "features", "i18n", "layout", "lobby", "main",
    "mygames", "names", "net", "push", "replay", "scoring", "seats", "turn", "words",
  ].map((m) => `js/${m}.js`),
  ...LANGS.map((l) => `i18n/${l}.json`),
];
const base = new URL("./", self.location).href; // the worker's folder, where the app lives
const shellUrls = new Set(FILES.map((f) => new URL(f, base).href));

self.addEventListener("install", (e) => {
  // every file fetched fresh (not from the HTTP cache); one missing fails the install
  e.waitUntil(caches.open(SHELL).then((c) => c.addAll(FILES.map((f) => new Request(new URL(f, base), { cache: "reload" })))));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k.startsWith("carcd-shell-") && k !== SHELL).map((k) => caches.delete(k)))));
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  const url = new URL(req.url);
  url.hash = "";
  // the shell's files alone (a URL with a query, /api/, /ws, /admin are not in it)
  if (req.method !== "GET" || !shellUrls.has(url.href)) return;
  e.respondWith(caches.match(url.href, { cacheName: SHELL }).then((hit) => hit || fetch(req)));
});

// The page's language (push.js posts it at each load and on a change).
self.addEventListener("message", (e) => {
  const lang = e.data && e.data.lang;
  if (LANGS.includes(lang)) e.waitUntil(caches.open(PREFS).then((c) => c.put(new URL("lang", base).href, new Response(lang))));
});

async function language() {
  const r = await caches.match(new URL("lang", base).href, { cacheName: PREFS });
  const lang = r ? await r.text() : "";
  return LANGS.includes(lang) ? lang : "en";
}

// The notice's title and body for a payload, in the page's language when its catalogue can be had.
// (noticeText and clickTarget are globals of the worker: tests/e2e/push.mjs evaluates them there.)
async function noticeText(p) {
  const fallback = { title: String(p.title || "carcd"), body: String(p.body || ""), lang: "en" };
  if (p.type !== "your_turn") return fallback;
  try {
    const lang = await language();
    const url = new URL(`i18n/${lang}.json`, base).href;
    const res = (await caches.match(url, { cacheName: SHELL })) || (await fetch(url));
    const cat = await res.json();
    const others = (Array.isArray(p.players) ? p.players : []).filter((_, i) => i !== p.seat).map(String);
    const players = new Intl.ListFormat(lang, { type: "conjunction" }).format(others);
    const fill = (s) => String(s).replace(/\{(\w+)\}/g, (m, k) => ({ room: String(p.room), players })[k] ?? m);
    if (typeof cat["push.notice.title"] !== "string" || typeof cat["push.notice.body"] !== "string") return fallback;
    return { title: fill(cat["push.notice.title"]), body: fill(cat["push.notice.body"]), lang };
  } catch (e) {
    return fallback;
  }
}

// Where a click on a notice goes: its url when it is a page of this app, else the app's start.
function clickTarget(data) {
  try {
    const u = new URL(String((data && data.url) || ""), base);
    if (u.origin === self.location.origin) return u.href;
  } catch (e) {
    /* not a URL */
  }
  return base;
}

self.addEventListener("push", (e) => {
  let p = null;
  try {
    p = e.data ? e.data.json() : null;
  } catch (err) {
    p = null;
  }
  if (!p || typeof p !== "object") return;
  e.waitUntil(
    noticeText(p).then(({ title, body, lang }) =>
      self.registration.showNotification(title, {
        body,
        lang,
        tag: p.room ? String(p.room) : undefined,
        renotify: !!p.room,
        icon: new URL("icon-192.png", base).href,
        data: { url: clickTarget(p), room: p.room || null },
      }),
    ),
  );
});

self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  const target = clickTarget(e.notification.data);
  e.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(async (tabs) => {
      const tab = tabs.find((c) => c.url.startsWith(base));
      if (tab) {
        const focused = await tab.focus();
        return (focused || tab).navigate(target).catch(() => self.clients.openWindow(target));
      }
      return self.clients.openWindow(target);
    }),
  );
});
