// net.js: the protocol v2 connection (PROTOCOL.md) and RFC 6902 JSON Patch.
// One Connection per page. It reconnects with backoff and calls onOpen again, so the app can
// `resume` its seat (or `watch` again) with the last seq it applied.

// Every message we send carries it; the server refuses any other (error bad_version).
export const PROTOCOL_VERSION = 2;

function unescapePointer(s) {
  return s.replace(/~1/g, "/").replace(/~0/g, "~");
}

function splitPath(path) {
  if (path === "") return [];
  if (path[0] !== "/") throw new Error("bad JSON pointer " + path);
  return path.slice(1).split("/").map(unescapePointer);
}

function getAt(doc, parts) {
  let cur = doc;
  for (const p of parts) {
    if (cur === null || typeof cur !== "object") throw new Error("patch path not found");
    cur = Array.isArray(cur) ? cur[p === "-" ? cur.length : Number(p)] : cur[p];
  }
  return cur;
}

function clone(v) {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

// Applies RFC 6902 operations to doc in place and returns the (possibly new) root.
export function applyPatch(doc, ops) {
  for (const op of ops) {
    const parts = splitPath(op.path);
    if (op.op === "test") {
      if (JSON.stringify(getAt(doc, parts)) !== JSON.stringify(op.value)) {
        throw new Error("patch test failed at " + op.path);
      }
      continue;
    }
    let value;
    if (op.op === "move" || op.op === "copy") {
      const from = splitPath(op.from);
      value = clone(getAt(doc, from));
      if (op.op === "move") doc = removeAt(doc, from);
    } else {
      value = clone(op.value);
    }
    if (op.op === "remove") {
      doc = removeAt(doc, parts);
    } else if (op.op === "add" || op.op === "move" || op.op === "copy") {
      doc = setAt(doc, parts, value, true);
    } else if (op.op === "replace") {
      doc = setAt(doc, parts, value, false);
    } else {
      throw new Error("unknown patch op " + op.op);
    }
  }
  return doc;
}

function setAt(doc, parts, value, insert) {
  if (parts.length === 0) return value;
  const parent = getAt(doc, parts.slice(0, -1));
  const key = parts[parts.length - 1];
  if (Array.isArray(parent)) {
    const i = key === "-" ? parent.length : Number(key);
    if (insert) parent.splice(i, 0, value);
    else parent[i] = value;
  } else if (parent && typeof parent === "object") {
    parent[key] = value;
  } else {
    throw new Error("patch parent not found");
  }
  return doc;
}

function removeAt(doc, parts) {
  const parent = getAt(doc, parts.slice(0, -1));
  const key = parts[parts.length - 1];
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else if (parent && typeof parent === "object") delete parent[key];
  return doc;
}

// The WebSocket connection. Handlers: onStatus(text, ok), onOpen(), onMessage(msg).
export class Connection {
  constructor(handlers) {
    this.h = handlers;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, type}
    this.backoff = 500;
    this.closedByUs = false;
    this.timer = null;
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return proto + "//" + location.host + "/ws";
  }

  connect() {
    clearTimeout(this.timer);
    this.h.onStatus("connecting", "Connecting…");
    let ws;
    try {
      ws = new WebSocket(this.url(), "carcd");
    } catch (e) {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.backoff = 500;
      this.h.onStatus("online", "Connected");
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch (e) {
        return;
      }
      if (msg.type === "welcome") {
        this.h.onOpen(msg);
        return;
      }
      if (msg.ref !== undefined && this.pending.has(msg.ref)) {
        const p = this.pending.get(msg.ref);
        if (msg.type === "error" || msg.type !== "state") {
          // a reply; `state` after `joined` also carries the ref, keep the waiter for `joined`
          this.pending.delete(msg.ref);
          p.resolve(msg);
        }
      }
      this.h.onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      for (const p of this.pending.values()) p.resolve({ type: "error", code: "closed", message: "connection closed" });
      this.pending.clear();
      if (ev.code === 4000) {
        this.h.onStatus("offline", "This seat was taken over by another window or device.");
        return;
      }
      if (this.closedByUs) return;
      this.h.onStatus("offline", "Disconnected (" + ev.code + "), reconnecting…");
      this.retry();
    };
    ws.onerror = () => {};
  }

  retry() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), this.backoff);
    this.backoff = Math.min(this.backoff * 2, 8000);
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  // Sends a message; resolves with the reply carrying its ref (or an error). Messages whose
  // success is only the broadcast delta (start, add_bot, remove_bot) have no reply then: give
  // waitMs, and after it the promise resolves with {type: "no_reply"}.
  request(msg, waitMs) {
    const id = this.nextId++;
    const out = Object.assign({ v: PROTOCOL_VERSION }, msg, { id });
    return new Promise((resolve) => {
      if (!this.open) {
        resolve({ type: "error", code: "offline", message: "not connected to the server" });
        return;
      }
      this.pending.set(id, { resolve });
      this.ws.send(JSON.stringify(out));
      if (waitMs !== undefined) {
        setTimeout(() => {
          if (this.pending.get(id) && this.pending.get(id).resolve === resolve) {
            this.pending.delete(id);
            resolve({ type: "no_reply" });
          }
        }, waitMs);
      }
    });
  }

  send(msg) {
    if (this.open) this.ws.send(JSON.stringify(Object.assign({ v: PROTOCOL_VERSION }, msg)));
  }
}
