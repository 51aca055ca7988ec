// Helpers of the e2e suite for issue 12: the visible text of the page uses words, not ids (tile
// ids such as BA.U, feature names such as c1), and turn alerts in a background tab (a hidden
// tab emulated by overriding document.visibilityState / document.hidden).
import { legalInView } from "./play.mjs";

function assert(cond, msg) {
  if (!cond) throw new Error(msg || "assertion failed");
}

// Tile ids ("BA.U", "IC.05", "AT.12") and feature names ("c1", "r2", "f1"); raw error codes
// ("not_your_turn", "wrong_phase").
export const ID_RE = /\b(?:BA|IC|BS|CA|SG|AT)\.[A-Z0-9]+\b|\b[crf]\d\b/;
export const CODE_RE = /\b[a-z]+_[a-z_]+\b/;

export function assertNoIds(text, where) {
  const m = ID_RE.exec(text);
  assert(!m, `${where} shows the id "${m && m[0]}": ${m && text.slice(Math.max(0, m.index - 60), m.index + 40)}`);
}

// One turn by clicking, as clickMove, that also reads the turn card's text and the meeple
// choices (buttons and spot labels) into `seen` and takes a meeple from a choice button on
// every other turn.
export async function wordsMove(page, n, seen) {
  const before = await page.evaluate(() => document.getElementById("log").children.length);
  const target = await legalInView(page, n);
  await target.click();
  await page.waitForSelector("#world .pending");
  const text = await page.evaluate(() => {
    const labels = [...document.querySelectorAll("#world [aria-label]")].map((e) => e.getAttribute("aria-label"));
    return [document.getElementById("turn-text").innerText, document.getElementById("choices").innerText, ...labels].join("\n");
  });
  seen.push(text);
  const buttons = await page.$$("#choices button:not(#no-meeple)");
  if (buttons.length && n % 2 === 0) {
    await buttons[n % buttons.length].click();
    await page.waitForSelector("#world .spot.selected");
  }
  await page.click("#confirm-btn");
  await page.waitForFunction((k) => document.getElementById("log").children.length > k, before);
}

// Emulates the tab going to the background (hidden = true) or coming back.
export function setHidden(page, hidden) {
  return page.evaluate((h) => {
    window.__hidden = h;
    if (!window.__visPatched) {
      window.__visPatched = true;
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (window.__hidden ? "hidden" : "visible") });
      Object.defineProperty(document, "hidden", { configurable: true, get: () => window.__hidden });
    }
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}

// Before the page loads: a stand-in AudioContext that counts the beeps (window.__beeps), and a
// log of every title the page shows (window.__titles).
export async function instrument(page) {
  await page.addInitScript(() => {
    window.__beeps = 0;
    class FakeAudio {
      constructor() {
        this.state = "running";
        this.currentTime = 0;
        this.destination = {};
      }
      resume() {
        return Promise.resolve();
      }
      createOscillator() {
        window.__beeps++;
        return { type: "", frequency: { value: 0 }, connect: (n) => n, start() {}, stop() {} };
      }
      createGain() {
        return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (n) => n };
      }
    }
    window.AudioContext = FakeAudio;
    window.__titles = [];
    document.addEventListener("DOMContentLoaded", () => {
      window.__titles.push(document.title);
      new MutationObserver(() => {
        if (window.__titles[window.__titles.length - 1] !== document.title) window.__titles.push(document.title);
      }).observe(document.querySelector("title"), { childList: true, characterData: true, subtree: true });
    });
  });
}

export function favicon(page) {
  return page.$eval("#favicon", (l) => l.getAttribute("href"));
}
