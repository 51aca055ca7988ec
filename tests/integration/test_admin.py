"""The admin API over the wire (server/README.md "Admin API"), and online backups.

Every route with the right token; a missing and a wrong token (401, WWW-Authenticate), no token
configured (403); bad inputs (unknown room 404, bad seat 400, wrong method 405, a body 400 and
the connection closed). A room closed by the admin tells its clients `notice` then `left` and is
kept as an abandoned record with "closed": "admin". Backups (carcd --backup FILE and POST
/admin/backup) taken while a game is being played restore into a fresh carcd whose players
resume with their tokens, at or after the moves acknowledged before the backup, and play on.
No log line of any server here holds the admin token."""

import http.client
import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.parse

import harness as h
from test_storage import FAST, Game, board_of, http_json

TOKEN = "adm-7f3c9e51d2b84a6f"
ADMIN = dict(FAST, **{"admin-token": TOKEN})


def call(srv, method, path, token=TOKEN, headers=None, body=None):
    """(status, headers, JSON body or text) of one admin request."""
    hd = dict(headers or {})
    if token is not None:
        hd["Authorization"] = "Bearer " + token
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=20)
    try:
        c.request(method, path, body=body, headers=hd)
        r = c.getresponse()
        data = r.read().decode(errors="replace")
        hdrs = {k.lower(): v for k, v in r.getheaders()}
        try:
            data = json.loads(data)
        except ValueError:
            pass
        return r.status, hdrs, data
    finally:
        c.close()


def ok(test, srv, method, path, **kw):
    status, _, body = call(srv, method, path, **kw)
    test.assertEqual(status, 200, "%s %s: %s" % (method, path, body))
    return body


def refused(test, srv, method, path, status, code, **kw):
    got, hdrs, body = call(srv, method, path, **kw)
    test.assertEqual((got, body), (status, {"error": code}), "%s %s" % (method, path))
    test.assertEqual(hdrs.get("content-type"), "application/json")
    return hdrs


def no_token_in_logs(test, srv):
    test.assertFalse([l for l in srv.lines if TOKEN in l], "the admin token is in carcd's log")


class Admin(unittest.TestCase):
    def setUp(self):
        self.srv = h.Server(config=ADMIN).start()

    def tearDown(self):
        no_token_in_logs(self, self.srv)
        self.srv.kill()
        self.srv.cleanup()

    def test_refused_without_the_token(self):
        srv = self.srv
        for method, path in (("GET", "/admin/rooms"), ("GET", "/admin/rooms/x"),
                             ("POST", "/admin/rooms/x/close"), ("POST", "/admin/notice?text=hi"),
                             ("POST", "/admin/backup"), ("GET", "/admin/nope")):
            hd = refused(self, srv, method, path, 401, "unauthorized", token=None)
            self.assertEqual(hd.get("www-authenticate"), "Bearer")
            refused(self, srv, method, path, 401, "unauthorized", token=TOKEN[:-1])
            refused(self, srv, method, path, 401, "unauthorized", token=TOKEN + "0")
            refused(self, srv, method, path, 401, "unauthorized", token=None,
                    headers={"Authorization": "Basic " + TOKEN})
        # Nothing was done: no backup directory.
        self.assertEqual(ok(self, srv, "GET", "/admin/rooms")["rooms"], [])

    def test_rooms_notice_seats_close(self):
        srv = self.srv
        g = Game(srv, names=("Ann", 'B"ob'), rng=random.Random(8))
        g.play_ok(2)
        host = h.Client(srv, name="Cy")
        host.request_ok("create", "joined", name="Cy", seats=3)
        host.wait_type("state")
        guest = h.Client(srv, name="Di")
        guest.request_ok("join", "joined", room=host.room, name="Di")
        guest.wait_type("state")
        watcher = h.Client(srv, name="watcher")
        watcher.request_ok("watch", "watching", room=g.id)
        watcher.wait_type("state")
        idle = h.Client(srv, name="idle")  # in no room

        listing = ok(self, srv, "GET", "/admin/rooms")
        self.assertEqual(listing["count"], 2)
        self.assertEqual(listing["connections"], 6)
        rooms = {r["id"]: r for r in listing["rooms"]}
        game = rooms[g.id]
        self.assertEqual(game["phase"], "playing")
        self.assertEqual(game["moves"], 2)
        self.assertEqual(game["spectators"], 1)
        self.assertIs(game["private"], False)
        self.assertEqual([s["name"] for s in game["seats"]], ["Ann", 'B"ob'])
        self.assertEqual([s["connected"] for s in game["seats"]], [True, True])
        self.assertEqual([s["score"] for s in game["seats"]],
                         [s["score"] for s in g.doc["seats"]])
        self.assertGreater(game["created"], 0)
        self.assertGreaterEqual(game["updated"], game["created"])
        self.assertIsNone(game["clock"])
        lob = rooms[host.room]
        self.assertEqual(lob["phase"], "lobby")
        self.assertEqual([s["taken"] for s in lob["seats"]], [True, True, False])

        one = ok(self, srv, "GET", "/admin/rooms/" + g.id)
        self.assertEqual(one["room"], game)
        self.assertIsNone(h.SCHEMAS.check("server", one["state"]))
        self.assertEqual(one["state"]["seq"], g.clients[0].seq)
        self.assertEqual(one["state"]["state"], g.doc)
        status, hd, body = call(srv, "HEAD", "/admin/rooms/" + g.id)
        self.assertEqual((status, body), (200, ""))

        # A notice reaches every connection, in rooms or not.
        text = "server restarting in 5 minutes: ça va"
        sent = ok(self, srv, "POST", "/admin/notice?text=" + urllib.parse.quote(text))
        self.assertEqual(sent, {"sent": 6})
        for c in g.clients + [host, guest, watcher, idle]:
            self.assertEqual(c.wait_type("notice")["text"], text, c.name)

        # Lobby seats: Di's seat to a bot (Di is told `left`), then freed; then the room's
        # last person, its host, is freed: the room is gone.
        ok(self, srv, "POST", "/admin/rooms/%s/seats/1/bot" % host.room)
        guest.wait_type("left")
        d = host.wait_doc(lambda d: d["seats"][1].get("bot"))
        self.assertEqual(d["seats"][1]["bot"], "greedy")
        refused(self, srv, "POST", "/admin/rooms/%s/seats/1/bot" % host.room, 409, "already_bot")
        ok(self, srv, "POST", "/admin/rooms/%s/seats/1/free" % host.room)
        host.wait_doc(lambda d: not d["seats"][1].get("name"))
        refused(self, srv, "POST", "/admin/rooms/%s/seats/2/free" % host.room, 409, "seat_empty")
        ok(self, srv, "POST", "/admin/rooms/%s/seats/0/free" % host.room)
        host.wait_type("left")
        refused(self, srv, "GET", "/admin/rooms/" + host.room, 404, "no_such_room")

        # The game's seat 1 to a bot for good: Bob is told `left`, his token is void, and the
        # bot plays his turns.
        refused(self, srv, "POST", "/admin/rooms/%s/seats/1/free" % g.id, 409, "wrong_phase")
        ok(self, srv, "POST", "/admin/rooms/%s/seats/1/bot" % g.id)
        bob = g.clients[1]
        bob.wait_type("left")
        ann = g.clients[0]
        ann.wait_doc(lambda d: d["seats"][1].get("bot") == "greedy")
        for _ in range(2):
            if ann.doc["current"] != 0:
                ann.wait_doc(lambda d: d["current"] == 0)
            r = ann.request("play", **h.random_move(g.rng, ann))
            self.assertEqual(r.get("type"), "ack", r)
        ann.wait_doc(lambda d: d["current"] == 0)
        self.assertGreaterEqual(ok(self, srv, "GET", "/admin/rooms/" + g.id)["room"]["moves"], 5)
        again = h.Client(srv, name="Bob again")
        r = again.request("resume", room=g.id, token=g.tokens[1])
        self.assertEqual(r.get("code"), "bad_token", r)
        again.close()

        # Close: Ann and the watcher get notice, then left; the room leaves the lobby's list and
        # is kept as an abandoned record closed by the admin.
        moves = ok(self, srv, "GET", "/admin/rooms/" + g.id)["room"]["moves"]
        self.assertEqual(ok(self, srv, "POST", "/admin/rooms/%s/close" % g.id), {"closed": True})
        for c in (ann, watcher):
            n = c.wait_type("notice")
            self.assertEqual(n.get("room"), g.id)
            c.wait_type("left")
            self.assertIsNone(c.closed)
            self.assertEqual(c.request("ping")["type"], "pong")  # still connected, in no room
        self.assertNotIn(g.id, [x["room"] for x in http_json(srv, "/api/rooms")])
        refused(self, srv, "GET", "/admin/rooms/" + g.id, 404, "no_such_room")
        refused(self, srv, "POST", "/admin/rooms/%s/close" % g.id, 404, "no_such_room")
        rec = h.game_record(srv, g.id)
        self.assertEqual(rec.get("closed"), "admin")
        self.assertEqual(len(rec["moves"]), moves)
        self.assertIs(h.replay(rec)[-1].get("final"), False)  # carc-replay loads it
        rp = http_json(srv, "/api/games/%s/replay" % g.id)
        self.assertEqual(rp["closed"], "admin")
        self.assertEqual(len(rp["moves"]), moves)
        listing = http_json(srv, "/api/games?status=abandoned")
        self.assertIn(g.id, [x["id"] for x in listing["games"]])
        r = ann.request("resume", room=g.id, token=g.tokens[0])
        self.assertEqual(r.get("code"), "no_such_room", r)
        logged = [l for l in srv.lines if "admin: POST /admin/rooms/%s/close" % g.id in l]
        self.assertTrue(logged, srv.log())
        for c in g.clients + [host, guest, watcher, idle]:
            c.close()

    def test_bad_inputs(self):
        srv = self.srv
        g = Game(srv, names=("Ann", "Bob"), rng=random.Random(9))
        refused(self, srv, "GET", "/admin/rooms/nosuchroom", 404, "no_such_room")
        refused(self, srv, "GET", "/admin/rooms/" + "x" * 300, 404, "no_such_room")
        refused(self, srv, "POST", "/admin/rooms/nosuchroom/seats/0/bot", 404, "no_such_room")
        for seat in ("2", "x", "-1", "100", "1a", "99999999999999999999"):
            refused(self, srv, "POST", "/admin/rooms/%s/seats/%s/bot" % (g.id, seat), 400,
                    "bad_seat")
        refused(self, srv, "GET", "/admin/rooms/%s/close" % g.id, 405, "method_not_allowed")
        refused(self, srv, "POST", "/admin/rooms", 405, "method_not_allowed")
        refused(self, srv, "POST", "/admin/rooms/" + g.id, 405, "method_not_allowed")
        refused(self, srv, "GET", "/admin/backup", 405, "method_not_allowed")
        refused(self, srv, "GET", "/admin/nope", 404, "no_such_route")
        refused(self, srv, "POST", "/admin/rooms/%s/open" % g.id, 404, "no_such_route")
        refused(self, srv, "POST", "/admin/notice", 400, "bad_text")
        refused(self, srv, "POST", "/admin/notice?text=", 400, "bad_text")
        refused(self, srv, "POST", "/admin/notice?text=" + "a" * 501, 400, "bad_text")
        refused(self, srv, "POST", "/admin/notice?text=%ff%fe", 400, "bad_text")
        # A body is refused before routing, the connection closed (no smuggling).
        status, hd, _ = call(srv, "POST", "/admin/notice?text=hi", body=b"x" * 5)
        self.assertEqual(status, 400)
        self.assertEqual(hd.get("connection"), "close")
        s = socket.create_connection((srv.host, srv.port), timeout=5)
        s.sendall(b"POST /admin/rooms/%s/close HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s"
                  b"\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" % (g.id.encode(),
                                                                       TOKEN.encode()))
        reply = s.recv(4096)
        s.close()
        self.assertTrue(reply.startswith(b"HTTP/1.1 400"), reply)
        # Nothing changed: the game goes on.
        self.assertEqual(ok(self, srv, "GET", "/admin/rooms/" + g.id)["room"]["phase"], "playing")
        g.play_ok(1)
        # Two POSTs on one kept-alive connection.
        c = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
        for _ in range(2):
            c.request("POST", "/admin/notice?text=a%20b", headers={"Authorization": "Bearer " +
                                                                   TOKEN})
            r = c.getresponse()
            self.assertEqual((r.status, json.loads(r.read())), (200, {"sent": 2}))
        c.close()
        for cl in g.clients:
            self.assertEqual(cl.wait_type("notice")["text"], "a b")
        g.close()


class Disabled(unittest.TestCase):
    def test_no_token_configured(self):
        srv = h.Server(config=FAST).start()
        try:
            for method, path in (("GET", "/admin/rooms"), ("POST", "/admin/backup"),
                                 ("POST", "/admin/notice?text=x"), ("GET", "/admin/x")):
                refused(self, srv, method, path, 403, "admin_disabled")
                refused(self, srv, method, path, 403, "admin_disabled", token=None)
            self.assertEqual(srv.stop(), 0)
        finally:
            srv.kill()
            srv.cleanup()


class Backup(unittest.TestCase):
    """Backups while moves are being played restore into a carcd that resumes the games."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carcd-backup-")
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            no_token_in_logs(self, s)
            s.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, data_dir):
        srv = h.Server(config=ADMIN, data_dir=data_dir).start()
        self.servers.append(srv)
        return srv

    def test_cli_backup_errors(self):
        empty = os.path.join(self.dir, "empty")
        os.makedirs(empty)
        out = os.path.join(self.dir, "x.db")
        p = subprocess.run([h.CARCD, "--data-dir", empty, "--backup", out], cwd=h.ROOT,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("carcd.db", p.stderr)
        self.assertFalse(os.path.exists(out))
        p = subprocess.run([h.CARCD, "--backup"], cwd=h.ROOT, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)

    def test_backup_while_playing_restores(self):
        live = os.path.join(self.dir, "live")
        os.makedirs(live)
        srv = self.start(live)
        g = Game(srv, names=("Ann", "Bob"), rng=random.Random(11))
        other = Game(srv, names=("Cy", "Di"), rng=random.Random(12))
        other.play_ok(3)
        g.play_ok(2)
        stop = threading.Event()
        failures = []

        def player():
            try:
                while not stop.is_set() and g.doc["phase"] == "playing" and g.acked < 40:
                    r = g.play()
                    if r.get("type") != "ack":
                        failures.append(r)
                        return
                    time.sleep(0.01)
            except Exception as e:  # noqa: BLE001: reported by the test
                failures.append(repr(e))

        t = threading.Thread(target=player, daemon=True)
        t.start()
        time.sleep(0.2)
        # 1: carcd --backup FILE beside the running server; 2: POST /admin/backup.
        cli = os.path.join(self.dir, "cli.db")
        before_cli = g.acked
        p = subprocess.run([h.CARCD, "--data-dir", live, "--backup", cli], cwd=h.ROOT,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(cli, p.stdout)
        self.assertFalse(os.path.exists(cli + ".part"))
        time.sleep(0.2)
        before_api = g.acked
        reply = ok(self, srv, "POST", "/admin/backup")
        time.sleep(0.2)
        stop.set()
        t.join(20)
        self.assertFalse(failures, failures)
        self.assertGreater(g.acked, before_api, "no move was played during the backups")
        path = reply["path"]
        self.assertTrue(os.path.basename(path).startswith("carcd-"), reply)
        self.assertEqual(os.path.dirname(path), os.path.join(live, "backups"))
        self.assertEqual(os.path.getsize(path), reply["bytes"])
        self.assertFalse(os.path.exists(path + ".part"))
        self.assertTrue([l for l in srv.lines if "backup written to" in l], srv.log())
        # Stop the live server (its players have the tokens) and restore each backup into a
        # fresh data directory: stop, copy to carcd.db, no -wal/-shm, start.
        live_board = board_of(g.doc)
        g.close()
        other.close()
        self.assertEqual(srv.stop(), 0)
        for name, src, acked in (("cli", cli, before_cli), ("api", path, before_api)):
            data = os.path.join(self.dir, "restore-" + name)
            os.makedirs(data)
            shutil.copy(src, os.path.join(data, "carcd.db"))
            self.assertFalse(os.path.exists(os.path.join(data, "carcd.db-wal")))
            fresh = self.start(data)
            problem = g.resume(fresh)
            self.assertIsNone(problem, "%s: %s" % (name, problem))
            played = len(g.doc["board"]) - 1
            self.assertGreaterEqual(played, acked, "%s: restored before the backup" % name)
            # One commit's database: a prefix of the game as it went on live.
            restored = board_of(g.doc)
            self.assertEqual({k: live_board.get(k) for k in restored}, restored, name)
            g.play_ok(1)
            self.assertIsNone(other.resume(fresh), name)
            self.assertEqual(len(other.doc["board"]) - 1, 3)
            other.play_ok(1)
            g.close()
            other.close()
            self.assertEqual(fresh.stop(), 0)


if __name__ == "__main__":
    unittest.main()
