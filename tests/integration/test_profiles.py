"""A player's statistics (PROTOCOL.md "Ratings", GET /api/players/NAME "stats"): a signed-in
player's profile starts with zero statistics; it then plays two real games to their end
against random bots (an unrated 2-player base game and a rated 3-player game with
inns-cathedrals), and the profile's statistics must equal what the two games' final states say:
played and won in total and per player count (a win: no seat scored more), the average of the
player's final scores to one decimal, and the sets played (base twice, inns-cathedrals once).
A bot's identity has zero statistics. The same on PostgreSQL (ProfilesPg)."""

import random
import time
import unittest

import harness as h
import pg_util
from test_accounts import CONFIG, call, session_of
from test_seat_accounts import WithCookie

FAST = dict(CONFIG, **{"bot-think-ms": 20, "bot-pace-ms": 0})
ZERO = {"played": 0, "won": 0, "by_players": [], "sets": []}


def get_json(srv, path):
    s, _, doc = call(srv, "GET", path, origin=False)
    return s, doc


class Profiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = h.Server(FAST).start()

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

    def play(self, cookie, seats, sets, rated, rng):
        """A room of `seats` seats, the others random bots, played to its end: (the final
        document, the player's seat)."""
        a = h.Client(WithCookie(self.srv, cookie), name="a", timeout=30)
        # a rated room needs a clock (PROTOCOL.md "Ratings"): long enough never to run out here
        fields = {"rated": True, "clock": {"initial": 3600, "increment": 0, "on_timeout": "bot"}} \
            if rated else {}
        j = a.request_ok("create", "joined", name="Ignored", seats=seats, sets=sets, **fields)
        a.room, a.seat = j["room"], j["seat"]
        h.secret_add(j["token"])
        a.wait_type("state")
        for k in range(1, seats):
            a.send({"v": h.V, "type": "add_bot", "level": "random"})
            a.wait_doc(lambda d, k=k: d["seats"][k]["bot"] is not None)
        a.send({"v": h.V, "type": "start"})
        a.wait_doc(lambda d: d["phase"] == "playing")
        while True:
            doc = a.wait_doc(lambda d: d["phase"] == "over" or d["current"] == a.seat)
            if doc["phase"] == "over":
                break
            if a.wait_legal() is None:
                continue
            r = a.request("play", **h.random_move(rng, a))
            self.assertEqual(r.get("type"), "ack", r)
        a.close()
        return doc, a.seat

    def wait_stats(self, name, played):
        """The profile once its statistics count `played` games (the record of a game is
        stored a little after its end)."""
        deadline = time.monotonic() + 20
        while True:
            s, doc = get_json(self.srv, "/api/players/" + name)
            self.assertEqual(s, 200, doc)
            if doc["stats"]["played"] >= played:
                return doc
            self.assertLess(time.monotonic(), deadline, doc)
            time.sleep(0.1)

    def test_stats_of_two_games(self):
        rng = random.Random(27)
        name = "prof%d" % (int(time.time() * 1000) % 100000)
        cookie = self.signup(name)
        s, doc = get_json(self.srv, "/api/players/" + name.upper())
        self.assertEqual((s, doc["name"], doc["ratings"], doc["stats"]), (200, name, {}, ZERO))

        games = [self.play(cookie, 2, ["base"], False, rng),
                 self.play(cookie, 3, ["base", "inns-cathedrals"], True, rng)]
        stats = self.wait_stats(name, 2)["stats"]

        want_by = []
        for end, seat in games:
            scores = [x["score"] for x in end["seats"]]
            self.assertEqual(end["seats"][seat]["name"], name)
            want_by.append({"players": len(scores), "played": 1,
                            "won": int(scores[seat] == max(scores)),
                            "average_score": float(scores[seat])})
        self.assertEqual(stats["by_players"], want_by)
        self.assertEqual(stats["played"], 2)
        self.assertEqual(stats["won"], sum(b["won"] for b in want_by))
        self.assertEqual(stats["sets"], [{"set": "base", "played": 2},
                                         {"set": "inns-cathedrals", "played": 1}])

        # The ratings are still there beside the statistics (the rated game's pool).
        s, doc = get_json(self.srv, "/api/players/" + name)
        self.assertEqual(sorted(doc["ratings"]), ["multi"])
        # A bot's identity: its games are not linked to it, zero statistics.
        s, doc = get_json(self.srv, "/api/players/bot.random")
        self.assertEqual((s, doc["stats"]), (200, ZERO))

    def test_unknown_player(self):
        s, doc = get_json(self.srv, "/api/players/nobody_at_all")
        self.assertEqual((s, doc["error"]), (404, "no_such_player"))


class ProfilesPg(Profiles):
    """The same on PostgreSQL."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()
        h.PG_URL_FOR = cls.pg.database_for
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        h.PG_URL_FOR = None


if __name__ == "__main__":
    unittest.main()
