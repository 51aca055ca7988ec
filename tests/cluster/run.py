#!/usr/bin/python3
"""The cluster test (issue 17, `make test-cluster`): Redis, PostgreSQL, HAProxy and 3 carcd
nodes on loopback, all real (Debian packages), and the checks of the issue's "Done when".

    /usr/bin/python3 tests/cluster/run.py [CASE ...]       the cases below, or the named ones
    /usr/bin/python3 tests/cluster/run.py --serve N         start N nodes + HAProxy, print
                                                            `cluster ws://127.0.0.1:PORT/ws pids
                                                            P1,P2,..` and wait for SIGTERM/stdin EOF
    /usr/bin/python3 tests/cluster/run.py --plain [CASE..]  nodes without the cluster flags
                                                            (SQLite each): the HAProxy checks only

CARC_BUILD selects the build directory (default build). Every case runs on the same cluster;
a case that kills or stops a node brings it back (same id, same port) before the next. Each
case prints `ok NAME (S s)` or `FAIL NAME (S s): why`; on a failure every log (each node's,
HAProxy's, Redis's, PostgreSQL's) is kept in $CARC_BUILD/cluster-logs/ (also with
CARC_CLUSTER_KEEP=1), and the last lines of each node's log are printed. The last line is
`N passed, N failed`.
"""

import argparse
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
LOG_DIR = tempfile.mkdtemp(prefix="carcd-cluster-logs-")
os.environ["CARC_IT_LOGS"] = LOG_DIR  # harness.py writes every carcd's output there
sys.path.insert(0, HERE)

try:
    import cluster as cl  # noqa: E402
    import player as pl  # noqa: E402
except ImportError as e:  # websocket, jsonschema, jsonpatch: deploy/deps.sh installs them
    print("tests/cluster: %s (run deploy/deps.sh; use /usr/bin/python3)" % e, file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)
import harness as h  # noqa: E402

LEASE_TTL = 3000
FAILOVER_S = 10.0        # the issue: within 10 s another node serves the rooms
HANDOVER_S = 2.5         # a clean shutdown: the clients are back well within lease-ttl
PLAIN = False


class CaseFailed(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise CaseFailed(msg)


def say(*args):
    print(*args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Cases. Each takes the running cluster; raises CaseFailed (or anything) on a failure.

def case_haproxy_config(c):
    """deploy/haproxy-cluster.cfg passes `haproxy -c` as it is, and so does the config built
    from it for this cluster; /n/NODE/ reaches that node only, with the prefix stripped."""
    ok, out = cl.haproxy_check(cl.EXAMPLE)
    check(ok, "haproxy -c -f deploy/haproxy-cluster.cfg: %s" % out)
    for n, s in c.nodes.items():
        st, body = cl.http_get("%s/n/%s/healthz" % (c.http, n))
        check(st == 200, "GET /n/%s/healthz through HAProxy: %s %s" % (n, st, body[:200]))
        # the node's own websocket: its welcome, on a connection HAProxy gave that node only
        with h.Client(c.node_path(n), timeout=5) as cli:
            check(cli.welcome is not None, "no welcome on /n/%s/ws" % n)
        # and that node's process answers it: a stopped node makes its path fail
    st, _ = cl.http_get("%s/n/nosuchnode/ws" % c.http)
    check(st == 404, "GET /n/nosuchnode/ws: %s, not 404" % st)
    st, _ = cl.http_get("%s/admin/rooms" % c.http)
    check(st == 404, "GET /admin/rooms through HAProxy: %s, not 404" % st)
    # a stopped node: HAProxy marks it down within a few seconds and answers its path with 503,
    # while /ws and /healthz are served by the others
    victim = list(c.nodes)[-1]
    c.nodes[victim].signal(signal.SIGSTOP)
    try:
        t = c.wait_state(victim, "DOWN", 10)
        st, _ = cl.http_get("%s/n/%s/healthz" % (c.http, victim))
        check(st == 503, "GET /n/%s/healthz with %s stopped: %s, not 503" % (victim, victim, st))
        for _ in range(2 * len(c.nodes)):
            st, body = cl.http_get("%s/healthz" % c.http)
            check(st == 200, "GET /healthz with %s down: %s %s" % (victim, st, body[:100]))
    finally:
        c.nodes[victim].signal(signal.SIGCONT)
    c.wait_state(victim, "UP", 10)
    say("  HAProxy marked a stopped node down in %.1f s" % t)


def case_lobby(c):
    """A public room created on each node is listed by `list` and GET /api/rooms on every
    node within a few seconds."""
    hosts = {}
    for n in c.nodes:
        p = pl.Player(c, "lobby-" + n)
        p.create(path="/n/%s/ws" % n, seats=3)
        hosts[n] = p
        if not PLAIN:
            check(c.owner(p.room) == n, "room %s created through /n/%s/ws is owned by %s"
                  % (p.room, n, c.lease(p.room)))
    want = {p.room: n for n, p in hosts.items()}
    t0 = time.monotonic()
    try:
        for n in c.nodes:
            deadline = time.monotonic() + 5.0
            listed = api = set()
            with h.Client(c.node_path(n), timeout=5) as cli:
                while True:
                    try:
                        r = cli.request("list")
                    except h.Closed as e:
                        raise CaseFailed("node %s dropped the connection that sent `list`: %s"
                                         % (n, e))
                    check(r.get("type") == "rooms", "list on %s: %s" % (n, r))
                    listed = {x["room"] for x in r["rooms"]}
                    st, body = cl.http_get("%s/n/%s/api/rooms" % (c.http, n))
                    check(st == 200, "GET /n/%s/api/rooms: %s %s" % (n, st, body[:200]))
                    api = {x["room"] for x in json.loads(body)}
                    if set(want) <= listed and set(want) <= api:
                        break
                    if time.monotonic() > deadline:
                        raise CaseFailed(
                            "node %s after 5 s: `list` lacks %s, /api/rooms lacks %s (rooms "
                            "and their nodes: %s)" % (n, sorted(set(want) - listed),
                                                      sorted(set(want) - api), want))
                    time.sleep(0.2)
        say("  every node listed every node's room within %.1f s" % (time.monotonic() - t0))
    finally:
        for p in hosts.values():
            try:
                p.c.request("leave")
            except Exception:
                pass
            p.close()


def case_accounts(c):
    """Every node reads the same accounts and sessions (one PostgreSQL): an account signed up
    through n1 is signed in on n2 and n3 with the same cookie; signed out through n2, n3 answers
    401 at once."""
    name = "clu%06d" % random.randrange(10 ** 6)
    pw = "cluster-pw-%06d" % random.randrange(10 ** 6)
    h.secret_add(pw)
    origin = {"Origin": c.http}  # the request's Host through HAProxy: carcd's own site
    nodes = list(c.nodes)
    n1, n2, n3 = nodes[0], nodes[1 % len(nodes)], nodes[2 % len(nodes)]
    st, hd, body = cl.http_request("POST", "%s/n/%s/api/account" % (c.http, n1),
                                   {"name": name, "password": pw}, origin)
    check(st == 201, "POST /n/%s/api/account: %s %s" % (n1, st, body[:200]))
    cookie = hd.get("set-cookie", "").split(";")[0]
    check(cookie.startswith("carcd_session=") and len(cookie) > len("carcd_session="),
          "sign-up through %s: no session cookie (%r)" % (n1, hd.get("set-cookie")))
    h.secret_add(cookie.split("=", 1)[1])
    csrf = json.loads(body)["csrf"]
    for n in (n2, n3):
        st, _, body = cl.http_request("GET", "%s/n/%s/api/me" % (c.http, n),
                                      headers={"Cookie": cookie})
        check(st == 200 and json.loads(body).get("name") == name,
              "GET /n/%s/api/me with %s's session: %s %s" % (n, n1, st, body[:200]))
    st, _, body = cl.http_request("DELETE", "%s/n/%s/api/session" % (c.http, n2),
                                  headers=dict(origin, **{"Cookie": cookie,
                                                          "X-CSRF-Token": csrf}))
    check(st == 204, "DELETE /n/%s/api/session: %s %s" % (n2, st, body[:200]))
    for n in (n3, n1):
        st, _, body = cl.http_request("GET", "%s/n/%s/api/me" % (c.http, n),
                                      headers={"Cookie": cookie})
        check(st == 401, "GET /n/%s/api/me after signing out through %s: %s %s"
              % (n, n2, st, body[:200]))


def _wait_moves(games, n, timeout=60):
    deadline = time.monotonic() + timeout
    while any(g.moves < n and not g.done.is_set() for g in games):
        check(time.monotonic() < deadline, "games did not reach %d moves in %s s: %s"
              % (n, timeout, [(g.label, g.moves, g.error) for g in games]))
        time.sleep(0.02)
    for g in games:
        check(g.error is None, "%s failed before the test's event:\n%s" % (g.label, g.error))
        check(not g.done.is_set(), "%s ended before the test's event (%d moves)"
              % (g.label, g.moves))


def _join_games(games, timeout=120):
    deadline = time.monotonic() + timeout
    for g in games:
        g.thread.join(max(0.1, deadline - time.monotonic()))
        check(not g.thread.is_alive(), "%s still running after %s s (%d moves); its trace:\n%s"
              % (g.label, timeout, g.moves, g.trace()))
        check(g.error is None, "%s failed:\n%s\ntrace:\n%s" % (g.label, g.error, g.trace()))


def _records(games, where=None):
    problems = []
    for g in games:
        problems += g.check_record(where)
    check(not problems, "\n".join(problems))


def case_games(c):
    """Games played by clients on /ws (leastconn: rooms on several nodes, seats redirected
    to the owner) finish, with the final scores carc-replay computes from their records."""
    rng = random.Random(17)
    path = "/n/n1/ws" if PLAIN else "/ws"
    games = [pl.new_game(c, "g%d" % i, n_players=2 + i % 2, host_path=path, join_path=path,
                         rng=random.Random(rng.random())) for i in range(3)]
    owners = {g.label: c.owner(g.room) for g in games} if not PLAIN else {}
    redirects = sum(p.redirects for g in games for p in g.players)
    for g in games:
        g.start_game()
        g.start_thread()
    _join_games(games)
    for g in games:
        check(not g.losses, "%s lost connections with no node down: %s\n%s"
              % (g.label, g.losses, g.trace()))
    _records(games, c.path(path))
    if not PLAIN:
        check(len(set(owners.values())) >= 2, "3 rooms created through /ws all on one node: %s"
              % owners)
        check(redirects > 0, "no seat was redirected to its room's owner (owners %s)" % owners)
    say("  %d games, %d moves, owners %s, %d redirects followed"
        % (len(games), sum(g.moves for g in games), owners, redirects))


def _owned_games(c, victim, k, tag, pace):
    games = []
    for i in range(k):
        g = pl.new_game(c, "%s%d" % (tag, i), n_players=2 + i % 2, host_path="/n/%s/ws" % victim,
                        rng=random.Random(1000 + i), pace=pace)
        check(c.owner(g.room) == victim, "%s: room created on %s is owned by %s"
              % (g.label, victim, c.lease(g.room)))
        games.append(g)
    return games


def _check_failover(c, games, victim, t_event, bound, what, acked):
    for g in games:
        check(g.losses, "%s: no player noticed that %s %s" % (g.label, victim, what))
        back = g.losses[0][1] - t_event
        check(back <= bound, "%s: players back %.1f s after %s %s (bound %.1f s)"
              % (g.label, back, victim, what, bound))
        owner = g.losses[0][3]
        check(owner not in (None, victim), "%s: after the resume the room's lease is %s, not "
              "another node's" % (g.label, owner))
        for p in g.players:
            check(p.resumes >= 1, "%s: %s never resumed with its token" % (g.label, p.name))
        say("  %s: every player resumed on %s %.1f s after %s %s (%d moves acknowledged "
            "before, %d in all)" % (g.label, owner, back, victim, what, acked[g.label],
                                    len(g.acked)))


def case_sigkill(c):
    """SIGKILL of the node owning running games, mid-game: within 10 s another node serves
    each room, every player resumes with its token, no acknowledged move is lost, the games
    finish (their records replay to the scores the players saw)."""
    victim = "n2"
    games = _owned_games(c, victim, 3, "kill", pace=0.03)
    others = [n for n in c.nodes if n != victim]
    control = pl.new_game(c, "killctl", host_path="/n/%s/ws" % others[0],
                          rng=random.Random(5), pace=0.03)
    for g in games + [control]:
        g.start_game()
        g.start_thread()
    _wait_moves(games + [control], 10)
    t_kill = time.monotonic()
    acked = {g.label: len(g.acked) for g in games}
    c.nodes[victim].expected_exit = True
    c.nodes[victim].kill()
    _join_games(games + [control])
    _check_failover(c, games, victim, t_kill, FAILOVER_S, "was killed", acked)
    check(not control.losses, "%s (on %s) lost its players when %s died: %s"
          % (control.label, others[0], victim, control.trace()))
    _records(games + [control])


def case_correspondence(c):
    """A correspondence game (a day per move) whose node is killed after a move: the node that
    takes the room over charges the mover from the stored start of the turn, so its deadline
    is the one the players saw before (not a whole day from the takeover) and its time is
    less than a day by the time since."""
    victim = "n3"
    players = [pl.Player(c, "corr-%d" % i) for i in range(2)]
    players[0].create(path="/n/%s/ws" % victim, seats=2, sets=["base"],
                      clock={"per_move": 86400, "on_timeout": "skip"})
    players[1].join(players[0].room)
    check(c.owner(players[0].room) == victim, "corr: room not owned by %s" % victim)
    g = pl.Game(c, players, random.Random(9), label="corr")
    g.start_game()
    g.step()
    before = players[0].doc["clock"]
    time.sleep(2.0)
    c.nodes[victim].expected_exit = True
    c.nodes[victim].kill()
    for p in players:
        p.resume(deadline_s=30)
    doc = players[0].doc
    owner = c.owner(players[0].room)
    check(owner not in (None, victim), "corr: the room is %s's after the kill" % owner)
    after = doc["clock"]
    check(after["per_move"] == 86400, "corr: clock %s" % after)
    check(after["turn_started"] > before["turn_started"],
          "corr: the turn did not start again on %s: %s" % (owner, after))
    check(abs(after["deadline"] - before["deadline"]) <= 1000,
          "corr: deadline %s on %s, %s before the kill" % (after["deadline"], owner,
                                                          before["deadline"]))
    used = after["turn_started"] - before["turn_started"]
    left = doc["seats"][doc["current"]]["time_ms"]
    check(abs(left - (86400000 - used)) <= 1000,
          "corr: the mover has %d ms, %d ms after the turn began" % (left, used))
    say("  the turn's start kept on %s: deadline unchanged, %.1f s charged" % (owner, used / 1e3))
    g.close()


def case_sigterm(c):
    """A clean shutdown (SIGTERM) of a node owning running games: its players are closed with
    1001, resume through /ws on another node at once (well within lease-ttl), no acknowledged
    move is lost, the games finish; the node exits 0."""
    victim = "n1"
    games = _owned_games(c, victim, 2, "term", pace=0.03)
    for g in games:
        g.start_game()
        g.start_thread()
    _wait_moves(games, 10)
    t_term = time.monotonic()
    acked = {g.label: len(g.acked) for g in games}
    c.nodes[victim].expected_exit = True
    status = c.nodes[victim].stop(timeout=20)
    _join_games(games)
    check(status == 0, "%s exited with %s after SIGTERM; its log:\n%s"
          % (victim, status, c.nodes[victim].log(30)))
    codes = {p.name: [code for _, code in p.closes] for g in games for p in g.players}
    for name, cs in codes.items():
        check(1001 in cs, "%s: close codes %s, no 1001" % (name, cs))
    _check_failover(c, games, victim, t_term, HANDOVER_S, "got SIGTERM", acked)
    _records(games)


def _other_move(mover, stale):
    """A legal move for mover that is not the stale one (another place or rotation), as a
    random_move dict; None when stale is the only one."""
    legals = mover.c.wait_legal()
    doc = mover.c.doc
    for lg in legals:
        if (lg["x"], lg["y"], lg["rot"]) != (stale["x"], stale["y"], stale["rot"]):
            return {"tile": doc["tile"], "x": lg["x"], "y": lg["y"], "rot": lg["rot"],
                    "meeple": None, "escape": None}
    return None


def _backends(c, node):
    """The PostgreSQL server processes of node's connections (carcd names them carcd-PID)."""
    out = c.pg.psql("SELECT pid FROM pg_stat_activity WHERE application_name = 'carcd-%d'"
                    % node.pid())
    return [int(x) for x in out.split()]


def case_sigstop(c):
    """A node stopped (SIGSTOP) until its lease passes to another node, then continued, cannot
    write a move: a move it took just before it stopped (its write to PostgreSQL still on the
    way) is refused by the database once the new owner has written (`fenced` in its log), the
    node gives the room up (`room given up`) and no longer serves it (a resume sent to it gets a
    redirect to the new owner); the players resume on the new owner and play there; the record
    holds the new owner's move, not the stale one, and replays to the scores they saw.

    To hold the stale write on the way, the node's own PostgreSQL server processes are stopped
    first (SIGSTOP, while idle: they hold no lock), then the move is sent, then the node is
    stopped; they are continued in that order once the new owner has written."""
    victim = "n3"
    node = c.nodes[victim]
    g = _owned_games(c, victim, 1, "stop", pace=0)[0]
    g.start_game()
    g.play(until=lambda: g.moves >= 6)
    check(not g.over(), "the game ended in 6 moves")
    mover = g.mover()
    stale = h.random_move(g.rng, mover.c)
    index = g.moves  # the record's index of the stale move
    backends = _backends(c, node)
    check(backends, "no PostgreSQL session named carcd-%d" % node.pid())
    stopped = []
    alt = None
    try:
        for pid in backends:
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
        # The node takes the move and hands its batch to the store, which waits on the
        # stopped server: no delta, no ack (a commit comes first).
        mover.c.send({"v": h.V, "type": "play", "id": next(h._ids), **stale})
        got = mover.c.quiet(0.5)
        check(not any(m.get("type") in ("ack", "delta") for m in got),
              "the move was answered while its write could not commit: %s" % got)
        node.signal(signal.SIGSTOP)
        t_stop = time.monotonic()
        # HAProxy marks the node down and closes its tunnels (deploy/haproxy-cluster.cfg:
        # on-marked-down shutdown-sessions), so the players notice at once
        for p in g.players:
            try:
                p.c.wait_close(10)
            except AssertionError:
                raise CaseFailed("%s: its connection to the stopped %s still open 10 s later"
                                 % (p.name, victim))
        t_closed = time.monotonic() - t_stop
        # ... and resume through /ws, redirected to the stopped node (503) until its lease
        # expires and another node takes the room from PostgreSQL.
        g.recover("node stopped")
        t_back = time.monotonic() - t_stop
        new_owner = c.owner(g.room)
        check(new_owner not in (None, victim), "after the resume the lease is %s"
              % c.lease(g.room))
        tiles = len(pl.board_of(g.players[0].doc))
        check(tiles == index + 1 and g.mover() is mover,
              "the new owner has the stale node's uncommitted move: %d tiles after %d moves, "
              "turn of %s" % (tiles, index, g.mover().name))
        # The new owner's moves: first one that differs from the stale move.
        alt = _other_move(mover, stale)
        check(alt is not None, "only one legal move: cannot tell the stale move apart")
        r = mover.c.request("play", **alt)
        check(r.get("type") == "ack", "play on %s: %s" % (new_owner, r))
        g.acked["%d,%d" % (alt["x"], alt["y"])] = (alt["tile"], alt["rot"])
        g.moves += 1
        for p in g.players:
            p.c.wait_seq(r["seq"])
        g.play(until=lambda: g.moves >= index + 4)
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
        time.sleep(0.2)  # the database answers what the node had sent before it stopped
        node.signal(signal.SIGCONT)
    t_cont = time.monotonic()
    say("  %s stopped; its players closed by HAProxy after %.1f s, back on %s after %.1f s;"
        " continued after %.1f s" % (victim, t_closed, new_owner, t_back, t_cont - t_stop))
    c.wait_state(victim, "UP", 10)
    deadline = time.monotonic() + 5
    while "room given up" not in node.log_text():
        check(time.monotonic() < deadline, "%s's log has no `room given up` 5 s after SIGCONT;"
              " its last lines:\n%s" % (victim, node.log(20)))
        time.sleep(0.1)
    deadline = time.monotonic() + 5
    while "fenced" not in node.log_text():
        check(time.monotonic() < deadline, "%s's log has no `fenced` 5 s after SIGCONT: was "
              "its stale write accepted? Its last lines:\n%s" % (victim, node.log(20)))
        time.sleep(0.1)
    # The old node no longer serves the room: a resume sent to it is redirected.
    probe = g.players[-1]
    with h.Client(c.node_path(victim), timeout=5) as cli:
        r = cli.request("resume", room=g.room, token=probe.token)
    check(r.get("type") == "redirect" and r.get("node") == new_owner,
          "resume on /n/%s/ws after it gave the room up: %s (owner %s)"
          % (victim, r, new_owner))
    # The game goes on (the probe's connection never took the seat) and finishes.
    g.play()
    g.close()
    problems = g.check_record()
    rec = h.game_record(c.front, g.room)
    mv = rec["moves"][index] if index < len(rec["moves"]) else None
    want = (alt["tile"], alt["x"], alt["y"], alt["rot"])
    got = None if mv is None else (mv.get("tile"), mv.get("x"), mv.get("y"), mv.get("rot"))
    if got != want:
        problems.append("move %d of the record is %s: not the new owner's %s (the stopped "
                        "node was sent %s)" % (index, got, want, stale))
    check(not problems, "\n".join(problems))
    say("  the old node's write was refused (`fenced`), it gave the room up and redirects it "
        "to %s" % new_owner)


def case_redis(c):
    """Redis lost mid-game (SIGKILL, then started again empty on its port, as a Redis without
    persistence after a crash): every node's leases pass their deadlines and its rooms are
    given up (4003); once Redis is back, the players' resumes take the rooms over again, each
    lease's fence above what the database holds (the counter was lost: the floor is the
    database's), no acknowledged move is lost and the games finish."""
    games = [pl.new_game(c, "redis%d" % i, host_path="/n/%s/ws" % node,
                         rng=random.Random(2000 + i), pace=0.03)
             for i, node in enumerate(["n1", "n2"])]
    for g in games:
        g.start_game()
        g.start_thread()
    _wait_moves(games, 10)
    acked = {g.label: len(g.acked) for g in games}
    c.redis.kill()
    time.sleep(c.lease_ttl / 1000.0 + 1.0)  # every lease is past its deadline
    t_back = time.monotonic()
    c.redis.restart()
    _join_games(games)
    for g in games:
        check(g.losses, "%s: no player noticed that Redis was gone" % g.label)
        for p in g.players:
            check(p.resumes >= 1, "%s: %s never resumed with its token" % (g.label, p.name))
        back = g.losses[-1][1] - t_back
        fence = c.redis.command("GET", "carcd:fence:%s" % g.room)
        check(fence is not None and int(fence) >= 2,
              "%s: the fence after Redis came back is %s, not above the database's" % (g.label,
                                                                                      fence))
        say("  %s: players back %.1f s after Redis came back, fence %s (%d moves acknowledged "
            "before, %d in all)" % (g.label, back, fence, acked[g.label], len(g.acked)))
    _records(games)


def case_browser(c):
    """tests/e2e/cluster.mjs (the web client through HAProxy, two nodes), when it is there."""
    import subprocess
    script = os.path.join(cl.ROOT, "tests", "e2e", "cluster.mjs")
    if not os.path.exists(script):
        return "skipped: no tests/e2e/cluster.mjs"
    mods = os.path.join(cl.ROOT, "tests", "e2e", "node_modules", "playwright-core")
    if not os.path.isdir(mods) or shutil.which("chromium") is None or \
            shutil.which("node") is None:
        return "skipped: chromium, node or tests/e2e/node_modules missing (make e2e installs them)"
    nodes = list(c.nodes)
    p = subprocess.run(["node", script, "--base", c.http + "/", "--node-a", nodes[0],
                        "--node-b", nodes[1]], capture_output=True, text=True, timeout=240,
                       cwd=cl.ROOT, env=dict(os.environ, CARC_BUILD=h.BUILD))
    check(p.returncode == 0, "tests/e2e/cluster.mjs exit %d:\n%s\n%s"
          % (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    for line in p.stdout.splitlines():
        say("  " + line)


CASES = [("haproxy", case_haproxy_config), ("lobby", case_lobby), ("accounts", case_accounts),
         ("games", case_games),
         ("sigkill", case_sigkill), ("correspondence", case_correspondence),
         ("sigstop", case_sigstop), ("sigterm", case_sigterm),
         ("redis", case_redis), ("browser", case_browser)]
PLAIN_CASES = ["haproxy", "lobby", "games"]


# ---------------------------------------------------------------------------------------------

def heal(c):
    """Bring every node back (continued, restarted on its port) and wait until HAProxy has
    them all up: each case starts on a whole cluster. Returns what went wrong: nodes that
    exited though the case did not stop them (a crash)."""
    died = []
    for n, s in c.nodes.items():
        if s.proc is not None and s.proc.poll() is None:
            s.signal(signal.SIGCONT)
        else:
            if not getattr(s, "expected_exit", False):
                died.append("node %s exited by itself (status %s; negative: killed by that "
                            "signal); its last lines:\n%s" % (n, s.proc.returncode, s.log(15)))
            s.expected_exit = False
            s.restart()
    c.wait_all_up(20)
    return died


def keep_logs(c, dest):
    os.makedirs(dest, exist_ok=True)
    for name, path in c.logs().items():
        if path and os.path.exists(path):
            shutil.copy(path, os.path.join(dest, name.replace("#", "-") + ".log"))
    if os.path.exists(c.cfg_path):
        shutil.copy(c.cfg_path, os.path.join(dest, "haproxy.cfg"))


def serve(n, plain):
    """--serve N: a cluster for the benchmark; one line with its URL and the nodes' pids,
    then wait until stdin closes or SIGTERM."""
    c = cl.Cluster(n, lease_ttl=LEASE_TTL, plain=plain)
    signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        c.start()
        print("cluster ws://127.0.0.1:%d/ws pids %s nodes %s"
              % (c.port, ",".join(str(s.pid()) for s in c.nodes.values()),
                 ",".join(c.nodes)), flush=True)
        try:
            sys.stdin.read()
        except KeyboardInterrupt:
            pass
    finally:
        c.stop()
        c.remove()
        shutil.rmtree(LOG_DIR, ignore_errors=True)
    return 0


def main(argv):
    global PLAIN
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--serve", type=int, metavar="N")
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args(argv)
    PLAIN = a.plain
    if a.serve:
        return serve(a.serve, a.plain)
    names = a.cases or (PLAIN_CASES if PLAIN else [n for n, _ in CASES])
    table = dict(CASES)
    for n in names:
        if n not in table:
            say("unknown case %s (cases: %s)" % (n, ", ".join(table)))
            return 2
    import faulthandler
    faulthandler.dump_traceback_later(float(os.environ.get("CARC_CLUSTER_TIMEOUT", "600")),
                                      exit=True)
    t0 = time.monotonic()
    passed = failed = 0
    c = cl.Cluster(3, lease_ttl=LEASE_TTL, plain=PLAIN)
    kept = None
    try:
        try:
            c.start()
        except Exception:
            say("FAIL start: %s" % traceback.format_exc())
            failed += 1
            names = []
        else:
            say("cluster up in %.1f s: HAProxy on %s, nodes %s, Redis %s"
                % (c.startup_s, c.port, {n: s.port for n, s in c.nodes.items()}, c.redis.port))
        for name in names:
            t = time.monotonic()
            try:
                note = table[name](c)
                why = None
            except Exception as e:
                why = str(e) if isinstance(e, CaseFailed) else traceback.format_exc()
            tails = {n: s.log(25) for n, s in c.nodes.items()}  # before a restart
            try:
                died = heal(c)
                if died:
                    why = "\n".join(([why] if why else []) + died)
                if why is None:
                    say("ok %s (%.1f s)%s" % (name, time.monotonic() - t,
                                             ": " + note if note else ""))
                    passed += 1
                else:
                    failed += 1
                    say("FAIL %s (%.1f s): %s" % (name, time.monotonic() - t, why))
                    for n, tail in tails.items():
                        say("---- last lines of %s's log:\n%s" % (n, tail))
            except Exception:
                failed += 1
                say("FAIL bringing the cluster back after %s: %s"
                    % (name, traceback.format_exc()))
                break
    finally:
        def keep(cluster, status):
            nonlocal failed, kept
            bad = {n: s for n, s in status.items() if s != 0}
            if bad:
                failed += 1
                say("FAIL: nodes exited with %s after SIGTERM" % bad)
            if failed or os.environ.get("CARC_CLUSTER_KEEP"):
                kept = os.path.join(h.BUILD, "cluster-logs")
                shutil.rmtree(kept, ignore_errors=True)
                keep_logs(cluster, kept)
        c.stop(keep)
        c.remove()
    leaks, checked, _ = h.secret_problems()
    for leak in leaks[:10]:
        say("FAIL: a secret in a node's log: %s" % leak)
    failed += len(leaks)
    if kept:
        say("logs kept in %s" % kept)
    shutil.rmtree(LOG_DIR, ignore_errors=True)
    say("schema failures: %d; %.1f s in all" % (len(h.SCHEMA_ERRORS), time.monotonic() - t0))
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
