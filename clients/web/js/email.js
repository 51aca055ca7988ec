// email.js: the signed-in account's e-mail for correspondence play (PROTOCOL.md "Notifications",
// "E-mail"): the account menu's item #acct-email and its dialog, made here on the first open: an
// address and two boxes (the daily digest of the games waiting for you, a reminder when your
// clock runs low), Save (PUT /api/me/email {"address", "digest", "reminders"}) and Remove
// (DELETE /api/me/email). GET /api/me/email answers {"address": str|null, "digest", "reminders"}.
// A server without e-mail (no smtp-url: 404 mail_off; no storage: 404 accounts_off) keeps the
// item hidden, and is not asked again in this page. Loaded by account.js when the account menu
// opens, so none of this is in the page's first load.
// i18n-keys: mail.*
import { $, app } from "./app.js";
import { onLanguageChange, t } from "./i18n.js";
import { call } from "./account.js";

let kept = null; // the last good answer of GET
let none = false; // the server sends no e-mail (404)
let asked = false; // GET answered (anything but 404) at least once
let said = null; // the dialog's last notice or error: [key, params, is an error]
let busy = false;

const valid = (m) => m && (m.address === null || typeof m.address === "string") && typeof m.digest === "boolean" && typeof m.reminders === "boolean";

async function load() {
  const r = await call("GET", "/api/me/email");
  if (r.status === 404) none = true;
  else asked = true;
  kept = r.status === 200 && valid(r.data) ? r.data : null;
}

// The menu's item as things are (account.js calls it when the menu opens).
export async function showState() {
  if (!none && app.account) await load();
  $("acct-email").hidden = none || !asked || !app.account;
  if (dialog() && dialog().open) render();
}

function dialog() {
  return document.getElementById("mail-dlg");
}

function make() {
  const d = document.createElement("dialog");
  d.id = "mail-dlg";
  d.className = "ask";
  d.setAttribute("aria-labelledby", "mail-h");
  // novalidate: the server's rule for an address is the one that counts, and its message is shown
  d.innerHTML =
    '<h2 id="mail-h"></h2><p id="mail-now" role="status"></p>' +
    '<form id="mail-form" novalidate><p><label><span id="mail-addr-l"></span> ' +
    '<input type="email" id="mail-addr" autocomplete="email" maxlength="254" required></label></p>' +
    '<p><label><input type="checkbox" id="mail-digest"> <span id="mail-digest-l"></span></label></p>' +
    '<p><label><input type="checkbox" id="mail-reminders"> <span id="mail-reminders-l"></span></label></p>' +
    '<p id="mail-err" class="acct-err" role="alert"></p><p id="mail-done" role="status"></p>' +
    '<div class="ask-buttons"><button type="submit" id="mail-save"></button> <button type="button" id="mail-remove"></button> ' +
    '<button type="button" id="mail-close"></button></div></form>';
  document.body.append(d);
  $("mail-form").addEventListener("submit", (e) => {
    e.preventDefault();
    save();
  });
  $("mail-remove").addEventListener("click", remove);
  $("mail-close").addEventListener("click", () => d.close());
  d.addEventListener("close", () => !$("acct-user").hidden && $("acct-menu-btn").focus());
  return d;
}

// The form's fields from what the server keeps (a new address: both boxes on, as the server's
// own default).
function fill() {
  $("mail-addr").value = kept && kept.address ? kept.address : "";
  $("mail-digest").checked = kept && kept.address ? kept.digest : true;
  $("mail-reminders").checked = kept && kept.address ? kept.reminders : true;
}

function render() {
  $("mail-h").textContent = t("mail.title");
  $("mail-addr-l").textContent = t("mail.address");
  $("mail-digest-l").textContent = t("mail.digest");
  $("mail-reminders-l").textContent = t("mail.reminders");
  $("mail-save").textContent = t("mail.save");
  $("mail-remove").textContent = t("mail.remove");
  $("mail-close").textContent = t("acct.close");
  $("mail-now").textContent = !kept ? t("mail.err.load") : kept.address ? t("mail.now", { address: kept.address }) : t("mail.nothing");
  $("mail-remove").hidden = !(kept && kept.address);
  const [key, params, bad] = said || [];
  $("mail-err").textContent = key && bad ? t(key, params) : "";
  $("mail-done").textContent = key && !bad ? t(key, params) : "";
  for (const id of ["mail-save", "mail-remove"]) $(id).disabled = busy;
}

// A refusal in words: a bad address with the server's message (it names the rule), anything
// else with its message or code.
function refusal(r) {
  const code = (r.data && r.data.error) || (r.status ? "HTTP " + r.status : "offline");
  const message = String((r.data && r.data.message) || code);
  if (code === "bad_request" && /^address/.test(message)) return ["mail.err.address", { message }, true];
  return ["mail.err.refused", { reason: message }, true];
}

async function change(method, body, done) {
  busy = true;
  said = null;
  render();
  const r = await call(method, "/api/me/email", body, true);
  busy = false;
  // DELETE's 404 no_email: there was nothing to remove, which is what was asked
  const ok = r.status === 204 || (method === "DELETE" && r.data && r.data.error === "no_email");
  said = ok ? [done, {}, false] : refusal(r);
  await load();
  if (ok) fill();
  render();
  if (ok) $(method === "DELETE" ? "mail-addr" : "mail-save").focus();
}

function save() {
  const address = $("mail-addr").value.trim();
  if (!address) {
    said = ["mail.err.empty", {}, true];
    render();
    return $("mail-addr").focus();
  }
  return change("PUT", { address, digest: $("mail-digest").checked, reminders: $("mail-reminders").checked }, "mail.saved");
}

function remove() {
  return change("DELETE", null, "mail.removed");
}

// The click on #acct-email (account.js).
export async function openEmail() {
  const d = dialog() || make();
  said = null;
  await load();
  fill();
  render();
  d.showModal();
  $("mail-addr").focus();
}

onLanguageChange(() => dialog() && dialog().open && render());
