// sw.js: carcd's service worker (clients/web/README.md "Service worker, Web Push and the
// installable app"), registered by main.js once the page is idle, scope: the folder of
// index.html ("/", or a cluster's /n/NODE/).
// It takes over at once (skipWaiting, clients.claim): it never serves a file the server would
// not, so an old page under a new worker is safe. Three jobs:
// - the offline shell: at install, the files the lobby needs to start (FILES, kept small) go into
//   the cache SHELL. The client's static files (STATIC: the .html, .js, .css, .json, .svg, .png
//   and .webmanifest files of the app's folder and of js/ and i18n/, without a query) are fetched
//   from the network first, and each good answer is put in SHELL; the cache answers only when
//   the network fails (offline, or the server down). So a new release is never hidden behind a
//   stale cache, and a file used once (a lazily loaded module, another language) is there
//   offline too. Anything else (/api/, /ws, /admin, players/NAME, a URL with a query) goes to the
//   network untouched. Change VERSION when FILES changes: the new worker fills a new SHELL and
//   its activate deletes the older ones.
// - Web Push (PROTOCOL.md "Notifications"): a `your_turn`, `time_low` or `game_over` push shows a
//   notification in the page's language (push.notice.*, push.low.*, push.over.* of
//   i18n/LANG.json; the payload's English title and body when that fails), tag = the room, so a
//   later notice of the same room replaces it; any other type shows the payload's title and
//   body. Every push is also posted to the app's open pages as {push: TYPE, room}, so that they
//   count the games waiting for them again (waiting.js).
// - a notification's click takes a tab of the app to the notice's URL and focuses it, or opens one.
// The language is the page's: main.js (once the worker is ready) and push.js post {lang}; it is
// kept in the cache PREFS (kept across versions), since a worker has no localStorage.
const VERSION = "2";
const SHELL = "carcd-shell-v" + VERSION;
const PREFS = "carcd-prefs";
const LANGS = ["en", "de", "fr", "pl", "es", "it"];
const FILES = [
  "./",
  "style.css",
  "replay.css",
  "tiles.css",
  "fx.css",
  "flow.css",
  "favicon.svg",
  "icon-192.png",
  "manifest.webmanifest",
  "i18n/en.json",
  // main.js and what it imports (account.js and waiting.js: a signed-in player's start)
  ...[
    "account", "alerts", "app", "board", "chart", "ending", "fair", "features", "i18n", "layout", "lobby", "main",
    "names", "net", "replay", "scoring", "seats", "turn", "waiting", "words",
  ].map((m) => `js/${m}.js`),
];
const base = new URL("./", self.location).href; // the worker's folder, where the app lives
const STATIC = /^(|[\w-]+\.(html|css|svg|png|webmanifest)|js\/[\w-]+\.js|i18n\/[\w-]+\.json)$/;

self.addEventListener("install", (e) => {
  // every file fetched fresh (not from the HTTP cache); one missing fails the install
  e.waitUntil(
    caches
      .open(SHELL)
      .then((c) => c.addAll(FILES.map((f) => new Request(new URL(f, base), { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (e) => {
  const old = (k) => k.startsWith("carcd-shell-") && k !== SHELL;
  e.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter(old).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

// The client's static file a URL names (without its fragment), or null.
function staticFile(u) {
  const url = new URL(u);
  url.hash = "";
  if (url.origin !== self.location.origin || url.search || !url.href.startsWith(base)) return null;
  const rest = url.href.slice(base.length);
  return STATIC.test(rest) && rest !== "sw.js" ? url.href : null;
}

// Network first; a good answer is kept in SHELL; the cached copy when the network fails.
async function networkFirst(e, key) {
  try {
    const res = await fetch(e.request);
    if (res.ok && res.type === "basic") {
      const copy = res.clone();
      e.waitUntil(caches.open(SHELL).then((c) => c.put(key, copy)));
    }
    return res;
  } catch (err) {
    const hit = await caches.match(key, { cacheName: SHELL });
    if (hit) return hit;
    throw err;
  }
}

self.addEventListener("fetch", (e) => {
  if (e.request.method !== "GET") return;
  const key = staticFile(e.request.url);
  if (key) e.respondWith(networkFirst(e, key));
});

// The page's language (main.js and push.js post it at each load, push.js on a change).
self.addEventListener("message", (e) => {
  const lang = e.data && e.data.lang;
  if (!LANGS.includes(lang)) return;
  // kept, and its catalogue put in the shell (offline, the page speaks it; a notice uses it)
  const file = new URL(`i18n/${lang}.json`, base).href;
  e.waitUntil(
    Promise.all([
      caches.open(PREFS).then((c) => c.put(new URL("lang", base).href, new Response(lang))),
      caches.open(SHELL).then((c) => c.add(file).catch(() => {})),
    ]),
  );
});

async function language() {
  const r = await caches.match(new URL("lang", base).href, { cacheName: PREFS });
  const lang = r ? await r.text() : "";
  return LANGS.includes(lang) ? lang : "en";
}

// A time left in the catalogue's words: "2 d 4 h", "5 h 12 min", "25 min".
function leftText(cat, ms) {
  const m = Math.max(0, Math.floor(ms / 60000));
  const fill = (k, v) => String(cat[k]).replace(/\{(\w+)\}/g, (x, n) => (n in v ? String(v[n]) : x));
  if (m >= 1440) return fill("dur.daysHours", { d: Math.floor(m / 1440), h: Math.floor((m % 1440) / 60) });
  if (m >= 60) return fill("dur.hoursMinutes", { h: Math.floor(m / 60), m: m % 60 });
  return fill("dur.minutes", { count: m });
}

// The notice's title and body for a payload, in the page's language when its catalogue can be
// had: your_turn, time_low (the time left until `deadline`) and game_over (the place and score
// of the player's seat); any other type, or a catalogue that cannot be read, the payload's words.
// (noticeText and clickTarget are globals of the worker: tests/e2e/push.mjs evaluates them there.)
async function noticeText(p) {
  const fallback = { title: String(p.title || "carcd"), body: String(p.body || ""), lang: "en" };
  const kind = { your_turn: "notice", time_low: "low", game_over: "over" }[p.type];
  if (!kind) return fallback;
  try {
    const lang = await language();
    const url = new URL(`i18n/${lang}.json`, base).href;
    const res = (await caches.match(url, { cacheName: SHELL })) || (await fetch(url));
    const cat = await res.json();
    const names = (Array.isArray(p.players) ? p.players : []).map(String);
    const others = names.filter((_, i) => i !== p.seat);
    const v = {
      room: String(p.room),
      players: new Intl.ListFormat(lang, { type: "conjunction" }).format(others),
      time: typeof p.deadline === "number" ? leftText(cat, p.deadline - Date.now()) : "",
      rank: String(p.rank),
      count: String(names.length),
      score: Array.isArray(p.scores) ? String(p.scores[p.seat]) : "",
    };
    const fill = (k) => String(cat[k]).replace(/\{(\w+)\}/g, (m, n) => (n in v ? v[n] : m));
    const title = `push.${kind}.title`;
    const body = `push.${kind}.body`;
    if (typeof cat[title] !== "string" || typeof cat[body] !== "string") return fallback;
    return { title: fill(title), body: fill(body), lang };
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
  const show = noticeText(p).then(({ title, body, lang }) =>
    self.registration.showNotification(title, {
      body,
      lang,
      tag: p.room ? String(p.room) : undefined,
      renotify: !!p.room,
      icon: new URL("icon-192.png", base).href,
      data: { url: clickTarget(p), room: p.room || null },
    }),
  );
  // the open pages count the games waiting for them again (waiting.js)
  const tell = self.clients
    .matchAll({ type: "window" })
    .then((tabs) => tabs.forEach((c) => c.postMessage({ push: String(p.type || ""), room: p.room || null })));
  e.waitUntil(Promise.all([show, tell]));
});

// A click on a notice: a tab of the app (one already on the notice's URL first) is taken there
// and focused; without one (or when it cannot be taken there) a new one opens. Resolves to the
// WindowClient. (A global of the worker: tests/e2e/push.mjs dispatches a notificationclick.)
async function openNotice(data) {
  const target = clickTarget(data);
  const tabs = (await self.clients.matchAll({ type: "window", includeUncontrolled: true })).filter((c) => c.url.startsWith(base));
  tabs.sort((a, b) => (b.url === target) - (a.url === target));
  for (const tab of tabs) {
    let moved = null;
    try {
      moved = tab.url === target ? tab : await tab.navigate(target);
    } catch (err) {
      moved = null; // a tab this worker does not control cannot be navigated: try the next
    }
    if (!moved) continue;
    // focus() is allowed within a click's handling only; the tab is at the room even without it
    return moved.focus().catch(() => moved);
  }
  return self.clients.openWindow(target);
}

self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  e.waitUntil(openNotice(e.notification.data));
});
