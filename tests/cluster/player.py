"""player.py: a player of the cluster tests, as a well-behaved client of a carcd cluster is.

A Player holds one seat (or none yet) and one harness.Client at a time, always opened through
HAProxy. It follows protocol/PROTOCOL.md "Redirects between nodes":
  - `join`, `watch`, `resume` (and `create`) go to the base /ws; a `redirect` is followed to its
    `path` on the same host and port (a new connection: `welcome`, then the same message again),
    at most 3 times in a row; after that, or when the path cannot be opened (HAProxy answers
    503 while the owner is down), it waits the redirect's retry_ms and starts again from /ws;
  - when its connection is lost (closed by the node: 1001, 4003; dropped; or silent past its
    timeout) it reconnects through /ws and resumes with its token and the last seq it saw.
Its view of the room (document, seq) carries over from one connection to the next, so the
deltas a resume sends fold onto what it had (harness.Client checks every message against the
protocol's schemas and folds state and deltas).

Game drives one room's players to the end of its game, resuming lost players, and records what
the checks need: every acknowledged move, when connections were lost and resumed, the close
codes seen.
"""

import threading
import time
import traceback

import cluster as cl
import harness as h
import websocket

T0 = time.monotonic()


class ServerError(Exception):
    def __init__(self, reply):
        super().__init__("server answered %s" % (reply,))
        self.reply = reply


LOST_TYPES = (h.Closed, OSError, websocket.WebSocketException)
LOST_TEXTS = ("timed out waiting", "waited for seq", "no `legal` for turn", "never got there",
              "did not close")


def is_lost(e):
    """The connection is gone or silent (not a wrong answer): an exception of a read or write
    that a reconnect and a resume may cure. harness.Client's waits raise AssertionError on a
    timeout; those are recognised by their text (a schema failure is not a loss)."""
    if isinstance(e, LOST_TYPES):
        return True
    return isinstance(e, AssertionError) and any(t in str(e) for t in LOST_TEXTS)


class Player:
    def __init__(self, cluster, name, timeout=4.0, base="/ws"):
        self.cluster = cluster
        self.name = name
        self.base = base        # where every connection starts (a test may pin one node)
        self.timeout = timeout
        self.c = None           # the current harness.Client (may be closed)
        self.path = None        # the path it was opened on
        self.room = None
        self.seat = None
        self.token = None
        self.redirects = 0      # redirects followed
        self.resumes = 0        # successful resumes
        self.closes = []        # (time, close code) of every connection the server closed
        self.trace = []         # what happened, for failure messages

    def note(self, text):
        self.trace.append("%7.3f %s: %s" % (time.monotonic() - T0, self.name, text))

    @property
    def doc(self):
        return None if self.c is None else self.c.doc

    @property
    def seq(self):
        return None if self.c is None else self.c.seq

    def drop(self):
        c = self.c
        if c is not None and not getattr(c, "dropped", False):
            c.dropped = True
            if c.closed is not None:
                self.closes.append((time.monotonic(), c.closed.code))
            c.close()

    def close(self):
        self.drop()

    def _open(self, path):
        c = h.Client(self.cluster.path(path), timeout=self.timeout, name=self.name)
        old = self.c
        if old is not None:  # the view carries over
            c.doc, c.seq, c.moves = old.doc, old.seq, old.moves
            c.room, c.seat, c.token = old.room, old.seat, old.token
        return c

    def enter(self, mtype, fields, deadline_s=20.0, first_path=None):
        """Send mtype (create, join, watch, resume) through HAProxy, following redirects;
        returns (reply, id) with self.c the connection that answered joined/watching. An error
        reply raises ServerError; no answer within deadline_s raises AssertionError."""
        deadline = time.monotonic() + deadline_s
        base = self.base
        first_path = first_path or base
        path, hops, retry = first_path, 0, 1.0
        last = None
        while True:
            if time.monotonic() > deadline:
                raise AssertionError("%s: no answer to %s within %.0f s (last: %s); trace:\n%s"
                                     % (self.name, mtype, deadline_s, last,
                                        "\n".join(self.trace[-15:])))
            self.drop()
            try:
                c = self._open(path)
            except Exception as e:  # a 503 while the node is down, refused, no welcome
                if not (is_lost(e) or isinstance(e, AssertionError)):
                    raise
                if mtype == "create" and first_path != base:
                    raise AssertionError("%s: cannot open %s: %s" % (self.name, path, e))
                last = "open %s: %s" % (path, str(e)[:120])
                self.note(last)
                time.sleep(retry if path != base else 0.2)
                path, hops = base, 0
                continue
            self.c, self.path = c, path
            mid = next(h._ids)
            msg = {"v": h.V, "type": mtype, "id": mid}
            msg.update(fields)
            try:
                c.send(msg)
                r = c.wait_for(lambda m: m.get("ref") == mid)
            except Exception as e:
                if not is_lost(e):
                    raise
                last = "%s on %s: %s" % (mtype, path, str(e)[:120])
                self.note(last)
                time.sleep(0.2)
                path, hops = base, 0
                continue
            if r.get("type") == "redirect":
                self.redirects += 1
                hops += 1
                retry = r.get("retry_ms", 1000) / 1000.0
                last = "redirect to %s (hop %d)" % (r.get("path"), hops)
                self.note("%s on %s: %s" % (mtype, path, last))
                if hops > 3:
                    time.sleep(retry)
                    path, hops = base, 0
                else:
                    path = r["path"]
                continue
            if r.get("type") == "error" and r.get("code") == "storage_error":
                # PROTOCOL.md: nothing changed, try again later (the node cannot reach Redis,
                # or is handing over): as a client should, after a second, from the base path.
                last = "%s on %s: storage_error (%s)" % (mtype, path, r.get("message"))
                self.note(last)
                time.sleep(1.0)
                path, hops = base, 0
                continue
            if r.get("type") == "error":
                raise ServerError(r)
            self.note("%s answered %s on %s" % (mtype, r.get("type"), path))
            return r, mid

    def create(self, path=None, **fields):
        fields.setdefault("name", self.name)
        r, _ = self.enter("create", fields, first_path=path)
        assert r["type"] == "joined", r
        self.c.wait_type("state")
        self.room, self.seat, self.token = r["room"], r["seat"], r["token"]
        return r

    def join(self, room, path=None):
        r, _ = self.enter("join", {"room": room, "name": self.name}, first_path=path)
        assert r["type"] == "joined", r
        self.c.wait_type("state")
        self.room, self.seat, self.token = r["room"], r["seat"], r["token"]
        return r

    def resume(self, deadline_s=20.0):
        """Resume the seat through /ws with the token and the last seq seen; returns when the
        catch-up (the deltas and `synced`, or a `state`) has come."""
        deadline = time.monotonic() + deadline_s
        while True:
            fields = {"room": self.room, "token": self.token}
            if self.seq is not None:
                fields["seq"] = self.seq
            r, mid = self.enter("resume", fields, max(1.0, deadline - time.monotonic()))
            if r.get("type") != "joined" or r.get("seat") != self.seat:
                raise AssertionError("%s: resume answered %s (seat %s)" % (self.name, r,
                                                                           self.seat))
            try:
                self.c.wait_for(lambda m: m.get("ref") == mid and
                                m.get("type") in ("state", "synced"))
            except Exception as e:
                if not is_lost(e) or time.monotonic() > deadline:
                    raise
                self.note("catch-up lost: %s" % str(e)[:120])
                continue
            self.resumes += 1
            return r

    def alive(self):
        """The connection is open (a read of what is waiting did not find it closed)."""
        if self.c is None or self.c.closed is not None:
            return False
        try:
            self.c.quiet(0.01)
        except Exception as e:
            if is_lost(e):
                return False
            raise
        return self.c.closed is None


def board_of(doc):
    return {k: (v["tile"], v["rot"]) for k, v in (doc or {}).get("board", {}).items()}


class Game:
    """One room's game, driven to its end by its players (seat order). pace: seconds between
    moves; every move is acknowledged before the next. Run in a thread (run()) or inline."""

    def __init__(self, cluster, players, rng, pace=0.0, label=""):
        self.cluster = cluster
        self.players = players
        self.room = players[0].room
        self.rng = rng
        self.pace = pace
        self.label = label or self.room
        self.acked = {}         # "x,y" -> (tile, rot): every move that got its ack
        self.acked_seq = []     # the acks' seqs
        self.moves = 0
        self.losses = []        # (time lost, time every player was back, [players resumed],
                                #  the room's owner then)
        self.problems = []      # acknowledged moves missing after a resume
        self.final = None       # the final scores the players saw
        self.error = None
        self.done = threading.Event()
        self.stop_at = None     # with pause(): stop before the move of this number
        self.paused = threading.Event()
        self.go = threading.Event()
        self.thread = None

    def start_game(self):
        host = self.players[0]
        host.c.send({"v": h.V, "type": "start"})
        for p in self.players:
            p.c.wait_doc(lambda d: d["phase"] == "playing")

    def run(self):
        try:
            self.play()
        except Exception:
            self.error = traceback.format_exc()
        finally:
            self.done.set()

    def start_thread(self):
        self.thread = threading.Thread(target=self.run, name="game-" + self.label, daemon=True)
        self.thread.start()
        return self

    def mover(self):
        doc = self.players[0].doc
        for p in self.players:
            if p.seat == doc["current"]:
                return p
        raise AssertionError("%s: nobody holds seat %s" % (self.label, doc["current"]))

    def step(self):
        """One move by the seat to move, acknowledged, every player caught up with it."""
        mover = self.mover()
        move = h.random_move(self.rng, mover.c)
        r = mover.c.request("play", **move)
        if r.get("type") != "ack":
            raise AssertionError("%s: play %s answered %s" % (self.label, move, r))
        self.acked["%d,%d" % (move["x"], move["y"])] = (move["tile"], move["rot"])
        self.acked_seq.append(r["seq"])
        self.moves += 1
        for p in self.players:
            p.c.wait_seq(r["seq"])
            p.c.drain()

    def over(self):
        d = self.players[0].doc
        return d is not None and d.get("phase") == "over"

    def play(self, until=None):
        """Play until the game is over (or until `until()` is true), recovering from lost
        connections."""
        while not self.over() and not (until is not None and until()):
            if self.stop_at is not None and self.moves >= self.stop_at:
                self.stop_at = None
                self.paused.set()
                self.go.wait()
                self.go.clear()
            try:
                self.step()
            except Exception as e:
                if not is_lost(e):
                    raise
                self.recover(str(e)[:160])
                continue
            if self.pace:
                time.sleep(self.pace)
        if self.over():
            self.final = [s["score"] for s in self.players[0].doc["seats"]]

    def recover(self, why, deadline_s=25.0):
        """Resume every player whose connection is gone (and any that cannot catch up), then
        check that the room still holds every acknowledged move."""
        t_lost = time.monotonic()
        self.players[0].note("%s: lost (%s)" % (self.label, why))
        resumed = []
        for p in self.players:
            if not p.alive():
                p.resume(deadline_s)
                resumed.append(p.name)
        top = max(p.seq for p in self.players if p.seq is not None)
        for p in self.players:
            try:
                p.c.wait_seq(top, timeout=2.0)
            except Exception as e:
                if not is_lost(e):
                    raise
                p.resume(deadline_s)
                resumed.append(p.name)
                top = max(top, p.seq)
        for p in self.players:
            p.c.drain()
        board = board_of(self.players[0].doc)
        for k, v in self.acked.items():
            if board.get(k) != v:
                self.problems.append("%s: acknowledged move at %s %s missing after the "
                                     "resume (board has %s)" % (self.label, k, v, board.get(k)))
        self.losses.append((t_lost, time.monotonic(), resumed, self.cluster.owner(self.room)))

    def check_record(self, where=None):
        """The game's record (GET /api/games/ROOM through HAProxy, read from the shared
        database) replays with carc-replay to the final scores the players saw and holds every
        acknowledged move. Returns a list of problems."""
        out = list(self.problems)
        if self.final is None:
            return out + ["%s: the game did not finish" % self.label]
        try:
            rec = h.game_record(where or self.cluster.front, self.room, timeout=10)
        except AssertionError as e:
            return out + ["%s: no record: %s" % (self.label, e)]
        if "fair" in rec and "secret" in rec["fair"]:
            h.secret_add(rec["fair"]["secret"])
        try:
            lines = h.replay(rec)
        except AssertionError as e:
            return out + ["%s: carc-replay refuses the record: %s" % (self.label, e)]
        if not lines or not lines[-1].get("final"):
            out.append("%s: carc-replay's last line is not final: %s" % (self.label, lines[-1:]))
        elif lines[-1]["scores"] != self.final:
            out.append("%s: carc-replay scores %s, the players saw %s"
                       % (self.label, lines[-1]["scores"], self.final))
        placed = {"%d,%d" % (m["x"], m["y"]): (m["tile"], m["rot"])
                  for m in rec["moves"] if "x" in m}
        for k, v in self.acked.items():
            if placed.get(k) != v:
                out.append("%s: acknowledged move %s %s not in the record (%s)"
                           % (self.label, k, v, placed.get(k)))
        board = board_of(self.players[0].doc)
        if len(placed) != len(board) - 1:
            out.append("%s: the record has %d placements, the final board %d tiles"
                       % (self.label, len(placed), len(board)))
        return out

    def close(self):
        for p in self.players:
            p.close()

    def trace(self, n=30):
        lines = sorted(t for p in self.players for t in p.trace)
        return "\n".join(lines[-n:])


def new_game(cluster, tag, n_players=2, host_path=None, join_path=None, sets=("base",),
             rng=None, pace=0.0, base="/ws"):
    """A room created by P0 of tag through host_path, joined by the others through join_path
    (default: base; redirected to the owner as needed), not started."""
    players = [Player(cluster, "%s-%d" % (tag, i), base=base) for i in range(n_players)]
    players[0].create(path=host_path, seats=n_players, sets=list(sets))
    for p in players[1:]:
        p.join(players[0].room, path=join_path)
    top = max(p.seq for p in players)
    for p in players:
        p.c.wait_seq(top)
        p.c.drain()
    return Game(cluster, players, rng, pace=pace, label=tag)
