"""Storage faults and the records API of a live carcd.

One carcd per data directory (a second one is refused); a database locked by another program at
start (carcd refuses to start) and at run time (moves get storage_error, nothing is told, play goes
on once the lock is gone); a full disk (RLIMIT_FSIZE: writes fail with EFBIG) keeps exactly the
acknowledged moves; games closed before their end (room-ttl, stale-room) are kept as "abandoned"
records, listed by GET /api/games?status=abandoned and replayable with carc-replay."""

import json
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import harness as h

# Fast clients: the per-connection limits would otherwise throttle the game loop.
FAST = dict(h.LIMITS, **{"rate": 2000, "burst": 2000, "flood-rate": 4000, "flood-burst": 4000})


def http_get(srv, path):
    """(status, body text) of GET path."""
    try:
        with urllib.request.urlopen(srv.http_url.rstrip("/") + path, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def http_json(srv, path):
    status, body = http_get(srv, path)
    if status != 200:
        raise AssertionError("GET %s: %d %s" % (path, status, body[:200]))
    return json.loads(body)


def board_of(doc):
    return {k: (v["tile"], v["rot"]) for k, v in (doc or {}).get("board", {}).items()}


def record_board(rec):
    """The placements of a record's moves (without the start tile)."""
    return {"%d,%d" % (m["x"], m["y"]): (m["tile"], m["rot"]) for m in rec["moves"]}


def file_size_limit(n):
    """A child setup for h.Server: writes past n bytes fail with EFBIG, as on a full disk
    (carcd ignores SIGXFSZ)."""
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))


def run_carcd(data_dir, *extra, timeout=10):
    """carcd that is expected to exit by itself: (returncode, stdout, stderr)."""
    p = subprocess.run([h.CARCD, "--listen", "127.0.0.1", "--port", "0", "--data-dir", data_dir]
                       + h.storage_flags(data_dir) + list(extra), cwd=h.ROOT, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=timeout,
                       preexec_fn=h._die_with_parent)
    h.log_keep("carcd-run", p.stdout + p.stderr)  # for run.py's check of secrets in logs
    return p.returncode, p.stdout, p.stderr


class Game:
    """Two (or more) players in a started game; what the test knows of it."""

    def __init__(self, srv, names=("Ann", "Bob"), rng=None):
        self.clients = h.create_room(srv, list(names), sets=["base"])
        self.clients[0].send({"v": h.V, "type": "start"})
        for c in self.clients:
            c.wait_doc(lambda d: d["phase"] == "playing")
            c.drain()
        self.id = self.clients[0].room
        self.tokens = [c.token for c in self.clients]
        self.names = list(names)
        self.rng = rng or random.Random(5)
        self.acked = 0

    @property
    def doc(self):
        return self.clients[0].doc

    def mover(self):
        return self.clients[self.doc["current"]]

    def others(self):
        cur = self.doc["current"]
        return [c for i, c in enumerate(self.clients) if i != cur]

    def move(self):
        return h.random_move(self.rng, self.mover())

    def play(self, move=None):
        """One move by the current player: the reply (ack or error). After an ack every client
        has read up to its seq."""
        mover = self.mover()
        r = mover.request("play", **(move or self.move()))
        if r.get("type") == "ack":
            self.acked += 1
            for c in self.clients:
                c.wait_seq(r["seq"])
                c.drain()
        return r

    def play_ok(self, n=1):
        for _ in range(n):
            r = self.play()
            if r.get("type") != "ack":
                raise AssertionError("play: %s" % r)

    def close(self):
        for c in self.clients:
            c.close()

    def resume(self, srv):
        """Resume every seat on srv: the clients (each has its state), or the error of the
        first resume that failed."""
        clients = []
        for i, tok in enumerate(self.tokens):
            c = h.Client(srv, name=self.names[i], timeout=5)
            r = c.request("resume", room=self.id, token=tok)
            if r.get("type") != "joined":
                c.close()
                for x in clients:
                    x.close()
                return r
            c.token = tok
            c.wait_type("state")
            clients.append(c)
        top = max(c.seq for c in clients)
        for c in clients:
            c.wait_seq(top)
            c.drain()
        self.clients = clients
        # The seat to move got its `legal` after its catch-up.
        if self.doc["phase"] == "playing":
            assert self.mover().wait_legal() is not None, "no `legal` after resume"
        return None

    def legal_problems(self):
        """The fresh `state`s of a storage failure were followed by the mover's `legal`."""
        return [p for c in self.clients for p in h.fresh_state_problems(c)]


class Storage(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carcd-storage-")
        self.servers = []
        self.t0 = time.monotonic()

    def tearDown(self):
        for s in self.servers:
            s.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
        h.log("  %s: %.1f s" % (self.id().rsplit(".", 1)[-1], time.monotonic() - self.t0))

    def sql(self, statement):
        """Run statement on the stored database (test_storage_pg: on PostgreSQL)."""
        con = sqlite3.connect(os.path.join(self.dir, "carcd.db"), isolation_level=None)
        con.execute(statement)
        con.close()

    def start(self, *extra, config=FAST):
        srv = h.Server(config=config, data_dir=self.dir, extra=extra).start()
        self.servers.append(srv)
        return srv

    # -- 1

    def test_second_carcd_refused(self):
        srv = self.start()
        t0 = time.monotonic()
        rc, out, err = run_carcd(self.dir)
        self.assertNotEqual(rc, 0, "a second carcd on the same directory ran: %s %s" % (out, err))
        self.assertLess(time.monotonic() - t0, 5)
        self.assertIn("another carcd", err)
        self.assertIn(str(srv.pid()), err)
        self.assertNotIn("listening", out)
        self.assertEqual(http_get(srv, "/healthz")[0], 200)
        # It still serves games and stores them.
        g = Game(srv)
        g.play_ok(1)
        g.close()
        self.assertEqual(srv.stop(), 0)

    # -- 2

    def test_database_locked_at_start(self):
        srv = self.start()
        self.assertEqual(srv.stop(), 0)
        db = os.path.join(self.dir, "carcd.db")
        self.assertTrue(os.path.exists(db))
        con = sqlite3.connect(db, isolation_level=None, timeout=1)
        try:
            con.execute("PRAGMA locking_mode=EXCLUSIVE")
            con.execute("BEGIN EXCLUSIVE")
            con.execute("UPDATE rooms SET updated=updated")
            # The lock is real: another connection can neither read nor write.
            other = sqlite3.connect(db, isolation_level=None, timeout=0.1)
            with self.assertRaises(sqlite3.OperationalError):
                other.execute("SELECT count(*) FROM rooms").fetchall()
            other.close()
            t0 = time.monotonic()
            rc, out, err = run_carcd(self.dir, "--storage-busy-ms", "300")
            took = time.monotonic() - t0
            self.assertNotEqual(rc, 0, "carcd started on a locked database: %s" % err)
            self.assertIn("locked", err)
            self.assertNotIn("listening", out)
            self.assertLess(took, 5)
        finally:
            con.execute("ROLLBACK")
            con.close()
        srv = self.start("--storage-busy-ms", "300")
        self.assertEqual(http_get(srv, "/healthz")[0], 200)
        self.assertEqual(srv.stop(), 0)

    # -- 3

    def test_database_locked_at_run_time(self):
        srv = self.start("--storage-busy-ms", "300")
        g = Game(srv, rng=random.Random(3))
        g.play_ok(3)
        seen = board_of(g.doc)
        db = os.path.join(self.dir, "carcd.db")
        con = sqlite3.connect(db, isolation_level=None, timeout=1)
        locked = True
        try:
            con.execute("BEGIN EXCLUSIVE")
            mover, others = g.mover(), g.others()
            move = g.move()
            r = mover.request("play", **move)
            self.assertEqual(r.get("type"), "error", r)
            self.assertEqual(r.get("code"), "storage_error", r)
            # No ack for it, and nobody hears of the move.
            time.sleep(0.3)
            for c in g.clients:
                c.quiet(0.2)
                self.assertFalse([m for m in c.backlog if m.get("type") == "ack"], c.backlog)
                for m in c.backlog:
                    if m.get("type") == "delta":
                        placed = [e for e in m["events"] if e.get("type") == "placed"]
                        self.assertFalse(placed, "a delta told of the refused move: %s" % m)
            self.assertEqual(board_of(others[0].doc), seen)
            self.assertEqual(board_of(mover.doc), seen)
            # Moves sent while the lock is held are refused too.
            for _ in range(2):
                r = mover.request("play", **move)
                self.assertEqual(r.get("code"), "storage_error", r)
                time.sleep(0.4)
            # A new room cannot be stored either.
            with h.Client(srv, name="Cy") as c:
                r = c.request("create", name="Cy", seats=2)
                self.assertEqual(r.get("code"), "storage_error", r)
            self.assertEqual(board_of(others[0].doc), seen)
            con.execute("ROLLBACK")
            locked = False
        finally:
            if locked:
                con.execute("ROLLBACK")
            con.close()
        # Once the lock is gone carcd retries (about once a second) and play goes on.
        deadline = time.monotonic() + 6
        while True:
            for c in g.clients:
                c.quiet(0.1)
            r = g.play(g.move())
            if r.get("type") == "ack":
                break
            self.assertEqual(r.get("code"), "storage_error", r)
            self.assertLess(time.monotonic(), deadline, "moves still refused after the lock")
            time.sleep(0.3)
        g.play_ok(2)
        self.assertEqual(g.legal_problems(), [])
        seen = board_of(g.doc)
        self.assertEqual(len(seen), 1 + g.acked)
        for c in g.clients:
            self.assertEqual(board_of(c.doc), seen)
        # The stored room holds exactly the acknowledged moves.
        g.close()
        self.assertEqual(srv.stop(), 0)
        srv = self.start()
        self.assertIsNone(g.resume(srv))
        self.assertEqual(board_of(g.doc), seen)
        g.play_ok(1)
        g.close()
        self.assertEqual(srv.stop(), 0)

    # -- 4

    def test_full_disk(self):
        # The database as carcd makes it (every table, the account tables too), then a file
        # size limit a few dozen moves above it: the schema's size is carcd's, not the test's.
        first = self.start()
        self.assertEqual(first.stop(), 0)
        made = max(os.path.getsize(os.path.join(self.dir, f)) for f in os.listdir(self.dir)
                   if f.startswith("carcd.db"))
        limit = made + 96 * 1024
        srv = h.Server(config=FAST, data_dir=self.dir, child_setup=file_size_limit(limit)).start()
        self.servers.append(srv)
        g = Game(srv, rng=random.Random(9))
        seen = board_of(g.doc)
        refused = None
        for _ in range(60):
            r = g.play()
            if r.get("type") != "ack":
                refused = r
                break
            seen = board_of(g.doc)
            if g.doc["phase"] != "playing":
                break
        self.assertIsNotNone(refused, "%d moves stored under a %d-byte file limit"
                             % (g.acked, limit))
        self.assertEqual(refused.get("code"), "storage_error", refused)
        # EFBIG is an I/O error to SQLite, a short write its "disk full".
        self.assertIn(http_get(srv, "/healthz"),
                      [(503, "storage failing: I/O error"), (503, "storage failing: disk full")])
        self.assertGreater(g.acked, 0, "not even one move was stored")
        h.log("    full disk after %d acked moves" % g.acked)
        for c in g.clients:
            c.quiet(0.3)
            self.assertFalse([m for m in c.backlog if m.get("type") == "ack"])
            self.assertEqual(board_of(c.doc), seen)
        self.assertEqual(g.legal_problems(), [])
        # While the disk is full: new rooms and seats are refused too.
        time.sleep(0.2)
        r = g.play()
        self.assertEqual(r.get("code"), "storage_error", r)
        with h.Client(srv, name="Cy") as c:
            r = c.request("create", name="Cy", seats=2)
            self.assertEqual(r.get("code"), "storage_error", r)
        self.assertTrue(srv.alive())
        # Crash, restart without the limit: exactly the acknowledged moves are there.
        g.close()
        srv.kill()
        srv = self.start()
        self.assertIsNone(g.resume(srv))
        self.assertEqual(board_of(g.doc), seen)
        self.assertEqual(len(seen), 1 + g.acked)
        g.play_ok(3)
        g.close()
        self.assertEqual(srv.stop(), 0)

    # -- 5

    def test_abandoned_game_kept_as_record(self):
        srv = self.start("--room-ttl", "1")
        g = Game(srv, names=("Ann", "Bob"), rng=random.Random(4))
        moves_seen = []
        for _ in range(3):
            move = g.move()
            r = g.play(move)
            self.assertEqual(r.get("type"), "ack", r)
            moves_seen.append(move)
        seen = board_of(g.doc)
        scores = [s["score"] for s in g.doc["seats"]]
        g.close()
        deadline = time.monotonic() + 8
        while any(x["room"] == g.id for x in http_json(srv, "/api/rooms")):
            self.assertLess(time.monotonic(), deadline, "the room outlived room-ttl")
            time.sleep(0.2)
        # The record is written with the next batch.
        deadline = time.monotonic() + 3
        while True:
            listing = http_json(srv, "/api/games?status=abandoned")
            mine = [x for x in listing["games"] if x["id"] == g.id]
            if mine or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(len(mine), 1, listing)
        self.assertEqual(listing["total"], 1)
        entry = mine[0]
        self.assertEqual(entry["status"], "abandoned")
        self.assertEqual(entry["players"], ["Ann", "Bob"])
        self.assertEqual(entry["scores"], scores)
        rec = http_json(srv, "/api/games/" + g.id)
        self.assertEqual(len(rec["moves"]), 3)
        self.assertEqual(record_board(rec), {k: v for k, v in seen.items() if k != "0,0"})
        for m, sent in zip(rec["moves"], moves_seen):
            self.assertEqual((m["tile"], m["x"], m["y"], m["rot"]),
                             (sent["tile"], sent["x"], sent["y"], sent["rot"]))
        lines = h.replay(rec)
        self.assertIs(lines[-1].get("final"), False, lines[-1])
        self.assertEqual(lines[-1]["scores"], entry["scores"])
        # Not among the finished games; a bad status is refused.
        finished = http_json(srv, "/api/games")
        self.assertNotIn(g.id, [x["id"] for x in finished["games"]])
        self.assertEqual(finished["total"], 0)
        status, body = http_get(srv, "/api/games?status=bogus")
        self.assertEqual(status, 400, body)
        # The room is gone for its players.
        r = g.resume(srv)
        self.assertEqual((r or {}).get("code"), "no_such_room", r)
        self.assertEqual(srv.stop(), 0)

    # -- 6

    def test_stale_rooms_closed_at_start(self):
        srv = self.start()
        g = Game(srv, rng=random.Random(6))
        g.play_ok(3)
        seen = board_of(g.doc)
        scores = [s["score"] for s in g.doc["seats"]]
        lobby = h.create_room(srv, ["Cy", "Di"], seats=3)
        lobby_id = lobby[0].room
        lobby_tokens = [c.token for c in lobby]
        g.close()
        for c in lobby:
            c.close()
        self.assertEqual(srv.stop(), 0)
        # The rooms have been untouched for 1.5 s (> stale-room 1) when carcd starts. So that
        # the outcome does not depend on where in a second the restart falls, their `updated`
        # is set to 1.5 s ago at a wall-clock time whose fraction of a second is 0.6-0.8, and
        # carcd starts at once: a cutoff taken from whole seconds (time(2) * 1000) would see
        # them as 0.7-0.9 s old and restore them.
        time.sleep(1.5)
        while not 0.6 <= time.time() % 1 <= 0.8:
            time.sleep(0.01)
        self.sql("UPDATE rooms SET updated = %d" % (int(time.time() * 1000) - 1500))
        srv = self.start("--stale-room", "1")
        self.assertTrue(any("abandoned" in line for line in srv.lines), srv.log(20))
        r = g.resume(srv)
        self.assertIsNotNone(r, "the stale game was restored")
        self.assertEqual(r.get("type"), "error", r)
        self.assertEqual(r.get("code"), "no_such_room", r)
        with h.Client(srv) as c:
            r = c.request("resume", room=lobby_id, token=lobby_tokens[0])
            self.assertEqual(r.get("code"), "no_such_room", r)
        rooms = [x["room"] for x in http_json(srv, "/api/rooms")]
        self.assertNotIn(g.id, rooms)
        self.assertNotIn(lobby_id, rooms)
        listing = http_json(srv, "/api/games?status=abandoned")
        self.assertEqual([x["id"] for x in listing["games"]], [g.id], listing)
        self.assertEqual(listing["games"][0]["status"], "abandoned")
        self.assertEqual(listing["games"][0]["players"], ["Ann", "Bob"])
        self.assertEqual(listing["games"][0]["scores"], scores)
        self.assertEqual(http_get(srv, "/api/games/" + lobby_id)[0], 404)
        rec = http_json(srv, "/api/games/" + g.id)
        self.assertEqual(record_board(rec), {k: v for k, v in seen.items() if k != "0,0"})
        lines = h.replay(rec)
        self.assertIs(lines[-1].get("final"), False, lines[-1])
        self.assertEqual(lines[-1]["scores"], scores)
        self.assertEqual(http_json(srv, "/api/games")["total"], 0)
        # A restart keeps it so (the record is not written twice, nothing comes back).
        self.assertEqual(srv.stop(), 0)
        srv = self.start("--stale-room", "1")
        listing = http_json(srv, "/api/games?status=abandoned")
        self.assertEqual([x["id"] for x in listing["games"]], [g.id], listing)
        self.assertIsNotNone(g.resume(srv))
        self.assertEqual(srv.stop(), 0)


if __name__ == "__main__":
    unittest.main()
