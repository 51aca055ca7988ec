"""Issue 25, finding 8: rooms of bots with nobody watching.

One address starts rooms of five strong bots each and leaves them all. Before the fix their bots
played on for as long as the rooms lived (an hour: room-ttl), as fast as the thread pool went,
and a player who came back to such a game found it finished. Now a game nobody has been
connected to for `bots-alone-grace` seconds pauses: the test checks, on a real carcd, that its
CPU falls to idle within the grace and a margin, that the paused games do not move (the admin
API's `paused` and `moves`), and that a player who resumes finds the game where it stood and
sees it go on at the bots' pace (`bot-pace-ms`), not in a burst, while the CPU rises again."""

import json
import random
import time
import unittest
import urllib.request

import fault_util as fu
import harness as h

TOKEN = "adm-faults-bots-alone-5c81e2"
GRACE = 2
ROOMS = 20
SETS = ["base", "inns-cathedrals", "besiegers", "cathars", "siege", "apothecaries-tithes"]
CONFIG = dict(h.LIMITS, **{"bots-alone-grace": GRACE, "bot-pace-ms": 300, "bot-think-ms": 1000,
                           "bot-searches": 2, "admin-token": TOKEN})


def admin_rooms(srv):
    """{room id: (paused, moves, phase)} from GET /admin/rooms."""
    req = urllib.request.Request(srv.http_url.rstrip("/") + "/admin/rooms",
                                 headers={"Authorization": "Bearer " + TOKEN})
    with urllib.request.urlopen(req, timeout=10) as r:
        body = json.loads(r.read().decode())
    return {x["id"]: (x["paused"], x["moves"], x["phase"]) for x in body["rooms"]}


def placed_count(msgs, seat):
    """Tiles placed by other seats than `seat` (its bots) in the deltas of msgs."""
    return sum(1 for m in msgs if m.get("type") == "delta"
               for e in m["events"] if e["type"] == "placed" and e["player"] != seat)


class BotsAlone(unittest.TestCase):
    def setUp(self):
        self.srv = h.Server(config=CONFIG).start()

    def tearDown(self):
        self.assertEqual(self.srv.stop(), 0, self.srv.log())

    def start_rooms(self):
        """ROOMS rooms of a host and five strong bots, started and left: (room, token) each."""
        rooms = []
        for i in range(ROOMS):
            c = h.Client(self.srv, name="host%d" % i)
            c.request_ok("create", "joined", name="host%d" % i, seats=6, sets=SETS)
            for _ in range(5):
                c.send({"v": h.V, "type": "add_bot", "level": "strong"})
            c.wait_doc(lambda d: all(s["taken"] for s in d["seats"]))
            c.send({"v": h.V, "type": "start"})
            c.wait_doc(lambda d: d["phase"] == "playing")
            rooms.append((c, c.room, c.token))
        for c, _, _ in rooms:  # the host's seat goes to a bot too (autoplay "left")
            c.request_ok("leave", "left")
            c.close()
        return [(room, token) for _, room, token in rooms]

    def test_left_bot_rooms_go_idle_and_come_back_at_the_pace(self):
        pid = self.srv.pid()
        rooms = self.start_rooms()
        left = time.monotonic()
        # The fault is there: left alone, the bots search (paced, on two threads).
        busy = fu.cpu_share(pid, 1.5)
        self.assertGreater(busy, 0.10, "the rooms' bots did not load carcd: %.3f" % busy)
        # Within the grace and a margin every game pauses, and carcd goes idle.
        time.sleep(max(0.0, left + GRACE + 1.0 - time.monotonic()))
        before = admin_rooms(self.srv)
        idle = fu.cpu_share(pid, 2.0)
        after = admin_rooms(self.srv)
        self.assertLess(idle, 0.05, "carcd still busy with games nobody watches: %.3f" % idle)
        for room, _ in rooms:
            paused, moves, phase = after[room]
            self.assertEqual((paused, phase), (True, "playing"), room)
            self.assertEqual(moves, before[room][1], "a paused game moved: %s" % room)
        # One line per game, some held back by the log's rate limit and counted on a later one.
        self.assertEqual(fu.lines_counted(self.srv, "game paused"), ROOMS, self.srv.log())
        # One player comes back: the game goes on from where it stood, at the bots' pace.
        room, token = rooms[0]
        c = h.Client(self.srv, name="back")
        # The CPU from the resume on: the bots of this turn's round search in this window,
        # however many of them were still to move (the game may have paused on the last
        # bot's turn: its one search is over within the first second).
        t0, c0 = time.monotonic(), fu.cpu_ticks(pid)
        c.request_ok("resume", "joined", room=room, token=token)
        doc = c.wait_type("state")["state"]
        self.assertEqual(doc["phase"], "playing")
        if doc["current"] == c.seat and c.wait_legal() is not None:  # its turn: it plays
            self.assertEqual(c.request("play", **h.random_move(random.Random(1), c))["type"], "ack")
        c.drain()
        first = c.quiet(1.0)
        # Paced, its five bots need 5 x 300 ms; a burst (no pace at the resume) plays them all
        # within the first tenth of a second.
        self.assertLessEqual(placed_count(first, c.seat), 3, "a burst of moves after the resume")
        self.assertGreaterEqual(placed_count(first + c.quiet(0.5), c.seat), 1,
                                "the resumed game did not go on")
        rose = (fu.cpu_ticks(pid) - c0) / fu.CLK_TCK / (time.monotonic() - t0)
        self.assertGreater(rose, max(2 * idle, 0.02), "no search ran for the resumed game")
        state = admin_rooms(self.srv)
        self.assertFalse(state[room][0])
        self.assertTrue(all(state[r][0] for r, _ in rooms[1:]))
        c.close()

if __name__ == "__main__":
    unittest.main()
