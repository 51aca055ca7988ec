"""Logs: part of the suite again against a carcd at log-level debug with log-format json, so
that run.py's check for secrets (harness.secret_problems) also reads the most verbose lines carcd
writes; every line of that carcd must be one JSON object with time, level and msg, and the
events about rooms, seats and codes must carry them as keys. The check itself can fail (a
planted token is found)."""

import json
import os
import re
import tempfile
import unittest

import harness as h
import test_errors
import test_games
import test_session

JSON_SERVER = None
TIME_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def setUpModule():
    global JSON_SERVER
    config = dict(h.LIMITS, **{"log-level": "debug", "log-format": "json"})
    JSON_SERVER = h.Server(config=config).start()
    JSON_SERVER.saved = h.shared_set(JSON_SERVER)


def tearDownModule():
    h.shared_set(JSON_SERVER.saved)
    status = JSON_SERVER.stop()
    if status != 0:
        raise AssertionError("the json/debug carcd exited with %s:\n%s"
                             % (status, JSON_SERVER.log(40)))
    problems = json_line_problems(JSON_SERVER.lines)
    if problems:
        raise AssertionError("json log lines:\n" + "\n".join(problems[:20]))


def json_line_problems(lines):
    """Every line but the startup line on stdout must be a JSON object with a valid time, a
    level and a msg; fields, when present, have their types."""
    problems = []
    for n, line in enumerate(lines, 1):
        if h.STARTUP_RE.search(line) and not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            problems.append("%d: not JSON (%s): %s" % (n, e, line[:200]))
            continue
        if not isinstance(obj, dict):
            problems.append("%d: not an object: %s" % (n, line[:200]))
            continue
        if not TIME_RE.match(str(obj.get("time"))):
            problems.append("%d: time: %s" % (n, line[:200]))
        if obj.get("level") not in ("error", "warn", "info", "debug"):
            problems.append("%d: level: %s" % (n, line[:200]))
        if not isinstance(obj.get("msg"), str):
            problems.append("%d: msg: %s" % (n, line[:200]))
        types = {"room": str, "code": str, "addr": str, "seat": int, "close": int, "session": int}
        for key, value in obj.items():
            if key in ("time", "level", "msg"):
                continue
            if key not in types or not isinstance(value, types[key]):
                problems.append("%d: key %s: %s" % (n, key, line[:200]))
    return problems


def events(server):
    """The JSON objects a server logged so far."""
    out = []
    for line in list(server.lines):
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


# Other modules' tests, run again against the json/debug server (h.shared() is it meanwhile).
class ErrorsLobbyJson(test_errors.Lobby):
    pass


class ErrorsMovesJson(test_errors.Moves):
    pass


class ResumeJson(test_session.Resume):
    pass


class TakeoverJson(test_session.Takeover):
    pass


class LeaveAndWatchJson(test_session.LeaveAndWatch):
    pass


class GamesJson(test_games.FullGames):
    """A whole two-player game with a spectator (the other games are the same at this level)."""
    test_all_sets_three_players = None
    test_all_sets_any_tile_escape_no_farmers = None


class Fields(unittest.TestCase):
    """What the json/debug server logged has the fields its events are about."""

    def test_room_seat_code(self):
        srv = h.shared()
        self.assertIs(srv, JSON_SERVER)
        p = h.create_room(srv, ["Ann", "Bob"], seats=3, password="field-test-pw")
        try:
            room = p[0].room
            with h.Client(srv) as c:
                r = c.request("join", room=room, name="Eve", password="wrong-field-pw")
                self.assertEqual(r.get("code"), "wrong_password")
                r = c.request("resume", room=room, token="f" * 32)
                self.assertEqual(r.get("code"), "bad_token")
            # A newer connection with Bob's token takes the seat over (close 4000).
            again = h.Client(srv, name="Bob again")
            again.request_ok("resume", "joined", room=room, token=p[1].token)
            with self.assertRaises(h.Closed) as cm:
                p[1].wait_for(lambda m: False, timeout=5)
            self.assertEqual(cm.exception.code, 4000)
            again.close()
        finally:
            for c in p:
                c.close()
        deadline = 50
        while deadline > 0:
            ev = events(srv)
            closed = [e for e in ev if e.get("msg") == "connection closed" and e.get("room") == room]
            if len(closed) >= 3:
                break
            deadline -= 1
            import time
            time.sleep(0.1)
        ev = events(srv)
        mine = [e for e in ev if e.get("room") == room]
        created = [e for e in mine if e["msg"] == "room created"]
        self.assertEqual(len(created), 1, mine)
        self.assertEqual(created[0].get("seat"), 0)
        self.assertEqual(created[0].get("addr"), "127.0.0.1")
        self.assertIsInstance(created[0].get("session"), int)
        taken = [e for e in mine if e["msg"] == "seat taken"]
        self.assertEqual([e.get("seat") for e in taken], [1])
        codes = {e.get("code") for e in ev if e["msg"] == "error reply"}
        self.assertIn("wrong_password", codes)
        self.assertIn("bad_token", codes)
        over = [e for e in mine if e.get("close") == 4000]
        self.assertEqual([e.get("seat") for e in over], [1], mine)
        self.assertTrue(any(e.get("close") == 4000 and e["msg"] == "connection closed" for e in ev))
        self.assertTrue(any(e["msg"].startswith("lws: ") and e["level"] == "debug" for e in ev),
                        "lws's own lines go through the formatter")
        self.assertEqual(json_line_problems(srv.lines), [])
        # None of these secrets in any line so far.
        leaks, _, _ = h.secret_problems({"field-test-pw", "wrong-field-pw", "f" * 32},
                                        [srv.log_path])
        self.assertEqual(leaks, [])


class SecretCheck(unittest.TestCase):
    """The end-of-suite check finds what it is there to find."""

    def test_planted_token_is_found(self):
        self.assertTrue(h.secret_self_check())

    def test_finds_each_secret_and_names_the_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.log")
            with open(path, "w") as f:
                f.write('{"msg":"join","password":"hunter22"}\n')
                f.write("carcd: info: nothing here\n")
                f.write("carcd: debug: resume with 00112233445566778899aabbccddeeff\n")
            found, checked, short = h.secret_problems(
                {"hunter22", "00112233445566778899aabbccddeeff", "pw"}, [path])
            self.assertEqual(checked, 2)
            self.assertEqual(short, ["pw"])
            self.assertEqual(len(found), 2, found)
            self.assertIn("x.log:1:", found[0])
            self.assertIn("x.log:3:", found[1])

    def test_suite_records_what_it_saw(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann"], seats=2, password="recorded-pw-1")
        try:
            self.assertIn(p[0].token, h.SECRETS)
            self.assertIn("recorded-pw-1", h.SECRETS)
            self.assertTrue(os.path.exists(srv.log_path))
        finally:
            p[0].close()
        s = h.Server(config=dict(h.LIMITS, **{"admin-token-example": "never-logged-1"}))
        self.assertIn("never-logged-1", h.SECRETS)
        del s
