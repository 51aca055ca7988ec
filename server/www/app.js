// carcd placeholder page: lists the public rooms from GET /api/rooms.
// No inline scripts: the server's Content-Security-Policy forbids them.
"use strict";

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.appendChild(td);
}

function show(rooms) {
  const table = document.getElementById("rooms");
  const body = table.querySelector("tbody");
  const status = document.getElementById("status");
  body.replaceChildren();
  if (!Array.isArray(rooms) || rooms.length === 0) {
    table.hidden = true;
    status.textContent = "No public rooms right now.";
    return;
  }
  for (const r of rooms) {
    const row = document.createElement("tr");
    cell(row, r.room);
    cell(row, r.host === null ? "" : r.host);
    cell(row, r.taken + " / " + r.seats);
    cell(row, r.phase);
    cell(row, Array.isArray(r.sets) ? r.sets.join(", ") : "");
    cell(row, r.password ? "yes" : "no");
    body.appendChild(row);
  }
  status.textContent = rooms.length + (rooms.length === 1 ? " room" : " rooms");
  table.hidden = false;
}

async function load() {
  const status = document.getElementById("status");
  try {
    const res = await fetch("/api/rooms", { cache: "no-store" });
    if (!res.ok) throw new Error("HTTP " + res.status);
    show(await res.json());
  } catch (e) {
    status.textContent = "Could not load the rooms: " + e.message;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  document.getElementById("ws-url").textContent = proto + "//" + location.host + "/ws";
  document.getElementById("refresh").addEventListener("click", load);
  load();
  setInterval(load, 10000);
});
