"""Accounts over HTTP (PROTOCOL.md "Accounts"): sign up, sign in, sign out, GET /api/me, a
password change and a deletion, with the session cookie, the Origin and CSRF checks, request
bodies (JSON only, at most 4096 bytes, a slow one dropped) and the sign-in limit; on SQLite and
on a real PostgreSQL (pg_util). Every password and session token used is recorded as a secret:
no carcd log line may hold one (checked here and by run.py)."""

import http.client
import json
import socket
import time
import unittest

import harness as h
import pg_util

# The least Argon2id cost carcd takes (OWASP's minimum): fast enough for tests.
CONFIG = dict(h.LIMITS, **{"password-hash-mem-kib": 19456, "password-hash-ops": 2})


def call(srv, method, path, body=None, headers=None, origin=True, cookie=None, raw=None):
    """(status, headers (lower-case names), JSON or None) of one request."""
    hd = dict(headers or {})
    if origin:
        hd.setdefault("Origin", "http://%s:%d" % (srv.host, srv.port))
    if cookie:
        hd["Cookie"] = "carcd_session=" + cookie
    data = raw
    if body is not None:
        data = json.dumps(body).encode()
        hd.setdefault("Content-Type", "application/json")
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=20)
    try:
        c.request(method, path, body=data, headers=hd)
        r = c.getresponse()
        text = r.read()
        out = {k.lower(): v for k, v in r.getheaders()}
    finally:
        c.close()
    doc = None
    if text and out.get("content-type", "").startswith("application/json"):
        doc = json.loads(text)
    return r.status, out, doc


def session_of(headers):
    """The carcd_session value of a Set-Cookie, and the cookie's attributes."""
    sc = headers.get("set-cookie", "")
    parts = [p.strip() for p in sc.split(";")]
    name, _, value = parts[0].partition("=")
    assert name == "carcd_session", sc
    if value:
        h.secret_add(value)
    return value, parts[1:]


class Accounts(unittest.TestCase):
    """One carcd for the class (SQLite in its data directory)."""

    @classmethod
    def setUpClass(cls):
        cls.srv = h.Server(CONFIG).start()
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        status = cls.srv.stop()
        assert status == 0, status

    def fresh(self, prefix="user"):
        Accounts.n += 1
        name = "%s%d%d" % (prefix, Accounts.n, int(time.time() * 1000) % 100000)
        pw = "pw-%s-%d-%s" % (name, Accounts.n, "x" * 8)
        h.secret_add(pw)
        return name, pw

    def signup(self, name, pw, **kw):
        s, hd, doc = call(self.srv, "POST", "/api/account", {"name": name, "password": pw}, **kw)
        self.assertEqual(s, 201, doc)
        token, attrs = session_of(hd)
        return token, doc

    def signin(self, name, pw):
        return call(self.srv, "POST", "/api/session", {"name": name, "password": pw})

    def test_signup_cookie_and_me(self):
        name, pw = self.fresh()
        s, hd, doc = call(self.srv, "POST", "/api/account", {"name": name, "password": pw})
        self.assertEqual(s, 201, doc)
        self.assertEqual(hd.get("cache-control"), "no-store")
        token, attrs = session_of(hd)
        self.assertEqual(len(token), 43)
        self.assertIn("Path=/", attrs)
        self.assertIn("HttpOnly", attrs)
        self.assertIn("SameSite=Lax", attrs)
        self.assertIn("Max-Age=%d" % (30 * 86400), attrs)
        self.assertNotIn("Secure", attrs)  # plain http, no trusted proxy
        self.assertEqual(set(doc), {"name", "created", "csrf"})
        self.assertEqual(doc["name"], name)
        self.assertNotIn(token, json.dumps(doc))
        s, hd, me = call(self.srv, "GET", "/api/me", cookie=token)
        self.assertEqual(s, 200, me)
        self.assertEqual((me["name"], me["csrf"]), (name, doc["csrf"]))
        self.assertEqual(hd.get("cache-control"), "no-store")
        s, _, me = call(self.srv, "GET", "/api/me")
        self.assertEqual((s, me), (401, {"error": "not_signed_in", "message": "not signed in"}))
        # The name is taken, in any case.
        s, _, doc = call(self.srv, "POST", "/api/account", {"name": name.upper(), "password": pw})
        self.assertEqual((s, doc["error"]), (409, "name_taken"))

    def test_refused_bodies(self):
        name, pw = self.fresh()
        s, _, doc = call(self.srv, "POST", "/api/account", {"name": "a b", "password": pw})
        self.assertEqual((s, doc["error"]), (422, "name_refused"))
        s, _, doc = call(self.srv, "POST", "/api/account", {"name": name, "password": "short"})
        self.assertEqual((s, doc["error"]), (422, "password_refused"))
        s, _, doc = call(self.srv, "POST", "/api/account", {"name": name, "pass": pw})
        self.assertEqual((s, doc["error"]), (400, "bad_request"))
        s, _, doc = call(self.srv, "POST", "/api/session", raw=b"{not json " + pw.encode(),
                         headers={"Content-Type": "application/json"})
        self.assertEqual((s, doc["error"]), (400, "bad_request"))
        self.assertNotIn(pw, json.dumps(doc))
        # A form post (what a cross-site <form> can send): 415, never read.
        s, _, _ = call(self.srv, "POST", "/api/session", raw=b"name=a&password=b",
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(s, 415)
        s, _, _ = call(self.srv, "POST", "/api/session", raw=b"x" * 5000,
                       headers={"Content-Type": "application/json"})
        self.assertEqual(s, 413)
        # A body on any other route is refused as before.
        s, _, _ = call(self.srv, "POST", "/api/rooms", raw=b"{}",
                       headers={"Content-Type": "application/json"})
        self.assertEqual(s, 400)

    def test_origin(self):
        name, pw = self.fresh()
        for origin in ({"Origin": "http://evil.example"}, None):
            s, _, doc = call(self.srv, "POST", "/api/account", {"name": name, "password": pw},
                             headers=origin, origin=origin is not None)
            self.assertEqual((s, doc["error"]), (403, "origin"))
        # Nothing was created.
        self.signup(name, pw)

    def test_signin_signout(self):
        name, pw = self.fresh()
        self.signup(name, pw)
        s, hd, doc = self.signin(name, pw)
        self.assertEqual(s, 200, doc)
        token, _ = session_of(hd)
        self.assertEqual(set(doc), {"name", "csrf"} | ({"created"} & set(doc)))
        s, _, doc = self.signin(name, pw + "!")
        self.assertEqual((s, doc["error"]), (401, "wrong_credentials"))
        s, _, doc2 = self.signin(name + "zz", pw)
        self.assertEqual((s, doc2), (401, doc))  # one answer for both
        s, _, me = call(self.srv, "GET", "/api/me", cookie=token)
        self.assertEqual(s, 200)
        # Signing out needs the CSRF token.
        s, _, doc = call(self.srv, "DELETE", "/api/session", cookie=token)
        self.assertEqual((s, doc["error"]), (403, "csrf"))
        s, _, doc = call(self.srv, "DELETE", "/api/session", cookie=token,
                         headers={"X-CSRF-Token": "A" * 43})
        self.assertEqual((s, doc["error"]), (403, "csrf"))
        s, hd, _ = call(self.srv, "DELETE", "/api/session", cookie=token,
                        headers={"X-CSRF-Token": me["csrf"]})
        self.assertEqual(s, 204)
        value, attrs = session_of(hd)
        self.assertEqual((value, "Max-Age=0" in attrs), ("", True))
        self.assertEqual(call(self.srv, "GET", "/api/me", cookie=token)[0], 401)
        # Again, and without a session at all: 204.
        self.assertEqual(call(self.srv, "DELETE", "/api/session", cookie=token)[0], 204)
        self.assertEqual(call(self.srv, "DELETE", "/api/session")[0], 204)

    def test_rate_limit(self):
        name, pw = self.fresh("rate")
        self.signup(name, pw)
        for i in range(5):
            s, _, doc = self.signin(name, pw + "wrong")
            self.assertEqual(s, 401, (i, doc))
        s, hd, doc = self.signin(name, pw + "wrong")
        self.assertEqual((s, doc["error"]), (429, "rate_limited"))
        self.assertGreater(int(hd.get("retry-after", "0")), 0)
        s, hd, doc = self.signin(name, pw)
        self.assertEqual((s, doc["error"]), (429, "rate_limited"))

    def test_password_change_ends_other_sessions(self):
        name, pw = self.fresh()
        t1, doc = self.signup(name, pw)
        s, hd, _ = self.signin(name, pw)
        t2, _ = session_of(hd)
        new = pw + "-new"
        h.secret_add(new)
        body = {"password": pw, "new_password": new}
        s, _, d = call(self.srv, "POST", "/api/me/password", body, cookie=t1)
        self.assertEqual((s, d["error"]), (403, "csrf"))
        s, _, d = call(self.srv, "POST", "/api/me/password", {"password": pw + "?",
                                                              "new_password": new},
                       cookie=t1, headers={"X-CSRF-Token": doc["csrf"]})
        self.assertEqual((s, d["error"]), (403, "wrong_credentials"))
        s, _, _ = call(self.srv, "POST", "/api/me/password", body, cookie=t1,
                       headers={"X-CSRF-Token": doc["csrf"]})
        self.assertEqual(s, 204)
        self.assertEqual(call(self.srv, "GET", "/api/me", cookie=t1)[0], 200)
        self.assertEqual(call(self.srv, "GET", "/api/me", cookie=t2)[0], 401)
        self.assertEqual(self.signin(name, pw)[0], 401)
        self.assertEqual(self.signin(name, new)[0], 200)

    def test_delete_frees_the_name(self):
        name, pw = self.fresh()
        token, doc = self.signup(name, pw)
        s, hd, _ = call(self.srv, "POST", "/api/me/delete", {"password": pw}, cookie=token,
                        headers={"X-CSRF-Token": doc["csrf"]})
        self.assertEqual(s, 204)
        self.assertEqual(session_of(hd)[0], "")
        self.assertEqual(call(self.srv, "GET", "/api/me", cookie=token)[0], 401)
        self.assertEqual(self.signin(name, pw)[0], 401)
        self.signup(name, pw + "2")
        h.secret_add(pw + "2")

    def test_slow_body_is_dropped(self):
        """A body that stops coming: lws' timeout (5 s) closes the connection, unanswered."""
        sock = socket.create_connection((self.srv.host, self.srv.port), timeout=15)
        try:
            sock.sendall(b"POST /api/session HTTP/1.1\r\nHost: x\r\nOrigin: http://x\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na")
            t0 = time.monotonic()
            data = sock.recv(4096)
            self.assertEqual(data, b"")
            self.assertLess(time.monotonic() - t0, 12)
        finally:
            sock.close()
        self.assertEqual(call(self.srv, "GET", "/api/me")[0], 401)  # still serving

    def test_bodies_on_one_connection(self):
        """Requests with bodies one after another on a kept-alive connection: each body is read
        as a body, never as the next request's head (net_rx's scanner skips it too)."""
        name, pw = self.fresh()
        self.signup(name, pw)
        c = http.client.HTTPConnection(self.srv.host, self.srv.port, timeout=20)
        try:
            hd = {"Origin": "http://%s:%d" % (self.srv.host, self.srv.port),
                  "Content-Type": "application/json"}
            for _ in range(3):
                body = json.dumps({"name": name, "password": pw + "\r\n\r\nGET / HTTP/1.1"})
                c.request("POST", "/api/session", body=body, headers=hd)
                r = c.getresponse()
                r.read()
                self.assertEqual(r.status, 401)
                c.request("POST", "/api/session", body=json.dumps({"name": name, "password": pw}),
                          headers=hd)
                r = c.getresponse()
                r.read()
                self.assertEqual(r.status, 200)
                session_of({"set-cookie": r.getheader("set-cookie")})
        finally:
            c.close()

    def test_zz_log_has_no_secrets(self):
        leaks, _, _ = h.secret_problems(files=[self.srv.log_path])
        self.assertEqual(leaks, [])


class AccountsPg(Accounts):
    """The same on a real PostgreSQL."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()
        h.PG_URL_FOR = cls.pg.database_for
        try:
            super().setUpClass()
        finally:
            h.PG_URL_FOR = None


class Registration(unittest.TestCase):
    def test_closed_and_invite(self):
        for mode, code in (("closed", "registration_closed"), ("invite", "invite_needed")):
            srv = h.Server(dict(CONFIG, registration=mode)).start()
            try:
                pw = "a-long-password-%s" % mode
                h.secret_add(pw)
                s, _, doc = call(srv, "POST", "/api/account", {"name": "newbie", "password": pw})
                self.assertEqual((s, doc["error"]), (403, code), mode)
                if mode == "invite":
                    s, _, doc = call(srv, "POST", "/api/account",
                                     {"name": "newbie", "password": pw, "invite": "nope"})
                    self.assertEqual((s, doc["error"]), (403, code))
            finally:
                self.assertEqual(srv.stop(), 0)

    def test_no_storage_no_accounts(self):
        srv = h.Server(dict(CONFIG, storage="off")).start()
        try:
            s, _, doc = call(srv, "GET", "/api/me")
            self.assertEqual((s, doc["error"]), (404, "accounts_off"))
        finally:
            self.assertEqual(srv.stop(), 0)
