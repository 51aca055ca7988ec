"""Post-game analysis over HTTP (PROTOCOL.md "Game analysis"): POST and GET
/api/games/{id}/analysis on a carcd with a small budget (analysis-ms-per-move = 2, a game in well
under a second). A game played to its end: GET is 404 "none" before anyone asks; POST is 202
(queued or running) and GET 404 with that status until the document is stored, then 200 with
Cache-Control max-age=3600; the document has one moves entry per record move (same player and
tile), two players in seat order whose classes sum to their rated moves, the server's seed and
the budget's playouts; POST again is 200 with the same document, HEAD its headers; an unknown or
running game is 404, a POST from another site's page 403; the document survives a restart
byte for byte. An abandoned game (closed by the admin after six moves) is analysed too.
analysis = off answers 404; analysis = auto analyses a game that ends without
being asked; a full queue (analysis-queue = 1, a budget that keeps the first game running) is 503
with Retry-After, and a SIGTERM stops the running analysis at once. On SQLite and on a real
PostgreSQL (pg_util)."""

import http.client
import json
import random
import shutil
import tempfile
import time
import unittest

import harness as h
import pg_util

CONFIG = dict(h.LIMITS, **{"analysis-ms-per-move": 2})
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")


def call(srv, method, path, headers=None):
    """(status, lower-cased headers, body bytes)."""
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    try:
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def finished_game(srv, seed):
    """A 2-player base game played to its end with random moves; (room, its stored record)."""
    players = h.create_room(srv, ["Ann", "Bob"])
    try:
        room = players[0].room
        h.play_to_end(players, random.Random(seed))
    finally:
        for c in players:
            c.close()
    deadline = time.monotonic() + 10
    while True:  # the record is written with the batch after the last move
        s, _, body = call(srv, "GET", "/api/games/" + room)
        if s == 200:
            return room, json.loads(body)
        if time.monotonic() > deadline:
            raise AssertionError("no record of %s: %d %s" % (room, s, body))
        time.sleep(0.05)


def wait_analysis(test, srv, room, timeout=60):
    """GET until 200; every 404 on the way names the queue's status. Returns (headers, body)."""
    deadline = time.monotonic() + timeout
    while True:
        s, hd, body = call(srv, "GET", "/api/games/%s/analysis" % room)
        if s == 200:
            return hd, body
        test.assertEqual(s, 404, body)
        j = json.loads(body)
        test.assertEqual(j["error"], "no analysis of that game yet")
        test.assertIn(j["status"], ("none", "queued", "running"))
        test.assertLessEqual(j["done"], j["moves"])
        test.assertLess(time.monotonic(), deadline, "no analysis of %s in %d s" % (room, timeout))
        time.sleep(0.05)


class Analysis(unittest.TestCase):
    pg = None

    def setUp(self):
        self.dirs = []
        self.servers = []
        h.PG_URL_FOR = self.pg.database_for if self.pg is not None else None

    def tearDown(self):
        for s in self.servers:
            if s.alive():
                s.kill()
        h.PG_URL_FOR = None
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)

    def server(self, data=None, **cfg):
        if data is None:
            data = tempfile.mkdtemp(prefix="carcd-analysis-")
            self.dirs.append(data)
        srv = h.Server(dict(CONFIG, **cfg), data_dir=data).start()
        self.servers.append(srv)
        return srv

    def check_document(self, doc, room, rec):
        self.assertEqual(doc["format"], "carcd-analysis/1")
        self.assertEqual(doc["id"], room)
        self.assertEqual((doc["seed"], doc["ms_per_move"]), (1, 2))
        self.assertEqual(doc["playouts"], 2 * 40)
        names = [p["name"] for p in rec["players"]]
        self.assertEqual([p["seat"] for p in doc["players"]], [0, 1])
        self.assertEqual([p["name"] for p in doc["players"]], names)
        self.assertEqual(len(doc["moves"]), len(rec["moves"]))
        rated = [0, 0]
        for i, (m, r) in enumerate(zip(doc["moves"], rec["moves"])):
            self.assertEqual(m["move"], i)
            self.assertEqual(m["tile"], r["tile"], "move %d" % i)
            self.assertEqual(m["skip"], bool(r.get("skip", False)))
            if m["skip"]:
                self.assertIsNone(m["class"])
                continue
            self.assertIn(m["class"], CLASSES)
            self.assertGreaterEqual(m["loss_points"], 0)
            self.assertGreaterEqual(m["loss"], 0)
            rated[m["player"]] += 1
        for p in doc["players"]:
            self.assertEqual(sorted(p["classes"]), sorted(CLASSES))
            self.assertEqual(sum(p["classes"].values()), p["rated"])
            self.assertEqual(p["rated"], rated[p["seat"]])
            self.assertTrue(0 <= p["accuracy"] <= 100, p)

    def test_request_read_and_restart(self):
        data = tempfile.mkdtemp(prefix="carcd-analysis-")
        self.dirs.append(data)
        srv = self.server(data)
        room, rec = finished_game(srv, 3)
        path = "/api/games/%s/analysis" % room
        s, hd, body = call(srv, "GET", path)
        self.assertEqual(s, 404, body)
        self.assertEqual(json.loads(body), {"error": "no analysis of that game yet",
                                            "status": "none", "done": 0, "moves": 0})
        self.assertEqual(hd.get("cache-control"), "no-store")
        s, hd, body = call(srv, "POST", path)
        self.assertEqual(s, 202, body)
        j = json.loads(body)
        self.assertIn(j["status"], ("queued", "running"))
        self.assertEqual(sorted(j), ["done", "moves", "status"])
        hd, body = wait_analysis(self, srv, room)
        self.assertEqual(hd.get("content-type"), "application/json")
        self.assertEqual(hd.get("cache-control"), "max-age=3600")
        self.check_document(json.loads(body), room, rec)
        # Asked again: the stored document, at once.
        s, _, again = call(srv, "POST", path)
        self.assertEqual((s, again), (200, body))
        s, hh, hb = call(srv, "HEAD", path)
        self.assertEqual((s, hb, hh.get("content-length")), (200, b"", str(len(body))))
        # Unknown games, a running game, other methods, another site's page.
        for bad in ("/api/games/nosuchgame/analysis", "/api/games/%s/analysis" % ("x" * 200)):
            for method in ("GET", "POST"):
                s, _, b = call(srv, method, bad)
                self.assertEqual(s, 404, (method, bad, b))
                self.assertIn("error", json.loads(b))
        players = h.create_room(srv, ["Cid", "Dee"])
        try:
            players[0].send({"v": h.V, "type": "start"})
            h.sync_all(players, players[0].seq + 1)
            s, _, b = call(srv, "POST", "/api/games/%s/analysis" % players[0].room)
            self.assertEqual(s, 404, b)
        finally:
            for c in players:
                c.close()
        self.assertEqual(call(srv, "DELETE", path)[0], 405)
        s, _, b = call(srv, "POST", path, {"Origin": "http://evil.example"})
        self.assertEqual(s, 403, b)
        # The record's own route is unchanged beside it.
        self.assertEqual(call(srv, "GET", "/api/games/" + room)[0], 200)
        # A restart reads the same document from the database.
        self.assertEqual(srv.stop(), 0)
        srv = self.server(data)
        s, hd, after = call(srv, "GET", path)
        self.assertEqual((s, after), (200, body))

    def test_abandoned_game(self):
        # A game closed by the admin after a few moves is an abandoned record: analysed too.
        token = "adm-analysis-4be81c07d"
        h.secret_add(token)
        srv = self.server(**{"admin-token": token})
        players = h.create_room(srv, ["Eve", "Fay"])
        try:
            room = players[0].room
            players[0].send({"v": h.V, "type": "start"})
            h.sync_all(players, players[0].seq + 1)
            rng = random.Random(8)
            for _ in range(6):
                mover = h.mover_of(players)
                ack = mover.request("play", **h.random_move(rng, mover))
                self.assertEqual(ack["type"], "ack", ack)
                h.sync_all(players, ack["seq"])
            s, _, b = call(srv, "POST", "/admin/rooms/%s/close" % room,
                           {"Authorization": "Bearer " + token})
            self.assertEqual(s, 200, b)
        finally:
            for c in players:
                c.close()
        s, _, b = call(srv, "GET", "/api/games/" + room)
        self.assertEqual(s, 200, b)
        rec = json.loads(b)
        self.assertEqual(len(rec["moves"]), 6)
        s, _, b = call(srv, "POST", "/api/games/%s/analysis" % room)
        self.assertIn(s, (200, 202), b)
        _, body = wait_analysis(self, srv, room)
        self.check_document(json.loads(body), room, rec)

    def test_off(self):
        srv = self.server(analysis="off")
        room, _ = finished_game(srv, 4)
        for method in ("GET", "POST"):
            s, _, b = call(srv, method, "/api/games/%s/analysis" % room)
            self.assertEqual(s, 404, b)
            self.assertEqual(json.loads(b), {"error": "game analysis is off on this server"})

    def test_auto(self):
        srv = self.server(analysis="auto")
        room, rec = finished_game(srv, 5)
        _, body = wait_analysis(self, srv, room)
        self.check_document(json.loads(body), room, rec)
        self.assertTrue(any("analysis of %s done" % room in ln for ln in srv.lines))

    def test_full_queue(self):
        # One game held (queued or running) at most; at 10 s a move the first runs for minutes.
        srv = self.server(**{"analysis-queue": 1, "analysis-ms-per-move": 10000})
        first, _ = finished_game(srv, 6)
        second, _ = finished_game(srv, 7)
        s, _, b = call(srv, "POST", "/api/games/%s/analysis" % first)
        self.assertEqual(s, 202, b)
        s, hd, b = call(srv, "POST", "/api/games/%s/analysis" % second)
        self.assertEqual(s, 503, b)
        self.assertEqual(json.loads(b), {"error": "the analysis queue is full; retry later"})
        self.assertEqual(hd.get("retry-after"), "30")
        # Asking for the first again is no new job: 202, not 503.
        s, _, b = call(srv, "POST", "/api/games/%s/analysis" % first)
        self.assertEqual(s, 202, b)
        self.assertEqual(json.loads(b)["status"], "running")
        # SIGTERM stops the running analysis by its flag: carcd exits cleanly and soon.
        t0 = time.monotonic()
        self.assertEqual(srv.stop(), 0)
        self.assertLess(time.monotonic() - t0, 10)


class AnalysisPg(Analysis):
    """The same on a real PostgreSQL."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()


if __name__ == "__main__":
    unittest.main()
