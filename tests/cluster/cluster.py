"""cluster.py: a carcd cluster on loopback for tests/cluster/run.py and the cluster benchmark.

Cluster(n).start() runs, in a scratch directory of its own:
  - Debian's redis-server on a free port, no persistence (Redis);
  - a PostgreSQL cluster of its own (tests/integration/pg_util.py), one database for all nodes;
  - n carcd nodes n1..nN (harness.Server: port 0, each its own data directory and log file)
    with --node-id, --redis-url, --storage postgres, --postgres-url and --lease-ttl;
  - HAProxy, its config built from deploy/haproxy-cluster.cfg by haproxy_config() for the
    nodes' ports, on a free port; start() returns once HAProxy reports every node up.
plain=True starts the nodes without the cluster flags (SQLite each): to check HAProxy and the
process handling against a carcd that has no cluster mode.

Cluster.front is what harness.Client takes (ws_connect) for /ws; front.path("/n/n2/ws") one for
another path. Node processes are harness.Server objects: kill() (SIGKILL), stop() (SIGTERM),
signal(SIGSTOP/SIGCONT), restart() on the same port with the same id.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

import harness as h  # noqa: E402
import pg_util  # noqa: E402
import websocket  # noqa: E402

EXAMPLE = os.path.join(ROOT, "deploy", "haproxy-cluster.cfg")
EXAMPLE_NODES = ["n1", "n2", "n3"]

# The nodes' settings: the integration suite's limits, with fast clients (a test plays as fast
# as the server answers) and, since every client comes through HAProxy from 127.0.0.1, room
# for all of them on one address.
# Password hashes at the smallest cost carcd accepts (the accounts case signs up once).
NODE_CONFIG = dict(h.LIMITS, **{
    "rate": 2000, "burst": 2000, "flood-rate": 4000, "flood-burst": 4000,
    "max-conns-per-ip": 20000, "trusted-proxies": "127.0.0.1",
    "password-hash-ops": 2, "password-hash-mem-kib": 19456,
})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=10, what="process"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("%s exited with %s before listening on %d"
                               % (what, proc.returncode, port))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("%s: nothing listens on %d after %s s" % (what, port, timeout))


# ---------------------------------------------------------------------------------------------
# The HAProxy config

def _node_line(line, nodes, addr):
    """A line of the example naming n1 is repeated for every node (id and address replaced);
    one naming n2 or n3 (and not n1) is dropped; any other line is kept."""
    if re.search(r"\bn1\b", line):
        return [re.sub(r"\bn1\b", n, line).replace("127.0.0.1:8081", addr[n]) for n in nodes]
    if re.search(r"\bn[23]\b", line):
        return []
    return [line]


def haproxy_config(nodes, addr, bind, extra_global=(), text=None):
    """deploy/haproxy-cluster.cfg for these nodes: nodes, a list of ids; addr[id] "host:port";
    bind "127.0.0.1:PORT" replaces the example's bind lines; the global section's log, user and
    group lines give way to logging to stderr (HAProxy runs in the foreground, not as root's
    service) plus extra_global lines. `backend n1` sections are repeated per node."""
    text = open(EXAMPLE).read() if text is None else text
    out = []
    section = None   # the current top-level section's first line
    skip = False     # inside a section for n2/n3 (dropped)
    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            section = line.split()
            skip = False
            if section[0] == "backend" and section[1] in EXAMPLE_NODES:
                if section[1] != "n1":
                    skip = True
                    continue
                # a node's own backend: the whole section, once per node; collected below
                out.append(("NODE-SECTION", []))
                continue
            out.append(line)
            if section[0] == "global":
                out.append("    log stderr format raw local0")
                out.extend("    " + g for g in extra_global)
            continue
        if skip:
            continue
        if section is not None and section[0] == "global" and \
                re.match(r"\s*(log|user|group|chroot|daemon)\b", line):
            continue
        if re.match(r"\s*bind\s", line):
            if ":::" in line:
                continue
            line = re.sub(r"bind\s+\S+", "bind " + bind, line)
        if out and isinstance(out[-1], tuple):
            out[-1][1].append(line)
            continue
        out.extend(_node_line(line, nodes, addr))
    text_out = []
    for item in out:
        if isinstance(item, tuple):
            for n in nodes:
                text_out.append("backend " + n)
                for ln in item[1]:
                    text_out.append(re.sub(r"\bn1\b", n, ln).replace("127.0.0.1:8081", addr[n]))
        else:
            text_out.append(item)
    return "\n".join(text_out) + "\n"


def haproxy_check(path):
    """haproxy -c -f path: (ok, output)."""
    p = subprocess.run(["haproxy", "-c", "-f", path], capture_output=True, text=True, timeout=30)
    return p.returncode == 0, (p.stdout + p.stderr).strip()


# ---------------------------------------------------------------------------------------------
# Redis

class Redis:
    """redis-server on 127.0.0.1, a free port, no persistence, its files in dir."""

    def __init__(self, dir):
        self.dir = os.path.join(dir, "redis")
        os.makedirs(self.dir, exist_ok=True)
        self.port = None
        self.proc = None
        self.log_path = os.path.join(self.dir, "redis.log")

    @property
    def url(self):
        return "redis://127.0.0.1:%d" % self.port

    def _spawn(self):
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir",
             self.dir, "--save", "", "--appendonly", "no", "--logfile", self.log_path,
             "--daemonize", "no"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, preexec_fn=h._die_with_parent)

    def start(self):
        if shutil.which("redis-server") is None:
            raise RuntimeError("no redis-server (deploy/deps.sh installs redis-server)")
        for _ in range(5):
            self.port = free_port()
            self._spawn()
            try:
                wait_port(self.port, self.proc, what="redis-server")
                if self.command("PING") == "PONG":
                    return self
            except RuntimeError:
                pass
            self.stop()
        raise RuntimeError("redis-server did not start; its log:\n%s" % self.log())

    def kill(self):
        """SIGKILL: gone with everything it held (no persistence)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self):
        """Start again, empty, on the same port (as a Redis without persistence after a crash)."""
        self.kill()
        self._spawn()
        wait_port(self.port, self.proc, what="redis-server")
        if self.command("PING") != "PONG":
            raise RuntimeError("redis-server did not answer after its restart")

    def command(self, *args):
        """One command over RESP; the reply (str, int, None, or a list of them)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            req = "*%d\r\n" % len(args) + "".join(
                "$%d\r\n%s\r\n" % (len(str(a).encode()), a) for a in args)
            s.sendall(req.encode())
            f = s.makefile("rb")
            return _resp_read(f)

    def log(self):
        try:
            return open(self.log_path, errors="replace").read()[-3000:]
        except OSError:
            return ""

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _resp_read(f):
    line = f.readline().decode().rstrip("\r\n")
    kind, rest = line[:1], line[1:]
    if kind == "+":
        return rest
    if kind == "-":
        raise RuntimeError("redis: " + rest)
    if kind == ":":
        return int(rest)
    if kind == "$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)
        return data[:-2].decode(errors="replace")
    if kind == "*":
        n = int(rest)
        return None if n < 0 else [_resp_read(f) for _ in range(n)]
    raise RuntimeError("redis: unexpected reply %r" % line)


# ---------------------------------------------------------------------------------------------
# Paths through HAProxy, as harness.Client takes them

class Path:
    """ws://127.0.0.1:PORT/PATH through HAProxy; ws_connect(timeout) opens it (raises
    websocket.WebSocketBadStatusException on a 503 while the node is down)."""

    def __init__(self, port, path):
        self.port = port
        self.path = path

    @property
    def ws_url(self):
        return "ws://127.0.0.1:%d%s" % (self.port, self.path)

    @property
    def http_url(self):
        """The HTTP base of this path's node (/n/NODE/) or of the shared paths (/)."""
        base = self.path[:-len("ws")] if self.path.endswith("/ws") else "/"
        return "http://127.0.0.1:%d%s" % (self.port, base)

    def ws_connect(self, timeout):
        return websocket.create_connection(self.ws_url, timeout=timeout,
                                           enable_multithread=False)


def http_get(url, timeout=5):
    """(status, body text) of a GET; status None when nothing answered."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except (urllib.error.URLError, OSError) as e:
        return None, str(e)


def http_request(method, url, body=None, headers=None, timeout=10):
    """(status, headers with lower-case names, body text) of one request; body, if given, is
    sent as JSON. status None when nothing answered."""
    data = None if body is None else json.dumps(body).encode()
    hd = dict(headers or {})
    if data is not None:
        hd.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(url, data=data, headers=hd, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, {k.lower(): v for k, v in r.getheaders()}, \
                r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, \
            e.read().decode(errors="replace")
    except (urllib.error.URLError, OSError) as e:
        return None, {}, str(e)


# ---------------------------------------------------------------------------------------------
# The cluster

class Node(h.Server):
    """One carcd node: harness.Server with the node's flags, restartable on its port."""

    def __init__(self, cluster, node_id):
        self.node_id = node_id
        self.cluster = cluster
        self.fixed_port = None
        self.data = os.path.join(cluster.dir, node_id)
        os.makedirs(self.data, exist_ok=True)
        super().__init__(config=dict(NODE_CONFIG), extra=self._flags(), data_dir=self.data)

    def _flags(self):
        c = self.cluster
        if c.plain:
            f = ["--storage", "sqlite"]
        else:
            f = ["--node-id", self.node_id, "--redis-url", c.redis.url, "--storage", "postgres",
                 "--postgres-url", c.pg_url, "--lease-ttl", str(c.lease_ttl)]
        if self.fixed_port is not None:
            f += ["--port", str(self.fixed_port)]  # after harness's --port 0: the last wins
        return f + list(c.node_args)

    def start(self, timeout=20):
        self.extra = self._flags()
        super().start(timeout)
        self.fixed_port = self.port  # a restart comes back on the port HAProxy knows
        self.logs = getattr(self, "logs", []) + [self.log_path]
        return self

    def restart(self, timeout=20):
        if self.alive():
            raise RuntimeError("restart of a running node %s" % self.node_id)
        return self.start(timeout)

    def signal(self, sig):
        self.proc.send_signal(sig)

    def log_text(self):
        """Everything this node printed in this run, every start of it."""
        out = []
        for p in getattr(self, "logs", []):
            try:
                out.append(open(p, errors="replace").read())
            except OSError:
                pass
        return "".join(out)

    def cleanup(self):
        pass  # the data directory belongs to the cluster's scratch directory


class Cluster:
    def __init__(self, n=3, lease_ttl=3000, plain=False, node_args=(), keep_dir=None):
        self.n = n
        self.lease_ttl = lease_ttl
        self.plain = plain
        self.node_args = list(node_args)
        self.dir = tempfile.mkdtemp(prefix="carcd-cluster-", dir=keep_dir)
        self.redis = None
        self.pg = None
        self.pg_url = None
        self.nodes = {}
        self.haproxy = None
        self.port = None
        self.cfg_path = os.path.join(self.dir, "haproxy.cfg")
        self.sock_path = os.path.join(self.dir, "haproxy.sock")
        self.haproxy_log = os.path.join(self.dir, "haproxy.log")

    # -- start and stop

    def start(self):
        t0 = time.monotonic()
        self.redis = Redis(self.dir).start()
        if not self.plain:
            self.pg = pg_util.Postgres()
            self.pg_url = self.pg.database("carcd")
        ids = ["n%d" % (i + 1) for i in range(self.n)]
        for nid in ids:
            self.nodes[nid] = Node(self, nid).start()
        self.start_haproxy()
        self.wait_all_up()
        self.startup_s = time.monotonic() - t0
        return self

    def start_haproxy(self):
        addr = {n: "127.0.0.1:%d" % s.port for n, s in self.nodes.items()}
        for _ in range(5):
            self.port = free_port()
            text = haproxy_config(list(self.nodes), addr, "127.0.0.1:%d" % self.port,
                                  ["stats socket %s mode 600 level admin" % self.sock_path])
            with open(self.cfg_path, "w") as f:
                f.write(text)
            ok, out = haproxy_check(self.cfg_path)
            if not ok:
                raise RuntimeError("haproxy -c refuses the generated %s:\n%s"
                                   % (self.cfg_path, out))
            logf = open(self.haproxy_log, "a")
            self.haproxy = subprocess.Popen(["haproxy", "-db", "-f", self.cfg_path],
                                            stdin=subprocess.DEVNULL, stdout=logf,
                                            stderr=subprocess.STDOUT,
                                            preexec_fn=h._die_with_parent)
            logf.close()
            try:
                wait_port(self.port, self.haproxy, what="haproxy")
                return
            except RuntimeError:
                self._stop_haproxy()
        raise RuntimeError("haproxy did not start; its log:\n%s" % self.haproxy_tail())

    def _stop_haproxy(self):
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.terminate()
            try:
                self.haproxy.wait(10)
            except subprocess.TimeoutExpired:
                self.haproxy.kill()
                self.haproxy.wait()

    def stop(self, keep=None):
        """Stop everything; returns {node: exit status} of the nodes that were still running
        (SIGTERM: a clean shutdown must exit 0). keep(cluster) is called once the nodes and
        HAProxy have stopped, before Redis and PostgreSQL go (and their logs with them)."""
        status = {}
        for n, s in self.nodes.items():
            if s.proc is not None and s.proc.poll() is None:
                try:
                    s.proc.send_signal(signal.SIGCONT)  # a stopped node cannot exit
                except OSError:
                    pass
                status[n] = s.stop()
        self._stop_haproxy()
        if keep is not None:
            keep(self, status)
        if self.redis is not None:
            self.redis.stop()
        if self.pg is not None:
            self.pg.close()
        return status

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- HAProxy's view

    def haproxy_cmd(self, cmd):
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(self.sock_path)
            s.sendall((cmd + "\n").encode())
            out = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                out += b
        return out.decode(errors="replace")

    def server_states(self):
        """{node: "UP"/"DOWN"/...} of the `nodes` backend (the health-checked servers)."""
        out = {}
        text = self.haproxy_cmd("show stat")
        lines = text.splitlines()
        if not lines:
            return out
        head = lines[0].lstrip("# ").split(",")
        for line in lines[1:]:
            f = line.split(",")
            if len(f) < len(head):
                continue
            row = dict(zip(head, f))
            if row.get("pxname") == "nodes" and row.get("svname") in self.nodes:
                out[row["svname"]] = row.get("status", "")
        return out

    def wait_state(self, node, want, timeout=15):
        """Until HAProxy reports node's state starting with want ("UP", "DOWN"); the seconds
        it took."""
        t0 = time.monotonic()
        deadline = t0 + timeout
        st = None
        while time.monotonic() < deadline:
            try:
                st = self.server_states().get(node, "")
            except OSError as e:  # the stats socket comes a moment after the port
                st = "stats socket: %s" % e
            # "UP 1/2" is up but failing (or not yet checked): only a plain "UP" counts
            if st == want or (want != "UP" and st.startswith(want)):
                return time.monotonic() - t0
            time.sleep(0.1)
        raise AssertionError("HAProxy: node %s is %r, not %s after %s s"
                             % (node, st, want, timeout))

    def wait_all_up(self, timeout=20):
        for n in self.nodes:
            self.wait_state(n, "UP", timeout)

    def haproxy_tail(self, n=60):
        try:
            return "\n".join(open(self.haproxy_log, errors="replace").read().splitlines()[-n:])
        except OSError:
            return ""

    # -- what tests use

    @property
    def front(self):
        return Path(self.port, "/ws")

    def path(self, p):
        return Path(self.port, p)

    def node_path(self, node):
        return Path(self.port, "/n/%s/ws" % node)

    @property
    def http(self):
        return "http://127.0.0.1:%d" % self.port

    def owner(self, room):
        """The node holding room's lease in Redis (its value is NODE:FENCE), or None."""
        v = self.redis.command("GET", "carcd:lease:" + room)
        return None if v is None else v.split(":", 1)[0]

    def lease(self, room):
        return self.redis.command("GET", "carcd:lease:" + room)

    def logs(self):
        """Where every log of this cluster is: {name: path}."""
        out = {"haproxy": self.haproxy_log, "redis": self.redis.log_path if self.redis else ""}
        if self.pg is not None:
            out["postgres"] = os.path.join(self.pg.dir, "server.log")
        for n, s in self.nodes.items():
            for i, p in enumerate(getattr(s, "logs", [])):
                out["%s#%d" % (n, i + 1)] = p
        return out
