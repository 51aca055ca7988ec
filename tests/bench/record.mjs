#!/usr/bin/env node
// record.mjs: play games against a running carcd the way carc-load plays one, and write down
// everything the server sent, for relay.mjs to replay (tests/bench/README.md).
//
//   node tests/bench/record.mjs ws://127.0.0.1:PORT/ws OUT.json [--games 5] [--seed N]
//
// Six clients (names P0..P5, as carc-load names them), seat 0 creates a room of 6 seats with the
// sets base + inns-cathedrals, the five others join, seat 0 starts, and the mover plays a random
// legal move each turn (meeple on half of them, as carc-load's bot_random_play) until the game
// is over; --games such games, one after the other, each in a room of its own. One action at a time: the next is sent only when every message the last one causes
// has arrived (its delta on all six connections, the `legal` to the next mover, the `ack`), so
// each message the server sent is filed under the action that caused it.
//
// OUT.json: {"format": "carcd-relay-transcript/1", "protocol": 2, "seats": 6, "sets": [...],
//   "games": [{"moves": N,
//     "actions": [{"seat": i, "type": "connect"|"create"|"join"|"start"|"play", "sent": TEXT}...],
//     "clients": [[{"action": k, "text": TEXT}, ...] x 6]}, ...]}: per game and client, every
//   text the server sent it, in order, with the index of the action that caused it (the
//   `welcome` is filed under the client's `connect`). Protocol version 2 (/tmp/v2-spec.md, protocol/PROTOCOL.md); with
//   CARC_PROTO_V=1 the legal moves are read from the state document instead (version 1 servers).
// Exit 0 when written, 1 when the game could not be played (after a few new games).
import { writeFileSync } from 'node:fs';
import WebSocket from 'ws';

const V = Number(process.env.CARC_PROTO_V || 2);
const SEATS = 6;
const SETS = ['base', 'inns-cathedrals'];
const TIMEOUT_MS = 10000;

function usage() {
  process.stderr.write('usage: node record.mjs ws://127.0.0.1:PORT/ws OUT.json [--games N] [--seed N]\n');
  process.exit(2);
}
const argv = process.argv.slice(2);
let seed = 1;
let ngames = 5;
const pos = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--seed' && i + 1 < argv.length) seed = Number(argv[++i]);
  else if (argv[i] === '--games' && i + 1 < argv.length) ngames = Number(argv[++i]);
  else pos.push(argv[i]);
}
if (!Number.isInteger(ngames) || ngames < 1 || pos.length !== 2 || !/^ws:\/\/(127\.|localhost:|\[::1\]:)/.test(pos[0])) usage();
const [url, outPath] = pos;

// xorshift64*, seeded: the recorded game's moves are reproducible for one server's draw order.
let rng = BigInt(seed) * 0x9e3779b97f4a7c15n + 1n;
function rand(n) {
  rng ^= rng >> 12n;
  rng ^= (rng << 25n) & 0xffffffffffffffffn;
  rng ^= rng >> 27n;
  return Number(((rng * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn) >> 33n) % n;
}

// ---- a minimal RFC 6902 applier (add, remove, replace: what carcd's diff writes) ----
function unescape(tok) {
  return tok.replace(/~1/g, '/').replace(/~0/g, '~');
}
function applyPatch(doc, patch) {
  for (const op of patch) {
    if (op.path === '') {
      if (op.op === 'add' || op.op === 'replace') doc = op.value;
      continue;
    }
    const toks = op.path.split('/').slice(1).map(unescape);
    let parent = doc;
    for (const t of toks.slice(0, -1)) parent = parent[Array.isArray(parent) ? Number(t) : t];
    const last = toks[toks.length - 1];
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(i, 0, op.value);
      else if (op.op === 'remove') parent.splice(i, 1);
      else if (op.op === 'replace') parent[i] = op.value;
      else throw new Error(`patch op ${op.op} not handled`);
    } else if (op.op === 'add' || op.op === 'replace') {
      parent[last] = op.value;
    } else if (op.op === 'remove') {
      delete parent[last];
    } else {
      throw new Error(`patch op ${op.op} not handled`);
    }
  }
  return doc;
}

async function recordOnce() {
  const actions = [];
  const logs = Array.from({ length: SEATS }, () => []);
  const socks = [];
  let doc = null; // the room's document, as client 0 sees it
  let legal = null; // the last `legal` message (version 2)
  let failure = null;
  let waiter = null;
  let roomId = null;

  const check = () => {
    if (waiter && (failure || waiter.pred())) {
      const w = waiter;
      waiter = null;
      clearTimeout(w.timer);
      if (failure) w.reject(failure);
      else w.resolve();
    }
  };
  const until = (what, pred) =>
    new Promise((resolve, reject) => {
      waiter = {
        pred,
        resolve,
        reject,
        timer: setTimeout(() => {
          waiter = null;
          reject(new Error(`timed out waiting for ${what}`));
        }, TIMEOUT_MS),
      };
      check();
    });
  // Messages of `type` client i got for action k.
  const got = (i, type, k = actions.length - 1) =>
    logs[i].filter((m) => m.action === k && m.type === type).length;

  const onMessage = (i, data, isBinary) => {
    if (isBinary) {
      failure = new Error(`seat ${i}: binary message`);
      return check();
    }
    const text = data.toString('utf8');
    const msg = JSON.parse(text);
    logs[i].push({ action: actions.length - 1, text, type: msg.type });
    if (msg.v !== V) failure = new Error(`seat ${i}: message of version ${msg.v}: ${text}`);
    if (msg.type === 'error') failure = new Error(`seat ${i}: error ${msg.code}: ${msg.message}`);
    if (i === 0 && msg.type === 'state') doc = msg.state;
    if (i === 0 && msg.type === 'delta') {
      if (doc === null || msg.seq !== doc.__seq + 1)
        failure = new Error(`seat 0: delta ${msg.seq} after ${doc && doc.__seq}`);
      else doc = applyPatch(doc, msg.patch);
    }
    if (i === 0 && (msg.type === 'state' || msg.type === 'delta') && doc) doc.__seq = msg.seq;
    if (msg.type === 'legal') legal = { seat: i, msg, action: actions.length - 1 };
    check();
  };

  const act = (seat, type, msg) => {
    const text = msg === undefined ? undefined : JSON.stringify({ v: V, type, ...msg });
    actions.push({ seat, type, ...(text === undefined ? {} : { sent: text }) });
    if (text !== undefined) socks[seat].send(text);
  };

  try {
    // Setup: connect, create or join, one client after the other, as carc-load does.
    for (let i = 0; i < SEATS; i++) {
      act(i, 'connect');
      const ws = new WebSocket(url, { perMessageDeflate: false });
      socks[i] = ws;
      ws.on('message', (data, isBinary) => onMessage(i, data, isBinary));
      ws.on('error', (e) => {
        failure = failure || new Error(`seat ${i}: ${e.message}`);
        check();
      });
      ws.on('close', () => {
        failure = failure || new Error(`seat ${i}: connection closed`);
        check();
      });
      await until(`seat ${i}'s welcome`, () => got(i, 'welcome') === 1);
      if (i === 0) act(0, 'create', { id: '1', name: 'P0', seats: SEATS, sets: SETS });
      else act(i, 'join', { id: '1', room: roomId, name: `P${i}` });
      await until(
        `seat ${i}'s joined and state`,
        () =>
          got(i, 'joined') === 1 &&
          got(i, 'state') === 1 &&
          logs.slice(0, i).every((_, j) => got(j, 'delta') === 1),
      );
      const joined = JSON.parse(logs[i].find((m) => m.type === 'joined').text);
      if (joined.seat !== i) throw new Error(`seat ${i} was given seat ${joined.seat}`);
      if (i === 0) roomId = joined.room;
    }
    // The game: start, then one random legal move after the other.
    const settled = () =>
      socks.every((_, j) => got(j, 'delta') === 1) &&
      (doc.phase !== 'playing' || V === 1 || (legal && legal.action === actions.length - 1));
    act(0, 'start', {});
    await until('the start delta', settled);
    if (doc.phase !== 'playing') throw new Error(`phase ${doc.phase} after start`);
    while (doc.phase === 'playing') {
      const mover = doc.current;
      let list = doc.legal;
      if (V !== 1) {
        if (legal.seat !== mover || legal.msg.player !== mover || legal.msg.turn !== doc.turn ||
            legal.msg.tile !== doc.tile || legal.msg.seq !== doc.__seq)
          throw new Error(`legal for seat ${legal.seat} does not match the document`);
        list = legal.msg.legal;
      }
      if (!list || list.length === 0) throw new Error(`no legal placement at turn ${doc.turn}`);
      const l = list[rand(list.length)];
      const seat = doc.seats[mover];
      let meeple = null;
      let escape = null;
      if (l.meeples.length > 0 && (seat.meeples > 0 || seat.large > 0) && rand(2)) {
        const large = seat.large > 0 && (seat.meeples === 0 || rand(4) === 0);
        meeple = { feature: l.meeples[rand(l.meeples.length)], kind: large ? 'large' : 'normal' };
      } else if (l.escapes.length > 0 && rand(2)) {
        escape = l.escapes[rand(l.escapes.length)];
      }
      const play = { tile: doc.tile, x: l.x, y: l.y, rot: l.rot };
      if (meeple) play.meeple = meeple;
      if (escape) play.escape = escape;
      act(mover, 'play', play);
      await until(`the delta of turn ${doc.turn}`, () => settled() && got(mover, 'ack') === 1);
    }
    if (doc.phase !== 'over') throw new Error(`the game ended in phase ${doc.phase}`);
  } finally {
    for (const ws of socks) {
      if (ws) {
        ws.removeAllListeners('close');
        ws.on('error', () => {});
        ws.close(1000);
      }
    }
  }
  return {
    moves: actions.filter((a) => a.type === 'play').length,
    actions,
    clients: logs.map((l) => l.map((m) => ({ action: m.action, text: m.text }))),
  };
}

const games = [];
let tries = 0;
while (games.length < ngames) {
  try {
    games.push(await recordOnce());
  } catch (e) {
    process.stderr.write(`record: game ${games.length + 1}: ${e.message}\n`);
    if (++tries >= 5) {
      process.stderr.write('record: giving up after 5 failed games\n');
      process.exit(1);
    }
  }
}
const T = { format: 'carcd-relay-transcript/1', protocol: V, recorded_from: url, seats: SEATS,
            sets: SETS, games };
writeFileSync(outPath, JSON.stringify(T) + '\n');
const msgs = games.flatMap((g) => g.clients.flat());
const bytes = msgs.reduce((s, m) => s + Buffer.byteLength(m.text), 0);
console.log(`record: ${games.length} games, ${games.map((g) => g.moves).join('+')} moves, ` +
            `${msgs.length} server messages (${bytes} bytes) to ${SEATS} clients each -> ${outPath}`);
