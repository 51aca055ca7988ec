#!/usr/bin/env python3
"""tests/fuzz/seeds.py OUT: seed corpora for the fuzz harnesses, from the tests' data.

  OUT/corpus-msg/     every JSON object of protocol/PROTOCOL.md's examples and of
                      tests/data/protocol/golden/ (client and server messages)
  OUT/corpus-record/  the records of tests/data/games/ and tests/data/record/{valid,invalid}/
  OUT/corpus-room/    message scripts (tests/fuzz/fuzz_room.c's line format): the client
                      messages one by one, and whole games between two and three clients
  OUT/json.dict       libFuzzer dictionary: every key and short string of those documents

Generated on every `make fuzz`; nothing here is committed. The inputs that once crashed a
harness live in tests/data/fuzz/NAME/ and are replayed by `make fuzz` as they are.
"""
import hashlib
import json
import os
import re
import sys


def client_types():
    """The client message types of protocol/msg_types.h (its PROTO_CLIENT_TYPES table); run from
    the repository's root, as the rest of this script."""
    with open(os.path.join("protocol", "msg_types.h"), encoding="utf-8") as f:
        m = re.search(r"^#define PROTO_CLIENT_TYPES\(X\)((?:.*\\\n)*.*)$", f.read(), re.M)
    return set(re.findall(r'\bX\(\s*[A-Z][A-Z0-9_]*\s*,\s*"([a-z_]+)"\s*\)', m.group(1)))


def objects(text):
    """Every top-level JSON object in text (prose, fences and tables around them)."""
    dec = json.JSONDecoder()
    i = 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError:
            i += 1
            continue
        if isinstance(obj, dict):
            yield obj
        i = end


def put(folder, data):
    if isinstance(data, str):
        data = data.encode()
    os.makedirs(folder, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def strings(v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            out.add(k)
            strings(x, out)
    elif isinstance(v, list):
        for x in v:
            strings(x, out)
    elif isinstance(v, str) and len(v) <= 24:
        out.add(v)


def main():
    out = sys.argv[1]
    msgs = []
    with open("protocol/PROTOCOL.md", encoding="utf-8") as f:
        msgs += [o for o in objects(f.read()) if "type" in o]
    golden = "tests/data/protocol/golden"
    for name in sorted(os.listdir(golden)):
        with open(os.path.join(golden, name), encoding="utf-8") as f:
            msgs += [o for o in objects(f.read()) if "type" in o]
    for m in msgs:
        put(os.path.join(out, "corpus-msg"), compact(m))

    records = []
    games = "tests/data/games"
    for name in sorted(os.listdir(games)):
        with open(os.path.join(games, name), encoding="utf-8") as f:
            records.append(compact(json.load(f)["record"]))
    for kind in ("valid", "invalid"):
        folder = os.path.join("tests/data/record", kind)
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                records.append(f.read())
    for r in records:
        put(os.path.join(out, "corpus-record"), r)

    words = set()
    for m in msgs:
        strings(m, words)
    for r in records:
        try:
            strings(json.loads(r), words)
        except ValueError:
            pass
    with open(os.path.join(out, "json.dict"), "w", encoding="utf-8") as f:
        for w in sorted(words):
            quoted = json.dumps(w, ensure_ascii=True)
            f.write('"%s"\n' % quoted.replace("\\", "\\\\").replace('"', '\\"'))
        for w in ("@R", "null", "true", "false", "-1", "90", "180", "270", "\\u0000"):
            f.write('"%s"\n' % w.replace("\\", "\\\\"))

    room = os.path.join(out, "corpus-room")
    types = client_types()
    client = [m for m in msgs if m.get("type") in types]
    for m in client:
        if "room" in m:
            m = dict(m, room="@R")
        put(room, "0" + compact(m) + "\n")
    create = '{"v":2,"type":"create","id":1,"name":"Ann","seats":%d,"sets":%s%s}'
    join = '{"v":2,"type":"join","id":2,"room":"@R","name":"%s"}'
    for seats, sets, extra, moves in (
            (2, '["base"]', "", 30),
            (3, '["base","inns-cathedrals","besiegers"]', "", 40),
            (2, '["base"]', ',"clock":{"initial":5,"increment":0,"on_timeout":"skip"}', 12),
            (2, '["base","apothecaries-tithes","cathars"]',
             ',"options":{"farmers":false,"siege_escape":"any-tile"}', 40),
            (3, '["base"]', ',"options":{"farms":"first","small_city":2,"seat_order":"random"}',
             40)):
        lines = ["0" + create % (seats, sets, extra)]
        lines += ["%d" % c + join % n for c, n in ((1, "Bob"), (2, "Cy"))[:seats - 1]]
        lines += ['3{"v":2,"type":"watch","room":"@R"}', '0{"v":2,"type":"start"}']
        for i in range(moves):
            lines.append("%d!%d%s" % (i % seats, i % 7, "" if i % 3 else str(i % 4)))
            if i % 9 == 4:
                lines.append('1{"v":2,"type":"chat","text":"hi"}')
            if i % 11 == 6:
                lines.append("+")
        lines += ['3{"v":2,"type":"sync","seq":3}', '1{"v":2,"type":"history","id":6}',
                  "1~", '1{"v":2,"type":"leave"}', "+"]
        put(room, "\n".join(lines) + "\n")

    # rxguard: a read size, an upgrade request, then masked frames (and, last, an unmasked one).
    head = (b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")

    def frame(n, masked=True):
        ln = bytes([n]) if n < 126 else bytes([126]) + n.to_bytes(2, "big")
        return bytes([0x81, (0x80 if masked else 0) | ln[0]]) + ln[1:] + \
            (b"\x11\x22\x33\x44" if masked else b"") + b"x" * n
    guard = os.path.join(out, "corpus-rxguard")
    for step in (0, 1, 7, 64):
        put(guard, bytes([step]) + head + frame(20) + frame(300) + frame(0))
        put(guard, bytes([step]) + head + frame(20) + frame(5, masked=False))


if __name__ == "__main__":
    main()
