"""clients/bot/pybot.py, the Python example bot, plays whole games against carc-bot and against
itself; its printed final scores equal carc-replay's on the stored game record (GET
/api/games/{room}), and the game is listed as finished. One game goes through its recovery
paths: a refused play (re-sync, retry) and a dropped connection (resume). Protocol v2: every
frame it sends carries "v": 2, and each of its plays is one of the placements of the last
`legal` it received for that turn. Offline: its JSON Patch on RFC 6902's examples, a seq gap
answered with `sync`, and plays only from a `legal` that is valid for its document."""

import argparse
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import harness as h

sys.path.insert(0, os.path.join(h.ROOT, "clients", "bot"))
import pybot  # noqa: E402

PYBOT = os.path.join(h.ROOT, "clients", "bot", "pybot.py")
CARC_BOT = os.path.join(h.BUILD, "carc-bot")
PYTHON = sys.executable or "/usr/bin/python3"
FINAL_RE = re.compile(r"^final scores: (.*) \(we are seat (\d+)\)$", re.M)


def http_json(srv, path, timeout=5.0):
    """GET path as JSON, retried for a moment while it is 404 (the record of a game that just
    ended)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(srv.http_url.rstrip("/") + path, timeout=10) as r:
                return json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            if e.code != 404 or time.monotonic() > deadline:
                raise AssertionError("GET %s: %d" % (path, e.code))
            time.sleep(0.05)


def read_line(proc, timeout=10.0):
    """The next stdout line of proc, within timeout."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError("no line from %s" % proc.args)
        r, _, _ = select.select([proc.stdout], [], [], left)
        if r:
            return proc.stdout.readline()


def parse_scores(text):
    """`Ann 61, Bot 74` -> [("Ann", 61), ("Bot", 74)]."""
    out = []
    for part in text.split(", "):
        name, _, score = part.rpartition(" ")
        out.append((name, int(score)))
    return out


class SentLog:
    """A stand-in for pybot's connection that keeps what the bot sends."""

    def __init__(self):
        self.sent = []

    def send(self, text):
        self.sent.append(json.loads(text))


class PyBot(unittest.TestCase):
    def spawn(self, args):
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(p)
        return p

    def setUp(self):
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.communicate()

    def play(self, sets, joiners, host_args=()):
        """A pybot hosts a room of 1 + len(joiners) seats; each joiner is "carc-bot" or
        "pybot". Returns (room, host's stdout, host's stderr, final scores as printed)."""
        srv = h.shared()
        seats = 1 + len(joiners)
        trace = tempfile.NamedTemporaryFile(mode="r", prefix="pybot-", suffix=".trace")
        self.addCleanup(trace.close)
        host = self.spawn([PYTHON, PYBOT, "--url", srv.ws_url, "--create", "--seats", str(seats),
                           "--sets", ",".join(sets), "--name", "PyHost", "--seed", "1",
                           "--trace", trace.name] + list(host_args))
        line = read_line(host)
        self.assertTrue(line.startswith("room "), repr(line))
        room = line.split()[1]
        for i, kind in enumerate(joiners, 1):
            if kind == "pybot":
                args = [PYTHON, PYBOT, "--seed", str(i), "--quiet"]
            else:
                args = [CARC_BOT, "--seed", str(i), "--quiet"]
            self.spawn(args + ["--url", srv.ws_url, "--room", room, "--name", "%s%d" % (kind, i)])
        outs = []
        for p in self.procs:
            out, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, "%s: %s" % (p.args[:2], err[-2000:]))
            outs.append((out, err))
        printed = []
        for out, _ in outs:
            m = FINAL_RE.search(out)
            self.assertIsNotNone(m, out[-500:])
            printed.append(m.group(1))
        self.assertEqual(len(set(printed)), 1, printed)  # every bot saw the same end
        scores = parse_scores(printed[0])
        # The stored record replays to the same final scores, with the same players.
        rec = http_json(srv, "/api/games/" + room)
        self.assertEqual(rec["sets"], sets)
        self.assertEqual([p["name"] for p in rec["players"]], [n for n, _ in scores])
        last = h.replay(rec)[-1]
        self.assertTrue(last.get("final"), last)
        self.assertEqual(last["scores"], [s for _, s in scores])
        # The game is over: listed as finished, with those scores.
        listing = http_json(srv, "/api/games?status=finished")
        mine = [g for g in listing["games"] if g["id"] == room]
        self.assertEqual(len(mine), 1, listing)
        self.assertEqual(mine[0]["status"], "finished")
        self.assertEqual(mine[0]["scores"], last["scores"])
        self.check_trace(trace, bad_plays=1 if "--bad-play" in host_args else 0)
        return room, outs[0][0], outs[0][1], scores

    def check_trace(self, trace, bad_plays=0):
        """Every frame the host sent validates against protocol/schema/client/ and carries
        "v": 2, every frame it received against protocol/schema/server/. Each `play` it sent
        (but the bad_plays deliberate ones, on 0,0) is a placement of the last `legal` it got,
        for that tile; no state document has `legal`."""
        sides = {">": "client", "<": "server"}
        n = plays = legals = 0
        last = None
        for line in trace:
            side, text = sides[line[0]], line[2:]
            msg = json.loads(text)
            h.secret_add(msg.get("token"))  # the host's seat token, for run.py's log check
            problem = h.SCHEMAS.check(side, msg)
            self.assertIsNone(problem, "%s: %s" % (problem, text[:300]))
            self.assertEqual(msg.get("v"), h.V, text[:300])
            n += 1
            if side == "server" and msg["type"] == "legal":
                legals += 1
                last = msg
            elif side == "server" and msg["type"] == "state":
                self.assertNotIn("legal", msg["state"])
            elif side == "client" and msg["type"] == "play":
                plays += 1
                if (msg["x"], msg["y"]) == (0, 0) and bad_plays > 0:
                    bad_plays -= 1
                    continue
                self.assertIsNotNone(last, "a play before any `legal`: %s" % text)
                self.assertEqual(msg["tile"], last["tile"], text)
                self.assertIn((msg["x"], msg["y"], msg["rot"]),
                              [(l["x"], l["y"], l["rot"]) for l in last["legal"]], text)
        self.assertGreater(n, 60)
        self.assertGreater(plays, 5)
        self.assertGreaterEqual(legals, plays - 1)

    def test_base_against_carc_bot(self):
        _, out, _, scores = self.play(["base"], ["carc-bot"], ["--quiet"])
        self.assertEqual([n for n, _ in scores], ["PyHost", "carc-bot1"])
        self.assertNotIn("turn ", out)  # --quiet

    def test_sets_three_players(self):
        sets = ["base", "inns-cathedrals", "besiegers", "apothecaries-tithes"]
        _, _, _, scores = self.play(sets, ["pybot", "carc-bot"], ["--quiet"])
        self.assertEqual(len(scores), 3)

    def test_refused_play_and_dropped_connection(self):
        """The 2nd play is illegal (refused: re-sync, retry); when the 4th is due the connection
        drops without a close frame (reconnect, resume with seq, carry on)."""
        _, out, err, _ = self.play(["base"], ["carc-bot"],
                                   ["--bad-play", "2", "--drop-at", "4"])
        self.assertIn("error position_taken", err)
        self.assertEqual(err.count("pybot: error"), 1, err)  # no other refusal
        self.assertIn("dropping the connection", out)
        self.assertIn("resume 1", out)

    def test_usage(self):
        p = subprocess.run([PYTHON, PYBOT, "--url", "ws://127.0.0.1:1/ws"], capture_output=True,
                           text=True, timeout=10)
        self.assertEqual(p.returncode, 2, p.stderr)
        p = subprocess.run([PYTHON, PYBOT, "--url", "ws://127.0.0.1:1/ws", "--room", "nope"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(p.returncode, 1, p.stderr)  # nothing listens there


class Offline(unittest.TestCase):
    """pybot's own pieces, without a server."""

    def test_apply_patch(self):
        cases = [  # RFC 6902 appendix A, and RFC 6901 escapes
            ({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}],
             {"foo": ["bar", "qux", "baz"]}),
            ({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc"]}],
             {"foo": ["bar", ["abc"]]}),
            ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
            ({"baz": "qux"}, [{"op": "replace", "path": "/baz", "value": "boo"}], {"baz": "boo"}),
            ({"foo": {"waldo": "fred"}, "qux": {}},
             [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
             {"foo": {}, "qux": {"thud": "fred"}}),
            ({"foo": ["all", "grass", "cows", "eat"]},
             [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
             {"foo": ["all", "cows", "eat", "grass"]}),
            ({"a/b": 1, "m~n": [2]}, [{"op": "test", "path": "/m~0n/0", "value": 2.0},
                                      {"op": "copy", "from": "/a~1b", "path": "/c"}],
             {"a/b": 1, "m~n": [2], "c": 1}),
            ({"a": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
        ]
        for doc, patch, want in cases:
            self.assertEqual(pybot.apply_patch(doc, patch), want, patch)
        refused = [
            ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": 1}]),
            ({"foo": [1]}, [{"op": "test", "path": "/foo/0", "value": True}]),
            ({"foo": [1]}, [{"op": "add", "path": "/foo/2", "value": 1}]),
            ({"foo": [1]}, [{"op": "remove", "path": "/foo/01"}]),
            ({"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a/c"}]),
            ({"a": 1}, [{"op": "replace", "path": "/b", "value": 1}]),
        ]
        for doc, patch in refused:
            with self.assertRaises(pybot.PatchError, msg=patch):
                pybot.apply_patch(doc, patch)

    def test_gap_sends_sync(self):
        bot = pybot.Bot(argparse.Namespace(seed=1, trace=None, room="r1", quiet=True,
                                           create=False, start_when=0, bad_play=0, drop_at=0,
                                           reconnect=3))
        bot.ws = SentLog()
        bot.seat = 1
        doc = {"phase": "playing", "current": 0, "n": 0}
        bot.handle({"type": "state", "seq": 5, "state": doc})

        def delta(seq):
            return {"type": "delta", "seq": seq, "events": [],
                    "patch": [{"op": "replace", "path": "/n", "value": seq}]}
        bot.handle(delta(7))  # 6 is missing
        bot.handle(delta(8))  # still missing: no second sync
        self.assertEqual([(m["type"], m.get("seq")) for m in bot.ws.sent], [("sync", 5)])
        for seq in (6, 7, 8):  # the answer
            bot.handle(delta(seq))
        bot.handle(delta(7))  # a duplicate is ignored
        self.assertEqual((bot.seq, bot.doc["n"]), (8, 8))
        bot.handle({"type": "delta", "seq": 9, "events": [],
                    "patch": [{"op": "remove", "path": "/nothing"}]})
        self.assertEqual(bot.ws.sent[-1]["type"], "sync")  # a bad patch: a fresh state
        self.assertNotIn("seq", bot.ws.sent[-1])


    def test_plays_only_from_a_valid_legal(self):
        bot = pybot.Bot(argparse.Namespace(seed=1, trace=None, room="r1", quiet=True,
                                           create=False, start_when=0, bad_play=0, drop_at=0,
                                           reconnect=3))
        bot.ws = SentLog()
        bot.seat = 1
        seat = {"name": "PyBot", "meeples": 0, "large": 0}
        doc = {"phase": "playing", "turn": 4, "current": 1, "tile": "BA.U", "seats": [seat, seat]}
        place = {"x": 1, "y": 0, "rot": 90, "meeples": [], "escapes": []}

        def plays():
            return [m for m in bot.ws.sent if m["type"] == "play"]
        bot.handle({"v": 2, "type": "state", "seq": 5, "state": doc})
        self.assertEqual(plays(), [], "a play without a `legal`")
        # Another seat's list, or one for another turn or tile: not ours to use.
        for stale in ({"turn": 3, "player": 1, "tile": "BA.U"},
                      {"turn": 4, "player": 1, "tile": "BA.V"},
                      {"turn": 4, "player": 0, "tile": "BA.U"}):
            bot.handle(dict({"v": 2, "type": "legal", "seq": 5, "legal": [place]}, **stale))
            self.assertEqual(plays(), [], stale)
        bot.handle({"v": 2, "type": "legal", "seq": 5, "turn": 4, "player": 1, "tile": "BA.U",
                    "legal": [place]})
        self.assertEqual(plays(), [{"v": 2, "type": "play", "id": plays()[0]["id"],
                                    "tile": "BA.U", "x": 1, "y": 0, "rot": 90, "meeple": None,
                                    "escape": None}])
        # Its ack, and the next turn (another seat's, then ours): no play until its `legal`.
        bot.handle({"v": 2, "type": "ack", "ref": plays()[0]["id"], "seq": 6})
        bot.handle({"v": 2, "type": "delta", "seq": 6, "events": [],
                    "patch": [{"op": "replace", "path": "/turn", "value": 5},
                              {"op": "replace", "path": "/current", "value": 0}]})
        bot.handle({"v": 2, "type": "delta", "seq": 7, "events": [],
                    "patch": [{"op": "replace", "path": "/turn", "value": 6},
                              {"op": "replace", "path": "/current", "value": 1},
                              {"op": "replace", "path": "/tile", "value": "BA.E"}]})
        self.assertEqual(len(plays()), 1)
        bot.handle({"v": 2, "type": "legal", "seq": 7, "turn": 6, "player": 1, "tile": "BA.E",
                    "legal": [dict(place, x=0, y=-1, rot=180)]})
        self.assertEqual([(m["tile"], m["x"], m["y"], m["rot"]) for m in plays()],
                         [("BA.U", 1, 0, 90), ("BA.E", 0, -1, 180)])
        self.assertTrue(all(m["v"] == 2 for m in bot.ws.sent))


if __name__ == "__main__":
    unittest.main()
