"""A page of another origin opens /ws (issue 25, finding 6).

A browser sends the page's origin in the upgrade's Origin header, and any page may open a
websocket to any server: without a check, a page elsewhere played and created rooms in its
visitors' names. carcd lets an upgrade go on when it has no Origin (bots, tools), when the
Origin's host and port are the request's Host (carcd's own pages, directly or behind a proxy that
passes Host on), or when the origin is in allowed-origins (`*`: any); it refuses every other with
HTTP 403 and a line of text before anything else happens, counts it in
carcd_upgrades_refused_total{reason="origin"}, and logs at most one line per 10 s."""

import json
import os
import re
import socket
import time
import unittest
import urllib.request

import harness as h
import fault_util as fu

TOKEN = "origin-metrics-token-0123456789"
LISTED = "https://play.example.org"


class Front:
    """What h.Client connects through: carcd itself, with the Origin a page would send (None:
    no Origin header at all, as a bot's client sends)."""

    def __init__(self, server, origin):
        self.server = server
        self.origin = origin
        self.ws_url = server.ws_url

    def ws_connect(self, timeout):
        kw = {"suppress_origin": True} if self.origin is None else {"origin": self.origin}
        return h.websocket.create_connection(self.ws_url, timeout=timeout,
                                             enable_multithread=False, **kw)


def upgrade(server, origin, behind=b""):
    """A raw upgrade with this Origin (and bytes sent right behind it): (status, headers, body)
    of the answer, read until the server closes."""
    s = socket.create_connection((server.host, server.port), timeout=5)
    try:
        s.sendall(("GET /ws HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                   "Sec-WebSocket-Version: 13\r\nOrigin: %s\r\n\r\n"
                   % (server.host, server.port, origin)).encode() + behind)
        out = b""
        while True:
            try:
                b = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not b:
                break
            out += b
    finally:
        s.close()
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else None
    headers = dict(ln.lower().split(": ", 1) for ln in lines[1:] if ": " in ln)
    return status, headers, body


def metric(server, name, label):
    req = urllib.request.Request(server.http_url + "metrics",
                                 headers={"Authorization": "Bearer " + TOKEN})
    with urllib.request.urlopen(req, timeout=5) as r:
        text = r.read().decode()
    m = re.search(r'^%s\{%s\} (\S+)$' % (re.escape(name), re.escape(label)), text, re.M)
    return float(m.group(1)) if m else None


def public_rooms(server):
    with urllib.request.urlopen(server.http_url + "api/rooms", timeout=5) as r:
        return json.loads(r.read())


def connects(server, origin):
    """True when a client with this Origin gets its welcome; False when the upgrade is
    answered 403."""
    try:
        c = h.Client(Front(server, origin))
    except h.websocket.WebSocketBadStatusException as e:
        if e.status_code != 403:
            raise AssertionError("refused with %s, not 403" % e.status_code)
        return False
    c.close()
    return True


class Origins(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = h.Server(config=dict(h.LIMITS, **{"allowed-origins": LISTED,
                                                     "metrics-token": TOKEN})).start()

    @classmethod
    def tearDownClass(cls):
        status = cls.srv.stop()
        assert status == 0, "carcd exited with %s" % status

    def test_a_foreign_page_is_refused_at_the_upgrade_and_creates_nothing(self):
        srv = self.srv
        before = metric(srv, "carcd_upgrades_refused_total", 'reason="origin"') or 0
        # The page's script sends `create` right behind its upgrade: nothing of it is read.
        create = h.ws_frame(json.dumps({"v": h.V, "type": "create", "id": 1, "name": "Eve",
                                        "seats": 2}))
        status, headers, body = upgrade(srv, "https://evil.example", behind=create)
        self.assertEqual(status, 403, body)
        self.assertIn(b"origin not allowed", body)
        self.assertTrue(headers.get("content-type", "").startswith("text/plain"), headers)
        self.assertEqual(headers.get("connection"), "close")
        self.assertEqual(headers.get("x-frame-options"), "deny")  # every answer's headers
        self.assertFalse(connects(srv, "https://evil.example"))
        self.assertFalse(connects(srv, "null"))  # a sandboxed page
        self.assertEqual(public_rooms(srv), [])
        self.assertEqual(metric(srv, "carcd_upgrades_refused_total", 'reason="origin"'),
                         before + 3)

    def test_own_pages_and_clients_without_origin_connect(self):
        srv = self.srv
        # The harness's client sends Origin http://HOST:PORT, as a page of carcd's own would.
        own = h.Client(srv)
        own.request_ok("create", "joined", name="Ann", seats=2)
        bot = h.Client(Front(srv, None))  # no Origin: bots, tools
        bot.request_ok("join", "joined", room=own.room, name="Bot")
        self.assertEqual([r["room"] for r in public_rooms(srv)], [own.room])
        own.close()
        bot.close()

    def test_allowed_origins_is_exact(self):
        srv = self.srv
        self.assertTrue(connects(srv, LISTED))
        self.assertTrue(connects(srv, "HTTPS://Play.Example.org:443"))  # the same origin
        for other in ("http://play.example.org", "https://play.example.org:8443",
                      "https://play.example.org.evil.example", "https://example.org",
                      "http://%s:%d" % (srv.host, srv.port + 1)):
            self.assertFalse(connects(srv, other), other)

    def test_refusals_are_logged_at_most_every_10_s(self):
        srv = self.srv
        time.sleep(0.05)
        mark = len(srv.lines)
        for _ in range(30):
            upgrade(srv, "https://flood.example")
        time.sleep(0.3)
        lines = fu.lines_matching(srv, "origin not allowed", mark)
        self.assertLessEqual(len(lines), 1, lines)
        # ... but refusals are logged: the first one of the module's server was.
        self.assertTrue(fu.lines_matching(srv, "websocket refused: origin not allowed"),
                        srv.log())
        self.assertFalse([ln for ln in srv.lines[mark:] if "warn" in ln or "error" in ln])
        self.assertTrue(srv.alive())


class AnyOrigin(unittest.TestCase):
    def test_star_allows_every_page(self):
        srv = h.Server(config=dict(h.LIMITS, **{"allowed-origins": "*"})).start()
        try:
            self.assertTrue(connects(srv, "https://evil.example"))
            self.assertTrue(connects(srv, "null"))
        finally:
            self.assertEqual(srv.stop(), 0)

    def test_a_malformed_list_is_a_bad_setting(self):
        import subprocess
        p = subprocess.run([h.CARCD, "--port", "0", "--allowed-origins", "https://a.org/"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("allowed-origins", p.stderr)


if __name__ == "__main__":
    unittest.main()
