"""The provably fair draw over the wire (PROTOCOL.md "The fair draw").

A room publishes its commitment from its creation on; seated players send `entropy` in the
lobby (spectators, a finished lobby and bad data are refused and change nothing); at the end the
record reveals the secret and the entropies, and carc-verify checks commitment, seed and draw
order from the record alone. One byte changed in the secret, an entropy or the draw order makes
it fail, with the reason. While the game runs, nothing any client receives, GET /api/rooms and
the admin API ever hold the secret, nor does any client see another player's entropy. A lobby
room restored after a crash keeps its secret and entropies. A record without a commitment (one
written before the fair draw) is "not verifiable"."""

import copy
import http.client
import json
import os
import random
import secrets
import shutil
import subprocess
import tempfile
import unittest

import harness as h

VERIFY = os.path.join(h.BUILD, "carc-verify")
# The browser client's own check (clients/web/js/fair.js), run by Node (deploy/deps.sh: nodejs).
FAIR_JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fair_check.mjs")
ADMIN_TOKEN = "adm-fair-4b1e9d27c3a8"
# Fast clients and fast bots (a seat whose clock runs out is played by one).
FAST = dict(h.LIMITS, **{"rate": 2000, "burst": 2000, "flood-rate": 4000, "flood-burst": 4000,
                         "takeover-grace": 1, "bot-think-ms": 200, "bot-pace-ms": 0})


def verify(record):
    """(exit status, output line) of carc-verify on record (a dict, or text)."""
    text = record if isinstance(record, str) else json.dumps(record)
    p = subprocess.run([VERIFY, "-"], input=text, capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout.strip()


def browser_verdict(record, replay, tiles):
    """What the replay page shows: fair.js's verdict on record, run by Node."""
    p = subprocess.run(["node", FAIR_JS], input=json.dumps(
        {"record": record, "replay": replay, "tiles": tiles}), capture_output=True, text=True,
        timeout=60)
    if p.returncode != 0:
        raise AssertionError("fair_check.mjs: %s" % p.stderr)
    return json.loads(p.stdout)


def get(srv, path, token=None):
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    try:
        c.request("GET", path, headers={"Authorization": "Bearer " + token} if token else {})
        r = c.getresponse()
        return r.status, r.read().decode(errors="replace")
    finally:
        c.close()


def flip(hexstr, i=0):
    """hexstr with the byte at index i changed (still 64 hex digits)."""
    b = bytearray.fromhex(hexstr)
    b[i] ^= 0x01
    return b.hex()


def raw_texts(client):
    """Everything client received, as JSON text (the backlog included)."""
    return [json.dumps(m) for m in client.seen_messages]


class Recording(h.Client):
    """A client that keeps every message it receives, to search them for secrets."""

    def __init__(self, *a, **kw):
        self.seen_messages = []
        super().__init__(*a, **kw)

    def _recv_one(self, timeout):
        m = super()._recv_one(timeout)
        self.seen_messages.append(m)
        return m


def create(srv, names, **extra):
    host = Recording(srv, name=names[0])
    host.request_ok("create", "joined", name=names[0], seats=len(names), **extra)
    host.wait_type("state")
    clients = [host]
    for n in names[1:]:
        c = Recording(srv, name=n)
        c.request_ok("join", "joined", room=host.room, name=n)
        c.wait_type("state")
        clients.append(c)
    h.sync_all(clients, clients[-1].seq)
    return clients


def send_entropy(client, data=None):
    data = data or secrets.token_hex(32)
    h.secret_add(data)
    r = client.request("entropy", data=data)
    assert r["type"] == "ack", r
    return data, r


class Fair(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = h.Server(config=dict(FAST, **{"admin-token": ADMIN_TOKEN})).start()
        h.secret_add(ADMIN_TOKEN)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.srv.cleanup()

    def play(self, clients, seed):
        rng = random.Random(seed)
        clients[0].send({"v": h.V, "type": "start"})
        h.sync_all(clients, clients[0].seq + 1)
        watched = []
        while clients[0].doc["phase"] == "playing":
            mover = h.mover_of(clients)
            ack = mover.request("play", **h.random_move(rng, mover))
            self.assertEqual(ack["type"], "ack", ack)
            h.sync_all(clients, ack["seq"])
            if len(watched) < 3:  # the public listings while the game runs
                watched.append(get(self.srv, "/api/rooms")[1])
                watched.append(get(self.srv, "/admin/rooms", ADMIN_TOKEN)[1])
                watched.append(get(self.srv, "/admin/rooms/" + clients[0].room, ADMIN_TOKEN)[1])
        return watched

    def test_a_game_verifies_and_tampering_fails(self):
        clients = create(self.srv, ["Ann", "Bob", "Cy"])
        room = clients[0].room
        commitment = clients[0].doc["commitment"]
        self.assertRegex(commitment, "^[0-9a-f]{64}$")
        self.assertEqual([s["entropy"] for s in clients[0].doc["seats"]], [False] * 3)
        # Ann and Cy contribute, Bob does not; Ann replaces hers (allowed until the start).
        first, r1 = send_entropy(clients[0])
        h.sync_all(clients, r1["seq"])
        self.assertEqual([s["entropy"] for s in clients[1].doc["seats"]], [True, False, False])
        ann, r2 = send_entropy(clients[0])
        self.assertEqual(r2["seq"], r1["seq"], "a replacement changes nothing public")
        cy, r3 = send_entropy(clients[2])
        h.sync_all(clients, r3["seq"])
        self.assertEqual([s["entropy"] for s in clients[0].doc["seats"]], [True, False, True])
        watched = self.play(clients, 5)
        self.assertEqual(clients[0].doc["commitment"], commitment)
        rec = h.game_record(self.srv, room)
        fair = rec["fair"]
        h.secret_add(fair["secret"])
        self.assertEqual(fair["scheme"], "carcd-draw/1")
        self.assertEqual(fair["commitment"], commitment)
        self.assertEqual(fair["entropy"], [ann, None, cy])
        self.assertNotIn(first, json.dumps(rec))
        status, out = verify(rec)
        self.assertEqual(status, 0, out)
        self.assertTrue(out.startswith("verified: draw verified"), out)
        # Nothing any player received, nor the listings, held the secret or another's entropy.
        for c in clients:
            texts = raw_texts(c)
            self.assertTrue(texts)
            for t in texts:
                self.assertNotIn(fair["secret"], t, c.name)
            others = [e for i, e in enumerate([ann, None, cy]) if e and i != c.seat]
            for e in others + [first]:
                self.assertFalse([t for t in texts if e in t], "%s saw an entropy" % c.name)
        for t in watched:
            self.assertNotIn(fair["secret"], t)
            for e in (first, ann, cy):
                self.assertNotIn(e, t)
        # The replay page's own check (fair.js) agrees, on the same documents it fetches.
        replay_doc = json.loads(get(self.srv, "/api/games/%s/replay" % room)[1])
        tiles = json.loads(get(self.srv, "/api/tiles")[1])["tiles"]
        v = browser_verdict(rec, replay_doc, tiles)
        self.assertEqual(v["status"], "verified", v)
        self.assertTrue(v["text"].startswith("draw verified"), v)
        for broken, why in ((dict(rec, fair=dict(fair, secret=flip(fair["secret"]))),
                             "the commitment is not SHA-256 of the secret"),
                            (dict(rec, fair=dict(fair, entropy=[ann, None, flip(cy, 3)])),
                             "the seed does not follow"),
                            (dict(rec, seed=rec["seed"] ^ 2), "the seed does not follow")):
            v = browser_verdict(broken, replay_doc, tiles)
            self.assertEqual(v["status"], "failed", v)
            self.assertIn(why, v["text"])
        swapped = copy.deepcopy(replay_doc)
        k = next(k for k in range(1, len(swapped["moves"]))
                 if swapped["moves"][k]["tile"] != swapped["moves"][0]["tile"])
        swapped["moves"][0]["tile"], swapped["moves"][k]["tile"] = (swapped["moves"][k]["tile"],
                                                                     swapped["moves"][0]["tile"])
        v = browser_verdict(rec, swapped, tiles)
        self.assertEqual(v["status"], "failed", v)
        self.assertIn("the draw order does not match the seed: move 1 is", v["text"])
        no_fair = dict(rec)
        del no_fair["fair"]
        self.assertEqual(browser_verdict(no_fair, replay_doc, tiles)["status"], "none")
        # One byte changed anywhere: a failure that says where.
        bad = copy.deepcopy(rec)
        bad["fair"]["secret"] = flip(fair["secret"], 5)
        status, out = verify(bad)
        self.assertEqual(status, 1)
        self.assertIn("FAILED: the commitment does not match the secret", out)
        for i in (0, 2):
            bad = copy.deepcopy(rec)
            bad["fair"]["entropy"][i] = flip(fair["entropy"][i], 31)
            status, out = verify(bad)
            self.assertEqual(status, 1)
            self.assertIn("FAILED: the seed does not follow from the secret and the entropies", out)
        bad = copy.deepcopy(rec)
        bad["fair"]["entropy"][1] = secrets.token_hex(32)  # one said to be sent that was not
        self.assertEqual(verify(bad)[0], 1)
        bad = copy.deepcopy(rec)
        bad["seed"] ^= 1
        status, out = verify(bad)
        self.assertEqual(status, 1)
        self.assertIn("the seed does not follow", out)
        # The draw order: two moves of different tiles swapped.
        moves = rec["moves"]
        i = next(k for k in range(1, len(moves)) if moves[k]["tile"] != moves[0]["tile"])
        bad = copy.deepcopy(rec)
        bad["moves"][0], bad["moves"][i] = bad["moves"][i], bad["moves"][0]
        status, out = verify(bad)
        self.assertEqual(status, 1)
        self.assertIn("FAILED: the draw order does not match the seed: move 0 is %s, the seed "
                      "draws %s" % (moves[i]["tile"], moves[0]["tile"]), out)
        bad = copy.deepcopy(rec)
        bad["deck"] = [m["tile"] for m in moves]
        status, out = verify(bad)
        self.assertEqual(status, 1)
        self.assertIn("explicit deck", out)
        # A record from before the fair draw: still a record, but not verifiable.
        old = copy.deepcopy(rec)
        del old["fair"]
        status, out = verify(old)
        self.assertEqual((status, out), (1, "not verifiable: no commitment (a record written "
                                            "before the fair draw, or a game dealt from a fixed "
                                            "seed or deck)"))
        p = subprocess.run([os.path.join(h.BUILD, "carc-replay"), "-"], input=json.dumps(old),
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        for c in clients:
            c.close()

    def test_skipped_turns_and_bots_verify(self):
        """Skips put their tile under the pile, a bot's seat has no entropy: the draw still
        verifies, with carc-verify and with the browser's check."""
        import test_turns
        a, b = create(self.srv, ["Ida", "Jon"],
                      clock={"initial": 1, "increment": 0, "on_timeout": "skip"})
        send_entropy(a)
        _, r = send_entropy(b)
        h.sync_all([a, b], r["seq"])
        a.send({"v": h.V, "type": "start"})
        a.wait_doc(lambda d: d["phase"] == "playing")
        # Jon never moves: three skips, then a bot plays his seat.
        test_turns.play_until_over(a, random.Random(4))
        rec = h.game_record(self.srv, a.room)
        h.secret_add(rec["fair"]["secret"])
        self.assertTrue(any(m.get("skip") for m in rec["moves"]))
        status, out = verify(rec)
        self.assertEqual(status, 0, out)
        replay_doc = json.loads(get(self.srv, "/api/games/%s/replay" % a.room)[1])
        tiles = json.loads(get(self.srv, "/api/tiles")[1])["tiles"]
        v = browser_verdict(rec, replay_doc, tiles)
        self.assertEqual(v["status"], "verified", v)
        b.drain()
        a.close()
        b.close()

    def test_entropy_errors_change_nothing(self):
        clients = create(self.srv, ["Dee", "Eve"])
        host, other = clients
        seq = host.seq
        for data in ("ab" * 31, "AB" * 32, "xy" * 32, 12, None, "ab" * 33):
            r = host.request("entropy", data=data)
            self.assertEqual((r["type"], r["code"]), ("error", "bad_request"), data)
            self.assertTrue(r["message"].startswith("data: "), r)
        r = host.request("entropy")
        self.assertEqual(r["code"], "bad_request")
        r = host.request("entropy", data="00" * 32, extra=1)
        self.assertEqual(r["code"], "bad_request")
        with Recording(self.srv, name="watcher") as w:
            w.request_ok("watch", "watching", room=host.room)
            w.wait_type("state")
            self.assertEqual(w.request("entropy", data="11" * 32)["code"], "spectator")
            self.assertNotIn("entropy", [m.get("type") for m in w.seen_messages[:-1]])
        with Recording(self.srv, name="nobody") as n:
            self.assertEqual(n.request("entropy", data="11" * 32)["code"], "not_in_room")
        host.quiet(0.2)
        self.assertEqual(host.seq, seq, "an error sent a delta")
        self.assertEqual([s["entropy"] for s in host.doc["seats"]], [False, False])
        # A seat freed in the lobby loses its entropy.
        _, r = send_entropy(other)
        h.sync_all(clients, r["seq"])
        other.request_ok("leave", "left")
        host.wait_doc(lambda d: not d["seats"][1]["taken"])
        self.assertFalse(host.doc["seats"][1]["entropy"])
        again = Recording(self.srv, name="Fay")
        again.request_ok("join", "joined", room=host.room, name="Fay")
        st = again.wait_type("state")
        self.assertFalse(st["state"]["seats"][1]["entropy"])
        host.send({"v": h.V, "type": "start"})
        host.wait_doc(lambda d: d["phase"] == "playing")
        r = host.request("entropy", data="22" * 32)
        self.assertEqual(r["code"], "wrong_phase")
        for c in (host, other, again):
            c.close()


class Restored(unittest.TestCase):
    def test_a_lobby_room_keeps_its_secret_and_entropies_across_a_crash(self):
        data = tempfile.mkdtemp(prefix="carcd-fair-")
        try:
            srv = h.Server(config=FAST, data_dir=data).start()
            clients = create(srv, ["Gus", "Hal"])
            room, tokens = clients[0].room, [c.token for c in clients]
            commitment = clients[0].doc["commitment"]
            gus, _ = send_entropy(clients[0])
            hal, r = send_entropy(clients[1])
            hal2, r = send_entropy(clients[1])  # acked: stored before the ack
            srv.kill()
            for c in clients:
                c.close()
            srv = h.Server(config=FAST, data_dir=data).start()
            clients = []
            for i, t in enumerate(tokens):
                c = Recording(srv, name=["Gus", "Hal"][i])
                c.request_ok("resume", "joined", room=room, token=t)
                c.wait_type("state")
                clients.append(c)
            h.sync_all(clients, max(c.seq for c in clients))
            self.assertEqual(clients[0].doc["commitment"], commitment)
            self.assertEqual([s["entropy"] for s in clients[0].doc["seats"]], [True, True])
            rng = random.Random(9)
            clients[0].send({"v": h.V, "type": "start"})
            h.sync_all(clients, clients[0].seq + 1)
            while clients[0].doc["phase"] == "playing":
                mover = h.mover_of(clients)
                ack = mover.request("play", **h.random_move(rng, mover))
                self.assertEqual(ack["type"], "ack", ack)
                h.sync_all(clients, ack["seq"])
            rec = h.game_record(srv, room)
            h.secret_add(rec["fair"]["secret"])
            self.assertEqual(rec["fair"]["commitment"], commitment)
            self.assertEqual(rec["fair"]["entropy"], [gus, hal2])
            status, out = verify(rec)
            self.assertEqual(status, 0, out)
            for c in clients:
                c.close()
            srv.stop()
        finally:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
