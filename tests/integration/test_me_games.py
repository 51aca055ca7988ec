"""GET /api/me/games (PROTOCOL.md "Accounts (HTTP)"): the games of the signed-in account,
newest first, 20 a page. Empty for a new account; a game started against a bot is listed as
running with its seat, whose turn it is and the clock; played out, it is finished with the
record's players and scores, the account's result and the replay's link; more than a page
of games is paged; a guest gets 401. On SQLite and on a real PostgreSQL (pg_util)."""

import random
import shutil
import tempfile
import time
import unittest

import harness as h
import pg_util
from test_accounts import CONFIG, call
import test_seat_accounts as tsa
from test_turns import play_until_over

GAMES_CONFIG = dict(CONFIG, **{"create-rate": 1000})


class MeGames(unittest.TestCase):
    pg = None

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carcd-me-games-")
        self.servers = []
        h.PG_URL_FOR = self.pg.database_for if self.pg is not None else None

    def tearDown(self):
        for s in self.servers:
            if s.alive():
                s.kill()
        h.PG_URL_FOR = None
        shutil.rmtree(self.dir, ignore_errors=True)

    signup = tsa.SeatAccounts.signup

    def games(self, srv, cookie, page=None, status=200):
        path = "/api/me/games" + ("?page=%d" % page if page is not None else "")
        s, hd, doc = call(srv, "GET", path, cookie=cookie, origin=False)
        self.assertEqual(s, status, doc)
        self.assertEqual(hd.get("cache-control"), "no-store")
        return doc

    def until(self, srv, cookie, pred, page=None, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            doc = self.games(srv, cookie, page)
            if pred(doc):
                return doc
            if time.monotonic() > deadline:
                raise AssertionError("GET /api/me/games never got there: %s" % doc)
            time.sleep(0.1)

    def start_game(self, srv, cookie, clock=None):
        """A room of the account against a random bot, started: the client, room, seat."""
        a = h.Client(tsa.WithCookie(srv, cookie), name="me")
        extra = {"clock": clock} if clock else {}
        j = a.request_ok("create", "joined", name="X", seats=2, **extra)
        h.secret_add(j["token"])
        a.room, a.seat = j["room"], j["seat"]
        a.wait_type("state")
        a.send({"v": h.V, "type": "add_bot", "level": "random"})
        a.wait_doc(lambda d: d["seats"][1]["bot"] is not None)
        a.send({"v": h.V, "type": "start"})
        a.wait_doc(lambda d: d["phase"] == "playing")
        return a, j["room"], j["seat"]

    def test_my_games(self):
        srv = h.Server(GAMES_CONFIG, data_dir=self.dir).start()
        self.servers.append(srv)
        name = "mg%d" % (int(time.time() * 1000) % 100000)
        cookie = self.signup(srv, name)

        # A guest, and a cookie of no session: 401.
        doc = self.games(srv, None, status=401)
        self.assertEqual(doc["error"], "not_signed_in")
        self.games(srv, "A" * len(cookie), status=401)
        s, _, doc = call(srv, "POST", "/api/me/games", cookie=cookie)
        self.assertEqual(s, 405, doc)

        # A new account: nothing.
        doc = self.games(srv, cookie)
        self.assertEqual((doc["games"], doc["page"], doc["more"]), ([], 1, False))

        # A game against a bot, with a clock: running, with the seat, the turn, the clock.
        clock = {"initial": 600, "increment": 0, "on_timeout": "bot"}
        a, room, seat = self.start_game(srv, cookie, clock)
        doc = self.until(srv, cookie, lambda d: len(d["games"]) == 1)
        g = doc["games"][0]
        self.assertEqual((g["room"], g["seat"], g["status"]), (room, seat, "running"), g)
        self.assertIn(g["turn"], (0, 1))
        self.assertEqual(g["your_turn"], g["turn"] == seat)
        self.assertTrue(0 < g["time_ms"] <= 600000, g)
        self.assertNotIn("players", g)

        # Played out: finished, with the record's players and scores, the result, the replay.
        play_until_over(a, random.Random(5))
        a.close()
        doc = self.until(srv, cookie, lambda d: d["games"][0]["status"] != "running")
        g = doc["games"][0]
        self.assertEqual((g["room"], g["status"]), (room, "finished"), g)
        self.assertEqual(len(g["players"]), 2)
        self.assertEqual(g["players"][seat], name)
        self.assertEqual(len(g["scores"]), 2)
        self.assertEqual(g["result"]["score"], g["scores"][seat])
        self.assertIn(g["result"]["rank"], (1, 2))
        self.assertEqual(g["replay"], "/#replay=" + room)
        self.assertNotIn("turn", g)

        # 21 more games: two pages, newest first.
        rooms = [room]
        for _ in range(21):
            c, r, _ = self.start_game(srv, cookie)
            c.close()
            rooms.append(r)
            time.sleep(0.002)  # links ordered by time
        doc = self.until(srv, cookie, lambda d: d["more"] and len(d["games"]) == 20)
        self.assertEqual(doc["games"][0]["room"], rooms[-1])
        two = self.games(srv, cookie, page=2)
        self.assertEqual((two["page"], two["more"], len(two["games"])), (2, False, 2))
        listed = [g["room"] for g in doc["games"] + two["games"]]
        self.assertEqual(sorted(listed), sorted(rooms))
        self.assertEqual(two["games"][-1]["room"], room)
        self.assertEqual(self.games(srv, cookie, page=3)["games"], [])

        # Another account sees none of them.
        other = self.signup(srv, name + "b")
        self.assertEqual(self.games(srv, other)["games"], [])
        self.assertEqual(srv.stop(), 0, srv.log())


class MeGamesPg(MeGames):
    """The same on a real PostgreSQL."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()


if __name__ == "__main__":
    unittest.main()
