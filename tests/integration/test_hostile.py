"""Hostile clients, bounded and on loopback: clients that never read, slowloris headers,
half-open handshakes, many connections from one address, reconnect storms, fragmented and
oversized frames, binary floods, ping floods, invalid UTF-8, control frames over 125 bytes,
malformed HTTP. For each case: the server stays up; an honest player's move latency (play to
ack, the median of several moves) stays within 2x its baseline of the same run (plus 2 ms:
loopback medians are a millisecond or two and the CPUs are shared); and the server's RSS is back
in its band (baseline + max(20%, 8 MB)) once the hostile clients are gone and a short settle.
Load generators that need CPU run in forked processes (not sharing the measuring client's
interpreter lock) at stated rates: about 200 handshakes a second for the reconnect storm, 6000
pings a second for the ping flood; unpaced, on two shared CPUs, they measure the machine.
test_abuse.py covers the single-limit cases (1009, 1008, 4001 with a small queue, per-address
limit); this module puts them under load, next to a game in progress."""

import json
import multiprocessing
import os
import random
import socket
import statistics
import threading
import time
import unittest

import harness as h

MOVES = 5          # moves per latency sample
SLACK = 0.002      # seconds added to 2x the baseline
SETTLE = 0.8       # seconds after the hostile clients are gone, before RSS is read
MB = 1 << 20
# Own server: storage off (latency is the loop's, not the disk's); a small outbound queue (the
# least carcd takes), so that a client that never reads falls behind it within one game; chat
# unthrottled (only the message rate counts), for the room's chatter of that case.
CONFIG = dict(h.LIMITS, **{"storage": "off", "queue-bytes": 65536,
                           "chat-rate": 100000, "chat-burst": 100000})
LAZY_RCVBUF = 4096  # the never-reading spectators' receive buffers (the kernel doubles it)
# Protocol v2's documents have no `legal`: a spectator hears about 38 KB of a base game (v1:
# about 170 KB), which the kernel's buffers (4 KiB doubled at the peer, carcd's 16 KiB send
# buffer doubled) nearly hold. The players chat meanwhile, CHATS lines of 280 characters (about
# 66 KB more), at most CHAT_RATE messages a second each (under the rate of 20).
CHATS = 200
CHAT_RATE = 12
RESULTS = []
# The most a cut-off client may find left for it: its own receive buffer (Linux's default,
# 128 KiB) and carcd's send buffer (16 KiB, doubled by the kernel), with room to spare.
BEHIND_MAX = 256 * 1024


def rss(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def read_frames(sock, timeout, until_close=True):
    """Server frames from a raw socket: [(opcode, payload)], up to a close frame, the end of
    the stream or the timeout."""
    buf, out = b"", []
    deadline = time.monotonic() + timeout
    while True:
        frames, buf = h.split_frames(buf)
        for f in frames:
            out.append(f)
            if f[0] == 8 and until_close:
                return out
        left = deadline - time.monotonic()
        if left <= 0:
            return out
        sock.settimeout(left)
        try:
            b = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError, socket.timeout):
            return out
        if not b:
            return out
        buf += b


def close_code(frames):
    for op, payload in frames:
        if op == 8:
            return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
    return None


def in_process(fn, *args):
    """Run a load generator in a forked process, so that it does not share the measuring
    client's interpreter lock (the latency measured is the server's, not Python's)."""
    p = multiprocessing.get_context("fork").Process(target=fn, args=args, daemon=True)
    p.start()
    return p


def end_process(p, timeout=10):
    p.join(timeout)
    if p.is_alive():
        p.terminate()
        p.join(5)


def quiet_close(socks):
    for s in socks:
        try:
            s.close()
        except OSError:
            pass


class Hostile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = h.Server(CONFIG).start()
        cls.rng = random.Random(13)
        cls.players = None
        cls.new_room()
        cls.sample()  # warm up
        cls.base_lat = statistics.median([cls.sample() for _ in range(3)])
        time.sleep(SETTLE)
        cls.base_rss = rss(cls.srv.pid())
        cls.band = cls.base_rss + max(cls.base_rss // 5, 8 * MB)
        # AddressSanitizer keeps freed memory in its quarantine (up to 256 MB) and never gives
        # it back: under it (make test-asan) the RSS band is reported, not asserted.
        with open("/proc/%d/maps" % cls.srv.pid()) as f:
            cls.sanitized = "libasan" in f.read()
        cls.t0 = time.monotonic()

    @classmethod
    def tearDownClass(cls):
        for c in cls.players or []:
            c.close()
        status = cls.srv.stop()
        h.log("hostile: baseline move latency %.2f ms, RSS %.1f MB (band %.1f MB); %.1f s"
              % (cls.base_lat * 1e3, cls.base_rss / MB, cls.band / MB,
                 time.monotonic() - cls.t0))
        for name, lat, peak, after in RESULTS:
            h.log("  %-26s latency %5.2f ms (x%.2f)  RSS peak %.1f MB, after %.1f MB"
                  % (name, lat * 1e3, lat / cls.base_lat, peak / MB, after / MB))
        assert status == 0, cls.srv.log()

    @classmethod
    def new_room(cls):
        for c in cls.players or []:
            c.close()
        cls.players = h.create_room(cls.srv, ["Ann", "Bob"])
        cls.players[0].send({"v": h.V, "type": "start"})
        h.sync_all(cls.players, cls.players[0].seq + 1)

    @classmethod
    def sample(cls, moves=MOVES):
        """The median time from play to ack over a few moves of the honest room."""
        times = []
        for _ in range(moves):
            doc = cls.players[0].doc
            if doc["phase"] != "playing" or doc["tiles_left"] < 2:
                cls.new_room()
                doc = cls.players[0].doc
            mover = cls.players[doc["current"]]
            move = h.random_move(cls.rng, mover)  # its `legal` read before the clock starts
            t = time.monotonic()
            ack = mover.request("play", **move)
            times.append(time.monotonic() - t)
            assert ack["type"] == "ack", ack
            h.sync_all(cls.players, ack["seq"])
        return statistics.median(times)

    def run_case(self, name, start, stop=None):
        """start() sets the hostile clients going (returns what stop() takes); the honest room
        is measured meanwhile; then stop, settle, and check the server."""
        peak = rss(self.srv.pid())
        state = start()
        try:
            lats = [self.sample() for _ in range(2)]
            peak = max(peak, rss(self.srv.pid()))
        finally:
            if stop is not None:
                stop(state)
        lat = statistics.median(lats)
        time.sleep(SETTLE)
        self.assertTrue(self.srv.alive(), self.srv.log())
        after = rss(self.srv.pid())
        deadline = time.monotonic() + 3
        while after > self.band and not self.sanitized and time.monotonic() < deadline:
            time.sleep(0.2)
            after = rss(self.srv.pid())
        RESULTS.append((name, lat, peak, after))
        # The machine is shared (make test runs e2e beside this suite): a case is measured
        # against the quiet room right after it too, so a busier machine is not read as the
        # hostile clients' doing; a server still slow after them fails both baselines.
        base = self.base_lat
        if lat > 2 * base + SLACK:
            base = max(base, statistics.median([self.sample() for _ in range(2)]))
        self.assertLessEqual(lat, 2 * base + SLACK,
                             "%s: move latency %.2f ms, baseline %.2f ms (%.2f ms at start)"
                             % (name, lat * 1e3, base * 1e3, self.base_lat * 1e3))
        if not self.sanitized:
            self.assertLessEqual(after, self.band, "%s: RSS %.1f MB after, band %.1f MB"
                                 % (name, after / MB, self.band / MB))
        with h.Client(self.srv) as c:
            c.request_ok("ping", "pong")
        return state

    # --- clients that never read ---

    def test_spectators_that_never_read_are_cut_off_within_a_game(self):
        """Spectators that never read watch a whole game: they are closed (4001) before it
        ends, as the kernel's unsent bytes count toward the outbound queue's bound (queue-bytes
        64 KiB here) and carcd keeps its send buffer small. Before, a whole game (about 170 KB
        in protocol v1) sat in the kernel's buffers and nobody was cut off. The spectators'
        receive buffers are 4 KiB: what a peer's own kernel holds is out of carcd's sight, and
        with the default (128 KiB, all of it window on newer kernels) a short game can fit in
        it, which made the case depend on the machine's TCP settings rather than on carcd. In
        protocol v2 a game is about 38 KB for a spectator, less than the bound: the players
        chat through it (CHATS lines), as players do, so that what the spectators are sent
        exceeds their buffers and the bound together by some 30 KB."""
        self.new_room()
        room = self.players[0].room

        def start():
            socks = []
            for _ in range(4):
                s = h.raw_connect(self.srv, rcvbuf=LAZY_RCVBUF)
                s.sendall(h.ws_frame('{"v":2,"type":"watch","room":"%s"}' % room))
                socks.append(s)
            return socks

        def stop(socks):
            # The rest of the game, with the chatter, then each lazy one must have been cut off.
            chats = 0
            text = "x" * 280
            while self.players[0].doc["phase"] == "playing" and \
                    self.players[0].doc["tiles_left"] >= 2:
                self.sample(1)
                if chats < CHATS:
                    for _ in range(3):
                        for c in self.players:
                            c.send({"v": h.V, "type": "chat", "text": text})
                            chats += 1
                    # pacing against the message rate (3 chats and at most a play each)
                    time.sleep(4.0 / CHAT_RATE)
            self.assertGreaterEqual(chats, CHATS, "the game ended before the chatter")
            for c in self.players:
                self.assertEqual([m for m in c.backlog if m["type"] == "error"], [])
            # Drained at once: a cut-off client gets its close frame once it reads (lws waits
            # 5 s for the socket to be writable, then drops the connection).
            ended = [None] * len(socks)

            def drain(i):
                ended[i] = h.raw_drain(socks[i], 8)
            ts = [threading.Thread(target=drain, args=(i,)) for i in range(len(socks))]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            quiet_close(socks)
            h.log("never-reading spectators: (cut off, bytes left for them):", ended)
            self.assertEqual([e[0] for e in ended], [True] * len(socks),
                             "a spectator that never reads is kept for a whole game")
            # What was left for them when they were cut: the kernel's share, bounded.
            self.assertLess(max(e[1] for e in ended), BEHIND_MAX)
        self.run_case("never-reading spectators", start, stop)

    # --- HTTP level ---

    def test_slowloris_headers(self):
        def start():
            socks, stop_ev = [], threading.Event()
            for _ in range(40):
                s = socket.create_connection((self.srv.host, self.srv.port))
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
                socks.append(s)

            def trickle():
                i = 0
                while not stop_ev.wait(0.1):
                    for s in socks:
                        try:
                            s.sendall(b"X-%d: y\r\n" % i)
                        except OSError:
                            pass
                    i += 1
            t = threading.Thread(target=trickle, daemon=True)
            t.start()
            return socks, stop_ev, t

        def stop(st):
            socks, stop_ev, t = st
            # A new HTTP client is served meanwhile.
            st_code, _, _ = http_get(self.srv, "/healthz")
            self.assertEqual(st_code, 200)
            stop_ev.set()
            t.join()
            quiet_close(socks)
        self.run_case("slowloris headers", start, stop)

    def test_half_open_handshakes(self):
        def start():
            socks = []
            for i in range(60):
                s = socket.create_connection((self.srv.host, self.srv.port))
                if i % 3 == 1:  # the upgrade without its last CRLF
                    s.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                              b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")
                elif i % 3 == 2:  # the upgrade, then nothing read and nothing sent
                    s.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                              b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
                socks.append(s)  # i % 3 == 0: connected, silent
            return socks
        self.run_case("half-open handshakes", start, quiet_close)

    def test_malformed_http(self):
        bad = [b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
               b"GET / HTTP/1.1\r\nno colon here\r\n\r\n", b"\x00\x01\x02\r\n\r\n",
               b"GET /%zz HTTP/1.1\r\n\r\n", b"GET /x%00 HTTP/1.1\r\n\r\n",
               b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcde",
               b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n",
               b"GET / HTTP/1.1\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n",
               b"GET /" + b"b" * 9000 + b" HTTP/1.1\r\n\r\n"]

        def start():
            for _ in range(10):
                for req in bad:
                    s = socket.create_connection((self.srv.host, self.srv.port))
                    s.settimeout(2)
                    try:
                        s.sendall(req)
                        s.recv(4096)
                    except OSError:
                        pass
                    s.close()
        self.run_case("malformed http", start)

    # --- connections ---

    def test_many_connections_from_one_address(self):
        limit = h.LIMITS["max-conns-per-ip"]

        def start():
            socks = []
            for _ in range(limit + 16):
                try:
                    socks.append(h.raw_connect(self.srv))
                except (AssertionError, OSError):
                    pass
            return socks

        def stop(socks):
            codes = []
            for s in socks[-16:]:
                codes.append(close_code(read_frames(s, 2)))
            quiet_close(socks)
            self.assertIn(1008, codes)
        self.run_case("many connections", start, stop)

    def test_reconnect_storm(self):
        def storm(n):
            for i in range(n):
                if i % 10 == 0:
                    time.sleep(0.1)  # about 100 handshakes a second per process
                try:
                    s = h.raw_connect(self.srv)
                    s.close()
                except (AssertionError, OSError):
                    pass

        def start():
            return [in_process(storm, 150) for _ in range(2)]

        def stop(ps):
            for p in ps:
                end_process(p, 30)
        self.run_case("reconnect storm", start, stop)

    # --- frames ---

    def test_oversized_message_gets_an_error_then_1009(self):
        """PROTOCOL.md Conventions: `message_too_big`, then the close 1009."""
        s = h.raw_connect(self.srv)
        try:
            s.sendall(h.ws_frame('{"v":2,"type":"chat","text":"%s"}' % ("x" * 20000)))
            frames = read_frames(s, 5)
        finally:
            s.close()
        texts = [p for op, p in frames if op == 1]
        self.assertTrue(any(b'"message_too_big"' in t for t in texts), frames[-3:])
        self.assertEqual(close_code(frames), 1009)

    def test_oversized_binary_message_closes_1009(self):
        """A 64 MiB binary frame is refused on its header, like a text one."""
        s = h.raw_connect(self.srv)
        try:
            s.sendall(h.ws_frame_header(64 * MB, opcode=2) + b"\0" * 65536)
            frames = read_frames(s, 5)
        except OSError:
            frames = []
        finally:
            s.close()
        self.assertEqual(close_code(frames), 1009, frames[-3:])

    def test_binary_flood_closes_1008(self):
        """Binary frames pay the same buckets as text: a flood of them closes 1008."""
        s = h.raw_connect(self.srv)
        try:
            for _ in range(300):
                s.sendall(h.ws_frame(b'{"v":2,"type":"ping"}', opcode=2))
            frames = read_frames(s, 5)
        except OSError:
            frames = []
        finally:
            s.close()
        texts = [p for op, p in frames if op == 1]
        self.assertTrue(any(b'"rate_limited"' in t for t in texts), frames[:3])
        self.assertEqual(close_code(frames), 1008)

    def test_fragmented_and_oversized_frames_under_load(self):
        def one(kind):
            try:
                s = h.raw_connect(self.srv)
            except (AssertionError, OSError):
                return
            try:
                if kind == 0:  # 1-byte fragments without end
                    s.sendall(h.ws_frame("{", opcode=1, fin=False))
                    s.sendall(b"".join(h.ws_frame("x", opcode=0, fin=False) for _ in range(400)))
                elif kind == 1:  # oversized text in big fragments
                    s.sendall(h.ws_frame("x" * 8000, opcode=1, fin=False))
                    s.sendall(h.ws_frame("x" * 9000, opcode=0, fin=False))
                else:  # a frame that claims 2^40 bytes
                    s.sendall(h.ws_frame_header(1 << 40) + b"x" * 4096)
                read_frames(s, 3)
            except OSError:
                pass
            finally:
                s.close()

        def start():
            return [in_process(lambda k=k: [one(k) for _ in range(8)]) for k in range(3)]

        def stop(ps):
            for p in ps:
                end_process(p, 30)
        self.run_case("fragments, oversized", start, stop)

    def test_ping_flood(self):
        def flood(seconds):
            ping = h.ws_frame(b"p" * 125, opcode=9) * 20
            socks = [h.raw_connect(self.srv) for _ in range(3)]
            end = time.monotonic() + seconds
            while time.monotonic() < end:  # about 6000 pings a second
                for s in socks:
                    try:
                        s.sendall(ping)
                    except OSError:
                        pass
                time.sleep(0.01)
            quiet_close(socks)

        def start():
            return in_process(flood, 2.0)
        self.run_case("ping flood", start, lambda p: end_process(p))

    def test_protocol_errors_close_1002(self):
        cases = [h.ws_frame(b"x", opcode=3), bytes([0xC1]) + h.ws_frame(b"x")[1:],
                 h.ws_frame(b"x", opcode=9, fin=False), h.ws_frame(b"x", opcode=0)]
        for f in cases:
            s = h.raw_connect(self.srv)
            try:
                s.sendall(f)
                self.assertEqual(close_code(read_frames(s, 5)), 1002, f)
            finally:
                s.close()

    def test_unmasked_frame_is_refused(self):
        """RFC 6455 5.1: a server closes on an unmasked client frame, whatever its opcode or
        length, first or after masked ones, whole or in pieces. lws 4.1.6 does not check it; carcd
        does (server/net/net_rx.h) and answers nothing the frame asked."""
        def unmasked(payload, opcode=1):
            n = len(payload)
            head = bytes([0x80 | opcode])
            head += bytes([n]) if n < 126 else bytes([126]) + n.to_bytes(2, "big")
            return head + payload
        ping = b'{"v":2,"type":"ping","id":"u"}'
        # Masked frames first are answered before the unmasked one is sent: bytes that come in
        # the same read as an unmasked frame may go unanswered.
        cases = [("first frame", [], [unmasked(ping)]),
                 ("after masked frames", [h.ws_frame(b"q" * 300), h.ws_frame(ping)],
                  [unmasked(ping)]),
                 ("16-bit length", [], [unmasked(b" " * 200 + ping)]),
                 ("a ping", [], [unmasked(b"hi", opcode=9)]),
                 ("split in bytes", [h.ws_frame(ping)], [bytes([c]) for c in unmasked(ping)])]
        for name, before, parts in cases:
            s = h.raw_connect(self.srv)
            try:
                for part in before:
                    s.sendall(part)
                if before:
                    self.assertIn(b'"pong"', b"".join(p for _, p in read_frames(s, 1)), name)
                for part in parts:
                    s.sendall(part)
                frames = read_frames(s, 5)
                self.assertEqual(close_code(frames), 1002, name)
                self.assertNotIn(b'"pong"', b"".join(p for op, p in frames if op == 1), name)
            finally:
                s.close()

    def test_frames_before_the_handshake_answer_are_refused(self):
        """RFC 6455 4.1: a client waits for the server's answer before it sends a frame."""
        s = socket.create_connection((self.srv.host, self.srv.port), timeout=5)
        try:
            s.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                      b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      b"Sec-WebSocket-Version: 13\r\n\r\n"
                      + h.ws_frame('{"v":2,"type":"ping","id":"early"}'))
            buf = b""
            while b"\r\n\r\n" not in buf:
                b = s.recv(4096)
                if not b:
                    break
                buf += b
            self.assertIn(b" 101 ", buf.split(b"\r\n", 1)[0])
            rest = buf.split(b"\r\n\r\n", 1)[1]
            frames = h.split_frames(rest)[0] + read_frames(s, 5)
            self.assertEqual(close_code(frames), 1002)
            self.assertNotIn(b"early", b"".join(p for _, p in frames))
        finally:
            s.close()

    def test_invalid_utf8_closes_1007(self):
        s = h.raw_connect(self.srv)
        try:
            s.sendall(h.ws_frame(b'{"v":2,"type":"ping","id":"\xff\xfe"}'))
            self.assertEqual(close_code(read_frames(s, 5)), 1007)
        finally:
            s.close()

    def test_control_frame_over_125_bytes(self):
        """A ping of 126 bytes or more fails the connection (RFC 6455 5.5 and 7.1.7): lws drops
        it without a close frame, and nothing after it is answered."""
        def start():
            ends = []
            for n in (126, 300, 70000):
                s = h.raw_connect(self.srv)
                try:
                    s.sendall(h.ws_frame(b"q" * n, opcode=9))
                    s.sendall(h.ws_frame('{"v":2,"type":"ping","id":"after"}'))
                    frames = read_frames(s, 3)
                except OSError:
                    frames = []
                finally:
                    s.close()
                self.assertFalse(any(b'"after"' in p for op, p in frames if op == 1), frames)
                self.assertIn(close_code(frames), (None, 1002))
                ends.append(n)
            return ends
        self.run_case("control frames > 125", start)


def http_get(srv, path):
    import http.client
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=5)
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        c.close()


if __name__ == "__main__":
    unittest.main()
