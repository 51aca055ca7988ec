"""Behind a real nginx (Debian's package): TLS with a self-signed certificate made by `openssl
req`, the WebSocket upgrade proxied to carcd with X-Forwarded-For and X-Real-IP. nginx connects
to carcd from 127.0.0.3 (proxy_bind), clients connect to nginx from their own loopback addresses
(127.0.0.5, 127.0.0.6, ...). A whole game is played over wss:// through it; with
trusted-proxies = 127.0.0.3 the per-address limit counts each client, without it every client
shares nginx's count; headers from a peer that is not trusted are never read."""

import json
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import unittest

import harness as h

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
PROXY_ADDR = "127.0.0.3"  # nginx's source address towards carcd
LIMIT = 2                 # max-conns-per-ip of these tests

NGINX_CONF = """
worker_processes 1;
%(user)s
pid %(dir)s/nginx.pid;
error_log %(dir)s/error.log info;
daemon off;
events { worker_connections 128; }
http {
    access_log %(dir)s/access.log;
    client_body_temp_path %(dir)s/body;
    proxy_temp_path %(dir)s/proxy;
    fastcgi_temp_path %(dir)s/fastcgi;
    uwsgi_temp_path %(dir)s/uwsgi;
    scgi_temp_path %(dir)s/scgi;
    map $http_upgrade $connection_upgrade { default upgrade; '' close; }
    server {
        listen 127.0.0.1:%(port)d ssl;
        ssl_certificate %(dir)s/cert.pem;
        ssl_certificate_key %(dir)s/key.pem;
        location / {
            proxy_pass http://127.0.0.1:%(upstream)d;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Real-IP $remote_addr;
            proxy_bind %(bind)s;
            proxy_read_timeout 300s;
        }
    }
}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    """nginx in a temporary prefix, in the foreground, TLS on a loopback port, proxying to
    upstream (a carcd port) from PROXY_ADDR."""

    def __init__(self, upstream, tmp):
        self.dir = tmp
        self.upstream = upstream
        self.proc = None
        self.port = None

    def start(self, timeout=10):
        for _ in range(3):  # a free port may be taken by someone else meanwhile
            self.port = free_port()
            conf = os.path.join(self.dir, "nginx.conf")
            with open(conf, "w") as f:
                f.write(NGINX_CONF % {
                    "dir": self.dir, "port": self.port, "upstream": self.upstream,
                    "bind": PROXY_ADDR,
                    # As root, workers would switch to nobody, who cannot enter the temp dir.
                    "user": "user root;" if os.geteuid() == 0 else ""})
            check = subprocess.run([NGINX, "-t", "-p", self.dir, "-c", conf, "-e",
                                    os.path.join(self.dir, "error.log")],
                                   capture_output=True, text=True, timeout=10)
            if check.returncode != 0:
                raise AssertionError("nginx -t: %s" % check.stderr)
            self.proc = subprocess.Popen(
                [NGINX, "-p", self.dir, "-c", conf, "-e", os.path.join(self.dir, "error.log")],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                text=True, preexec_fn=h._die_with_parent)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                    return self
                except OSError:
                    time.sleep(0.05)
            self.stop()
        raise AssertionError("nginx did not start: %s" % self.error_log())

    def error_log(self):
        try:
            with open(os.path.join(self.dir, "error.log")) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: workers finish, then exit
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class Front:
    """What h.Client connects through: nginx's wss:// port, from a given source address,
    optionally with headers of the client's own (a client lying about its address)."""

    def __init__(self, nginx, cafile, source, header=None):
        self.nginx = nginx
        self.cafile = cafile
        self.source = source
        self.header = header or []

    @property
    def ws_url(self):
        return "wss://127.0.0.1:%d/ws" % self.nginx.port

    def ws_connect(self, timeout):
        raw = socket.create_connection(("127.0.0.1", self.nginx.port), timeout,
                                       source_address=(self.source, 0))
        ctx = ssl.create_default_context(cafile=self.cafile)  # the certificate is verified
        tls = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
        return h.websocket.create_connection(self.ws_url, timeout=timeout, socket=tls,
                                             header=self.header, enable_multithread=False)


class Direct:
    """Straight to carcd (peer 127.0.0.1), with headers a client made up."""

    def __init__(self, server, header):
        self.server = server
        self.header = header
        self.ws_url = server.ws_url

    def ws_connect(self, timeout):
        return h.websocket.create_connection(self.ws_url, timeout=timeout, header=self.header,
                                             enable_multithread=False)


def refused(front):
    """Connect through front; True when carcd refuses the connection (1008, no welcome)."""
    c = h.Client(front, welcome=False)
    try:
        msg = c.wait_for(lambda m: True, timeout=5)
        if msg.get("type") == "welcome":
            return False
        raise AssertionError("first message: %s" % msg)
    except h.Closed as e:
        if e.code != 1008:
            raise AssertionError("closed with %s, not 1008" % e.code)
        return True
    finally:
        c.close()


class BehindNginx(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for tool in (NGINX, OPENSSL):
            if not os.access(tool, os.X_OK):
                raise AssertionError("%s is missing: run deploy/deps.sh" % tool)
        cls.tmp = tempfile.TemporaryDirectory(prefix="carcd-nginx-")
        d = cls.tmp.name
        cls.cert = os.path.join(d, "cert.pem")
        r = subprocess.run([OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt",
                            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                            "-subj", "/CN=carcd test", "-addext", "subjectAltName=IP:127.0.0.1",
                            "-keyout", os.path.join(d, "key.pem"), "-out", cls.cert],
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise AssertionError("openssl req: %s" % r.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def start(self, trusted, fmt):
        config = dict(h.LIMITS, **{"max-conns-per-ip": LIMIT, "log-format": fmt,
                                   "log-level": "debug"})
        if trusted:
            config["trusted-proxies"] = trusted
        srv = h.Server(config).start()
        ngx_dir = tempfile.mkdtemp(prefix="nginx-", dir=self.tmp.name)
        shutil.copy(self.cert, ngx_dir)
        shutil.copy(os.path.join(self.tmp.name, "key.pem"), ngx_dir)
        try:
            ngx = Nginx(srv.port, ngx_dir).start()
        except Exception:
            srv.stop()
            raise
        return srv, ngx

    def front(self, ngx, source, header=None):
        return Front(ngx, self.cert, source, header)

    def stop(self, srv, ngx):
        ngx.stop()
        self.assertEqual(srv.stop(), 0, srv.log())

    def play_game(self, srv, fa, fb):
        """Ann through fa, Bob through fb: create, join, start, play to the end over wss://."""
        ann = h.Client(fa, name="Ann")
        ann.request_ok("create", "joined", name="Ann", seats=2, sets=["base"])
        ann.wait_type("state")
        bob = h.Client(fb, name="Bob")
        bob.request_ok("join", "joined", room=ann.room, name="Bob")
        bob.wait_type("state")
        players = [ann, bob]
        h.sync_all(players, bob.seq)
        final = h.play_to_end(players, random.Random(15))
        self.assertEqual(final["phase"], "over")
        self.assertEqual(ann.doc, bob.doc)
        # What the players built from deltas through nginx is what carcd holds (asked directly).
        seq, fresh = h.fresh_state(srv, ann.room)
        self.assertEqual((ann.seq, ann.doc), (seq, fresh))
        return players, ann.moves

    def test_trusted_counts_each_client(self):
        srv, ngx = self.start(PROXY_ADDR, "json")
        keep = []
        try:
            a, b = self.front(ngx, "127.0.0.5"), self.front(ngx, "127.0.0.6")
            # A whole game over wss://, Ann from .5 and Bob from .6 (one connection each).
            players, moves = self.play_game(srv, a, b)
            self.assertGreater(moves, 10)
            keep += players
            # LIMIT connections per client address, not per nginx.
            keep += [h.Client(a), h.Client(b)]
            self.assertTrue(refused(a), "a third connection from 127.0.0.5 was let in")
            self.assertTrue(refused(b), "a third connection from 127.0.0.6 was let in")
            # A client's own X-Forwarded-For does not make it someone else: nginx appends the
            # address it heard from, and carcd takes the right-most one nginx did not add.
            liar = self.front(ngx, "127.0.0.7", ["X-Forwarded-For: 127.0.0.9"])
            keep += [h.Client(liar), h.Client(liar)]
            self.assertTrue(refused(liar))
            self.assertFalse(refused(self.front(ngx, "127.0.0.9")),
                             "127.0.0.9 was charged for the liar's connections")
            for c in keep:
                if c.closed is None:
                    c.request_ok("ping", "pong")
            # The logs name the client, not nginx.
            ev = [json.loads(l) for l in list(srv.lines) if l.startswith("{")]
            refusals = [e.get("addr") for e in ev
                        if e["msg"].startswith("connection refused")]
            self.assertEqual(sorted(refusals), ["127.0.0.5", "127.0.0.6", "127.0.0.7"], refusals)
            opened = {e.get("addr") for e in ev if e["msg"] == "connection open"}
            self.assertNotIn(PROXY_ADDR, opened)
            self.assertTrue({"127.0.0.5", "127.0.0.6", "127.0.0.7", "127.0.0.9"} <= opened, opened)
            created = [e for e in ev if e["msg"] == "room created"]
            self.assertEqual([e.get("addr") for e in created], ["127.0.0.5"])
        finally:
            for c in keep:
                c.close()
            self.stop(srv, ngx)

    def test_untrusted_shares_the_proxy_count(self):
        srv, ngx = self.start(None, "text")
        keep = []
        try:
            a, b = self.front(ngx, "127.0.0.5"), self.front(ngx, "127.0.0.6")
            keep += [h.Client(a), h.Client(b)]
            # nginx is not trusted: every client is 127.0.0.3, and the limit is reached.
            self.assertTrue(refused(a))
            self.assertTrue(refused(self.front(ngx, "127.0.0.8")))
            for c in keep:
                c.request_ok("ping", "pong")
            # The log's reader thread may trail the refusal a moment on a busy machine.
            line = "connection refused: too many connections from its address"
            deadline = time.monotonic() + 5
            while line not in "\n".join(srv.lines) and time.monotonic() < deadline:
                time.sleep(0.05)
            text = "\n".join(srv.lines)
            self.assertIn(line, text)
            self.assertIn("addr=%s" % PROXY_ADDR, text)
            self.assertNotIn("addr=127.0.0.5", text)
        finally:
            for c in keep:
                c.close()
            self.stop(srv, ngx)

    def test_headers_of_untrusted_peers_are_ignored(self):
        """Straight to carcd (peer 127.0.0.1, not a trusted proxy), each connection claiming
        another forwarded address: they all count as 127.0.0.1."""
        srv, ngx = self.start(PROXY_ADDR, "text")
        keep = []
        try:
            for i in range(LIMIT):
                keep.append(h.Client(Direct(srv, ["X-Forwarded-For: 10.0.0.%d" % i,
                                                  "X-Real-IP: 10.0.1.%d" % i])))
            self.assertTrue(refused(Direct(srv, ["X-Forwarded-For: 10.9.9.9",
                                                 "X-Real-IP: 10.9.9.8"])))
            text = "\n".join(srv.lines)
            self.assertNotIn("addr=10.", text)
        finally:
            for c in keep:
                c.close()
            self.stop(srv, ngx)
