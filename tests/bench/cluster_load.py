#!/usr/bin/python3
"""cluster_load.py: carc-load against a carcd cluster behind HAProxy, for 1, 2 and 3 nodes.

    /usr/bin/python3 tests/bench/cluster_load.py --build build --rooms 100 --seconds 30 \
        [--nodes 1,2,3] [--mode auto|front|per-node]

For each node count N it starts a cluster of its own (tests/cluster/cluster.py: Redis,
PostgreSQL, HAProxy, N nodes with --lease-ttl 3000, all on loopback), runs the load, prints the
load's own report, then one line

    cluster_nodes: N moves/s: X  nodes_cpu_us_per_move: .. haproxy .. redis .. postgres ..
        redis_cmds_per_move: .. redis_bytes_per_move: .. pg_xacts_per_move: .. pg_wal_bytes_per_move: ..

and stops it; at the end `cluster_moves_per_s: 1 node X, 2 nodes Y, 3 nodes Z`.

The load: with --mode front, one `carc-load --url ws://127.0.0.1:HAPROXY/ws --rooms R`: the
rooms are created over the nodes (HAProxy's leastconn) and their seats redirected to the owner (carc-load
must follow redirects); with --mode per-node, N carc-loads at once, the k-th on /n/nk/ws with
R/N rooms (each room on one node, no redirects), their moves/s summed. auto picks front when
carc-load follows redirects (clients/bot/route.c is there, or its --help mentions them). CPU is read from /proc for every process of each part
(the nodes, HAProxy, redis-server, the PostgreSQL server and its backends) over the load.
Exit 1 when a load run fails (a game not finished).
"""

import argparse
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))

TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    """User + system CPU seconds of a process (all its threads); 0 when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            f = f.read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def children(ppid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == ppid:
                    out.append(int(d))
        except (OSError, IndexError, ValueError):
            pass
    return out


def pg_pids(pg):
    try:
        with open(os.path.join(pg.data, "postmaster.pid")) as f:
            pm = int(f.readline())
    except (OSError, ValueError):
        return []
    return [pm] + children(pm)


class Counters:
    """CPU of each part and the Redis and PostgreSQL counters, at one moment. PostgreSQL's
    backends come and go with connections: the same pids are read at both ends (the nodes keep
    their connections for the whole run)."""

    def __init__(self, c, pids=None):
        self.pids = pids or {
            "nodes": [s.pid() for s in c.nodes.values()],
            "haproxy": [c.haproxy.pid],
            "redis": [c.redis.proc.pid],
            "postgres": pg_pids(c.pg) if c.pg is not None else [],
        }
        self.cpu = {k: sum(cpu_s(p) for p in v) for k, v in self.pids.items()}
        info = c.redis.command("INFO", "stats")
        self.redis = {k: int(v) for k, v in re.findall(
            r"^(total_commands_processed|total_net_input_bytes|total_net_output_bytes):(\d+)",
            info, re.M)}
        if c.pg is None:  # --plain: SQLite on each node
            self.pg = {"xacts": 0, "wal": 0}
            return
        row = c.pg.psql("SELECT xact_commit, pg_current_wal_lsn() - '0/0'::pg_lsn FROM "
                        "pg_stat_database WHERE datname = current_database()", db="carcd")
        x, wal = row.split("|")
        self.pg = {"xacts": int(x), "wal": int(float(wal))}


def load_cmd(build, url, rooms, seconds, pid=None):
    cmd = [os.path.join(build, "carc-load"), "--url", url, "--rooms", str(rooms),
           "--seconds", str(seconds)]
    if pid:
        cmd += ["--pid", str(pid)]
    return cmd


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.environ.get("CARC_BUILD", "build"))
    ap.add_argument("--rooms", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--nodes", default="1,2,3")
    ap.add_argument("--mode", choices=["auto", "front", "per-node"], default="auto")
    ap.add_argument("--plain", action="store_true",
                    help="nodes without the cluster flags, SQLite each (a check of the bench)")
    a = ap.parse_args(argv)
    build = os.path.abspath(a.build)
    os.environ["CARC_BUILD"] = build
    logdir = __import__("tempfile").mkdtemp(prefix="carcd-bench-cluster-")
    os.environ["CARC_IT_LOGS"] = logdir  # harness.py: where the nodes' logs go
    import cluster as cl  # after CARC_BUILD: harness.py reads it at import

    mode = a.mode
    if mode == "auto":
        helptext = subprocess.run([os.path.join(build, "carc-load"), "--help"],
                                  capture_output=True, text=True).stdout
        # clients/bot/route.c is carc-load's redirect follower (protocol/PROTOCOL.md)
        follows = "redirect" in helptext or os.path.exists(
            os.path.join(ROOT, "clients", "bot", "route.c"))
        mode = "front" if follows else "per-node"
    results = []
    status = 0
    for n in [int(x) for x in a.nodes.split(",")]:
        c = cl.Cluster(n, lease_ttl=3000, plain=a.plain)
        try:
            c.start()
            print("== cluster of %d node%s behind HAProxy (%s), %d rooms"
                  % (n, "s" if n > 1 else "", mode, a.rooms), flush=True)
            before = Counters(c)
            t0 = time.monotonic()
            if mode == "front" or n == 1:
                url = c.front.ws_url if mode == "front" else c.node_path("n1").ws_url
                pid = c.nodes["n1"].pid() if n == 1 else None
                procs = [subprocess.Popen(load_cmd(build, url, a.rooms, a.seconds, pid),
                                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                          text=True)]
            else:
                share = [a.rooms // n + (1 if k < a.rooms % n else 0) for k in range(n)]
                procs = [subprocess.Popen(load_cmd(build, c.node_path(nid).ws_url, share[k],
                                                   a.seconds, c.nodes[nid].pid()),
                                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                          text=True)
                         for k, nid in enumerate(c.nodes)]
            outs = [p.communicate()[0] for p in procs]
            wall = time.monotonic() - t0
            after = Counters(c, before.pids)
            moves, play_s = 0, 0.0
            for p, out in zip(procs, outs):
                hops = 0
                on = {}
                for line in out.splitlines():
                    m = re.match(r"carc-load: room (\S+) is on node (\S+):", line)
                    if m:
                        hops += 1  # one line per redirect followed: counted, not shown
                        on[m.group(1)] = m.group(2)
                        continue
                    print("  " + line)
                if hops:
                    by = {}
                    for node in on.values():
                        by[node] = by.get(node, 0) + 1
                    print("  (%d redirects followed; the rooms they went to, by node: %s)"
                          % (hops, ", ".join("%s %d" % kv for kv in sorted(by.items()))))
                mv = re.search(r"^moves: (\d+) in ([\d.]+) s", out, re.M)
                if p.returncode != 0 or mv is None:
                    print("FAIL: carc-load exit %s" % p.returncode, flush=True)
                    status = 1
                    continue
                moves += int(mv.group(1))
                play_s = max(play_s, float(mv.group(2)))
            # The loads play at once: all their moves over the longest one's time of play.
            rate = moves / play_s if play_s > 0 else 0.0
            per = max(moves, 1)
            cpu = {k: (after.cpu[k] - before.cpu[k]) * 1e6 / per for k in before.cpu}
            rc = after.redis.get("total_commands_processed", 0) - \
                before.redis.get("total_commands_processed", 0)
            rb = sum(after.redis.get(k, 0) - before.redis.get(k, 0)
                     for k in ("total_net_input_bytes", "total_net_output_bytes"))
            print("cluster_nodes: %d moves/s: %.0f (%d moves, %.1f s wall)  "
                  "cpu_us_per_move: nodes %.1f haproxy %.1f redis %.1f postgres %.1f  "
                  "redis_cmds_per_move: %.2f redis_bytes_per_move: %.0f  "
                  "pg_xacts_per_move: %.2f pg_wal_bytes_per_move: %.0f"
                  % (n, rate, moves, wall, cpu["nodes"], cpu["haproxy"], cpu["redis"],
                     cpu["postgres"], rc / per, rb / per,
                     (after.pg["xacts"] - before.pg["xacts"]) / per,
                     (after.pg["wal"] - before.pg["wal"]) / per), flush=True)
            results.append((n, rate))
        except Exception as e:
            print("FAIL: cluster of %d nodes: %s" % (n, e), flush=True)
            status = 1
        finally:
            c.stop()
            c.remove()
    print("cluster_moves_per_s: " + ", ".join("%d node%s %.0f" % (n, "s" if n > 1 else "", r)
                                              for n, r in results)
          + "  (loopback, %d cores shared by the load, HAProxy, Redis, PostgreSQL and the "
          "nodes)" % os.cpu_count(), flush=True)
    __import__("shutil").rmtree(logdir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
