"""Abuse: oversized messages, flooding, a client that never reads. Each closes only the abuser;
everyone else goes on, and the server stays responsive."""

import random
import time
import unittest

import harness as h

SEEN = set()


def responsive(test, srv):
    with h.Client(srv) as c:
        t = time.monotonic()
        c.request_ok("ping", "pong")
        test.assertLess(time.monotonic() - t, 1.0)


class Frames(unittest.TestCase):
    def test_oversized_message_closes_1009(self):
        srv = h.shared()
        c = h.Client(srv)
        limit = c.welcome["limits"]["message_bytes"]
        self.assertEqual(limit, 16384)
        pad = "x" * (limit + 1)
        c.send_raw('{"v":2,"type":"chat","text":"%s"}' % pad)
        closed = c.wait_close()
        self.assertEqual(closed.code, 1009)
        responsive(self, srv)

    def test_oversized_in_fragments_closes_1009(self):
        srv = h.shared()
        s = h.raw_connect(srv)
        try:
            chunk = "x" * 4096
            s.sendall(h.ws_frame('{"v":2,"type":"chat","text":"', opcode=1, fin=False))
            for _ in range(5):
                s.sendall(h.ws_frame(chunk, opcode=0, fin=False))
            s.sendall(h.ws_frame('"}', opcode=0, fin=True))
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.assertEqual(h.raw_read_close(s, 5), 1009)
        s.close()
        responsive(self, srv)

    def test_message_at_the_limit_is_read(self):
        """Exactly message_bytes is allowed: the answer is an error about the chat, no close."""
        srv = h.shared()
        with h.Client(srv) as c:
            limit = c.welcome["limits"]["message_bytes"]
            head = '{"v":2,"type":"ping","id":1,"pad":"'
            text = head + "y" * (limit - len(head) - 2) + '"}'
            self.assertEqual(len(text), limit)
            c.send_raw(text)
            err = c.wait_type("error")
            self.assertEqual(err["code"], "bad_request")
            c.request_ok("ping", "pong")

    def test_fragmented_message_is_reassembled(self):
        srv = h.shared()
        s = h.raw_connect(srv)
        try:
            msg = '{"v":2,"type":"ping","id":"frag"}'
            parts = [msg[:5], msg[5:20], msg[20:]]
            s.sendall(h.ws_frame(parts[0], opcode=1, fin=False))
            s.sendall(h.ws_frame(b"", opcode=9))  # a ping between fragments
            s.sendall(h.ws_frame(parts[1], opcode=0, fin=False))
            s.sendall(h.ws_frame(parts[2], opcode=0, fin=True))
            s.settimeout(5)
            buf = b""
            deadline = time.monotonic() + 5
            while b'"pong"' not in buf and time.monotonic() < deadline:
                b = s.recv(65536)
                if not b:
                    break
                buf += b
            self.assertIn(b'"pong"', buf)
            self.assertIn(b'"frag"', buf)
        finally:
            s.close()

    def test_binary_frame_refused(self):
        """A binary frame is refused (an error, or a close), never taken as a message."""
        srv = h.shared()
        c = h.Client(srv)
        c.ws.send_binary(b'{"v":2,"type":"ping","id":"bin"}')
        try:
            c.send({"v": h.V, "type": "ping", "id": "after"})
            m = c.wait_for(lambda m: m["type"] in ("error", "pong"))
            self.assertEqual(m["type"], "error", "a binary frame went unrefused: %s" % m)
            self.assertNotEqual(m.get("ref"), "bin")
            SEEN.add(m["code"])
            self.assertEqual(c.wait_type("pong")["ref"], "after")
        except h.Closed as closed:
            self.assertIn(closed.code, (1003, 1008))
        c.close()
        responsive(self, srv)


class Flooding(unittest.TestCase):
    def test_flood_rate_limited_then_closed(self):
        srv = h.shared()
        bystander = h.Client(srv)
        c = h.Client(srv)
        rate = c.welcome["limits"]["messages_per_second"]
        self.assertGreater(rate, 0)
        codes = []
        closed = None
        try:
            for i in range(rate * 40):
                c.send({"v": h.V, "type": "ping", "id": i})
        except (BrokenPipeError, ConnectionResetError, OSError,
                h.websocket.WebSocketConnectionClosedException):
            pass
        try:
            while True:
                m = c.wait_for(lambda m: m["type"] == "error", timeout=5)
                codes.append(m["code"])
        except h.Closed as e:
            closed = e
        self.assertIn("rate_limited", codes)
        SEEN.add("rate_limited")
        self.assertIsNotNone(closed)
        self.assertEqual(closed.code, 1008)
        bystander.request_ok("ping", "pong")
        bystander.close()
        responsive(self, srv)

    def test_over_the_burst_is_an_error_not_a_close(self):
        srv = h.shared()
        with h.Client(srv) as c:
            burst = h.LIMITS["burst"]
            for i in range(burst + 5):
                c.send({"v": h.V, "type": "ping", "id": i})
            got = []
            while len(got) < burst + 5:
                got.append(c.wait_for(lambda m: m["type"] in ("pong", "error")))
            codes = [m.get("code") for m in got if m["type"] == "error"]
            self.assertIn("rate_limited", codes)
            self.assertEqual(set(codes), {"rate_limited"})
            self.assertGreaterEqual(len(codes), 1)
            self.assertLessEqual(len(codes), 10)
            SEEN.add("rate_limited")
            time.sleep(1.0)
            c.request_ok("ping", "pong")


class SlowReader(unittest.TestCase):
    def test_client_that_never_reads_is_cut_off(self):
        """A spectator that never reads while it asks for the whole state again and again
        (a small request, a large answer) and the players play on: the server drops it once
        its outbound queue is full, and the players see every delta in time."""
        # A small queue, and rates high enough for the lazy client to ask for a lot quickly:
        # the kernel's socket buffers take megabytes before the server's queue sees anything.
        cfg = dict(h.LIMITS, **{"queue-messages": 16, "queue-bytes": 65536, "rate": 2000,
                                "burst": 4000, "flood-rate": 10000, "flood-burst": 20000})
        srv = h.Server(cfg).start()
        p = []
        lazy = None
        try:
            p = h.create_room(srv, ["Ann", "Bob"])
            lazy = h.raw_connect(srv, rcvbuf=4096)
            lazy.sendall(h.ws_frame('{"v":2,"type":"watch","room":"%s"}' % p[0].room))
            p[0].send({"v": h.V, "type": "start"})
            h.sync_all(p, p[0].seq + 1)
            rng = random.Random(2)
            ended = False
            asked = 0
            t0 = time.monotonic()
            while time.monotonic() - t0 < 30 and not ended:
                try:
                    for _ in range(200):
                        lazy.sendall(h.ws_frame('{"v":2,"type":"sync","seq":100000000}'))
                        asked += 1
                except (BrokenPipeError, ConnectionResetError):
                    ended = True
                    break
                # The players play a move (the lazy one gets each delta too) and keep up.
                doc = p[0].doc
                if doc["phase"] == "playing":
                    t = time.monotonic()
                    mover = h.mover_of(p, doc)
                    ack = mover.request("play", **h.random_move(rng, mover))
                    self.assertEqual(ack["type"], "ack")
                    h.sync_all(p, ack["seq"])
                    self.assertLess(time.monotonic() - t, 1.0, "players slowed down")
                time.sleep(0.2)
            if not ended:
                ended = h.raw_drain(lazy, 5)[0]
            self.assertTrue(ended, "the server kept a client that never reads (%d requests):\n%s"
                            % (asked, srv.log()))
            # Everyone else is fine and the game goes on.
            doc = p[0].doc
            if doc["phase"] == "playing":
                mover = h.mover_of(p, doc)
                ack = mover.request("play", **h.random_move(rng, mover))
                self.assertEqual(ack["type"], "ack")
                h.sync_all(p, ack["seq"])
            for c in p:
                self.assertEqual(c.gaps, 0)
                self.assertIsNone(c.closed)
            responsive(self, srv)
        finally:
            if lazy is not None:
                lazy.close()
            for c in p:
                c.close()
            self.assertEqual(srv.stop(), 0, srv.log())


class Limits(unittest.TestCase):
    """Limits that need a server of their own."""

    def test_rooms_per_server(self):
        srv = h.Server(dict(h.LIMITS, **{"max-rooms": 2})).start()
        try:
            a = h.create_room(srv, ["Ann"], seats=2)
            b = h.create_room(srv, ["Bob"], seats=2)
            with h.Client(srv) as c:
                err = c.request("create", name="Cid", seats=2)
                self.assertEqual(err["code"], "limit_reached", err)
                SEEN.add("limit_reached")
                c.request_ok("ping", "pong")
            for x in a + b:
                x.close()
        finally:
            self.assertEqual(srv.stop(), 0, srv.log())

    def test_connections_per_address(self):
        srv = h.Server(dict(h.LIMITS, **{"max-conns-per-ip": 3})).start()
        try:
            keep = [h.Client(srv) for _ in range(3)]
            try:
                extra = h.Client(srv, welcome=False)
                closed = extra.wait_close(5)
                self.assertEqual(closed.code, 1008)
            except (h.websocket.WebSocketException, ConnectionError) as e:
                # Refused before the handshake completed: also a refusal.
                self.assertTrue(str(e))
            for c in keep:
                c.request_ok("ping", "pong")
            keep[0].close()
            time.sleep(0.2)
            with h.Client(srv) as again:
                again.request_ok("ping", "pong")
            for c in keep[1:]:
                c.close()
        finally:
            self.assertEqual(srv.stop(), 0, srv.log())

    def test_idle_timeout(self):
        srv = h.Server(dict(h.LIMITS, **{"idle-timeout": 1})).start()
        try:
            c = h.Client(srv)
            closed = c.wait_close(5)
            self.assertEqual(closed.code, 4002)
        finally:
            self.assertEqual(srv.stop(), 0, srv.log())

    def test_shutdown_closes_with_1001(self):
        srv = h.Server().start()
        p = h.create_room(srv, ["Ann", "Bob"])
        p[0].send({"v": h.V, "type": "start"})
        h.sync_all(p, p[0].seq + 1)
        srv.proc.send_signal(h.signal.SIGTERM)
        for c in p:
            self.assertEqual(c.wait_close(10).code, 1001)
        self.assertEqual(srv.stop(), 0, srv.log())


if __name__ == "__main__":
    unittest.main()
