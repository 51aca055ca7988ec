"""E-mail (PROTOCOL.md "Notifications", "E-mail"): with `smtp-url` pointing at a local SMTP sink
(tests/smtp_sink.py, Debian's python3-aiosmtpd, STARTTLS with a certificate carcd trusts through
`outbound-ca-file`), `/api/me/email` is read, set and removed with the account routes' checks
(401, 403 without CSRF or Origin, 400 for a bad address or body, nothing kept); a signed-in
player whose turn waits in a room when carcd starts after `digest-hour` gets the day's digest
(its game, time left and link, the unsubscribe link, Date, Message-ID, List-Unsubscribe and
List-Unsubscribe-Post), once: a restart the same day sends nothing; the one-click POST of the
unsubscribe link turns the digest and reminders off (the page says so, GET /api/me/email shows
it), an unknown token is 404, carcd_mail_sent_total counted the digest. Without smtp-url the
routes are 404 mail_off; smtp-url without mail-from or public-url stops the start with a clear
error. The low-clock reminder on a carcd whose clocks the test moves (`test-clock`, `POST
/admin/clock`): an absent player's eight-hour turn mailed once at a quarter left and once in its
last hour (each also pushed as `time_low`), counted, and nothing to a player with reminders off.
On SQLite and a real PostgreSQL (pg_util)."""

import email
import email.policy
import glob
import http.client
import json
import os
import random
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.parse

import harness as h
import pg_util
from test_accounts import CONFIG, call, session_of
from test_correspondence import TOKEN as ADMIN_TOKEN, admin_advance
from test_push import PushService, subscription
from test_seat_accounts import WithCookie

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
METRICS_TOKEN = "mail-metrics-token-0123456789"


class Sink:
    """tests/smtp_sink.py on 127.0.0.1 with its own certificate; the messages it took."""

    def __init__(self, folder):
        self.folder = os.path.join(folder, "mail")
        os.makedirs(self.folder)
        self.cert = os.path.join(folder, "cert.pem")
        self.key = os.path.join(folder, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", self.key, "-out",
                        self.cert, "-days", "1", "-subj", "/CN=localhost", "-addext",
                        "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                       check=True, capture_output=True)
        self.proc = subprocess.Popen(["/usr/bin/python3", os.path.join(TESTS, "smtp_sink.py"),
                                      self.cert, self.key, self.folder], stdout=subprocess.PIPE,
                                     text=True)
        self.port = int(self.proc.stdout.readline().split()[0])

    def messages(self):
        """[(envelope line, parsed message)] in the order received."""
        out = []
        for path in sorted(glob.glob(os.path.join(self.folder, "*.eml")),
                           key=lambda p: int(os.path.basename(p).split(".")[0])):
            with open(path, "rb") as f:
                msg = email.message_from_binary_file(f, policy=email.policy.default)
            with open(path[:-4] + ".env") as f:
                out.append((f.read().strip(), msg))
        return out

    def wait(self, count, timeout=20):
        deadline = time.monotonic() + timeout
        while len(self.messages()) < count:
            if time.monotonic() > deadline:
                raise AssertionError("%d message(s) within %d s, not %d"
                                     % (len(self.messages()), timeout, count))
            time.sleep(0.1)
        return self.messages()

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def uniq(prefix):
    return "%s%d" % (prefix, int(time.time() * 1000) % 100000)


class Mail(unittest.TestCase):
    pg = None

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="carcd-mail-")
        cls.sink = Sink(cls.dir)
        cls.config = dict(CONFIG, **{"smtp-url": "smtp://127.0.0.1:%d" % cls.sink.port,
                                     "mail-from": "carcd@carcd.test",
                                     "public-url": "https://carcd.test/",
                                     "outbound-ca-file": cls.sink.cert,
                                     "digest-hour": 0,  # always passed: each start sends
                                     "metrics-token": METRICS_TOKEN,
                                     "bot-pace-ms": 1500, "takeover-grace": 600,
                                     "bots-alone-grace": 600})
        h.secret_add(METRICS_TOKEN)

    @classmethod
    def tearDownClass(cls):
        cls.sink.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def setUp(self):
        self.servers = []
        h.PG_URL_FOR = self.pg.database_for if self.pg is not None else None

    def tearDown(self):
        for s in self.servers:
            if s.alive():
                s.stop()
        h.PG_URL_FOR = None

    def start(self, config=None, data_dir=None):
        srv = h.Server(dict(self.config, **(config or {})), data_dir=data_dir).start()
        self.servers.append(srv)
        return srv

    def signup(self, srv, name):
        pw = "pw-%s-long-enough" % name
        h.secret_add(pw)
        s, hd, doc = call(srv, "POST", "/api/account", {"name": name, "password": pw})
        self.assertEqual(s, 201, doc)
        token, _ = session_of(hd)
        return token, doc["csrf"]

    def email(self, srv, method, token, csrf, body=None, **kw):
        return call(srv, method, "/api/me/email", body, cookie=token,
                    headers={"X-CSRF-Token": csrf} if csrf else None, **kw)

    def wait_log(self, srv, text, timeout=15):
        deadline = time.monotonic() + timeout
        while text not in srv.log(400):
            self.assertLess(time.monotonic(), deadline, "no %r in:\n%s" % (text, srv.log()))
            time.sleep(0.1)

    def test_routes(self):
        srv = self.start()
        token, csrf = self.signup(srv, uniq("Ema"))
        s, hd, doc = self.email(srv, "GET", token, None, origin=False)
        self.assertEqual((s, doc), (200, {"address": None, "digest": False, "reminders": False}))
        self.assertEqual(hd.get("cache-control"), "no-store")
        body = {"address": "ema@carcd.test", "digest": True, "reminders": False}
        s, _, doc = call(srv, "PUT", "/api/me/email", body)
        self.assertEqual((s, doc["error"]), (401, "not_signed_in"))
        s, _, doc = self.email(srv, "PUT", token, None, body)
        self.assertEqual((s, doc["error"]), (403, "csrf"))
        s, _, doc = self.email(srv, "PUT", token, csrf, body, origin=False)
        self.assertEqual((s, doc["error"]), (403, "origin"))
        for bad, word in [({"address": "no-at.example"}, "address"),
                          ({"address": "a@b@c"}, "address"),
                          ({"address": "sp ace@carcd.test"}, "address"),
                          ({"address": "x" * 250 + "@a.bc"}, "address"),
                          ({"address": "<a@b.c>"}, "address"),
                          ({"address": "a@b.c", "digest": "yes"}, "digest"),
                          ({"address": "a@b.c", "cc": "x"}, "only address"),
                          ({"digest": True}, "address"), ([1], "object")]:
            s, _, doc = self.email(srv, "PUT", token, csrf, bad)
            self.assertEqual((s, doc["error"]), (400, "bad_request"), (bad, doc))
            self.assertIn(word, doc["message"], bad)
        s, _, doc = self.email(srv, "GET", token, None, origin=False)
        self.assertIsNone(doc["address"])  # nothing was kept
        s, _, doc = self.email(srv, "PUT", token, csrf, body)
        self.assertEqual(s, 204, doc)
        s, _, doc = self.email(srv, "GET", token, None, origin=False)
        self.assertEqual(doc, body)
        s, _, doc = self.email(srv, "PUT", token, csrf, {"address": "ema2@carcd.test"})
        self.assertEqual(s, 204, doc)
        s, _, doc = self.email(srv, "GET", token, None, origin=False)
        self.assertEqual(doc, {"address": "ema2@carcd.test", "digest": True, "reminders": True})
        s, _, doc = self.email(srv, "DELETE", token, csrf)
        self.assertEqual(s, 204, doc)
        s, _, doc = self.email(srv, "DELETE", token, csrf)
        self.assertEqual((s, doc["error"]), (404, "no_email"))
        s, _, doc = self.email(srv, "POST", token, csrf)
        self.assertEqual((s, doc["error"]), (405, "method"))
        # An unsubscribe link that is nobody's.
        s, hd, _ = call(srv, "GET", "/unsubscribe?token=" + "A" * 43, origin=False)
        self.assertEqual(s, 404)
        self.assertTrue(hd["content-type"].startswith("text/html"))
        s, _, _ = call(srv, "GET", "/unsubscribe", origin=False)
        self.assertEqual(s, 404)

    def test_off_and_refused_settings(self):
        if self.pg is not None:
            return  # settings are settings: once is enough
        srv = self.start({"smtp-url": "off"})
        token, csrf = self.signup(srv, uniq("Off"))
        s, _, doc = self.email(srv, "GET", token, None, origin=False)
        self.assertEqual((s, doc["error"]), (404, "mail_off"))
        srv.stop()
        for missing, word in (("mail-from", "mail-from"), ("public-url", "public-url")):
            cfg = dict(self.config)
            del cfg[missing]
            with self.assertRaises(RuntimeError) as e:
                h.Server(cfg).start()
            self.assertIn(word, str(e.exception))
        with self.assertRaises(RuntimeError) as e:
            h.Server(dict(self.config, **{"smtp-url": "http://127.0.0.1:25"})).start()
        self.assertIn("smtp-url: must be an smtp:// or smtps:// URL", str(e.exception))

    def away_on_my_turn(self, srv, token, clock=None):
        """A room of the account against a bot, with a day's clock (or `clock`); it plays once
        and leaves: the bot moves and the turn waits for a player who is not there. The room's
        id and the bot's name."""
        a = h.Client(WithCookie(srv, token), name="a", timeout=30)
        j = a.request_ok("create", "joined", name="M", seats=2,
                         clock=clock or {"initial": 86400, "increment": 0, "on_timeout": "bot"})
        h.secret_add(j["token"])
        room = j["room"]
        a.room, a.seat = room, j["seat"]
        a.wait_type("state")
        a.send({"v": h.V, "type": "add_bot", "level": "random"})
        a.wait_doc(lambda d: d["seats"][1]["bot"] is not None)
        a.send({"v": h.V, "type": "start"})
        a.wait_doc(lambda d: d["phase"] == "playing" and d["current"] == a.seat)
        self.assertIsNotNone(a.wait_legal())
        r = a.request("play", **h.random_move(random.Random(5), a))
        self.assertEqual(r.get("type"), "ack", r)
        doc = a.wait_doc(lambda d: d["current"] == a.seat)  # the bot moved: our turn again
        bot_name = doc["seats"][1]["name"]
        a.close()
        return room, bot_name

    def metric(self, srv, series):
        """The value of one series of GET /metrics (with the metrics token)."""
        c = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
        c.request("GET", "/metrics", headers={"Authorization": "Bearer " + METRICS_TOKEN})
        text = c.getresponse().read().decode()
        c.close()
        for line in text.splitlines():
            if line.startswith(series + " "):
                return float(line.split()[1])
        raise AssertionError("no %s in /metrics" % series)

    def test_digest_once_a_day_and_unsubscribe(self):
        data = os.path.join(self.dir, "data-digest")
        os.makedirs(data)
        srv = self.start(data_dir=data)
        name = uniq("Dig")
        token, csrf = self.signup(srv, name)
        s, _, doc = self.email(srv, "PUT", token, csrf, {"address": "dig@carcd.test"})
        self.assertEqual(s, 204, doc)
        # The start's digest ran before any game waited: nothing sent.
        self.wait_log(srv, "mail: the digest of day")
        before = len(self.sink.messages())
        room, bot_name = self.away_on_my_turn(srv, token)
        srv.stop()
        # The next start (after digest-hour, as every start is here) sends today's digest.
        srv = self.start(data_dir=data)
        got = self.sink.wait(before + 1)[before:]
        self.assertEqual(len(got), 1, got)
        env, msg = got[0]
        self.assertEqual(env, "carcd@carcd.test dig@carcd.test tls")  # STARTTLS taken
        self.assertEqual(msg["Subject"], "carcd: 1 game waits for you")
        self.assertEqual(msg["From"], "carcd <carcd@carcd.test>")
        self.assertIsNotNone(email.utils.parsedate_to_datetime(msg["Date"]))
        self.assertRegex(msg["Message-ID"], r"^<[0-9]+\.[0-9a-f]{16}@carcd\.test>$")
        self.assertEqual(msg["List-Unsubscribe-Post"], "List-Unsubscribe=One-Click")
        unsub = msg["List-Unsubscribe"].strip("<>")
        self.assertTrue(unsub.startswith("https://carcd.test/unsubscribe?token="), unsub)
        body = msg.get_content()
        self.assertIn("* Room %s against %s: 23 h" % (room, bot_name), body)
        self.assertIn("https://carcd.test/#room=" + room, body)
        self.assertIn("To stop these e-mails: " + unsub, body)
        self.assertEqual(self.metric(srv, 'carcd_mail_sent_total{kind="digest",result="sent"}'),
                         1)
        srv.stop()
        # Again the same day: the day is claimed, nothing more.
        srv = self.start(data_dir=data)
        self.wait_log(srv, "mail: the digest of day")
        time.sleep(2)
        self.assertEqual(len(self.sink.messages()), before + 1)
        # The one-click unsubscribe (RFC 8058): a form POST to the link.
        t = urllib.parse.parse_qs(urllib.parse.urlparse(unsub).query)["token"][0]
        h.secret_add(t)
        s, hd, _ = call(srv, "POST", "/unsubscribe?token=" + t, origin=False,
                        raw=b"List-Unsubscribe=One-Click",
                        headers={"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(s, 200)
        self.assertTrue(hd["content-type"].startswith("text/html"))
        s, _, doc = self.email(srv, "GET", token, None, origin=False)
        self.assertEqual(doc, {"address": "dig@carcd.test", "digest": False, "reminders": False})
        s, _, _ = call(srv, "GET", "/unsubscribe?token=" + t, origin=False)
        self.assertEqual(s, 200)  # the link works again (still off)


    def reminders_to(self, address):
        """The low-clock reminders the sink took for address: [(envelope, message)]."""
        return [(env, msg) for env, msg in self.sink.messages()
                if env.split()[1] == address and
                msg["Subject"].startswith("carcd: your clock runs low")]

    def wait_reminders(self, address, count, timeout=20):
        deadline = time.monotonic() + timeout
        while len(self.reminders_to(address)) < count:
            if time.monotonic() > deadline:
                self.fail("%d reminder(s) for %s within %d s, not %d"
                          % (len(self.reminders_to(address)), address, timeout, count))
            time.sleep(0.1)
        time.sleep(2)  # and no more than that
        got = self.reminders_to(address)
        self.assertEqual(len(got), count, [m["Subject"] for _, m in got])
        return got

    def test_low_clock_reminder(self):
        """Eight hours a move (skip): the quarter (two hours left) and the last hour are each
        mailed once to the absent player whose reminders are on, as the server's clock is
        moved (`test-clock`, `POST /admin/clock`); a player with reminders off, in the same
        plight in another room, gets nothing."""
        per_move = 8 * 3600
        # The same notices pushed (Web Push) to a local push service: carcd trusts its
        # certificate and the sink's (one bundle).
        folder = tempfile.mkdtemp(prefix="push-", dir=self.dir)
        svc = PushService(folder)
        self.addCleanup(svc.stop)
        bundle = os.path.join(folder, "bundle.pem")
        with open(bundle, "w") as out:
            for cert in (self.sink.cert, svc.cert):
                with open(cert) as f:
                    out.write(f.read())
        srv = self.start({"test-clock": "0", "admin-token": ADMIN_TOKEN,
                          "outbound-ca-file": bundle, "outbound-private": "on",
                          "push-contact": "mailto:ops@carcd.test"})
        on, off = uniq("Rem"), uniq("Qui")
        on_token, on_csrf = self.signup(srv, on)
        off_token, off_csrf = self.signup(srv, off)
        s, _, doc = call(srv, "POST", "/api/push/subscriptions",
                         subscription(svc.endpoint("rem"), svc.p256dh, svc.auth),
                         cookie=on_token, headers={"X-CSRF-Token": on_csrf})
        self.assertEqual(s, 204, doc)
        s, _, doc = self.email(srv, "PUT", on_token, on_csrf,
                               {"address": "rem@carcd.test", "digest": False, "reminders": True})
        self.assertEqual(s, 204, doc)
        s, _, doc = self.email(srv, "PUT", off_token, off_csrf,
                               {"address": "qui@carcd.test", "digest": False, "reminders": False})
        self.assertEqual(s, 204, doc)
        clock = {"per_move": per_move, "on_timeout": "skip"}
        room, bot_name = self.away_on_my_turn(srv, on_token, clock)
        off_room, _ = self.away_on_my_turn(srv, off_token, clock)
        doc = h.fresh_state(srv, room)[1]
        self.assertIsNone(doc["seats"][0]["bot"])
        self.assertEqual(doc["current"], 0)  # the account's seat, nobody on it
        deadline = doc["clock"]["deadline"]
        self.assertEqual(h.fresh_state(srv, off_room)[1]["current"], 0)
        before = len(self.sink.messages())

        # Six hours in (a quarter of the turn and a little more left): the first reminder.
        status, body = admin_advance(srv, 6 * 3600 + 5 * 60)
        self.assertEqual(status, 200, body)
        got = self.wait_reminders("rem@carcd.test", 1)
        env, msg = got[0]
        self.assertEqual(env, "carcd@carcd.test rem@carcd.test tls")
        self.assertEqual(msg["Subject"], "carcd: your clock runs low in room " + room)
        self.assertEqual(msg["From"], "carcd <carcd@carcd.test>")
        self.assertEqual(msg["Auto-Submitted"], "auto-generated")
        self.assertTrue(msg["List-Unsubscribe"].startswith("<https://carcd.test/unsubscribe?"))
        body = msg.get_content()
        self.assertIn("It is your move, and your clock runs low:", body)
        sent = email.utils.parsedate_to_datetime(msg["Date"]).timestamp() * 1000
        self.assertLess(abs(sent - (deadline - 115 * 60 * 1000)), 120000)  # the server's time
        self.assertRegex(body, r"\* Room %s against %s: 1 h 5[0-9] min left\r?\n"
                         % (room, bot_name))
        self.assertIn("https://carcd.test/#room=" + room, body)
        self.assertEqual(self.metric(srv, 'carcd_mail_sent_total{kind="reminder",'
                                          'result="sent"}'), 1)

        # Seven hours in (less than the last hour left): the second one, then nothing more.
        status, body = admin_advance(srv, 3600)
        self.assertEqual(status, 200, body)
        got = self.wait_reminders("rem@carcd.test", 2)
        msg = got[1][1]
        self.assertEqual(msg["Subject"], "carcd: your clock runs low in room " + room)
        self.assertRegex(msg.get_content(), r"\* Room %s against %s: 5[0-9] min left\r?\n"
                         % (room, bot_name))
        self.assertEqual(self.metric(srv, 'carcd_mail_sent_total{kind="reminder",'
                                          'result="sent"}'), 2)
        status, body = admin_advance(srv, 30 * 60)
        self.assertEqual(status, 200, body)
        self.wait_reminders("rem@carcd.test", 2)
        self.assertEqual(self.reminders_to("qui@carcd.test"), [])
        # No digest either (both turned it off): the sink took these two and nothing else.
        self.assertEqual(len(self.sink.messages()), before + 2)
        self.assertEqual(h.fresh_state(srv, room)[1]["current"], 0)  # still the turn it was
        # Web Push got the same two time_low notices (and no your_turn: the player was there
        # when the turn came back).
        pushes = [json.loads(g["payload"]) for g in svc.received("rem", 2)]
        self.assertEqual(len(pushes), 2, pushes)
        for p in pushes:
            self.assertEqual((p["type"], p["room"], p["seat"], p["deadline"]),
                             ("time_low", room, 0, deadline), p)
            self.assertEqual(p["title"], "Your time is running out")


class MailPg(Mail):
    """The same on PostgreSQL: the day's claim in its account_mail table."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.pg = pg_util.shared()


if __name__ == "__main__":
    unittest.main()
