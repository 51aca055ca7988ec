"""The server does what protocol/PROTOCOL.md says (issue 13): each test is one place where a
client written from the document alone disagreed with carcd, and the limits on room creation."""

import json
import random
import socket
import tempfile
import threading
import time
import unittest

import harness as h

SEEN = set()  # error codes provoked here, for test_coverage


def ids():
    n = 1000
    while True:
        n += 1
        yield n


_ids = ids()


def send(c, mtype, **fields):
    """Send with a fresh id; return the id."""
    mid = next(_ids)
    msg = {"v": h.V, "type": mtype, "id": mid}
    msg.update(fields)
    c.send(msg)
    return mid


def replies(c, mid, until, timeout=5.0):
    """Every message up to the first carrying ref `mid` whose type is in `until`."""
    got = []
    deadline = time.monotonic() + timeout
    while True:
        m = c.wait_for(lambda m: True, timeout=max(0.05, deadline - time.monotonic()))
        got.append(m)
        if m.get("ref") == mid and m["type"] in until:
            return got


class AddrClient(h.Client):
    """A client whose connection comes from another loopback address (all of 127/8 is lo)."""

    def __init__(self, server, src, **kw):
        sock = socket.create_connection((server.host, server.port), source_address=(src, 0))
        orig = h.websocket.create_connection
        h.websocket.create_connection = lambda url, **k: orig(url, socket=sock, **k)
        try:
            super().__init__(server, **kw)
        finally:
            h.websocket.create_connection = orig


class Replies(unittest.TestCase):
    def setUp(self):
        self.srv = h.shared()

    def test_state_after_joined_or_watching_carries_ref(self):
        with h.Client(self.srv) as a, h.Client(self.srv) as b, h.Client(self.srv) as w:
            mid = send(a, "create", name="Ann", seats=3)
            got = replies(a, mid, ("state",))
            self.assertEqual([m["type"] for m in got], ["joined", "state"], got)
            self.assertEqual(got[0]["ref"], mid)
            mid = send(b, "join", room=a.room, name="Bob")
            got = replies(b, mid, ("state",))
            self.assertEqual([m["type"] for m in got], ["joined", "state"], got)
            mid = send(w, "watch", room=a.room)
            got = replies(w, mid, ("state",))
            self.assertEqual([m["type"] for m in got], ["watching", "state"], got)
            token = b.token
            b.close()
            with h.Client(self.srv) as b2:
                mid = send(b2, "resume", room=a.room, token=token)
                got = replies(b2, mid, ("state",))
                self.assertEqual([m["type"] for m in got], ["joined", "state"], got)

    def test_freed_seat_event_name_is_null(self):
        p = h.create_room(self.srv, ["Ann", "Bob"])
        try:
            p[0].drain()
            p[1].request_ok("leave", "left")
            d = p[0].wait_type("delta")
            ev = [e for e in d["events"] if e["type"] == "seat"]
            self.assertEqual(len(ev), 1, d)
            self.assertEqual(ev[0]["seat"], 1)
            self.assertFalse(ev[0]["taken"])
            self.assertIsNone(ev[0]["name"], d)
            self.assertIsNone(p[0].doc["seats"][1]["name"])
        finally:
            for c in p:
                c.close()

    def test_v_may_be_written_2_0(self):
        with h.Client(self.srv) as c:
            c.send_raw('{"v":2.0,"type":"ping","id":5}')
            m = c.wait_for(lambda m: m.get("ref") == 5)
            self.assertEqual(m["type"], "pong", m)
            c.send_raw('{"v":2.5,"type":"ping","id":6}')
            m = c.wait_for(lambda m: m.get("ref") == 6)
            self.assertEqual(m["code"], "bad_version", m)
            # Version 1, however written, is the old protocol: refused; so is the string "2".
            for i, v in ((7, '1'), (8, '1.0'), (9, '"2"')):
                c.send_raw('{"v":%s,"type":"ping","id":%d}' % (v, i))
                m = c.wait_for(lambda m: m.get("ref") == i)
                self.assertEqual(m.get("code"), "bad_version", (v, m))
                self.assertIn("2", m["message"], m)  # the version it speaks is named
            c.request_ok("ping", "pong")

    def test_integer_id_in_any_spelling_gets_its_ref(self):
        """Conventions: an integer `id` takes any spelling of an integer, and every reply
        carries `ref` with that integer; an id with a fraction is refused."""
        with h.Client(self.srv) as c:
            for text, ref in (("24.0", 24), ("1e1", 10), ("-3.0E1", -30), ("2.5e1", 25)):
                c.send_raw('{"v":2,"type":"ping","id":%s}' % text)
                m = c.wait_for(lambda m: m["type"] in ("pong", "error"))
                self.assertEqual(m["type"], "pong", (text, m))
                self.assertEqual(m.get("ref"), ref, (text, m))
                self.assertIs(type(m["ref"]), int, (text, m))
            # A reply that is an error carries it too.
            c.send_raw('{"v":2,"type":"chat","id":7.0,"text":"hi"}')
            m = c.wait_for(lambda m: m["type"] == "error")
            self.assertEqual((m["code"], m.get("ref")), ("not_in_room", 7), m)
            c.send_raw('{"v":2,"type":"ping","id":2.5}')
            m = c.wait_for(lambda m: m["type"] in ("pong", "error"))
            self.assertEqual(m["type"], "error", m)
            self.assertEqual(m["code"], "bad_request", m)
            self.assertTrue(m["message"].startswith("id:"), m)
            self.assertNotIn("ref", m)  # the id itself was bad
            c.request_ok("ping", "pong")

    def test_seat_counts_out_of_range_are_bad_player_count(self):
        with h.Client(self.srv) as c:
            for n in (0, 1, 7):
                r = c.request("create", name="Ann", seats=n)
                self.assertEqual(r["type"], "error", r)
                self.assertEqual(r["code"], "bad_player_count", (n, r))
                self.assertTrue(r["message"].startswith("seats: must be 2 to 6"), r)
            r = c.request("create", name="Ann", seats=6)
            self.assertEqual(r["code"], "bad_player_count", r)

    def test_nul_escape_is_bad_request_with_ref(self):
        with h.Client(self.srv) as c:
            c.send_raw('{"v":2,"type":"create","id":11,"name":"A\\u0000n","seats":2}')
            m = c.wait_for(lambda m: m.get("type") == "error")
            self.assertEqual(m.get("ref"), 11, m)
            self.assertEqual(m["code"], "bad_request", m)
            self.assertTrue(m["message"].startswith("name:"), m)
            c.request_ok("create", "joined", name="Ann", seats=2)
            c.wait_type("state")
            c.send_raw('{"v":2,"type":"chat","id":12,"text":"hi\\u0000there"}')
            m = c.wait_for(lambda m: m.get("type") == "error")
            self.assertEqual(m.get("ref"), 12, m)
            self.assertEqual(m["code"], "bad_request", m)
            self.assertTrue(m["message"].startswith("text:"), m)
            c.send_raw('{"v":2,"type":"pi\\u0000ng","id":13}')
            m = c.wait_for(lambda m: m.get("ref") == 13)
            self.assertEqual(m["type"], "error", m)


class Spectators(unittest.TestCase):
    def test_spectator_codes(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann", "Bob"])
        try:
            with h.Client(srv) as w:
                w.request_ok("watch", "watching", room=p[0].room)
                w.wait_type("state")
                # Joining, creating or watching again: the connection is already in a room.
                for mtype, f in (("join", {"room": p[0].room, "name": "Eve"}),
                                 ("create", {"name": "Eve", "seats": 2}),
                                 ("watch", {"room": p[0].room})):
                    r = w.request(mtype, **f)
                    self.assertEqual(r.get("code"), "already_in_room", (mtype, r))
                # Acting in the room: spectator.
                for mtype, f in (("start", {}), ("add_bot", {"level": "random"}),
                                 ("remove_bot", {"seat": 1}),
                                 ("play", {"tile": "BA.A", "x": 1, "y": 0, "rot": 0})):
                    r = w.request(mtype, **f)
                    self.assertEqual(r.get("code"), "spectator", (mtype, r))
                for mtype, expect in (("history", "history"), ("ping", "pong"),
                                      ("list", "rooms")):
                    w.request_ok(mtype, expect)
                w.request_ok("leave", "left")
        finally:
            for c in p:
                c.close()


class Catchup(unittest.TestCase):
    """A sync, or a resume or watch with seq, ends with a message carrying the request's ref:
    a `state`, or `synced` after the missing deltas."""

    def test_sync_and_resume_complete(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann", "Bob"], seats=3)
        try:
            for c in p:
                c.drain()
            seq = p[0].seq
            mid = send(p[0], "sync", seq=seq)
            got = replies(p[0], mid, ("synced", "state"))
            self.assertEqual([m["type"] for m in got], ["synced"], got)
            self.assertEqual(got[-1]["seq"], seq)
            # Two deltas behind (answered by deltas without ref: add_bot, remove_bot).
            p[0].send({"v": h.V, "type": "add_bot", "level": "random"})
            h.sync_all(p, seq + 1)
            p[0].send({"v": h.V, "type": "remove_bot", "seat": 2})
            h.sync_all(p, seq + 2)
            p[0].send({"v": h.V, "type": "add_bot", "level": "greedy"})
            h.sync_all(p, seq + 3)
            for c in p:
                c.drain()
            mid = send(p[1], "sync", seq=seq + 1)
            got = replies(p[1], mid, ("synced", "state"))
            self.assertEqual([(m["type"], m.get("seq")) for m in got],
                             [("delta", seq + 2), ("delta", seq + 3), ("synced", seq + 3)], got)
            # Without seq: a state, which carries the ref.
            mid = send(p[1], "sync")
            got = replies(p[1], mid, ("synced", "state"))
            self.assertEqual([m["type"] for m in got], ["state"], got)
            # resume with seq: joined, the deltas, synced.
            token = p[1].token
            p[1].close()
            h.sync_all(p[:1], seq + 4)  # Bob disconnected
            with h.Client(srv) as b:
                mid = send(b, "resume", room=p[0].room, token=token, seq=seq + 3)
                got = replies(b, mid, ("synced", "state"))
                # Its own seat's reconnection is seq + 5, sent with the catch-up.
                self.assertEqual([(m["type"], m.get("seq")) for m in got],
                                 [("joined", None), ("delta", seq + 4), ("delta", seq + 5),
                                  ("synced", seq + 5)], got)
            with h.Client(srv) as w:
                mid = send(w, "watch", room=p[0].room, seq=seq + 4)
                got = replies(w, mid, ("synced", "state"))
                self.assertEqual(got[0]["type"], "watching", got)
                self.assertEqual(got[-1]["type"], "synced", got)
        finally:
            for c in p:
                c.close()


    def test_catchup_on_your_turn_ends_with_legal(self):
        """v2: a catch-up (sync, resume) of the seat to move ends with its `synced` or `state`
        and then that seat's `legal`; the other seat's and a spectator's never do."""
        import copy
        srv = h.shared()
        rng = random.Random(17)
        p = h.create_room(srv, ["Ann", "Bob"])
        extra = []
        try:
            p[0].send({"v": h.V, "type": "start"})
            h.sync_all(p, p[0].seq + 1)
            mover = h.mover_of(p)
            self.assertIsNotNone(mover.wait_legal())

            def expect(c, mid, got, types):
                self.assertEqual([m["type"] for m in got], types, (c.name, got))
                self.assertEqual(h.catch_up_problems(c, mid, got), [], c.name)
                if "legal" in types:
                    self.assertTrue(h.legal_valid(c.legal, c.doc), c.name)
                    self.assertNotIn("ref", got[types.index("legal")])

            def tail(c):
                return ["legal"] if c is mover else []

            # At the current seq: synced alone, then the mover's legal; without seq: a state.
            for c in p:
                mid, got = h.catch_up(c, "sync", seq=c.seq)
                expect(c, mid, got, ["synced"] + tail(c))
                mid, got = h.catch_up(c, "sync")
                expect(c, mid, got, ["state"] + tail(c))
            # One move later, from the seq before it: the delta, synced, then the new mover's.
            kept = [(copy.deepcopy(c.doc), c.seq) for c in p]
            ack = mover.request("play", **h.random_move(rng, mover))
            self.assertEqual(ack["type"], "ack", ack)
            h.sync_all(p, ack["seq"])
            mover = h.mover_of(p)
            self.assertIsNotNone(mover.wait_legal())
            for c, (doc, seq) in zip(p, kept):
                c.doc, c.seq = doc, seq
                mid, got = h.catch_up(c, "sync", seq=seq)
                expect(c, mid, got, ["delta", "synced"] + tail(c))
                self.assertEqual(c.seq, ack["seq"])
            # The mover drops and resumes, with its seq (deltas, synced) and without (state).
            seat, token, seq = mover.seat, mover.token, mover.seq
            other = p[1 - seat]
            for resume_seq in (seq, None):
                mover.close()
                other.wait_doc(lambda d: not d["seats"][seat]["connected"])
                b = h.Client(srv, name="back %s" % resume_seq)
                extra.append(b)
                fields = {"room": p[0].room, "token": token}
                if resume_seq is not None:
                    b.doc, b.seq = copy.deepcopy(mover.doc), mover.seq
                    fields["seq"] = resume_seq
                mid, got = h.catch_up(b, "resume", **fields)
                self.assertEqual(got[0]["type"], "joined", got)
                want = ["joined", "delta", "delta", "synced"] if resume_seq is not None else \
                    ["joined", "state"]
                mover = p[seat] = b
                expect(b, mid, got, want + ["legal"])
                other.wait_seq(b.seq)
            # The other seat drops and resumes: nothing for it.
            otoken, oseat = other.token, other.seat
            other.close()
            mover.wait_doc(lambda d: not d["seats"][oseat]["connected"])
            o = h.Client(srv, name="other back")
            extra.append(o)
            mid, got = h.catch_up(o, "resume", room=p[0].room, token=otoken)
            expect(o, mid, got, ["joined", "state"])
            p[oseat] = o
            mover.wait_seq(o.seq)
            # A spectator's watch, with seq and without, never brings a `legal`.
            for wseq in (o.seq - 1, None):
                w = h.Client(srv, name="spectator")
                extra.append(w)
                fields = {"room": p[0].room}
                if wseq is not None:
                    fields["seq"] = wseq
                mid, got = h.catch_up(w, "watch", **fields)
                self.assertEqual(got[0]["type"], "watching", got)
                self.assertEqual(h.catch_up_problems(w, mid, got), [])
                self.assertNotIn("legal", [m["type"] for m in got])
                mid, got = h.catch_up(w, "sync")
                self.assertEqual([m["type"] for m in got], ["state"], got)
                self.assertEqual(w.legals, [])
            # The resumed mover plays from the list its catch-up brought.
            ack = mover.request("play", **h.random_move(rng, mover))
            self.assertEqual(ack["type"], "ack", ack)
            self.assertEqual(o.wait_legal(ack["seq"]) is not None, o.doc["phase"] == "playing")
        finally:
            for c in p + extra:
                c.close()


class GameOver(unittest.TestCase):
    def test_play_after_the_game_is_game_over(self):
        srv = h.shared()
        rng = random.Random(13)
        p = h.create_room(srv, ["Ann", "Bob"])
        try:
            self.assertEqual(h.play_to_end(p, rng)["phase"], "over")
            r = p[0].request("play", tile="BA.A", x=1, y=0, rot=0)
            self.assertEqual(r.get("code"), "game_over", r)
            # Other lobby actions stay wrong_phase.
            r = p[0].request("start")
            self.assertEqual(r.get("code"), "wrong_phase", r)
        finally:
            for c in p:
                c.close()


def limits_server(**over):
    cfg = dict(h.LIMITS)
    cfg.update({"create-rate": 1000, "create-rate-per-ip": 1000, "lobby-rooms-per-ip": 1000,
                "lobby-room-ttl": 120})
    cfg.update(over)
    return h.Server(cfg).start()


class RestartedClock(unittest.TestCase):
    def resume_at_once(self, data_dir, token, room):
        """Restart carcd on data_dir and resume `token`'s seat as early as a client can: the
        connection is tried every millisecond on a port chosen beforehand, so the `resume` is
        read in the server's first loop turns. The start-up is kept short (an empty web root),
        so that those turns come before a tick of a clock timer started at launch. Returns
        (server, the state of the resume's reply)."""
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        web = tempfile.TemporaryDirectory(prefix="carcd-web-")
        self.addCleanup(web.cleanup)
        srv = h.Server(data_dir=data_dir, extra=["--port", str(port), "--web-root", web.name])
        srv.host, srv.port = "127.0.0.1", port
        out = {}

        def early():  # beside start(), which waits for the startup line
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                try:
                    c = h.Client(srv, name="back")
                    break
                except OSError:
                    time.sleep(0.001)
            else:
                return
            try:
                mid = send(c, "resume", room=room, token=token)
                out["state"] = replies(c, mid, ("state", "synced"))[-1]["state"]
            finally:
                c.close()
        # The server's child must be started by this thread (harness: PR_SET_PDEATHSIG).
        client = threading.Thread(target=early)
        client.start()
        try:
            srv.start()
        finally:
            client.join(20)
        self.assertIn("state", out, "no answer to the resume")
        return srv, out["state"]

    def test_turn_started_is_a_time_right_after_a_restart(self):
        """The state's `clock.turn_started` is a time while playing: a player who resumes a
        running clock game right after a restart gets it, not null (the turn restarts when
        the server does, charged to nobody)."""
        data = tempfile.TemporaryDirectory(prefix="carcd-conf-")
        srv = h.Server(data_dir=data.name).start()
        try:
            a, b = h.create_room(srv, ["Ann", "Bob"],
                                 clock={"initial": 60, "increment": 0, "on_timeout": "bot"})
            room, tokens = a.room, [a.token, b.token]
            a.send({"v": h.V, "type": "start"})
            doc = a.wait_doc(lambda d: d["phase"] == "playing")
            b.wait_doc(lambda d: d["phase"] == "playing")
            cur = doc["current"]
            a.close()
            b.close()
            self.assertEqual(srv.stop(), 0)
            before = time.time() * 1000
            srv, st = self.resume_at_once(data.name, tokens[cur], room)
            self.assertEqual(st["phase"], "playing")
            started = st["clock"]["turn_started"]
            self.assertIsInstance(started, int, st["clock"])
            self.assertGreaterEqual(started, before - 1000)
            self.assertLessEqual(started, time.time() * 1000 + 1000)
            self.assertEqual(st["seats"][cur]["time_ms"], 60000)  # the restart charged nobody
        finally:
            srv.stop()
            data.cleanup()


class CreateLimits(unittest.TestCase):
    def test_create_rate_per_connection(self):
        srv = limits_server(**{"create-rate": 3})
        try:
            with h.Client(srv) as c, h.Client(srv) as d:
                for _ in range(3):
                    c.request_ok("create", "joined", name="Ann", seats=2)
                    c.request_ok("leave", "left")
                r = c.request("create", name="Ann", seats=2)
                self.assertEqual(r.get("code"), "rate_limited", r)
                # Another connection has its own rate.
                d.request_ok("create", "joined", name="Dan", seats=2)
        finally:
            srv.stop()

    def test_create_rate_per_address(self):
        srv = limits_server(**{"create-rate-per-ip": 4})
        try:
            for _ in range(4):
                with h.Client(srv) as c:
                    c.request_ok("create", "joined", name="Ann", seats=2)
                    c.request_ok("leave", "left")
            with h.Client(srv) as c:
                r = c.request("create", name="Ann", seats=2)
                self.assertEqual(r.get("code"), "rate_limited", r)
            with AddrClient(srv, "127.0.0.2") as o:
                o.request_ok("create", "joined", name="Otto", seats=2)
        finally:
            srv.stop()

    def test_lobby_rooms_per_address(self):
        srv = limits_server(**{"lobby-rooms-per-ip": 3})
        hosts = []
        try:
            for i in range(3):
                c = h.Client(srv)
                hosts.append(c)
                c.request_ok("create", "joined", name="H%d" % i, seats=2)
            # Disconnected creators still hold their rooms.
            hosts[0].close()
            with h.Client(srv) as c:
                r = c.request("create", name="Ann", seats=2)
                self.assertEqual(r.get("code"), "too_many_rooms", r)
                self.assertTrue(r["message"])
                SEEN.add(r["code"])
            with AddrClient(srv, "127.0.0.2") as o:
                o.request_ok("create", "joined", name="Otto", seats=2)
            # A room that starts is no longer a lobby room of its creator's address.
            with AddrClient(srv, "127.0.0.3") as j:
                j.request_ok("join", "joined", room=hosts[1].room, name="Jo")
                hosts[1].send({"v": h.V, "type": "start"})
                hosts[1].wait_doc(lambda d: d["phase"] == "playing")
                with h.Client(srv) as c:
                    c.request_ok("create", "joined", name="Ann", seats=2)
        finally:
            for c in hosts:
                c.close()
            srv.stop()

    def test_abandoned_lobby_room_expires(self):
        srv = limits_server(**{"lobby-room-ttl": 1, "lobby-rooms-per-ip": 1})
        try:
            c = h.Client(srv)
            c.request_ok("create", "joined", name="Ann", seats=3)
            c.send({"v": h.V, "type": "add_bot", "level": "random"})
            c.wait_seq(1)
            room = c.room
            with h.Client(srv) as k:
                kept = k.request("create", name="K", seats=2)
                self.assertEqual(kept.get("code"), "too_many_rooms", kept)
            c.close()  # the seat stays (disconnected): a bot and nobody connected
            deadline = time.monotonic() + 6
            while True:
                with h.Client(srv) as w:
                    r = w.request("watch", room=room)
                if r.get("code") == "no_such_room":
                    break
                self.assertLess(time.monotonic(), deadline, "the room outlived lobby-room-ttl")
                time.sleep(0.3)
            # Its address holds no lobby room any more.
            with h.Client(srv) as k:
                k.request_ok("create", "joined", name="K", seats=2)
                # A lobby room whose creator is still connected stays.
                time.sleep(2.5)
                with h.Client(srv) as w:
                    w.request_ok("watch", "watching", room=k.room)
        finally:
            srv.stop()


if __name__ == "__main__":
    unittest.main()
