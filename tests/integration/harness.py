"""harness.py: carcd under test, and a WebSocket client that checks what it hears.

Server starts build/carcd (or $CARC_BUILD/carcd) on an ephemeral loopback port with a temporary
data directory, reads the port from its startup line and stops it with SIGTERM.

Client wraps one websocket-client connection. Every message it receives is validated against
protocol/schema/server/<type>.json (a failure raises at once and is counted in SCHEMA_ERRORS), and
`state`/`delta` messages are folded into `client.doc`/`client.seq`, so a client always knows the
public state document it has built from its first snapshot and the patches since. Protocol
version 2: every message carries "v": 2, the document has no `legal`, and the mover's list comes
in a private `legal` message (kept as `client.legal`; `client.legal_list()` while it is valid).
Every `legal` a Client receives is checked at once: no `ref`, sent to the seat it names, for the
document it belongs to (its seq, turn, current and tile).
"""

import itertools
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import jsonpatch
import jsonschema
import websocket

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.path.join(ROOT, os.environ.get("CARC_BUILD", "build"))
CARCD = os.path.join(BUILD, "carcd")
REPLAY = os.path.join(BUILD, "carc-replay")
SCHEMA_DIR = os.path.join(ROOT, "protocol", "schema")

V = 2  # the protocol version every message carries, both ways

ALL_SETS = ["base", "inns-cathedrals", "besiegers", "cathars", "siege", "apothecaries-tithes"]

# Every server message seen by any Client, and the schema failures among them.
STATS = {"messages": 0, "types": set()}
SCHEMA_ERRORS = []
# CARC_IT_SCHEMA=0 skips schema validation (while debugging something else).
VALIDATE = os.environ.get("CARC_IT_SCHEMA", "1") != "0"

# ---------------------------------------------------------------------------------------------
# Secrets and logs: no token or password may appear in any line carcd logs.
#
# Every carcd the suite starts writes what it prints (stdout and stderr) to a file of LOG_DIR;
# every secret the suite sends or receives (seat tokens from `joined`, tokens and passwords in
# any message sent, `*-token` / `*password*` settings and flags) is recorded in SECRETS; at the
# end run.py calls secret_problems(), which reads every line of every file and names each line
# that contains a recorded secret. Secrets shorter than SECRET_MIN characters are recorded but
# cannot be searched for without false alarms ("pw" is in many words): tests use longer ones, and
# the report counts any short one.

LOG_DIR = os.environ.get("CARC_IT_LOGS") or tempfile.mkdtemp(prefix="carcd-it-logs-")
SECRETS = set()
SECRET_MIN = 6
_log_files = itertools.count(1)


def secret_add(value):
    """Record a secret the suite saw (other tests: admin and metrics tokens they send)."""
    if isinstance(value, str) and value:
        SECRETS.add(value)


def _secrets_in_message(msg):
    """Record the tokens and passwords of a message the suite sends (dict or JSON text)."""
    if isinstance(msg, (bytes, bytearray)):
        msg = msg.decode("utf-8", "replace")
    if isinstance(msg, str):
        try:
            msg = json.loads(msg)
        except ValueError:
            return
    if isinstance(msg, dict):
        for key in ("token", "password"):
            secret_add(msg.get(key))


def _secrets_in_settings(pairs):
    """Record the secret settings of a carcd (config items or --flag value pairs)."""
    for key, value in pairs:
        key = str(key).lstrip("-")
        if "token" in key or "password" in key:
            secret_add(str(value))


def log_file_new(name):
    """A new file in LOG_DIR for one carcd's output: its path."""
    return os.path.join(LOG_DIR, "%04d-%s.log" % (next(_log_files), name))


def log_keep(name, text):
    """Keep the output of a carcd run some other way (subprocess.run) for the check."""
    with open(log_file_new(name), "w", errors="replace") as f:
        f.write(text or "")


def secret_problems(secrets=None, files=None):
    """(problems, checked, short): every log line, in files (default: all of LOG_DIR), that
    contains one of secrets (default SECRETS), as "FILE:LINE: contains SECRET...: TEXT"."""
    secrets = sorted(SECRETS if secrets is None else secrets)
    long_ = [x for x in secrets if len(x) >= SECRET_MIN]
    short = [x for x in secrets if len(x) < SECRET_MIN]
    if files is None:
        files = sorted(os.path.join(LOG_DIR, f) for f in os.listdir(LOG_DIR))
    problems = []
    for path in files:
        with open(path, errors="replace") as f:
            for n, line in enumerate(f, 1):
                for x in long_:
                    if x in line:
                        shown = line.rstrip("\n").replace(x, "<SECRET %s...>" % x[:4])
                        problems.append("%s:%d: contains a secret: %s" % (path, n, shown[:300]))
    return problems, len(long_), short


def secret_self_check():
    """The check can fail: a planted token in a log line is found, a clean line is not."""
    planted = "0123456789abcdef0123456789abcdef"
    with tempfile.TemporaryDirectory(prefix="carcd-it-plant-") as d:
        path = os.path.join(d, "planted.log")
        with open(path, "w") as f:
            f.write("carcd: info: connection open addr=127.0.0.1\n")
            f.write('{"level":"info","msg":"resume %s"}\n' % planted)
        found, _, _ = secret_problems({planted, "not-in-any-line"}, [path])
    return len(found) == 1 and ":2:" in found[0]


STARTUP_RE = re.compile(r"carcd listening on http://([^/:\s]+|\[[^\]]+\]):(\d+)/")


class Closed(Exception):
    """The server closed the connection: code (None when the TCP connection just ended)."""

    def __init__(self, code, reason=""):
        super().__init__("connection closed: %s %s" % (code, reason))
        self.code = code
        self.reason = reason


# ---------------------------------------------------------------------------------------------
# Schemas

class Schemas:
    """protocol/schema/{client,server}/*.json, with $refs between them resolved locally."""

    def __init__(self, root=SCHEMA_DIR):
        self.server = {}
        self.client = {}
        self.store = {}
        for side, table in (("server", self.server), ("client", self.client)):
            d = os.path.join(root, side)
            if not os.path.isdir(d):
                continue
            for name in sorted(os.listdir(d)):
                if not name.endswith(".json"):
                    continue
                path = os.path.join(d, name)
                with open(path) as f:
                    doc = json.load(f)
                table[name[:-5]] = (path, doc)
                self.store["file://" + path] = doc
                if isinstance(doc, dict) and "$id" in doc:
                    self.store[doc["$id"]] = doc
        # Shared definitions beside the two folders (common.json, defs/...).
        for dirpath, _, files in os.walk(root):
            for name in files:
                path = os.path.join(dirpath, name)
                if name.endswith(".json") and "file://" + path not in self.store:
                    with open(path) as f:
                        doc = json.load(f)
                    self.store["file://" + path] = doc
                    if isinstance(doc, dict) and "$id" in doc:
                        self.store[doc["$id"]] = doc
        self._validators = {}

    def validator(self, side, mtype):
        key = (side, mtype)
        if key not in self._validators:
            table = self.server if side == "server" else self.client
            if mtype not in table:
                self._validators[key] = None
            else:
                path, doc = table[mtype]
                cls = jsonschema.validators.validator_for(doc)
                cls.check_schema(doc)
                base = doc.get("$id", "file://" + path) if isinstance(doc, dict) else "file://" + path
                resolver = jsonschema.RefResolver(base, doc, store=self.store)
                self._validators[key] = cls(doc, resolver=resolver)
        return self._validators[key]

    def check(self, side, msg):
        """None when msg validates against its type's schema, else a description."""
        mtype = msg.get("type") if isinstance(msg, dict) else None
        if not isinstance(mtype, str):
            return "message without a string type: %r" % (msg,)
        v = self.validator(side, mtype)
        if v is None:
            return "no schema %s/%s.json" % (side, mtype)
        errs = sorted(v.iter_errors(msg), key=lambda e: list(e.path))
        if errs:
            e = errs[0]
            return "%s/%s.json: %s at %s" % (side, mtype, e.message, "/".join(map(str, e.path)))
        return None


SCHEMAS = Schemas()


# ---------------------------------------------------------------------------------------------
# The server process

# The shared server's limits, written to its config file so that tests know them (the
# defaults of `carcd --help`, spelled out). Tests that need other limits start their own server.
LIMITS = {
    "rate": 20, "burst": 40,              # messages per second per connection: rate_limited
    "flood-rate": 40, "flood-burst": 80,  # close 1008
    "chat-rate": 30, "chat-burst": 5,     # chats per minute
    "history": 32,                        # deltas kept for resume and sync
    "max-conns-per-ip": 64,
    # Every client of the suite comes from 127.0.0.1: room creation per address is not what
    # the shared server tests (test_conformance.CreateLimits starts its own servers).
    "create-rate-per-ip": 100000, "lobby-rooms-per-ip": 100000,
    "queue-messages": 256, "queue-bytes": 1048576,
}
DELTA_HISTORY = LIMITS["history"]


def _die_with_parent():
    """In the child before exec: SIGTERM when the test runner dies (killed by a timeout), so
    no carcd outlives its suite."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


# The storage backend of the carcds the harness starts: None for SQLite in the data directory
# (the default), or a function data_dir -> libpq connection string (tests/integration/pg_util.py:
# one PostgreSQL database per data directory), set by the *_pg test modules.
PG_URL_FOR = None


def storage_flags(data_dir):
    """The flags that put a carcd on data_dir's storage (none for SQLite)."""
    if PG_URL_FOR is None:
        return []
    return ["--storage", "postgres", "--postgres-url", PG_URL_FOR(data_dir)]


class Server:
    """carcd on 127.0.0.1, port 0, a fresh data directory. config: settings for its config
    file (`key = value` lines); extra: more command-line arguments; data_dir: use (and keep)
    this data directory instead of a fresh temporary one, so that a restarted server finds what
    the last one stored. child_setup: called in the child before carcd runs (resource limits)."""

    def __init__(self, config=None, extra=(), data_dir=None, child_setup=None):
        self.extra = list(extra)
        self.child_setup = child_setup
        self.data_dir = data_dir
        self.config = dict(LIMITS if config is None else config)
        _secrets_in_settings(self.config.items())
        _secrets_in_settings(zip(self.extra, self.extra[1:]))
        _secrets_in_settings(tuple(a.split("=", 1)) for a in self.extra if "=" in a)
        self.proc = None
        self.host = None
        self.port = None
        self.lines = []
        self.tmp = None

    @property
    def ws_url(self):
        return "ws://%s:%d/ws" % (self.host, self.port)

    @property
    def http_url(self):
        return "http://%s:%d/" % (self.host, self.port)

    def start(self, timeout=15):
        if not os.access(CARCD, os.X_OK):
            raise RuntimeError("%s is not built" % CARCD)
        self.lines = []
        if self.data_dir is None:
            self.tmp = tempfile.TemporaryDirectory(prefix="carcd-it-")
        data = self.data_dir or self.tmp.name
        args = [CARCD, "--listen", "127.0.0.1", "--port", "0", "--data-dir", data]
        args += storage_flags(data)
        if self.config:
            cfg = os.path.join(data, "carcd.conf")
            with open(cfg, "w") as f:
                f.writelines("%s = %s\n" % kv for kv in self.config.items())
            args += ["--config", cfg]
        args += self.extra
        setup = self.child_setup

        def pre():
            _die_with_parent()
            if setup is not None:
                setup()
        self.proc = subprocess.Popen(args, cwd=ROOT, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, errors="replace", preexec_fn=pre)
        found = threading.Event()
        self.log_path = log_file_new("carcd")
        logf = open(self.log_path, "w", errors="replace")

        def reader():
            for line in self.proc.stdout:
                logf.write(line)
                logf.flush()
                self.lines.append(line.rstrip("\n"))
                if not found.is_set():
                    m = STARTUP_RE.search(line)
                    if m:
                        self.host = m.group(1).strip("[]")
                        self.port = int(m.group(2))
                        found.set()
            logf.close()
        self._reader = threading.Thread(target=reader, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + timeout
        while not found.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                self._reader.join(2)
                raise RuntimeError("carcd did not start (%s):\n%s"
                                   % (" ".join(args), "\n".join(self.lines[-40:])))
        return self

    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=20):
        """SIGTERM, wait; returns the exit status (killed: -9)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                self._reader.join(2)
                self.cleanup()
                return -9
        self._reader.join(5)
        self.cleanup()
        return self.proc.returncode

    def kill(self):
        """SIGKILL (a crash), wait for it to be gone."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.proc is not None:
            self.proc.wait()
            self._reader.join(2)

    def cleanup(self):
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None

    def log(self, n=60):
        return "\n".join(self.lines[-n:])


# ---------------------------------------------------------------------------------------------
# A client

_ids = itertools.count(1)


class Client:
    """One WebSocket connection to the server. Receives `welcome` on connect."""

    def __init__(self, server, timeout=10.0, welcome=True, validate=True, name=None):
        self.server = server
        self.name = name
        self.validate = validate
        connect = getattr(server, "ws_connect", None)  # a front (test_proxy's nginx)
        self.ws = (connect(timeout) if connect is not None else
                   websocket.create_connection(server.ws_url, timeout=timeout,
                                               enable_multithread=False))
        self.timeout = timeout
        self.backlog = []      # received, not yet taken by wait_for
        self.doc = None        # public state built from the last `state` and later deltas
        self.seq = None
        self.deltas = []       # every delta message, in order of arrival
        self.gaps = 0          # deltas that did not follow the last seq
        self.legal = None      # the last `legal` message (the mover's list: see legal_list)
        self.legals = []       # every `legal` message: (moves played before it, message)
        self.moves = 0         # placed + skip events in the deltas folded (None: unknown,
                               # after a `state` of a game already under way)
        self.trail = []        # every message received, in order: (type, seq, ref, key), key
                               # the built document's (phase, turn, current, tile) after it
        self.closed = None     # Closed once the server closed us
        self.room = None
        self.seat = None
        self.token = None
        self.welcome = self.wait_type("welcome") if welcome else None

    # -- sending

    def send(self, msg):
        _secrets_in_message(msg)
        self.ws.send(json.dumps(msg, separators=(",", ":")))

    def send_raw(self, text):
        _secrets_in_message(text)
        self.ws.send(text)

    def request(self, mtype, **fields):
        """Send a message with a fresh id and return the first reply carrying that ref."""
        mid = next(_ids)
        msg = {"v": V, "type": mtype, "id": mid}
        msg.update(fields)
        self.send(msg)
        return self.wait_for(lambda m: m.get("ref") == mid)

    def request_ok(self, mtype, expect, **fields):
        r = self.request(mtype, **fields)
        if r.get("type") != expect:
            raise AssertionError("%s: expected %s, got %s" % (mtype, expect, r))
        return r

    # -- receiving

    def _recv_one(self, timeout):
        """One message from the wire (not the backlog), folded into the state."""
        if self.closed is not None:
            raise self.closed
        self.ws.settimeout(timeout)
        try:
            op, frame = self.ws.recv_data_frame(control_frame=False)
        except websocket.WebSocketTimeoutException:
            raise
        except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError) as e:
            self.closed = Closed(None, str(e))
            raise self.closed
        if op == websocket.ABNF.OPCODE_CLOSE:
            data = frame.data or b""
            code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
            self.closed = Closed(code, data[2:].decode("utf-8", "replace"))
            raise self.closed
        if op != websocket.ABNF.OPCODE_TEXT:
            raise AssertionError("server sent a non-text frame (opcode %d)" % op)
        text = frame.data.decode("utf-8")
        msg = json.loads(text)
        STATS["messages"] += 1
        STATS["types"].add(msg.get("type"))
        if self.validate and VALIDATE:
            problem = SCHEMAS.check("server", msg)
            if problem is not None:
                SCHEMA_ERRORS.append((problem, text[:300]))
                raise AssertionError("schema: %s: %s" % (problem, text[:300]))
        if msg.get("v") != V or isinstance(msg.get("v"), bool):
            raise AssertionError("message without v=%d: %s" % (V, text[:200]))
        self._fold(msg)
        self.trail.append((msg.get("type"), msg.get("seq"), msg.get("ref"), doc_key(self.doc)))
        return msg

    def _fold(self, msg):
        t = msg.get("type")
        if t == "state":
            self.doc = msg["state"]
            self.seq = msg["seq"]
            self.moves = 0 if self.doc.get("phase") == "lobby" else None
            self._no_legal_in_doc(msg)
        elif t == "delta":
            self.deltas.append(msg)
            if self.doc is None or self.seq is None or msg["seq"] != self.seq + 1:
                self.gaps += 1
                return
            self.doc = jsonpatch.apply_patch(self.doc, msg["patch"], in_place=False)
            self.seq = msg["seq"]
            if self.moves is not None:
                self.moves += sum(1 for ev in msg["events"]
                                  if ev.get("type") in ("placed", "skip"))
            self._no_legal_in_doc(msg)
        elif t == "legal":
            self._check_legal(msg)
            self.legal = msg
            self.legals.append((self.moves, msg))
        elif t == "joined":
            self.room = msg["room"]
            self.seat = msg["seat"]
            if msg.get("token"):
                self.token = msg["token"]
                secret_add(self.token)
        elif t == "watching":
            self.room = msg["room"]
            self.seat = None
        elif t == "left":
            self.seat = None
            self.legal = None

    def _no_legal_in_doc(self, msg):
        if "legal" in self.doc:
            raise AssertionError("%s: the state document has a `legal` key (after %s seq %s)"
                                 % (self.name, msg["type"], msg.get("seq")))

    def _check_legal(self, msg):
        """A `legal` goes only to the connection of the seat to move, for the document it
        has just been sent (checked when this client's document is whole: no gaps)."""
        where = "%s (seat %s) got %s" % (self.name, self.seat, json.dumps(msg)[:300])
        if "ref" in msg:
            raise AssertionError("a `legal` with ref: " + where)
        if self.seat is None:
            raise AssertionError("a `legal` for a connection without a seat: " + where)
        if msg["player"] != self.seat:
            raise AssertionError("another seat's `legal`: " + where)
        if self.doc is not None and self.gaps == 0:
            d = self.doc
            if d.get("phase") != "playing" or \
                    (d["turn"], d["current"], d["tile"]) != (msg["turn"], msg["player"],
                                                             msg["tile"]):
                raise AssertionError("a `legal` not for the document at seq %s (%s): %s"
                                     % (self.seq, doc_key(d), where))
            if msg["seq"] != self.seq:
                raise AssertionError("a `legal` of seq %s on a document at seq %s: %s"
                                     % (msg["seq"], self.seq, where))

    def legal_list(self, doc=None):
        """The list of the last `legal` message while it is valid for doc (default the built
        document): doc's turn, current and tile are the message's; else None."""
        doc = self.doc if doc is None else doc
        if legal_valid(self.legal, doc):
            return self.legal["legal"]
        return None

    def wait_legal(self, seq=None, timeout=None):
        """This seat's legal list for its turn: read (after reaching seq, if given) until the
        last `legal` is valid for the built document. None when the document is not, or no
        longer, at this seat's turn (another seat's turn, or the game is over)."""
        if seq is not None:
            self.wait_seq(seq, timeout)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            d = self.doc
            if d is None or d.get("phase") != "playing" or self.seat is None or \
                    d.get("current") != self.seat:
                return None
            if legal_valid(self.legal, d):
                return self.legal["legal"]
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("%s (seat %s): no `legal` for turn %s (tile %s) at seq %s; "
                                     "last legal: %s" % (self.name, self.seat, d["turn"],
                                                         d["tile"], self.seq,
                                                         json.dumps(self.legal)[:200]))
            try:
                self.backlog.append(self._recv_one(left))
            except websocket.WebSocketTimeoutException:
                pass

    def wait_for(self, pred, timeout=None):
        """The first message (backlog first) for which pred is true; the others stay queued."""
        for i, m in enumerate(self.backlog):
            if pred(m):
                return self.backlog.pop(i)
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("timed out waiting for a message; backlog: %s"
                                     % [m.get("type") for m in self.backlog[-10:]])
            try:
                m = self._recv_one(left)
            except websocket.WebSocketTimeoutException:
                continue
            if pred(m):
                return m
            self.backlog.append(m)

    def wait_type(self, mtype, timeout=None):
        return self.wait_for(lambda m: m.get("type") == mtype, timeout)

    def wait_seq(self, seq, timeout=None):
        """Read until the built state has reached seq."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while self.seq is None or self.seq < seq:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("%s: waited for seq %s, at %s" % (self.name, seq, self.seq))
            try:
                self.backlog.append(self._recv_one(left))
            except websocket.WebSocketTimeoutException:
                pass
        return self.doc

    def wait_doc(self, pred, timeout=None):
        """Read until pred(built state) holds."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while self.doc is None or not pred(self.doc):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("%s: the state never got there" % self.name)
            try:
                self.backlog.append(self._recv_one(left))
            except websocket.WebSocketTimeoutException:
                pass
        return self.doc

    def quiet(self, wait=0.2):
        """Read for `wait` seconds; return what arrived (also left in the backlog)."""
        got = []
        deadline = time.monotonic() + wait
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return got
            try:
                m = self._recv_one(left)
            except websocket.WebSocketTimeoutException:
                return got
            got.append(m)
            self.backlog.append(m)

    def drain(self):
        self.backlog = []

    def wait_close(self, timeout=None):
        """Read until the server closes us; returns the Closed (code may be None)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("the server did not close the connection")
            try:
                self.backlog.append(self._recv_one(left))
            except websocket.WebSocketTimeoutException:
                pass
            except Closed as c:
                return c

    def errors(self):
        return [m for m in self.backlog if m.get("type") == "error"]

    def close(self):
        try:
            self.ws.close(timeout=1)
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------------------------------------
# Rooms and games

def doc_key(doc):
    """(phase, turn, current, tile) of a document (None for none)."""
    if doc is None:
        return None
    return (doc.get("phase"), doc.get("turn"), doc.get("current"), doc.get("tile"))


def legal_valid(legal, doc):
    """A `legal` message is valid for doc while doc's turn, current and tile are its turn,
    player and tile (and the game is on)."""
    return (legal is not None and doc is not None and doc.get("phase") == "playing" and
            doc.get("turn") == legal["turn"] and doc.get("current") == legal["player"] and
            doc.get("tile") == legal["tile"])


def mover_of(clients, doc=None):
    """The client of clients whose seat is doc["current"] (doc: the first open client's)."""
    if doc is None:
        doc = next(c.doc for c in clients if c is not None and c.closed is None)
    cur = doc["current"]
    for c in clients:
        if c is not None and c.seat == cur and c.closed is None:
            return c
    raise AssertionError("no client holds seat %s, the seat to move" % cur)

def fresh_state(server, room):
    """A snapshot from a new spectator connection: (seq, state document)."""
    with Client(server, name="fresh") as c:
        c.request_ok("watch", "watching", room=room)
        m = c.wait_type("state")
        return m["seq"], m["state"]


def create_room(server, names, sets=None, options=None, seats=None, **extra):
    """Create a room with names[0] as host and seat the others. Returns the clients, in seats."""
    host = Client(server, name=names[0])
    fields = {"name": names[0], "seats": seats or len(names)}
    if sets is not None:
        fields["sets"] = sets
    if options is not None:
        fields["options"] = options
    fields.update(extra)
    host.request_ok("create", "joined", **fields)
    host.wait_type("state")
    clients = [host]
    for n in names[1:]:
        c = Client(server, name=n)
        kw = {"password": extra["password"]} if "password" in extra else {}
        c.request_ok("join", "joined", room=host.room, name=n, **kw)
        c.wait_type("state")
        clients.append(c)
    # The last one's snapshot holds every seat: everyone catches up with it.
    sync_all(clients, clients[-1].seq)
    return clients


def sync_all(clients, seq):
    for c in clients:
        c.wait_seq(seq)


def play_to_end(players, rng):
    """Start the game of players' room (players[0] hosts) and play random moves, each acked,
    until it is over; returns the final document."""
    players[0].send({"v": V, "type": "start"})
    sync_all(players, players[0].seq + 1)
    while players[0].doc["phase"] == "playing":
        mover = mover_of(players)
        ack = mover.request("play", **random_move(rng, mover))
        assert ack["type"] == "ack", ack
        sync_all(players, ack["seq"])
    return players[0].doc


def random_move(rng, mover, seq=None):
    """A random legal play for mover, the client of the seat to move, from its `legal` (read
    until it has come, after reaching seq if given)."""
    if not isinstance(mover, Client):
        raise TypeError("random_move takes the mover's Client (v2: the legal list is theirs)")
    legals = mover.wait_legal(seq)
    if legals is None:
        raise AssertionError("%s (seat %s): not its turn: %s"
                             % (mover.name, mover.seat, doc_key(mover.doc)))
    if not legals:
        raise AssertionError("%s: an empty legal list for turn %s" % (mover.name,
                                                                      mover.doc["turn"]))
    doc = mover.doc
    seat = doc["seats"][doc["current"]]
    legal = rng.choice(legals)
    meeple = None
    kinds = []
    if seat.get("meeples", 0) > 0:
        kinds.append("normal")
    if seat.get("large", 0) > 0:
        kinds.append("large")
    if legal["meeples"] and kinds and rng.random() < 0.6:
        meeple = {"feature": rng.choice(legal["meeples"]), "kind": rng.choice(kinds)}
    escape = None
    if meeple is None and legal.get("escapes") and rng.random() < 0.5:
        escape = rng.choice(legal["escapes"])
    return {"tile": doc["tile"], "x": legal["x"], "y": legal["y"], "rot": legal["rot"],
            "meeple": meeple, "escape": escape}


def record_from_game(doc, moves, deltas, seed=None):
    """A game record for carc-replay: the moves as sent, and the draw order as seen in the
    events (each placed tile and each discarded tile, in order); with seed, no deck."""
    drawn = []
    for d in deltas:
        for ev in d["events"]:
            if ev.get("type") == "placed":
                drawn.append(ev["tile"])
            elif ev.get("type") == "discard":
                drawn.append(ev["tile"])
    rec = {
        "format": "carcassonne-game/1",
        "sets": doc["sets"],
        "options": doc["options"],
        "players": [{"name": s["name"]} for s in doc["seats"]],
        "start": doc["board"]["0,0"]["tile"],
        "moves": [],
    }
    if seed is not None:
        rec["seed"] = seed
    else:
        rec["deck"] = drawn
    for m in moves:
        mv = {"tile": m["tile"], "x": m["x"], "y": m["y"], "rot": m["rot"], "meeple": m["meeple"]}
        if m.get("escape"):
            mv["escape"] = m["escape"]
        rec["moves"].append(mv)
    return rec


def replay(record):
    """Run carc-replay on a record; returns its JSON lines."""
    p = subprocess.run([REPLAY, "-"], input=json.dumps(record), capture_output=True, text=True,
                       timeout=60)
    lines = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    if p.returncode != 0:
        raise AssertionError("carc-replay exit %d: %s %s" % (p.returncode, lines[-1:], p.stderr))
    return lines


def replay_legal(record):
    """carc-replay --legal on a record: {move index: its line} ({"move", "player", "tile",
    "legal"}: the legal list before that move, one line per move of the record and one for
    the next move when the record stops before the end)."""
    with tempfile.NamedTemporaryFile("w", prefix="carc-legal-", suffix=".json") as f:
        json.dump(record, f)
        f.flush()
        p = subprocess.run([REPLAY, "--legal", f.name], capture_output=True, text=True,
                           timeout=120)
    if p.returncode != 0:
        raise AssertionError("carc-replay --legal exit %d: %s %s"
                             % (p.returncode, p.stdout[-300:], p.stderr[-500:]))
    out = {}
    for line in p.stdout.splitlines():
        if not line.strip():
            continue
        j = json.loads(line)
        if "error" in j:
            raise AssertionError("carc-replay --legal: %s" % j)
        if "legal" not in j:
            continue
        if j["move"] in out:
            raise AssertionError("carc-replay --legal: move %s twice" % j["move"])
        out[j["move"]] = j
    return out


def game_record(server, room, timeout=5.0):
    """GET /api/games/{room} as JSON, retried for a moment while it is 404 (the record of a
    game that has just ended is written with the next batch)."""
    import urllib.error
    import urllib.request
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(server.http_url.rstrip("/") + "/api/games/" + room,
                                        timeout=10) as r:
                return json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            if e.code != 404 or time.monotonic() > deadline:
                raise AssertionError("GET /api/games/%s: %d" % (room, e.code))
            time.sleep(0.05)


def legal_trail_problems(client):
    """What is wrong with the `legal` messages of a client that was in its room, without a
    catch-up, from the lobby on: every delta that gives its seat the turn (a new turn,
    current or tile) must be followed at once by one `legal` for it; there must be no other
    `legal` (a spectator or a seat that never moves gets none). A list of descriptions."""
    problems = []
    due = None  # the delta after which a legal must come next
    prev = None
    for i, (t, seq, ref, key) in enumerate(client.trail):
        if due is not None:
            if t != "legal":
                problems.append("after delta %s (%s) came %s, not `legal`" % (due[1], due[3], t))
            elif seq != due[1] or key != due[3]:
                problems.append("the `legal` after delta %s is for seq %s, %s" % (due[1], seq, key))
            due = None
            if t == "legal":
                continue
        if t == "legal":
            problems.append("a `legal` at seq %s (%s) that no delta called for" % (seq, key))
        elif t == "delta" and key is not None and key[0] == "playing" and \
                client.seat is not None and key[2] == client.seat and \
                (prev is None or key[1:] != prev[1:] or prev[0] != "playing"):
            due = (t, seq, ref, key)
        if t in ("delta", "state"):
            prev = key
    if due is not None:
        problems.append("no `legal` after delta %s (%s)" % (due[1], due[3]))
    return problems


def fresh_state_problems(client):
    """Every `state` without ref (the fresh state everyone gets once a move undone by a
    storage failure is settled) that leaves this client's seat to move is followed at once by
    its `legal`. A list of descriptions."""
    def due(entry):
        t, seq, ref, key = entry
        return (t == "state" and ref is None and key is not None and key[0] == "playing" and
                client.seat is not None and key[2] == client.seat)
    if client.trail and due(client.trail[-1]) and client.closed is None:
        try:  # the last thing read: its `legal` is on its way
            client.backlog.append(client._recv_one(client.timeout))
        except websocket.WebSocketTimeoutException:
            pass
    problems = []
    trail = client.trail
    for i, (t, seq, ref, key) in enumerate(trail):
        if due(trail[i]):
            nxt = trail[i + 1] if i + 1 < len(trail) else None
            if nxt is None or nxt[0] != "legal" or nxt[1] != seq:
                problems.append("the fresh state of seq %s on seat %s's turn is followed by %s"
                                % (seq, client.seat, nxt))
    return problems


def catch_up(client, mtype, **fields):
    """Send a catch-up request (sync, resume, watch) and a `ping` behind it: a connection hears
    its replies in the order of its requests, so whatever the catch-up sends (a `legal`
    included) comes before the `pong`. Returns (the request's id, every message before the
    pong). Whatever the backlog held is dropped first."""
    client.drain()
    mid = next(_ids)
    msg = {"v": V, "type": mtype, "id": mid}
    msg.update(fields)
    client.send(msg)
    pid = next(_ids)
    client.send({"v": V, "type": "ping", "id": pid})
    got = []
    while True:
        m = client.wait_for(lambda m: True)
        if m.get("ref") == pid and m["type"] == "pong":
            client.drain()
            return mid, got
        got.append(m)


def catch_up_problems(client, mid, got):
    """A catch-up (its messages `got`, up to the ping's pong) ends with the message carrying
    ref `mid` (`synced` or `state`); when the client's seat is then to move, exactly one
    `legal` follows it at once, for its document; otherwise no `legal` at all."""
    ends = [i for i, m in enumerate(got) if m.get("ref") == mid and
            m["type"] in ("synced", "state")]
    if len(ends) != 1:
        return ["the catch-up did not end with one synced/state carrying ref %s: %s"
                % (mid, [m["type"] for m in got])]
    end = ends[0]
    legals = [i for i, m in enumerate(got) if m["type"] == "legal"]
    d = client.doc
    mine = (client.seat is not None and d is not None and d.get("phase") == "playing" and
            d.get("current") == client.seat)
    if not mine:
        if legals:
            return ["a `legal` to a connection not to move (seat %s, %s): %s"
                    % (client.seat, doc_key(d), [m["type"] for m in got])]
        return []
    if legals != [end + 1]:
        return ["the catch-up on seat %s's turn is not `%s` then `legal`: %s"
                % (client.seat, got[end]["type"], [m["type"] for m in got])]
    lg = got[end + 1]
    if lg["seq"] != got[end]["seq"] or not legal_valid(lg, d):
        return ["the catch-up's `legal` is not for the document: %s vs %s"
                % ((lg["seq"], lg["turn"], lg["player"], lg["tile"]),
                   (got[end]["seq"], doc_key(d)))]
    return []


# ---------------------------------------------------------------------------------------------
# Raw sockets, for clients that misbehave below the WebSocket layer

def raw_connect(server, rcvbuf=None, path="/ws"):
    """A TCP socket that has completed the WebSocket handshake (nothing read past it)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(5)
    s.connect((server.host, server.port))
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
               % (path, server.host, server.port, key)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            raise AssertionError("handshake: connection closed")
        head += b
    if b" 101 " not in head.split(b"\r\n", 1)[0]:
        raise AssertionError("handshake refused: %r" % head[:200])
    return s


def ws_frame_header(n, opcode=1, fin=True, mask=b"\x11\x22\x33\x44"):
    """The header of a masked client frame announcing n payload bytes, the mask included."""
    head = bytes([(0x80 if fin else 0) | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    return head + mask


def ws_frame(payload, opcode=1, fin=True, mask=b"\x11\x22\x33\x44"):
    """One masked client frame."""
    if isinstance(payload, str):
        payload = payload.encode()
    _secrets_in_message(payload)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return ws_frame_header(len(payload), opcode, fin, mask) + body


def split_frames(buf):
    """The whole server (unmasked) frames at the start of buf: ([(opcode, payload)], the bytes
    of an incomplete frame left over)."""
    out = []
    while len(buf) >= 2:
        n, i = buf[1] & 0x7F, 2
        if n == 126:
            if len(buf) < 4:
                break
            n, i = int.from_bytes(buf[2:4], "big"), 4
        elif n == 127:
            if len(buf) < 10:
                break
            n, i = int.from_bytes(buf[2:10], "big"), 10
        if len(buf) < i + n:
            break
        out.append((buf[0] & 0x0F, buf[i:i + n]))
        buf = buf[i + n:]
    return out, buf


def raw_read_close(sock, timeout):
    """Read server frames from a raw socket until a close frame (its code), the end of the
    stream (None) or the timeout (AssertionError)."""
    buf = b""
    deadline = time.monotonic() + timeout
    while True:
        frames, buf = split_frames(buf)
        for op, payload in frames:
            if op == 8:
                return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError("no close frame from the server")
        sock.settimeout(left)
        try:
            b = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return None
        except socket.timeout:
            continue
        if not b:
            return None
        buf += b


def raw_drain(sock, timeout):
    """Read until EOF or reset (True) or until timeout passes with the socket open (False).
    Returns (ended, bytes read)."""
    total = 0
    deadline = time.monotonic() + timeout
    sock.setblocking(False)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False, total
        r, _, _ = select.select([sock], [], [], min(left, 0.5))
        if not r:
            continue
        try:
            b = sock.recv(1 << 16)
        except (ConnectionResetError, BrokenPipeError):
            return True, total
        except BlockingIOError:
            continue
        if not b:
            return True, total
        total += len(b)


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# The suite's shared server: started on first use, stopped by run.py (which checks its exit).

_shared = None


def shared_set(server):
    """Make server the shared one (test_logs runs other modules' tests against a server of its
    own); returns the one it replaces."""
    global _shared
    old, _shared = _shared, server
    return old


def shared():
    global _shared
    if _shared is None:
        _shared = Server().start()
    return _shared


def stop_shared():
    """Stop the shared server if it ran; returns its exit status (None when never started)."""
    global _shared
    if _shared is None:
        return None
    global last_log
    s, _shared = _shared, None
    status = s.stop()
    last_log = s.log(200)
    return status


last_log = ""
