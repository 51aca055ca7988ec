#!/usr/bin/env python3
"""Write the JSON Schemas of protocol v2 (PROTOCOL.md) into protocol/schema/.

Run from the repository root: python3 protocol/schema/gen.py
One schema per message type, draft 2020-12, each self-contained (no references between files),
so a validator needs no resolver: client/<type>.json, server/<type>.json, and
server/state-document.json for the state document alone. Tile ids and set names come from
common/tiles_data.c and common/tiles.c, so the schemas follow the catalogue.

The message types are those of protocol/msg_types.h, the C tables every other part uses: the
script stops without writing anything when its schemas name other messages than those tables.

What a schema cannot say, and only the C decoder checks: texts are limited in bytes (a schema
counts characters), a meeple's feature must exist on the played tile, duplicate keys.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "protocol", "schema")
DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://carcd.invalid/protocol/v2/"


def catalogue():
    with open(os.path.join(ROOT, "common", "tiles_data.c"), encoding="utf-8") as f:
        ids = re.findall(r'^\s*\{"([A-Z]{2}\.[A-Z0-9]+)", "', f.read(), re.M)
    with open(os.path.join(ROOT, "common", "tiles.c"), encoding="utf-8") as f:
        body = re.search(r"set_names\[CARC_SET_COUNT\] = \{(.*?)\};", f.read(), re.S).group(1)
    return ids, re.findall(r'"([a-z-]+)"', body)


def message_types():
    """The wire names of protocol/msg_types.h, per direction: the X(NAME, "wire") entries of the
    macros PROTO_CLIENT_TYPES and PROTO_SERVER_TYPES (each from its #define to the end of its
    continued lines)."""
    with open(os.path.join(ROOT, "protocol", "msg_types.h"), encoding="utf-8") as f:
        text = f.read()
    tables = {}
    for direction, macro in (("client", "PROTO_CLIENT_TYPES"), ("server", "PROTO_SERVER_TYPES")):
        m = re.search(r"^#define %s\(X\)((?:.*\\\n)*.*)$" % macro, text, re.M)
        if m is None:
            sys.exit("gen.py: no #define %s(X) in protocol/msg_types.h" % macro)
        names = re.findall(r'\bX\(\s*[A-Z][A-Z0-9_]*\s*,\s*"([a-z_]+)"\s*\)', m.group(1))
        if not names or len(set(names)) != len(names):
            sys.exit("gen.py: %s in protocol/msg_types.h: empty or repeated names: %s"
                     % (macro, names))
        tables[direction] = names
    return tables


TILE_IDS, SET_NAMES = catalogue()
assert len(TILE_IDS) > 60 and SET_NAMES[0] == "base", (len(TILE_IDS), SET_NAMES)
MESSAGE_TYPES = message_types()

# Shared pieces ---------------------------------------------------------------------------------
NO_CONTROL = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"
# A name also holds no bidirectional control, zero-width or other invisible character, format
# character or line break (protocol/name.c; the C decoder refuses the format characters outside
# the BMP as well), and is not blank.
NAME_PATTERN = ("^(?=.*[^ \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000])"
                "[^\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u0600-\\u0605\\u061c\\u06dd"
                "\\u070f\\u0890\\u0891\\u08e2\\u115f\\u1160\\u180e\\u200b-\\u200f\\u2028-\\u202e"
                "\\u2060-\\u206f\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb]*$")
NAME = {"type": "string", "minLength": 1, "maxLength": 32, "pattern": NAME_PATTERN,
        "description": "1 to 32 bytes of UTF-8, not blank, without control characters, "
                       "bidirectional controls, invisible or other format characters or line "
                       "breaks; the white space around it is trimmed"}
ROOM = {"type": "string", "pattern": "^[A-Za-z0-9]{1,16}$"}
TOKEN = {"type": "string", "pattern": "^[0-9a-f]{32}$"}
HEX64 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
SEQ = {"type": "integer", "minimum": 0, "maximum": 9007199254740992}
ID = {"oneOf": [{"type": "string", "maxLength": 61},
                {"type": "integer", "minimum": -9007199254740992, "maximum": 9007199254740992}],
      "description": "a string (at most 63 bytes as compact JSON) or an integer"}
REF = dict(ID, description="the id of the message this answers")
COORD = {"type": "integer", "minimum": -120, "maximum": 120}
ROT = {"enum": [0, 90, 180, 270]}
TILE = {"enum": TILE_IDS}
FEATURE = {"type": "string", "pattern": "^([crf][1-9][0-9]?|cloister)$"}
SET = {"enum": SET_NAMES}
SEAT = {"type": "integer", "minimum": 0, "maximum": 5}
PLAYERS_LIST = lambda n: {"type": "array", "items": {"type": "integer"}, "maxItems": n}


def obj(props, required=(), strict=True, **extra):
    s = {"type": "object", "properties": props, "required": list(required)}
    if strict:
        s["additionalProperties"] = False
    s.update(extra)
    return s


def message(direction, mtype, fields, required=(), title=None, **extra):
    props = {"v": {"const": 2}, "type": {"const": mtype}}
    if direction == "client":
        props["id"] = ID
    else:
        props["ref"] = REF
    props.update(fields)
    s = {"$schema": DRAFT, "$id": BASE + direction + "/" + mtype + ".json",
         "title": title or ("carcd v2 %s message: %s" % (direction, mtype))}
    s.update(obj(props, ["v", "type"] + list(required), **extra))
    return s


# Client messages -------------------------------------------------------------------------------
LEVEL = {"enum": ["random", "greedy", "strong"]}
POLICY = {"enum": ["bot", "skip", "forfeit"]}
TIME_ZONE = {"type": "string", "pattern": "^[A-Za-z0-9_+-][A-Za-z0-9/_+-]{0,62}$"}
CLOCK_ZONE_KEYS = {"weekend_pause": {"type": "boolean"}, "time_zone": TIME_ZONE}
# A bank clock (initial + increment) or a correspondence clock (per_move), PROTOCOL.md create.
CLOCK_SETTING = {"oneOf": [
    obj(dict({"initial": {"type": "integer", "minimum": 1, "maximum": 2592000},
              "increment": {"type": "integer", "minimum": 0, "maximum": 604800},
              "on_timeout": POLICY}, **CLOCK_ZONE_KEYS), ["initial", "increment", "on_timeout"]),
    obj(dict({"per_move": {"type": "integer", "minimum": 1, "maximum": 2592000},
              "on_timeout": POLICY}, **CLOCK_ZONE_KEYS), ["per_move", "on_timeout"])]}
ESCAPE = {"oneOf": [{"type": "null"},
                    obj({"x": COORD, "y": COORD, "feature": FEATURE}, ["x", "y", "feature"])]}
# A room's options (PROTOCOL.md create); the state and the rooms listing give every key.
OPTION_KEYS = {"farmers": {"type": "boolean"},
               "siege_escape": {"enum": ["siege-tile", "any-tile"]},
               "farms": {"enum": ["third", "second", "first"]},
               "small_city": {"enum": [4, 2]},
               "seat_order": {"enum": ["seated", "random"]}}
OPTIONS_DOC = obj(OPTION_KEYS, list(OPTION_KEYS))
CLIENT = {
    "list": message("client", "list", {}),
    "create": message("client", "create", {
        "name": NAME,
        "seats": {"type": "integer", "minimum": 2, "maximum": 6},
        "sets": {"type": "array", "items": SET, "uniqueItems": True},
        "options": obj(OPTION_KEYS),
        "private": {"type": "boolean"},
        "password": {"type": "string", "maxLength": 64, "pattern": NO_CONTROL},
        "clock": {"oneOf": [{"type": "null"}, CLOCK_SETTING]},
        "rated": {"type": "boolean"},
    }, ["name", "seats"],
        # Six seats need the large-meeple set (the engine's player limit).
        **{"if": {"properties": {"seats": {"const": 6}}, "required": ["seats"]},
           "then": {"properties": {"sets": {"contains": {"const": "inns-cathedrals"}}},
                    "required": ["sets"]}}),
    "join": message("client", "join", {
        "room": ROOM, "name": NAME,
        "password": {"type": "string", "maxLength": 64, "pattern": NO_CONTROL},
    }, ["room", "name"]),
    "resume": message("client", "resume", {"room": ROOM, "token": TOKEN, "seq": SEQ},
                      ["room"]),
    "watch": message("client", "watch", {"room": ROOM, "seq": SEQ}, ["room"]),
    "leave": message("client", "leave", {}),
    "start": message("client", "start", {}),
    "play": message("client", "play", {
        "tile": TILE, "x": COORD, "y": COORD, "rot": ROT,
        "meeple": {"oneOf": [{"type": "null"},
                             obj({"feature": FEATURE, "kind": {"enum": ["normal", "large"]}},
                                 ["feature"])]},
        "escape": ESCAPE,
    }, ["tile", "x", "y", "rot"]),
    "chat": message("client", "chat", {
        "text": {"type": "string", "minLength": 1, "maxLength": 280,
                 "pattern": "^[^\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f]*$"}}, ["text"]),
    "sync": message("client", "sync", {"seq": SEQ}),
    "ping": message("client", "ping", {}),
    "add_bot": message("client", "add_bot", {"level": LEVEL}, ["level"]),
    "remove_bot": message("client", "remove_bot", {"seat": SEAT}, ["seat"]),
    "history": message("client", "history", {}),
    "entropy": message("client", "entropy", {"data": HEX64}, ["data"]),
    "rematch": message("client", "rematch", {}),
}

# The state document ----------------------------------------------------------------------------
SEAT_DOC = obj({
    "name": {"type": ["string", "null"]},
    "taken": {"type": "boolean"},
    "connected": {"type": "boolean"},
    "bot": {"oneOf": [{"type": "null"}, LEVEL]},
    "autoplay": {"enum": [None, "left", "offline", "timeout", "idle", "forfeit"]},
    "entropy": {"type": "boolean"},
    "time_ms": {"type": ["integer", "null"], "minimum": 0},
    "score": {"type": "integer"},
    "meeples": {"type": "integer", "minimum": 0, "maximum": 7},
    "large": {"type": "integer", "minimum": 0, "maximum": 1},
    "herbs": {"type": "integer", "minimum": 0, "maximum": 5},
}, ["name", "taken", "connected", "bot", "autoplay", "entropy", "time_ms", "score", "meeples",
    "large", "herbs"])
MEEPLE_DOC = {"oneOf": [{"type": "null"},
                        obj({"player": SEAT, "feature": FEATURE,
                             "kind": {"enum": ["normal", "large"]}},
                            ["player", "feature", "kind"])]}
SPOT = obj({"x": COORD, "y": COORD, "feature": FEATURE}, ["x", "y", "feature"])
STATE_DOC = obj({
    "room": ROOM,
    "phase": {"enum": ["lobby", "playing", "over"]},
    "sets": {"type": "array", "items": SET, "uniqueItems": True, "minItems": 1,
             "prefixItems": [{"const": "base"}]},
    "options": OPTIONS_DOC,
    "rated": {"const": True},
    "host": SEAT,
    "seats": {"type": "array", "items": SEAT_DOC, "minItems": 1, "maxItems": 6},
    "clock": {"oneOf": [{"type": "null"}, obj({
        "initial": {"type": "integer", "minimum": 1}, "increment": {"type": "integer", "minimum": 0},
        "on_timeout": POLICY, "per_move": {"type": ["integer", "null"], "minimum": 1},
        "weekend_pause": {"type": "boolean"}, "time_zone": TIME_ZONE,
        "turn_started": {"type": ["integer", "null"], "minimum": 0},
        "deadline": {"type": ["integer", "null"], "minimum": 0}},
        ["initial", "increment", "on_timeout", "per_move", "weekend_pause", "time_zone",
         "turn_started", "deadline"])]},
    "commitment": {"oneOf": [{"type": "null"}, HEX64]},
    "turn": {"type": "integer", "minimum": 0},
    "current": {"oneOf": [{"type": "null"}, SEAT]},
    "tile": {"oneOf": [{"type": "null"}, TILE]},
    "tiles_left": {"type": "integer", "minimum": 0},
    "remaining": {"type": "object", "propertyNames": TILE,
                  "additionalProperties": {"type": "integer", "minimum": 1}},
    "herbs_left": {"type": "integer", "minimum": 0, "maximum": 5},
    "board": {"type": "object", "propertyNames": {"pattern": "^-?[0-9]{1,3},-?[0-9]{1,3}$"},
              "additionalProperties": obj({"tile": TILE, "rot": ROT, "meeple": MEEPLE_DOC},
                                          ["tile", "rot", "meeple"])},
}, ["room", "phase", "sets", "options", "host", "seats", "clock", "commitment", "turn", "current",
    "tile", "tiles_left", "remaining", "herbs_left", "board"])
# The mover's private list (the `legal` message), not part of the document since version 2.
LEGAL_LIST = {"type": "array", "items": obj({
    "x": COORD, "y": COORD, "rot": ROT,
    "meeples": {"type": "array", "items": FEATURE, "uniqueItems": True},
    "escapes": {"type": "array", "items": SPOT},
}, ["x", "y", "rot", "meeples", "escapes"])}

# Events ----------------------------------------------------------------------------------------
PER_PLAYER = {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 6}
SCORERS = {"type": "array", "items": SEAT, "uniqueItems": True, "maxItems": 6}
TRUE = {"const": True}
ENGINE_COMMON = {"x": {"type": "integer"}, "y": {"type": "integer"}, "segment": FEATURE,
                 "delta": PER_PLAYER, "final": {"type": "boolean"}, "large_back": SCORERS}
EVENTS = [
    obj({"type": {"const": "seat"}, "seat": SEAT, "name": {"type": ["string", "null"]},
         "taken": {"type": "boolean"}, "connected": {"type": "boolean"},
         "bot": {"oneOf": [{"type": "null"}, LEVEL]}},
        ["type", "seat", "name", "taken", "connected", "bot"]),
    obj({"type": {"const": "timeout"}, "seat": SEAT, "on_timeout": POLICY},
        ["type", "seat", "on_timeout"]),
    obj({"type": {"const": "skip"}, "player": SEAT, "tile": TILE}, ["type", "player", "tile"]),
    obj({"type": {"const": "autoplay"}, "seat": SEAT,
         "reason": {"enum": [None, "left", "offline", "timeout", "idle", "forfeit"]}},
        ["type", "seat", "reason"]),
    obj({"type": {"const": "start"},
         "players": {"type": "array", "items": {"type": ["string", "null"]}, "maxItems": 6}},
        ["type", "players"]),
    obj({"type": {"const": "placed"}, "player": SEAT, "tile": TILE, "x": COORD, "y": COORD,
         "rot": ROT,
         "meeple": {"oneOf": [{"type": "null"},
                              obj({"feature": FEATURE, "kind": {"enum": ["normal", "large"]}},
                                  ["feature", "kind"])]},
         "escape": ESCAPE},
        ["type", "player", "tile", "x", "y", "rot", "meeple", "escape"]),
    obj(dict(ENGINE_COMMON, **{
        "type": {"const": "score"}, "feature": {"enum": ["city", "road", "farm", "cloister"]},
        "tiles": {"type": "integer", "minimum": 0}, "pennants": {"type": "integer", "minimum": 0},
        "cities": {"type": "integer", "minimum": 0}, "besieged": {"type": ["integer", "boolean"]},
        "points": {"type": "integer"}, "scorers": SCORERS, "returned": PER_PLAYER,
        "inn": TRUE, "cathedral": TRUE, "apothecary": TRUE, "void": TRUE,
        "herbs_to": SEAT, "herbs": {"type": "integer", "minimum": 0}}),
        ["type", "feature", "points", "scorers", "x", "y", "delta", "returned", "final"]),
    obj(dict(ENGINE_COMMON, **{
        "type": {"const": "barn"}, "tiles": {"type": "integer", "minimum": 0},
        "farms": {"type": "integer", "minimum": 0}, "tithe": {"type": "boolean"},
        "points": {"type": "integer"}, "scorers": SCORERS,
        "inn": TRUE, "cathedral": TRUE, "besieged": TRUE, "apothecary": TRUE, "void": TRUE,
        "herbs_to": SEAT, "herbs": {"type": "integer", "minimum": 0}}),
        ["type", "tiles", "farms", "tithe", "points", "scorers", "x", "y", "delta", "final"]),
    obj(dict(ENGINE_COMMON, **{"type": {"const": "escape"}, "returned": PER_PLAYER}),
        ["type", "x", "y", "delta", "returned", "final"]),
    obj({"type": {"const": "discard"}, "tile": TILE}, ["type", "tile"]),
    obj({"type": {"const": "herbs"}, "delta": PER_PLAYER, "final": {"type": "boolean"},
         "herbs": {"type": "integer", "minimum": 1}, "large_back": SCORERS},
        ["type", "delta", "final", "herbs"]),
]
PATCH_OP = {"oneOf": [
    obj({"op": {"enum": ["add", "replace", "test"]}, "path": {"type": "string"}, "value": {}},
        ["op", "path", "value"]),
    obj({"op": {"const": "remove"}, "path": {"type": "string"}}, ["op", "path"]),
    obj({"op": {"enum": ["move", "copy"]}, "from": {"type": "string"},
         "path": {"type": "string"}}, ["op", "from", "path"]),
]}

SERVER = {
    "welcome": message("server", "welcome", {
        "server": {"type": "string"},
        "limits": obj({"message_bytes": {"type": "integer", "minimum": 1},
                       "messages_per_second": {"type": "integer", "minimum": 1},
                       "chat_bytes": {"type": "integer", "minimum": 1}},
                      ["message_bytes", "messages_per_second", "chat_bytes"]),
        "time": {"type": "integer", "minimum": 0},
    }, ["server", "limits", "time"]),
    "rooms": message("server", "rooms", {"rooms": {"type": "array", "items": obj({
        "room": ROOM, "seats": {"type": "integer", "minimum": 2, "maximum": 6},
        "taken": {"type": "integer", "minimum": 0, "maximum": 6},
        "phase": {"enum": ["lobby", "playing", "over"]},
        "sets": {"type": "array", "items": SET, "uniqueItems": True, "minItems": 1},
        "options": OPTIONS_DOC,
        "password": {"type": "boolean"}, "host": {"type": ["string", "null"]},
        "rated": {"const": True},
    }, ["room", "seats", "taken", "phase", "sets", "options", "password", "host"])}},
        ["rooms"]),
    "joined": message("server", "joined", {"room": ROOM, "seat": SEAT, "token": TOKEN},
                      ["room", "seat"]),
    "watching": message("server", "watching", {"room": ROOM}, ["room"]),
    "redirect": message("server", "redirect", {
        "room": ROOM, "node": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,32}$"},
        "path": {"type": "string", "pattern": "^/"},
        "retry_ms": {"type": "integer", "minimum": 0}}, ["room", "node", "path", "retry_ms"]),
    "left": message("server", "left", {}),
    "state": message("server", "state", {"seq": SEQ, "state": STATE_DOC}, ["seq", "state"]),
    "delta": message("server", "delta", {
        "seq": dict(SEQ, minimum=1),
        "events": {"type": "array", "items": {"oneOf": EVENTS}},
        "patch": {"type": "array", "items": PATCH_OP},
    }, ["seq", "events", "patch"]),
    "ack": message("server", "ack", {"seq": SEQ}, ["seq"]),
    "synced": message("server", "synced", {"seq": SEQ}, ["seq"]),
    "legal": message("server", "legal", {
        "seq": SEQ, "turn": {"type": "integer", "minimum": 0}, "player": SEAT, "tile": TILE,
        "legal": LEGAL_LIST}, ["seq", "turn", "player", "tile", "legal"]),
    "chat": message("server", "chat", {
        "seat": {"oneOf": [{"type": "null"}, SEAT]},
        "name": {"type": "string"}, "text": {"type": "string"}}, ["seat", "name", "text"]),
    "pong": message("server", "pong", {}),
    "rematch": message("server", "rematch", {
        "room": ROOM, "host": {"type": "string", "minLength": 1},
        "seat": {"oneOf": [{"type": "null"}, SEAT]}}, ["room", "host", "seat"]),
    "notice": message("server", "notice", {
        "text": {"type": "string", "minLength": 1},
        "room": ROOM}, ["text"]),
    "history": message("server", "history", {
        "turns": {"type": "array", "items": obj({
            "move": {"type": "integer", "minimum": 0}, "player": SEAT,
            "events": {"type": "array", "items": {"oneOf": EVENTS}, "minItems": 1}},
            ["move", "player", "events"])},
        "chat": {"type": "array", "items": obj({
            "seat": {"oneOf": [{"type": "null"}, SEAT]}, "name": {"type": "string"},
            "text": {"type": "string"}, "time": {"type": "integer", "minimum": 0}},
            ["seat", "name", "text", "time"])},
    }, ["turns", "chat"]),
    "error": message("server", "error", {
        "code": {"type": "string", "pattern": "^[a-z_]+$"}, "message": {"type": "string"},
    }, ["code", "message"]),
}
# Server messages are not replies when broadcast: no ref on delta and chat.
del SERVER["delta"]["properties"]["ref"]
del SERVER["chat"]["properties"]["ref"]
del SERVER["legal"]["properties"]["ref"]
del SERVER["notice"]["properties"]["ref"]
del SERVER["welcome"]["properties"]["ref"]

STATE_ONLY = dict({"$schema": DRAFT, "$id": BASE + "server/state-document.json",
                   "title": "carcd v2 public state document"}, **STATE_DOC)


for direction, schemas in (("client", CLIENT), ("server", SERVER)):
    if set(schemas) != set(MESSAGE_TYPES[direction]):
        sys.exit("gen.py: %s messages differ from protocol/msg_types.h: only in the table %s, "
                 "only in gen.py %s" % (direction,
                                        sorted(set(MESSAGE_TYPES[direction]) - set(schemas)),
                                        sorted(set(schemas) - set(MESSAGE_TYPES[direction]))))


def write(path, schema):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(schema, f, indent=2, ensure_ascii=False)
        f.write("\n")


for name, schema in CLIENT.items():
    write(os.path.join(OUT, "client", name + ".json"), schema)
for name, schema in SERVER.items():
    write(os.path.join(OUT, "server", name + ".json"), schema)
write(os.path.join(OUT, "server", "state-document.json"), STATE_ONLY)
