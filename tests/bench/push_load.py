#!/usr/bin/python3
"""push_load.py: does a dead push endpoint slow carcd's event loop? (issue 28, "Done when": loop
busy p99 unchanged under 100 failing pushes a second)

    /usr/bin/python3 tests/bench/push_load.py --build build [--pushes 100] [--runs 3]
        [--rooms 40] [--rate 200] [--hang-share 0.3]

Starts one carcd (storage on, SQLite in a fresh data directory; accounts on; outbound-private on
so that loopback endpoints are allowed; push-tests raised so that the test route is not
limited; a metrics port), signs up A = pushes / 10 accounts and gives each 10 push
subscriptions whose endpoints are dead in the two ways that matter:

- hang: a TCP port on 127.0.0.1 that accepts connections and never answers a byte (the TLS
  handshake never ends: carcd's outbound client gives up at its connect timeout, 5 s);
- refused: a port on 127.0.0.1 with nothing listening (the connection is refused at once);

a share --hang-share of each account's 10 hang, the others are refused. Then, --runs times,
alternately (the machine is shared and noisy; in the order ABBA: baseline first in odd pairs,
push first in even ones, so that a drift favours neither):

- baseline: `carc-load --url ws://127.0.0.1:PORT/ws --pid PID --rooms ROOMS --rate RATE`
  (ROOMS rooms of six clients playing whole games, about 89 moves each, RATE moves a second in
  all: 40 rooms at 200/s last about 18 s) and nothing else;
- push: the same play load while every account asks `POST /api/push/test` once a second
  (staggered: pushes test requests a second in all, 10 pushes each), which pushes the `test`
  notice to its 10 dead subscriptions: --pushes failing pushes a second. Each subscription
  is stored again (`POST /api/push/subscriptions`) every 10 s, spread over the run, since 20
  failures in a row drop it (PROTOCOL.md "Notifications"); that load, too, counts against the
  push run. The pushes start 6 s before the measurement (the hanging ones reach their steady
  number under way after 5 s), and the next run starts 7 s after they stop (every push
  under way answered).

A run is measured between two scrapes of /metrics (before carc-load starts, after it ends):
the loop's busy p50 and p99 from the delta of carcd_loop_turn_seconds (interpolated inside a
bucket as PromQL's histogram_quantile does), its turns a second and busy share (delta of
carcd_loop_busy_seconds_total over the wall time), moves a second served (carcd_moves_total),
the CPU time of carcd's loop thread (the main thread, /proc/PID/task/PID/stat) and of its other
threads (the outbound client's, the thread pool's: /proc/PID/stat less the loop's) as a share
of a core, and the pushes: asked (the sum of the test route's {"pushes": N}) and answered by result
(carcd_push_deliveries_total: sent, gone, retry, failed). It prints one line per run, then the
medians of each kind, and

    p99_ratio_push_to_baseline: X (median of the R pairs' ratios; ...)

Exit 1 when a run fails (carc-load fails, a push run's test request is refused, none of its
pushes is answered, or one is answered as sent).
"""

import argparse
import http.client
import json
import os
import re
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

# A real subscription's keys (a P-256 point, 16 bytes): what a browser's toJSON() gives; the
# endpoints are dead, so nobody decrypts anything.
P256DH = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
AUTH = "BTBZMqHH6r4Tts7J_aSIgg"
SUBS = 10  # an account's subscriptions at most (ACCOUNTS_PUSH_MAX)
REPUT_S = 10  # each subscription stored again this often (20 failures in a row drop it)


TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(path):
    """User + system CPU seconds of /proc/PID/stat or /proc/PID/task/TID/stat."""
    with open(path) as f:
        f = f.read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Hang(threading.Thread):
    """A TCP port that accepts every connection, reads and drops what comes, never answers,
    and closes only when the other side does."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1024)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0

    def run(self):
        sel = selectors.DefaultSelector()
        sel.register(self.sock, selectors.EVENT_READ)
        while True:
            for key, _ in sel.select():
                if key.fileobj is self.sock:
                    try:
                        c, _ = self.sock.accept()
                    except BlockingIOError:
                        continue
                    c.setblocking(False)
                    sel.register(c, selectors.EVENT_READ)
                    self.accepted += 1
                    continue
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data == b"":
                    sel.unregister(key.fileobj)
                    key.fileobj.close()


class Carcd:
    def __init__(self, build, folder):
        self.port, self.mport = free_port(), free_port()
        self.log = open(os.path.join(folder, "carcd.log"), "w")
        args = [os.path.join(build, "carcd"), "--port", str(self.port),
                "--data-dir", os.path.join(folder, "data"), "--storage", "sqlite",
                "--metrics-port", str(self.mport), "--outbound-private", "on",
                "--push-tests", "1000000", "--password-hash-mem-kib", "19456",
                "--password-hash-ops", "2", "--log-level", "warn"]
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.call("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("carcd did not start: see " + self.log.name)
            time.sleep(0.1)

    def call(self, method, path, body=None, cookie=None, csrf=None, port=None):
        hd = {"Origin": "http://127.0.0.1:%d" % self.port}
        if cookie:
            hd["Cookie"] = "carcd_session=" + cookie
        if csrf:
            hd["X-CSRF-Token"] = csrf
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hd["Content-Type"] = "application/json"
        c = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=20)
        try:
            c.request(method, path, body=data, headers=hd)
            r = c.getresponse()
            text = r.read()
            cookies = r.getheader("Set-Cookie") or ""
        finally:
            c.close()
        doc = None
        if text and r.getheader("Content-Type", "").startswith("application/json"):
            doc = json.loads(text)
        return r.status, doc, cookies

    def metrics(self):
        """{name or name{labels}: value} of one scrape."""
        c = http.client.HTTPConnection("127.0.0.1", self.mport, timeout=20)
        try:
            c.request("GET", "/metrics")
            text = c.getresponse().read().decode()
        finally:
            c.close()
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                k, _, v = line.rpartition(" ")
                out[k] = float(v)
        return out

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class Account:
    def __init__(self, srv, name, endpoints):
        self.srv, self.endpoints = srv, endpoints
        s, doc, cookies = srv.call("POST", "/api/account",
                                   {"name": name, "password": "pw-%s-long-enough" % name})
        if s != 201:
            raise SystemExit("sign-up of %s: %d %s" % (name, s, doc))
        self.token = re.match(r"carcd_session=([^;]*)", cookies).group(1)
        self.csrf = doc["csrf"]

    def subscribe(self, i):
        body = {"endpoint": self.endpoints[i], "expirationTime": None,
                "keys": {"p256dh": P256DH, "auth": AUTH}}
        s, doc, _ = self.srv.call("POST", "/api/push/subscriptions", body, self.token, self.csrf)
        if s != 204:
            raise RuntimeError("subscription: %d %s" % (s, doc))

    def test(self):
        s, doc, _ = self.srv.call("POST", "/api/push/test", None, self.token, self.csrf)
        if s != 202:
            raise RuntimeError("push test: %d %s" % (s, doc))
        return doc["pushes"]


class Pusher(threading.Thread):
    """Each account's test once a second, staggered; one subscription stored again at each
    tick too, so that each is every REPUT_S seconds."""

    def __init__(self, accounts):
        super().__init__(daemon=True)
        self.accounts = accounts
        self.stop_ev = threading.Event()
        self.asked = self.tests = self.puts = 0
        self.error = None

    def run(self):
        n = len(self.accounts)
        period = 1.0 / n
        nsubs = n * SUBS
        put_every = max(1, round(REPUT_S * n / nsubs))  # ticks between two puts
        t0, k = time.monotonic(), 0
        try:
            while not self.stop_ev.is_set():
                a = self.accounts[k % n]
                self.asked += a.test()
                self.tests += 1
                if k % put_every == 0:
                    j = (k // put_every) % nsubs
                    self.accounts[j // SUBS].subscribe(j % SUBS)
                    self.puts += 1
                k += 1
                delay = t0 + k * period - time.monotonic()
                if delay > 0:
                    self.stop_ev.wait(delay)
        except (RuntimeError, OSError) as e:
            self.error = str(e)

    def stop(self):
        self.stop_ev.set()
        self.join()


def quantile(q, before, after):
    """histogram_quantile(q) of carcd_loop_turn_seconds between two scrapes, in us."""
    pat = re.compile(r'^carcd_loop_turn_seconds_bucket\{le="([^"]+)"\}$')
    b = sorted((float("inf") if m.group(1) == "+Inf" else float(m.group(1)), after[k] - before[k])
               for k in after for m in [pat.match(k)] if m)
    total = b[-1][1]
    if total <= 0:
        return 0.0
    rank, lo, prev = q * total, 0.0, 0.0
    for le, cum in b:
        if cum >= rank:
            if le == float("inf"):
                return lo * 1e6  # above the last bound: that bound, as PromQL says
            return (lo + (le - lo) * (rank - prev) / max(cum - prev, 1e-9)) * 1e6
        lo, prev = le, cum
    return lo * 1e6


RESULTS = ("sent", "gone", "retry", "failed")


def measure(srv, args):
    pid = srv.proc.pid
    loop0, all0 = cpu_s("/proc/%d/task/%d/stat" % (pid, pid)), cpu_s("/proc/%d/stat" % pid)
    before, t0 = srv.metrics(), time.monotonic()
    load = subprocess.run([os.path.join(args.build, "carc-load"), "--url",
                           "ws://127.0.0.1:%d/ws" % srv.port, "--pid", str(srv.proc.pid),
                           "--rooms", str(args.rooms), "--rate", str(args.rate), "--seconds",
                           "600"], capture_output=True, text=True)
    after, wall = srv.metrics(), time.monotonic() - t0
    loop1, all1 = cpu_s("/proc/%d/task/%d/stat" % (pid, pid)), cpu_s("/proc/%d/stat" % pid)
    if load.returncode != 0:
        sys.stdout.write(load.stdout + load.stderr)
        raise SystemExit("carc-load failed (%d)" % load.returncode)

    def d(k):
        return after.get(k, 0) - before.get(k, 0)
    pushes = {r: d('carcd_push_deliveries_total{result="%s"}' % r) for r in RESULTS}
    return {"p50": quantile(0.50, before, after), "p99": quantile(0.99, before, after),
            "turns_s": d("carcd_loop_turns_total") / wall,
            "busy": d("carcd_loop_busy_seconds_total") / wall,
            "moves_s": d("carcd_moves_total") / wall, "wall": wall,
            "loop_cpu": (loop1 - loop0) / wall, "other_cpu": (all1 - all0 - loop1 + loop0) / wall,
            "pushes": pushes, "answered_s": sum(pushes.values()) / wall}


def push_run(srv, args, accounts, hang, i):
    for acc in accounts:  # every subscription back with no failures counted
        for j in range(SUBS):
            acc.subscribe(j)
    pusher = Pusher(accounts)
    pusher.start()
    time.sleep(6)
    asked0, tests0 = pusher.asked, pusher.tests
    m = measure(srv, args)
    asked = (pusher.asked - asked0) / m["wall"]
    tests = (pusher.tests - tests0) / m["wall"]
    pusher.stop()
    if pusher.error:
        raise SystemExit("push run: " + pusher.error)
    m["asked_s"] = asked
    show("push", i, m, "  asked %.1f/s by %.1f tests/s, hang accepted %d"
         % (asked, tests, hang.accepted))
    p = m["pushes"]
    if p["sent"] > 0 or m["answered_s"] == 0:
        raise SystemExit("push run %d: pushes not answered as failures: %s" % (i, p))
    time.sleep(7)
    return m


def show(kind, i, m, extra=""):
    p = m["pushes"]
    print("%-8s run %d: loop busy p50 %6.1f us p99 %7.1f us  turns/s %4.0f  busy %4.1f%%  "
          "cpu loop %4.1f%% other threads %4.1f%%  moves/s %5.1f  pushes answered %4.0f "
          "(%.1f/s: sent %d gone %d retry %d failed %d)%s"
          % (kind, i, m["p50"], m["p99"], m["turns_s"], 100 * m["busy"], 100 * m["loop_cpu"],
             100 * m["other_cpu"], m["moves_s"], sum(p.values()), m["answered_s"], p["sent"],
             p["gone"], p["retry"], p["failed"], extra), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--pushes", type=int, default=100, help="failing pushes a second")
    ap.add_argument("--runs", type=int, default=3, help="baseline/push pairs")
    ap.add_argument("--rooms", type=int, default=40,
                    help="rooms of six clients; each run lasts until their games end")
    ap.add_argument("--rate", type=int, default=200, help="moves a second in all")
    ap.add_argument("--hang-share", type=float, default=0.3,
                    help="share of the subscriptions whose endpoint hangs (the rest refuse)")
    args = ap.parse_args()
    if args.pushes < SUBS or args.pushes % SUBS:
        ap.error("--pushes: a multiple of %d" % SUBS)
    folder = tempfile.mkdtemp(prefix="carcd-push-load-")
    hang = Hang()
    hang.start()
    refused = free_port()  # bound once, closed: nothing listens there
    srv = Carcd(args.build, folder)
    try:
        nacc, nhang = args.pushes // SUBS, round(SUBS * args.hang_share)
        print("carcd pid %d port %d; %d accounts x %d subscriptions (%d hang on :%d, %d refused "
              "on :%d); play load %d rooms at %d moves/s (about %d s); %d pairs"
              % (srv.proc.pid, srv.port, nacc, SUBS, nhang, hang.port, SUBS - nhang, refused,
                 args.rooms, args.rate, args.rooms * 89 // args.rate, args.runs), flush=True)
        accounts = []
        for a in range(nacc):
            eps = ["https://127.0.0.1:%d/push/a%d-%d" % (hang.port if i < nhang else refused, a, i)
                   for i in range(SUBS)]
            accounts.append(Account(srv, "Bench%d" % a, eps))
        runs = {"baseline": [], "push": []}
        for i in range(1, args.runs + 1):
            # ABBA: baseline first in odd pairs, push first in even ones, so that a drift
            # (the machine's other load, carcd's finished rooms piling up) favours neither.
            for kind in ("baseline", "push") if i % 2 else ("push", "baseline"):
                if kind == "baseline":
                    m = measure(srv, args)
                    runs["baseline"].append(m)
                    show("baseline", i, m)
                    time.sleep(2)
                else:
                    runs["push"].append(push_run(srv, args, accounts, hang, i))
        med = {k: {f: statistics.median(r[f] for r in v) for f in
                   ("p50", "p99", "turns_s", "busy", "loop_cpu", "other_cpu", "moves_s",
                    "answered_s")}
               for k, v in runs.items()}
        for k in ("baseline", "push"):
            m = med[k]
            print("median %-8s: loop busy p50 %.1f us p99 %.1f us, turns/s %.0f, busy %.1f%%, "
                  "cpu loop %.1f%% other threads %.1f%%, moves/s %.1f, pushes answered %.1f/s"
                  % (k, m["p50"], m["p99"], m["turns_s"], 100 * m["busy"],
                     100 * m["loop_cpu"], 100 * m["other_cpu"], m["moves_s"], m["answered_s"]))
        ratios = [p["p99"] / b["p99"] if b["p99"] > 0 else float("nan")
                  for b, p in zip(runs["baseline"], runs["push"])]
        print("p99_ratio_push_to_baseline: %.2f (median of the %d pairs' ratios: %s; ratio of "
              "the medians %.2f)" % (statistics.median(ratios), len(ratios),
                                     " ".join("%.2f" % r for r in ratios),
                                     med["push"]["p99"] / max(med["baseline"]["p99"], 1e-9)))
    finally:
        srv.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    main()
