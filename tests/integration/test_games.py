"""Complete games through the server, checked move by move against fresh snapshots and at the
end against carc-replay on the same moves. Protocol v2: only the mover's connection gets a
`legal` (once per turn, right after the delta that gave it the turn), and each list equals the
engine's (carc-replay --legal on the stored record)."""

import random
import unittest

import harness as h


class FullGames(unittest.TestCase):
    def play_game(self, names, sets, options=None, seed=1):
        srv = h.shared()
        rng = random.Random(seed)
        players = h.create_room(srv, names, sets=sets, options=options)
        room = players[0].room
        spectator = h.Client(srv, name="spectator")
        spectator.request_ok("watch", "watching", room=room)
        spectator.wait_type("state")
        everyone = players + [spectator]
        try:
            for i, c in enumerate(players):
                self.assertEqual(c.seat, i)
                self.assertTrue(c.token and len(c.token) == 32, c.token)
            players[0].send({"v": h.V, "type": "start"})
            seq0 = players[0].seq + 1
            h.sync_all(everyone, seq0)
            doc = spectator.doc
            self.assertEqual(doc["phase"], "playing")
            self.assertEqual(doc["sets"], sets)
            moves = []
            checked = 0
            while spectator.doc["phase"] == "playing":
                doc = spectator.doc
                cur = doc["current"]
                self.assertIsNotNone(doc["tile"])
                self.assertNotIn("legal", doc)
                mover = players[cur]
                legal = mover.wait_legal(spectator.seq)
                self.assertTrue(legal, "no legal placement offered")
                self.assertEqual(mover.legal["seq"], spectator.seq)
                move = h.random_move(rng, mover)
                ack = mover.request("play", **move)
                self.assertEqual(ack["type"], "ack", (move, ack))
                moves.append(move)
                h.sync_all(everyone, ack["seq"])
                # Every client's patched document equals a fresh snapshot.
                fseq, fresh = h.fresh_state(srv, room)
                self.assertEqual(fseq, ack["seq"])
                for c in everyone:
                    self.assertEqual(c.seq, fseq)
                    self.assertEqual(c.doc, fresh, "%s's patched state differs" % c.name)
                    self.assertEqual(c.gaps, 0)
                checked += 1
            final = spectator.doc
            self.assertEqual(final["phase"], "over")
            self.assertIsNone(final["current"])
            self.assertEqual(final["tiles_left"], 0)
            scores = [s["score"] for s in final["seats"]]
            # The same moves through carc-replay, with the draw order seen in the events.
            rec = h.record_from_game(final, moves, spectator.deltas)
            lines = h.replay(rec)
            self.assertTrue(lines[-1].get("final"), lines[-1])
            self.assertEqual(lines[-1]["scores"], scores)
            # The deltas' score events add up to the final scores too.
            total = [0] * len(names)
            for d in spectator.deltas:
                for ev in d["events"]:
                    for i, v in enumerate(ev.get("delta") or []):
                        total[i] += v
            self.assertEqual(total, scores)
            self.check_legals(srv, room, players, spectator, moves)
            return final, moves, checked
        finally:
            for c in everyone:
                c.close()

    def check_legals(self, srv, room, players, spectator, moves):
        """Privacy and fidelity of the `legal` messages of a whole game."""
        # Each connection's messages: a `legal` right after each delta that gave its seat the
        # turn, and no other; none for the spectator.
        for c in players + [spectator]:
            self.assertEqual(h.legal_trail_problems(c), [], c.name)
        self.assertEqual(spectator.legals, [])
        # Exactly one `legal` per move, to its mover, tagged by the moves played before it.
        got = {}
        for c in players:
            for n, m in c.legals:
                self.assertIsNotNone(n, "%s: a legal without a move count" % c.name)
                self.assertNotIn(n, got, "two `legal`s for move %s" % n)
                self.assertEqual(m["player"], c.seat)
                got[n] = m
        self.assertEqual(sorted(got), list(range(len(moves))))
        for n, m in got.items():
            self.assertEqual(m["tile"], moves[n]["tile"], n)
            self.assertEqual(m["turn"], n, "no skips here: the turn is the move's index")
        # The engine's lists for the stored record, move by move.
        rec = h.game_record(srv, room)
        self.assertEqual([(m["tile"], m["x"], m["y"], m["rot"]) for m in rec["moves"]],
                         [(m["tile"], m["x"], m["y"], m["rot"]) for m in moves])
        engine = h.replay_legal(rec)
        self.assertEqual(sorted(engine), list(range(len(moves))))
        for n, m in sorted(got.items()):
            e = engine[n]
            self.assertEqual((m["player"], m["tile"]), (e["player"], e["tile"]), "move %d" % n)
            self.assertEqual(m["legal"], e["legal"], "move %d: the legal list differs from "
                             "carc-replay --legal" % n)

    def test_base_two_players(self):
        final, moves, checked = self.play_game(["Ann", "Bob"], ["base"], seed=11)
        self.assertGreaterEqual(len(moves), 60)
        self.assertEqual(checked, len(moves))

    def test_all_sets_three_players(self):
        final, moves, checked = self.play_game(["Ann", "Bob", "Cid"], h.ALL_SETS,
                                               options={"farmers": True,
                                                        "siege_escape": "siege-tile"},
                                               seed=23)
        self.assertGreaterEqual(len(moves), 90)
        self.assertEqual(len(final["seats"]), 3)

    def test_all_sets_any_tile_escape_no_farmers(self):
        final, moves, _ = self.play_game(["Ann", "Bob", "Cid"], h.ALL_SETS,
                                         options={"farmers": False, "siege_escape": "any-tile"},
                                         seed=5)
        self.assertEqual(final["options"], {"farmers": False, "siege_escape": "any-tile",
                                            "farms": "third", "small_city": 4,
                                            "seat_order": "seated"})


class Bots(unittest.TestCase):
    """build/carc-bot (clients/bot/) plays whole games against itself over the protocol."""

    def run_bots(self, seats, sets, random_too=False):
        import os
        import subprocess
        srv = h.shared()
        bot = os.path.join(h.BUILD, "carc-bot")
        host = subprocess.Popen([bot, "--url", srv.ws_url, "--create", "--seats", str(seats),
                                 "--sets", ",".join(sets), "--name", "Host", "--quiet"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs = [host]
        try:
            line = host.stdout.readline()
            self.assertTrue(line.startswith("room "), repr(line))
            room = line.split()[1]
            spectator = h.Client(srv, name="spectator")
            spectator.request_ok("watch", "watching", room=room)
            spectator.wait_type("state")
            for i in range(1, seats):
                args = [bot, "--url", srv.ws_url, "--room", room, "--name", "Bot%d" % i,
                        "--quiet", "--seed", str(i)]
                if random_too and i % 2:
                    args.append("--random")
                procs.append(subprocess.Popen(args, stdout=subprocess.PIPE,
                                              stderr=subprocess.PIPE, text=True))
            outs = []
            for p in procs:
                out, err = p.communicate(timeout=120)
                self.assertEqual(p.returncode, 0, err)
                outs.append(out)
            doc = spectator.wait_seq(spectator.seq)  # already at the end
            while doc["phase"] != "over":
                spectator.quiet(0.2)
                doc = spectator.doc
            want = "final scores: " + ", ".join("%s %d" % (s["name"], s["score"])
                                                for s in doc["seats"])
            self.assertEqual(spectator.legals, [], "a spectator got a `legal`")
            for out in outs:
                self.assertIn(want, out)
            spectator.close()
            return doc
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()

    def test_two_greedy_bots_base(self):
        self.run_bots(2, ["base"])

    def test_greedy_against_random_all_sets(self):
        doc = self.run_bots(3, h.ALL_SETS, random_too=True)
        self.assertEqual(len(doc["seats"]), 3)


if __name__ == "__main__":
    unittest.main()
