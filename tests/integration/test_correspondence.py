"""Correspondence clocks (PROTOCOL.md "Clocks and bots", issue 28) on a carcd whose clocks the
test moves (`test-clock`, `POST /admin/clock?seconds=N`): a day per move with the weekend pause in
Asia/Tokyo, started on a Friday 19:00 UTC, which is already Saturday in Tokyo. The deadlines the
state shows are the ones Python's zoneinfo (the same tz database, read by other code) gives; a
move gives the next seat a whole day; carcd is SIGKILLed and restarted two days later (a
Sunday evening in UTC, Monday morning in Tokyo): the turn goes on from its stored start, the
hours of Monday morning charged and the week end not; the seat's time runs out at its
deadline, not before (skip). On SQLite and on PostgreSQL (pg_util)."""

import datetime
import http.client
import random
import tempfile
import time
import unittest
import zoneinfo

import harness as h
import pg_util
from test_accounts import CONFIG as ACCOUNTS, call, session_of
from test_seat_accounts import WithCookie

TOKEN = "adm-corr-5b1e0c7d"
DAY = 86400
ZONE = "Asia/Tokyo"
CONFIG = dict(ACCOUNTS, **{"admin-token": TOKEN})
h.secret_add(TOKEN)


def next_friday_1900z(after):
    """The first Friday 19:00 UTC at least a day after `after` (a datetime, UTC)."""
    t = (after + datetime.timedelta(days=1)).replace(hour=19, minute=0, second=0, microsecond=0)
    while t.weekday() != 4 or t < after + datetime.timedelta(days=1):
        t += datetime.timedelta(days=1)
    return t


def deadline(start_ms, seconds, zone=ZONE):
    """When `seconds` of time outside week ends (Saturday and Sunday in zone) have passed
    since start_ms, counted minute by minute with zoneinfo (ms since 1970)."""
    tz = zoneinfo.ZoneInfo(zone)
    t = start_ms
    left = seconds * 1000
    while left > 0:
        local = datetime.datetime.fromtimestamp(t / 1000, tz)
        step = min(60000 - t % 60000, left)
        if local.weekday() < 5:
            left -= step
        t += step
    return t


def admin_advance(srv, seconds):
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    try:
        c.request("POST", "/admin/clock?seconds=%d" % seconds,
                  headers={"Authorization": "Bearer " + TOKEN})
        r = c.getresponse()
        return r.status, r.read().decode()
    finally:
        c.close()


class Correspondence(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="carcd-corr-")
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            if s.alive():
                s.stop()
        self.tmp.cleanup()

    def start(self, ahead_s):
        return self.start_with({}, ahead_s)

    def test_refused_without_test_clock(self):
        srv = h.Server(CONFIG).start()
        self.servers.append(srv)
        status, body = admin_advance(srv, 60)
        self.assertEqual(status, 404, body)

    def test_day_per_move_weekend_and_restart(self):
        now = datetime.datetime.now(datetime.timezone.utc)
        friday = next_friday_1900z(now)
        ahead = int((friday - now).total_seconds())
        srv = self.start(ahead)
        a = h.Client(srv, name="a")
        b = h.Client(srv, name="b")
        server_now = a.welcome["time"]
        self.assertLess(abs(server_now - friday.timestamp() * 1000), 60000)
        clock = {"per_move": DAY, "on_timeout": "skip", "weekend_pause": True,
                 "time_zone": ZONE}
        j = a.request_ok("create", "joined", name="Ann", seats=2, clock=clock)
        room = j["room"]
        a.wait_type("state")
        jb = b.request_ok("join", "joined", room=room, name="Bob")
        b.wait_type("state")
        a.send({"v": h.V, "type": "start"})
        doc = a.wait_doc(lambda d: d["phase"] == "playing" and d["clock"]["turn_started"])
        c = doc["clock"]
        self.assertEqual((c["per_move"], c["initial"], c["increment"], c["weekend_pause"],
                          c["time_zone"]), (DAY, DAY, 0, True, ZONE))
        # Friday 19:00 UTC is Saturday 04:00 in Tokyo: the day counts from Monday 00:00 there.
        self.assertEqual(c["deadline"], deadline(c["turn_started"], DAY))
        self.assertEqual(datetime.datetime.fromtimestamp(
            c["deadline"] / 1000, zoneinfo.ZoneInfo(ZONE)).weekday(), 1)  # Tuesday
        mover = a if doc["current"] == a.seat else b
        other = b if mover is a else a
        self.assertIsNotNone(mover.wait_legal())
        r = mover.request("play", **h.random_move(random.Random(3), mover))
        self.assertEqual(r.get("type"), "ack", r)
        doc = other.wait_doc(lambda d: d["current"] == other.seat)
        started = doc["clock"]["turn_started"]
        self.assertEqual(doc["seats"][other.seat]["time_ms"], DAY * 1000)
        self.assertEqual(doc["clock"]["deadline"], deadline(started, DAY))
        a.close()
        b.close()

        # A crash, and the server is back two days later: Sunday 19:00 UTC, Monday 04:00 in
        # Tokyo. The four hours of Monday are charged, the week end is not.
        srv.kill()
        srv = self.start(ahead + 2 * DAY)
        c2 = h.Client(srv, name="back")
        c2.request_ok("resume", "joined", room=room,
                      token=j["token"] if other is a else jb["token"])
        c2.wait_type("state")
        doc = c2.doc
        self.assertEqual(doc["current"], other.seat)
        back_now = c2.welcome["time"]
        charged = DAY * 1000 - doc["seats"][other.seat]["time_ms"]
        # What zoneinfo counts between the stored start and the restart (Monday in Tokyo).
        tz = zoneinfo.ZoneInfo(ZONE)
        counted = 0
        t = started
        while t < back_now:
            step = min(60000 - t % 60000, back_now - t)
            if datetime.datetime.fromtimestamp(t / 1000, tz).weekday() < 5:
                counted += step
            t += step
        self.assertLess(abs(charged - counted), 5000, (charged, counted))
        self.assertGreater(charged, 3 * 3600 * 1000)
        self.assertLess(abs(doc["clock"]["deadline"] - deadline(started, DAY)), 5000)

        # Up to a minute before the deadline: still that seat's turn; past it: skipped (the
        # tile under the pile, nothing placed). Connections idle for the hours the clocks
        # jumped are closed (4002): a fresh spectator reads the room each time.
        c2.close()
        board = len(doc["board"])
        left = doc["clock"]["deadline"] - back_now
        status, body = admin_advance(srv, left // 1000 - 60)
        self.assertEqual(status, 200, body)
        time.sleep(0.5)
        self.assertEqual(h.fresh_state(srv, room)[1]["current"], other.seat)
        status, body = admin_advance(srv, 120)
        self.assertEqual(status, 200, body)
        time.sleep(0.5)
        doc = h.fresh_state(srv, room)[1]
        self.assertNotEqual(doc["current"], other.seat)
        self.assertEqual(len(doc["board"]), board)
        self.assertEqual(doc["seats"][other.seat]["time_ms"], DAY * 1000)
        self.assertEqual(srv.stop(), 0)


    def signup(self, srv, name):
        pw = "pw-%s-long-enough" % name
        h.secret_add(pw)
        s, hd, doc = call(srv, "POST", "/api/account", {"name": name, "password": pw})
        self.assertEqual(s, 201, doc)
        token, _ = session_of(hd)
        h.secret_add(token)
        return token, doc["csrf"]

    def bank(self, srv, cookie):
        s, _, doc = call(srv, "GET", "/api/me/vacation", cookie=cookie)
        self.assertEqual(s, 200, doc)
        return doc

    def test_vacation_by_hand_and_when_the_clock_runs_out(self):
        """vacation-days 3: Ann takes 2 days by hand (4 refused), ends them half a day in
        (one back); her day-per-move clock stops meanwhile; later it runs out twice and a
        day is taken each time (the bank then empty, across a restart), and the third time
        the clock's end stands (skip)."""
        srv = self.start_with({"vacation-days": "3"}, 0)
        ann, ann_csrf = self.signup(srv, "ann%d" % (int(time.time() * 1000) % 100000))
        hd = {"X-CSRF-Token": ann_csrf}
        s, _, doc = call(srv, "GET", "/api/me/vacation")
        self.assertEqual(s, 401, doc)
        bank = self.bank(srv, ann)
        self.assertEqual((bank["days_per_year"], bank["days_left"], bank["until"]), (3, 3, None))
        s, _, doc = call(srv, "POST", "/api/me/vacation", {"days": 2}, cookie=ann)
        self.assertEqual((s, doc["error"]), (403, "csrf"), doc)
        s, _, doc = call(srv, "POST", "/api/me/vacation", {"days": 0}, cookie=ann, headers=hd)
        self.assertEqual((s, doc["error"]), (400, "bad_request"), doc)
        s, _, doc = call(srv, "POST", "/api/me/vacation", {"days": 4}, cookie=ann, headers=hd)
        self.assertEqual((s, doc["error"]), (409, "not_enough_days"), doc)
        self.assertEqual(self.bank(srv, ann)["days_left"], 3)

        a = h.Client(WithCookie(srv, ann), name="a")
        b = h.Client(srv, name="b")
        clock = {"per_move": DAY, "on_timeout": "skip"}
        j = a.request_ok("create", "joined", name="Ann", seats=2, clock=clock)
        room = j["room"]
        a.wait_type("state")
        b.request_ok("join", "joined", room=room, name="Bob")
        a.send({"v": h.V, "type": "start"})
        doc = a.wait_doc(lambda d: d["phase"] == "playing" and d["clock"]["deadline"])
        if doc["current"] != a.seat:  # Bob moves first: his move, then Ann's turn
            self.assertIsNotNone(b.wait_legal())
            self.assertEqual(b.request("play", **h.random_move(random.Random(5), b))["type"],
                             "ack")
            doc = a.wait_doc(lambda d: d["current"] == a.seat)
        deadline = doc["clock"]["deadline"]
        s, _, v = call(srv, "POST", "/api/me/vacation", {"days": 2}, cookie=ann, headers=hd)
        self.assertEqual(s, 200, v)
        self.assertEqual(v["days_left"], 1)
        self.assertLess(abs(v["until"] - v["from"] - 2 * DAY * 1000), 1000)
        # The room learns it at once: Ann's deadline moves by what is left of the vacation.
        doc = a.wait_doc(lambda d: d["clock"]["deadline"] != deadline)
        self.assertLess(abs(doc["clock"]["deadline"] - (deadline + 2 * DAY * 1000)), 2000)
        a.close()
        b.close()
        # Half a day in, ended: the day begun is spent, the whole one after it comes back.
        admin_advance(srv, DAY // 2)
        s, _, v = call(srv, "DELETE", "/api/me/vacation", cookie=ann, headers=hd)
        self.assertEqual(s, 200, v)
        self.assertEqual((v["days_left"], v["until"]), (2, None))
        s, _, v = call(srv, "DELETE", "/api/me/vacation", cookie=ann, headers=hd)
        self.assertEqual((s, v["error"]), (404, "no_vacation"))
        doc = h.fresh_state(srv, room)[1]
        self.assertEqual(doc["current"], j["seat"])
        # Her clock stood still for the half day of vacation: its deadline moved by that.
        self.assertLess(abs(doc["clock"]["deadline"] - (deadline + DAY * 500)), 5000)

        # Now let it run out: a day is taken (one left), then, after a restart, another
        # (none left), then the clock's end stands.
        left = (doc["clock"]["deadline"] - srv_now(srv)) // 1000
        admin_advance(srv, left + 5)
        time.sleep(1.0)
        self.assertEqual(self.bank(srv, ann)["days_left"], 1)
        doc = h.fresh_state(srv, room)[1]
        self.assertEqual(doc["current"], j["seat"])
        offset = srv_offset(srv)
        srv.kill()
        srv = self.start_with({"vacation-days": "3"}, offset // 1000)
        admin_advance(srv, DAY + 5)
        time.sleep(1.0)
        self.assertEqual(self.bank(srv, ann)["days_left"], 0)
        self.assertEqual(h.fresh_state(srv, room)[1]["current"], j["seat"])
        admin_advance(srv, DAY + 5)
        time.sleep(1.0)
        doc = h.fresh_state(srv, room)[1]
        self.assertNotEqual(doc["current"], j["seat"])
        self.assertTrue(any("a vacation day taken" in l for l in srv.lines))
        self.assertEqual(srv.stop(), 0)

    def start_with(self, config, ahead_s):
        srv = h.Server(dict(CONFIG, **config, **{"test-clock": str(ahead_s)}),
                       data_dir=self.tmp.name)
        self.servers.append(srv.start())
        return srv


def srv_now(srv):
    c = h.Client(srv, name="now")
    try:
        return c.welcome["time"]
    finally:
        c.close()


def srv_offset(srv):
    """The test clock's offset now (ms), as POST /admin/clock?seconds=0 reports it."""
    import json
    status, body = admin_advance(srv, 0)
    assert status == 200, body
    return json.loads(body)["offset_ms"]


@unittest.skipUnless(pg_util.available(), "no PostgreSQL server binaries")
class CorrespondencePg(Correspondence):
    @classmethod
    def setUpClass(cls):
        h.PG_URL_FOR = pg_util.shared().database_for

    @classmethod
    def tearDownClass(cls):
        h.PG_URL_FOR = None


if __name__ == "__main__":
    unittest.main()
