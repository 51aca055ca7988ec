"""A rating lost in a crash is done again (PROTOCOL.md "Ratings", store/README.md "Accounts"):
a rated game against a bot ends and its record is stored, but its rating does not commit: the
test holds it with a trigger on rated_games that refuses every insert (the rating's transaction
writes that table first, so it rolls back whole; carcd has no test-only code for this). The
trigger is dropped (SQLite: just before the kill, PostgreSQL: after it) and carcd is
SIGKILLed: its database is as a crash between the game's end and the rating's commit leaves
it. carcd restarts and its catch-up (at start, then each minute) rates the game from the
store's rows: the player's and the bot's ratings are there, with the values Glicko-2 gives for
the final scores, exactly once; another restart rates nothing again. On SQLite (the carcd's own
file) and on PostgreSQL (pg_util)."""

import json
import random
import sqlite3
import tempfile
import time
import unittest
import urllib.request

import harness as h
import pg_util
from test_accounts import CONFIG, call, session_of
from test_ratings import glicko2, get_json
from test_seat_accounts import WithCookie

FAST = dict(CONFIG, **{"bot-think-ms": 50, "bot-pace-ms": 0})

SQLITE_HOLD = ("CREATE TRIGGER hold_rating BEFORE INSERT ON rated_games"
               " BEGIN SELECT RAISE(ABORT, 'rating held by the test'); END")
SQLITE_RELEASE = "DROP TRIGGER hold_rating"
PG_HOLD = ("CREATE FUNCTION hold_rating() RETURNS trigger LANGUAGE plpgsql AS"
           " $$BEGIN RAISE EXCEPTION 'rating held by the test'; END$$;"
           " CREATE TRIGGER hold_rating BEFORE INSERT ON rated_games"
           " FOR EACH ROW EXECUTE FUNCTION hold_rating()")
PG_RELEASE = "DROP TRIGGER hold_rating ON rated_games; DROP FUNCTION hold_rating()"


def finished_game(srv, room, timeout=30):
    """room's entry of GET /api/games once its game is stored as finished."""
    deadline = time.monotonic() + timeout
    while True:
        with urllib.request.urlopen(srv.http_url.rstrip("/") + "/api/games?page=1",
                                    timeout=10) as r:
            doc = json.loads(r.read().decode())
        for g in doc["games"]:
            if g["id"] == room:
                return g
        if time.monotonic() > deadline:
            raise AssertionError("game %s never stored as finished" % room)
        time.sleep(0.1)


def wait_line(srv, text, timeout=20):
    deadline = time.monotonic() + timeout
    while not any(text in line for line in srv.lines):
        if time.monotonic() > deadline:
            raise AssertionError("no log line with %r:\n%s" % (text, srv.log()))
        time.sleep(0.05)


class RatingCrash(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="carcd-rating-crash-")
        self.dir = self.tmp.name
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            if s.alive():
                s.stop()
        self.tmp.cleanup()

    def start(self):
        srv = h.Server(FAST, data_dir=self.dir).start()
        self.servers.append(srv)
        return srv

    def sql(self, statement):
        db = sqlite3.connect(self.dir + "/carcd.db", timeout=10)
        try:
            db.executescript(statement)
        finally:
            db.close()

    hold, release = SQLITE_HOLD, SQLITE_RELEASE
    # SQLite: the trigger is dropped while carcd still runs (its next catch-up is a minute
    # away): a connection of this test closing last after the kill would checkpoint the WAL
    # and remove it, which carcd's start-up check rightly takes for damage.
    release_live = True

    def play(self, srv, cookie):
        """A rated two-seat game against a random bot, played to its end: its room and the
        final document."""
        rng = random.Random(11)
        a = h.Client(WithCookie(srv, cookie), name="a", timeout=30)
        clock = {"initial": 600, "increment": 0, "on_timeout": "bot"}
        j = a.request_ok("create", "joined", name="x", seats=2, rated=True, clock=clock)
        h.secret_add(j["token"])
        a.wait_type("state")
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
        return j["room"], doc

    def test_lost_rating_rated_after_restart_once(self):
        srv = self.start()
        name = "crash%d" % (int(time.time() * 1000) % 100000)
        pw = "pw-%s-long-enough" % name
        h.secret_add(pw)
        s, hd, doc = call(srv, "POST", "/api/account", {"name": name, "password": pw})
        self.assertEqual(s, 201, doc)
        cookie, _ = session_of(hd)
        self.sql(self.hold)
        room, end = self.play(srv, cookie)
        finished_game(srv, room)
        wait_line(srv, "a rated game failed")  # the rating's transaction rolled back
        s, doc = get_json(srv, "/api/players/" + name)
        self.assertEqual((s, doc["ratings"]), (200, {}), doc)
        if self.release_live:
            self.sql(self.release)
        srv.kill()
        if not self.release_live:
            self.sql(self.release)

        srv = self.start()
        deadline = time.monotonic() + 20
        while True:
            s, doc = get_json(srv, "/api/players/" + name)
            if "2p" in doc["ratings"]:
                break
            self.assertLess(time.monotonic(), deadline, srv.log())
            time.sleep(0.1)
        mine, bots = end["seats"][0]["score"], end["seats"][1]["score"]
        score = 1.0 if mine > bots else 0.0 if mine < bots else 0.5
        me = doc["ratings"]["2p"]
        self.assertEqual(me["games"], 1)
        self.assertEqual([p["game"] for p in me["history"]], [room])
        want = glicko2(1500, 350, 0.06, 1500, 350, score)
        self.assertAlmostEqual(me["rating"], want[0], places=4)
        self.assertAlmostEqual(me["deviation"], want[1], places=4)
        s, bot = get_json(srv, "/api/players/bot.random")
        self.assertEqual(bot["ratings"]["2p"]["games"], 1)
        self.assertAlmostEqual(bot["ratings"]["2p"]["rating"],
                               glicko2(1500, 350, 0.06, 1500, 350, 1.0 - score)[0], places=4)
        self.assertEqual(sum("finished without its rating" in l for l in srv.lines), 1)
        self.assertEqual(srv.stop(), 0)

        # Started again: the catch-up finds nothing; the numbers stay.
        srv = self.start()
        wait_line(srv, "carcd listening")
        time.sleep(2.5)  # past the catch-up at the first tick
        s, again = get_json(srv, "/api/players/" + name)
        self.assertEqual(again["ratings"]["2p"], me)
        self.assertFalse(any("finished without its rating" in l for l in srv.lines))
        self.assertEqual(srv.stop(), 0)


@unittest.skipUnless(pg_util.available(), "no PostgreSQL server binaries")
class RatingCrashPg(RatingCrash):
    hold, release = PG_HOLD, PG_RELEASE
    release_live = False

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()
        h.PG_URL_FOR = cls.pg.database_for

    @classmethod
    def tearDownClass(cls):
        h.PG_URL_FOR = None

    def sql(self, statement):
        self.pg.psql(statement, db=self.pg.database_for(self.dir).split("dbname=")[1].split()[0])


if __name__ == "__main__":
    unittest.main()
