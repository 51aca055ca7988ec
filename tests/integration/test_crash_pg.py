"""test_crash.py against a real PostgreSQL (pg_util.py): carcd killed with SIGKILL at random
moments and restarted on the same database loses no move any client saw; a plain restart keeps
a lobby room, a game in progress and a finished game."""

import unittest

import harness as h
import pg_util
import test_crash as base


class CrashPg(base.Crash):
    @classmethod
    def setUpClass(cls):
        h.PG_URL_FOR = pg_util.shared().database_for

    @classmethod
    def tearDownClass(cls):
        h.PG_URL_FOR = None


if __name__ == "__main__":
    unittest.main()
