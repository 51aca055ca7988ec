"""GET /metrics scraped by a real Prometheus (Debian's `prometheus` package, deploy/deps.sh).

carcd runs with a metrics listener (metrics-port, loopback) and a metrics token. A Prometheus
started in a temporary directory scrapes both, each second: the listener without a token, the
public port with `Authorization: Bearer TOKEN`. During a game played over websockets its HTTP API
(/api/v1/query) must see carcd_moves_total go up. `promtool check metrics` must accept a scraped
exposition with no complaint. The public port answers /metrics 401 to a missing or wrong token,
200 to the right one, and 404 when no token is configured; the listener serves only /metrics and
/healthz, and refuses websockets. No room id, seat token or password may appear in the text.
Every wait is bounded; Prometheus is killed at the end."""

import http.client
import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.parse

import harness as h

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
TOKEN = "m3tr1cs-t0ken-for-the-test-0123456789"
PASSWORD = "pw-for-the-metrics-test"
FAST = dict(h.LIMITS, **{"rate": 2000, "burst": 2000, "flood-rate": 4000, "flood-burst": 4000})


def free_port():
    """A loopback port nobody listens on now (the kernel's pick; closed again at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(host, port, method, path, headers=None, timeout=10):
    c = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode()
    finally:
        c.close()


def wait_until(what, fn, timeout, every=0.25):
    """fn() until it returns something true, at most timeout seconds; fails with what."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = fn()
        except (OSError, http.client.HTTPException, ValueError) as e:
            last = e
        else:
            if last:
                return last
        time.sleep(every)
    raise AssertionError("timed out after %.0f s waiting for %s (last: %r)" % (timeout, what, last))


class Prometheus:
    """prometheus on 127.0.0.1 in a temporary directory, scraping the given jobs every second."""

    def __init__(self, jobs):
        self.tmp = tempfile.TemporaryDirectory(prefix="carcd-prom-")
        self.port = free_port()
        cfg = {"global": {"scrape_interval": "1s", "scrape_timeout": "1s",
                          "evaluation_interval": "1s"},
               "scrape_configs": jobs}
        self.cfg = os.path.join(self.tmp.name, "prometheus.yml")
        with open(self.cfg, "w") as f:
            json.dump(cfg, f)  # JSON is YAML
        self.logf = open(os.path.join(self.tmp.name, "prometheus.log"), "w+")
        self.proc = subprocess.Popen(
            [PROMETHEUS, "--config.file=" + self.cfg,
             "--storage.tsdb.path=" + os.path.join(self.tmp.name, "data"),
             "--web.listen-address=127.0.0.1:%d" % self.port, "--log.level=warn"],
            cwd=self.tmp.name, stdin=subprocess.DEVNULL, stdout=self.logf,
            stderr=subprocess.STDOUT, preexec_fn=h._die_with_parent)
        wait_until("Prometheus to be ready", self.ready, 60)

    def ready(self):
        if self.proc.poll() is not None:
            raise AssertionError("prometheus exited with %s:\n%s" % (self.proc.returncode,
                                                                     self.log()))
        return request("127.0.0.1", self.port, "GET", "/-/ready", timeout=2)[0] == 200

    def query(self, expr):
        """The instant vector of expr as {job: float value}."""
        status, _, body = request("127.0.0.1", self.port, "GET",
                                  "/api/v1/query?" + urllib.parse.urlencode({"query": expr}),
                                  timeout=5)
        if status != 200:
            raise AssertionError("query %s: %d %s" % (expr, status, body[:300]))
        doc = json.loads(body)
        if doc.get("status") != "success":
            raise AssertionError("query %s: %s" % (expr, body[:300]))
        return {r["metric"].get("job", ""): float(r["value"][1]) for r in doc["data"]["result"]}

    def log(self):
        self.logf.flush()
        self.logf.seek(0)
        return self.logf.read()[-4000:]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.logf.close()
        self.tmp.cleanup()


def promtool_check(text):
    """(exit status, output) of `promtool check metrics` reading text."""
    p = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True,
                       timeout=30)
    return p.returncode, (p.stdout + p.stderr).strip()


@unittest.skipUnless(os.access(PROMETHEUS, os.X_OK) and os.access(PROMTOOL, os.X_OK),
                     "Debian's prometheus package is not installed (deploy/deps.sh installs it)")
class Metrics(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mport = free_port()
        cfg = dict(FAST, **{"metrics-port": cls.mport, "metrics-token": TOKEN})
        cls.srv = h.Server(config=cfg).start()

    @classmethod
    def tearDownClass(cls):
        status = cls.srv.stop()
        if status != 0:
            raise AssertionError("carcd exited with %s:\n%s" % (status, cls.srv.log()))

    def metrics_port(self, method, path, headers=None):
        return request("127.0.0.1", self.mport, method, path, headers)

    def public(self, method, path, headers=None):
        return request(self.srv.host, self.srv.port, method, path, headers)

    def test_prometheus_sees_moves_during_a_game(self):
        prom = Prometheus([
            {"job_name": "carcd", "static_configs": [{"targets": ["127.0.0.1:%d" % self.mport]}]},
            {"job_name": "carcd-public", "authorization": {"credentials": TOKEN},
             "static_configs": [{"targets": ["127.0.0.1:%d" % self.srv.port]}]},
        ])
        try:
            up = wait_until("both targets up",
                            lambda: (lambda u: u if u.get("carcd") == 1 and
                                     u.get("carcd-public") == 1 else None)(prom.query("up")), 30)
            self.assertEqual(up, {"carcd": 1.0, "carcd-public": 1.0})
            before = wait_until("a first sample of carcd_moves_total",
                                lambda: prom.query("carcd_moves_total").get("carcd") is not None
                                and prom.query("carcd_moves_total"), 30)["carcd"]

            players = h.create_room(self.srv, ["Ann", "Bob"], sets=["base"], password=PASSWORD)
            rng = random.Random(15)
            players[0].send({"v": h.V, "type": "start"})
            h.sync_all(players, players[0].seq + 1)
            moves = 12
            for _ in range(moves):
                mover = h.mover_of(players)
                ack = mover.request("play", **h.random_move(rng, mover))
                self.assertEqual(ack["type"], "ack", ack)
                h.sync_all(players, ack["seq"])

            after = wait_until("Prometheus to see %d more moves" % moves,
                               lambda: (lambda v: v if v.get("carcd", -1) >= before + moves and
                                        v.get("carcd-public", -1) >= before + moves else None)(
                                   prom.query("carcd_moves_total")), 30)
            self.assertGreaterEqual(after["carcd"], before + moves)
            # The gauges and histograms arrived too: two players seated, and each move's delta
            # (after its commit) and each commit timed.
            wait_until("carcd_connections{kind=player} = 2",
                       lambda: prom.query('carcd_connections{kind="player"}').get("carcd") == 2,
                       15)
            bc = prom.query("carcd_move_broadcast_seconds_count")["carcd"]
            self.assertGreaterEqual(bc, moves)
            self.assertGreaterEqual(prom.query("carcd_store_commit_seconds_count")["carcd"], 1)
            self.assertGreater(prom.query("process_resident_memory_bytes")["carcd"], 1 << 20)
            for c in players:
                c.close()
        finally:
            prom.stop()

    def test_promtool_accepts_the_exposition(self):
        # Something in every family first: a game's messages, an error, a resume.
        players = h.create_room(self.srv, ["Cyrano", "Dione"], sets=["base"], password=PASSWORD)
        players[0].send({"v": h.V, "type": "start"})
        h.sync_all(players, players[0].seq + 1)
        mover = h.mover_of(players)
        ack = mover.request("play", **h.random_move(random.Random(3), mover))
        self.assertEqual(ack["type"], "ack", ack)
        err = players[0].request("chat", text="")
        self.assertEqual(err["type"], "error", err)
        tokens = [c.token for c in players]
        room = players[0].room
        players[1].close()
        back = h.Client(self.srv)
        back.request_ok("resume", "joined", room=room, token=tokens[1])
        for c in (players[0], back):
            c.close()
        for path_get in (lambda: self.metrics_port("GET", "/metrics"),
                         lambda: self.public("GET", "/metrics",
                                             {"Authorization": "Bearer " + TOKEN})):
            status, headers, text = path_get()
            self.assertEqual(status, 200)
            self.assertEqual(headers["content-type"], "text/plain; version=0.0.4; charset=utf-8")
            rc, out = promtool_check(text)
            self.assertEqual((rc, out), (0, ""), text[:2000])
            for name in ("carcd_rooms", "carcd_connections", "carcd_messages_received_total",
                         "carcd_messages_sent_total", "carcd_errors_total", "carcd_closes_total",
                         "carcd_resumes_total", "carcd_moves_total",
                         "carcd_move_broadcast_seconds", "carcd_store_commit_seconds",
                         "carcd_store_commit_failures_total", "carcd_loop_busy_seconds_total",
                         "carcd_loop_turns_total", "carcd_loop_longest_turn_seconds",
                         "process_resident_memory_bytes", "process_open_fds",
                         "process_start_time_seconds"):
                self.assertIn("\n# TYPE %s " % name, text, name)
            self.assertIn('carcd_errors_total{code="bad_request"} ', text)
            self.assertNotIn('carcd_errors_total{code="bad_request"} 0\n', text)
            self.assertNotIn("\ncarcd_resumes_total 0\n", text)
            for secret in tokens + [room, PASSWORD, TOKEN, "Cyrano", "Dione"]:
                self.assertNotIn(secret, text)
        # A broken exposition is refused: promtool is really checking.
        self.assertNotEqual(promtool_check("# TYPE x counter\nx{a=\"1\"} one\n")[0], 0)

    def test_token_on_the_public_port(self):
        cases = [({}, 401), ({"Authorization": "Bearer"}, 401),
                 ({"Authorization": "Bearer wrong-token-wrong-token-wrong"}, 401),
                 ({"Authorization": "Bearer " + TOKEN[:-1]}, 401),
                 ({"Authorization": "Bearer " + TOKEN + "x"}, 401),
                 ({"Authorization": "Basic " + TOKEN}, 401),
                 ({"Authorization": "Bearer " + TOKEN}, 200)]
        for headers, want in cases:
            status, hdrs, body = self.public("GET", "/metrics", headers)
            self.assertEqual(status, want, headers)
            if want == 401:
                self.assertTrue(hdrs.get("www-authenticate", "").startswith("Bearer"), hdrs)
                self.assertNotIn("carcd_", body)
                self.assertNotIn(TOKEN, body)
            else:
                self.assertIn("\ncarcd_moves_total ", body)
        status, hdrs, body = self.public("HEAD", "/metrics", {"Authorization": "Bearer " + TOKEN})
        self.assertEqual((status, body), (200, ""))
        self.assertGreater(int(hdrs["content-length"]), 1000)
        # The token never reaches the log.
        self.assertNotIn(TOKEN, "\n".join(self.srv.lines))

    def test_no_token_no_public_metrics(self):
        srv = h.Server(config=dict(FAST)).start()
        try:
            for headers in ({}, {"Authorization": "Bearer " + TOKEN}):
                self.assertEqual(request(srv.host, srv.port, "GET", "/metrics", headers)[0], 404)
            self.assertEqual(request(srv.host, srv.port, "GET", "/healthz")[0], 200)
        finally:
            self.assertEqual(srv.stop(), 0)

    def test_metrics_listener_serves_only_metrics(self):
        self.assertEqual(self.metrics_port("GET", "/healthz")[:3:2], (200, "ok"))
        for path in ("/", "/index.html", "/api/rooms", "/api/stats", "/ws"):
            self.assertEqual(self.metrics_port("GET", path)[0], 404, path)
        # (Other methods get 405: tests/test_metrics.c. Not over the wire here: a POST with
        # Content-Length: 0, as http.client sends it, gets its 405's headers but no body from
        # lws 4.1.6, on either port.)
        # A websocket upgrade is refused on the metrics listener, accepted on the public port.
        upgrade = {"Upgrade": "websocket", "Connection": "Upgrade",
                   "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"}
        try:
            status = self.metrics_port("GET", "/ws", upgrade)[0]
        except (ConnectionError, http.client.HTTPException):
            status = None  # dropped: refused too
        self.assertNotEqual(status, 101)
        c = h.Client(self.srv)
        c.close()

    def test_metrics_port_in_use_is_refused(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            port = s.getsockname()[1]
            p = subprocess.run([h.CARCD, "--port", "0", "--storage", "off",
                                "--metrics-port", str(port)],
                               cwd=h.ROOT, capture_output=True, text=True, timeout=20)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("cannot listen for metrics", p.stderr)

    def test_bad_token_setting(self):
        for value in ("short", "has a space in it, sixteen+", ""):
            p = subprocess.run([h.CARCD, "--port", "0", "--storage", "off",
                                "--metrics-token", value],
                               cwd=h.ROOT, capture_output=True, text=True, timeout=20)
            self.assertEqual(p.returncode, 2, value)
            self.assertIn("metrics-token", p.stderr)
            if value:
                self.assertNotIn(value, p.stderr)


if __name__ == "__main__":
    unittest.main()
