"""Seats of accounts (PROTOCOL.md "Seats of accounts"): a WebSocket opened with the
carcd_session cookie is signed in; the seat it takes belongs to the account (named after it),
and a second connection with only the cookie resumes it without a token, also after carcd is
killed and started again on the same data; a guest's resume without a token is bad_token. On
SQLite and on a real PostgreSQL (pg_util)."""

import random
import shutil
import tempfile
import time
import unittest

import websocket

import harness as h
import pg_util
from test_accounts import CONFIG, call, session_of


class WithCookie:
    """srv as seen by a browser signed in: every WebSocket carries the cookie and the page's
    own Origin (the one carcd accepts)."""

    def __init__(self, srv, cookie):
        self.srv = srv
        self.cookie = cookie

    def __getattr__(self, name):
        return getattr(self.srv, name)

    def ws_connect(self, timeout):
        return websocket.create_connection(
            self.srv.ws_url, timeout=timeout, enable_multithread=False,
            origin="http://%s:%d" % (self.srv.host, self.srv.port),
            header=["Cookie: carcd_session=" + self.cookie])


class SeatAccounts(unittest.TestCase):
    pg = None

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carcd-seat-acc-")
        self.servers = []
        h.PG_URL_FOR = self.pg.database_for if self.pg is not None else None

    def tearDown(self):
        for s in self.servers:
            if s.alive():
                s.kill()
        h.PG_URL_FOR = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self):
        srv = h.Server(CONFIG, data_dir=self.dir).start()
        self.servers.append(srv)
        return srv

    def signup(self, srv, name):
        pw = "pw-%s-long-enough" % name
        h.secret_add(pw)
        s, hd, doc = call(srv, "POST", "/api/account", {"name": name, "password": pw})
        self.assertEqual(s, 201, doc)
        token, _ = session_of(hd)
        return token

    def play_one(self, me, rng):
        """me plays once when its turn comes (the bot moves between)."""
        doc = me.wait_doc(lambda d: d["phase"] == "over" or d["current"] == me.seat, timeout=30)
        if doc["phase"] == "over" or me.wait_legal() is None:
            return
        r = me.request("play", **h.random_move(rng, me))
        self.assertEqual(r.get("type"), "ack", r)

    def test_resume_by_cookie(self):
        rng = random.Random(27)
        srv = self.start()
        name = "seat%d" % (int(time.time() * 1000) % 100000)
        cookie = self.signup(srv, name)
        a = h.Client(WithCookie(srv, cookie), name="a")
        j = a.request_ok("create", "joined", name="Ignored", seats=2)
        room, seat, token = j["room"], j["seat"], j["token"]
        h.secret_add(token)
        a.room, a.seat = room, seat
        a.wait_type("state")
        self.assertEqual(a.doc["seats"][0]["name"], name)  # the account's, not the message's
        a.send({"v": h.V, "type": "add_bot", "level": "random"})
        a.wait_doc(lambda d: d["seats"][1]["bot"] is not None)
        a.send({"v": h.V, "type": "start"})
        a.wait_doc(lambda d: d["phase"] == "playing")
        self.play_one(a, rng)

        # A second device with only the cookie: the same seat, no token; the first is taken over.
        b = h.Client(WithCookie(srv, cookie), name="b")
        j = b.request_ok("resume", "joined", room=room)
        self.assertEqual(j["seat"], seat)
        self.assertNotIn("token", j)
        b.room, b.seat = room, seat
        b.wait_type("state")
        closed = a.wait_close()
        self.assertEqual(closed.code, 4000)
        seq = b.seq
        self.play_one(b, rng)
        b.wait_doc(lambda d: b.seq > seq)  # the game goes on

        # A guest without a token: bad_token; a cookie of no session is a guest too.
        g = h.Client(srv, name="guest")
        r = g.request("resume", room=room)
        self.assertEqual((r["type"], r.get("code")), ("error", "bad_token"), r)
        g.close()
        g = h.Client(WithCookie(srv, "A" * len(cookie)), name="stale")
        r = g.request("resume", room=room)
        self.assertEqual((r["type"], r.get("code")), ("error", "bad_token"), r)
        g.close()
        b.close()

        # carcd killed and started again on the same data: the cookie still resumes the seat.
        srv.kill()
        srv = self.start()
        c = h.Client(WithCookie(srv, cookie), name="c")
        j = c.request_ok("resume", "joined", room=room)
        self.assertEqual(j["seat"], seat)
        c.room, c.seat = room, seat
        c.wait_type("state")
        self.assertEqual(c.doc["seats"][seat]["name"], name)
        seq = c.seq
        self.play_one(c, rng)
        c.wait_doc(lambda d: c.seq > seq)
        g = h.Client(srv, name="guest2")
        r = g.request("resume", room=room)
        self.assertEqual(r.get("code"), "bad_token", r)
        g.close()
        c.close()
        self.assertEqual(srv.stop(), 0, srv.log())


class SeatAccountsPg(SeatAccounts):
    """The same on a real PostgreSQL."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()


if __name__ == "__main__":
    unittest.main()
