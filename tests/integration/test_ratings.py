"""Ratings (PROTOCOL.md "Ratings"): a signed-in player creates a rated two-seat room with a
random bot and plays it to its end; GET /api/players/NAME then shows ratings.2p with one game
and the numbers Glicko-2 gives (computed here from Glickman's paper, independently of carcd),
GET /api/players/bot.random shows the bot's identity moved the other way, and the ladder (with
--ladder-min-games 1) lists both. A guest's join of a rated room is sign_in_required; an
unrated game changes nothing; an unknown player is 404, an unknown pool 400."""

import json
import math
import random
import time
import unittest

import harness as h
from test_accounts import CONFIG, call, session_of
from test_seat_accounts import WithCookie

FAST = dict(CONFIG, **{"bot-think-ms": 50, "bot-pace-ms": 0})

# Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013), system constant 0.5.
SCALE = 173.7178
TAU = 0.5


def glicko2(r, rd, vol, opp_r, opp_rd, score):
    mu, phi = (r - 1500) / SCALE, rd / SCALE
    mu_j, phi_j = (opp_r - 1500) / SCALE, opp_rd / SCALE
    g = 1 / math.sqrt(1 + 3 * phi_j ** 2 / math.pi ** 2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g ** 2 * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(vol ** 2)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2)
                - (x - a) / TAU ** 2)

    big_a = a
    if delta ** 2 > phi ** 2 + v:
        big_b = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        big_b = a - k * TAU
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    vol2 = math.exp(big_a / 2)
    phi_star = math.sqrt(phi ** 2 + vol2 ** 2)
    phi2 = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    mu2 = mu + phi2 ** 2 * g * (score - e)
    return SCALE * mu2 + 1500, SCALE * phi2, vol2


def get_json(srv, path):
    s, _, doc = call(srv, "GET", path, origin=False)
    return s, doc


class Ratings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = h.Server(FAST, extra=("--ladder-min-games", "1")).start()

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

    def play_with_bot(self, cookie, rated, rng):
        """A two-seat room with a random bot, played to its end: the final document."""
        a = h.Client(WithCookie(self.srv, cookie), name="a", timeout=30)
        # A rated room needs a clock; ten minutes is never short here.
        clock = {"initial": 600, "increment": 0, "on_timeout": "bot"}
        fields = {"rated": True, "clock": clock} if rated else {}
        j = a.request_ok("create", "joined", name="Ignored", seats=2, **fields)
        a.room, a.seat = j["room"], j["seat"]
        h.secret_add(j["token"])
        a.wait_type("state")
        self.assertEqual(a.doc.get("rated", False), rated)
        if rated:
            g = h.Client(self.srv, name="guest")
            r = g.request("join", room=a.room, name="Gus")
            self.assertEqual((r["type"], r.get("code")), ("error", "sign_in_required"), r)
            g.close()
        a.send({"v": h.V, "type": "add_bot", "level": "random"})
        a.wait_doc(lambda d: d["seats"][1]["bot"] is not None)
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
        return doc

    def wait_rated(self, name, games):
        deadline = time.monotonic() + 20
        while True:
            s, doc = get_json(self.srv, "/api/players/" + name)
            self.assertEqual(s, 200, doc)
            p = doc["ratings"].get("2p")
            if p is not None and p["games"] >= games:
                return doc
            self.assertLess(time.monotonic(), deadline, doc)
            time.sleep(0.1)

    def test_rated_game_with_a_bot(self):
        rng = random.Random(6)
        name = "rater%d" % (int(time.time() * 1000) % 100000)
        cookie = self.signup(name)
        s, doc = get_json(self.srv, "/api/players/" + name)
        self.assertEqual((s, doc["name"], doc["ratings"]), (200, name, {}))
        end = self.play_with_bot(cookie, True, rng)
        mine, bots = end["seats"][0]["score"], end["seats"][1]["score"]
        score = 1.0 if mine > bots else 0.0 if mine < bots else 0.5

        me = self.wait_rated(name, 1)["ratings"]["2p"]
        want = glicko2(1500, 350, 0.06, 1500, 350, score)
        self.assertEqual(me["games"], 1)
        self.assertAlmostEqual(me["rating"], want[0], places=4)
        self.assertAlmostEqual(me["deviation"], want[1], places=4)
        self.assertAlmostEqual(me["volatility"], want[2], places=6)
        self.assertTrue(me["provisional"])
        self.assertEqual(len(me["history"]), 1)
        self.assertEqual(me["history"][0]["game"], end["room"])
        self.assertAlmostEqual(me["history"][0]["rating"], want[0], places=4)

        bot = self.wait_rated("bot.random", 1)["ratings"]["2p"]
        want_bot = glicko2(1500, 350, 0.06, 1500, 350, 1.0 - score)
        self.assertAlmostEqual(bot["rating"], want_bot[0], places=4)
        self.assertAlmostEqual(bot["deviation"], want_bot[1], places=4)
        if score != 0.5:  # moved the other way
            self.assertEqual(me["rating"] > 1500, bot["rating"] < 1500)

        s, lad = get_json(self.srv, "/api/ladder?pool=2p")
        self.assertEqual(s, 200, lad)
        self.assertEqual((lad["pool"], lad["min_games"]), ("2p", 1))
        names = [p["name"] for p in lad["players"]]
        self.assertIn(name, names)
        self.assertIn("bot.random", names)
        self.assertEqual([p["rank"] for p in lad["players"]], list(range(1, len(names) + 1)))
        ratings = [p["rating"] for p in lad["players"]]
        self.assertEqual(ratings, sorted(ratings, reverse=True))
        s, lad = get_json(self.srv, "/api/ladder?pool=multi&page=1")
        self.assertEqual((s, lad["players"]), (200, []))

        # An unrated game changes nothing.
        self.play_with_bot(cookie, False, rng)
        time.sleep(0.5)
        s, again = get_json(self.srv, "/api/players/" + name)
        self.assertEqual(again["ratings"]["2p"], me)

    def test_errors(self):
        s, doc = get_json(self.srv, "/api/players/nobody_here")
        self.assertEqual((s, doc["error"]), (404, "no_such_player"))
        s, doc = get_json(self.srv, "/api/players/bad%20name")
        self.assertEqual(s, 404)
        s, doc = get_json(self.srv, "/api/ladder?pool=3p")
        self.assertEqual((s, doc["error"]), (400, "bad_pool"))
        s, doc = get_json(self.srv, "/api/ladder")
        self.assertEqual(s, 400)
        s, doc = get_json(self.srv, "/api/players/bot.strong")
        self.assertEqual((s, doc["name"]), (200, "bot.strong"))


if __name__ == "__main__":
    unittest.main()
