// push.js: Web Push in the page (PROTOCOL.md "Notifications"; the worker is ../sw.js). Loaded by
// account.js only when the account menu opens, or at a signed-in load where the browser already
// allows notifications. The menu's item #acct-push says the state (on, off, blocked by the
// browser, not supported) and acts on a click, a user gesture as browsers require: off -> ask
// Notification.requestPermission(), register sw.js, GET /api/push/key, pushManager.subscribe and
// POST the subscription; on -> DELETE it and unsubscribe. At each signed-in load with the
// permission granted, resend() POSTs the existing subscription again (idempotent), so that the
// server keeps it (it drops none that a browser still sends). The worker is told the page's
// language (it keeps it: a worker has no localStorage) for the notices' words.
// i18n-keys: push.notice.* push.low.* push.over.* (used by sw.js, which reads them from i18n/LANG.json)
// i18n-keys: push.state.* push.err.*
import { $, showError } from "./app.js";
import { currentLanguage, onLanguageChange, t } from "./i18n.js";
import { call } from "./account.js";

let state = null; // on, off, blocked, unsupported, busy
let working = false;

const supported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

// The key of GET /api/push/key (base64url) as the bytes subscribe() takes.
function keyBytes(b64) {
  const s = atob(b64.replace(/-/g, "+").replace(/_/g, "/") + "==".slice(0, (4 - (b64.length % 4)) % 4));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

// The active worker's registration (registered again if need be: the same one when it exists).
async function registration() {
  await navigator.serviceWorker.register("sw.js");
  const reg = await navigator.serviceWorker.ready;
  tellLanguage(reg);
  return reg;
}
function tellLanguage(reg) {
  const w = reg && reg.active;
  if (w) w.postMessage({ lang: currentLanguage() });
}

async function subscription() {
  const reg = await navigator.serviceWorker.getRegistration();
  return reg ? reg.pushManager.getSubscription() : null;
}

async function findState() {
  if (!supported()) return "unsupported";
  if (Notification.permission === "denied") return "blocked";
  if (Notification.permission !== "granted") return "off";
  return (await subscription()) ? "on" : "off";
}

function render() {
  const b = $("acct-push");
  if (!b || !state) return;
  b.textContent = t("push.state." + state);
  b.disabled = state === "blocked" || state === "unsupported" || state === "busy";
  b.dataset.state = state;
}

// The menu's item as things are (account.js calls it when the menu opens).
export async function showState() {
  if (!working) state = await findState();
  render();
}

function fail(key, r) {
  const code = r && r.data && r.data.error;
  showError(t(key, { reason: code || (r && r.status ? "HTTP " + r.status : t("push.err.offline")) }), code);
}

async function turnOn() {
  const perm = await Notification.requestPermission();
  if (perm !== "granted") return;
  const reg = await registration();
  const k = await call("GET", "/api/push/key");
  if (k.status !== 200 || typeof k.data.key !== "string") return fail(k.data.error === "push_off" ? "push.err.push_off" : "push.err.on", k);
  let sub = await reg.pushManager.getSubscription();
  if (!sub) {
    try {
      sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(k.data.key) });
    } catch (e) {
      return fail("push.err.on", { data: { error: e.name } });
    }
  }
  const r = await call("POST", "/api/push/subscriptions", sub.toJSON(), true);
  if (r.status !== 204) {
    await sub.unsubscribe(); // not kept by the server: not "on" here either
    fail("push.err.on", r);
  }
}

async function turnOff() {
  const sub = await subscription();
  if (!sub) return;
  const r = await call("DELETE", "/api/push/subscriptions", { endpoint: sub.endpoint }, true);
  if (r.status !== 204 && r.status !== 404) return fail("push.err.off", r); // 404: the server had it no more
  await sub.unsubscribe();
}

// Sign-out (account.js, while the session still holds): the subscription deleted on the server
// (DELETE /api/push/subscriptions) and in the browser (unsubscribe), so that the account's
// notices stop coming here. The browser's subscription goes even when the server cannot be told:
// its push service then answers 410 and the server drops it.
export async function forget() {
  if (!supported()) return;
  const sub = await subscription().catch(() => null);
  if (!sub) return;
  await call("DELETE", "/api/push/subscriptions", { endpoint: sub.endpoint }, true);
  await sub.unsubscribe().catch(() => {});
}

// The click on #acct-push (account.js).
export async function toggle() {
  if (working) return;
  const was = await findState();
  working = true;
  state = "busy";
  render();
  try {
    if (was === "on") await turnOff();
    else if (was === "off") await turnOn();
  } catch (e) {
    fail("push.err.on", { data: { error: e.name || "error" } });
  } finally {
    working = false;
    await showState();
  }
}

// A signed-in load with notifications allowed: the subscription sent again, the language told.
export async function resend() {
  if (!supported() || Notification.permission !== "granted") return;
  const reg = await navigator.serviceWorker.getRegistration();
  tellLanguage(reg);
  const sub = reg && (await reg.pushManager.getSubscription());
  if (sub) await call("POST", "/api/push/subscriptions", sub.toJSON(), true);
}

onLanguageChange(() => {
  render();
  if (supported()) navigator.serviceWorker.getRegistration().then(tellLanguage);
});
