"""Games that always finish (PROTOCOL.md "Clocks and bots"), against a live carcd.

A player who disconnects and never returns is replaced by a bot after the takeover grace; a
clock that runs out is handled under each of the three policies (bot, skip, forfeit) and the game
still ends; a SIGKILL while a clock runs does not charge the downtime to anyone; a room of one
person and three bots of mixed levels finishes, and its record replays (carc-replay) to the final
scores everyone saw. A game left to its bots pauses after bots-alone-grace (bots and clock
stopped, nothing charged) and goes on at the bots' pace when its player resumes; such games count
against the address that created them (lobby-rooms-per-ip)."""

import json
import random
import time
import unittest
import urllib.request

import harness as h
import test_errors

FAST = dict(h.LIMITS, **{"rate": 2000, "burst": 2000, "flood-rate": 4000, "flood-burst": 4000,
                         "takeover-grace": 1, "bot-think-ms": 200, "bot-pace-ms": 0})


def http_json(srv, path):
    with urllib.request.urlopen(srv.http_url.rstrip("/") + path, timeout=10) as r:
        return json.loads(r.read().decode())


def play_until_over(me, rng, timeout=120):
    """me plays a random legal move whenever it is its turn, until the game is over. Returns
    every event me saw."""
    events = []
    deadline = time.monotonic() + timeout
    seen = 0
    while True:
        doc = me.wait_doc(lambda d: d["phase"] == "over" or
                          (d["current"] == me.seat and d["seats"][me.seat]["autoplay"] is None),
                          timeout=max(1, deadline - time.monotonic()))
        for m in me.backlog[seen:]:
            if m.get("type") == "delta":
                events.extend(m["events"])
        seen = len(me.backlog)
        if doc["phase"] == "over":
            return events
        if time.monotonic() > deadline:
            raise AssertionError("the game did not end")
        # Its `legal` comes right after the delta that gave it the turn; a bot may move for it
        # meanwhile (a timeout): then the turn is gone, and so is the list's validity.
        if me.wait_legal() is None:
            continue
        mv = h.random_move(rng, me)
        r = me.request("play", **mv)
        # A bot may have moved for us meanwhile (a timeout): any refusal is followed by a new
        # turn or the end.
        if r.get("type") == "error" and r["code"] not in ("not_your_turn", "time_out",
                                                          "wrong_tile"):
            raise AssertionError("play refused: %s" % r)


def record_scores(srv, room):
    rec = http_json(srv, "/api/games/" + room)
    last = h.replay(rec)[-1]
    assert last.get("final") is True, last
    return rec, last["scores"]


class Turns(unittest.TestCase):
    def setUp(self):
        self.srv = h.Server(config=FAST).start()

    def tearDown(self):
        status = self.srv.stop()
        self.assertEqual(status, 0, self.srv.log())

    def test_player_gone_for_good_is_played_by_a_bot(self):
        a, b = h.create_room(self.srv, ["Ann", "Bob"])
        room = a.room
        a.send({"v": h.V, "type": "start"})
        a.wait_doc(lambda d: d["phase"] == "playing")
        b.close()  # Bob never comes back
        events = play_until_over(a, random.Random(1))
        self.assertIn({"type": "autoplay", "seat": 1, "reason": "offline"}, events)
        doc = a.doc
        _, scores = record_scores(self.srv, room)
        self.assertEqual(scores, [s["score"] for s in doc["seats"]])
        a.close()

    def _clock_game(self, policy, seed):
        a, b = h.create_room(self.srv, ["Ann", "Bob"],
                             clock={"initial": 1, "increment": 0, "on_timeout": policy})
        room = a.room
        a.send({"v": h.V, "type": "start"})
        doc = a.wait_doc(lambda d: d["phase"] == "playing")
        self.assertEqual(doc["clock"]["on_timeout"], policy)
        self.assertEqual(doc["seats"][1]["time_ms"], 1000)
        self.assertIsNotNone(doc["clock"]["turn_started"])
        # Bob stays connected and never moves: his clock runs out every turn.
        events = play_until_over(a, random.Random(seed))
        timeouts = [e for e in events if e["type"] == "timeout" and e["seat"] == 1]
        self.assertGreater(len(timeouts), 0)
        self.assertTrue(all(e["on_timeout"] == policy for e in timeouts))
        rec, scores = record_scores(self.srv, room)
        self.assertEqual(scores, [s["score"] for s in a.doc["seats"]])
        b.drain()
        a.close()
        b.close()
        return events, rec

    def test_timeout_bot(self):
        events, rec = self._clock_game("bot", 2)
        self.assertIn({"type": "autoplay", "seat": 1, "reason": "timeout"}, events)
        self.assertFalse(any(p.get("forfeited") for p in rec["players"]))

    def test_timeout_skip(self):
        events, rec = self._clock_game("skip", 3)
        skips = [e for e in events if e["type"] == "skip"]
        self.assertGreater(len(skips), 0)
        self.assertTrue(any(m.get("skip") for m in rec["moves"]))
        # Three timeouts in a row: a bot plays Bob's seat.
        self.assertIn({"type": "autoplay", "seat": 1, "reason": "idle"}, events)

    def test_timeout_forfeit(self):
        # A forfeited seat's own moves are refused with time_out, whoever's turn it is.
        a, b = h.create_room(self.srv, ["Ann", "Bob"],
                             clock={"initial": 1, "increment": 0, "on_timeout": "forfeit"})
        a.send({"v": h.V, "type": "start"})
        doc = a.wait_doc(lambda d: d["phase"] == "playing")
        if doc["current"] == 0 and a.wait_legal() is not None:
            a.request("play", **h.random_move(random.Random(7), a))
        b.wait_doc(lambda d: d["seats"][1]["autoplay"] == "forfeit", timeout=5)
        err = b.request("play", tile="BA.D", x=50, y=50, rot=0)
        self.assertEqual((err["type"], err["code"]), ("error", "time_out"), err)
        test_errors.SEEN.add(err["code"])
        a.close()
        b.close()
        events, rec = self._clock_game("forfeit", 4)
        self.assertIn({"type": "autoplay", "seat": 1, "reason": "forfeit"}, events)
        self.assertEqual(rec["players"][1], {"name": "Bob", "forfeited": True})

    def test_one_person_three_bots(self):
        a = h.Client(self.srv, name="Ann")
        a.request_ok("create", "joined", name="Ann", seats=4,
                     sets=["base", "inns-cathedrals", "apothecaries-tithes"])
        for level in ("random", "greedy", "strong"):
            a.send({"v": h.V, "type": "add_bot", "level": level})
        a.send({"v": h.V, "type": "chat", "text": "good luck, bots"})
        doc = a.wait_doc(lambda d: all(s["taken"] for s in d["seats"]))
        self.assertEqual([s["bot"] for s in doc["seats"]], [None, "random", "greedy", "strong"])
        a.send({"v": h.V, "type": "start"})
        events = play_until_over(a, random.Random(5), timeout=300)
        rec, scores = record_scores(self.srv, a.room)
        self.assertEqual(scores, [s["score"] for s in a.doc["seats"]])
        # A late spectator's history holds every turn as the deltas told it, and the chat.
        with h.Client(self.srv, name="late") as w:
            w.request_ok("watch", "watching", room=a.room)
            hist = w.request_ok("history", "history")
        self.assertEqual(len(hist["turns"]), len(rec["moves"]))
        for t, m in zip(hist["turns"], rec["moves"]):
            placed = t["events"][0]
            self.assertEqual((placed["type"], placed["tile"], placed["x"], placed["y"],
                              placed["rot"]), ("placed", m["tile"], m["x"], m["y"], m["rot"]))
        told = [e for e in events if e["type"] not in ("seat", "start", "autoplay", "timeout")]
        self.assertEqual([e for t in hist["turns"] for e in t["events"]], told)
        self.assertEqual([c["text"] for c in hist["chat"]], ["good luck, bots"])
        a.close()


ADMIN_TOKEN = "adm-bots-alone-4b1e9d07c2"
ALONE = dict(FAST, **{"bots-alone-grace": 1, "bot-pace-ms": 300, "admin-token": ADMIN_TOKEN})


def admin_room(srv, room):
    req = urllib.request.Request(srv.http_url.rstrip("/") + "/admin/rooms/" + room,
                                 headers={"Authorization": "Bearer " + ADMIN_TOKEN})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read().decode())


def bot_placed(seat):
    """A delta in which another seat than `seat` (a bot) placed a tile."""
    return lambda m: m.get("type") == "delta" and any(
        e["type"] == "placed" and e["player"] != seat for e in m["events"])


class BotsAlone(unittest.TestCase):
    def test_left_game_pauses_then_goes_on_at_the_pace(self):
        srv = h.Server(config=ALONE).start()
        try:
            a = h.Client(srv, name="Ann")
            a.request_ok("create", "joined", name="Ann", seats=3,
                         clock={"initial": 600, "increment": 0, "on_timeout": "bot"})
            room, token = a.room, a.token
            for _ in range(2):
                a.send({"v": h.V, "type": "add_bot", "level": "greedy"})
            a.wait_doc(lambda d: all(s["taken"] for s in d["seats"]))
            a.send({"v": h.V, "type": "start"})
            a.wait_doc(lambda d: d["phase"] == "playing")
            a.request_ok("leave", "left")
            # The bots play on at their pace for the grace (1 s), then the game stands still.
            deadline = time.monotonic() + 5
            while not admin_room(srv, room)["room"]["paused"]:
                self.assertLess(time.monotonic(), deadline, "the game never paused")
                time.sleep(0.1)
            paused = admin_room(srv, room)
            time.sleep(2.0)
            later = admin_room(srv, room)
            self.assertTrue(later["room"]["paused"])
            self.assertEqual(later["room"]["moves"], paused["room"]["moves"])
            self.assertEqual(later["state"], paused["state"])
            self.assertEqual(later["state"]["state"]["phase"], "playing")
            self.assertTrue([ln for ln in srv.lines if "game paused" in ln and room in ln],
                            srv.log())
            # Ann is back: the game goes on where it stood, the turn's start moved by the pause
            # (nobody's clock was charged for it), and the bots keep their pace.
            before = paused["state"]["state"]  # the document when it paused
            started = before["clock"]["turn_started"]
            a.request_ok("resume", "joined", room=room, token=token)
            back = time.monotonic()
            doc = a.wait_doc(lambda d: d["clock"]["turn_started"] >= started + 2000)
            self.assertFalse(admin_room(srv, room)["room"]["paused"])
            cur = doc["current"]
            self.assertEqual(doc["seats"][cur]["time_ms"], before["seats"][cur]["time_ms"])
            self.assertLess(time.time() * 1000 - doc["clock"]["turn_started"], 2000)
            a.drain()
            if cur == a.seat and a.wait_legal() is not None:
                self.assertEqual(a.request("play", **h.random_move(random.Random(8), a))["type"],
                                 "ack")
                back = time.monotonic()
            a.wait_for(bot_placed(a.seat), timeout=5)
            self.assertGreaterEqual(time.monotonic() - back, 0.25)  # bot-pace-ms 300
            self.assertEqual(a.doc["phase"], "playing")
            a.close()
        finally:
            self.assertEqual(srv.stop(), 0, srv.log())

    def test_games_left_to_bots_count_against_the_address(self):
        srv = h.Server(config=dict(ALONE, **{"lobby-rooms-per-ip": 1})).start()
        try:
            a = h.Client(srv, name="Ann")
            a.request_ok("create", "joined", name="Ann", seats=2)
            room, token = a.room, a.token
            a.send({"v": h.V, "type": "add_bot", "level": "greedy"})
            a.wait_doc(lambda d: all(s["taken"] for s in d["seats"]))
            a.send({"v": h.V, "type": "start"})
            a.wait_doc(lambda d: d["phase"] == "playing")
            b = h.Client(srv, name="Bob")  # the same address: Ann's game is played, not counted
            b.request_ok("create", "joined", name="Bob", seats=2)
            b.request_ok("leave", "left")
            a.request_ok("leave", "left")
            err = b.request("create", name="Bob", seats=2)
            self.assertEqual((err["type"], err["code"]), ("error", "too_many_rooms"), err)
            self.assertIn("games nobody is connected to", err["message"])
            test_errors.SEEN.add(err["code"])
            a.request_ok("resume", "joined", room=room, token=token)
            b.request_ok("create", "joined", name="Bob", seats=2)
            a.close()
            b.close()
        finally:
            self.assertEqual(srv.stop(), 0, srv.log())


class ClockAfterCrash(unittest.TestCase):
    def test_sigkill_does_not_charge_the_downtime(self):
        import tempfile
        data = tempfile.TemporaryDirectory(prefix="carcd-clock-")
        srv = h.Server(config=FAST, data_dir=data.name).start()
        try:
            a, b = h.create_room(srv, ["Ann", "Bob"],
                                 clock={"initial": 60, "increment": 5, "on_timeout": "bot"})
            room, tokens = a.room, [a.token, b.token]
            a.send({"v": h.V, "type": "start"})
            doc = a.wait_doc(lambda d: d["phase"] == "playing")
            cur = doc["current"]
            mover = a if cur == 0 else b
            mover.wait_doc(lambda d: d["phase"] == "playing")
            time.sleep(0.5)
            ack = mover.request("play", **h.random_move(random.Random(6), mover))
            self.assertEqual(ack["type"], "ack", ack)
            doc = mover.wait_seq(ack["seq"])
            left = doc["seats"][cur]["time_ms"]
            self.assertTrue(60000 < left <= 65000 - 500, left)  # charged, then the increment
            nxt = doc["current"]
            before = doc["seats"][nxt]["time_ms"]
            self.assertEqual(before, 60000)
            time.sleep(1.0)  # the next player's clock runs...
            srv.kill()       # ...when the server dies
            time.sleep(2.0)  # down for two seconds
            srv = h.Server(config=FAST, data_dir=data.name).start()
            restarted = time.time() * 1000
            c = h.Client(srv, name="back")
            c.request_ok("resume", "joined", room=room, token=tokens[nxt])
            st = c.wait_doc(lambda d: d["phase"] == "playing" and
                            d["clock"]["turn_started"] is not None)
            self.assertEqual(st["seats"][nxt]["time_ms"], before)  # the turn starts over
            self.assertTrue(c.wait_legal(), "no `legal` for the seat to move after its resume")
            self.assertEqual(st["seats"][cur]["time_ms"], left)
            self.assertGreaterEqual(st["clock"]["turn_started"], restarted - 1000)
            c.close()
        finally:
            srv.stop()
            data.cleanup()


if __name__ == "__main__":
    unittest.main()
