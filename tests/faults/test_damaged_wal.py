"""Finding 5: silent loss from a damaged write-ahead log or an empty database.

A real carcd plays games; a first run stops cleanly (its moves checkpointed into carcd.db), a
second run plays more and is killed with SIGKILL, so that every move it acknowledged is only in
carcd.db-wal (carcd checkpoints after 1000 pages; these games write far fewer). That data
directory is copied for each case:

- a byte flipped in the middle of the log, the log deleted, carcd.db emptied (0 bytes, its log
  gone too): carcd refuses to start (exit 1, nothing listens), says at error level what would be
  lost, and keeps the files as they were in <data-dir>/damaged-*/; with --accept-damaged-data it
  starts, and the games really have lost those moves (SQLite drops them without a word: the
  check is not crying wolf);
- the log intact (a plain crash), then a clean stop and start: no word, every acknowledged move.

Before issue 25 carcd started on all three, logging only `restored N room(s)` at info."""

import glob
import os
import random
import shutil
import struct
import subprocess
import tempfile
import unittest

import harness as h
from fault_util import lines_matching

FAST = dict(h.LIMITS, **{"rate": 2000, "burst": 2000, "flood-rate": 4000, "flood-burst": 4000})
ROOMS = 3
FIRST, SECOND = 6, 20  # moves per room in the run that stops cleanly, then in the one killed


def board_of(doc):
    return {k: (v["tile"], v["rot"]) for k, v in (doc or {}).get("board", {}).items()}


class Game:
    """Two players in a started game; the tokens, and the board as last acknowledged."""

    def __init__(self, srv, rng):
        self.rng = rng
        self.clients = h.create_room(srv, ["Ann", "Bob"], sets=["base"])
        self.clients[0].send({"v": h.V, "type": "start"})
        for c in self.clients:
            c.wait_doc(lambda d: d["phase"] == "playing")
            c.drain()
        self.id = self.clients[0].room
        self.tokens = [c.token for c in self.clients]
        self.board = board_of(self.clients[0].doc)

    def play(self, n):
        for _ in range(n):
            doc = self.clients[0].doc
            mover = self.clients[doc["current"]]
            r = mover.request("play", **h.random_move(self.rng, mover))
            if r.get("type") != "ack":
                raise AssertionError("play: %s" % r)
            for c in self.clients:
                c.wait_seq(r["seq"])
                c.drain()
        self.board = board_of(self.clients[0].doc)

    def close(self):
        for c in self.clients:
            c.close()
        self.clients = []

    def resume(self, srv):
        """Resume both seats on srv: the restored board, or the error code of the first resume."""
        clients = []
        try:
            for i, tok in enumerate(self.tokens):
                c = h.Client(srv, name="P%d" % i, timeout=5)
                clients.append(c)
                r = c.request("resume", room=self.id, token=tok)
                if r.get("type") != "joined":
                    return r.get("code")
                c.wait_type("state")
            return board_of(clients[-1].doc)
        finally:
            for c in clients:
                c.close()


def text(b):
    return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")


def run_carcd(data_dir, *extra, timeout=10):
    """carcd expected to exit by itself: (returncode, stdout, stderr); returncode None when it
    was still running after timeout seconds (it served: killed)."""
    try:
        p = subprocess.run([h.CARCD, "--listen", "127.0.0.1", "--port", "0", "--data-dir",
                            data_dir] + list(extra), cwd=h.ROOT, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=timeout,
                           preexec_fn=h._die_with_parent)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = None, text(e.stdout), text(e.stderr)
    h.log_keep("carcd-damaged", out + err)
    return rc, out, err


class DamagedWal(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="carcd-fault-wal-")
        cls.image = os.path.join(cls.tmp, "image")
        os.mkdir(cls.image)
        rng = random.Random(25)
        srv = h.Server(config=FAST, data_dir=cls.image).start()
        try:
            cls.games = [Game(srv, rng) for _ in range(ROOMS)]
            for g in cls.games:
                g.play(FIRST)
                g.close()
        finally:
            status = srv.stop()
        assert status == 0, srv.log()
        cls.clean_boards = [dict(g.board) for g in cls.games]
        srv = h.Server(config=FAST, data_dir=cls.image).start()
        try:
            for g in cls.games:
                g.clients = [h.Client(srv, name="P%d" % i) for i in range(2)]
                for c, tok in zip(g.clients, g.tokens):
                    r = c.request("resume", room=g.id, token=tok)
                    assert r.get("type") == "joined", r
                    c.token = tok
                    c.wait_type("state")
                top = max(c.seq for c in g.clients)
                for c in g.clients:
                    c.wait_seq(top)
                    c.drain()
                g.play(SECOND)
        finally:
            srv.kill()  # SIGKILL: what it acknowledged is in carcd.db-wal only
        for g in cls.games:
            g.close()
        cls.acked_boards = [dict(g.board) for g in cls.games]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="case-", dir=self.tmp)
        os.rmdir(self.dir)
        shutil.copytree(self.image, self.dir)
        self.db = os.path.join(self.dir, "carcd.db")
        self.wal = self.db + "-wal"
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.kill()

    def start(self, *extra):
        srv = h.Server(config=FAST, data_dir=self.dir, extra=list(extra)).start()
        self.servers.append(srv)
        return srv

    def kept(self):
        return sorted(glob.glob(os.path.join(self.dir, "damaged-*")))

    def assert_refused(self, needle):
        """carcd exits 1 without listening, with an error line containing needle, and keeps
        the files; a second refusal keeps no second copy. The error lines."""
        rc, out, err = run_carcd(self.dir)
        self.assertEqual(rc, 1, "carcd started on damaged files:\n%s%s" % (out, err))
        self.assertNotIn("listening", out)
        errors = [ln for ln in err.splitlines() if ": error: " in ln]
        self.assertTrue([ln for ln in errors if needle in ln], err)
        self.assertTrue([ln for ln in errors if "does not start" in ln
                         and "--accept-damaged-data" in ln], err)
        kept = self.kept()
        self.assertEqual(len(kept), 1, kept)
        self.assertTrue([ln for ln in errors if "kept in " + kept[0] in ln], err)
        with open(os.path.join(kept[0], "found.txt")) as f:
            self.assertIn(needle, f.read())
        rc, _, _ = run_carcd(self.dir)
        self.assertEqual(rc, 1)
        self.assertEqual(self.kept(), kept)
        return errors

    def restored(self, srv):
        return [g.resume(srv) for g in self.games]

    def test_flipped_byte_in_the_log(self):
        with open(self.wal, "r+b") as f:
            hdr = f.read(32)
            page = struct.unpack(">I", hdr[8:12])[0]
            frames = (os.path.getsize(self.wal) - 32) // (24 + page)
            self.assertGreater(frames, 20, "the moves are not in the log")
            off = 32 + (frames // 2) * (24 + page) + 24 + 100
            f.seek(off)
            b = f.read(1)
            f.seek(off)
            f.write(bytes([b[0] ^ 0x20]))
        damaged = open(self.wal, "rb").read()
        errors = self.assert_refused("carcd.db-wal is damaged at frame %d of %d"
                                     % (frames // 2 + 1, frames))
        self.assertTrue([ln for ln in errors if "committed transaction(s)" in ln], errors)
        with open(os.path.join(self.kept()[0], "carcd.db-wal"), "rb") as f:
            self.assertEqual(f.read(), damaged)
        srv = self.start("--accept-damaged-data")
        self.assertTrue(lines_matching(srv, "starting on the damaged files anyway"), srv.log())
        boards = self.restored(srv)
        lost = 0
        for b, clean, acked in zip(boards, self.clean_boards, self.acked_boards):
            self.assertIsInstance(b, dict, b)
            self.assertLessEqual(set(clean.items()), set(b.items()))
            self.assertLessEqual(set(b.items()), set(acked.items()))
            lost += len(acked) - len(b)
        self.assertGreater(lost, 0, "SQLite kept every move: the check cried wolf")
        self.assertEqual(srv.stop(), 0)

    def test_deleted_log(self):
        os.remove(self.wal)
        self.assert_refused("carcd.db-wal is missing, but carcd did not stop cleanly")
        srv = self.start("--accept-damaged-data")
        self.assertEqual(self.restored(srv), self.clean_boards)  # the second run's moves: gone
        self.assertEqual(srv.stop(), 0)

    def test_empty_database(self):
        os.truncate(self.db, 0)
        os.remove(self.wal)
        if os.path.exists(self.db + "-shm"):
            os.remove(self.db + "-shm")
        self.assert_refused("carcd.db is empty (0 bytes), but carcd did not stop cleanly")
        with open(os.path.join(self.kept()[0], "carcd.state")) as f:
            self.assertIn("clean 0", f.read())
        srv = self.start("--accept-damaged-data")
        self.assertEqual(self.restored(srv), ["no_such_room"] * ROOMS)
        self.assertEqual(srv.stop(), 0)

    def test_crash_and_clean_stop_start_quietly(self):
        for _ in range(2):  # the crash's log replayed, then a clean stop and start
            srv = self.start()
            self.assertEqual(self.restored(srv), self.acked_boards)
            self.assertEqual(srv.stop(), 0)
            self.assertEqual([ln for ln in srv.lines if ": error: " in ln], [], srv.log())
        self.assertEqual(self.kept(), [])


if __name__ == "__main__":
    unittest.main()
