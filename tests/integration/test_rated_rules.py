"""The takeover rules of rated rooms (PROTOCOL.md "Ratings"): a rated room needs a clock
(`create` without one is bad_request and creates nothing); a player of a rated game who
disconnects keeps the seat (no `offline` takeover) and the game does not pause when nobody is
connected: the absent player's clock runs out, its `on_timeout` rule plays, and the game ends
and is rated; `leave` during a rated game is a resignation: the seat is forfeited and its
player loses the rating even with the higher score."""

import json
import time
import unittest
import urllib.request

import harness as h
from test_accounts import CONFIG, call, session_of
from test_ratings import glicko2, get_json
from test_seat_accounts import WithCookie

# Short grace periods: were the rated room to take over a seat for a disconnection, to pause
# with nobody connected, or to be closed (room-ttl) with nobody connected, it would do so
# within the test.
RULES = dict(CONFIG, **{"bot-think-ms": 50, "bot-pace-ms": 0, "takeover-grace": 1,
                        "bots-alone-grace": 1, "room-ttl": 1})


def clock(initial, on_timeout="bot"):
    return {"initial": initial, "increment": 0, "on_timeout": on_timeout}


def final_scores(srv, room, timeout=60):
    """The scores of room's finished game (GET /api/games), waiting for it to end."""
    deadline = time.monotonic() + timeout
    while True:
        with urllib.request.urlopen(srv.http_url.rstrip("/") + "/api/games?page=1",
                                    timeout=10) as r:
            doc = json.loads(r.read().decode())
        for g in doc["games"]:
            if g["id"] == room:
                return g["scores"]
        if time.monotonic() > deadline:
            raise AssertionError("game %s never finished" % room)
        time.sleep(0.2)


class RatedRules(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = h.Server(RULES).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def signup(self, name):
        pw = "pw-%s-long-enough" % name
        h.secret_add(pw)
        s, hd, doc = call(self.srv, "POST", "/api/account", {"name": name, "password": pw})
        self.assertEqual(s, 201, doc)
        token, _ = session_of(hd)
        return token

    def name(self, prefix):
        return "%s%d" % (prefix, int(time.time() * 1000) % 1000000)

    def two_players(self, clk):
        """ann and bob (new accounts) seated in a started rated two-seat room with clock clk."""
        na, nb = self.name("ra"), self.name("rb")
        a = h.Client(WithCookie(self.srv, self.signup(na)), name="a", timeout=30)
        b = h.Client(WithCookie(self.srv, self.signup(nb)), name="b", timeout=30)
        j = a.request_ok("create", "joined", name="x", seats=2, rated=True, clock=clk)
        h.secret_add(j["token"])
        a.wait_type("state")
        jb = b.request_ok("join", "joined", room=a.room, name="x")
        h.secret_add(jb["token"])
        b.wait_type("state")
        a.send({"v": h.V, "type": "start"})
        a.wait_doc(lambda d: d["phase"] == "playing")
        b.wait_doc(lambda d: d["phase"] == "playing")
        return a, b, na, nb

    def rated(self, name):
        deadline = time.monotonic() + 20
        while True:
            s, doc = get_json(self.srv, "/api/players/" + name)
            self.assertEqual(s, 200, doc)
            p = doc["ratings"].get("2p")
            if p is not None:
                return p
            self.assertLess(time.monotonic(), deadline, doc)
            time.sleep(0.1)

    def test_rated_room_needs_a_clock(self):
        a = h.Client(WithCookie(self.srv, self.signup(self.name("nc"))), name="a")
        s, before = get_json(self.srv, "/api/rooms")
        r = a.request("create", name="x", seats=2, rated=True)
        self.assertEqual((r["type"], r["code"]), ("error", "bad_request"), r)
        self.assertIn("a rated room needs a clock", r["message"])
        self.assertIsNone(a.room)
        s, after = get_json(self.srv, "/api/rooms")
        self.assertEqual(s, 200, after)
        ids = lambda doc: {room["room"] for room in doc}
        self.assertEqual(ids(after) - ids(before), set())  # nothing created
        # With a clock the same create is fine.
        j = a.request_ok("create", "joined", name="x", seats=2, rated=True, clock=clock(60))
        h.secret_add(j["token"])
        s, listed = get_json(self.srv, "/api/rooms")
        self.assertIn(j["room"], ids(listed))  # the check above sees rooms being created
        a.close()

    def test_disconnect_runs_the_clock(self):
        a, b, na, nb = self.two_players(clock(2))
        room, sa = a.room, a.seat
        a.close()  # gone for good: nobody takes the seat but its clock
        seen = []
        deadline = time.monotonic() + 30
        while not any(e.get("type") == "autoplay" and e.get("seat") == sa for e in seen):
            self.assertLess(time.monotonic(), deadline, seen)
            m = b.wait_type("delta")
            seen.extend(m["events"])
        timeouts = [e for e in seen if e.get("type") == "timeout"]
        self.assertEqual([e["seat"] for e in timeouts][:1], [sa], seen)
        autoplay = [e for e in seen if e.get("type") == "autoplay"]
        self.assertEqual(autoplay[0]["reason"], "timeout", seen)
        self.assertNotIn("offline", [e.get("reason") for e in autoplay])
        self.assertEqual(b.doc["seats"][sa]["autoplay"], "timeout")
        # bob goes too: nobody is connected, and the rated game neither pauses (an unrated
        # one would after bots-alone-grace, 1 s) nor is closed (room-ttl, 1 s): bob's clock
        # runs out, bots finish it, and it is rated, not abandoned.
        b.close()
        scores = final_scores(self.srv, room)
        ra, rb = self.rated(na), self.rated(nb)
        self.assertEqual((ra["games"], rb["games"]), (1, 1))
        score = 1.0 if scores[sa] > scores[1 - sa] else 0.0 if scores[sa] < scores[1 - sa] else 0.5
        self.assertAlmostEqual(ra["rating"], glicko2(1500, 350, 0.06, 1500, 350, score)[0], 4)
        self.assertAlmostEqual(rb["rating"], glicko2(1500, 350, 0.06, 1500, 350, 1 - score)[0], 4)
        self.assertEqual(ra["history"][0]["game"], room)

    def test_leave_is_a_resignation(self):
        a, b, na, nb = self.two_players(clock(600))
        room, sa = a.room, a.seat
        r = a.request("leave")
        self.assertEqual(r["type"], "left", r)
        a.close()
        b.wait_doc(lambda d: d["seats"][sa]["autoplay"] == "forfeit")
        # bob plays every turn without a meeple: he scores nothing, the bot on ann's seat
        # scores, and still ann loses.
        while True:
            doc = b.wait_doc(lambda d: d["phase"] == "over" or d["current"] == b.seat)
            if doc["phase"] == "over":
                break
            legal = b.wait_legal()
            if legal is None:
                continue
            mv = legal[0]
            r = b.request("play", tile=doc["tile"], x=mv["x"], y=mv["y"], rot=mv["rot"])
            self.assertEqual(r.get("type"), "ack", r)
        b.close()
        scores = final_scores(self.srv, room)
        self.assertGreater(scores[sa], scores[1 - sa])
        rec = h.game_record(self.srv, room)
        self.assertTrue(rec["players"][sa].get("forfeited"), rec["players"])
        ra, rb = self.rated(na), self.rated(nb)
        self.assertAlmostEqual(ra["rating"], glicko2(1500, 350, 0.06, 1500, 350, 0.0)[0], 4)
        self.assertAlmostEqual(rb["rating"], glicko2(1500, 350, 0.06, 1500, 350, 1.0)[0], 4)
        self.assertLess(ra["rating"], 1500)


if __name__ == "__main__":
    unittest.main()
