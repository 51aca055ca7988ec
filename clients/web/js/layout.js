// layout.js: the phone layout's drawer (style.css, max-width 800px). The tabs of #phone-tabs
// (Room, Players, Events, Chat) open one card over the board: a class panel-NAME on #room-view;
// the same tab again, or Escape inside the card, closes it. A chat message that comes while
// the chat is closed marks its tab. On wide screens the tabs are hidden and the classes do
// nothing.

const PANELS = ["room", "players", "log", "chat"];

function roomView() {
  return document.getElementById("room-view");
}

function tabs() {
  return document.querySelectorAll("#phone-tabs button[data-panel]");
}

// The open panel's name, or null.
export function openPanel() {
  const v = roomView();
  return PANELS.find((p) => v.classList.contains("panel-" + p)) || null;
}

// Opens the named panel (closing any other); null closes them all.
export function showPanel(name) {
  const v = roomView();
  for (const p of PANELS) v.classList.toggle("panel-" + p, p === name);
  for (const b of tabs()) {
    const on = b.dataset.panel === name;
    b.setAttribute("aria-expanded", on ? "true" : "false");
    if (on) b.classList.remove("unread");
  }
}

// On a phone the zoom tools sit in the panel tabs' row, off the board; on wide screens in their
// strip under the board (style.css). Moved as the width crosses 800px.
function placeTools() {
  const tools = document.querySelector(".board-tools");
  const nav = document.getElementById("phone-tabs");
  const wrap = document.querySelector("#room-view .board-wrap");
  if (!tools || !nav || !wrap) return;
  const phone = window.matchMedia("(max-width: 800px)").matches;
  if (phone && tools.parentElement !== nav) nav.append(tools);
  else if (!phone && tools.parentElement !== wrap) wrap.append(tools);
}

export function setupLayout() {
  placeTools();
  window.matchMedia("(max-width: 800px)").addEventListener("change", placeTools);
  for (const b of tabs()) {
    b.addEventListener("click", () => showPanel(openPanel() === b.dataset.panel ? null : b.dataset.panel));
  }
  for (const p of PANELS) {
    const card = document.getElementById(p + "-card");
    if (!card) continue;
    card.addEventListener("keydown", (e) => {
      if (e.key !== "Escape" || openPanel() !== p) return;
      showPanel(null);
      const tab = document.querySelector(`#phone-tabs button[data-panel="${p}"]`);
      if (tab) tab.focus();
    });
  }
  const chat = document.getElementById("chat");
  const chatTab = document.querySelector('#phone-tabs button[data-panel="chat"]');
  if (chat && chatTab) {
    new MutationObserver((records) => {
      const added = records.some((r) => r.addedNodes.length > 0);
      if (added && openPanel() !== "chat") chatTab.classList.add("unread");
    }).observe(chat, { childList: true });
  }
}
