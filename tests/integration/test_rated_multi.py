"""A rated four-player game over the wire (PROTOCOL.md "Ratings"): four signed-in accounts play
a whole rated game to its end, then GET /api/players/NAME shows for each `ratings.multi` as the
Weng-Lin Plackett-Luce update gives it for those final scores, computed here from the model's
published formulas (Weng and Lin 2011, Algorithm 4, with OpenSkill's defaults: mu 25, sigma
25/3, beta 25/6, kappa 0.0001, tau 25/300 added to sigma before the game, gamma sigma / c),
independently of carcd's rating.c; ranks from the final scores, equal scores sharing a rank;
shown as 1000 + 40 (mu - 3 sigma), deviation 40 sigma. On the SQLite carcd and on a PostgreSQL
one (pg_util)."""

import math
import random
import time
import unittest

import harness as h
import pg_util
from test_accounts import CONFIG, call, session_of
from test_ratings import get_json
from test_seat_accounts import WithCookie

FAST = dict(CONFIG, **{"bot-think-ms": 50, "bot-pace-ms": 0})

MU, SIGMA, BETA, KAPPA, TAU = 25.0, 25.0 / 3, 25.0 / 6, 0.0001, 25.0 / 300


def plackett_luce(scores):
    """[(mu, sigma)] after one game of newcomers with these final scores (higher is better)."""
    n = len(scores)
    rank = [sum(1 for t in scores if t > s) for s in scores]  # 0 best; ties share
    sigma = [math.sqrt(SIGMA ** 2 + TAU ** 2)] * n
    mu = [MU] * n
    c = math.sqrt(sum(s ** 2 + BETA ** 2 for s in sigma))
    e = [math.exp(m / c) for m in mu]
    sum_q = [sum(e[s] for s in range(n) if rank[s] >= rank[q]) for q in range(n)]
    a = [sum(1 for s in range(n) if rank[s] == rank[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if rank[q] > rank[i]:
                continue
            p = e[i] / sum_q[q]
            delta += p * (1 - p) / a[q]
            omega += ((1 - p) if q == i else -p) / a[q]
        s2 = sigma[i] ** 2
        gamma = sigma[i] / c
        mu_i = mu[i] + s2 / c * omega
        sigma_i = sigma[i] * math.sqrt(max(1 - gamma * s2 / c ** 2 * delta, KAPPA))
        out.append((mu_i, sigma_i))
    return out


class RatedMulti(unittest.TestCase):
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

    def test_four_accounts_rated_by_plackett_luce(self):
        stamp = int(time.time() * 1000) % 100000
        names = ["pl%d_%d" % (stamp, i) for i in range(4)]
        players = [h.Client(WithCookie(self.srv, self.signup(n)), name=n, timeout=30)
                   for n in names]
        clock = {"initial": 600, "increment": 0, "on_timeout": "bot"}
        j = players[0].request_ok("create", "joined", name="x", seats=4, rated=True, clock=clock)
        h.secret_add(j["token"])
        players[0].wait_type("state")
        for p in players[1:]:
            jp = p.request_ok("join", "joined", room=players[0].room, name="x")
            h.secret_add(jp["token"])
            p.wait_type("state")
        h.sync_all(players, players[-1].seq)
        end = h.play_to_end(players, random.Random(27))
        self.assertEqual(end["phase"], "over")
        for p in players:
            p.close()
        seat_of = {s["name"]: i for i, s in enumerate(end["seats"])}
        scores = [end["seats"][seat_of[n]]["score"] for n in names]
        want = plackett_luce(scores)
        for n, (mu, sigma) in zip(names, want):
            deadline = time.monotonic() + 20
            while True:
                s, doc = get_json(self.srv, "/api/players/" + n)
                self.assertEqual(s, 200, doc)
                if "multi" in doc["ratings"]:
                    break
                self.assertLess(time.monotonic(), deadline, doc)
                time.sleep(0.1)
            self.assertNotIn("2p", doc["ratings"])
            got = doc["ratings"]["multi"]
            self.assertEqual(got["games"], 1)
            self.assertAlmostEqual(got["rating"], 1000 + 40 * (mu - 3 * sigma), delta=0.01,
                                   msg="%s, scores %s" % (n, scores))
            self.assertAlmostEqual(got["deviation"], 40 * sigma, delta=0.01)
            self.assertEqual([p["game"] for p in got["history"]], [players[0].room])
        # The model's shape: the best score gains the most, the worst loses (no tie at both).
        best = max(range(4), key=lambda i: scores[i])
        worst = min(range(4), key=lambda i: scores[i])
        if scores.count(scores[best]) == 1 and scores.count(scores[worst]) == 1:
            self.assertGreater(want[best][0], MU)
            self.assertLess(want[worst][0], MU)


@unittest.skipUnless(pg_util.available(), "no PostgreSQL server binaries")
class RatedMultiPg(RatedMulti):
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
