// vacation.js: the signed-in account's vacation bank (issue 28 item 1): the account menu's item
// #acct-vacation ("Vacation: 12 days left", or "On vacation until DATE") and its dialog, made
// here on the first open: the days left of the year's allowance, "Take" N days (POST
// /api/me/vacation {"days": N}) or "End vacation" (DELETE /api/me/vacation). GET
// /api/me/vacation answers {"days_left", "days_per_year", "year", "from", "until": ms or null}
// (PROTOCOL.md "Vacations"; `from` is not shown). A server without vacations (no accounts, or
// vacation-days = 0) answers 404 vacations_off: the item stays hidden, and is not asked again in
// this page.
// Loaded by account.js when the account menu opens.
// i18n-keys: vac.*
import { $, app } from "./app.js";
import { formatDate, formatNumber, onLanguageChange, t } from "./i18n.js";
import { call } from "./account.js";

let bank = null; // the last good answer of GET
let none = false; // the server has no vacations (404)
let error = ""; // the last refusal, in words
let busy = false;

const valid = (b) =>
  b && Number.isInteger(b.days_left) && Number.isInteger(b.days_per_year) && Number.isInteger(b.year) && (b.until === null || typeof b.until === "number");
const away = () => bank && typeof bank.until === "number" && bank.until > Date.now();

async function load() {
  const r = await call("GET", "/api/me/vacation");
  if (r.status === 404) none = true;
  bank = r.status === 200 && valid(r.data) ? r.data : null;
}

function label() {
  const item = $("acct-vacation");
  item.hidden = !bank;
  if (!bank) return;
  item.textContent = away() ? t("vac.menuAway", { date: formatDate(bank.until) }) : t("vac.menu", { count: bank.days_left });
}

// The menu's item as things are (account.js calls it when the menu opens).
export async function showState() {
  if (none || !app.account) return label();
  await load();
  label();
  if (dialog() && dialog().open) render();
}

function dialog() {
  return document.getElementById("vac-dlg");
}

function make() {
  const d = document.createElement("dialog");
  d.id = "vac-dlg";
  d.className = "ask";
  d.setAttribute("aria-labelledby", "vac-h");
  d.innerHTML =
    '<h2 id="vac-h"></h2><p id="vac-bank" role="status"></p>' +
    '<form id="vac-form"><label><span id="vac-days-l"></span> <input type="number" id="vac-days" min="1" step="1" required></label> ' +
    '<button type="submit" id="vac-take"></button></form>' +
    '<p id="vac-err" class="acct-err" role="alert"></p>' +
    '<div class="ask-buttons"><button type="button" id="vac-end"></button> <button type="button" id="vac-close"></button></div>';
  document.body.append(d);
  $("vac-form").addEventListener("submit", (e) => {
    e.preventDefault();
    take(Number($("vac-days").value));
  });
  $("vac-end").addEventListener("click", end);
  $("vac-close").addEventListener("click", () => d.close());
  d.addEventListener("close", () => !$("acct-user").hidden && $("acct-menu-btn").focus());
  return d;
}

function render() {
  $("vac-h").textContent = t("vac.title");
  $("vac-days-l").textContent = t("vac.days");
  $("vac-take").textContent = t("vac.take");
  $("vac-end").textContent = t("vac.end");
  $("vac-close").textContent = t("acct.close");
  const b = bank;
  let text = b ? t("vac.bank", { left: formatNumber(b.days_left), total: formatNumber(b.days_per_year), year: String(b.year) }) : t("vac.err.load");
  if (away()) text += " " + t("vac.away", { date: formatDate(b.until) });
  $("vac-bank").textContent = text;
  $("vac-form").hidden = !b || away() || b.days_left < 1;
  $("vac-end").hidden = !away();
  $("vac-days").max = b ? String(Math.max(1, b.days_left)) : "1";
  if (!$("vac-days").value) $("vac-days").value = "1";
  $("vac-err").textContent = error;
  for (const id of ["vac-take", "vac-end"]) $(id).disabled = busy;
}

async function change(method, body) {
  busy = true;
  error = "";
  render();
  const r = await call(method, "/api/me/vacation", body, true);
  busy = false;
  if (r.status < 200 || r.status > 299) error = t("vac.err.refused", { reason: (r.data && r.data.error) || (r.status ? "HTTP " + r.status : "offline") });
  await load();
  label();
  render();
}

async function take(days) {
  if (!bank || !Number.isInteger(days) || days < 1 || days > bank.days_left) {
    error = t("vac.err.days", { count: bank ? bank.days_left : 0 });
    return render();
  }
  await change("POST", { days });
}

async function end() {
  await change("DELETE", null);
}

// The click on #acct-vacation (account.js).
export function openVacation() {
  const d = dialog() || make();
  error = "";
  render();
  d.showModal();
  (away() ? $("vac-end") : $("vac-days")).focus();
}

onLanguageChange(() => {
  label();
  if (dialog() && dialog().open) render();
});
