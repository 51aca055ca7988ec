"""Seats across connections: resume with missing deltas or a snapshot, a newer connection with
the same token, leaving, spectators, chat."""

import copy
import random
import unittest

import harness as h


def start_game(names, sets=None, seed=3):
    srv = h.shared()
    players = h.create_room(srv, names, sets=sets)
    players[0].send({"v": h.V, "type": "start"})
    h.sync_all(players, players[0].seq + 1)
    return srv, players, random.Random(seed)


def play_one(players, rng):
    """The current player makes a random legal move (from its own `legal`); returns the ack's
    seq."""
    mover = h.mover_of(players)
    ack = mover.request("play", **h.random_move(rng, mover))
    assert ack["type"] == "ack", ack
    return ack["seq"]


def settle(players):
    """The mover has read its `legal` for the turn (so that nothing of the last move is still
    on its way when a test rewinds or drops a connection)."""
    doc = next(c.doc for c in players if c.closed is None)
    if doc["phase"] == "playing":
        mover = h.mover_of(players, doc)
        assert mover.wait_legal() is not None, mover.name


class Resume(unittest.TestCase):
    def test_resume_gets_missing_deltas(self):
        srv, p, rng = start_game(["Ann", "Bob", "Cid"])
        try:
            seq = play_one(p, rng)
            h.sync_all(p, seq)
            # Cid (seat 2) drops while it is Bob's turn.
            old = p[2]
            kept_doc, kept_seq, token = copy.deepcopy(old.doc), old.seq, old.token
            old.close()
            live = [p[0], p[1]]
            # Everyone hears that Cid is gone (one delta), then Bob plays on.
            for c in live:
                c.wait_doc(lambda d: not d["seats"][2]["connected"])
            self.assertEqual(p[1].doc["current"], 1)
            seq = play_one(p, rng)
            h.sync_all(live, seq)
            # The seat is held and shown as disconnected; it is its turn now.
            self.assertFalse(p[0].doc["seats"][2]["connected"])
            self.assertTrue(p[0].doc["seats"][2]["taken"])
            self.assertEqual(p[0].doc["current"], 2)
            self.assertGreater(seq, kept_seq)
            heard = [len(o.legals) for o in live]
            c = h.Client(srv, name="Cid again")
            c.doc, c.seq = kept_doc, kept_seq
            mid, got = h.catch_up(c, "resume", room=old.room, token=token, seq=kept_seq)
            j = got[0]
            self.assertEqual((j["type"], j.get("ref")), ("joined", mid), got)
            self.assertEqual(j["seat"], 2)
            self.assertFalse(j.get("token"), "resume must not send the token again")
            # Reconnecting is itself a change (connected: true).
            h.sync_all(p[:2], seq + 1)
            c.wait_seq(seq + 1)
            got_types = [m["type"] for m in got]
            self.assertNotIn("state", got_types, "missing deltas were expected, not a snapshot")
            self.assertEqual(c.gaps, 0)
            # On its turn: the catch-up's `synced`, then its `legal`.
            self.assertEqual(h.catch_up_problems(c, mid, got), [])
            self.assertEqual(got_types[-2:], ["synced", "legal"], got_types)
            fseq, fresh = h.fresh_state(srv, old.room)
            self.assertEqual(c.seq, fseq)
            self.assertEqual(c.doc, fresh)
            self.assertTrue(fresh["seats"][2]["connected"])
            # The others got no `legal` meanwhile.
            self.assertEqual([len(o.legals) for o in live], heard)
            # The resumed seat plays on.
            p[2] = c
            for _ in range(3):
                seq = play_one(p, rng)
                h.sync_all(p, seq)
        finally:
            for c in p:
                c.close()

    def test_resume_without_seq_gets_snapshot(self):
        srv, p, rng = start_game(["Ann", "Bob"])
        try:
            h.sync_all(p, play_one(p, rng))
            self.assertEqual(p[0].doc["current"], 1)
            room, token = p[1].room, p[1].token
            p[1].close()
            c = h.Client(srv)
            mid, got = h.catch_up(c, "resume", room=room, token=token)
            self.assertEqual([m["type"] for m in got[:2]], ["joined", "state"], got)
            st = got[1]
            # Bob's turn: the state, then his `legal`.
            self.assertEqual(h.catch_up_problems(c, mid, got), [])
            self.assertEqual(got[2]["type"], "legal")
            fseq, fresh = h.fresh_state(srv, room)
            c.wait_seq(fseq)
            self.assertEqual(c.doc, fresh)
            self.assertLessEqual(st["seq"], fseq)
            c.close()
        finally:
            for c in p:
                c.close()

    def test_resume_too_old_gets_snapshot(self):
        """A seq older than the server keeps deltas for (or from the future) gets a state."""
        srv, p, rng = start_game(["Ann", "Bob"])
        try:
            seq = 0
            for _ in range(h.DELTA_HISTORY + 2):
                if p[0].doc["phase"] != "playing":
                    break
                seq = play_one(p, rng)
                h.sync_all(p, seq)
            self.assertGreater(seq, h.DELTA_HISTORY + 1, "the game ended too early")
            settle(p)
            room, token = p[1].room, p[1].token
            p[1].close()
            for stale in (0, seq + 1000):
                c = h.Client(srv)
                mid, got = h.catch_up(c, "resume", room=room, token=token, seq=stale)
                self.assertEqual([m["type"] for m in got[:2]], ["joined", "state"], got)
                st = got[1]
                self.assertEqual(h.catch_up_problems(c, mid, got), [])
                fseq, fresh = h.fresh_state(srv, room)
                c.wait_seq(fseq)
                self.assertEqual(c.doc, fresh)
                self.assertGreater(st["seq"], 0)
                c.close()
        finally:
            for c in p:
                c.close()

    def test_sync_in_room(self):
        srv, p, rng = start_game(["Ann", "Bob"])
        try:
            c = p[1]
            kept_doc, kept_seq = copy.deepcopy(c.doc), c.seq
            for _ in range(3):
                h.sync_all(p, play_one(p, rng))
            settle(p)
            self.assertEqual(c.doc["current"], 1, "three moves from seat 0: Bob's turn")
            # sync from an older seq: the missing deltas (or a state) bring it up to date, and
            # on Bob's turn his `legal` follows.
            c.doc, c.seq = kept_doc, kept_seq
            mid, got = h.catch_up(c, "sync", seq=kept_seq)
            self.assertEqual(h.catch_up_problems(c, mid, got), [])
            self.assertEqual(got[-1]["type"], "legal", [m["type"] for m in got])
            fseq, fresh = h.fresh_state(srv, c.room)
            c.wait_seq(fseq)
            self.assertEqual(c.doc, fresh)
            # sync from a seq the server never sent: a state, then the `legal`.
            mid, got = h.catch_up(c, "sync", seq=fseq + 500)
            self.assertEqual([m["type"] for m in got], ["state", "legal"], got)
            st = got[0]
            self.assertEqual((st["seq"], st["state"]), (fseq, fresh))
            self.assertEqual(h.catch_up_problems(c, mid, got), [])
            # Ann, not to move, syncs too: no `legal` for her.
            mid, got = h.catch_up(p[0], "sync", seq=fseq)
            self.assertEqual([m["type"] for m in got], ["synced"], got)
            mid, got = h.catch_up(p[0], "sync")
            self.assertEqual([m["type"] for m in got], ["state"], got)
            # Bob plays from the list the sync brought.
            h.sync_all(p, play_one(p, rng))
        finally:
            for c in p:
                c.close()


class Takeover(unittest.TestCase):
    def test_second_connection_with_same_token(self):
        srv, p, rng = start_game(["Ann", "Bob"])
        try:
            old = p[1]
            new = h.Client(srv, name="Bob 2")
            new.request_ok("resume", "joined", room=old.room, token=old.token)
            new.wait_type("state")
            closed = old.wait_close()
            self.assertEqual(closed.code, 4000)
            # The seat stays connected through the new connection, which can act for it.
            fseq, fresh = h.fresh_state(srv, old.room)
            self.assertTrue(fresh["seats"][1]["connected"])
            p[1] = new
            new.wait_seq(fseq)
            for _ in range(4):
                h.sync_all(p, play_one(p, rng))
        finally:
            for c in p:
                c.close()


class LeaveAndWatch(unittest.TestCase):
    def test_leave_in_lobby_frees_the_seat(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann", "Bob"], seats=3)
        try:
            p[1].request_ok("leave", "left")
            h.sync_all([p[0]], p[0].seq + 1)
            self.assertFalse(p[0].doc["seats"][1]["taken"])
            c = h.Client(srv)
            j = c.request_ok("join", "joined", room=p[0].room, name="Dee")
            self.assertIn(j["seat"], (1, 2))
            c.close()
        finally:
            for c in p:
                c.close()

    def test_leave_during_game_holds_the_seat(self):
        srv, p, rng = start_game(["Ann", "Bob"])
        try:
            room, token = p[1].room, p[1].token
            p[1].request_ok("leave", "left")
            fseq, fresh = h.fresh_state(srv, room)
            self.assertTrue(fresh["seats"][1]["taken"])
            self.assertFalse(fresh["seats"][1]["connected"])
            # Same connection takes it back.
            p[1].request_ok("resume", "joined", room=room, token=token)
            p[1].wait_type("state")
            for _ in range(2):
                h.sync_all(p, play_one(p, rng))
        finally:
            for c in p:
                c.close()

    def test_spectator_chat_and_list(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann", "Bob"])
        try:
            s = h.Client(srv)
            s.request_ok("watch", "watching", room=p[0].room)
            s.wait_type("state")
            s.send({"v": h.V, "type": "chat", "text": "hello from the stands"})
            for c in p + [s]:
                m = c.wait_type("chat")
                self.assertIsNone(m["seat"])
                self.assertEqual(m["text"], "hello from the stands")
            p[1].send({"v": h.V, "type": "chat", "text": "hi"})
            for c in p + [s]:
                m = c.wait_type("chat")
                self.assertEqual((m["seat"], m["name"], m["text"]), (1, "Bob", "hi"))
            rooms = h.Client(srv)
            r = rooms.request_ok("list", "rooms")
            mine = [x for x in r["rooms"] if x["room"] == p[0].room]
            self.assertEqual(len(mine), 1)
            self.assertEqual((mine[0]["seats"], mine[0]["taken"], mine[0]["host"]), (2, 2, "Ann"))
            self.assertEqual(mine[0]["phase"], "lobby")
            rooms.request_ok("ping", "pong")
            rooms.close()
            s.close()
        finally:
            for c in p:
                c.close()

    def test_private_room_not_listed(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann"], seats=2, private=True, password="sesame")
        try:
            c = h.Client(srv)
            r = c.request_ok("list", "rooms")
            self.assertNotIn(p[0].room, [x["room"] for x in r["rooms"]])
            c.request_ok("join", "joined", room=p[0].room, name="Bob", password="sesame")
            c.close()
        finally:
            for c in p:
                c.close()


if __name__ == "__main__":
    unittest.main()
