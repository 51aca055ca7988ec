"""deploy_util.py: what tests/integration/test_deploy.py needs to run the programs that read
deploy/ (systemd-analyze, nginx, haproxy, promtool, openssl, strace) on loopback, in temporary
directories, bounded in time; and readers for the unit and the Dockerfile."""

import http.client
import http.server
import json
import os
import random
import re
import socket
import ssl
import subprocess
import threading
import time

import harness as h

DEPLOY = os.path.join(h.ROOT, "deploy")

def read(name):
    with open(os.path.join(DEPLOY, name)) as f:
        return f.read()


def run(args, timeout=60, **kw):
    """Run a program to its end; (exit status, stdout + stderr)."""
    p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout, **kw)
    return p.returncode, p.stdout


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=10):
    """Until something accepts on 127.0.0.1:port; fails if proc exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("exited with %s before listening on %d" % (proc.returncode, port))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listens on %d after %s s" % (port, timeout))


def stop(proc, timeout=10):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def unit_values(text):
    """systemd unit text -> {key: [values in order]} (sections flattened; enough here)."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;[" or "=" not in line:
            continue
        k, v = line.split("=", 1)
        out.setdefault(k.strip(), []).append(v.strip())
    return out


def seconds(text):
    m = re.fullmatch(r"(\d+)(s|min)?", text)
    if not m:
        raise ValueError(text)
    return int(m.group(1)) * (60 if m.group(2) == "min" else 1)


def syscall_group(name):
    """The system calls of a systemd filter group (@name), nested groups expanded."""
    code, out = run(["systemd-analyze", "syscall-filter", name])
    if code != 0:
        raise RuntimeError(out)
    calls = set()
    for line in out.splitlines()[1:]:
        t = line.strip()
        if not t or t.startswith("#"):
            continue
        calls |= syscall_group(t) if t.startswith("@") else {t}
    return calls


def tls_pair(d):
    """A self-signed certificate for 127.0.0.1 in d: (cert, key, cert+key in one file)."""
    cert, key, both = (os.path.join(d, n) for n in ("cert.pem", "key.pem", "both.pem"))
    code, out = run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                     "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                     "-keyout", key, "-out", cert])
    if code != 0:
        raise RuntimeError(out)
    with open(both, "w") as f:
        f.write(open(cert).read() + open(key).read())
    return cert, key, both


def release_carcd(tmp):
    """The carcd a host would run: the one under test, or, when that is a sanitizer build
    (make test-asan), a plain build of the same sources made in tmp (a sanitizer's runtime
    links libraries and makes system calls of its own, and LeakSanitizer fails under strace)."""
    carcd = os.path.abspath(h.CARCD)
    code, dyn = run(["readelf", "-d", carcd])
    if code != 0 or not re.search(r"\[lib(a|ub)san\.", dyn):
        return carcd
    build = os.path.join(tmp, "build")
    code, out = run(["make", "--no-print-directory", "-j2", "BUILD=" + build, "server"],
                    cwd=h.ROOT, timeout=600)
    if code != 0:
        raise RuntimeError("make server: " + out[-3000:])
    return os.path.join(build, "carcd")


# ---------------------------------------------------------------------------------------------
# The proxies' configs as a host would use them, with this test's paths and ports put in.

def nginx_conf(d, cert, key, http_port=None, https_port=None, upstream=None):
    """deploy/nginx.conf with its paths in d and the certificate given; with ports, listening
    on them (IPv4 loopback only) and proxying to 127.0.0.1:upstream."""
    s = read("nginx.conf")
    s = s.replace("/etc/letsencrypt/live/carcd.example.org/fullchain.pem", cert)
    s = s.replace("/etc/letsencrypt/live/carcd.example.org/privkey.pem", key)
    s = s.replace("/run/nginx.pid", os.path.join(d, "nginx.pid"))
    s = s.replace("/var/log/nginx/", d + "/")
    s = s.replace("/var/www/html", d)
    if os.geteuid() != 0:  # only root can switch its workers to www-data
        s = s.replace("user www-data;", "")
    if http_port:
        s = re.sub(r"^\s*listen \[::\].*\n", "", s, flags=re.M)
        s = s.replace("listen 80;", "listen 127.0.0.1:%d;" % http_port)
        s = s.replace("listen 443 ", "listen 127.0.0.1:%d " % https_port)
        s = s.replace("server 127.0.0.1:8080;", "server 127.0.0.1:%d;" % upstream)
    path = os.path.join(d, "nginx.conf")
    with open(path, "w") as f:
        f.write(s)
    return path


def haproxy_cfg(d, both, http_port=None, https_port=None, upstream=None):
    s = read("haproxy.cfg").replace("/etc/haproxy/certs/carcd.pem", both)
    if os.geteuid() != 0:  # only root can become haproxy
        s = re.sub(r"^\s*(user|group) haproxy\n", "", s, flags=re.M)
    if http_port:
        s = re.sub(r"^\s*bind :::.*\n", "", s, flags=re.M)
        s = s.replace("bind :80", "bind 127.0.0.1:%d" % http_port)
        s = s.replace("bind :443 ", "bind 127.0.0.1:%d " % https_port)
        s = s.replace("127.0.0.1:8080", "127.0.0.1:%d" % upstream)
        s = s.replace("log /dev/log local0", "log stderr local0")
    path = os.path.join(d, "haproxy.cfg")
    with open(path, "w") as f:
        f.write(s)
    return path


class Echo(http.server.BaseHTTPRequestHandler):
    """A backend that answers every GET with the request's headers as JSON."""
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path == "/healthz":
            body = b"ok"
        else:
            body = json.dumps({"path": self.path, "headers": {k.lower(): v for k, v in
                                                             self.headers.items()}}).encode()
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class QuietHTTPServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # HAProxy's health checks hang up without a request


class EchoServer:
    def __enter__(self):
        self.httpd = QuietHTTPServer(("127.0.0.1", 0), Echo)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


class Via:
    """What h.Client needs of a server, for a proxy's wss:// address."""

    def __init__(self, port):
        self.ws_url = "wss://127.0.0.1:%d/ws" % port


def https_get(port, cert, path, headers=None):
    ctx = ssl.create_default_context(cafile=cert)
    c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
    try:
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def http_get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def play_game_via(test, port, cert, srv):
    """A 2-player base game to its end through the proxy on port; checks the final document
    against a direct connection's snapshot of the same room."""
    old = os.environ.get("WEBSOCKET_CLIENT_CA_BUNDLE")
    os.environ["WEBSOCKET_CLIENT_CA_BUNDLE"] = cert
    try:
        players = h.create_room(Via(port), ["Ann", "Bob"])
        try:
            doc = h.play_to_end(players, random.Random(7))
            test.assertEqual(doc["phase"], "over")
            test.assertEqual(h.fresh_state(srv, players[0].room)[1], doc)
        finally:
            for c in players:
                c.close()
    finally:
        if old is None:
            os.environ.pop("WEBSOCKET_CLIENT_CA_BUNDLE", None)
        else:
            os.environ["WEBSOCKET_CLIENT_CA_BUNDLE"] = old


# ---------------------------------------------------------------------------------------------
# Dockerfile

def dockerfile_stages(text):
    """[(base image, [(INSTRUCTION, argument text)])], continuation lines joined."""
    text = re.sub(r"\\\n", " ", text)
    stages = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instr, _, arg = line.partition(" ")
        instr = instr.upper()
        if instr == "FROM":
            stages.append((arg.split()[0], []))
        else:
            stages[-1][1].append((instr, arg.strip()))
    return stages


def apt_packages(stage):
    """The packages a stage's RUN lines give to apt-get install."""
    pkgs = []
    for instr, arg in stage[1]:
        if instr != "RUN":
            continue
        for m in re.finditer(r"apt-get install ([^&;]*)", arg):
            pkgs += [w for w in m.group(1).split() if not w.startswith("-")]
    return pkgs


def package_of(path):
    """The Debian package holding a file (merged /usr: tried as /lib/... too)."""
    real = os.path.realpath(path)
    for cand in (path, real, re.sub(r"^/usr/lib/", "/lib/", real)):
        code, out = run(["dpkg", "-S", cand])
        if code == 0:
            return out.split(":")[0]
    raise AssertionError("no Debian package has %s" % path)
