"""Issue 25, finding 4: a freeze of carcd was charged to the clocks. Clock 8 s, `forfeit`: the
process is stopped (SIGSTOP) for 12 s while the mover has about 7 s left, the mover's move is
sent during the stop (it waits in the socket's buffer), then SIGCONT. The move must be accepted,
nobody times out, the mover keeps the time it had before the stop, and the log says the stall
was charged to no clock. A stall under `stall-threshold-ms` is time like any other, and a clock
that runs out with no stall still forfeits."""

import os
import random
import re
import signal
import time
import unittest

import fault_util as fu
import harness as h


def clock_game(srv, initial, policy="forfeit"):
    """A started two-player clock game: (mover, other, the mover's seat)."""
    a, b = h.create_room(srv, ["Ann", "Bob"],
                         clock={"initial": initial, "increment": 0, "on_timeout": policy})
    a.send({"v": h.V, "type": "start"})
    h.sync_all([a, b], a.seq + 1)
    mover = h.mover_of([a, b])
    other = b if mover is a else a
    mover.wait_legal()
    return mover, other, mover.seat


def events(*clients):
    return [e for c in clients for d in c.deltas for e in d.get("events", [])]


class Stall(unittest.TestCase):
    def stopped(self, srv, seconds, during=None):
        """SIGSTOP carcd for `seconds`; during(), if given, runs 2 s into the stop."""
        pid = srv.pid()
        os.kill(pid, signal.SIGSTOP)
        try:
            if during is not None:
                time.sleep(2.0)
                during()
                seconds -= 2.0
            time.sleep(seconds)
        finally:
            os.kill(pid, signal.SIGCONT)

    def test_a_freeze_is_charged_to_no_clock(self):
        srv = h.Server().start()
        try:
            mover, other, seat = clock_game(srv, 8)
            time.sleep(1.0)  # the mover thinks for a second: about 7 s left
            move = h.random_move(random.Random(25), mover)
            mid = 2500
            since = len(srv.lines)
            self.stopped(srv, 12.0, during=lambda: mover.send(
                dict({"v": h.V, "type": "play", "id": mid}, **move)))
            reply = mover.wait_for(lambda m: m.get("ref") == mid, timeout=10)
            self.assertEqual(reply["type"], "ack", reply)
            doc = mover.wait_seq(reply["seq"])
            other.wait_seq(reply["seq"])
            self.assertEqual([e for e in events(mover, other) if e["type"] == "timeout"], [])
            self.assertIsNone(doc["seats"][seat]["autoplay"])
            self.assertNotEqual(doc["current"], seat)
            # Charged the second before the stop (and the move's way in), not 13 s.
            left = doc["seats"][seat]["time_ms"]
            self.assertTrue(8000 - 2500 <= left <= 8000 - 900, left)
            deadline = time.monotonic() + 3  # the log is read by the harness' own thread
            while not fu.lines_matching(srv, "the loop stalled for", since) and \
                    time.monotonic() < deadline:
                time.sleep(0.05)
            lines = fu.lines_matching(srv, "the loop stalled for", since)
            self.assertEqual(len(lines), 1, srv.log(20))
            self.assertIn("no clock charged for it", lines[0])
            self.assertIn("warn", lines[0])
            stalled = float(re.search(r"stalled for ([0-9.]+) s", lines[0]).group(1))
            self.assertTrue(11.0 <= stalled <= 14.0, lines[0])
            # The game goes on, and the next turn's clock runs as usual.
            self.assertEqual(h.mover_of([mover, other], doc), other)
            mover.close()
            other.close()
        finally:
            srv.stop()

    def test_a_stall_under_the_threshold_is_charged(self):
        srv = h.Server(config=dict(h.LIMITS, **{"stall-threshold-ms": 5000})).start()
        try:
            mover, other, seat = clock_game(srv, 2)
            time.sleep(0.5)
            since = len(srv.lines)
            self.stopped(srv, 3.0)  # 0.5 + 3 s > the 2 s: the clock ran out meanwhile
            doc = other.wait_doc(lambda d: d["seats"][seat]["autoplay"] == "forfeit")
            self.assertIn({"type": "timeout", "seat": seat, "on_timeout": "forfeit"},
                          events(other))
            self.assertEqual(doc["seats"][seat]["time_ms"], 0)
            self.assertEqual(fu.lines_matching(srv, "the loop stalled", since), [])
            mover.close()
            other.close()
        finally:
            srv.stop()

    def test_a_clock_without_a_stall_still_forfeits(self):
        srv = h.shared()
        since = len(srv.lines)
        mover, other, seat = clock_game(srv, 1)
        t0 = time.monotonic()
        move = h.random_move(random.Random(1), mover)
        doc = other.wait_doc(lambda d: d["seats"][seat]["autoplay"] == "forfeit", timeout=5)
        self.assertGreaterEqual(time.monotonic() - t0, 0.8)
        self.assertIn({"type": "timeout", "seat": seat, "on_timeout": "forfeit"}, events(other))
        r = mover.request("play", **move)
        self.assertEqual((r["type"], r.get("code")), ("error", "time_out"), r)
        self.assertEqual(doc["seats"][seat]["time_ms"], 0)
        self.assertEqual(fu.lines_matching(srv, "the loop stalled", since), [])
        mover.close()
        other.close()


if __name__ == "__main__":
    unittest.main()
