"""The rule variants (issue 18 part 3, RULES.md 2.8): a room created with them shows them in the
lobby, deals the seats in the random order PROTOCOL.md documents (recomputed here from the
record's seed), plays a game whose stored record carries every option and replays through
carc-replay to the server's scores."""

import random
import unittest

import harness as h

M64 = (1 << 64) - 1
SEAT_SALT = 0x5EA7000000000000  # server/game/room.h ROOM_SEAT_SALT


class Rng:
    """common/rng.c: xoshiro256** seeded through splitmix64, Lemire's bounded draw."""

    def __init__(self, seed):
        self.s = []
        x = seed
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    def next(self):
        s = self.s
        rotl = lambda v, k: ((v << k) | (v >> (64 - k))) & M64  # noqa: E731
        result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def below(self, n):
        m = (self.next() >> 32) * n
        low = m & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                m = (self.next() >> 32) * n
                low = m & 0xFFFFFFFF
        return m >> 32


def seat_order(seed, n):
    """PROTOCOL.md create, seat_order "random": order[k] is the seated seat that plays k-th."""
    rng = Rng(seed ^ SEAT_SALT)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


VARIANTS = {"farms": "first", "small_city": 2, "seat_order": "random"}
DEFAULTS = {"farmers": True, "siege_escape": "siege-tile"}


class Variants(unittest.TestCase):
    def test_game_with_every_variant(self):
        srv = h.shared()
        names = ["Ann", "Bob", "Cid", "Dee"]
        players = h.create_room(srv, names, sets=["base", "inns-cathedrals"], options=VARIANTS)
        room = players[0].room
        try:
            want = dict(DEFAULTS, **VARIANTS)
            self.assertEqual(players[0].doc["options"], want)
            # The lobby lists the room with its options.
            other = h.Client(srv, name="looker")
            rooms = other.request_ok("list", "rooms")["rooms"]
            other.close()
            mine = [r for r in rooms if r["room"] == room]
            self.assertEqual(len(mine), 1, rooms)
            self.assertEqual(mine[0]["options"], want)
            seated = [c.seat for c in players]
            self.assertEqual(seated, [0, 1, 2, 3])

            final = h.play_to_end(players, random.Random(7))
            self.assertEqual(final["phase"], "over")
            self.assertEqual(final["options"], want)
            # Every client was told its seat, which holds its name; the host is still Ann.
            self.assertEqual(sorted(c.seat for c in players), [0, 1, 2, 3])
            for c in players:
                self.assertEqual(final["seats"][c.seat]["name"], c.name)
            self.assertEqual(final["seats"][final["host"]]["name"], "Ann")

            rec = h.game_record(srv, room)
            self.assertEqual(rec["options"], want)
            self.assertEqual([p["name"] for p in rec["players"]],
                             [s["name"] for s in final["seats"]])
            # The order is the documented shuffle of the seated order by the record's seed.
            order = seat_order(rec["seed"], 4)
            self.assertEqual([p["name"] for p in rec["players"]], [names[i] for i in order])
            lines = h.replay(rec)
            self.assertTrue(lines[-1].get("final"), lines[-1])
            self.assertEqual(lines[-1]["scores"], [s["score"] for s in final["seats"]])
            # First-edition farm scoring: at most one farm event per player, one scorer each.
            farms = [e for e in lines[-1]["events"] if e.get("feature") == "farm"]
            self.assertLessEqual(len(farms), 4)
            for e in farms:
                self.assertEqual(len(e["scorers"]), 1, e)
            self.assertEqual(len({e["scorers"][0] for e in farms}), len(farms))
        finally:
            for c in players:
                c.close()

    def test_seated_order_is_kept(self):
        srv = h.shared()
        players = h.create_room(srv, ["Ann", "Bob", "Cid"], options={"farms": "second"})
        try:
            self.assertEqual(players[0].doc["options"],
                             dict(DEFAULTS, farms="second", small_city=4, seat_order="seated"))
            players[0].send({"v": h.V, "type": "start"})
            h.sync_all(players, players[0].seq + 1)
            self.assertEqual([s["name"] for s in players[0].doc["seats"]], ["Ann", "Bob", "Cid"])
            self.assertEqual([c.seat for c in players], [0, 1, 2])
        finally:
            for c in players:
                c.close()

    def test_bad_variant_refused(self):
        srv = h.shared()
        c = h.Client(srv, name="Ann")
        try:
            for bad, field in (({"farms": "fourth"}, "options.farms"),
                               ({"small_city": 3}, "options.small_city"),
                               ({"seat_order": "age"}, "options.seat_order")):
                r = c.request("create", name="Ann", seats=2, options=bad)
                self.assertEqual(r["type"], "error", r)
                self.assertEqual(r["code"], "bad_request", r)
                self.assertIn(field, r["message"])
            self.assertIsNone(c.room)
        finally:
            c.close()


if __name__ == "__main__":
    unittest.main()
