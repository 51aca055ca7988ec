"""Issue 25, findings 2 and 3: the disk fills up under a running carcd.

carcd's data directory is a 2 MiB tmpfs (root: the mount; skipped otherwise). A game is played,
a filler file takes the rest of the tmpfs, and the next move's commit fails with ENOSPC. Then,
while the disk is full:
- every request gets its answer within ANSWER_S seconds: `watch` (a new client), `resume`,
  `sync` and `history` are served from the stored state (never the refused move), `chat`,
  `play`, `create` and `join` are refused with `storage_error`, `ping` is answered;
- nothing is held: 50 watchers are each answered at once and carcd's RSS stays put (the audit
  saw 60 watchers wait 52 s and take RSS from 12 to 89 MB);
- GET /healthz answers 503 `storage failing: disk full`, the metrics say so
  (carcd_store_healthy 0), and the log says it once.
The filler goes: the next retry commits, /healthz is 200 again and moves are acknowledged.
carcd is killed (-9) and started again on the same directory: exactly the acknowledged moves
are there."""

import errno
import os
import random
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import fault_util as fu
import harness as h
import test_storage as ts

ANSWER_S = 2.0  # every request is answered within this, while the disk is full
TOKEN = "disk-full-metrics-token-0123456789"
CONFIG = dict(ts.FAST, **{"max-conns-per-ip": 200, "metrics-token": TOKEN})


def http(srv, path, headers=None):
    """(status, body text) of GET path."""
    req = urllib.request.Request(srv.http_url.rstrip("/") + path, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def metric(srv, name):
    status, text = http(srv, "/metrics", {"Authorization": "Bearer " + TOKEN})
    assert status == 200, (status, text[:200])
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError("no %s in /metrics" % name)


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def fill(path):
    """Write path until the file system is full (ENOSPC); its size."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    n = 0
    try:
        for chunk in (256 * 1024, 4096, 512):
            buf = b"\0" * chunk
            while True:
                try:
                    n += os.write(fd, buf)
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(fd)
    return n


class DiskFull(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("needs root: mounts a tmpfs as carcd's data directory")
        self.dir = tempfile.mkdtemp(prefix="carcd-diskfull-")
        self.addCleanup(os.rmdir, self.dir)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", self.dir],
                       check=True)
        self.addCleanup(subprocess.run, ["umount", self.dir], check=True)
        self.servers = []
        self.addCleanup(self.kill_all)

    def kill_all(self):
        for s in self.servers:
            s.kill()

    def start(self):
        srv = h.Server(config=CONFIG, data_dir=self.dir).start()
        self.servers.append(srv)
        return srv

    def answered(self, client, mtype, **fields):
        """client's request, answered within ANSWER_S: the reply."""
        t0 = time.monotonic()
        r = client.request(mtype, **fields)
        took = time.monotonic() - t0
        self.assertLess(took, ANSWER_S, "%s answered after %.1f s" % (mtype, took))
        return r

    def refused(self, client, mtype, **fields):
        r = self.answered(client, mtype, **fields)
        self.assertEqual((r.get("type"), r.get("code")), ("error", "storage_error"), r)

    def test_full_disk_answers_everyone_and_loses_nothing(self):
        srv = self.start()
        host = h.Client(srv, name="Lu", timeout=5)
        lobby_room = host.request_ok("create", "joined", name="Lu", seats=3)["room"]
        g = ts.Game(srv, rng=random.Random(11))
        g.play_ok(3)
        seen = ts.board_of(g.doc)
        self.assertEqual(http(srv, "/healthz"), (200, "ok"))
        # The disk fills up.
        filler = os.path.join(self.dir, "filler")
        self.assertGreater(fill(filler), 0)
        mover = g.mover()
        r = self.answered(mover, "play", **g.move())
        self.assertEqual((r.get("type"), r.get("code")), ("error", "storage_error"), r)
        since = len(srv.lines)
        # Everyone has the stored state at once: the refused move is nowhere.
        for c in g.clients:
            c.quiet(0.3)
            self.assertEqual(ts.board_of(c.doc), seen)
            self.assertFalse([m for m in c.backlog if m.get("type") == "ack"], c.backlog)
        self.assertEqual(g.legal_problems(), [])
        status, body = http(srv, "/healthz")
        self.assertEqual((status, body), (503, "storage failing: disk full"))
        self.assertEqual(metric(srv, "carcd_store_healthy"), 0)
        self.assertGreater(metric(srv, "carcd_store_failing_since_timestamp_seconds"),
                           time.time() - 60)
        self.check_every_request(srv, g, lobby_room, seen)
        self.check_nothing_held(srv, g, seen)
        time.sleep(1.2)  # a retry or two: still failing, logged once
        self.assertEqual(len(fu.lines_matching(srv, "storage: a commit failed")), 1, srv.log())
        self.assertIn("full", fu.lines_matching(srv, "storage: a commit failed")[0])
        # Space comes back: the next retry commits, and play goes on.
        os.unlink(filler)
        deadline = time.monotonic() + 5
        while http(srv, "/healthz")[0] != 200:
            self.assertLess(time.monotonic(), deadline, "/healthz still 503 with space back")
            time.sleep(0.1)
        self.assertEqual(http(srv, "/healthz"), (200, "ok"))
        self.assertEqual(metric(srv, "carcd_store_healthy"), 1)
        self.assertTrue(fu.lines_matching(srv, "storage: commits work again", since), srv.log())
        g.play_ok(3)
        seen = ts.board_of(g.doc)
        # A crash, and a start on the same directory: exactly the acknowledged moves.
        host.close()
        g.close()
        srv.kill()
        srv = self.start()
        self.assertIsNone(g.resume(srv))
        self.assertEqual(ts.board_of(g.doc), seen)
        self.assertEqual(len(seen), 1 + g.acked)
        g.play_ok(1)
        g.close()
        self.assertEqual(srv.stop(), 0)

    def check_every_request(self, srv, g, lobby_room, seen):
        """Each request type, while the disk is full."""
        p0 = g.clients[0]
        self.assertEqual(self.answered(p0, "ping")["type"], "pong")
        r = self.answered(p0, "sync", seq=p0.seq)
        self.assertIn(r["type"], ("state", "synced"))
        r = self.answered(p0, "history")
        self.assertEqual(r["type"], "history")
        self.assertEqual(len(r["turns"]), g.acked)
        self.refused(p0, "chat", text="anyone there?")
        self.refused(g.mover(), "play", **g.move())
        with h.Client(srv, name="Wy", timeout=5) as w:
            self.assertEqual(self.answered(w, "watch", room=g.id)["type"], "watching")
            self.assertEqual(ts.board_of(w.wait_type("state", ANSWER_S)["state"]), seen)
        with h.Client(srv, name="Cy", timeout=5) as c:
            self.refused(c, "create", name="Cy", seats=2)
            self.refused(c, "join", room=lobby_room, name="Cy")
        # Seat 1 resumed from a new connection (the old one is closed with 4000).
        again = h.Client(srv, name=g.names[1], timeout=5)
        r = self.answered(again, "resume", room=g.id, token=g.tokens[1])
        self.assertEqual(r["type"], "joined")
        self.assertEqual(ts.board_of(again.wait_type("state", ANSWER_S)["state"]), seen)
        again.token = g.tokens[1]
        self.assertEqual(g.clients[1].wait_close(ANSWER_S).code, 4000)
        g.clients[1] = again
        for c in g.clients:
            c.drain()

    def check_nothing_held(self, srv, g, seen):
        """50 watchers, each answered at once; carcd's memory stays put."""
        watchers = []
        try:
            for i in range(50):
                watchers.append(h.Client(srv, name="w%d" % i, timeout=5))
            before = rss_kib(srv.pid())
            t0 = time.monotonic()
            for i, w in enumerate(watchers):
                w.send({"v": h.V, "type": "watch", "id": i, "room": g.id})
            for w in watchers:
                st = w.wait_type("state", ANSWER_S)
                self.assertEqual(ts.board_of(st["state"]), seen)
            took = time.monotonic() - t0
            self.assertLess(took, ANSWER_S, "50 watchers answered in %.1f s" % took)
            grown = rss_kib(srv.pid()) - before
            h.log("    50 watchers while the disk is full: RSS %+d KiB, answered in %.2f s"
                  % (grown, took))
            self.assertLess(grown, 4 * 1024, "RSS grew by %d KiB" % grown)
        finally:
            for w in watchers:
                w.close()
