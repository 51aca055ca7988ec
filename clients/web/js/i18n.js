// i18n.js: the client's words in six languages. Each language has one catalogue,
// clients/web/i18n/LANG.json: a flat object from a key ("lobby.create.title") to a text with
// {name} placeholders, or to plural forms ({"one": "{count} tile", "other": "{count} tiles"},
// chosen by the `count` parameter through Intl.PluralRules; "=2" matches that number exactly).
// Only the chosen language's catalogue is fetched (English instead when that one fails to load).
// The language is the one saved in localStorage (`carcd.lang`), else the first of the
// browser's languages that we have, else English; the page's <select id="lang-select">
// changes it without a reload. Static HTML names its keys in attributes: data-i18n (the text),
// data-i18n-html (text with <b>, <em>, <code> only), data-i18n-title, data-i18n-aria-label,
// data-i18n-placeholder. tests/i18n/check.mjs checks the catalogues against each other and
// against the keys the sources use.

// Each language by its own name: the switcher's choices, never translated.
export const LANGUAGES = { en: "English", de: "Deutsch", fr: "Français", pl: "Polski", es: "Español", it: "Italiano" };
export const LANG_KEY = "carcd.lang";
// The locale of Intl's plurals, numbers, dates and lists: the project writes British English.
const LOCALE = { en: "en-GB" };
const ATTRS = ["title", "aria-label", "placeholder"];

let lang = "en";
let cat = {};
let plural = new Intl.PluralRules("en-GB");
let number = new Intl.NumberFormat("en-GB");
const listeners = [];
const inPage = typeof document !== "undefined";

// The language to show: the saved choice when we have it, else the first of `preferred` (the
// browser's languages, "de-CH" counting as "de") that we have, else English.
export function pickLanguage(saved, preferred) {
  if (saved && Object.hasOwn(LANGUAGES, saved)) return saved;
  for (const l of preferred || []) {
    const base = String(l).toLowerCase().split(/[-_]/)[0];
    if (Object.hasOwn(LANGUAGES, base)) return base;
  }
  return "en";
}

export function currentLanguage() {
  return lang;
}
export function locale() {
  return LOCALE[lang] || lang;
}

function savedLanguage() {
  try {
    return localStorage.getItem(LANG_KEY);
  } catch (e) {
    return null; // storage off: the browser's language
  }
}

async function fetchCatalogue(code) {
  const url = new URL(`../i18n/${code}.json`, import.meta.url);
  if (url.protocol === "file:") {
    // Node, running a module of the client outside a page (tests/integration/fair_check.mjs
    // runs fair.js): its fetch() takes no file URL.
    const { readFile } = await import("node:fs/promises");
    return JSON.parse(await readFile(url, "utf8"));
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${code}.json: HTTP ${res.status}`);
  return res.json();
}

// Loads a language's catalogue and makes it the current one (English when it cannot be had).
async function load(code) {
  let c = null;
  try {
    c = await fetchCatalogue(code);
  } catch (e) {
    if (code !== "en") {
      code = "en";
      c = await fetchCatalogue("en").catch(() => null);
    }
  }
  lang = code;
  cat = c || {};
  plural = new Intl.PluralRules(locale());
  number = new Intl.NumberFormat(locale());
  if (inPage) document.documentElement.lang = code;
}

function form(forms, n) {
  if (typeof n === "number") {
    if (forms["=" + n] !== undefined) return forms["=" + n];
    const f = forms[plural.select(n)];
    if (f !== undefined) return f;
  }
  return forms.other;
}

// The text of key in the current language with its {placeholders} filled from params (numbers
// formatted for the language); plural forms are chosen by params.count. An unknown key shows
// as itself (the catalogue check keeps that from happening).
export function t(key, params) {
  let v = cat[key];
  if (v === undefined) return key;
  if (typeof v === "object" && v !== null) v = form(v, params && params.count);
  if (!params) return v;
  return v.replace(/\{(\w+)\}/g, (m, k) => {
    if (!Object.hasOwn(params, k)) return m;
    const p = params[k];
    return typeof p === "number" ? number.format(p) : String(p);
  });
}

// Whether the catalogue has the key (for texts that fall back to something else).
export function hasKey(key) {
  return cat[key] !== undefined;
}

// "Ann, Bob and Cleo" in the language's way.
export function listText(items) {
  if (items.length <= 1) return items.join("");
  return new Intl.ListFormat(locale(), { style: "long", type: "conjunction" }).format(items);
}

// A number with its sign: "+5", "-14", "+0".
export function signed(n) {
  return new Intl.NumberFormat(locale(), { signDisplay: "always" }).format(n);
}

export function formatNumber(n) {
  return number.format(n);
}

// A date and time in the language's way.
export function formatDate(d) {
  return new Intl.DateTimeFormat(locale(), { dateStyle: "medium", timeStyle: "short" }).format(d);
}

// The first letter in capitals, as the language writes it.
export function capital(s) {
  return s ? s.charAt(0).toLocaleUpperCase(locale()) + s.slice(1) : s;
}

// Sets el's children to text in which <b>, <em> and <code> (nothing else, no attributes) are
// elements; the rest is text. The catalogues hold no other markup.
function setMarkup(el, text) {
  const root = document.createDocumentFragment();
  const stack = [root];
  for (const part of text.split(/(<\/?(?:b|em|code)>)/)) {
    const m = /^<(\/?)(b|em|code)>$/.exec(part);
    if (!m) {
      if (part) stack[stack.length - 1].append(part);
    } else if (!m[1]) {
      const n = document.createElement(m[2]);
      stack[stack.length - 1].append(n);
      stack.push(n);
    } else if (stack.length > 1) {
      stack.pop();
    }
  }
  el.replaceChildren(root);
}

// Fills every element under root that names a key in a data-i18n* attribute.
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-html]")) setMarkup(el, t(el.dataset.i18nHtml));
  for (const a of ATTRS) {
    for (const el of root.querySelectorAll(`[data-i18n-${a}]`)) el.setAttribute(a, t(el.getAttribute(`data-i18n-${a}`)));
  }
}

// fn(lang) runs after the page has changed language (for what is drawn from data).
export function onLanguageChange(fn) {
  listeners.push(fn);
}

// Changes the language, remembers the choice and translates the page in place.
export async function setLanguage(code) {
  if (!Object.hasOwn(LANGUAGES, code)) return;
  try {
    localStorage.setItem(LANG_KEY, code);
  } catch (e) {
    /* storage off: the choice lasts until the page is closed */
  }
  await load(code);
  translatePage();
  const sel = document.getElementById("lang-select");
  if (sel) sel.value = lang;
  for (const fn of listeners) fn(lang);
}

// The header's language switcher: a <select id="lang-select"> inside its <label>.
function mountSwitcher() {
  const sel = document.getElementById("lang-select");
  if (!sel) return;
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const o = document.createElement("option");
    o.value = code;
    o.lang = code;
    o.textContent = name;
    sel.append(o);
  }
  sel.value = lang;
  sel.addEventListener("change", () => setLanguage(sel.value));
}

// Every module that imports this one waits for the catalogue: t() works at their top level.
// Outside a page (Node running fair.js for the tests) there is no browser language, no page
// to translate and no switcher: English.
if (inPage) {
  await load(pickLanguage(savedLanguage(), navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]));
  translatePage();
  mountSwitcher();
} else {
  await load("en");
}
