"""Web Push's HTTP side (PROTOCOL.md "Notifications"): GET /api/push/key gives carcd's VAPID
public key (65 bytes of an uncompressed P-256 point, base64url), made at the first start in
the data directory (mode 0600) and the same after a restart, or read from `vapid-key-file`;
POST /api/push/subscriptions keeps a browser's PushSubscription for the signed-in account and
DELETE removes it, with the Origin and CSRF checks of the other account routes; bad bodies and
bad subscriptions are 400 and change nothing; without storage every route is 404 push_off. On
SQLite and a real PostgreSQL (pg_util)."""

import base64
import json
import os
import random
import shutil
import stat
import subprocess
import tempfile
import time
import unittest

import harness as h
import pg_util
from test_accounts import CONFIG, call, session_of
from test_seat_accounts import WithCookie

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)

# A real subscription's keys: a P-256 point and 16 bytes (what a browser's toJSON() gives).
P256DH = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
AUTH = "BTBZMqHH6r4Tts7J_aSIgg"


def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def subscription(endpoint, p256dh=P256DH, auth=AUTH):
    return {"endpoint": endpoint, "expirationTime": None, "keys": {"p256dh": p256dh, "auth": auth}}


class PushRoutes(unittest.TestCase):
    pg = None

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carcd-push-")
        self.servers = []
        h.PG_URL_FOR = self.pg.database_for if self.pg is not None else None

    def tearDown(self):
        for s in self.servers:
            if s.alive():
                s.kill()
        h.PG_URL_FOR = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, config=None, data_dir=None):
        srv = h.Server(dict(CONFIG, **(config or {})), data_dir=data_dir).start()
        self.servers.append(srv)
        return srv

    def signup(self, srv, name):
        pw = "pw-%s-long-enough" % name
        h.secret_add(pw)
        s, hd, doc = call(srv, "POST", "/api/account", {"name": name, "password": pw})
        self.assertEqual(s, 201, doc)
        token, _ = session_of(hd)
        h.secret_add(token)
        return token, doc["csrf"]

    def key(self, srv):
        s, hd, doc = call(srv, "GET", "/api/push/key", origin=False)
        self.assertEqual(s, 200, doc)
        k = doc["key"]
        self.assertEqual(len(k), 87)
        raw = b64d(k)
        self.assertEqual((len(raw), raw[0]), (65, 4))
        return k

    def test_key_made_once_and_kept(self):
        data = os.path.join(self.dir, "data")
        os.makedirs(data)
        srv = self.start(data_dir=data)
        k1 = self.key(srv)
        path = os.path.join(data, "vapid.pem")
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        # The file is a P-256 key whose public point is the one served.
        out = subprocess.run(["openssl", "pkey", "-in", path, "-pubout", "-outform", "DER"],
                             capture_output=True, check=True).stdout
        self.assertTrue(out.endswith(b64d(k1)), "the served key is not the file's")
        srv.stop()
        srv2 = self.start(data_dir=data)
        self.assertEqual(self.key(srv2), k1)
        # A key given by the configuration (a cluster's shared one) is used instead.
        other = os.path.join(self.dir, "shared.pem")
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt",
                        "ec_paramgen_curve:P-256", "-out", other], check=True, capture_output=True)
        srv2.stop()
        srv3 = self.start({"vapid-key-file": other}, data_dir=data)
        self.assertNotEqual(self.key(srv3), k1)

    def test_subscriptions(self):
        srv = self.start()
        token, csrf = self.signup(srv, "Pia%d" % (int(time.time() * 1000) % 100000))
        ep = "https://push.example.net/send/abc123"
        path = "/api/push/subscriptions"
        hd = {"X-CSRF-Token": csrf}
        s, _, doc = call(srv, "POST", path, subscription(ep))  # a guest
        self.assertEqual((s, doc["error"]), (401, "not_signed_in"))
        s, _, doc = call(srv, "POST", path, subscription(ep), cookie=token)  # no CSRF token
        self.assertEqual((s, doc["error"]), (403, "csrf"))
        s, _, doc = call(srv, "POST", path, subscription(ep), cookie=token, headers=hd,
                         origin=False)
        self.assertEqual((s, doc["error"]), (403, "origin"))
        s, _, doc = call(srv, "POST", path, subscription(ep), cookie=token,
                         headers=dict(hd, Origin="http://evil.example"))
        self.assertEqual((s, doc["error"]), (403, "origin"))
        bad = [({"endpoint": ep}, "keys"),
               (dict(subscription(ep), extra=1), "only endpoint"),
               ({"endpoint": ep, "keys": {"p256dh": P256DH}}, "keys.auth"),
               ([1, 2], "object")]
        for body, word in bad:
            s, _, doc = call(srv, "POST", path, body, cookie=token, headers=hd)
            self.assertEqual((s, doc["error"]), (400, "bad_request"), (body, doc))
            self.assertIn(word, doc["message"])
        for sub, word in [(subscription("http://push.example.net/x"), "endpoint"),
                          (subscription(ep, p256dh=P256DH[:-4] + "AAAA"), "p256dh"),
                          (subscription(ep, auth="AAAA"), "auth")]:
            s, _, doc = call(srv, "POST", path, sub, cookie=token, headers=hd)
            self.assertEqual((s, doc["error"]), (400, "bad_subscription"), (sub, doc))
            self.assertIn(word, doc["message"])
        # Nothing was kept: deleting it finds nothing.
        s, _, doc = call(srv, "DELETE", path, {"endpoint": ep}, cookie=token, headers=hd)
        self.assertEqual((s, doc["error"]), (404, "no_such_subscription"))
        s, hd2, doc = call(srv, "POST", path, subscription(ep), cookie=token, headers=hd)
        self.assertEqual(s, 204, doc)
        self.assertEqual(hd2.get("cache-control"), "no-store")
        s, _, doc = call(srv, "POST", path, subscription(ep), cookie=token, headers=hd)
        self.assertEqual(s, 204, doc)  # again: replaced, not doubled
        # Another account cannot remove it; its own can, once.
        t2, c2 = self.signup(srv, "Quil%d" % (int(time.time() * 1000) % 100000))
        s, _, doc = call(srv, "DELETE", path, {"endpoint": ep}, cookie=t2,
                         headers={"X-CSRF-Token": c2})
        self.assertEqual((s, doc["error"]), (404, "no_such_subscription"))
        s, _, doc = call(srv, "DELETE", path, {"endpoint": ep}, cookie=token, headers=hd)
        self.assertEqual(s, 204, doc)
        s, _, doc = call(srv, "DELETE", path, {"endpoint": ep}, cookie=token, headers=hd)
        self.assertEqual(s, 404, doc)
        s, _, doc = call(srv, "GET", path, cookie=token, origin=False)
        self.assertEqual(s, 405, doc)

    def test_push_tests_off(self):
        if self.pg is not None:
            return
        srv = self.start({"push-tests": 0})
        token, csrf = self.signup(srv, "Tof%d" % (int(time.time() * 1000) % 100000))
        s, _, doc = call(srv, "POST", "/api/push/test", cookie=token,
                         headers={"X-CSRF-Token": csrf})
        self.assertEqual((s, doc["error"]), (403, "push_tests_off"), doc)

    def test_push_off_without_storage(self):
        if self.pg is not None:
            return  # no storage is no storage: once is enough
        srv = self.start({"storage": "off"})
        for method, path in (("GET", "/api/push/key"), ("POST", "/api/push/subscriptions"),
                             ("POST", "/api/push/test")):
            s, _, doc = call(srv, method, path, subscription("https://x/y")
                             if path == "/api/push/subscriptions" else None,
                             origin=method == "POST")
            self.assertEqual((s, doc["error"]), (404, "push_off"), (method, doc))


class PushService:
    """tests/push_service.py (HTTPS, its own certificate), holding one subscription's keys."""

    def __init__(self, folder):
        self.cert = os.path.join(folder, "cert.pem")
        self.key = os.path.join(folder, "key.pem")
        self.log = os.path.join(folder, "push.log")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", self.key, "-out",
                        self.cert, "-days", "1", "-subj", "/CN=localhost", "-addext",
                        "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                       check=True, capture_output=True)
        self.proc = subprocess.Popen(["/usr/bin/python3", os.path.join(TESTS, "push_service.py"),
                                      self.cert, self.key, self.log], stdout=subprocess.PIPE,
                                     text=True)
        port, self.p256dh, self.auth = self.proc.stdout.readline().split()
        self.port = int(port)

    def endpoint(self, name):
        return "https://127.0.0.1:%d/push/%s" % (self.port, name)

    def received(self, name, count=1, timeout=20):
        """The log entries of pushes to endpoint name, once there are count of them."""
        deadline = time.monotonic() + timeout
        while True:
            got = []
            if os.path.exists(self.log):
                with open(self.log) as f:
                    got = [json.loads(line) for line in f if line.strip()]
            got = [g for g in got if g["path"] == "/push/" + name]
            if len(got) >= count:
                return got
            if time.monotonic() > deadline:
                raise AssertionError("no push to %s within %d s: %s" % (name, timeout, got))
            time.sleep(0.1)

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class PushDelivery(unittest.TestCase):
    """carcd pushes "your turn" (PROTOCOL.md "Notifications") to the local push service."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="carcd-push-delivery-")
        cls.svc = PushService(cls.dir)
        cls.srv = h.Server(dict(CONFIG, **{"outbound-ca-file": cls.svc.cert,
                                           "outbound-private": "on",
                                           "push-contact": "mailto:ops@carcd.test",
                                           "bot-pace-ms": 1500,
                                           "takeover-grace": 600,
                                           "bots-alone-grace": 600,
                                           "push-tests": 2})).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.svc.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    signup = PushRoutes.signup

    def test_test_notice(self):
        """POST /api/push/test: the documented `test` payload to each of the account's
        subscriptions, verified and decrypted as a browser would; the route's checks, and the
        account's push-tests an hour (2 here)."""
        token, csrf = self.signup(self.srv, "Tes%d" % (int(time.time() * 1000) % 100000))
        path, hd = "/api/push/test", {"X-CSRF-Token": csrf}
        s, _, doc = call(self.srv, "POST", path)  # a guest
        self.assertEqual((s, doc["error"]), (401, "not_signed_in"))
        s, _, doc = call(self.srv, "POST", path, cookie=token)  # no CSRF token
        self.assertEqual((s, doc["error"]), (403, "csrf"))
        s, _, doc = call(self.srv, "POST", path, cookie=token, headers=hd, origin=False)
        self.assertEqual((s, doc["error"]), (403, "origin"))
        s, _, doc = call(self.srv, "GET", path, cookie=token, origin=False)
        self.assertEqual((s, doc["error"]), (405, "method"))
        # No subscription yet: nothing to test (and a try counted).
        s, _, doc = call(self.srv, "POST", path, cookie=token, headers=hd)
        self.assertEqual((s, doc["error"]), (404, "no_subscription"), doc)
        self.subscribe(token, csrf, "tester")
        s, hd2, doc = call(self.srv, "POST", path, cookie=token, headers=hd)
        self.assertEqual((s, doc), (202, {"pushes": 1}))
        self.assertEqual(hd2.get("cache-control"), "no-store")
        got = self.svc.received("tester")[0]
        self.assertEqual((got["vapid"], got["error"], got["encoding"]), ("ok", None, "aes128gcm"))
        _, _, key = call(self.srv, "GET", "/api/push/key", origin=False)
        self.assertEqual(got["key"], key["key"])
        self.assertEqual(json.loads(got["payload"]),
                         {"v": 1, "type": "test", "url": "/", "title": "Test notification",
                          "body": "Notifications from carcd reach this device"})
        # The third test within the hour is refused, with when to retry; nothing is sent.
        s, hd3, doc = call(self.srv, "POST", path, cookie=token, headers=hd)
        self.assertEqual((s, doc["error"]), (429, "rate_limited"), doc)
        self.assertGreater(int(hd3["retry-after"]), 3500)
        self.assertLessEqual(int(hd3["retry-after"]), 3600)
        time.sleep(0.5)
        self.assertEqual(len(self.svc.received("tester")), 1)
        # Another account has a count of its own.
        t2, c2 = self.signup(self.srv, "Tet%d" % (int(time.time() * 1000) % 100000))
        s, _, doc = call(self.srv, "POST", path, cookie=t2, headers={"X-CSRF-Token": c2})
        self.assertEqual((s, doc["error"]), (404, "no_subscription"), doc)

    def subscribe(self, token, csrf, name):
        s, _, doc = call(self.srv, "POST", "/api/push/subscriptions",
                         subscription(self.svc.endpoint(name), self.svc.p256dh, self.svc.auth),
                         cookie=token, headers={"X-CSRF-Token": csrf})
        self.assertEqual(s, 204, doc)

    def away_on_my_turn(self, token, name):
        """A room of the account against a bot; it plays once, then leaves the page: the bot
        moves and the turn comes back to a player with no connection. The room's id."""
        a = h.Client(WithCookie(self.srv, token), name="a", timeout=30)
        j = a.request_ok("create", "joined", name="X", seats=2)
        h.secret_add(j["token"])
        a.room, a.seat = j["room"], j["seat"]
        a.wait_type("state")
        a.send({"v": h.V, "type": "add_bot", "level": "random"})
        a.wait_doc(lambda d: d["seats"][1]["bot"] is not None)
        a.send({"v": h.V, "type": "start"})
        doc = a.wait_doc(lambda d: d["phase"] == "playing" and d["current"] == a.seat)
        self.assertIsNotNone(a.wait_legal())
        r = a.request("play", **h.random_move(random.Random(7), a))
        self.assertEqual(r.get("type"), "ack", r)
        a.close()  # a bot's turn lasts 1.5 s (bot-pace-ms): gone before the turn is back
        return doc["room"] if "room" in doc else a.room

    def test_your_turn_delivered(self):
        name = "Ula%d" % (int(time.time() * 1000) % 100000)
        token, csrf = self.signup(self.srv, name)
        self.subscribe(token, csrf, "ula")
        room = self.away_on_my_turn(token, name)
        got = self.svc.received("ula")[0]
        self.assertEqual(got["vapid"], "ok", got)
        self.assertEqual(got["error"], None, got)
        self.assertEqual(got["encoding"], "aes128gcm")
        self.assertEqual(got["urgency"], "high")
        self.assertEqual(int(got["ttl"]), 86400)
        self.assertEqual(got["sub"], "mailto:ops@carcd.test")
        self.assertEqual(got["aud"], "https://127.0.0.1:%d" % self.svc.port)
        _, _, key = call(self.srv, "GET", "/api/push/key", origin=False)
        self.assertEqual(got["key"], key["key"])
        p = json.loads(got["payload"])
        self.assertEqual((p["v"], p["type"], p["room"], p["url"]),
                         (1, "your_turn", room, "/#room=" + room), p)
        self.assertEqual(p["seat"], 0)
        self.assertEqual(p["players"][0], name)
        self.assertIsNone(p["deadline"])  # no clock
        self.assertIn(room, p["body"])
        # Told once: nothing more while the turn waits.
        time.sleep(1.5)
        self.assertEqual(len(self.svc.received("ula")), 1)

    def test_game_over_and_rematch_delivered(self):
        """Bob leaves a game against Ann (a bot plays his seat), Ann plays it to its end: Bob's
        device gets `game_over` (his rank and the scores, the replay's link); Ann offers a
        rematch: it gets `rematch` with the new room. Ann, connected, gets neither."""
        srv = h.Server(dict(CONFIG, **{"outbound-ca-file": self.svc.cert,
                                       "outbound-private": "on", "bot-pace-ms": 0,
                                       "bot-think-ms": 50})).start()
        try:
            self.run_over_and_rematch(srv)
        finally:
            srv.stop()

    def run_over_and_rematch(self, srv):
        stamp = int(time.time() * 1000) % 100000
        ann, ann_csrf = self.signup(srv, "Ann%d" % stamp)
        bob, bob_csrf = self.signup(srv, "Bob%d" % stamp)
        for token, csrf, name in ((ann, ann_csrf, "over-ann"), (bob, bob_csrf, "over-bob")):
            s, _, doc = call(srv, "POST", "/api/push/subscriptions",
                             subscription(self.svc.endpoint(name), self.svc.p256dh,
                                          self.svc.auth),
                             cookie=token, headers={"X-CSRF-Token": csrf})
            self.assertEqual(s, 204, doc)
        a = h.Client(WithCookie(srv, ann), name="a", timeout=30)
        b = h.Client(WithCookie(srv, bob), name="b", timeout=30)
        j = a.request_ok("create", "joined", name="X", seats=2)
        a.room, a.seat = j["room"], j["seat"]
        a.wait_type("state")
        bob_seat = b.request_ok("join", "joined", room=j["room"], name="Y")["seat"]
        a.send({"v": h.V, "type": "start"})
        b.wait_doc(lambda d: d["phase"] == "playing")
        b.request_ok("leave", "left")
        b.close()
        rng = random.Random(3)
        while True:
            doc = a.wait_doc(lambda d: d["phase"] == "over" or d["current"] == a.seat)
            if doc["phase"] == "over":
                break
            if a.wait_legal() is None:
                continue
            self.assertEqual(a.request("play", **h.random_move(rng, a)).get("type"), "ack")
        got = [json.loads(g["payload"]) for g in self.svc.received("over-bob")]
        over = [p for p in got if p["type"] == "game_over"]
        self.assertEqual(len(over), 1, got)
        p = over[0]
        scores = [s["score"] for s in doc["seats"]]
        self.assertEqual((p["room"], p["url"], p["seat"], p["scores"]),
                         (j["room"], "/#replay=" + j["room"], bob_seat, scores), p)
        self.assertEqual(p["rank"], 1 + sum(s > scores[bob_seat] for s in scores))
        r = a.request_ok("rematch", "joined")
        new = r["room"]
        self.assertNotEqual(new, j["room"])
        got = [json.loads(g["payload"]) for g in self.svc.received("over-bob", count=2)]
        rematch = [p for p in got if p["type"] == "rematch"]
        self.assertEqual(len(rematch), 1, got)
        p = rematch[0]
        self.assertEqual((p["room"], p["url"], p["seat"], p["from"]),
                         (new, "/#room=" + new, bob_seat, j["seat"]), p)
        self.assertIn("offers a rematch", p["body"])
        a.close()
        time.sleep(0.5)
        self.assertFalse(os.path.exists(self.svc.log) and any(
            '"/push/over-ann"' in line for line in open(self.svc.log)), "Ann was there")

    def test_gone_subscription_dropped(self):
        name = "Vic%d" % (int(time.time() * 1000) % 100000)
        token, csrf = self.signup(self.srv, name)
        self.subscribe(token, csrf, "gone")
        self.away_on_my_turn(token, name)
        self.svc.received("gone")  # answered 410
        deadline = time.monotonic() + 10
        line = "a subscription at 127.0.0.1:%d was dropped (gone)" % self.svc.port
        while line not in self.srv.log():
            self.assertLess(time.monotonic(), deadline, "never dropped:\n" + self.srv.log())
            time.sleep(0.1)
        # Dropped: its account has nothing left to remove.
        s, _, doc = call(self.srv, "DELETE", "/api/push/subscriptions",
                         {"endpoint": self.svc.endpoint("gone")}, cookie=token,
                         headers={"X-CSRF-Token": csrf})
        self.assertEqual((s, doc.get("error")), (404, "no_such_subscription"), doc)


class PushPrivate(unittest.TestCase):
    """Without outbound-private, an endpoint at a private address (here the local push
    service on 127.0.0.1) is never contacted: the subscription is dropped at its first push."""

    def test_private_endpoint_dropped(self):
        folder = tempfile.mkdtemp(prefix="carcd-push-private-")
        svc = PushService(folder)
        srv = h.Server(dict(CONFIG, **{"outbound-ca-file": svc.cert, "bot-pace-ms": 1500,
                                       "takeover-grace": 600, "bots-alone-grace": 600})).start()
        try:
            t = PushDelivery("test_your_turn_delivered")
            t.srv, t.svc = srv, svc
            token, csrf = t.signup(srv, "Wes%d" % (int(time.time() * 1000) % 100000))
            t.subscribe(token, csrf, "private")
            t.away_on_my_turn(token, "Wes")
            deadline = time.monotonic() + 15
            line = "a subscription at 127.0.0.1:%d was dropped (gone)" % svc.port
            while line not in srv.log():
                self.assertLess(time.monotonic(), deadline, "never dropped:\n" + srv.log())
                time.sleep(0.1)
            self.assertFalse(os.path.exists(svc.log) and os.path.getsize(svc.log) > 0,
                             "the private endpoint was contacted")
        finally:
            srv.stop()
            svc.stop()
            shutil.rmtree(folder, ignore_errors=True)


class Webhooks(unittest.TestCase):
    """An account's webhook (PROTOCOL.md "Notifications"): set, read and removed with the
    account routes' checks; its notices posted as Discord's and Slack's JSON at once; a 404
    drops it; webhook-hosts and webhooks = off refuse."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="carcd-hooks-")
        cls.svc = PushService(cls.dir)
        cls.srv = h.Server(dict(CONFIG, **{"outbound-ca-file": cls.svc.cert,
                                           "outbound-private": "on",
                                           "public-url": "https://carcd.test",
                                           "bot-pace-ms": 1500, "takeover-grace": 600,
                                           "bots-alone-grace": 600})).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.svc.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    signup = PushRoutes.signup

    def hook(self, srv, method, token, csrf, body=None, **kw):
        return call(srv, method, "/api/me/webhook", body, cookie=token,
                    headers={"X-CSRF-Token": csrf} if csrf else None, **kw)

    def test_set_read_remove(self):
        token, csrf = self.signup(self.srv, "Xan%d" % (int(time.time() * 1000) % 100000))
        s, _, doc = self.hook(self.srv, "GET", token, None, origin=False)
        self.assertEqual((s, doc), (200, {"url": None}))
        url = "https://discord.com/api/webhooks/123/abc"
        s, _, doc = call(self.srv, "POST", "/api/me/webhook", {"url": url})
        self.assertEqual((s, doc["error"]), (401, "not_signed_in"))
        s, _, doc = self.hook(self.srv, "POST", token, None, {"url": url})
        self.assertEqual((s, doc["error"]), (403, "csrf"))
        s, _, doc = self.hook(self.srv, "POST", token, csrf, {"url": url}, origin=False)
        self.assertEqual((s, doc["error"]), (403, "origin"))
        for body, code in [({"url": "http://discord.com/x"}, "bad_webhook"),
                           ({"url": "https:// spaced/x"}, "bad_webhook"),
                           ({"url": url, "x": 1}, "bad_request"), ({"link": url}, "bad_request")]:
            s, _, doc = self.hook(self.srv, "POST", token, csrf, body)
            self.assertEqual((s, doc["error"]), (400, code), body)
        s, _, doc = self.hook(self.srv, "GET", token, None, origin=False)
        self.assertEqual(doc, {"url": None})  # nothing was kept
        s, _, doc = self.hook(self.srv, "POST", token, csrf, {"url": url})
        self.assertEqual(s, 204, doc)
        s, _, doc = self.hook(self.srv, "GET", token, None, origin=False)
        self.assertEqual((s, doc), (200, {"url": url}))
        s, _, doc = self.hook(self.srv, "DELETE", token, csrf)
        self.assertEqual(s, 204, doc)
        s, _, doc = self.hook(self.srv, "DELETE", token, csrf)
        self.assertEqual((s, doc["error"]), (404, "no_webhook"))

    def test_notice_posted_then_gone(self):
        name = "Yul%d" % (int(time.time() * 1000) % 100000)
        token, csrf = self.signup(self.srv, name)
        s, _, doc = self.hook(self.srv, "POST", token, csrf, {"url": self.svc.endpoint("x")
                                                               .replace("/push/", "/hook/")})
        self.assertEqual(s, 204, doc)
        room = PushDelivery.away_on_my_turn(self, token, name)
        deadline = time.monotonic() + 20
        while True:
            hooks = []
            if os.path.exists(self.svc.log):
                with open(self.svc.log) as f:
                    hooks = [json.loads(line) for line in f if '"/hook/x"' in line]
            if hooks:
                break
            self.assertLess(time.monotonic(), deadline, "no webhook post")
            time.sleep(0.1)
        self.assertEqual(hooks[0]["content_type"], "application/json")
        body = json.loads(hooks[0]["body"])
        self.assertEqual(body["username"], "carcd")
        self.assertEqual(body["content"], body["text"])
        self.assertTrue(body["content"].startswith("Your turn: It is your turn in room " + room),
                        body)
        self.assertTrue(body["content"].endswith("https://carcd.test/#room=" + room), body)
        self.assertEqual((body["carcd"]["type"], body["carcd"]["room"]), ("your_turn", room))
        # A webhook answered 404 is dropped.
        s, _, doc = self.hook(self.srv, "POST", token, csrf,
                              {"url": "https://127.0.0.1:%d/hook/gone" % self.svc.port})
        self.assertEqual(s, 204, doc)
        a = h.Client(WithCookie(self.srv, token), name="a", timeout=30)
        a.request_ok("resume", "joined", room=room)  # back: then away on the next turn
        doc = a.wait_doc(lambda d: d["current"] == 0)
        self.assertIsNotNone(a.wait_legal())
        r = a.request("play", **h.random_move(random.Random(3), a))
        self.assertEqual(r.get("type"), "ack", r)
        a.close()
        deadline = time.monotonic() + 20
        while "webhook was dropped (gone)" not in self.srv.log():
            self.assertLess(time.monotonic(), deadline, self.srv.log())
            time.sleep(0.1)
        s, _, doc = self.hook(self.srv, "GET", token, None, origin=False)
        self.assertEqual(doc, {"url": None})

    def test_hosts_and_off(self):
        srv = h.Server(dict(CONFIG, **{"webhook-hosts": "discord.com, hooks.slack.com"})).start()
        try:
            token, csrf = self.signup(srv, "Zed%d" % (int(time.time() * 1000) % 100000))
            for url, status in [("https://discord.com/api/webhooks/1/a", 204),
                                ("https://canary.discord.com/api/webhooks/1/a", 204),
                                ("https://hooks.slack.com/services/T/B/x", 204),
                                ("https://evildiscord.com/x", 403),
                                ("https://discord.com.evil.net/x", 403),
                                ("https://127.0.0.1:9/x", 403)]:
                s, _, doc = self.hook(srv, "POST", token, csrf, {"url": url})
                self.assertEqual(s, status, (url, doc))
                if status == 403:
                    self.assertEqual(doc["error"], "webhook_host")
        finally:
            srv.stop()
        srv = h.Server(dict(CONFIG, **{"webhooks": "off"})).start()
        try:
            token, csrf = self.signup(srv, "Zoe%d" % (int(time.time() * 1000) % 100000))
            s, _, doc = self.hook(srv, "POST", token, csrf, {"url": "https://discord.com/x"})
            self.assertEqual((s, doc["error"]), (403, "webhooks_off"))
        finally:
            srv.stop()


class PushRoutesPg(PushRoutes):
    """The same on PostgreSQL."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()


if __name__ == "__main__":
    unittest.main()
