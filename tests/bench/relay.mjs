#!/usr/bin/env node
// relay.mjs: the bare relay of issue 14, a plain Node `ws` server with no game logic and no
// storage, that any number of carc-load rooms can play against (tests/bench/README.md).
//
//   node tests/bench/relay.mjs TRANSCRIPT.json [--port 0] [--prebuffer]
//
// It serves ws://127.0.0.1:PORT/ws (every other HTTP request is a 404) and prints, once
// listening, the line
//   relay listening on ws://127.0.0.1:PORT/ws pid PID
// Every room replays one of the games recorded in TRANSCRIPT.json (by record.mjs against carcd;
// the rooms take them in turn), so the clients get the bytes carcd sent, message for message: a `welcome` on connect; `create`
// opens a room (a fresh id, of the recorded id's length) and gets the recorded `joined` and
// `state`; each `join` takes the next seat and gets that seat's `joined` and `state`, and the
// seats already there get their recorded `delta`; `start` sends the start `delta` to the six
// and the `legal` to the first mover. Then each `play`, from whichever client, is parsed
// (JSON.parse: the relay "parses the move") and answered with the next recorded move: its
// `delta` to all six clients of the room, the `legal` to the next mover's connection and the
// `ack` to the sender, with the recorded seq numbers. What the move says is not looked at: the
// recorded deltas keep a client's document consistent (the document is the recorded game's,
// and the client picks its moves from the recorded `legal` lists). After the recorded last
// move the game is over (any further `play` gets `error` `game_over`).
//
// Messages go out in the order carcd sends them: the n-th message of every recipient of one
// action before the (n+1)-th of any (the delta to all six, then the `legal` and the `ack`).
// They are sent as strings, as a plain relay would (ws encodes each send); --prebuffer sends
// Buffers encoded once at load instead (the least a relay can do per message).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { WebSocketServer } from 'ws';

function usage() {
  process.stderr.write('usage: node relay.mjs TRANSCRIPT.json [--port PORT] [--prebuffer]\n');
  process.exit(2);
}
const argv = process.argv.slice(2);
let port = 0;
let prebuffer = false;
let transcriptPath = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--port' && i + 1 < argv.length) port = Number(argv[++i]);
  else if (argv[i] === '--prebuffer') prebuffer = true;
  else if (transcriptPath === null && !argv[i].startsWith('--')) transcriptPath = argv[i];
  else usage();
}
if (transcriptPath === null || !Number.isInteger(port) || port < 0 || port > 65535) usage();

// ---- the transcript, turned into what each kind of request is answered with ----
const T = JSON.parse(readFileSync(transcriptPath, 'utf8'));
if (T.format !== 'carcd-relay-transcript/1') throw new Error(`${transcriptPath}: not a transcript`);
const V = T.protocol;
const SEATS = T.seats;

// One recorded game, turned into what each kind of request is answered with.
function buildGame(G) {
  // Per action: the messages each seat got for it, in order.
  const perAction = G.actions.map(() => Array.from({ length: SEATS }, () => []));
  for (let s = 0; s < SEATS; s++)
    for (const m of G.clients[s]) perAction[m.action][s].push(m.text);
  const kinds = (type) => G.actions.flatMap((a, k) => (a.type === type ? [k] : []));
  const [createIdx] = kinds('create');
  const [startIdx] = kinds('start');
  const recRoom = JSON.parse(perAction[createIdx][0][0]).room;
  if (typeof recRoom !== 'string') throw new Error('the transcript does not start with joined');
  const roomText = `"${recRoom}"`;

  // One step: the recorded sender, the id it sent (as JSON), and rounds of messages: round r
  // holds the r-th message of every seat that got one.
  const step = (k, encode) => {
    const a = G.actions[k];
    const sentId = a.sent === undefined ? undefined : JSON.parse(a.sent).id;
    const rounds = [];
    for (let s = 0; s < SEATS; s++) {
      perAction[k][s].forEach((text, r) => {
        const head = JSON.parse(text);
        if (text.includes(roomText) && G.actions[k].type !== 'create' &&
            G.actions[k].type !== 'join')
          throw new Error(`a ${a.type} message names the room id: the relay would rewrite it`);
        (rounds[r] ||= []).push({
          seat: s,
          toSender: head.type === 'ack',
          text,
          payload: encode ? Buffer.from(text, 'utf8') : text,
          hasRef: 'ref' in head,
        });
      });
    }
    return { k, seat: a.seat, idJson: JSON.stringify(sentId), rounds };
  };
  return {
    roomText,
    roomLen: recRoom.length,
    welcome: G.clients[0].find((m) => G.actions[m.action].type === 'connect').text,
    create: step(createIdx, false),
    joins: kinds('join').map((k) => ({ seat: G.actions[k].seat, step: step(k, false) })),
    start: step(startIdx, false),
    plays: kinds('play').map((k) => step(k, prebuffer)),
  };
}
const games = T.games.map(buildGame);
const welcome = games[0].welcome;

const gameOver = (ref) =>
  JSON.stringify({ v: V, type: 'error', ...(ref === undefined ? {} : { ref }),
                   code: 'game_over', message: 'the game has ended' });

// ---- rooms ----
const rooms = new Map();
let roomCounter = 0;
function newRoomId(len) {
  const n = (roomCounter++).toString(36);
  return n.length >= len ? `R${n}` : `R${n.padStart(len - 1, '0')}`;
}

// The ref of a reply, when the request's id is not the recorded one: replaced (or dropped)
// where the recorded reply has one, else written after the type, where carcd writes it.
function fixRef(text, hasRef, st, id) {
  const ref = id === undefined ? '' : `,"ref":${JSON.stringify(id)}`;
  if (hasRef) return text.replace(`,"ref":${st.idJson}`, ref);
  const head = text.match(/^\{"v":\d+,"type":"[a-z_]+"/)[0];
  return head + ref + text.slice(head.length);
}

// Send the step's rounds; setup steps rewrite the room id into the texts.
function run(st, room, sender, id, setup) {
  for (const round of st.rounds) {
    for (const m of round) {
      const ws = m.toSender ? sender : room.conns[m.seat];
      if (ws === undefined || ws === null) continue;
      let payload = m.payload;
      if (setup) payload = payload.replaceAll(room.game.roomText, `"${room.id}"`);
      if ((m.toSender || (m.hasRef && m.seat === st.seat)) && JSON.stringify(id) !== st.idJson)
        payload = fixRef(setup ? payload : m.text, m.hasRef, st, id);
      ws.send(payload, { binary: false });
    }
  }
}

function reply(ws, code, message, id) {
  ws.send(JSON.stringify({ v: V, type: 'error', ...(id === undefined ? {} : { ref: id }),
                           code, message }));
}

function onMessage(ws, data, isBinary) {
  if (isBinary) return reply(ws, 'bad_request', 'binary messages are not read');
  let msg;
  try {
    msg = JSON.parse(data);
  } catch {
    return reply(ws, 'malformed_json', 'not JSON');
  }
  if (msg === null || typeof msg !== 'object') return reply(ws, 'malformed_json', 'not an object');
  const room = ws.room;
  switch (msg.type) {
    case 'play': {
      if (room === null) return reply(ws, 'not_in_room', 'not in a room', msg.id);
      if (room.next >= room.game.plays.length) return ws.send(gameOver(msg.id));
      return run(room.game.plays[room.next++], room, ws, msg.id, false);
    }
    case 'create': {
      if (room !== null) return reply(ws, 'already_in_room', 'in a room already', msg.id);
      // The rooms play the recorded games in turn.
      const game = games[roomCounter % games.length];
      const r = { id: newRoomId(game.roomLen), game, conns: new Array(SEATS).fill(null),
                  joins: 0, next: 0, started: false, open: 1 };
      r.conns[0] = ws;
      rooms.set(r.id, r);
      ws.room = r;
      return run(game.create, r, ws, msg.id, true);
    }
    case 'join': {
      if (room !== null) return reply(ws, 'already_in_room', 'in a room already', msg.id);
      const r = rooms.get(msg.room);
      if (r === undefined) return reply(ws, 'no_such_room', 'no such room', msg.id);
      if (r.started) return reply(ws, 'wrong_phase', 'the game has started', msg.id);
      if (r.joins >= r.game.joins.length) return reply(ws, 'room_full', 'the room is full', msg.id);
      const j = r.game.joins[r.joins++];
      r.conns[j.seat] = ws;
      r.open++;
      ws.room = r;
      return run(j.step, r, ws, msg.id, true);
    }
    case 'start': {
      if (room === null) return reply(ws, 'not_in_room', 'not in a room', msg.id);
      if (room.started) return reply(ws, 'wrong_phase', 'the game has started', msg.id);
      room.started = true;
      return run(room.game.start, room, ws, msg.id, false);
    }
    case 'ping':
      return ws.send(JSON.stringify({ v: V, type: 'pong', ...(msg.id === undefined ? {} : { ref: msg.id }) }));
    default:
      return reply(ws, 'unknown_type', `the relay does not serve ${msg.type}`, msg.id);
  }
}

const server = http.createServer((req, res) => {
  res.writeHead(404, { 'content-type': 'text/plain', 'content-length': 10 });
  res.end('not found\n');
});
const wss = new WebSocketServer({ server, path: '/ws', perMessageDeflate: false,
                                  maxPayload: 16384, clientTracking: false });
wss.on('connection', (ws) => {
  ws.room = null;
  ws.on('message', (data, isBinary) => onMessage(ws, data, isBinary));
  ws.on('error', () => {});
  ws.on('close', () => {
    const r = ws.room;
    if (r === null) return;
    const i = r.conns.indexOf(ws);
    if (i >= 0) r.conns[i] = null;
    if (--r.open === 0) rooms.delete(r.id);
  });
  ws.send(welcome);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
server.listen(port, '127.0.0.1', () => {
  const p = server.address().port;
  console.log(`relay listening on ws://127.0.0.1:${p}/ws pid ${process.pid} (${games.length} ` +
              `recorded games of ${games.map((g) => g.plays.length).join('+')} moves, ` +
              `protocol ${V}${prebuffer ? ', prebuffer' : ''})`);
});
