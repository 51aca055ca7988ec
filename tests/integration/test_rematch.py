"""`rematch` (PROTOCOL.md "rematch") against a live carcd: the host of a finished game opens a
new room with the same settings and bots; every other member of the finished room gets `rematch`
with its id and joins it by name in one message; only the host, only after the end."""

import random
import unittest

import harness as h


class Rematch(unittest.TestCase):
    def setUp(self):
        self.srv = h.shared()

    def test_host_offers_the_others_join(self):
        rng = random.Random(5)
        options = {"farmers": False, "siege_escape": "any-tile", "farms": "second",
                   "small_city": 2, "seat_order": "seated"}
        players = h.create_room(self.srv, ["Ann", "Bob"], sets=["base", "inns-cathedrals"],
                                options=options, seats=3)
        ann, bob = players
        try:
            ann.send({"v": h.V, "type": "add_bot", "level": "random"})
            h.sync_all(players, ann.seq + 1)
            old = ann.room
            # Not before the end, and not from anyone but the host.
            r = ann.request("rematch")
            self.assertEqual((r["type"], r.get("code")), ("error", "wrong_phase"), r)
            ann.send({"v": h.V, "type": "start"})
            h.sync_all(players, ann.seq + 1)
            while ann.doc["phase"] == "playing":
                doc = ann.doc
                if doc["seats"][doc["current"]]["bot"]:
                    seq = ann.seq
                    ann.wait_doc(lambda d: d["phase"] == "over" or h.doc_key(d) != h.doc_key(doc))
                    h.sync_all(players, max(seq + 1, ann.seq))
                    continue
                mover = h.mover_of(players)
                ack = mover.request("play", **h.random_move(rng, mover))
                if ack["type"] == "ack":
                    h.sync_all(players, ack["seq"])
            h.sync_all(players, ann.seq)
            self.assertEqual(bob.doc["phase"], "over")
            r = bob.request("rematch")
            self.assertEqual((r["type"], r.get("code")), ("error", "not_host"), r)
            # The host asks: joined (the request's ref, a token), then the new room's state.
            j = ann.request_ok("rematch", "joined")
            self.assertEqual(j["seat"], 0)
            self.assertTrue(j.get("token"))
            new = j["room"]
            self.assertNotEqual(new, old)
            st = ann.wait_type("state")["state"]
            self.assertEqual(st["room"], new)
            self.assertEqual(st["phase"], "lobby")
            self.assertEqual(st["sets"], ["base", "inns-cathedrals"])
            self.assertEqual(st["options"], options)
            self.assertEqual(len(st["seats"]), 3)
            ann.wait_doc(lambda d: d["seats"][1]["bot"] == "random")
            self.assertEqual(ann.doc["seats"][0]["name"], "Ann")
            # Bob is told, and joins by name in one message.
            m = bob.wait_type("rematch")
            self.assertEqual((m["room"], m["host"], m["seat"]), (new, "Ann", 1))
            self.assertNotIn("ref", m)
            bob.request_ok("leave", "left")
            bj = bob.request_ok("join", "joined", room=new, name="Bob")
            self.assertEqual(bj["seat"], 2)
            ann.wait_doc(lambda d: d["seats"][2]["name"] == "Bob")
        finally:
            for c in players:
                c.close()


if __name__ == "__main__":
    unittest.main()
