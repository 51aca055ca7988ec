#!/usr/bin/env node
// relay_vs_carcd.mjs: carcd's server CPU per move against the bare relay's (issue 14), both
// loaded by carc-load with the same rooms and the same messages, side by side. Run by
// `make bench-load` (and `make bench-relay`); tests/bench/README.md says what is measured.
//
//   node tests/bench/relay_vs_carcd.mjs [--build build] [--rooms 100] [--seconds 30]
//        [--runs 3] [--transcript FILE] [--max-ratio R]
//
// 1. Start BUILD/carcd (memory only) and record one game of six clients with record.mjs: every
//    message carcd sent, per client.
// 2. --runs times, alternately: start relay.mjs on that transcript and run
//      BUILD/carc-load --url ws://127.0.0.1:PORT/ws --pid RELAY_PID --rooms N --seconds S
//    then stop it, and run
//      BUILD/carc-load --carcd BUILD/carcd --rooms N --seconds S --carcd-arg --storage --carcd-arg off
//    (storage off on both sides: neither stores anything).
// 3. Print each run's `server_cpu` us per move, both medians and the ratio carcd / relay (the
//    median of the runs' ratios). Exit 1 when a run fails (a game not finished, no server_cpu
//    line), or, with --max-ratio, when the ratio is over R; else 0.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const opts = { build: 'build', rooms: 100, seconds: 30, runs: 3, transcript: null, maxRatio: 0 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const v = argv[i + 1];
  switch (argv[i]) {
    case '--build': opts.build = v; break;
    case '--rooms': opts.rooms = Number(v); break;
    case '--seconds': opts.seconds = Number(v); break;
    case '--runs': opts.runs = Number(v); break;
    case '--transcript': opts.transcript = v; break;
    case '--max-ratio': opts.maxRatio = Number(v); break;
    default:
      process.stderr.write('usage: node relay_vs_carcd.mjs [--build DIR] [--rooms N] ' +
                           '[--seconds S] [--runs N] [--transcript FILE] [--max-ratio R]\n');
      process.exit(2);
  }
  i++;
}
const carcd = path.join(opts.build, 'carcd');
const carcLoad = path.join(opts.build, 'carc-load');
const tmp = mkdtempSync(path.join(tmpdir(), 'carc-relay-'));
const children = new Set();
function cleanup() {
  for (const c of children) c.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

function fail(msg) {
  process.stderr.write(`relay_vs_carcd: ${msg}\n`);
  process.exit(1);
}

// Start a server and wait for the line `re` matches on its standard output; resolves to
// [child, match]. Its later output goes to our standard error.
function startServer(cmd, args, re, what) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(child);
    let buf = '';
    let ready = false;
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 10 s`)), 10000);
    child.stdout.on('data', (d) => {
      if (ready) return void process.stderr.write(d);
      buf += d.toString();
      const m = buf.match(re);
      if (m) {
        ready = true;
        clearTimeout(timer);
        resolve([child, m]);
      }
    });
    child.on('exit', (code) => {
      children.delete(child);
      if (!ready) reject(new Error(`${what} exited (${code}) before it was ready: ${buf}`));
    });
  });
}
function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function carcLoadRun(label, args) {
  const full = [...args, '--rooms', String(opts.rooms), '--seconds', String(opts.seconds)];
  console.log(`== ${label}: ${carcLoad} ${full.join(' ')}`);
  const r = spawnSync(carcLoad, full, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  process.stdout.write(r.stdout || '');
  const m = (r.stdout || '').match(/server_cpu: (\d+)% of a core, ([\d.]+) us per move/);
  const fin = (r.stdout || '').match(/games_finished: (\d+) of (\d+)/);
  if (r.status !== 0 || !m || !fin || fin[1] !== fin[2])
    fail(`${label}: carc-load exited ${r.status}${m ? '' : ', no server_cpu line'}`);
  return { usPerMove: Number(m[2]), pct: Number(m[1]) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

// 1. The transcript.
let transcript = opts.transcript;
if (transcript === null) {
  transcript = path.join(tmp, 'transcript.json');
  const [server, m] = await startServer(
    carcd,
    ['--listen', '127.0.0.1', '--port', '0', '--data-dir', path.join(tmp, 'data'),
     '--storage', 'off', '--log-level', 'warn'],
    /carcd listening on http:\/\/([^/\s]+)\//, 'carcd',
  ).catch((e) => fail(e.message));
  const rec = spawnSync(process.execPath,
                        [path.join(here, 'record.mjs'), `ws://${m[1]}/ws`, transcript],
                        { stdio: ['ignore', 'inherit', 'inherit'] });
  await stop(server);
  if (rec.status !== 0) fail('record.mjs could not record a game');
}
const T = JSON.parse(readFileSync(transcript, 'utf8'));
{
  // What one move costs in messages and bytes, over the recorded games' moves.
  let moves = 0, msgs = 0, bytes = 0;
  for (const g of T.games) {
    const play = new Set(g.actions.flatMap((a, k) => (a.type === 'play' ? [k] : [])));
    moves += play.size;
    for (const m of g.clients.flat()) {
      if (!play.has(m.action)) continue;
      msgs++;
      bytes += Buffer.byteLength(m.text);
    }
  }
  console.log(`relay_vs_carcd: ${opts.rooms} rooms x ${T.seats} clients, protocol ${T.protocol}, ` +
              `${T.games.length} recorded games (${moves} moves; per move ` +
              `${(msgs / moves).toFixed(2)} messages, ${(bytes / moves).toFixed(0)} bytes), ` +
              `${opts.runs} alternations`);
}

// 2. The runs.
const runs = [];
for (let i = 1; i <= opts.runs; i++) {
  const [relay, m] = await startServer(
    process.execPath, [path.join(here, 'relay.mjs'), transcript, '--port', '0'],
    /relay listening on (ws:\/\/\S+) pid (\d+)/, 'relay.mjs',
  ).catch((e) => fail(e.message));
  const relayRun = carcLoadRun(`relay run ${i}`, ['--url', m[1], '--pid', m[2]]);
  await stop(relay);
  const carcdRun = carcLoadRun(`carcd run ${i}`, ['--carcd', carcd, '--carcd-arg', '--storage',
                                                  '--carcd-arg', 'off']);
  runs.push({ relay: relayRun.usPerMove, carcd: carcdRun.usPerMove,
              ratio: carcdRun.usPerMove / relayRun.usPerMove });
}

// 3. The figures.
console.log('== relay baseline vs carcd: server CPU per move (carc-load server_cpu)');
runs.forEach((r, i) =>
  console.log(`run ${i + 1}: relay ${r.relay.toFixed(1)} us/move, carcd ${r.carcd.toFixed(1)} ` +
              `us/move, ratio ${r.ratio.toFixed(2)}`));
const relayMed = median(runs.map((r) => r.relay));
const carcdMed = median(runs.map((r) => r.carcd));
const ratio = median(runs.map((r) => r.ratio));
console.log(`relay_us_per_move: ${relayMed.toFixed(1)} (bare Node ws relay, median of ${runs.length})`);
console.log(`carcd_us_per_move: ${carcdMed.toFixed(1)} (storage off, median of ${runs.length})`);
console.log(`ratio_carcd_to_relay: ${ratio.toFixed(2)} (median of the ${runs.length} runs' ratios;` +
            ` issue 14's target: at most 0.50, ${ratio <= 0.5 ? 'met' : 'not met'})`);
if (opts.maxRatio > 0 && ratio > opts.maxRatio)
  fail(`the ratio ${ratio.toFixed(2)} is over --max-ratio ${opts.maxRatio}`);
