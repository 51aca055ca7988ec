// account.js: optional accounts over HTTP (PROTOCOL.md "Accounts (HTTP)"): the header's
// "Sign in" button or, signed in, the account's name with a menu (My games: mygames.js, My
// profile and Ladder: links to players/NAME and ladder, Notifications: push.js, Vacation:
// vacation.js (shown when the server has vacations), E-mail: email.js (shown when the server
// sends e-mail), Sign out,
// Change password, Delete account), and the dialog #acct-dlg for all four. The session is the server's HttpOnly
// cookie; the CSRF token of its answers is kept in this module's memory only (GET /api/me gives
// it again after a reload). A guest plays as before: no account request is made until the page
// has seen a sign-in (localStorage `carcd.account`, "1" while this browser is signed in), since
// GET /api/me answers a guest 401, which Chromium logs as a console error on every load.
// At sign-up, the guest seats whose tokens this browser keeps (main.js: `carcd.seat.ROOM`) may be
// claimed by the new account (a box, checked by default; POST /api/me/claim), the result said in
// the dialog.
import { $, app, hooks, showError } from "./app.js";
import { onLanguageChange, t } from "./i18n.js";

const HINT = "carcd.account";
let csrf = null; // in memory only
let mode = "in"; // the dialog's: in, up (create), password, delete
let said = null; // the dialog's last error or notice [element id, key, params], said again on a language change
let back = null; // where the focus goes when the dialog closes
let claimable = 0; // the guest seats the sign-up's box offers

// This browser's guest seats, as POST /api/me/claim takes them (at most 100).
function guestSeats() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length && out.length < 100; i++) {
      const k = localStorage.key(i);
      const v = k.startsWith("carcd.seat.") ? JSON.parse(localStorage.getItem(k) || "null") : null;
      const room = k.slice(11);
      if (v && /^[0-9a-f]{32}$/.test(v.token) && /^[A-Za-z0-9]{1,16}$/.test(room)) out.push({ room, token: v.token });
    }
  } catch (e) {
    /* storage off: nothing to claim */
  }
  return out;
}
function claimText() {
  $("acct-claim-text").textContent = claimable ? t("acct.claim.box", { count: claimable }) : "";
}

function hint(on) {
  try {
    if (on) localStorage.setItem(HINT, "1");
    else localStorage.removeItem(HINT);
  } catch (e) {
    /* storage off: the next load starts as a guest */
  }
}

// A request to an account route: {status, data, wait} (status 0: no answer). push.js uses it too.
export async function call(method, path, body, withToken) {
  const headers = {};
  if (body) headers["Content-Type"] = "application/json";
  if (withToken && csrf) headers["X-CSRF-Token"] = csrf;
  try {
    const res = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined, cache: "no-store", credentials: "same-origin" });
    const data = res.status === 204 ? {} : await res.json().catch(() => ({}));
    return { status: res.status, data, wait: Number(res.headers.get("Retry-After")) || 0 };
  } catch (e) {
    return { status: 0, data: { error: "offline" }, wait: 0 };
  }
}

// The header as the account is: null a guest; false hides the account controls (accounts_off).
function show(me) {
  const wasIn = !$("acct-user").hidden;
  $("acct").hidden = me === false;
  app.account = me ? me.name : null;
  csrf = me ? me.csrf : null;
  $("acct-open").hidden = !!me;
  $("acct-user").hidden = !me;
  $("acct-name").textContent = me ? me.name : "";
  menu(false);
  hint(!!me);
  if (me) {
    // the lobby's name fields: the account's name (seats are not bound to accounts yet)
    for (const id of ["create-name", "join-name", "room-join-name"]) $(id).value = me.name;
    // notifications allowed before: the subscription sent again (push.js), so the server keeps it
    if (window.Notification && Notification.permission === "granted") import("./push.js").then((m) => m.resend());
    import("./waiting.js").then((m) => m.start()); // the games waiting for us: title and badge
  } else if (wasIn) {
    import("./waiting.js").then((m) => m.stop());
    const saved = localStorage.getItem("carcd.name") || "";
    for (const id of ["create-name", "join-name", "room-join-name"]) $(id).value = saved;
  }
}

// The WebSocket is signed in as its upgrade's cookie was (PROTOCOL.md "Seats of accounts"): once
// the session changes, a new one (main.js re-enters the room: by token, or by the account's seat).
function redial() {
  if (hooks.conn) hooks.conn.connect();
}

function menu(open) {
  // the page's own address: beside index.html, so under a cluster's /n/NODE/ too
  if (app.account) $("acct-profile").href = "players/" + encodeURIComponent(app.account);
  $("acct-menu").hidden = !open;
  $("acct-menu-btn").setAttribute("aria-expanded", String(open));
  if (open) import("./push.js").then((m) => m.showState()); // the Notifications item's state
  if (open) import("./vacation.js").then((m) => m.showState()); // the vacation item (hidden: none)
  if (open) import("./email.js").then((m) => m.showState()); // the e-mail item (hidden: no mail)
}

// i18n-keys: acct.err.* acct.password.* acct.delete.* acct.close acct.claim.*
// key may be a list of [key, params]: their sentences one after the other.
function say(id, key, params) {
  if (id) said = [id, key, params];
  const [el, k, p] = said || [];
  const text = Array.isArray(k) ? k.map(([a, b]) => t(a, b)).join(" ") : el ? t(k, p) : "";
  $("acct-err").textContent = el === "acct-err" ? text : "";
  $("acct-done").textContent = el === "acct-done" ? text : "";
}
function unsay() {
  said = null;
  say();
}

// The error code of an answer in words (the server's message says which rule a name or a
// password broke; one the client does not know is shown as the server wrote it).
function refusal(r) {
  const code = r.data.error || (r.status ? "unknown" : "offline");
  const message = String(r.data.message || "");
  let key = "acct.err." + code;
  if (code === "name_refused") {
    key = /2 to 24/.test(message) ? "acct.err.nameLength" : /letters/.test(message) ? "acct.err.nameChars" : /kept/.test(message) ? "acct.err.nameKept" : key;
  } else if (code === "password_refused") {
    key = /8 to 256/.test(message) ? "acct.err.passwordLength" : /not be the name/.test(message) ? "acct.err.passwordName" : key;
  } else if (code === "wrong_credentials" && (mode === "password" || mode === "delete")) {
    key = "acct.err.wrongPassword";
  } else if (code === "rate_limited") {
    const s = Math.max(1, r.wait);
    return say("acct-err", s < 120 ? "acct.err.rateSeconds" : "acct.err.rateMinutes", { count: s < 120 ? s : Math.ceil(s / 60) });
  } else if (!["wrong_credentials", "name_taken", "registration_closed", "invite_needed", "busy", "storage_error", "offline"].includes(code)) {
    key = "acct.err.unknown";
  }
  say("acct-err", key, { message });
  if (code === "invite_needed") {
    $("acct-invite-row").hidden = false;
    $("acct-invite").focus();
  }
}

// Sets the dialog to a mode: in and up are the two tabs; password and delete are for the account.
function setMode(m) {
  mode = m;
  const tabs = m === "in" || m === "up";
  $("acct-tabs").hidden = !tabs;
  for (const [id, on] of [["acct-tab-in", m === "in"], ["acct-tab-up", m === "up"]]) {
    $(id).setAttribute("aria-selected", String(on));
    $(id).tabIndex = on ? 0 : -1;
  }
  const form = $("acct-form");
  if (tabs) {
    form.setAttribute("role", "tabpanel");
    form.setAttribute("aria-labelledby", m === "in" ? "acct-tab-in" : "acct-tab-up");
  } else {
    form.removeAttribute("role");
    form.removeAttribute("aria-labelledby");
  }
  const title = { in: "acct.signIn", up: "acct.create", password: "acct.password.title", delete: "acct.delete.title" }[m];
  const submit = { in: "acct.signIn", up: "acct.create", password: "acct.password.submit", delete: "acct.delete.submit" }[m];
  for (const [id, key] of [["acct-h", title], ["acct-submit", submit]]) {
    $(id).dataset.i18n = key;
    $(id).textContent = t(key);
  }
  $("acct-submit").classList.toggle("danger", m === "delete");
  $("acct-submit").hidden = false;
  $("acct-cancel").dataset.i18n = "acct.cancel";
  $("acct-cancel").textContent = t("acct.cancel");
  $("acct-name-row").hidden = !tabs;
  $("acct-name-in").required = tabs;
  $("acct-name-hint").hidden = m !== "up";
  $("acct-pw").autocomplete = m === "up" ? "new-password" : "current-password";
  $("acct-pw-label").dataset.i18n = m === "password" ? "acct.password.current" : "form.password";
  $("acct-pw-label").textContent = t($("acct-pw-label").dataset.i18n);
  $("acct-pw").setAttribute("aria-describedby", m === "up" ? "acct-pw-hint" : "");
  $("acct-new-row").hidden = m !== "password";
  $("acct-new").required = m === "password";
  $("acct-new").setAttribute("aria-describedby", m === "password" ? "acct-pw-hint" : "");
  $("acct-pw-hint").hidden = m !== "up" && m !== "password";
  if (m !== "up") $("acct-invite-row").hidden = true;
  $("acct-confirm-row").hidden = m !== "delete";
  $("acct-confirm").required = m === "delete";
  $("acct-intro").hidden = m !== "delete";
  $("acct-intro").dataset.i18n = "acct.delete.text";
  $("acct-intro").textContent = t("acct.delete.text");
  $("acct-pw-row").hidden = false;
  claimable = m === "up" ? guestSeats().length : 0;
  $("acct-claim-row").hidden = !claimable;
  claimText();
  unsay();
}

// The dialog done: its fields gone, Close its only button, a sentence in #acct-done.
function done(key, params) {
  for (const id of ["acct-tabs", "acct-name-row", "acct-name-hint", "acct-pw-row", "acct-new-row", "acct-pw-hint", "acct-invite-row", "acct-claim-row", "acct-submit"]) $(id).hidden = true;
  $("acct-cancel").dataset.i18n = "acct.close";
  $("acct-cancel").textContent = t("acct.close");
  say("acct-done", key, params);
  $("acct-cancel").focus();
}

// The new account takes this browser's guest seats (POST /api/me/claim): said in the dialog.
async function claim() {
  const r = await call("POST", "/api/me/claim", { seats: guestSeats() }, true);
  if (r.status !== 200) return done("acct.claim.failed");
  const said = [["acct.claim.done", { count: r.data.claimed.length }]];
  if (r.data.skipped.length) said.push(["acct.claim.skipped", { count: r.data.skipped.length }]);
  done(said);
}

function open(m) {
  back = document.activeElement;
  $("acct-form").reset();
  if (app.account) $("acct-name-in").value = app.account; // for password managers
  setMode(m);
  $("acct-dlg").showModal();
  (m === "in" || m === "up" ? $("acct-name-in") : $("acct-pw")).focus();
}

function close() {
  if ($("acct-dlg").open) $("acct-dlg").close();
}

$("acct-dlg").addEventListener("close", () => {
  unsay();
  $("acct-form").reset();
  // back to the button that opened it, or, once that one is gone (signed in or out), the one in its place
  const to = back && back.isConnected && back.checkVisibility() ? back : app.account ? $("acct-menu-btn") : $("acct-open");
  if (!$("acct").hidden) to.focus();
});

// The tabs: a click, or the arrow keys between them (the tablist pattern).
for (const [id, m] of [["acct-tab-in", "in"], ["acct-tab-up", "up"]]) {
  $(id).addEventListener("click", () => mode !== m && setMode(m));
}
$("acct-tabs").addEventListener("keydown", (e) => {
  if (!["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key)) return;
  e.preventDefault();
  const m = e.key === "Home" ? "in" : e.key === "End" ? "up" : mode === "in" ? "up" : "in";
  setMode(m);
  $(m === "in" ? "acct-tab-in" : "acct-tab-up").focus();
});
$("acct-cancel").addEventListener("click", close);

$("acct-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const btn = $("acct-submit");
  if (btn.disabled) return;
  const name = $("acct-name-in").value.trim();
  const password = $("acct-pw").value;
  let r;
  btn.disabled = true;
  try {
    if (mode === "in") r = await call("POST", "/api/session", { name, password });
    else if (mode === "up") {
      const body = { name, password };
      if ($("acct-invite").value.trim()) body.invite = $("acct-invite").value.trim();
      r = await call("POST", "/api/account", body);
    } else if (mode === "password") r = await call("POST", "/api/me/password", { password, new_password: $("acct-new").value }, true);
    else r = await call("POST", "/api/me/delete", { password }, true);
  } finally {
    btn.disabled = false;
  }
  if (r.status === 200 || r.status === 201) {
    show({ name: r.data.name, csrf: r.data.csrf });
    if (mode === "up" && claimable && $("acct-claim").checked) await claim();
    else close();
    return redial(); // after the claim: the room's seat is the account's when the page re-enters it
  }
  if (r.status === 204 && mode === "delete") {
    show(null);
    close();
    return;
  }
  if (r.status === 204) {
    // the password changed: said in the dialog, whose only button is now Close
    $("acct-form").reset();
    return done("acct.password.done");
  }
  if (r.data.error === "accounts_off") {
    show(false);
    close();
    return showError(t("acct.err.accounts_off"), "accounts_off");
  }
  if (r.data.error === "not_signed_in" && (mode === "password" || mode === "delete")) {
    show(null);
    close();
    return showError(t("acct.err.not_signed_in"), "not_signed_in");
  }
  refusal(r);
  if (r.data.error === "wrong_credentials" || r.data.error === "password_refused") $("acct-pw").select();
  else if (r.data.error === "name_refused" || r.data.error === "name_taken") $("acct-name-in").select();
});

// The menu of a signed-in account: a disclosure of three buttons; Escape or a click elsewhere folds it.
$("acct-open").addEventListener("click", () => open("in"));
// The first "Sign in" of a guest's page, which loaded this module (main.js accountBoot).
export function openSignIn() {
  open("in");
}
$("acct-menu-btn").addEventListener("click", () => menu($("acct-menu").hidden));
$("acct-user").addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !$("acct-menu").hidden) {
    e.stopPropagation(); // not the game's Escape (undo)
    menu(false);
    $("acct-menu-btn").focus();
  }
});
document.addEventListener("click", (e) => {
  if (!$("acct-menu").hidden && !$("acct-user").contains(e.target)) menu(false);
});
// "My games" (mygames.js, loaded on its first open).
$("acct-games").addEventListener("click", () => {
  menu(false);
  import("./mygames.js").then((m) => m.openGames());
});
// "Vacation" (vacation.js): its dialog.
$("acct-vacation").addEventListener("click", () => {
  menu(false);
  import("./vacation.js").then((m) => m.openVacation());
});
$("acct-email").addEventListener("click", () => {
  menu(false);
  import("./email.js").then((m) => m.openEmail());
});
// "Notifications" (push.js): on or off; the menu stays open to show the new state.
$("acct-push").addEventListener("click", () => import("./push.js").then((m) => m.toggle()));
$("acct-password").addEventListener("click", () => {
  menu(false);
  open("password");
});
$("acct-delete").addEventListener("click", () => {
  menu(false);
  open("delete");
});
async function signOut(again) {
  menu(false);
  // this browser's push subscription goes first (it needs the session): no notices of the
  // account here once it is signed out
  if (window.Notification && "serviceWorker" in navigator) await import("./push.js").then((m) => m.forget());
  const r = await call("DELETE", "/api/session", null, true);
  if (r.status === 204 || r.status === 401) {
    show(null);
    redial();
    $("acct-open").focus();
  } else if (r.data.error === "csrf" && again) {
    await whoAmI(); // our token is stale: ask for the session's, once
    if (app.account) signOut(false);
  } else {
    const code = r.data.error === "busy" || r.data.error === "storage_error" ? r.data.error : r.status ? "unknown" : "offline";
    showError(t("acct.err." + code), r.data.error);
  }
}
$("acct-signout").addEventListener("click", () => signOut(true));

onLanguageChange(() => {
  say();
  claimText();
});

// Who is signed in: GET /api/me once this browser has signed in (see the header).
export async function whoAmI() {
  let stored = null;
  try {
    stored = localStorage.getItem(HINT);
  } catch (e) {
    /* storage off */
  }
  if (!stored) return show(null);
  const r = await call("GET", "/api/me");
  if (r.status === 200) show(r.data);
  else if (r.status === 404 && r.data.error === "accounts_off") show(false);
  else if (r.status === 401) show(null);
  else {
    // no answer, or the database failed: a guest for now, asked again on the next load
    show(null);
    hint(true);
  }
}
