"""POST /api/me/claim (PROTOCOL.md "Accounts (HTTP)", "Seats of accounts"): a guest's seats
claimed by the account that signs up in the browser holding their tokens. A guest plays a whole
game against a bot (its room then dropped from memory after room-ttl: the stored path) and holds
a seat in a running game (the lobby's path); signed up, it claims both: GET /api/me/games lists
them, and a second device resumes the running seat by the cookie alone. A wrong token
(bad_token), another account's seat (taken), a second claim (already), malformed bodies (400,
nothing changed), a guest (401), a cross-site POST and a missing CSRF token (403) are refused
or skipped. On SQLite and on a real PostgreSQL (pg_util). Every token used is a secret: no log
line and no answer may hold one."""

import json
import os
import random
import shutil
import sqlite3
import tempfile
import time
import unittest

import harness as h
import pg_util
from test_accounts import CONFIG, call, session_of
import test_seat_accounts as tsa
from test_turns import play_until_over

# Rooms nobody is connected to go after 2 s: the finished game's room leaves memory (closed).
CLAIM_CONFIG = dict(CONFIG, **{"create-rate": 1000, "room-ttl": 2})


class Claim(unittest.TestCase):
    pg = None

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carcd-claim-")
        self.servers = []
        h.PG_URL_FOR = self.pg.database_for if self.pg is not None else None

    def tearDown(self):
        for s in self.servers:
            if s.alive():
                s.kill()
        h.PG_URL_FOR = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def sql(self, statement):
        """Rows of statement on the server's database, as lists of strings."""
        if self.pg is not None:
            db = self.pg.database_for(self.dir).split("dbname=")[1].split()[0]
            out = self.pg.psql(statement, db=db)
            return [line.split("|") for line in out.splitlines() if line]
        con = sqlite3.connect(os.path.join(self.dir, "carcd.db"), timeout=5,
                              isolation_level=None)
        try:
            return [[str(v) for v in row] for row in con.execute(statement)]
        finally:
            con.close()

    def signup(self, srv, name):
        """(cookie, csrf) of a new account."""
        pw = "pw-%s-long-enough" % name
        h.secret_add(pw)
        s, hd, doc = call(srv, "POST", "/api/account", {"name": name, "password": pw})
        self.assertEqual(s, 201, doc)
        token, _ = session_of(hd)
        return token, doc["csrf"]

    def claim(self, srv, cookie, csrf, seats, status=200, headers=None):
        hd = headers if headers is not None else {"X-CSRF-Token": csrf} if csrf else {}
        body = {"seats": seats} if seats is not None else None
        s, hd, doc = call(srv, "POST", "/api/me/claim", body, headers=hd, cookie=cookie)
        self.assertEqual(s, status, doc)
        self.assertEqual(hd.get("cache-control"), "no-store")
        for e in seats or []:  # a token never comes back
            self.assertNotIn(e["token"], json.dumps(doc))
        return doc

    def guest_game(self, srv, rng, finish):
        """A guest's room against a bot, started (and played out when finish): the client,
        room, seat and token."""
        a = h.Client(srv, name="guest")
        j = a.request_ok("create", "joined", name="Guest", seats=2)
        h.secret_add(j["token"])
        a.room, a.seat = j["room"], j["seat"]
        a.wait_type("state")
        a.send({"v": h.V, "type": "add_bot", "level": "random"})
        a.wait_doc(lambda d: d["seats"][1]["bot"] is not None)
        a.send({"v": h.V, "type": "start"})
        doc = a.wait_doc(lambda d: d["phase"] == "playing")
        seat = next(i for i, s in enumerate(doc["seats"]) if s["bot"] is None)
        self.assertEqual(seat, a.seat)
        if finish:
            play_until_over(a, rng)
        return a, j["room"], a.seat, j["token"]

    def until_closed(self, room, timeout=20):
        deadline = time.monotonic() + timeout
        while self.sql("SELECT closed FROM rooms WHERE id = '%s'" % room) != [["1"]]:
            if time.monotonic() > deadline:
                raise AssertionError("room %s was never closed" % room)
            time.sleep(0.2)

    def account_of(self, room, seat):
        return self.sql("SELECT account FROM seats WHERE room = '%s' AND idx = %d"
                        % (room, seat))[0][0]

    def test_claim(self):
        rng = random.Random(28)
        srv = h.Server(CLAIM_CONFIG, data_dir=self.dir).start()
        self.servers.append(srv)

        # A guest played a whole game; its room left memory (stored path).
        done, done_room, done_seat, done_token = self.guest_game(srv, rng, finish=True)
        done.close()
        self.until_closed(done_room)
        # ... and holds a seat in a running game (the lobby's path).
        run, run_room, run_seat, run_token = self.guest_game(srv, rng, finish=False)
        self.assertEqual(self.account_of(done_room, done_seat), "0")

        name = "cl%d" % (int(time.time() * 1000) % 100000)
        cookie, csrf = self.signup(srv, name)
        seats = [{"room": done_room, "token": done_token}, {"room": run_room, "token": run_token}]

        # Refused before anything: a guest, another site, no CSRF token, malformed bodies.
        doc = self.claim(srv, None, None, seats, status=401)
        self.assertEqual(doc["error"], "not_signed_in")
        doc = self.claim(srv, cookie, csrf, seats, status=403,
                         headers={"Origin": "http://evil.example", "X-CSRF-Token": csrf})
        self.assertEqual(doc["error"], "origin")
        doc = self.claim(srv, cookie, None, seats, status=403)
        self.assertEqual(doc["error"], "csrf")
        doc = self.claim(srv, cookie, "x" * 43, seats, status=403)
        self.assertEqual(doc["error"], "csrf")
        s, _, doc = call(srv, "GET", "/api/me/claim", cookie=cookie)
        self.assertEqual((s, doc["error"]), (405, "method"))
        s, _, _ = call(srv, "POST", "/api/me/claim", raw=b" " * 16385, cookie=cookie,
                       headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
        self.assertEqual(s, 413)
        bad = [
            (None, b"[1, 2]"),
            (None, b"{\"rooms\": []}"),
            (None, b"{\"seats\": {}}"),
            ([], None),
            ([{"room": done_room, "token": done_token}] * 101, None),
            ([{"room": done_room + "!", "token": done_token}], None),
            ([{"room": done_room, "token": done_token.upper()}], None),
            ([{"room": done_room, "token": done_token[:-1]}], None),
            ([{"room": done_room, "token": done_token, "seat": 0}], None),
            ([{"room": done_room}], None),
        ]
        for seats_bad, raw in bad:
            hd = {"X-CSRF-Token": csrf, "Content-Type": "application/json"}
            s, _, doc = call(srv, "POST", "/api/me/claim",
                             {"seats": seats_bad} if seats_bad is not None else None,
                             headers=hd, cookie=cookie, raw=raw)
            self.assertEqual((s, doc["error"]), (400, "bad_request"), (seats_bad, raw, doc))
            self.assertNotIn(done_token, json.dumps(doc))
        # 100 entries fit (a body over 4096 bytes): all bad_token, nothing claimed.
        many = [{"room": done_room, "token": "%032x" % i} for i in range(100)]
        doc = self.claim(srv, cookie, csrf, many)
        self.assertEqual(doc["claimed"], [])
        self.assertEqual({e["reason"] for e in doc["skipped"]}, {"bad_token"})
        self.assertEqual(len(doc["skipped"]), 100)
        self.assertEqual(self.account_of(done_room, done_seat), "0")
        s, _, games = call(srv, "GET", "/api/me/games", cookie=cookie, origin=False)
        self.assertEqual(games["games"], [])

        # The claim: both seats, a wrong token and an unknown room skipped.
        wrong = "0" * 32
        doc = self.claim(srv, cookie, csrf, seats + [{"room": run_room, "token": wrong},
                                                     {"room": "NoSuchRoom", "token": wrong}])
        self.assertEqual(doc["claimed"], [{"room": done_room, "seat": done_seat},
                                          {"room": run_room, "seat": run_seat}])
        self.assertEqual(doc["skipped"], [{"room": run_room, "reason": "bad_token"},
                                          {"room": "NoSuchRoom", "reason": "bad_token"}])
        self.assertNotEqual(self.account_of(done_room, done_seat), "0")

        # My games lists both, the finished one with its record.
        deadline = time.monotonic() + 20
        while True:
            s, _, games = call(srv, "GET", "/api/me/games", cookie=cookie, origin=False)
            self.assertEqual(s, 200, games)
            listed = {g["room"]: g for g in games["games"]}
            if len(listed) == 2 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(set(listed), {done_room, run_room}, games)
        self.assertEqual(listed[done_room]["status"], "finished")
        self.assertEqual(listed[done_room]["seat"], done_seat)
        self.assertEqual(listed[run_room]["status"], "running")
        self.assertEqual(listed[run_room]["seat"], run_seat)

        # The running seat is stored as the account's (the room's next batch).
        account = self.account_of(done_room, done_seat)
        deadline = time.monotonic() + 10
        while self.account_of(run_room, run_seat) != account:
            self.assertLess(time.monotonic(), deadline, "the claimed seat was never stored")
            time.sleep(0.1)

        # A second device with the cookie alone resumes the running seat.
        b = h.Client(tsa.WithCookie(srv, cookie), name="device2")
        j = b.request_ok("resume", "joined", room=run_room)
        self.assertEqual(j["seat"], run_seat)
        self.assertNotIn("token", j)
        b.room, b.seat = run_room, run_seat
        b.wait_type("state")
        self.assertEqual(run.wait_close().code, 4000)  # the guest's connection taken over

        # Claimed again: already. Another account: taken, and nothing moves.
        doc = self.claim(srv, cookie, csrf, seats)
        self.assertEqual(doc["claimed"], [])
        self.assertEqual(doc["skipped"], [{"room": done_room, "reason": "already"},
                                          {"room": run_room, "reason": "already"}])
        other, other_csrf = self.signup(srv, name + "b")
        doc = self.claim(srv, other, other_csrf, seats)
        self.assertEqual(doc["claimed"], [])
        self.assertEqual(doc["skipped"], [{"room": done_room, "reason": "taken"},
                                          {"room": run_room, "reason": "taken"}])
        self.assertEqual(self.account_of(done_room, done_seat), account)
        s, _, games = call(srv, "GET", "/api/me/games", cookie=other, origin=False)
        self.assertEqual(games["games"], [])

        # A room that lives in the store but not in this node's memory (as another node's
        # would): elsewhere, and its seat is left alone.
        g2, g2_room, g2_seat, g2_token = self.guest_game(srv, rng, finish=False)
        g2.close()
        third, third_csrf = self.signup(srv, name + "c")
        self.until_closed(g2_room)
        self.sql("UPDATE rooms SET closed = 0 WHERE id = '%s'" % g2_room)
        doc = self.claim(srv, third, third_csrf, [{"room": g2_room, "token": g2_token}])
        self.assertEqual(doc["skipped"], [{"room": g2_room, "reason": "elsewhere"}])
        self.assertEqual(self.account_of(g2_room, g2_seat), "0")
        self.sql("UPDATE rooms SET closed = 1 WHERE id = '%s'" % g2_room)
        doc = self.claim(srv, third, third_csrf, [{"room": g2_room, "token": g2_token}])
        self.assertEqual(doc["claimed"], [{"room": g2_room, "seat": g2_seat}])

        b.close()
        self.assertEqual(srv.stop(), 0, srv.log())


class ClaimPg(Claim):
    """The same on a real PostgreSQL."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()


if __name__ == "__main__":
    unittest.main()
