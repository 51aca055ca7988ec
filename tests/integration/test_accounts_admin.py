"""Who may join, over the wire (server/README.md "Admin API", PROTOCOL.md "Accounts"): the admin
lists accounts, disables and enables one (its sessions end, sign-in refused, then allowed), resets
a password (the old one refused, the new one works, every session gone); invites made by the admin
let one sign-up through while registration = invite (a second use of a code is refused); members'
invites off (403 invites_off) and on (Origin and CSRF checked, no body taken, at most 10 unused:
429); a wrong or missing admin token is 401. On SQLite and on a real PostgreSQL (pg_util). Every
password, session token, reset password and invite code seen is recorded as a secret: no carcd log
line may hold one (checked here and by run.py). An invite's expiry is tested with a fake clock in
tests/test_accounts_admin.c."""

import time
import unittest

import harness as h
import pg_util
import test_accounts as ta

TOKEN = "adm-acc-5b81f0c2d94e37a6"
ADMIN = {"Authorization": "Bearer " + TOKEN}


def admin(srv, method, path, token=TOKEN):
    """(status, headers, JSON) of an admin request (POST without a body)."""
    hd = {"Authorization": "Bearer " + token} if token is not None else {}
    return ta.call(srv, method, path, headers=hd, origin=False)


class Base:
    """One carcd per class, with an admin token and CONFIG (a mixin: not a test itself)."""

    CONFIG = {}
    n = 0

    @classmethod
    def setUpClass(cls):
        cls.srv = h.Server(dict(ta.CONFIG, **{"admin-token": TOKEN}, **cls.CONFIG)).start()

    @classmethod
    def tearDownClass(cls):
        status = cls.srv.stop()
        assert status == 0, status

    def fresh(self, prefix="adm"):
        Base.n += 1
        name = "%s%d%d" % (prefix, Base.n, int(time.time() * 1000) % 100000)
        pw = "pw-%s-%d-%s" % (name, Base.n, "y" * 8)
        h.secret_add(pw)
        return name, pw

    def signup(self, name, pw, invite=None):
        body = {"name": name, "password": pw}
        if invite is not None:
            body["invite"] = invite
        s, hd, doc = ta.call(self.srv, "POST", "/api/account", body)
        self.assertEqual(s, 201, doc)
        token, _ = ta.session_of(hd)
        return token, doc

    def signin(self, name, pw):
        s, hd, doc = ta.call(self.srv, "POST", "/api/session", {"name": name, "password": pw})
        if s == 200:
            ta.session_of(hd)
        return s, doc

    def me(self, token):
        return ta.call(self.srv, "GET", "/api/me", cookie=token)[0]

    def invite(self):
        s, hd, doc = admin(self.srv, "POST", "/admin/invites")
        self.assertEqual(s, 201, doc)
        self.assertEqual(hd.get("cache-control"), "no-store")
        h.secret_add(doc["code"])
        return doc

    def member_invite(self, token, csrf, **kw):
        hd = {"X-CSRF-Token": csrf} if csrf is not None else {}
        s, _, doc = ta.call(self.srv, "POST", "/api/me/invites", cookie=token, headers=hd, **kw)
        if s == 201:
            h.secret_add(doc["code"])
        return s, doc

    def test_zz_log_has_no_secrets(self):
        leaks, _, _ = h.secret_problems(files=[self.srv.log_path])
        self.assertEqual(leaks, [])


class AdminAccounts(Base, unittest.TestCase):
    """registration = open, member-invites off."""

    def test_wrong_token(self):
        for token in ("adm-wrong-token-0000", None):
            for method, path in (("GET", "/admin/accounts"), ("POST", "/admin/invites"),
                                 ("POST", "/admin/accounts/anyone/reset")):
                s, hd, doc = admin(self.srv, method, path, token=token)
                self.assertEqual((s, doc), (401, {"error": "unauthorized"}), path)
                self.assertEqual(hd.get("www-authenticate"), "Bearer")

    def test_list(self):
        a, pw = self.fresh()
        b, _ = self.fresh()
        self.signup(a, pw)
        self.signup(b, pw)
        s, hd, doc = admin(self.srv, "GET", "/admin/accounts")
        self.assertEqual(s, 200, doc)
        self.assertEqual(hd.get("cache-control"), "no-store")
        self.assertEqual(doc["page"], 1)
        rows = {r["name"]: r for r in doc["accounts"]}
        self.assertIn(a, rows)
        self.assertEqual(set(rows[a]), {"id", "name", "created", "disabled", "deleted"})
        self.assertEqual((rows[a]["disabled"], rows[a]["deleted"]), (False, False))
        self.assertLess(rows[a]["id"], rows[b]["id"])
        self.assertGreater(rows[a]["created"], 1600000000000)
        ids = [r["id"] for r in doc["accounts"]]
        self.assertEqual(ids, sorted(ids))
        self.assertLessEqual(len(ids), 50)
        s, _, doc = admin(self.srv, "GET", "/admin/accounts?page=1000")
        self.assertEqual((s, doc), (200, {"accounts": [], "page": 1000}))
        s, _, doc = admin(self.srv, "GET", "/admin/accounts?page=x")
        self.assertEqual((s, doc["page"]), (200, 1))
        self.assertEqual(admin(self.srv, "POST", "/admin/accounts")[0], 405)

    def test_disable_enable(self):
        name, pw = self.fresh()
        token, _ = self.signup(name, pw)
        self.assertEqual(self.me(token), 200)
        s, _, doc = admin(self.srv, "POST", "/admin/accounts/%s/disable" % name.upper())
        self.assertEqual((s, doc), (200, {"name": name, "disabled": True}))
        self.assertEqual(self.me(token), 401)
        self.assertEqual(self.signin(name, pw)[0], 401)
        s, _, doc = admin(self.srv, "GET", "/admin/accounts")
        self.assertTrue([r for r in doc["accounts"] if r["name"] == name][0]["disabled"])
        s, _, doc = admin(self.srv, "POST", "/admin/accounts/%s/enable" % name)
        self.assertEqual((s, doc), (200, {"name": name, "disabled": False}))
        self.assertEqual(self.me(token), 401)  # ended, not suspended
        self.assertEqual(self.signin(name, pw)[0], 200)
        for bad in ("nobody-here", "no.dots", "x" * 30):
            s, _, doc = admin(self.srv, "POST", "/admin/accounts/%s/disable" % bad)
            self.assertEqual((s, doc), (404, {"error": "no_such_account"}), bad)

    def test_reset(self):
        name, pw = self.fresh()
        t1, _ = self.signup(name, pw)
        s, _ = self.signin(name, pw)
        self.assertEqual(s, 200)
        s, hd, doc = admin(self.srv, "POST", "/admin/accounts/%s/reset" % name)
        self.assertEqual(s, 200, doc)
        self.assertEqual(hd.get("cache-control"), "no-store")
        self.assertEqual(set(doc), {"name", "password"})
        new = doc["password"]
        h.secret_add(new)
        self.assertEqual((doc["name"], len(new)), (name, 16))
        self.assertFalse(set(new) & set("01ilIoO"), new)
        self.assertEqual(self.me(t1), 401)
        self.assertEqual(self.signin(name, pw)[0], 401)
        self.assertEqual(self.signin(name, new)[0], 200)
        s, _, doc = admin(self.srv, "POST", "/admin/accounts/nobody-here/reset")
        self.assertEqual((s, doc), (404, {"error": "no_such_account"}))
        # The password is in no log line (the log is read to the end of the server's writes).
        time.sleep(0.2)
        with open(self.srv.log_path, errors="replace") as f:
            log = f.read()
        self.assertNotIn(new, log)
        self.assertIn("admin: POST /admin/accounts/%s/reset from" % name, log)

    def test_member_invites_off(self):
        name, pw = self.fresh()
        token, doc = self.signup(name, pw)
        s, doc = self.member_invite(token, doc["csrf"])
        self.assertEqual((s, doc["error"]), (403, "invites_off"))

    def test_invite_ignored_while_open(self):
        code = self.invite()["code"]
        name, pw = self.fresh()
        self.signup(name, pw, invite="not-a-code")
        name, pw = self.fresh()
        self.signup(name, pw, invite=code)


class AdminAccountsPg(AdminAccounts):
    """The same on a real PostgreSQL."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()
        h.PG_URL_FOR = cls.pg.database_for
        try:
            super().setUpClass()
        finally:
            h.PG_URL_FOR = None


class Invites(Base, unittest.TestCase):
    """registration = invite, member-invites on."""

    CONFIG = {"registration": "invite", "member-invites": "on"}

    def test_admin_invite_used_once(self):
        t0 = time.time() * 1000
        doc = self.invite()
        self.assertEqual(set(doc), {"code", "expires"})
        self.assertRegex(doc["code"], r"^[A-Za-z0-9_-]{22}$")
        self.assertAlmostEqual(doc["expires"], t0 + 7 * 86400000, delta=60000)
        name, pw = self.fresh()
        s, _, err = ta.call(self.srv, "POST", "/api/account", {"name": name, "password": pw})
        self.assertEqual((s, err["error"]), (403, "invite_needed"))
        self.signup(name, pw, invite=doc["code"])
        other, pw2 = self.fresh()
        s, _, err = ta.call(self.srv, "POST", "/api/account",
                            {"name": other, "password": pw2, "invite": doc["code"]})
        self.assertEqual((s, err["error"]), (403, "invite_needed"))
        self.assertNotEqual(self.invite()["code"], doc["code"])

    def test_member_invites(self):
        name, pw = self.fresh("mem")
        token, doc = self.signup(name, pw, invite=self.invite()["code"])
        csrf = doc["csrf"]
        # Guests, other sites, no CSRF token, a body: refused.
        self.assertEqual(self.member_invite(None, None)[0], 401)
        s, doc = self.member_invite(token, csrf, origin=False)
        self.assertEqual((s, doc["error"]), (403, "origin"))
        s, doc = self.member_invite(token, None)
        self.assertEqual((s, doc["error"]), (403, "csrf"))
        s, _, _ = ta.call(self.srv, "POST", "/api/me/invites", cookie=token, raw=b"{}",
                          headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
        self.assertEqual(s, 400)
        s, doc = self.member_invite(token, csrf)
        self.assertEqual(s, 201, doc)
        self.assertEqual(set(doc), {"code", "expires"})
        self.assertRegex(doc["code"], r"^[A-Za-z0-9_-]{22}$")
        # A member's code lets a friend in, once.
        friend, fpw = self.fresh("fr")
        self.signup(friend, fpw, invite=doc["code"])
        codes = []
        for i in range(10):
            s, doc = self.member_invite(token, csrf)
            self.assertEqual(s, 201, (i, doc))
            codes.append(doc["code"])
        s, doc = self.member_invite(token, csrf)
        self.assertEqual((s, doc["error"]), (429, "too_many_invites"))
        # One used: room for one more.
        friend, fpw = self.fresh("fr")
        self.signup(friend, fpw, invite=codes[0])
        self.assertEqual(self.member_invite(token, csrf)[0], 201)
        self.assertEqual(self.member_invite(token, csrf)[0], 429)
        # A disabled member invites nobody.
        self.assertEqual(admin(self.srv, "POST", "/admin/accounts/%s/disable" % name)[0], 200)
        self.assertEqual(self.member_invite(token, csrf)[0], 401)


class InvitesPg(Invites):
    """The same on a real PostgreSQL."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()
        h.PG_URL_FOR = cls.pg.database_for
        try:
            super().setUpClass()
        finally:
            h.PG_URL_FOR = None
