// tests/i18n/check.mjs: the browser client's language catalogues (clients/web/i18n/LANG.json,
// js/i18n.js) against each other and against the sources. Run by `make i18n-check` (part of
// `make e2e`, so of `make test`); node only, no browser. Fails when
//   1. a language of js/i18n.js LANGUAGES has no catalogue, or a catalogue no language;
//   2. a key is missing from a catalogue, or a catalogue has a key English has not;
//   3. a value is neither a text nor plural forms, or its plural forms are not the language's
//      (Intl.PluralRules) plus "=N", or lack "other" or a form the language uses for a whole
//      number up to 1000 (Polish needs one, few and many; French "many" is for millions);
//   4. the {placeholders} of a key differ between languages (every form counted);
//   5. a value's markup (<b>, <em>, <code>: the only tags) differs from English's;
//   6. a non-English value equals the English one and has five letters or more outside its
//      placeholders (an untranslated copy), unless tests/i18n/same.json allows that value;
//   7. a key the sources use is in no catalogue: t("key") (each literal with a dot in its first
//      argument; a literal followed by `+`, or a template literal with ${...}, is a pattern that
//      must match a key), data-i18n* attributes in the HTML, dataset.i18n in the JS, and
//      "i18n-keys: PATTERN..." comments for keys built at run time ("error.*");
//   8. a catalogue key is used nowhere (by those literals and patterns);
//   9. a wire error code of common/err.h has no "error.CODE".
// Before checking the real catalogues it checks itself on broken copies (each of those must
// fail), so a check that can no longer fail is caught.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const WEB = path.join(ROOT, "clients/web");
const MIN_LETTERS = 5; // a copy of English shorter than this may be the same word ("Chat", "Bot")

const placeholders = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
const tags = (s) => [...s.matchAll(/<\/?(b|em|code)>/g)].map((m) => m[0]);
const forms = (v) => (typeof v === "string" ? [v] : Object.values(v));
const letters = (s) => s.replace(/\{\w+\}/g, "").replace(/<\/?(b|em|code)>/g, "").replace(/[^\p{L}]/gu, "").length;
const localeOf = (lang) => (lang === "en" ? "en-GB" : lang);

// The checks of the catalogues alone: cats {lang: {key: value}}, same {lang: [allowed values]}.
// Returns a list of problems.
export function checkCatalogues(cats, same = {}) {
  const bad = [];
  const en = cats.en;
  if (!en) return ["no English catalogue"];
  for (const [lang, cat] of Object.entries(cats)) {
    const rules = new Intl.PluralRules(localeOf(lang));
    const cats_ = rules.resolvedOptions().pluralCategories;
    const needed = new Set(["other"]);
    for (let n = 0; n <= 1000; n++) needed.add(rules.select(n));
    for (const key of Object.keys(en)) if (!(key in cat)) bad.push(`${lang}: missing key ${key}`);
    for (const [key, v] of Object.entries(cat)) {
      if (!(key in en)) {
        bad.push(`${lang}: key ${key} is not in English`);
        continue;
      }
      if (typeof v === "object" && v !== null && !Array.isArray(v)) {
        const names = Object.keys(v);
        for (const n of names) {
          if (!cats_.includes(n) && !/^=\d+$/.test(n)) bad.push(`${lang}: ${key}: "${n}" is no plural form of ${lang} (${cats_.join(", ")})`);
          if (typeof v[n] !== "string" || !v[n]) bad.push(`${lang}: ${key}.${n} is not a text`);
        }
        for (const c of needed) if (!names.includes(c)) bad.push(`${lang}: ${key} lacks the plural form "${c}"`);
      } else if (typeof v !== "string" || !v) {
        bad.push(`${lang}: ${key} is neither a text nor plural forms`);
        continue;
      }
      const ref = en[key];
      const want = new Set(forms(ref).flatMap(placeholders));
      const got = new Set(forms(v).flatMap(placeholders));
      const diff = [...want].filter((p) => !got.has(p)).concat([...got].filter((p) => !want.has(p)));
      if (diff.length) bad.push(`${lang}: ${key}: placeholders {${[...got].sort().join("}, {")}} differ from English {${[...want].sort().join("}, {")}}`);
      const tw = forms(ref).map((f) => tags(f).join("")).sort().join("|");
      const tg = forms(v).map((f) => tags(f).join("")).sort().join("|");
      if (typeof ref === "string" && typeof v === "string" && tw !== tg) bad.push(`${lang}: ${key}: markup ${tg || "none"} differs from English ${tw || "none"}`);
      if (lang !== "en") {
        const allowed = same[lang] || [];
        const refForms = typeof ref === "string" ? { other: ref } : ref;
        const vForms = typeof v === "string" ? { other: v } : v;
        for (const [n, text] of Object.entries(vForms)) {
          const r = refForms[n] !== undefined ? refForms[n] : refForms.other;
          if (text === r && letters(text) >= MIN_LETTERS && !allowed.includes(text)) bad.push(`${lang}: ${key}: "${text}" is the English text (untranslated?)`);
        }
      }
    }
  }
  return bad;
}

// The keys the sources use: {exact: Set, patterns: [{re, where}]} from JS and HTML text.
export function sourceUses(files) {
  const exact = new Map(); // key -> where
  const patterns = [];
  const literal = (lit, where, prefix) => {
    if (lit.includes("${")) {
      const re = "^" + lit.split(/\$\{[^}]*\}/).map((p) => p.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join(".+") + (prefix ? "" : "$");
      patterns.push({ re: new RegExp(re), where, text: lit });
    } else if (prefix) {
      patterns.push({ re: new RegExp("^" + lit.replace(/[.*+?^$()|[\]\\]/g, "\\$&")), where, text: lit + "…" });
    } else {
      exact.set(lit, where);
    }
  };
  for (const [file, src] of Object.entries(files)) {
    const line = (i) => `${file}:${src.slice(0, i).split("\n").length}`;
    if (file.endsWith(".html")) {
      for (const m of src.matchAll(/data-i18n(?:-[a-z-]+)?="([^"]+)"/g)) literal(m[1], line(m.index));
      continue;
    }
    // t(FIRST, ...): the string literals of its first argument
    for (const m of src.matchAll(/(?<![\w.$])t\(/g)) {
      let depth = 0;
      let i = m.index + 2;
      const start = i;
      for (; i < src.length; i++) {
        const c = src[i];
        if (c === '"' || c === "`" || c === "'") {
          const end = src.indexOf(c, i + 1);
          i = end;
          continue;
        }
        if (c === "(" || c === "[" || c === "{") depth++;
        else if (c === ")" || c === "]" || c === "}") {
          if (depth === 0) break;
          depth--;
        } else if (c === "," && depth === 0) break;
      }
      const arg = src.slice(start, i);
      // keys have a dot; other literals there are operands ("large" in kind === "large" ? ...)
      for (const l of arg.matchAll(/(["'`])((?:(?!\1).)*)\1(\s*\+)?/g)) if (l[2].includes(".")) literal(l[2], line(m.index), !!l[3]);
    }
    for (const m of src.matchAll(/dataset\.i18n\s*=\s*(["'`])((?:(?!\1).)*)\1/g)) literal(m[2], line(m.index));
    for (const m of src.matchAll(/i18n-keys:((?:\s+[\w*-]+(?:\.[\w*-]+)+)+)/g)) {
      for (const p of m[1].trim().split(/\s+/)) {
        patterns.push({ re: new RegExp("^" + p.replace(/\./g, "\\.").replace(/\*/g, ".+") + "$"), where: line(m.index), text: p });
      }
    }
  }
  return { exact, patterns };
}

// The checks of the sources' keys against the English catalogue's.
export function checkUses(en, uses) {
  const bad = [];
  const keys = Object.keys(en);
  for (const [k, where] of uses.exact) if (!(k in en)) bad.push(`${where}: key ${k} is in no catalogue`);
  for (const p of uses.patterns) if (!keys.some((k) => p.re.test(k))) bad.push(`${p.where}: no key matches ${p.text}`);
  for (const k of keys) {
    if (!uses.exact.has(k) && !uses.patterns.some((p) => p.re.test(k))) bad.push(`key ${k} is used nowhere in clients/web`);
  }
  return bad;
}

// The wire codes of common/err.h that have no error.CODE.
export function checkErrors(en, errH) {
  const codes = [...errH.matchAll(/X\(\w+, "([a-z_]+)"/g)].map((m) => m[1]);
  if (codes.length < 10) return [`common/err.h: only ${codes.length} codes found`];
  return codes.filter((c) => !(`error.${c}` in en)).map((c) => `common/err.h code ${c} has no error.${c}`);
}

// Broken copies that must each fail: the check checks itself.
function selfTest() {
  const good = {
    en: { "a.b": "Hello {name}, how are you?", "a.c": { one: "{count} tile", other: "{count} tiles" }, "a.d": "<b>Commit.</b> Then" },
    pl: { "a.b": "Cześć {name}, jak się masz?", "a.c": { one: "{count} płytka", few: "{count} płytki", many: "{count} płytek", other: "{count} płytki" }, "a.d": "<b>Zobowiązanie.</b> Potem" },
  };
  const variants = {
    "a missing key": (c) => delete c.pl["a.b"],
    "an extra key": (c) => (c.pl["a.x"] = "Coś"),
    "a placeholder renamed": (c) => (c.pl["a.b"] = "Cześć {imie}, jak się masz?"),
    "a placeholder dropped": (c) => (c.pl["a.b"] = "Cześć, jak się masz?"),
    "a plural form missing": (c) => delete c.pl["a.c"].few,
    "a plural form of another language": (c) => (c.pl["a.c"].two = "{count} płytki"),
    "an untranslated copy": (c) => (c.pl["a.b"] = c.en["a.b"]),
    "markup lost": (c) => (c.pl["a.d"] = "Zobowiązanie. Potem"),
    "not a text": (c) => (c.pl["a.b"] = 3),
  };
  const fails = [];
  if (checkCatalogues(good).length) fails.push("the good catalogues fail: " + checkCatalogues(good).join("; "));
  for (const [name, breakIt] of Object.entries(variants)) {
    const c = JSON.parse(JSON.stringify(good));
    breakIt(c);
    if (!checkCatalogues(c).length) fails.push(`${name} passes`);
  }
  const en = { "x.used": "Used", "x.dyn.one": "One", "x.err.bad": "Bad" };
  const src = {
    "a.js": 'say(t("x.used")); t(`x.dyn.${n}`, {}); t("x.err." + code);',
    "b.js": 't("x.missing");',
    "c.html": '<p data-i18n="x.nohtml">No</p>',
  };
  const u = checkUses(en, sourceUses(src));
  for (const want of ["x.missing", "x.nohtml"]) if (!u.some((b) => b.includes(want))) fails.push(`an unknown key ${want} passes`);
  if (u.some((b) => /x\.(used|dyn|err)/.test(b))) fails.push("used keys reported: " + u.join("; "));
  const unused = checkUses({ ...en, "x.dead": "Dead" }, sourceUses({ "a.js": src["a.js"] }));
  if (!unused.some((b) => b.includes("x.dead"))) fails.push("an unused key passes");
  if (!checkErrors({}, 'X(A, "a_b", "") X(B, "c_d", "") '.repeat(6)).length) fails.push("an error code without a sentence passes");
  return fails;
}

function main() {
  const problems = [];
  const self = selfTest();
  if (self.length) {
    console.log("i18n check: the check itself is broken:\n  " + self.join("\n  "));
    process.exit(1);
  }
  const i18nSrc = fs.readFileSync(path.join(WEB, "js/i18n.js"), "utf8");
  const langs = [...(/LANGUAGES = \{([^}]*)\}/.exec(i18nSrc) || [, ""])[1].matchAll(/(\w+):/g)].map((m) => m[1]);
  const files = fs.readdirSync(path.join(WEB, "i18n")).filter((f) => f.endsWith(".json"));
  for (const l of langs) if (!files.includes(l + ".json")) problems.push(`no catalogue clients/web/i18n/${l}.json`);
  for (const f of files) if (!langs.includes(f.replace(/\.json$/, ""))) problems.push(`clients/web/i18n/${f} is no language of js/i18n.js`);
  const cats = {};
  for (const f of files) {
    try {
      cats[f.replace(/\.json$/, "")] = JSON.parse(fs.readFileSync(path.join(WEB, "i18n", f), "utf8"));
    } catch (e) {
      problems.push(`clients/web/i18n/${f}: ${e.message}`);
    }
  }
  const same = JSON.parse(fs.readFileSync(path.join(ROOT, "tests/i18n/same.json"), "utf8"));
  problems.push(...checkCatalogues(cats, same));
  const sources = {};
  for (const f of fs.readdirSync(path.join(WEB, "js")).filter((x) => x.endsWith(".js"))) sources["js/" + f] = fs.readFileSync(path.join(WEB, "js", f), "utf8");
  for (const f of fs.readdirSync(WEB).filter((x) => x.endsWith(".html"))) sources[f] = fs.readFileSync(path.join(WEB, f), "utf8");
  const uses = sourceUses(sources);
  if (cats.en) {
    problems.push(...checkUses(cats.en, uses));
    problems.push(...checkErrors(cats.en, fs.readFileSync(path.join(ROOT, "common/err.h"), "utf8")));
  }
  const n = cats.en ? Object.keys(cats.en).length : 0;
  if (problems.length) {
    console.log(`i18n check: ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n  ` + problems.join("\n  "));
    process.exit(1);
  }
  console.log(`i18n check: ${n} keys in ${files.length} catalogues (${langs.join(", ")}), ${uses.exact.size} keys and ${uses.patterns.length} patterns used: ok`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
