"""The storage tests of test_storage.py against a real PostgreSQL (pg_util.py), and the faults
only a database server has: it restarts in the middle of a game (moves get storage_error, nobody
hears of them, carcd reconnects by itself and play goes on with exactly the acknowledged moves),
it is down when carcd starts (carcd waits for it, or gives up after storage-wait with a clear
message), and a second carcd on the same database is refused. Also: carcd --export-db /
--import-db copy a live SQLite database into PostgreSQL and its games resume there."""

import os
import random
import subprocess
import threading
import time
import unittest

import harness as h
import pg_util
import test_storage as base
from test_storage import FAST, Game, board_of, http_get, http_json


class StoragePg(base.Storage):
    """Every test of test_storage.Storage that does not need SQLite's file, on PostgreSQL: one
    database per data directory, in one PostgreSQL for the module."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.shared()
        h.PG_URL_FOR = cls.pg.database_for

    @classmethod
    def tearDownClass(cls):
        h.PG_URL_FOR = None

    def sql(self, statement):
        self.pg.psql(statement, db=self.pg.database_for(self.dir).split("dbname=")[1].split()[0])

    # SQLite's own faults: a lock held by another program, a file over RLIMIT_FSIZE.
    test_database_locked_at_start = None
    test_database_locked_at_run_time = None
    test_full_disk = None


class PgFaults(unittest.TestCase):
    """A PostgreSQL of its own that the tests stop and start."""

    @classmethod
    def setUpClass(cls):
        cls.pg = pg_util.Postgres()

    @classmethod
    def tearDownClass(cls):
        cls.pg.close()
        h.PG_URL_FOR = None

    def setUp(self):
        import tempfile
        self.dir = tempfile.mkdtemp(prefix="carcd-pg-faults-")
        self.servers = []
        if not self.pg.running():
            self.pg.start()
        h.PG_URL_FOR = self.pg.database_for

    def tearDown(self):
        import shutil
        for s in self.servers:
            s.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, *extra, timeout=15):
        srv = h.Server(config=FAST, data_dir=self.dir, extra=extra).start(timeout=timeout)
        self.servers.append(srv)
        return srv

    def test_database_restart_mid_game(self):
        self.restart_mid_game("fast")

    def test_database_crash_mid_game(self):
        """pg_ctl stop -m immediate: the database dies without a shutdown checkpoint and
        recovers from its WAL when started again."""
        self.restart_mid_game("immediate")

    def restart_mid_game(self, mode):
        srv = self.start()
        self.assertTrue(any("PostgreSQL database" in line for line in srv.lines), srv.log(10))
        g = Game(srv, rng=random.Random(11))
        g.play_ok(3)
        seen = board_of(g.doc)
        self.pg.stop(mode)
        mover, others = g.mover(), g.others()
        move = g.move()
        r = mover.request("play", **move)
        self.assertEqual(r.get("code"), "storage_error", r)
        # A proxy's health check sends nobody here meanwhile.
        self.assertEqual(http_get(srv, "/healthz"), (503, "storage failing: database unreachable"))
        time.sleep(0.3)
        for c in g.clients:
            c.quiet(0.2)
            self.assertFalse([m for m in c.backlog if m.get("type") == "ack"], c.backlog)
            for m in c.backlog:
                if m.get("type") == "delta":
                    placed = [e for e in m["events"] if e.get("type") == "placed"]
                    self.assertFalse(placed, "a delta told of the refused move: %s" % m)
        self.assertEqual(board_of(others[0].doc), seen)
        # Refused while the database is down, rooms too; reads answer 503.
        r = mover.request("play", **move)
        self.assertEqual(r.get("code"), "storage_error", r)
        with h.Client(srv, name="Cy") as c:
            r = c.request("create", name="Cy", seats=2)
            self.assertEqual(r.get("code"), "storage_error", r)
        self.assertEqual(http_get(srv, "/api/games")[0], 503)
        self.assertTrue(srv.alive())
        time.sleep(1.5)  # a few reconnects fail, with backoff
        self.pg.start()
        deadline = time.monotonic() + 15
        while True:
            for c in g.clients:
                c.quiet(0.1)
            r = g.play(g.move())
            if r.get("type") == "ack":
                break
            self.assertEqual(r.get("code"), "storage_error", r)
            self.assertLess(time.monotonic(), deadline, "moves still refused after the restart")
            time.sleep(0.3)
        g.play_ok(2)
        self.assertEqual(g.legal_problems(), [])
        seen = board_of(g.doc)
        self.assertEqual(len(seen), 1 + g.acked)
        self.assertEqual(http_get(srv, "/api/games")[0], 200)
        self.assertEqual(http_get(srv, "/healthz"), (200, "ok"))
        self.assertTrue(any("connection is back" in line for line in srv.lines), srv.log(20))
        # The database holds exactly the acknowledged moves: a fresh carcd serves them.
        g.close()
        self.assertEqual(srv.stop(), 0)
        srv = self.start()
        self.assertIsNone(g.resume(srv))
        self.assertEqual(board_of(g.doc), seen)
        g.play_ok(1)
        g.close()
        self.assertEqual(srv.stop(), 0)

    def test_database_down_at_start(self):
        srv = self.start()
        g = Game(srv, rng=random.Random(12))
        g.play_ok(2)
        seen = board_of(g.doc)
        g.close()
        self.assertEqual(srv.stop(), 0)
        self.pg.stop("fast")
        # Given up after storage-wait: exit 1, a clear message, no connection string.
        url = self.pg.database_for(self.dir)
        t0 = time.monotonic()
        rc, out, err = base.run_carcd(self.dir, "--storage-wait", "1", timeout=20)
        self.assertEqual(rc, 1, out + err)
        self.assertIn("cannot connect to PostgreSQL", err)
        self.assertNotIn("listening", out)
        self.assertNotIn(url, out + err)
        self.assertLess(time.monotonic() - t0, 8)
        # Waited for: the database comes up 2 s after carcd started, carcd then serves.
        threading.Timer(2.0, self.pg.start).start()
        srv = self.start("--storage-wait", "30", timeout=40)
        self.assertTrue(any("does not answer" in line for line in srv.lines), srv.log(10))
        self.assertIsNone(g.resume(srv))
        self.assertEqual(board_of(g.doc), seen)
        g.play_ok(2)
        g.close()
        self.assertEqual(srv.stop(), 0)

    def test_second_carcd_on_a_database_refused(self):
        srv = self.start()
        other = os.path.join(self.dir, "other")
        os.mkdir(other)
        # Another data directory, the same database: refused by the database's lock.
        p = subprocess.run([h.CARCD, "--listen", "127.0.0.1", "--port", "0", "--data-dir", other,
                            "--storage", "postgres", "--postgres-url",
                            self.pg.database_for(self.dir)], cwd=h.ROOT, capture_output=True,
                           text=True, timeout=20, stdin=subprocess.DEVNULL)
        h.log_keep("carcd-run", p.stdout + p.stderr)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("another carcd (pid %d)" % srv.pid(), p.stderr)
        g = Game(srv)
        g.play_ok(1)
        g.close()
        self.assertEqual(srv.stop(), 0)


class Copy(unittest.TestCase):
    """carcd --import-db / --export-db between a live SQLite database and PostgreSQL."""

    def setUp(self):
        import tempfile
        self.pg = pg_util.shared()
        self.dirs = [tempfile.mkdtemp(prefix="carcd-copy-") for _ in range(3)]
        self.servers = []

    def tearDown(self):
        import shutil
        h.PG_URL_FOR = None
        for s in self.servers:
            s.kill()
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)

    def start(self, data_dir, pg):
        h.PG_URL_FOR = self.pg.database_for if pg else None
        srv = h.Server(config=FAST, data_dir=data_dir).start()
        self.servers.append(srv)
        return srv

    def carcd(self, data_dir, pg, *extra):
        h.PG_URL_FOR = self.pg.database_for if pg else None
        return base.run_carcd(data_dir, *extra, timeout=30)

    def test_live_sqlite_copied_into_postgres_and_back(self):
        sq, pgdir, back = self.dirs
        a = self.start(sq, pg=False)
        g = Game(a, rng=random.Random(21))
        g.play_ok(4)
        lobby = h.create_room(a, ["Cy", "Di"], seats=3)
        lobby_id, lobby_token = lobby[0].room, lobby[0].token
        for c in lobby:
            c.close()
        # A finished game's record, as a carcd writes it (and while it serves from the file).
        import sqlite3
        con = sqlite3.connect(os.path.join(sq, "carcd.db"), isolation_level=None, timeout=5)
        con.execute("INSERT INTO games VALUES('RECORD1', '{\"seed\":7}', '[\"Ann\"]', '[9]', 5,"
                    " 'finished')")
        con.close()
        seen = board_of(g.doc)
        # Imported while carcd still serves from the SQLite file.
        rc, out, err = self.carcd(pgdir, True, "--import-db", os.path.join(sq, "carcd.db"))
        self.assertEqual(rc, 0, out + err)
        self.assertIn("imported 2 room(s) and 1 record(s)", out)
        self.assertTrue(a.alive())
        g.close()
        a.kill()
        # The games resume on PostgreSQL and go on there.
        b = self.start(pgdir, pg=True)
        self.assertIsNone(g.resume(b))
        self.assertEqual(board_of(g.doc), seen)
        g.play_ok(3)
        seen = board_of(g.doc)
        with h.Client(b) as c:
            r = c.request("resume", room=lobby_id, token=lobby_token)
            self.assertEqual(r.get("type"), "joined", r)
        self.assertEqual(http_json(b, "/api/games/RECORD1"), {"seed": 7})
        self.assertEqual(http_json(b, "/api/games")["total"], 1)
        g.close()
        # Refused while that carcd writes the database; then exported to a new SQLite file.
        out_db = os.path.join(back, "carcd.db")
        rc, out, err = self.carcd(pgdir, True, "--export-db", out_db)
        self.assertEqual(rc, 1, out + err)
        self.assertIn("another carcd", err)
        self.assertFalse(os.path.exists(out_db))
        self.assertEqual(b.stop(), 0)
        rc, out, err = self.carcd(pgdir, True, "--export-db", out_db)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("exported 2 room(s) and 1 record(s)", out)
        rc, out, err = self.carcd(pgdir, True, "--export-db", out_db)
        self.assertEqual(rc, 1, out + err)
        self.assertIn("exists", err)
        # ... and a carcd on that file has every move.
        c3 = self.start(back, pg=False)
        self.assertIsNone(g.resume(c3))
        self.assertEqual(board_of(g.doc), seen)
        g.play_ok(1)
        g.close()
        self.assertEqual(http_json(c3, "/api/games/RECORD1"), {"seed": 7})
        self.assertEqual(c3.stop(), 0)


if __name__ == "__main__":
    unittest.main()
