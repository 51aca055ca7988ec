// net.js: the protocol v2 connection (PROTOCOL.md) and RFC 6902 JSON Patch.
// One Connection per page. It reconnects with backoff and calls onOpen again, so the app can
// `resume` its seat (or `watch` again) with the last seq it applied. Behind a cluster of nodes
// it follows `redirect` answers itself, and every reconnect goes to the page's own base URL.

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

// The page's own WebSocket URL: "ws" next to the page, as its scripts and styles are (a page
// from / talks to /ws; one from /n/NODE/, a node's prefix behind the cluster's proxy, to
// /n/NODE/ws). Every connect and reconnect goes here, never to a redirected path.
export function baseUrl(loc) {
  const u = new URL("ws", loc.href);
  u.protocol = loc.protocol === "https:" ? "wss:" : "ws:";
  u.search = "";
  u.hash = "";
  return u.href;
}

// Redirects (PROTOCOL.md "Redirects between nodes"): at most this many in a row, then wait
// retry_ms and start again from the base URL; after REDIRECT_GIVE_UP_MS of it the request
// resolves with an `offline` error.
const MAX_HOPS = 3;
const REDIRECT_GIVE_UP_MS = 60000;

// The WebSocket connection. Handlers: onStatus(kind, key, params) (key: the status line's text
// in the catalogues, i18n.js), onOpen(), onMessage(msg).
// A `redirect` answering a request (join, watch, resume: the room lives on another node) is
// followed here, unseen by the app: a connection to the redirect's path on the same host, and
// after its welcome the same message again; the request's promise resolves with the final
// reply. onOpen is called only for a connection to the base URL that no redirect opened, so a
// reconnect re-enters the room through the base URL (and is redirected again if need be).
export class Connection {
  constructor(handlers) {
    this.h = handlers;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, out}
    this.backoff = 500;
    this.closedByUs = false;
    this.timer = null;
    this.base = baseUrl(location);
  }

  url() {
    return this.base;
  }

  connect() {
    this.dial(this.base, null);
  }

  // Opens a connection to url. carry, when set, is a request being redirected
  // ({id, hops, since, retryMs}; its message is pending.get(id).out): on this connection's welcome it is sent again instead of
  // calling onOpen; if the connection fails before its welcome, the redirect is retried later.
  dial(url, carry) {
    clearTimeout(this.timer);
    if (!carry) this.h.onStatus("connecting", "status.connecting");
    let ws;
    try {
      ws = new WebSocket(url, "carcd");
    } catch (e) {
      if (carry) this.redirectLater(carry);
      else this.retry();
      return;
    }
    const old = this.ws;
    this.ws = ws;
    if (old) old.close(1000); // its onclose sees it is no longer this.ws
    let welcomed = false;
    ws.onopen = () => {
      this.backoff = 500;
      this.h.onStatus("online", "status.connected");
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch (e) {
        return;
      }
      if (msg.type === "welcome") {
        welcomed = true;
        if (carry) this.resend(carry);
        else this.h.onOpen(msg);
        return;
      }
      if (msg.type === "redirect" && msg.ref !== undefined && this.pending.has(msg.ref)) {
        const c = carry && carry.id === msg.ref ? carry : { id: msg.ref, hops: 0, since: Date.now() };
        this.follow(c, msg);
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
      if (carry && !welcomed && this.pending.has(carry.id)) {
        // the redirect's path did not answer (its node just died: the proxy says 503)
        this.redirectLater(carry);
        return;
      }
      // A drop (1001: the server or a cluster's node shuts down; 4003: the node gave the room up
      // to another; 1006: the network) is recovered from by reconnecting and re-entering the
      // room, and the status line says so: what was waiting gets a `closed` marked quiet, which
      // is not shown in the error box (app.js showReplyError)
      for (const p of this.pending.values()) p.resolve({ type: "error", code: "closed", message: "connection closed", quiet: true });
      this.pending.clear();
      if (ev.code === 4000) {
        this.h.onStatus("offline", "status.takenOver");
        return;
      }
      if (this.closedByUs) return;
      if (ev.code === 4003) this.h.onStatus("connecting", "status.moving"); // the node gave the room up
      else this.h.onStatus("offline", "status.disconnected", { code: String(ev.code) });
      this.retry();
    };
    ws.onerror = () => {};
  }

  // A `redirect` for request c: its node's path on this host, unless that was the MAX_HOPS-th
  // in a row. Other requests still waiting on the connection we leave get a quiet `closed`.
  follow(c, msg) {
    c.retryMs = Math.min(Math.max(Number(msg.retry_ms) || 1000, 100), 10000);
    for (const [id, p] of this.pending) {
      if (id !== c.id) {
        this.pending.delete(id);
        p.resolve({ type: "error", code: "closed", message: "connection closed", quiet: true });
      }
    }
    c.hops++;
    if (c.hops > MAX_HOPS || typeof msg.path !== "string" || msg.path[0] !== "/") {
      this.redirectLater(c);
      return;
    }
    this.h.onStatus("connecting", "status.moving");
    const u = new URL(this.base);
    u.pathname = msg.path;
    this.dial(u.href, c);
  }

  // After retryMs, the request again through the base URL (the room's owner may have changed),
  // with a fresh count of hops; or, after REDIRECT_GIVE_UP_MS of redirects, an `offline` error.
  redirectLater(c) {
    const p = this.pending.get(c.id);
    if (!p) return;
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close(1000);
    }
    if (Date.now() - c.since > REDIRECT_GIVE_UP_MS) {
      this.pending.delete(c.id);
      p.resolve({ type: "error", code: "offline", message: "the room's server does not answer" });
      this.retry();
      return;
    }
    this.h.onStatus("connecting", "status.moving");
    c.hops = 0;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.dial(this.base, c), c.retryMs || 1000);
  }

  resend(c) {
    const p = this.pending.get(c.id);
    if (p && this.open) this.ws.send(JSON.stringify(p.out));
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
        // quiet: the status line already says that it is reconnecting
        resolve({ type: "error", code: "offline", message: "not connected to the server", quiet: true });
        return;
      }
      this.pending.set(id, { resolve, out });
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
