"""Connections that flood control frames (issue 25, finding 7).

60 connections sent 9.7 million ping frames in 20 s: lws answers pings (and takes pongs and
closes) without showing them to carcd, so none paid the flood bucket, none was closed, and carcd
used 76% of a core. Now every control frame pays the flood bucket (flood-rate, flood-burst)
as a data frame does, counted in the raw bytes lws reads (server/net/net_rx.c, conn/rxguard.c):
over it, the connection is closed with 1008. Here flooders send pings or unsolicited pongs as
fast as the socket takes them, while two honest players play; each flooder must get its 1008
within a few seconds, carcd's CPU must fall back once they are gone, and the game goes on."""

import random
import select
import threading
import time
import unittest

import harness as h
import fault_util as fu

FLOODERS = 24
CLOSE_WITHIN = 3.0  # seconds from a flooder's first frame to the server's close frame


def flood(server, opcode, result, stop):
    """Send frames of opcode (9 ping, 10 pong) as fast as the socket takes them, reading what
    comes back, until the server's close frame (result["code"], result["after"]), the end of the
    connection, or stop."""
    s = h.raw_connect(server)
    s.setblocking(False)
    burst = b"".join(h.ws_frame(b"p%d" % (i % 10), opcode=opcode) for i in range(500))
    off, buf, sent = 0, b"", 0
    t0 = time.monotonic()
    try:
        while not stop.is_set() and time.monotonic() - t0 < 15:
            r, w, _ = select.select([s], [s], [], 0.5)
            if w:
                try:
                    n = s.send(burst[off:])
                    off = (off + n) % len(burst)
                    sent += n
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError):
                    break
            if r:
                try:
                    b = s.recv(65536)
                except BlockingIOError:
                    continue
                except ConnectionResetError:
                    break
                if not b:
                    break
                buf += b
                frames, buf = h.split_frames(buf)
                for op, payload in frames:
                    if op == 8:
                        result["code"] = int.from_bytes(payload[:2], "big")
                        result["after"] = time.monotonic() - t0
                        return
    finally:
        result["sent"] = sent
        s.close()


class PingFlood(unittest.TestCase):
    def test_control_frame_floods_are_closed_and_the_game_goes_on(self):
        srv = h.Server().start()
        try:
            self.run_flood(srv)
        finally:
            self.assertEqual(srv.stop(), 0, srv.log())

    def run_flood(self, srv):
        rng = random.Random(25)
        players = h.create_room(srv, ["Ann", "Bob"])
        players[0].send({"v": h.V, "type": "start"})
        h.sync_all(players, players[0].seq + 1)

        def move():
            mover = h.mover_of(players)
            ack = mover.request("play", **h.random_move(rng, mover))
            self.assertEqual(ack["type"], "ack", ack)
            h.sync_all(players, ack["seq"])

        stop = threading.Event()
        results = [{} for _ in range(FLOODERS)]
        threads = [threading.Thread(target=flood, args=(srv, 9 if i % 2 == 0 else 10,
                                                        results[i], stop), daemon=True)
                   for i in range(FLOODERS)]
        for t in threads:
            t.start()
        # The honest game goes on while they flood.
        deadline = time.monotonic() + CLOSE_WITHIN + 2
        moves = 0
        while time.monotonic() < deadline and any(t.is_alive() for t in threads):
            move()
            moves += 1
            time.sleep(0.1)
        stop.set()
        for t in threads:
            t.join(5)
        for i, r in enumerate(results):
            self.assertEqual(r.get("code"), 1008, "flooder %d (%s frames): %s"
                             % (i, "ping" if i % 2 == 0 else "pong", r))
            self.assertLess(r["after"], CLOSE_WITHIN, r)
            # It was closed for flooding: well past the burst of 80, not after a handful.
            self.assertGreater(r["sent"], 80 * 8, r)
        self.assertGreater(moves, 0)
        self.assertTrue(fu.lines_matching(srv, "flooding (control frames)"), srv.log())
        # With the flooders gone, carcd is idle again (the players wait for their turn).
        time.sleep(0.5)
        share = fu.cpu_share(srv.pid(), 2.0)
        self.assertLess(share, 0.2, "carcd used %.0f%% of a core after the flood" % (share * 100))
        # ... and the game goes on, no player closed.
        for _ in range(5):
            move()
        for p in players:
            self.assertIsNone(p.closed)
            p.close()

    def test_a_client_within_the_bucket_is_not_closed(self):
        """Pings at a pace under flood-rate (40/s here) never close a connection."""
        srv = h.shared()
        s = h.raw_connect(srv)
        try:
            for i in range(60):  # 3 s at 20 a second: within the bucket all along
                s.sendall(h.ws_frame(b"hi", opcode=9))
                time.sleep(0.05)
            ended, _ = h.raw_drain(s, 0.5)
            self.assertFalse(ended, "the server closed a connection pinging at 20/s")
        finally:
            s.close()


if __name__ == "__main__":
    unittest.main()
