"""Web Push's HTTP side (PROTOCOL.md "Notifications"): GET /api/push/key gives carcd's VAPID
public key (65 bytes of an uncompressed P-256 point, base64url), made at the first start in
the data directory (mode 0600) and the same after a restart, or read from `vapid-key-file`;
POST /api/push/subscriptions keeps a browser's PushSubscription for the signed-in account and
DELETE removes it, with the Origin and CSRF checks of the other account routes; bad bodies and
bad subscriptions are 400 and change nothing; without storage every route is 404 push_off. On
SQLite and a real PostgreSQL (pg_util)."""

import base64
import os
import shutil
import stat
import subprocess
import tempfile
import time
import unittest

import harness as h
import pg_util
from test_accounts import CONFIG, call, session_of

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

    def test_push_off_without_storage(self):
        if self.pg is not None:
            return  # no storage is no storage: once is enough
        srv = self.start({"storage": "off"})
        for method, path in (("GET", "/api/push/key"), ("POST", "/api/push/subscriptions")):
            s, _, doc = call(srv, method, path, subscription("https://x/y") if method == "POST"
                             else None, origin=method == "POST")
            self.assertEqual((s, doc["error"]), (404, "push_off"), (method, doc))


class PushRoutesPg(PushRoutes):
    """The same on PostgreSQL."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()


if __name__ == "__main__":
    unittest.main()
