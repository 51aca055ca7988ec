"""Every error code of common/err.h that a client can provoke over the wire. Each error answers
only the sender, carries `ref`, leaves the connection open and the room unchanged."""

import os
import random
import re
import unittest

import harness as h

SEEN = set()

# Codes of the table that no client message can produce, and why.
NOT_ON_THE_WIRE = {
    "message_too_big": "an oversized message closes the connection with 1009 instead",
    "bad_deck": "game records only: clients never send a deck",
    "bad_record": "game records only",
    "out_of_memory": "needs the server to run out of memory",
    "io_error": "file input and output of the tools",
    "storage_error": "needs the disk to fail under the server",
}


def table_codes():
    with open(os.path.join(h.ROOT, "common", "err.h")) as f:
        return re.findall(r'^\s*X\(\w+,\s*"([a-z_]+)"', f.read(), re.M)


class ErrorCase(unittest.TestCase):
    def expect_error(self, client, code, mtype=None, raw=None, watchers=(), check_room=None,
                     **fields):
        """Send a message (or raw text) and expect error `code` in reply, the client's room
        (or check_room) unchanged and nothing sent to anyone else (watchers hear nothing)."""
        srv = h.shared()
        room = check_room or client.room
        before = h.fresh_state(srv, room) if room else None
        if raw is not None:
            client.send_raw(raw)
            err = client.wait_type("error")
        else:
            err = client.request(mtype, **fields)
        self.assertEqual(err["type"], "error", err)
        self.assertEqual(err["code"], code, err)
        self.assertTrue(err["message"])
        if raw is None:
            self.assertIn("ref", err)
        SEEN.add(err["code"])
        if room:
            after = h.fresh_state(srv, room)
            self.assertEqual(before, after, "the room changed after a refused %s" % mtype)
        for w in watchers:
            got = [m for m in w.quiet(0.05) if m["type"] in ("delta", "state", "error", "legal")]
            self.assertEqual(got, [], "%s heard about another's error" % w.name)
        # The connection stays open.
        client.request_ok("ping", "pong")
        return err


class Lobby(ErrorCase):
    def test_malformed_json(self):
        with h.Client(h.shared()) as c:
            for text in ("{not json", "[1,2", "{\"v\":2,\"type\":\"ping\"", "\u00ff",
                         '{"v":2,"type":"ping","id":1,"id":2}'):
                self.expect_error(c, "malformed_json", raw=text)
            # Valid JSON that is not an object is a bad request, or not JSON the server takes.
            for text in ("null", "[]", "\"ping\"", "7"):
                c.send_raw(text)
                err = c.wait_type("error")
                self.assertIn(err["code"], ("malformed_json", "bad_request"), (text, err))

    def test_unknown_type_and_version(self):
        with h.Client(h.shared()) as c:
            self.expect_error(c, "unknown_type", "dance")
            # Version 2 only: version 1 (the old protocol) and 3 are refused, as is no v.
            for raw in ('{"v":1,"type":"ping","id":1}', '{"v":1.0,"type":"ping","id":1}',
                        '{"v":3,"type":"ping","id":1}', '{"type":"ping","id":1}'):
                err = self.expect_error(c, "bad_version", raw=raw)
                if '"v"' in raw:  # the version it speaks is named
                    self.assertIn("2", err["message"], raw)
                self.assertEqual(err.get("ref"), 1, raw)
            self.expect_error(c, "bad_request", raw='{"v":2,"id":1}')
            self.expect_error(c, "bad_request", raw='{"v":2,"type":7,"id":1}')

    def test_bad_request(self):
        with h.Client(h.shared()) as c:
            err = self.expect_error(c, "bad_request", "ping", bogus=1)
            self.assertIn("bogus", err["message"])
            self.expect_error(c, "bad_request", "create", name="", seats=2)
            self.expect_error(c, "bad_player_count", "create", name="Ann", seats=9)
            self.expect_error(c, "bad_request", "create", name="Ann", seats="two")
            self.expect_error(c, "bad_request", "join", room=7, name="Ann")
            self.expect_error(c, "bad_request", "create", name="x" * 40, seats=2)
            # A rated room (the shared server keeps accounts): not for a guest.
            self.expect_error(c, "sign_in_required", "create", name="Ann", seats=2, rated=True,
                              clock={"initial": 60, "increment": 0, "on_timeout": "bot"})
            # An id that is neither a string nor an integer.
            c.send_raw('{"v":2,"type":"ping","id":[1]}')
            self.assertEqual(c.wait_type("error")["code"], "bad_request")

    def test_room_codes(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann", "Bob"])
        try:
            with h.Client(srv, name="late") as c:
                self.expect_error(c, "no_such_room", "join", room="zzzzzzzz", name="Cid")
                self.expect_error(c, "no_such_room", "watch", room="zzzzzzzz")
                self.expect_error(c, "room_full", "join", room=p[0].room, name="Cid", check_room=p[0].room,
                                  watchers=p)
                self.expect_error(c, "bad_token", "resume", room=p[0].room, token="0" * 32, check_room=p[0].room,
                                  watchers=p)
                self.expect_error(c, "not_in_room", "start")
                self.expect_error(c, "not_in_room", "leave")
                self.expect_error(c, "not_in_room", "chat", text="hi")
                self.expect_error(c, "not_in_room", "sync", seq=0)
                self.expect_error(c, "not_in_room", "play", tile="BA.A", x=1, y=0, rot=0,
                                  meeple=None, escape=None)
            self.expect_error(p[1], "not_host", "start", watchers=[p[0]])
            self.expect_error(p[0], "already_in_room", "create", name="Ann", seats=2)
            self.expect_error(p[0], "already_in_room", "join", room=p[0].room, name="Ann")
            self.expect_error(p[0], "already_in_room", "watch", room=p[0].room)
            self.expect_error(p[0], "wrong_phase", "play", tile="BA.A", x=1, y=0, rot=0,
                              meeple=None, escape=None, watchers=[p[1]])
        finally:
            for c in p:
                c.close()

    def test_names(self):
        """No two seats of a room share a name, case and surrounding spaces aside
        (name_taken), and a name holds no bidirectional control or invisible character
        (bad_request, naming it)."""
        srv = h.shared()
        p = h.create_room(srv, ["Ann"], seats=4)
        try:
            with h.Client(srv) as c:
                for name in ("Ann", "ann", " ANN\u00a0"):
                    err = self.expect_error(c, "name_taken", "join", room=p[0].room, name=name,
                                            check_room=p[0].room, watchers=p)
                    self.assertIn("seat 0", err["message"])
                for name, what in (("Ann\u202egnp", "U+202E (a bidirectional control)"),
                                   ("A\u200bnn", "U+200B (an invisible character)"),
                                   ("\ufeffBob", "U+FEFF (an invisible character)")):
                    err = self.expect_error(c, "bad_request", "join", room=p[0].room, name=name,
                                            check_room=p[0].room, watchers=p)
                    self.assertEqual(err["message"], "name: must not contain " + what)
                self.expect_error(c, "bad_request", "create", name="Ann\u2066", seats=2)
                c.request_ok("join", "joined", room=p[0].room, name="  Bob  ")
                st = c.wait_type("state")
                self.assertEqual(st["state"]["seats"][1]["name"], "Bob")  # kept trimmed
                # A bot takes a name no seat has; nobody takes the bot's.
                p[0].send({"v": h.V, "type": "add_bot", "level": "greedy"})
                doc = p[0].wait_doc(lambda d: d["seats"][2]["taken"])
                self.assertEqual(doc["seats"][2]["name"], "Greedy bot")
            # Bob's seat stays his, disconnected: heard before the next refusal is watched.
            p[0].wait_doc(lambda d: not d["seats"][1]["connected"])
            with h.Client(srv) as d:
                self.expect_error(d, "name_taken", "join", room=p[0].room, name="GREEDY BOT",
                                  check_room=p[0].room, watchers=p)
        finally:
            for c in p:
                c.close()

    def test_password(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann"], seats=2, password="sesame")
        try:
            with h.Client(srv) as c:
                self.expect_error(c, "wrong_password", "join", room=p[0].room, name="Bob", check_room=p[0].room,
                                  password="open-wrong-7", watchers=p)
                self.expect_error(c, "wrong_password", "join", room=p[0].room, name="Bob", check_room=p[0].room,
                                  watchers=p)
        finally:
            for c in p:
                c.close()

    def test_not_enough_players(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann"], seats=3)
        try:
            self.expect_error(p[0], "not_enough_players", "start")
        finally:
            p[0].close()

    def test_bot_codes(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann", "Bob"], seats=3)
        try:
            self.expect_error(p[0], "not_a_bot", "remove_bot", seat=1)
            self.expect_error(p[0], "not_a_bot", "remove_bot", seat=2)
            self.expect_error(p[0], "bad_request", "add_bot", level="expert")
            self.expect_error(p[1], "not_host", "add_bot", level="greedy")
        finally:
            for c in p:
                c.close()

    def test_create_codes(self):
        srv = h.shared()
        with h.Client(srv) as c:
            self.expect_error(c, "bad_sets", "create", name="Ann", seats=2,
                              sets=["base", "dragons"])
            self.expect_error(c, "bad_sets", "create", name="Ann", seats=2,
                              sets=["base", "cathars", "base"])
            # Six players need inns-cathedrals: refused when the room is made, or at the start
            # once all six seats are taken.
            r = c.request("create", name="Ann", seats=6, sets=["base"])
            if r["type"] == "error":
                self.assertEqual(r["code"], "bad_player_count")
                SEEN.add(r["code"])
                return
            c.wait_type("state")
            others = []
            try:
                for i in range(5):
                    o = h.Client(srv)
                    o.request_ok("join", "joined", room=c.room, name="P%d" % i)
                    others.append(o)
                c.wait_seq(others[-1].wait_type("state")["seq"])
                self.expect_error(c, "bad_player_count", "start", watchers=others)
            finally:
                for o in others:
                    o.close()

    def test_spectator(self):
        srv = h.shared()
        p = h.create_room(srv, ["Ann", "Bob"])
        try:
            with h.Client(srv, name="spec") as s:
                s.request_ok("watch", "watching", room=p[0].room)
                s.wait_type("state")
                self.expect_error(s, "spectator", "start", watchers=p)
                p[0].send({"v": h.V, "type": "start"})
                h.sync_all(p + [s], p[0].seq + 1)
                doc = s.doc
                self.assertNotIn("legal", doc)
                # A legal placement, from the mover's own `legal` (spectators get none).
                legal = h.mover_of(p, doc).wait_legal()[0]
                self.expect_error(s, "spectator", "play", tile=doc["tile"], x=legal["x"],
                                  y=legal["y"], rot=legal["rot"], meeple=None, escape=None,
                                  watchers=p)
                self.assertEqual(s.legals, [])
        finally:
            for c in p:
                c.close()


class Moves(ErrorCase):
    """Refused moves in a running game: the room is unchanged, only the sender hears."""

    def setUp(self):
        self.srv = h.shared()
        self.rng = random.Random(7)

    def game(self, names=("Ann", "Bob"), sets=None, options=None):
        p = h.create_room(self.srv, list(names), sets=sets, options=options)
        p[0].send({"v": h.V, "type": "start"})
        h.sync_all(p, p[0].seq + 1)
        self.addCleanup(lambda: [c.close() for c in p])
        self.legal(p)  # the mover's `legal` is in: watchers must hear nothing more
        return p

    def legal(self, p):
        """The mover's legal list for the turn (its `legal` read), after the last sync."""
        if p[0].doc["phase"] != "playing":
            return None
        legal = h.mover_of(p).wait_legal()
        self.assertTrue(legal, "no legal list for the mover")
        return legal

    def play(self, p, move=None):
        mover = h.mover_of(p)
        ack = mover.request("play", **(move or h.random_move(self.rng, mover)))
        self.assertEqual(ack["type"], "ack", ack)
        h.sync_all(p, ack["seq"])
        self.legal(p)

    def move_fields(self, doc, p, **over):
        legal = self.legal(p)[0]
        m = {"tile": doc["tile"], "x": legal["x"], "y": legal["y"], "rot": legal["rot"],
             "meeple": None, "escape": None}
        m.update(over)
        return m

    def test_placement_codes(self):
        p = self.game()
        doc = p[0].doc
        cur, other = p[doc["current"]], p[1 - doc["current"]]
        w = [other]
        self.expect_error(other, "not_your_turn", "play", watchers=[cur],
                          **self.move_fields(doc, p))
        wrong = "BA.A" if doc["tile"] != "BA.A" else "BA.B"
        self.expect_error(cur, "wrong_tile", "play", watchers=w,
                          **self.move_fields(doc, p, tile=wrong))
        self.expect_error(cur, "position_taken", "play", watchers=w,
                          **self.move_fields(doc, p, x=0, y=0))
        self.expect_error(cur, "not_adjacent", "play", watchers=w,
                          **self.move_fields(doc, p, x=5, y=5))
        self.expect_error(cur, "bad_rotation", "play", watchers=w,
                          **self.move_fields(doc, p, rot=45))
        self.expect_error(cur, "unknown_feature", "play", watchers=w,
                          **self.move_fields(doc, p, meeple={"feature": "c9", "kind": "normal"}))
        self.expect_error(cur, "large_meeple_unavailable", "play", watchers=w,
                          **self.move_fields(doc, p,
                                             meeple={"feature": self.legal(p)[0]["meeples"][0],
                                                     "kind": "large"}))
        self.expect_error(cur, "illegal_escape", "play", watchers=w,
                          **self.move_fields(doc, p, escape={"x": 0, "y": 0, "feature": "c1"}))
        # An edge mismatch: a position of a legal placement with a rotation that is not legal.
        mismatch = None
        while mismatch is None and p[0].doc["phase"] == "playing":
            doc = p[0].doc
            legal = {(l["x"], l["y"], l["rot"]) for l in self.legal(p)}
            for (x, y, _) in sorted(legal):
                for rot in (0, 90, 180, 270):
                    if (x, y, rot) not in legal:
                        mismatch = (x, y, rot)
                        break
                if mismatch:
                    break
            if mismatch is None:
                self.play(p)
        self.assertIsNotNone(mismatch)
        cur = p[doc["current"]]
        x, y, rot = mismatch
        self.expect_error(cur, "edge_mismatch", "play", watchers=[p[1 - doc["current"]]],
                          **self.move_fields(doc, p, x=x, y=y, rot=rot))

    def test_meeple_codes(self):
        p = self.game(names=("Ann", "Bob"))
        occupied = no_meeple = False
        for _ in range(80):
            doc = p[0].doc
            if doc["phase"] != "playing":
                break
            ci = doc["current"]
            cur = p[ci]
            seat = doc["seats"][ci]
            feats = tile_features(self.srv, doc["tile"])
            if not occupied:
                # A feature of the tile left out of a placement's meeple spots is occupied
                # (the player still has meeples and farmers are on).
                for l in self.legal(p):
                    taken = [f for f in feats if f not in l["meeples"]]
                    if taken and seat["meeples"] > 0:
                        self.expect_error(cur, "feature_occupied", "play",
                                          watchers=[p[1 - ci]],
                                          **self.move_fields(doc, p, x=l["x"], y=l["y"],
                                                             rot=l["rot"],
                                                             meeple={"feature": taken[0],
                                                                     "kind": "normal"}))
                        occupied = True
                        break
            if seat["meeples"] == 0 and not no_meeple:
                for l in self.legal(p):
                    free = [f for f in feats]
                    if free:
                        self.expect_error(cur, "no_meeple_left", "play", watchers=[p[1 - ci]],
                                          **self.move_fields(doc, p, x=l["x"], y=l["y"],
                                                             rot=l["rot"],
                                                             meeple={"feature": free[0],
                                                                     "kind": "normal"}))
                        no_meeple = True
                        break
            if occupied and no_meeple:
                break
            # Place a meeple whenever possible, so supplies run out and features fill.
            best = [l for l in self.legal(p) if l["meeples"]]
            if best and seat["meeples"] > 0:
                l = self.rng.choice(best)
                self.play(p, self.move_fields(doc, p, x=l["x"], y=l["y"], rot=l["rot"],
                                              meeple={"feature": self.rng.choice(l["meeples"]),
                                                      "kind": "normal"}))
            else:
                self.play(p)
        self.assertTrue(occupied, "no occupied feature came up")
        self.assertTrue(no_meeple, "no supply ran out")

    def test_farmers_off(self):
        p = self.game(options={"farmers": False, "siege_escape": "siege-tile"})
        for _ in range(40):
            doc = p[0].doc
            feats = [f for f in tile_features(self.srv, doc["tile"]) if f.startswith("f")]
            if feats:
                l = self.legal(p)[0]
                self.assertFalse([f for f in l["meeples"] if f.startswith("f")])
                self.expect_error(p[doc["current"]], "farmers_off", "play",
                                  watchers=[p[1 - doc["current"]]],
                                  **self.move_fields(doc, p, meeple={"feature": feats[0],
                                                                  "kind": "normal"}))
                return
            self.play(p)
        self.fail("no tile with a field came up")

    def test_after_the_game(self):
        p = self.game()
        while p[0].doc["phase"] == "playing":
            self.play(p)
        doc = p[0].doc
        self.assertEqual(doc["phase"], "over")
        # `play` after the end is game_over; other actions of the lobby are wrong_phase.
        self.expect_error(p[0], "game_over", "play", watchers=[p[1]], tile="BA.A", x=1, y=0,
                          rot=0, meeple=None, escape=None)
        self.expect_error(p[0], "wrong_phase", "start", watchers=[p[1]])
        self.assertEqual(h.fresh_state(self.srv, p[0].room)[1], doc)

    def test_join_running_game(self):
        p = self.game()
        with h.Client(self.srv) as c:
            self.expect_error(c, "wrong_phase", "join", room=p[0].room, name="Late", check_room=p[0].room,
                              watchers=p)
        self.expect_error(p[0], "wrong_phase", "start", watchers=[p[1]])


_TILES = None


def tile_features(srv, tile_id):
    """Feature names of a tile, from GET /api/tiles."""
    global _TILES
    if _TILES is None:
        import json
        import urllib.request
        with urllib.request.urlopen(srv.http_url + "api/tiles", timeout=5) as r:
            data = json.load(r)
        _TILES = {tid: [seg["name"] for seg in t["segments"]]
                  for tid, t in data["tiles"].items()}
    return _TILES[tile_id]


if __name__ == "__main__":
    unittest.main()
