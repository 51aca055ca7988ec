#!/usr/bin/python3
"""pybot: an example bot for carcd's protocol v2, in Python (stdlib + python3-websocket).

    pybot.py --url ws://127.0.0.1:8080/ws --create [--seats 2] [--sets base,inns-cathedrals]
             [--start-when N] [--name Bot]
    pybot.py --url ws://127.0.0.1:8080/ws --room ID [--name Bot] [--password P]

Other options: --seed S (the random choices), --quiet (print only `room ID` and the final
scores), --trace FILE (log every frame: `> ` sent, `< ` received), --reconnect N (resume after
a dropped connection at most N times, default 3). To try out the recovery paths:
--bad-play N (the N-th play is an illegal one, refused) and --drop-at N (when the N-th play
is due the connection is dropped, without a close frame; the bot resumes, then plays).

It connects to ws://HOST:PORT/ws, reads `welcome`, creates a room (and hosts it: it sends
`start` once --start-when seats, default all, are taken) or joins one, and prints `room ID`.
It keeps the public state document: the last `state`, then every `delta`'s RFC 6902 patch in
seq order (a gap is answered with `sync`; a patch that does not apply with a `sync` without
seq, which always brings a fresh `state`). The legal placements are not in the document: the
server sends them to the seat to move alone, in a `legal` message right after the delta (or the
catch-up's `synced` or `state`) that makes it that seat's turn. The bot keeps the last one and
uses it while the document's `turn`, `current` and `tile` are its `turn`, `player` and `tile`.
When `state.current` is its seat, the phase is `playing` and it holds a valid `legal`, it sends
a `play` chosen from that list:

    with a normal meeple (or, with none left, the large one) in its supply, a random placement
    whose meeple spots include a cloister, else a city, else a road, with a meeple there;
    otherwise (no such spot, or no meeple left) a random placement without a meeple.
    Fields are left alone and knights never escape.

It keeps at most one play in flight: a delta that arrives before that play's `ack` or `error`
(another seat connecting, say) is not a new turn. A refused `play` (`error` with its ref) is
counted, and the bot asks for a fresh `state` and tries again with a random placement without
meeple; after 10 refusals in a row it gives up. When the connection drops it reconnects and
sends `resume` with its seat token and last seq, then a `ping`: the `pong` comes after the
missing deltas (and the `legal`, on its turn), so then its document is current and it plays if
it is its turn.
Behind a cluster of carcd nodes (PROTOCOL.md "Redirects between nodes") a `redirect` answering
its create, join or resume is followed: a connection to the redirect's `path` on the --url's host
and port, its welcome, and the same message again; at most 3 redirects in a row, after which
(or when that path does not answer) it waits `retry_ms` and starts again from --url. Every
reconnect goes to --url, never to a redirected path.
When the phase is `over` it prints `final scores: Ann 61, Bot 74 (we are seat 1)` and exits 0.
Exit status: 0 game over, 1 error, 2 usage. See GUIDE.md for a game on the wire.
"""

import argparse
import copy
import json
import random
import sys
import time
import urllib.parse

import websocket

VERSION = 2        # the protocol version every message carries
MAX_REFUSED = 10   # plays refused in a row before giving up
IDLE_S = 600       # nothing heard for this long: give up
CONNECT_S = 10     # the longest wait for a connection and its welcome
MAX_HOPS = 3       # redirects followed in a row (PROTOCOL.md "Redirects between nodes")
REDIRECT_S = 30    # redirected for this long without an answer: give up


class PatchError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# RFC 6902 JSON Patch on plain JSON values (dict, list, str, int, float, bool, None)

def _tokens(pointer):
    """RFC 6901: "/a~1b/~0c" -> ["a/b", "~c"]; "" is the whole document."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError("bad pointer %r" % pointer)
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _index(arr, tok, adding=False):
    if adding and tok == "-":
        return len(arr)
    if not tok.isdigit() or (tok != "0" and tok.startswith("0")):
        raise PatchError("bad array index %r" % tok)
    i = int(tok)
    if i > len(arr) or (i == len(arr) and not adding):
        raise PatchError("array index %d out of range" % i)
    return i


def _walk(doc, toks):
    """The value at toks (all of them)."""
    for t in toks:
        if isinstance(doc, dict):
            if t not in doc:
                raise PatchError("no member %r" % t)
            doc = doc[t]
        elif isinstance(doc, list):
            doc = doc[_index(doc, t)]
        else:
            raise PatchError("cannot descend into a %s" % type(doc).__name__)
    return doc


def _equal(a, b):
    """JSON equality: 1 == 1.0, but true is not 1 and key order does not matter."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a == b


def _add(doc, toks, value):
    if not toks:
        return value
    parent = _walk(doc, toks[:-1])
    if isinstance(parent, dict):
        parent[toks[-1]] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, toks[-1], adding=True), value)
    else:
        raise PatchError("cannot add into a %s" % type(parent).__name__)
    return doc


def _remove(doc, toks):
    """(doc, removed value)."""
    if not toks:
        raise PatchError("cannot remove the whole document")
    parent = _walk(doc, toks[:-1])
    if isinstance(parent, dict):
        if toks[-1] not in parent:
            raise PatchError("no member %r to remove" % toks[-1])
        return doc, parent.pop(toks[-1])
    if isinstance(parent, list):
        return doc, parent.pop(_index(parent, toks[-1]))
    raise PatchError("cannot remove from a %s" % type(parent).__name__)


def apply_patch(doc, patch):
    """Apply the operations in order and return the new document. It changes doc in place: on
    PatchError the caller must drop the document (the bot then asks for a fresh state)."""
    for op in patch:
        kind, toks = op.get("op"), _tokens(op.get("path", ""))
        if kind == "add":
            doc = _add(doc, toks, copy.deepcopy(op["value"]))
        elif kind == "remove":
            doc, _ = _remove(doc, toks)
        elif kind == "replace":
            _walk(doc, toks)  # must exist
            if toks:
                doc, _ = _remove(doc, toks)
            doc = _add(doc, toks, copy.deepcopy(op["value"]))
        elif kind in ("move", "copy"):
            src = _tokens(op["from"])
            if kind == "move":
                if toks == src:
                    _walk(doc, src)  # must exist; nothing moves
                    continue
                if toks[:len(src)] == src:
                    raise PatchError("cannot move a value into itself")
                doc, value = _remove(doc, src)
            else:
                value = copy.deepcopy(_walk(doc, src))
            doc = _add(doc, toks, value)
        elif kind == "test":
            if not _equal(_walk(doc, toks), op["value"]):
                raise PatchError("test failed at %s" % op.get("path"))
        else:
            raise PatchError("unknown op %r" % kind)
    return doc


# ---------------------------------------------------------------------------------------------
# The bot

class Bot:
    def __init__(self, args):
        self.a = args
        self.rng = random.Random(args.seed)
        self.trace = open(args.trace, "w") if args.trace else None
        self.ws = None
        self.room = args.room
        self.seat = self.token = None
        self.doc = None           # the public state document, or None until a state arrives
        self.seq = None           # the seq of doc
        self.legal = None         # the last `legal` message (our seat's list for a turn)
        self.next_id = 0
        self.hello_id = None      # the create / join / resume message
        self.hello = None         # (type, fields) of that message, sent again after a redirect
        self.hops = 0             # redirects followed in a row
        self.redirect_since = None  # when the first of them came
        self.start_id = None
        self.play_id = None       # our last play
        self.pending = False      # our play is unanswered (no ack or error yet)
        self.after_seq = -1       # an ack's seq: act again once the document has reached it
        self.resuming = False     # resume sent: wait for the pong that follows the catch-up
        self.refused = 0
        self.plays = 0            # plays sent
        self.resumes = 0
        self.syncing = False      # a sync for missed deltas is under way
        self.close_code = None

    def say(self, *words):
        if not self.a.quiet:
            print(*words, flush=True)

    # -- the wire

    def send(self, mtype, **fields):
        self.next_id += 1
        msg = {"v": VERSION, "type": mtype, "id": self.next_id}
        msg.update(fields)
        text = json.dumps(msg, separators=(",", ":"))
        if self.trace:
            self.trace.write("> %s\n" % text)
            self.trace.flush()
        self.ws.send(text)
        return self.next_id

    def recv(self):
        """The next message, or None when the connection ended (self.close_code is set)."""
        while True:
            try:
                op, frame = self.ws.recv_data_frame(control_frame=False)
            except websocket.WebSocketTimeoutException:
                raise SystemExit(fail("nothing heard for %d s" % IDLE_S))
            except (websocket.WebSocketException, OSError) as e:
                self.close_code = None
                self.say("connection lost: %s" % e)
                return None
            if op == websocket.ABNF.OPCODE_CLOSE:
                data = frame.data or b""
                self.close_code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
                self.say("connection closed by the server: %s" % self.close_code)
                return None
            if op != websocket.ABNF.OPCODE_TEXT:
                continue
            text = frame.data.decode("utf-8")
            if self.trace:
                self.trace.write("< %s\n" % text)
                self.trace.flush()
            return json.loads(text)

    def connect(self, url=None):
        """A connection to url (default --url, the base every reconnect uses) and its welcome."""
        self.ws = websocket.create_connection(url or self.a.url, timeout=CONNECT_S)
        self.ws.settimeout(IDLE_S)
        welcome = self.recv()
        if welcome is None or welcome.get("type") != "welcome":
            raise websocket.WebSocketException("expected welcome, got %r" % (welcome,))

    def send_hello(self, mtype, **fields):
        """Send create, join or resume, kept to be sent again where a redirect leads."""
        self.hello = (mtype, fields)
        self.hello_id = self.send(mtype, **fields)

    def follow(self, m):
        """A `redirect` answering our hello: the room lives on node m["node"]. Open m["path"] on
        the host and port of --url, and send the hello again there; after MAX_HOPS in a row, or
        when the path does not answer (its node just died), wait retry_ms and start again from
        --url."""
        if self.redirect_since is None:
            self.redirect_since = time.monotonic()
        retry = min(max((m.get("retry_ms") or 1000) / 1000.0, 0.1), 10.0)
        self.ws.close()
        url = None
        self.hops += 1
        if self.hops <= MAX_HOPS and str(m.get("path", "")).startswith("/"):
            base = urllib.parse.urlsplit(self.a.url)
            url = urllib.parse.urlunsplit((base.scheme, base.netloc, m["path"], "", ""))
            self.say("room %s is on node %s: %s" % (m.get("room"), m.get("node"), url))
        while True:
            if url is None:  # again from the base URL, with a fresh count of hops
                if time.monotonic() - self.redirect_since > REDIRECT_S:
                    raise SystemExit(fail("no node answered for room %s in %d s"
                                          % (m.get("room"), REDIRECT_S)))
                self.say("again from %s in %.1f s" % (self.a.url, retry))
                time.sleep(retry)
                self.hops = 0
            try:
                self.connect(url)
                break
            except (websocket.WebSocketException, OSError) as e:
                self.say("%s: %s" % (url or self.a.url, e))
            url = None
        self.send_hello(self.hello[0], **self.hello[1])

    # -- the game

    def my_turn(self):
        d = self.doc
        return (d is not None and d.get("phase") == "playing" and d.get("current") == self.seat
                and self.seat is not None)

    def legal_list(self):
        """The list of the last `legal` while it is valid for the document, else None."""
        d, lg = self.doc, self.legal
        if (d is None or lg is None or d.get("turn") != lg.get("turn")
                or d.get("current") != lg.get("player") or d.get("tile") != lg.get("tile")):
            return None
        return lg.get("legal")

    def choose(self, meeples=True):
        """A play from the `legal` list (see the docstring for the policy)."""
        d = self.doc
        legal = self.legal_list()
        me = d["seats"][self.seat]
        kind = "normal" if me.get("meeples", 0) > 0 else "large" if me.get("large", 0) > 0 else None
        if meeples and kind:
            for want in ("cloister", "c", "r"):  # feature names: cloister, c1.., r1.., f1..
                spots = [(l, f) for l in legal for f in l["meeples"]
                         if f == want or (f[:1] == want and f[1:].isdigit())]
                if spots:
                    l, f = self.rng.choice(spots)
                    return l, {"feature": f, "kind": kind}
        return self.rng.choice(legal), None

    def act(self):
        """After the document changed: finish, start the game, or play."""
        d = self.doc
        if d["phase"] == "over":
            scores = ", ".join("%s %d" % (s["name"], s["score"]) for s in d["seats"])
            print("final scores: %s (we are seat %s)" % (scores, self.seat), flush=True)
            return True
        if d["phase"] == "lobby" and self.a.create and self.start_id is None:
            taken = sum(1 for s in d["seats"] if s["taken"])
            if taken >= (self.a.start_when or len(d["seats"])):
                self.start_id = self.send("start")
            return False
        if (not self.my_turn() or self.pending or self.resuming or self.seq < self.after_seq
                or not self.legal_list()):
            return False  # a delta that changes nothing for us (a seat connected, ...), stale,
            # or our turn whose `legal` has not come yet (it follows the delta)
        if self.plays + 1 == self.a.drop_at and self.resumes == 0:
            self.say("dropping the connection")
            self.ws.shutdown()  # no close frame: as if the network failed
            return False
        self.plays += 1
        if self.plays == self.a.bad_play and self.refused == 0:
            # on purpose: a tile on the start tile's square is refused (position_taken)
            self.say("turn %d: %s at 0,0 (illegal, on purpose)" % (d["turn"], d["tile"]))
            self.pending = True
            self.play_id = self.send("play", tile=d["tile"], x=0, y=0, rot=0)
            return False
        legal, meeple = self.choose(meeples=self.refused == 0)
        self.say("turn %d: %s at %d,%d rot %d%s" % (d["turn"], d["tile"], legal["x"], legal["y"],
                 legal["rot"], " meeple " + meeple["feature"] if meeple else ""))
        self.pending = True
        self.play_id = self.send("play", tile=d["tile"], x=legal["x"], y=legal["y"],
                                 rot=legal["rot"], meeple=meeple, escape=None)
        return False

    def resync(self, fresh):
        """Ask for what we missed (sync with seq) or for a whole state (sync without seq)."""
        if fresh or self.seq is None:
            self.doc = None
            self.send("sync")
        else:
            self.send("sync", seq=self.seq)

    def handle(self, m):
        """One server message. Returns True when the game is over."""
        t = m.get("type")
        if t == "redirect" and m.get("ref") == self.hello_id and self.hello is not None:
            self.follow(m)
            return False
        if (t == "error" and m.get("code") == "storage_error" and self.hello is not None
                and m.get("ref") == self.hello_id):
            # Nothing changed (PROTOCOL.md): the node cannot reach Redis or its database now,
            # or is handing over. Again from --url in a second, as after a dead redirect.
            self.follow({"room": self.room, "retry_ms": 1000, "path": ""})
            return False
        if t in ("joined", "error"):
            self.hops, self.redirect_since = 0, None
        if t == "joined":
            first = self.seat is None
            self.room, self.seat = m["room"], m["seat"]
            if m.get("token"):
                self.token = m["token"]
            if first:
                print("room %s" % self.room, flush=True)
                self.say("seat %d" % self.seat)
            else:
                # resumed: the missing deltas (or a state) follow; the pong comes after them
                self.send("ping")
        elif t == "state":
            self.doc, self.seq, self.syncing, self.after_seq = m["state"], m["seq"], False, -1
            return self.act()
        elif t == "delta":
            if self.doc is None or m["seq"] <= self.seq:
                return False  # waiting for a state, or a delta we already have
            if m["seq"] > self.seq + 1:
                if not self.syncing:  # once: the answer brings this delta again
                    self.say("missed deltas %d..%d: sync" % (self.seq + 1, m["seq"] - 1))
                    self.syncing = True
                    self.resync(fresh=False)
                return False
            self.syncing = False
            try:
                self.doc = apply_patch(self.doc, m["patch"])
            except (PatchError, KeyError, TypeError) as e:
                self.say("patch of seq %d failed (%s): fresh state" % (m["seq"], e))
                self.resync(fresh=True)
                return False
            self.seq = m["seq"]
            return self.act()
        elif t == "legal":
            if m.get("player") == self.seat:
                self.legal = m
                if self.doc is not None:
                    return self.act()
        elif t == "ack":
            self.refused, self.pending, self.after_seq = 0, False, m["seq"]
        elif t == "pong" and self.resuming:
            # caught up: a play lost with the old connection is played again now
            self.resuming = self.pending = False
            if self.doc is not None:
                return self.act()
        elif t == "error":
            ref = m.get("ref")
            print("pybot: error %s: %s (ref %s)" % (m.get("code"), m.get("message"), ref),
                  file=sys.stderr, flush=True)
            if ref in (self.hello_id, self.start_id) and ref is not None:
                raise SystemExit(1)
            if ref == self.play_id and ref is not None:
                self.refused += 1
                if self.refused >= MAX_REFUSED:
                    raise SystemExit(fail("%d plays refused in a row" % self.refused))
                self.pending = False  # play again on the fresh state, without a meeple
                self.resync(fresh=True)
        return False

    def run(self):
        self.connect()
        if self.a.create:
            sets = [s for s in self.a.sets.split(",") if s]
            self.send_hello("create", name=self.a.name, seats=self.a.seats, sets=sets)
        else:
            extra = {"password": self.a.password} if self.a.password else {}
            self.send_hello("join", room=self.room, name=self.a.name, **extra)
        while True:
            m = self.recv()
            if m is None:
                if not self.reconnect():
                    return 1
                continue
            if self.handle(m):
                self.ws.close()
                return 0

    def reconnect(self):
        """After a drop (close 1001 or 4003 from a node of a cluster, a network error, ...): a new
        connection to --url, never to a redirected path, and `resume` with our token. False: give
        up."""
        if self.token is None or self.close_code == 4000 or self.resumes >= self.a.reconnect:
            print("pybot: connection ended (close code %s)" % self.close_code, file=sys.stderr)
            return False
        self.resumes += 1
        self.ws.shutdown()
        for attempt in range(5):
            time.sleep(0.2 * 2 ** attempt)
            try:
                self.connect()
            except (websocket.WebSocketException, OSError) as e:
                self.say("reconnect: %s" % e)
                continue
            self.say("resume %d" % self.resumes)
            fields = {"room": self.room, "token": self.token}
            if self.seq is not None and self.doc is not None:
                fields["seq"] = self.seq
            self.send_hello("resume", **fields)
            self.resuming = True
            return True
        return False


def fail(text):
    print("pybot: %s" % text, file=sys.stderr, flush=True)
    return 1


def main(argv):
    p = argparse.ArgumentParser(description="carcd example bot (protocol v2)")
    p.add_argument("--url", required=True, help="ws://HOST:PORT/ws")
    p.add_argument("--room", help="join this room")
    p.add_argument("--create", action="store_true", help="create a room and host it")
    p.add_argument("--name", default="PyBot")
    p.add_argument("--password")
    p.add_argument("--seats", type=int, default=2, help="seats of the created room (2-6)")
    p.add_argument("--sets", default="base", help="sets of the created room: a,b,...")
    p.add_argument("--start-when", type=int, default=0, help="start at N seats taken (all)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--trace", metavar="FILE", help="log every frame sent (>) and received (<)")
    p.add_argument("--reconnect", type=int, default=3, metavar="N", help="resumes at most (3)")
    # To try out the recovery paths (GUIDE.md, tests/integration/test_pybot.py):
    p.add_argument("--bad-play", type=int, default=0, metavar="N",
                   help="make the N-th play an illegal one (on 0,0), to be refused")
    p.add_argument("--drop-at", type=int, default=0, metavar="N",
                   help="drop the connection when the N-th play is due, then resume")
    a = p.parse_args(argv)
    if a.create == (a.room is not None) or not 2 <= a.seats <= 6:
        p.print_usage(sys.stderr)
        print("pybot: give either --create or --room ID; --seats is 2..6", file=sys.stderr)
        return 2
    try:
        return Bot(a).run()
    except (websocket.WebSocketException, OSError) as e:
        return fail(str(e))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
