"""HTTP over the wire: HEAD for every GET route, static files compressed (gzip) for clients that
accept it, with an ETag that gives 304 on revalidation; GET /api/games/{id}/replay of a game
played to its end."""

import gzip
import http.client
import json
import os
import random
import re
import socket
import sqlite3
import tempfile
import time
import unittest

import harness as h


def request(srv, method, path, headers=None):
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    try:
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


class Http(unittest.TestCase):
    def test_head_is_get_without_the_body(self):
        srv = h.shared()
        for path in ("/", "/js/main.js", "/api/rooms", "/api/tiles", "/healthz"):
            gs, gh, gb = request(srv, "GET", path)
            hs, hh, hb = request(srv, "HEAD", path)
            self.assertEqual((hs, gs), (200, 200), path)
            self.assertEqual(hb, b"", path)
            self.assertEqual(hh.get("content-length"), str(len(gb)), path)
        self.assertEqual(request(srv, "HEAD", "/nope.html")[0], 404)

    def test_gzip_and_etag(self):
        srv = h.shared()
        s, plain_h, plain = request(srv, "GET", "/js/main.js")
        self.assertEqual(s, 200)
        self.assertNotIn("content-encoding", plain_h)
        s, gz_h, gz = request(srv, "GET", "/js/main.js", {"Accept-Encoding": "gzip, deflate"})
        self.assertEqual(s, 200)
        self.assertEqual(gz_h.get("content-encoding"), "gzip")
        self.assertEqual(gz_h.get("vary"), "accept-encoding")
        self.assertLess(len(gz), len(plain))
        self.assertEqual(gzip.decompress(gz), plain)
        etag = plain_h.get("etag")
        self.assertTrue(etag and etag.startswith('"'), plain_h)
        self.assertEqual(gz_h.get("etag"), etag)
        s, _, body = request(srv, "GET", "/js/main.js", {"If-None-Match": etag})
        self.assertEqual((s, body), (304, b""))


def finished_game(srv, seed=3):
    """Play a 2-player base game to its end with random moves; returns (room id, final doc)."""
    rng = random.Random(seed)
    players = h.create_room(srv, ["Ann", "Bob"])
    try:
        return players[0].room, h.play_to_end(players, rng)
    finally:
        for c in players:
            c.close()


def get_json(srv, path, timeout=5.0):
    """(status, headers, JSON) of GET path, retried a moment while 404 (a record just written)."""
    deadline = time.monotonic() + timeout
    while True:
        s, hd, body = request(srv, "GET", path)
        if s != 404 or time.monotonic() > deadline:
            return s, hd, json.loads(body)
        time.sleep(0.05)


class Replay(unittest.TestCase):
    def test_replay_of_a_finished_game(self):
        srv = h.shared()
        room, doc = finished_game(srv)
        s, _, rec = get_json(srv, "/api/games/" + room)
        self.assertEqual(s, 200)
        s, hd, rp = get_json(srv, "/api/games/%s/replay" % room)
        self.assertEqual(s, 200, rp)
        self.assertEqual(hd.get("content-type"), "application/json")
        self.assertEqual(hd.get("cache-control"), "max-age=3600")
        self.assertEqual(rp["format"], "carcd-replay/1")
        self.assertEqual(rp["id"], room)
        self.assertEqual(rp["players"], [p["name"] for p in rec["players"]])
        self.assertEqual(rp["sets"], rec["sets"])
        self.assertEqual(rp["options"], rec["options"])
        self.assertEqual(rp["start"]["tile"], rec["start"])
        self.assertIsNone(rp["closed"])
        self.assertEqual(len(rp["moves"]), len(rec["moves"]))
        scores = [0, 0]
        for i, (m, r) in enumerate(zip(rp["moves"], rec["moves"])):
            self.assertEqual(m["move"], i)
            self.assertEqual((m["tile"], m["x"], m["y"], m["rot"], m["skip"]),
                             (r["tile"], r["x"], r["y"], r["rot"], False))
            self.assertEqual(m["meeple"], r.get("meeple"))
            self.assertEqual(m["events"][0]["type"], "placed")
            self.assertEqual(m["events"][0]["player"], m["player"])
            for ev in m["events"]:
                self.assertFalse(ev.get("final"), ev)
                for p, d in enumerate(ev.get("delta", [])):
                    scores[p] += d
            self.assertEqual(m["scores"], scores, "move %d" % i)
            for mp in m["meeples"]:
                self.assertEqual(sorted(mp), ["feature", "kind", "player", "x", "y"])
            # The meeple just placed stands on the board, unless its feature scored at once.
            returned = any(ev.get("returned", [0, 0])[m["player"]] for ev in m["events"])
            if m["meeple"] is not None and not returned:
                self.assertIn({"x": m["x"], "y": m["y"], "player": m["player"],
                               "feature": m["meeple"]["feature"], "kind": m["meeple"]["kind"]},
                              m["meeples"])
        final = rp["final"]
        self.assertTrue(final["over"])
        self.assertTrue(all(ev["final"] for ev in final["events"]), final["events"])
        for ev in final["events"]:
            for p, d in enumerate(ev["delta"]):
                scores[p] += d
        self.assertEqual(final["scores"], scores)
        # The final scores are the record's (carc-replay's) and the game's.
        self.assertEqual(final["scores"], h.replay(rec)[-1]["scores"])
        self.assertEqual(final["scores"], [s["score"] for s in doc["seats"]])

        gs, gh, gb = request(srv, "GET", "/api/games/%s/replay" % room)
        hs, hh, hb = request(srv, "HEAD", "/api/games/%s/replay" % room)
        self.assertEqual((gs, hs, hb), (200, 200, b""))
        self.assertEqual(hh.get("content-length"), str(len(gb)))
        self.assertEqual(hh.get("content-type"), "application/json")

    def test_replay_of_an_unknown_game(self):
        srv = h.shared()
        for path in ("/api/games/nosuchgame/replay", "/api/games/%s/replay" % ("x" * 200),
                     "/api/games/a/b/replay"):
            s, hd, body = request(srv, "GET", path)
            self.assertEqual(s, 404, path)
            self.assertEqual(hd.get("content-type"), "application/json")
            self.assertEqual(json.loads(body), json.loads(request(srv, "GET", "/api/games/nosuch")[2]))
            self.assertEqual(request(srv, "HEAD", path)[0], 404)

    def test_replay_of_a_corrupt_record(self):
        """A stored record the engine refuses: 500 with a JSON error, logged once."""
        with tempfile.TemporaryDirectory(prefix="carcd-it-replay-") as data:
            srv = h.Server(data_dir=data).start()
            try:
                room, _ = finished_game(srv, seed=4)
                s, _, rec = get_json(srv, "/api/games/" + room)
                self.assertEqual(s, 200)
            finally:
                self.assertEqual(srv.stop(), 0, srv.log())
            rec["moves"][3]["x"] += 40  # far from every tile: not adjacent
            db = sqlite3.connect(os.path.join(data, "carcd.db"))
            db.execute("UPDATE games SET record = ? WHERE room = ?", (json.dumps(rec), room))
            db.commit()
            db.close()
            srv = h.Server(data_dir=data).start()
            try:
                s, hd, body = request(srv, "GET", "/api/games/%s/replay" % room)
                self.assertEqual(s, 500, body)
                self.assertEqual(hd.get("content-type"), "application/json")
                self.assertIn("corrupt", json.loads(body)["error"])
                self.assertEqual(request(srv, "GET", "/api/games/" + room)[0], 200)
                time.sleep(0.2)
                lines = [ln for ln in srv.lines if "does not replay" in ln]
                self.assertEqual(len(lines), 1, srv.log())
                self.assertIn("move 3", lines[0])
            finally:
                self.assertEqual(srv.stop(), 0, srv.log())


def raw_http(srv, data, timeout=5.0):
    """Send raw bytes, read until the server closes (or the timeout): the bytes received."""
    s = socket.create_connection((srv.host, srv.port), timeout=timeout)
    out = b""
    try:
        s.sendall(data)
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError):
        pass
    finally:
        s.close()
    return out


def statuses(reply):
    """The status codes of every response in a byte stream."""
    return [int(m) for m in re.findall(rb"HTTP/1\.[01] (\d{3})", reply)]


class Strict(unittest.TestCase):
    """server/README.md "HTTP": request bounds, paths, and requests with a body."""

    def get(self, path):
        return statuses(raw_http(h.shared(), b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close"
                                             b"\r\n\r\n" % path.encode()))

    def test_long_request_target_is_414(self):
        self.assertEqual(self.get("/api/games/" + "a" * 5000), [414])
        self.assertEqual(self.get("/" + "b" * 2100), [414])
        self.assertEqual(self.get("/api/games/" + "a" * 1900), [404])

    def test_long_header_is_431(self):
        r = raw_http(h.shared(), b"GET / HTTP/1.1\r\nHost: x\r\nUser-Agent: " + b"u" * 5000
                     + b"\r\n\r\n")
        self.assertEqual(statuses(r), [431])

    def head(self, fields, target=b"/healthz"):
        return raw_http(h.shared(), b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n" + fields
                        + b"Connection: close\r\n\r\n")

    def test_long_query_is_414(self):
        """The query counts with the path (server/README.md "Requests": the target as sent)."""
        r = self.head(b"", b"/api/games?page=" + b"1" * 2100)
        self.assertEqual(statuses(r), [414])
        self.assertIn(b"request target too long", r)
        self.assertEqual(statuses(self.head(b"", b"/api/games?page=1&x=" + b"1" * 1900)), [200])
        # Escapes count as sent: %41 is three bytes of the 2048.
        self.assertEqual(statuses(self.head(b"", b"/api/games?x=" + b"%41" * 700)), [414])

    def test_many_query_parameters_are_400(self):
        """lws keeps 32 and a few more; past 32 carcd answers 400 rather than lws dropping the
        connection without a word."""
        many = b"/api/games?" + b"&".join(b"p%d=1" % i for i in range(200))
        r = self.head(b"", many)
        self.assertEqual(statuses(r), [400])
        self.assertIn(b"too many query parameters", r)
        self.assertIn(b"connection: close", r.lower())
        self.assertIn(b"x-content-type-options: nosniff", r.lower())
        r = self.head(b"", b"/api/games?" + b"&".join(b"p%d=1" % i for i in range(33)))
        self.assertEqual(statuses(r), [400])
        r = self.head(b"", b"/api/games?" + b"&".join(b"p%d=1" % i for i in range(32)))
        self.assertEqual(statuses(r), [200])

    def test_unknown_headers_count_to_431(self):
        """Headers lws does not know are held apart, unbounded by its per-header limit:
        their values add up, and 4096 bytes or more get 431 as a known header's do."""
        for fields in (b"X-Long: " + b"x" * 4096 + b"\r\n",
                       b"X-Long: " + b"x" * 5000 + b"\r\n",
                       b"X-Long: " + b"x" * 2100 + b"\r\nX-Long: " + b"x" * 2100 + b"\r\n",
                       b"X-A: " + b"x" * 2100 + b"\r\nX-B: " + b"x" * 2100 + b"\r\n"):
            r = self.head(fields)
            self.assertEqual(statuses(r), [431], fields[:20])
            self.assertIn(b"unknown header fields too large", r)
        self.assertEqual(statuses(self.head(b"X-Long: " + b"x" * 4095 + b"\r\n")), [200])
        # Repeats of a known header add up too (lws).
        self.assertEqual(statuses(self.head(b"Referer: " + b"r" * 2100 + b"\r\nReferer: "
                                            + b"r" * 2100 + b"\r\n")), [431])

    def test_too_many_or_too_large_headers_are_431(self):
        """Where lws would drop the request without an answer (its table of fields, its buffer),
        carcd answers 431 first."""
        fields = b"".join(b"X-F%d: v\r\n" % i for i in range(38))  # + Host + Connection: 40
        self.assertEqual(statuses(self.head(fields)), [200])
        r = self.head(fields + b"X-G: v\r\n")
        self.assertEqual(statuses(r), [431])
        self.assertIn(b"too many header fields", r)
        r = self.head(b"User-Agent: " + b"u" * 3600 + b"\r\nCookie: " + b"c" * 3600 + b"\r\n")
        self.assertEqual(statuses(r), [431])
        self.assertIn(b"request head too large", r)

    def test_a_refusal_after_a_keep_alive_request(self):
        """The second request of a connection is judged as the first: after the first one's
        answer (sent apart), or behind it (pipelined, where lws' own bound answers)."""
        srv = h.shared()
        long_ = b"GET /" + b"a" * 3000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
        s = socket.create_connection((srv.host, srv.port), timeout=5)
        try:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            first = b""
            while not first.endswith(b"ok"):
                first += s.recv(4096)
            s.sendall(long_)
            rest = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                rest += b
        finally:
            s.close()
        self.assertEqual(statuses(first) + statuses(rest), [200, 414])
        r = raw_http(srv, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" + long_)
        self.assertEqual(statuses(r), [200, 414])

    def test_only_the_clients_own_files_are_served(self):
        """clients/web holds a README: the web root serves a web client's kinds of file only."""
        srv = h.shared()
        self.assertTrue(os.path.exists(os.path.join(h.ROOT, "clients", "web", "README.md")))
        self.assertEqual(request(srv, "GET", "/README.md")[0], 404)
        for path in ("/", "/index.html", "/js/main.js", "/style.css", "/favicon.svg"):
            self.assertEqual(request(srv, "GET", path)[0], 200, path)

    def test_player_pages_are_served_in_place(self):
        """/players/NAME and /ladder are the web root's players.html and ladder.html, served
        in place (no redirect: a cluster's /n/NODE/ prefix stays); a nested or odd name is 404
        and no dot segment climbs out of the root."""
        srv = h.shared()
        _, _, players = request(srv, "GET", "/players.html")
        _, _, ladder = request(srv, "GET", "/ladder.html")
        self.assertIn(b"js/ranks.js", players)
        for path in ("/players/Ann", "/players/bot.strong", "/players/a_b-9"):
            s, headers, body = request(srv, "GET", path)
            self.assertEqual((s, body), (200, players), path)
            self.assertTrue(headers.get("content-type", "").startswith("text/html"), path)
        s, _, body = request(srv, "GET", "/ladder")
        self.assertEqual((s, body), (200, ladder))
        for path in ("/players/Ann/games", "/players/", "/players", "/players/.x", "/ladder/2p",
                     "/players/a%20b", "/players/" + "x" * 41):
            self.assertEqual(request(srv, "GET", path)[0], 404, path)
        # dot segments are removed first: these are /etc/passwd and /index.html
        self.assertEqual(request(srv, "GET", "/players/%2e%2e/%2e%2e/etc/passwd")[0], 404)
        _, _, index = request(srv, "GET", "/index.html")
        self.assertEqual(request(srv, "GET", "/players/../index.html")[2], index)

    def test_control_bytes_in_the_path_are_400(self):
        for path in ("/%00", "/index.html%0a", "/index.html%0d", "/%00?a=b", "/js/main.js%0a"):
            self.assertEqual(self.get(path), [400], path)
        # Where lws itself gives up (a NUL after a segment's first byte), the connection closes
        # without an answer: never a 200.
        for path in ("/x%00", "/api/rooms%00"):
            self.assertNotIn(200, self.get(path), path)
        self.assertEqual(self.get("/%zz"), [403])  # lws: a bad percent escape

    def test_dot_segments_are_removed_before_routing(self):
        """lws removes dot segments (RFC 3986 5.2.4) after percent-decoding; `..` never climbs
        above the root. So /js/../index.html is /index.html, and /.. is /."""
        srv = h.shared()
        _, _, index = request(srv, "GET", "/index.html")
        for path in ("/..", "/a/..", "/%2e%2e", "/js/../index.html", "/../../index.html",
                     "/./index.html"):
            s, _, body = request(srv, "GET", path)
            self.assertEqual((s, body), (200, index), path)
        s, _, js = request(srv, "GET", "/js/main.js")
        self.assertEqual(request(srv, "GET", "/x/../js/%2e/main.js")[2], js)
        self.assertEqual(request(srv, "GET", "/.hidden")[0], 404)

    def test_a_request_with_a_body_is_refused_and_closed(self):
        """Transfer-Encoding with Content-Length, two Content-Lengths, or any body on a GET: 400
        and the connection is closed, so the body is never read as a second request."""
        srv = h.shared()
        smuggled = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        for head in (b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n" % len(smuggled),
                     b"Content-Length: %d\r\nContent-Length: 3\r\n" % len(smuggled),
                     b"Transfer-Encoding: chunked\r\n",
                     b"Content-Length: %d\r\n" % len(smuggled)):
            r = raw_http(srv, b"GET / HTTP/1.1\r\nHost: x\r\n" + head + b"\r\n" + smuggled)
            self.assertEqual(statuses(r), [400], head)
            self.assertIn(b"connection: close", r.lower())
        r = raw_http(srv, b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
                     b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        self.assertEqual(statuses(r), [200, 200])


if __name__ == "__main__":
    unittest.main()
