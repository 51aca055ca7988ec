// alerts.js: turn alerts while the tab is in the background (document.hidden): the title
// ("● Your turn — carcd"), the "your turn" favicon (favicon-turn.svg), an optional beep (Web
// Audio, off by default; the toggle is stored as `carcd.sound`), and the low-time warning of our
// own clock on our turn (under 30 s or a tenth of the start time, whichever is more), shown in
// the turn card and, in the background, in the title. A signed-in player's title starts with the
// count of the games waiting for them, "(2) carcd" (app.waiting: waiting.js).
import { $, app } from "./app.js";
import { myTurn } from "./turn.js";
import { clockShown, lowAt, timeLeft } from "./seats.js";
import { t } from "./i18n.js";

const BASE_TITLE = document.title || "carcd";
const ICON = "favicon.svg";
const TURN_ICON = "favicon-turn.svg";
const SOUND_KEY = "carcd.sound";

let wasMine = false;
let wasLow = false;
let audio = null;

function hidden() {
  return document.visibilityState === "hidden" || document.hidden === true;
}

export function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) === "on";
  } catch (e) {
    return false;
  }
}

// A short generated beep (count of them, 0.2 s apart); nothing is downloaded.
export function beep(count = 1) {
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return;
  try {
    if (!audio) audio = new AC();
    if (audio.state === "suspended" && audio.resume) audio.resume();
    const t0 = audio.currentTime + 0.02;
    for (let i = 0; i < count; i++) {
      const t = t0 + i * 0.2;
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.25, t + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.14);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + 0.15);
    }
  } catch (e) {
    /* no audio output: the title and the icon still tell */
  }
}

// Our own clock's time left on our turn when it is low, else null.
function lowLeft() {
  const d = app.doc;
  if (!d || !d.clock || !myTurn()) return null;
  const left = timeLeft(d, app.seat);
  return left !== null && left > 0 && left < lowAt(d) ? left : null;
}

function setIcon(href) {
  const link = $("favicon");
  if (link && link.getAttribute("href") !== href) link.setAttribute("href", href);
}

// Brings the title, the icon and the warning up to date; runs on every render, every 250 ms,
// and when the tab is shown or hidden.
export function updateAlerts() {
  // a spectator has no turn: no beep to choose
  const sound = $("sound-toggle").closest("p");
  if (sound) sound.hidden = app.seat === null;
  const mine = !$("room-view").hidden && myTurn();
  const low = mine ? lowLeft() : null;
  const bg = hidden();
  const warn = $("low-time");
  if (low !== null) {
    const text = t("alert.hurry", { time: clockShown(app.doc, low) });
    if (warn.textContent !== text) warn.textContent = text;
    warn.hidden = false;
  } else {
    warn.hidden = true;
  }
  let title = BASE_TITLE;
  if (bg && mine) title = low !== null ? t("alert.titleLow", { time: clockShown(app.doc, low), title: BASE_TITLE }) : t("alert.title", { title: BASE_TITLE });
  if (app.waiting > 0) title = `(${app.waiting}) ${title}`; // the games waiting for us (waiting.js)
  if (document.title !== title) document.title = title;
  setIcon(bg && mine ? TURN_ICON : ICON);
  if (bg && soundOn()) {
    if (mine && !wasMine) beep(1);
    else if (low !== null && !wasLow) beep(2);
  }
  wasMine = mine;
  wasLow = low !== null;
}

export function startAlerts() {
  const box = $("sound-toggle");
  box.checked = soundOn();
  box.addEventListener("change", () => {
    try {
      localStorage.setItem(SOUND_KEY, box.checked ? "on" : "off");
    } catch (e) {
      /* storage off: the choice lasts until the page is closed */
    }
    if (box.checked) beep(1); // a sample, and a user gesture lets the page play sound later
  });
  // a browser starts audio only after a gesture: resume it on the first one
  const unlock = () => {
    if (soundOn() && audio && audio.state === "suspended") audio.resume();
  };
  document.addEventListener("pointerdown", unlock);
  document.addEventListener("keydown", unlock);
  document.addEventListener("visibilitychange", updateAlerts);
  setInterval(updateAlerts, 250);
}
