"""Durability: carcd killed with SIGKILL at random moments and restarted on the same data directory.

Every move any client saw (in a delta, or acknowledged by `ack`) must still be there after each
restart; players come back with `resume` and their seat tokens; the games finish, and their
records (GET /api/games/{id}) replay with carc-replay to the final scores the clients saw.
Also: a room in the lobby, a game in progress and a finished game survive a plain restart."""

import json
import os
import subprocess
import random
import shutil
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

import harness as h

# Fast clients: the per-connection limits would otherwise throttle the game loop.
FAST = dict(h.LIMITS, **{"rate": 2000, "burst": 2000, "flood-rate": 4000, "flood-burst": 4000})
KILLS = 20


def http_json(srv, path):
    with urllib.request.urlopen(srv.http_url.rstrip("/") + path, timeout=10) as r:
        return json.loads(r.read().decode())


def http_status(srv, path):
    try:
        with urllib.request.urlopen(srv.http_url.rstrip("/") + path, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def board_of(doc):
    return {k: (v["tile"], v["rot"]) for k, v in (doc or {}).get("board", {}).items()}


class Room:
    """A room as the test knows it: its id, the seats' tokens and what its clients have seen."""

    def __init__(self, clients):
        self.id = clients[0].room
        self.tokens = [c.token for c in clients]
        self.names = [c.name for c in clients]
        self.clients = clients
        self.seen = {}       # "x,y" -> (tile, rot): every placement any client was told of
        self.final = None    # the final scores a client saw, once the game is over
        self.gone = False    # finished and no longer a room (not restored): a record only

    def note(self):
        for c in self.clients:
            if c is None or c.doc is None:
                continue
            self.seen.update(board_of(c.doc))
            if c.doc.get("phase") == "over" and self.final is None:
                self.final = [s["score"] for s in c.doc["seats"]]


def connect(srv, room, seed_seq=None):
    """Resume every seat of room on srv. Returns False when the room is gone (finished)."""
    clients = []
    for i, tok in enumerate(room.tokens):
        c = h.Client(srv, name=room.names[i], timeout=5)
        fields = {"room": room.id, "token": tok}
        old = room.clients[i] if room.clients else None
        if old is not None and old.seq is not None:
            fields["seq"] = old.seq
        r = c.request("resume", **fields)
        if r.get("type") == "error":
            c.close()
            for x in clients:
                x.close()
            if r["code"] == "no_such_room":
                return False
            raise AssertionError("resume: %s" % r)
        assert r["type"] == "joined" and r["seat"] == i, r
        c.token = tok
        c.wait_type("state")
        clients.append(c)
    room.clients = clients
    # Everyone reaches the newest seq (each resume told the others of a connected seat).
    top = max(c.seq for c in clients)
    for c in clients:
        c.wait_seq(top)
        c.drain()
    # The seat to move got its `legal` after its catch-up.
    if clients[0].doc["phase"] == "playing":
        mover = h.mover_of(clients)
        assert mover.wait_legal() is not None, "no `legal` for %s after resume" % mover.name
    return True


def step(room, rng):
    """One move in room by its current player; the others read up to it. True when it is over."""
    doc = room.clients[0].doc
    if doc["phase"] != "playing":
        return True
    cur = doc["current"]
    mover = room.clients[cur]
    move = h.random_move(rng, mover)
    r = mover.request("play", **move)
    if r.get("type") != "ack":
        raise AssertionError("play %s: %s" % (move, r))
    for c in room.clients:
        c.wait_seq(r["seq"])
        c.drain()
    room.note()
    return room.clients[0].doc["phase"] != "playing"


class Killer:
    """SIGKILLs the server once, after a random delay, unless disarmed first."""

    def __init__(self, srv, delay):
        self.fired = False
        self.timer = threading.Timer(delay, self.fire, args=(srv,))
        self.timer.daemon = True
        self.timer.start()

    def fire(self, srv):
        self.fired = True
        try:
            srv.proc.kill()
        except Exception:
            pass

    def disarm(self):
        self.timer.cancel()
        self.timer.join()


class Crash(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carcd-crash-")
        self.srv = None

    def tearDown(self):
        if self.srv is not None:
            self.srv.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self):
        self.srv = h.Server(config=FAST, data_dir=self.dir).start()
        return self.srv

    def check_seen(self, room):
        """After a restart: the restored room holds every placement a client was told of."""
        board = board_of(room.clients[0].doc)
        for k, v in room.seen.items():
            self.assertEqual(board.get(k), v, "room %s lost the move at %s" % (room.id, k))

    def check_record(self, room):
        if http_status(self.srv, "/api/games/" + room.id) != 200:
            self.fail("no record of %s; server log:\n%s" % (room.id, self.srv.log(40)))
        rec = http_json(self.srv, "/api/games/" + room.id)
        self.assertIn("seed", rec)
        # The fair draw survives the kills too: the record's draw verifies (carc-verify).
        h.secret_add(rec["fair"]["secret"])
        v = subprocess.run([os.path.join(h.BUILD, "carc-verify"), "-"], input=json.dumps(rec),
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(v.returncode, 0, v.stdout)
        lines = h.replay(rec)
        self.assertTrue(lines[-1].get("final"), lines[-1])
        placed = {}
        for m in rec["moves"]:
            placed["%d,%d" % (m["x"], m["y"])] = (m["tile"], m["rot"])
        for k, v in room.seen.items():
            if k != "0,0":
                self.assertEqual(placed.get(k), v, "record of %s lacks %s" % (room.id, k))
        if room.final is not None:
            self.assertEqual(lines[-1]["scores"], room.final)
        return lines[-1]["scores"]

    def test_sigkill_many_times(self):
        rng = random.Random(7)
        t0 = time.monotonic()
        srv = self.start()
        rooms = []

        def new_rooms(n):
            for k in range(n):
                tag = len(rooms)
                names = ["A%d" % tag, "B%d" % tag] + (["C%d" % tag] if tag % 2 else [])
                players = h.create_room(srv, names, sets=["base"])
                players[0].send({"v": h.V, "type": "start"})
                for c in players:
                    c.wait_doc(lambda d: d["phase"] == "playing")
                    c.drain()
                room = Room(players)
                room.note()
                rooms.append(room)

        new_rooms(4)
        kills = restarts = moves = 0
        while True:
            live = [r for r in rooms if not r.gone and r.final is None]
            if not live and kills < KILLS:
                new_rooms(4)  # more games to crash
                continue
            if not live:
                break
            killer = Killer(srv, rng.uniform(0.01, 0.15)) if kills < KILLS else None
            try:
                while live:
                    room = rng.choice(live)
                    if step(room, rng):
                        live.remove(room)
                    moves += 1
            except (h.Closed, AssertionError, OSError) as e:
                if killer is None or not killer.fired:
                    raise
                del e
            if killer is not None:
                killer.disarm()
                if not killer.fired:
                    continue  # every game ended before the kill: nothing more to crash
                kills += 1
            for r in rooms:
                r.note()
                for c in r.clients:
                    if c is not None:
                        c.close()
            srv.kill()
            srv = self.start()
            restarts += 1
            # Reconnect (a kill may not strike here: the killer is disarmed).
            for r in rooms:
                if r.gone:
                    continue
                if not connect(srv, r):
                    r.gone = True
                    continue
                self.check_seen(r)
                r.note()
        self.assertGreaterEqual(kills, KILLS)
        for r in rooms:
            self.check_record(r)
            if not r.gone:
                for c in r.clients:
                    c.close()
        h.log("crash test: %d kills, %d restarts, %d moves, %.1f s"
              % (kills, restarts, moves, time.monotonic() - t0))

    def test_restart_lobby_game_finished(self):
        rng = random.Random(11)
        srv = self.start()
        # A lobby room with a password and a free seat; a game in progress; a finished game.
        lobby = h.create_room(srv, ["Ann", "Bob"], seats=3, password="pw-lobby-7")
        lobby_room = Room(lobby)
        mid = h.create_room(srv, ["Cy", "Di"])
        mid[0].send({"v": h.V, "type": "start"})
        for c in mid:
            c.wait_doc(lambda d: d["phase"] == "playing")
            c.drain()
        mid_room = Room(mid)
        for _ in range(10):
            step(mid_room, rng)
        done = h.create_room(srv, ["Ed", "Flo"])
        done[0].send({"v": h.V, "type": "start"})
        for c in done:
            c.wait_doc(lambda d: d["phase"] == "playing")
            c.drain()
        done_room = Room(done)
        while not step(done_room, rng):
            pass
        self.assertIsNotNone(done_room.final)
        for r in (lobby_room, mid_room, done_room):
            r.note()
        # A graceful stop, then a crash: both keep everything.
        for how in ("term", "kill"):
            for r in (lobby_room, mid_room, done_room):
                for c in r.clients:
                    c.close()
            if how == "term":
                self.assertEqual(srv.stop(), 0)
            else:
                srv.kill()
            srv = self.start()
            self.assertTrue(connect(srv, lobby_room))
            doc = lobby_room.clients[0].doc
            self.assertEqual(doc["phase"], "lobby")
            self.assertEqual([s["name"] for s in doc["seats"]], ["Ann", "Bob", None])
            self.assertTrue(connect(srv, mid_room))
            self.check_seen(mid_room)
            self.assertEqual(len(mid_room.clients[0].doc["board"]), 11)
            self.assertFalse(connect(srv, done_room))
            self.assertEqual(self.check_record(done_room), done_room.final)
            listing = http_json(srv, "/api/games")
            self.assertEqual([g["id"] for g in listing["games"]], [done_room.id])
            self.assertEqual(listing["games"][0]["scores"], done_room.final)
            self.assertEqual(http_status(srv, "/api/games/" + mid_room.id), 404)
        # The lobby's password and free seat still work; the game goes on to its end.
        c = h.Client(srv, name="Gus")
        r = c.request("join", room=lobby_room.id, name="Gus", password="nope-wrong-7")
        self.assertEqual(r.get("code"), "wrong_password")
        c.request_ok("join", "joined", room=lobby_room.id, name="Gus", password="pw-lobby-7")
        c.close()
        while not step(mid_room, rng):
            pass
        self.check_record(mid_room)
        for r in (lobby_room, mid_room):
            for cl in r.clients:
                cl.close()
        self.assertEqual(srv.stop(), 0)


if __name__ == "__main__":
    unittest.main()
