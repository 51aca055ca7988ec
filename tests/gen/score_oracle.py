#!/usr/bin/python3
"""Independent scoring oracle for carcd game records.

Written from RULES.md (docs/rules.md) only (tile catalogue of section 3 and 6.2, rules of
sections 2, 4, 5, 6) plus the rulings listed in common/README.md ("Rulings where RULES.md is
silent"): scoring order within a turn (roads and cities, then cloisters, then tithe barns),
escape at the very end of the turn, herbs on a tie to the mover, farmers=false.
It shares no code with the engine.

Usage:
    score_oracle.py [--rules RULES.md] RECORD.json          print per-move and final scores
    score_oracle.py --compare [--replay build/carc-replay] RECORD.json...
        run carc-replay on each record and report the first move where the scores differ.

    score_oracle.py --selftest
        check the worked examples of RULES.md section 7 and section-6 cases on bare positions.

A record may also be a wrapper {"record": {...}, "expect": {...}} (the BGA games); then the
expected scores are checked too. --compare also flags moves the oracle finds illegal (meeple
on an occupied feature, empty supply, farmer with farmers off, invalid escape) as warnings.
Exit status: 1 if any record disagrees (REFUSED = the engine rejects the record itself).
Game.stats counts rare cases a game exercised (herb ties, tithes, barns on one farm, ...).
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_RULES = os.path.join(HERE, "..", "..", "docs", "rules.md")

HEAD = re.compile(r"^\s*([A-Z]{2}\.[A-Z0-9]{1,2})\s+x(\d+)\s+edges\s+([CRF]{4})\b")
SEG = re.compile(r"^\s*([crf])(\d+)\s*=\s*(.*)$")
SLOTS = {"Nw": 0, "Ne": 1, "En": 2, "Es": 3, "Se": 4, "Sw": 5, "Ws": 6, "Wn": 7}
EDGE = {"N": 0, "E": 1, "S": 2, "W": 3}
STEP = [(0, -1), (1, 0), (0, 1), (-1, 0)]
SET_PREFIX = {"BA": "base", "IC": "inns-cathedrals", "BS": "besiegers", "CA": "cathars",
              "SG": "siege", "AT": "apothecaries-tithes"}


class Seg:
    __slots__ = ("name", "kind", "edges", "slots", "pennants", "cathedral", "siege",
                 "apothecary", "inn", "touches", "barn")

    def __init__(self, name, kind):
        self.name = name
        self.kind = kind          # 'c', 'r', 'f'
        self.edges = []           # list of edge indexes (c, r)
        self.slots = []           # list of slot indexes (f)
        self.pennants = 0
        self.cathedral = False
        self.siege = False
        self.apothecary = 0
        self.inn = False
        self.touches = []         # names of on-tile cities (f)
        self.barn = False         # a tithe barn lies in this field


class Tile:
    def __init__(self, tid, count, edges):
        self.id = tid
        self.count = count
        self.edgestr = edges
        self.segs = {}            # name -> Seg
        self.cloister = False
        self.barn = False
        self.barn_fields = []


def load_tiles(path):
    tiles = {}
    cur = None
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
                cur = None
                continue
            if not in_code:
                continue
            m = HEAD.match(line)
            if m:
                cur = Tile(m.group(1), int(m.group(2)), m.group(3))
                assert cur.id not in tiles, cur.id
                tiles[cur.id] = cur
                continue
            if cur is None:
                continue
            s = line.strip()
            if s.startswith("what:"):
                continue
            if s.startswith("CLOISTER"):
                cur.cloister = True
                continue
            if s.startswith("BARN"):
                cur.barn = True
                cur.barn_fields = re.findall(r"f\d+", s)
                continue
            m = SEG.match(line)
            if not m:
                if s:
                    raise SystemExit("unparsed line in %s: %r" % (cur.id, line))
                continue
            kind, num, rest = m.group(1), m.group(2), m.group(3)
            seg = Seg(kind + num, kind)
            flags = re.findall(r"\[([^\]]*)\]", rest)
            flagtxt = " ".join(flags)
            body = re.sub(r"\[[^\]]*\]", "", rest)
            if kind == "c":
                seg.edges = [EDGE[t] for t in body.split() if t in EDGE]
                seg.pennants = len(re.findall(r"pennant", flagtxt))
                seg.cathedral = "CATHEDRAL" in flagtxt
                seg.siege = "SIEGE" in flagtxt
                seg.apothecary = len(re.findall(r"APOTHECARY", flagtxt))
            elif kind == "r":
                first = body.split()[0]
                seg.edges = [EDGE[t] for t in first.split("-")]
                seg.inn = "INN" in flagtxt
            else:
                main = body.split(";")[0]
                mm = re.search(r"\{0x([0-9A-Fa-f]+)\}", main)
                mask = int(mm.group(1), 16)
                seg.slots = [SLOTS[t] for t in re.findall(r"\b(Nw|Ne|En|Es|Se|Sw|Ws|Wn)\b",
                                                          main.split("{")[0])]
                assert sum(1 << i for i in seg.slots) == mask, (cur.id, line)
                tm = re.search(r"touches\s+([c0-9,\s]+)", body)
                if tm:
                    seg.touches = re.findall(r"c\d+", tm.group(1))
            assert seg.name not in cur.segs, (cur.id, seg.name)
            cur.segs[seg.name] = seg
    # consistency checks: edges vs edge string
    for t in tiles.values():
        for d in range(4):
            k = t.edgestr[d]
            owners = [s for s in t.segs.values() if s.kind in "cr" and d in s.edges]
            if k == "C":
                assert len(owners) == 1 and owners[0].kind == "c", (t.id, d)
            elif k == "R":
                assert len(owners) == 1 and owners[0].kind == "r", (t.id, d)
            else:
                assert not owners, (t.id, d)
            fo = [s for s in t.segs.values() if s.kind == "f" and (2 * d in s.slots or 2 * d + 1 in s.slots)]
            if k == "C":
                assert not fo, (t.id, d)
            else:
                for sl in (2 * d, 2 * d + 1):
                    assert len([s for s in fo if sl in s.slots]) == 1, (t.id, d, sl)
        for fn in t.barn_fields:
            t.segs[fn].barn = True
    return tiles


def facing_slot(i):
    d = i // 2
    o = (d + 2) % 4
    return 2 * o + (1 - i % 2)


class Game:
    def __init__(self, tiles, rec):
        self.tiles = tiles
        self.rec = rec
        self.sets = rec.get("sets", ["base"])
        opts = rec.get("options", {}) or {}
        self.farmers = opts.get("farmers", True)
        self.escape_rule = opts.get("siege_escape", "siege-tile")
        self.farm_rule = opts.get("farms", "third")      # RULES.md 2.8
        self.small_city = opts.get("small_city", 4) == 2  # RULES.md 2.8
        self.n = len(rec["players"])
        self.scores = [0] * self.n
        self.herbs = [0] * self.n
        self.herbs_left = 5
        self.board = {}           # pos -> (tile, q)
        self.parent = {}
        self.meeples = []         # [player, pos, segname, strength]
        self.supply = [7] * self.n
        self.large = [1 if "inns-cathedrals" in self.sets else 0] * self.n
        self.warnings = []
        self.log = []             # per-move event text
        self.stats = {}           # coverage counters (what rare cases a game exercised)
        self.place(rec.get("start", "BA.D"), 0, 0, 0)

    def count(self, key):
        self.stats[key] = self.stats.get(key, 0) + 1

    # ---- union-find over (pos, segname)
    def find(self, a):
        p = self.parent
        while p[a] != a:
            p[a] = p[p[a]]
            a = p[a]
        return a

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def seg_at(self, pos, name):
        t, q = self.board[pos]
        return t.segs[name]

    def rot_edges(self, seg, q):
        return [(e + q) % 4 for e in seg.edges]

    def rot_slots(self, seg, q):
        return [(s + 2 * q) % 8 for s in seg.slots]

    def place(self, tid, x, y, q):
        pos = (x, y)
        assert pos not in self.board, ("occupied", pos)
        t = self.tiles[tid]
        self.board[pos] = (t, q)
        for name in t.segs:
            self.parent[(pos, name)] = (pos, name)
        for d in range(4):
            dx, dy = STEP[d]
            npos = (x + dx, y + dy)
            if npos not in self.board:
                continue
            nt, nq = self.board[npos]
            o = (d + 2) % 4
            # edge kinds must match
            mine = t.edgestr[(d - q) % 4]
            theirs = nt.edgestr[(o - nq) % 4]
            if mine != theirs:
                self.warnings.append("edge mismatch at %s dir %d" % (pos, d))
            for s in t.segs.values():
                if s.kind in "cr" and d in self.rot_edges(s, q):
                    for ns in nt.segs.values():
                        if ns.kind == s.kind and o in self.rot_edges(ns, nq):
                            self.union((pos, s.name), (npos, ns.name))
                elif s.kind == "f":
                    for sl in self.rot_slots(s, q):
                        if sl // 2 != d:
                            continue
                        fs = facing_slot(sl)
                        for ns in nt.segs.values():
                            if ns.kind == "f" and fs in self.rot_slots(ns, nq):
                                self.union((pos, s.name), (npos, ns.name))

    # ---- feature queries
    def members(self, root):
        return [k for k in self.parent if self.find(k) == root]

    def groups(self):
        g = {}
        for k in self.parent:
            g.setdefault(self.find(k), []).append(k)
        return g

    def is_complete(self, mem):
        for (pos, name) in mem:
            t, q = self.board[pos]
            s = t.segs[name]
            for e in self.rot_edges(s, q):
                dx, dy = STEP[e]
                if (pos[0] + dx, pos[1] + dy) not in self.board:
                    return False
        return True

    def strength(self, mem):
        st = [0] * self.n
        ms = set(mem)
        for m in self.meeples:
            if (m[1], m[2]) in ms:
                st[m[0]] += m[3]
        return st

    @staticmethod
    def leaders(st):
        mx = max(st)
        if mx <= 0:
            return []
        return [i for i, v in enumerate(st) if v == mx]

    def return_meeples(self, mem):
        ms = set(mem)
        keep = []
        for m in self.meeples:
            if (m[1], m[2]) in ms:
                if m[3] == 2:
                    self.large[m[0]] += 1
                else:
                    self.supply[m[0]] += 1
            else:
                keep.append(m)
        self.meeples = keep

    def city_info(self, mem):
        tiles = set(p for p, _ in mem)
        pen = cath = sieg = apo = 0
        for (pos, name) in mem:
            s = self.seg_at(pos, name)
            pen += s.pennants
            cath |= s.cathedral
            sieg |= s.siege
            apo += s.apothecary
        return len(tiles), pen, bool(cath), bool(sieg), apo

    def city_points(self, mem, complete):
        ntiles, pen, cath, sieg, apo = self.city_info(mem)
        if complete:
            unit = 3 if cath else 2
            if sieg:
                unit -= 1
            if self.small_city and ntiles == 2:
                unit = min(unit, 1)  # 1st edition: a 2-tile city scores 1 a tile (RULES.md 2.8)
            return unit * (ntiles + pen)
        if cath or sieg:
            return 0
        return ntiles + pen

    def road_points(self, mem, complete):
        ntiles = len(set(p for p, _ in mem))
        inn = any(self.seg_at(p, n).inn for p, n in mem)
        if complete:
            return ntiles * (2 if inn else 1)
        return 0 if inn else ntiles

    def cloister_count(self, pos):
        c = 0
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if (pos[0] + dx, pos[1] + dy) in self.board:
                    c += 1
        return c

    def monk_at(self, pos):
        return [m for m in self.meeples if m[1] == pos and m[2] == "cloister"]

    # ---- a move
    def play(self, idx, mv):
        player = idx % self.n
        q = mv["rot"] // 90
        pos = (mv["x"], mv["y"])
        tid = mv["tile"]
        self.place(tid, pos[0], pos[1], q)
        t = self.tiles[tid]
        events = []
        mp = mv.get("meeple")
        if mp:
            feat = mp["feature"]
            kind = mp.get("kind", "normal")
            strength = 2 if kind == "large" else 1
            if feat == "cloister":
                if not t.cloister:
                    self.warnings.append("move %d: monk on a tile with no cloister" % idx)
            else:
                if feat not in t.segs:
                    self.warnings.append("move %d: no segment %s" % (idx, feat))
                else:
                    s = t.segs[feat]
                    if s.kind == "f" and not self.farmers:
                        self.warnings.append("move %d: farmer with farmers off" % idx)
                    root = self.find((pos, feat))
                    if any(self.find((m[1], m[2])) == root for m in self.meeples if m[2] != "cloister"):
                        self.warnings.append("move %d: meeple on occupied feature %s" % (idx, feat))
            if kind == "large":
                if self.large[player] <= 0:
                    self.warnings.append("move %d: no large meeple in supply" % idx)
                self.large[player] -= 1
            else:
                if self.supply[player] <= 0:
                    self.warnings.append("move %d: no meeple in supply" % idx)
                self.supply[player] -= 1
            self.meeples.append([player, pos, feat, strength])

        # 1. roads and cities touching the new tile
        roots = []
        for name, s in t.segs.items():
            if s.kind in "cr":
                r = self.find((pos, name))
                if r not in roots:
                    roots.append(r)
        groups = self.groups()
        for r in roots:
            mem = groups[r]
            if not self.is_complete(mem):
                continue
            kind = self.seg_at(*r).kind
            st = self.strength(mem)
            win = self.leaders(st)
            if not win:
                continue
            if kind == "r":
                pts = self.road_points(mem, True)
                if len(set(p for p, _ in mem)) < len(mem):
                    self.count('road-tile-twice')
                for w in win:
                    self.scores[w] += pts
                events.append(("road", r, pts, win))
            else:
                pts = self.city_points(mem, True)
                ntiles, pen, cath, sieg, apo = self.city_info(mem)
                for w in win:
                    self.scores[w] += pts
                    if apo:
                        self.scores[w] += 10
                if apo:
                    who = win[0] if len(win) == 1 else player
                    if len(win) > 1:
                        self.count('herb-tie' + ('-mover-outside' if player not in win else ''))
                    if apo > self.herbs_left:
                        self.count('herbs-run-out')
                    give = min(apo, self.herbs_left)
                    self.herbs[who] += give
                    self.herbs_left -= give
                if cath and sieg:
                    self.count('city-cathedral-besieged')
                if len(set(p for p, _ in mem)) < len(mem):
                    self.count('city-tile-twice')
                events.append(("city", r, pts, win, apo))
            self.return_meeples(mem)
        # 2. cloisters around the new tile
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                cp = (pos[0] + dx, pos[1] + dy)
                if cp not in self.board or not self.board[cp][0].cloister:
                    continue
                if self.cloister_count(cp) != 9:
                    continue
                monks = self.monk_at(cp)
                if monks:
                    st = self.strength([(cp, "cloister")])
                    win = self.leaders(st)
                    for w in win:
                        self.scores[w] += 9
                    events.append(("cloister", cp, 9, win))
                    self.return_meeples([(cp, "cloister")])
        # 3. tithe barns completed now
        for dx, dy in [(0, 0)] + STEP:
            bp = (pos[0] + dx, pos[1] + dy)
            if bp not in self.board or not self.board[bp][0].barn:
                continue
            area = [bp] + [(bp[0] + sx, bp[1] + sy) for sx, sy in STEP]
            if not all(a in self.board for a in area):
                continue
            self.score_barn(bp, area, events)
        # 4. escape
        esc = mv.get("escape")
        if esc:
            ep = (esc["x"], esc["y"])
            ef = esc["feature"]
            found = [m for m in self.meeples if m[0] == player and m[1] == ep and m[2] == ef]
            self.check_escape(idx, ep, ef)
            if found:
                m = found[0]
                if m[3] == 2:
                    self.count('escape-large')
                if m[1] == pos:
                    self.count('escape-same-turn-tile')
                self.meeples.remove(m)
                if m[3] == 2:
                    self.large[player] += 1
                else:
                    self.supply[player] += 1
                events.append(("escape", ep, ef))
        self.log.append(events)
        return list(self.scores)

    def farm_controllers(self, mem):
        st = self.strength(mem)
        return self.leaders(st)

    def score_barn(self, bp, area, events):
        st = [0] * self.n
        aset = set(area)
        for m in self.meeples:
            if m[1] in aset:
                st[m[0]] += m[3]
        t, q = self.board[bp]
        farm_roots = []
        for fn in t.barn_fields:
            r = self.find((bp, fn))
            if r not in farm_roots:
                farm_roots.append(r)
        groups = self.groups()
        if len(farm_roots) < len(t.barn_fields):
            self.count('barn-fields-same-farm')
        mx = max(st)
        top = [i for i, v in enumerate(st) if v == mx]
        if mx > 0 and len(top) == 1:
            w = top[0]
            pts = 10
            for r in farm_roots:
                if w in self.farm_controllers(groups[r]):
                    pts += 4
                    break
            self.scores[w] += pts
            self.count('barn-14' if pts == 14 else 'barn-10')
            events.append(("barn", bp, pts, [w]))
        else:
            losers = []
            for r in farm_roots:
                for c in self.farm_controllers(groups[r]):
                    self.scores[c] -= 14
                    losers.append(c)
            events.append(("tithe", bp, -14, losers))
            if len(losers) != len(set(losers)):
                self.count('tithe-double-loss')
            if losers:
                self.count('tithe-paid')

    def escape_problems(self, player, ep, ef):
        """Why the mover may not take back the follower at (ep, ef) now; [] if allowed."""
        found = [m for m in self.meeples if m[0] == player and m[1] == ep and m[2] == ef]
        if not found:
            return ["no follower of the mover there"]
        if ef == "cloister" or self.seg_at(ep, ef).kind != "c":
            return ["not a knight"]
        root = self.find((ep, ef))
        mem = self.members(root)
        sieg_tiles = set(p for p, n in mem if self.seg_at(p, n).siege)
        if not sieg_tiles:
            return ["city not besieged"]
        probs = []
        if self.is_complete(mem):
            probs.append("city complete")
        base = sieg_tiles if self.escape_rule == "siege-tile" else set(p for p, _ in mem)
        ok = False
        for p in base:
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    cp = (p[0] + dx, p[1] + dy)
                    if (dx or dy) and cp in self.board and self.board[cp][0].cloister:
                        ok = True
        if not ok:
            probs.append("no cloister next to the " + self.escape_rule)
        return probs

    def check_escape(self, idx, ep, ef):
        for pr in self.escape_problems(idx % self.n, ep, ef):
            self.warnings.append("move %d: escape: %s" % (idx, pr))

    def final_farms_first(self, groups, complete_city, events):
        """1st edition (RULES.md 2.8): each completed city gives 4 (8 besieged) to the players
        with the most farmers over all the farms touching it, each farm counted once."""
        farms_of = {}  # city root -> the farm roots touching it
        for r, mem in groups.items():
            if self.seg_at(*r).kind != "f":
                continue
            for (pos, name) in mem:
                for cn in self.seg_at(pos, name).touches:
                    farms_of.setdefault(self.find((pos, cn)), set()).add(r)
        for c, farms in farms_of.items():
            if not complete_city[c]:
                continue
            st = [0] * self.n
            for f in farms:
                for i, v in enumerate(self.strength(groups[f])):
                    st[i] += v
            win = self.leaders(st)
            if not win:
                continue
            if len(farms) > 1:
                self.count('farm-first-several-farms')
            sieg = any(self.seg_at(p, n).siege for p, n in groups[c])
            for w in win:
                self.scores[w] += 8 if sieg else 4
            events.append(("farm-city", c, 8 if sieg else 4, win))

    def final(self):
        events = []
        groups = self.groups()
        complete_city = {}
        for r, mem in groups.items():
            kind = self.seg_at(*r).kind
            if kind == "c":
                complete_city[r] = self.is_complete(mem)
        for r, mem in groups.items():
            kind = self.seg_at(*r).kind
            if kind == "f":
                continue
            st = self.strength(mem)
            win = self.leaders(st)
            if not win:
                continue
            if self.is_complete(mem):
                # should not happen: complete features were scored and emptied
                self.warnings.append("final: complete %s still occupied at %s" % (kind, r))
                continue
            if kind == "r":
                pts = self.road_points(mem, False)
            else:
                pts = self.city_points(mem, False)
                if pts == 0:
                    self.count('final-city-void')
            for w in win:
                self.scores[w] += pts
            events.append((kind, r, pts, win))
        for m in self.meeples:
            if m[2] == "cloister":
                pts = self.cloister_count(m[1])
                self.scores[m[0]] += pts
                events.append(("cloister", m[1], pts, [m[0]]))
        if self.farmers and self.farm_rule == "first":
            self.final_farms_first(groups, complete_city, events)
        elif self.farmers:
            scored = [set() for _ in range(self.n)]  # 2nd edition: cities each player scored
            for r, mem in groups.items():
                if self.seg_at(*r).kind != "f":
                    continue
                st = self.strength(mem)
                win = self.leaders(st)
                if not win:
                    continue
                cities = set()
                for (pos, name) in mem:
                    s = self.seg_at(pos, name)
                    for cn in s.touches:
                        cities.add(self.find((pos, cn)))
                pts = 0
                for c in cities:
                    if complete_city[c]:
                        sieg = any(self.seg_at(p, n).siege for p, n in groups[c])
                        pts += 6 if sieg else 3
                        if sieg:
                            self.count('farm-besieged-city')
                        for w in win:
                            if self.farm_rule == "second":
                                if c in scored[w]:
                                    self.count('farm-city-again')
                                    continue
                                scored[w].add(c)
                                self.scores[w] += 6 if sieg else 3
                if self.farm_rule != "second":
                    for w in win:
                        self.scores[w] += pts
                events.append(("farm", r, pts, win))
        for i in range(self.n):
            self.scores[i] += 5 * self.herbs[i]
        self.log.append(events)
        return list(self.scores)


# ---- worked examples of RULES.md section 7, checked on bare positions (no placement history)
def _bare(tiles, n=2, farmers=True, variants=None):
    rec = {"players": [{}] * n, "sets": list(SET_PREFIX.values()), "moves": [],
           "options": dict({"farmers": farmers}, **(variants or {}))}
    g = Game(tiles, rec)
    g.board.clear()
    g.parent.clear()
    return g


def _example(tiles, placed, meeples, last=None, final=False, last_meeple=None, mover=0,
             variants=None):
    """placed: [(x, y, tile, rot_deg)]; meeples: [(player, x, y, feature, strength)];
    last: (x, y, tile, rot_deg) played as a move by player 0; variants: record options
    (farms, small_city). Returns the scores."""
    g = _bare(tiles, variants=variants)
    for x, y, tid, rot in placed:
        g.place(tid, x, y, rot // 90)
    for p, x, y, f, st in meeples:
        g.meeples.append([p, (x, y), f, st])
    if last:
        g.play(mover, {"tile": last[2], "x": last[0], "y": last[1], "rot": last[3],
                       "meeple": last_meeple})
    if final:
        g.final()
    assert not g.warnings, g.warnings
    return g.scores


def selftest(tiles):
    ring = [(-1, -1, "BA.V", 270), (0, -1, "BA.U", 0), (1, -1, "BA.V", 0), (-1, 0, "BA.U", 90),
            (0, 0, "BA.B", 0), (1, 0, "BA.U", 90), (-1, 1, "BA.V", 180), (0, 1, "BA.U", 0)]
    x01 = [(0, 0, "BA.X", 0), (1, 0, "IC.15", 0), (2, 0, "BA.U", 0), (3, 0, "BA.U", 0)]
    x02 = [(0, 0, "IC.01", 0), (1, 0, "BA.F", 0), (2, 0, "BA.E", 270), (-1, 0, "BA.F", 0),
           (-2, 0, "BA.E", 90), (0, -1, "BA.E", 180)]
    cases = [
        ("X01", _example(tiles, x01, [(0, 1, 0, "r1", 1)], (4, 0, "BA.W", 0)), [10, 0]),
        ("X01b", _example(tiles, x01, [(0, 1, 0, "r1", 1)], final=True), [0, 0]),
        ("X01c", _example(tiles, [(0, 0, "BA.X", 0), (1, 0, "BA.U", 0), (2, 0, "BA.U", 0), (3, 0, "BA.U", 0)],
                          [(0, 1, 0, "r1", 1)], final=True), [4, 0]),
        ("X02", _example(tiles, x02, [(0, 0, 1, "c1", 1)], (0, 1, "BA.E", 0)), [27, 0]),
        ("X02b", _example(tiles, [t for t in x02 if t[:2] != (2, 0)] + [(0, 1, "BA.E", 0)],
                          [(0, 0, 1, "c1", 1)], final=True), [0, 0]),
        ("X03", _example(tiles, [(0, 0, "BA.E", 90), (2, 0, "BA.E", 270)],
                         [(0, 0, 0, "c1", 2), (1, 2, 0, "c1", 1)], (1, 0, "BA.F", 0)), [8, 0]),
        ("X04", _example(tiles, [(-2, 0, "BA.E", 90), (-1, 0, "BA.F", 0), (0, -1, "BA.E", 180), (1, 0, "BA.E", 270)],
                         [(0, -2, 0, "c1", 2), (1, 0, -1, "c1", 1), (1, 1, 0, "c1", 1)], (0, 0, "BA.R", 0)), [12, 12]),
        ("X05", _example(tiles, [(0, 0, "CA.01", 0)], [(0, 0, 0, "f1", 1)], (0, -1, "BA.E", 180),
                         last_meeple={"feature": "c1", "kind": "normal"}, mover=1), [0, 2]),
        ("X05-final", _example(tiles, [(0, 0, "CA.01", 0), (0, -1, "BA.E", 180)], [(0, 0, 0, "f1", 1)],
                               final=True), [6, 0]),
        ("X05b", _example(tiles, [(0, 0, "BA.E", 0), (0, -1, "BA.E", 180)], [(0, 0, 0, "f1", 1)],
                          final=True), [3, 0]),
        ("X07", _example(tiles, [(0, 0, "BA.E", 90), (1, 0, "BA.G", 0), (3, 0, "BA.E", 270)],
                         [(1, 0, 0, "c1", 1), (0, 3, 0, "c1", 1)], (2, 0, "BA.F", 0)), [10, 10]),
        ("X08", _example(tiles, ring, [(0, 0, 0, "cloister", 1), (1, 0, -1, "r1", 1)], (1, 1, "BA.V", 90)), [9, 8]),
        ("X10", _example(tiles, [(0, 0, "BA.M", 0), (-1, 0, "BA.E", 90)], [(0, 0, 0, "c1", 1)], final=True), [3, 0]),
    ]
    # section 6 (this project's ruling) on bare positions
    cross = [(0, -1, "BA.B", 0), (0, 1, "BA.B", 0), (-1, 0, "BA.B", 0)]
    cases += [
        ("B1-barn10", _example(tiles, [(0, 0, "AT.06", 0)] + cross, [(0, -1, 0, "cloister", 1)],
                               (1, 0, "BA.B", 0)), [10, 0]),
        ("B2-barn14", _example(tiles, [(0, 0, "AT.06", 0)] + cross, [(0, 0, -1, "f1", 1)],
                               (1, 0, "BA.B", 0)), [14, 0]),
        ("B3-tithe", _example(tiles, [(0, 0, "AT.06", 0)] + cross, [(0, -1, 0, "cloister", 1), (1, 0, 1, "f1", 1)],
                              (1, 0, "BA.B", 0)), [0, -14]),
        ("B4-empty", _example(tiles, [(0, 0, "AT.06", 0)] + cross, [], (1, 0, "BA.B", 0)), [0, 0]),
        ("B5-onefarm", _example(tiles, [(0, 0, "AT.08", 0), (0, -1, "BA.B", 0), (0, 1, "BA.B", 0), (-1, 0, "BA.U", 0)],
                                [(0, 0, -1, "cloister", 1)], (1, 0, "BA.A", 90), last_meeple={"feature": "f1", "kind": "normal"}, mover=1), [0, -14]),
        ("B6-order", _example(tiles, [(0, 0, "AT.06", 0), (0, -1, "BA.B", 0), (0, 1, "BA.B", 0), (-1, 0, "BA.B", 0),
                                      (2, 0, "BA.E", 270)], [(1, -1, 0, "cloister", 1)], (1, 0, "BA.E", 90),
                              last_meeple={"feature": "c1", "kind": "normal"}), [4, 10]),
        ("A1-apoth", _example(tiles, [(0, -1, "BA.E", 180)], [], (0, 0, "AT.01", 0),
                              last_meeple={"feature": "c1", "kind": "normal"}, final=True), [19, 0]),
    ]
    # the rule variants of RULES.md 2.8, examples V01-V05 of section 7
    def v01(cap, farms):
        return _example(tiles, [(1, 0, "BA.F", 0), (0, 0, cap, 90), (2, 0, "BA.E", 270)],
                        [(0, 1, 0, "f1", 1), (0, 0, 0, "f1", 1), (1, 2, 0, "f1", 1)], final=True,
                        variants={"farms": farms})

    def v03(farms):
        return _example(tiles, [(0, 0, "BA.E", 0), (1, 0, "BA.E", 90), (2, 0, "BA.E", 270),
                                (0, -1, "BA.E", 180)],
                        [(0, 0, 0, "f1", 1), (1, 2, 0, "f1", 1), (0, 0, -1, "f1", 1)], final=True,
                        variants={"farms": farms})

    def v04(cap, small):
        return _example(tiles, [(0, 0, cap, 0)], [], (0, -1, "BA.E", 180),
                        last_meeple={"feature": "c1", "kind": "normal"}, mover=1,
                        variants={"small_city": 2 if small else 4})
    cases += [
        ("V01-3rd", v01("BA.E", "third"), [6, 3]),
        ("V01-2nd", v01("BA.E", "second"), [3, 3]),
        ("V01-1st", v01("BA.E", "first"), [4, 0]),
        ("V02-3rd", v01("CA.01", "third"), [12, 6]),
        ("V02-2nd", v01("CA.01", "second"), [6, 6]),
        ("V02-1st", v01("CA.01", "first"), [8, 0]),
        ("V03-3rd", v03("third"), [9, 3]),
        ("V03-2nd", v03("second"), [6, 3]),
        ("V03-1st", v03("first"), [8, 4]),
        ("V04", v04("BA.E", False), [0, 4]),
        ("V04-small", v04("BA.E", True), [0, 2]),
        ("V04-siege", v04("CA.01", True), [0, 2]),
        ("V05-small", _example(tiles, [(0, 0, "BA.E", 90), (1, 0, "BA.G", 0)], [(0, 0, 0, "c1", 1)],
                               (2, 0, "BA.E", 270), variants={"small_city": 2}), [6, 0]),
    ]
    # herb tie, mover outside the tie (3 players)
    g = _bare(tiles, 3)
    g.place("BA.E", -1, 0, 1)
    g.place("BA.E", 1, 0, 3)
    g.meeples += [[0, (-1, 0), "c1", 1], [1, (1, 0), "c1", 1]]
    g.play(2, {"tile": "AT.05", "x": 0, "y": 0, "rot": 0})
    after = list(g.scores)
    g.final()
    cases.append(("A2-herbtie", after + g.scores, [16, 16, 0, 16, 16, 5]))
    # only 5 herb tokens: six apothecary cities for player 0
    g = _bare(tiles)
    for k in range(6):
        g.place("BA.E", 3 * k, -1, 2)
        g.play(0, {"tile": "AT.01", "x": 3 * k, "y": 0, "rot": 0, "meeple": {"feature": "c1", "kind": "normal"}})
    g.final()
    cases.append(("A3-5herbs", g.scores, [6 * 14 + 25, 0]))
    bad = 0
    for name, got, want in cases:
        ok = got == want
        bad += not ok
        print("%-9s %s got %s want %s" % (name, "ok" if ok else "FAIL", got, want))
    return bad


def load_record(path):
    with open(path) as f:
        d = json.load(f)
    if "record" in d and "format" not in d:
        return d["record"], d.get("expect")
    return d, None


def run_oracle(tiles, rec):
    g = Game(tiles, rec)
    per = []
    for i, mv in enumerate(rec["moves"]):
        per.append(g.play(i, mv))
    fin = g.final()
    return per, fin, g


def run_replay(replay, path, rec):
    if rec is None:
        p = subprocess.run([replay, path], capture_output=True, text=True)
    else:
        p = subprocess.run([replay, "-"], input=json.dumps(rec), capture_output=True, text=True)
    per, fin, players = [], None, []
    for line in p.stdout.splitlines():
        d = json.loads(line)
        if "move" in d and "scores" in d:
            per.append(d["scores"])
            players.append(d.get("player"))
        elif "final" in d:
            fin = d["scores"] if d["final"] else "unfinished"
        elif "error" in d:
            return None, None, d
    return per, fin, players


def compare(tiles, path, replay, quiet=False):
    """(ok, lines). ok is None when the engine refuses the record (nothing to compare)."""
    out = []
    try:
        rec, expect = load_record(path)
    except ValueError as e:
        rec, expect = None, None
    wrapped = expect is not None
    eper, efin, players = run_replay(replay, path, rec if wrapped else None)
    if eper is None:
        out.append("replay error: %s" % players)
        return None, out
    if rec is None:
        out.append("oracle cannot read the record the engine accepts")
        return False, out
    try:
        per, fin, g = run_oracle(tiles, rec)
    except Exception as e:  # a record the engine accepts but the oracle cannot follow
        out.append("oracle error: %r" % e)
        return False, out
    if efin == "unfinished":
        fin = efin   # the record stops before the end: compare the moves only
    ok = True
    for i in range(max(len(per), len(eper))):
        a = per[i] if i < len(per) else None
        b = eper[i] if i < len(eper) else None
        if a != b:
            mv = rec["moves"][i] if i < len(rec["moves"]) else None
            out.append("move %d: oracle %s engine %s  move=%s oracle-events=%s" %
                       (i, a, b, json.dumps(mv), g.log[i] if i < len(g.log) else None))
            ok = False
            break
    if fin != efin:
        out.append("final: oracle %s engine %s  oracle-final-events=%s" % (fin, efin, g.log[-1]))
        ok = False
    if expect:
        sam = expect.get("scores_after_move")
        if sam:
            for i, s in enumerate(sam):
                if i < len(per) and per[i] != s:
                    out.append("expect move %d: oracle %s expected %s" % (i, per[i], s))
                    break
        if expect.get("final_applies", True) and expect.get("final") and fin != expect["final"]:
            out.append("expect final: oracle %s expected %s" % (fin, expect["final"]))
            ok = False
    for w in g.warnings:
        out.append("warning: " + w)
    return ok, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", default=DEFAULT_RULES)
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--replay", default=os.path.join(HERE, "..", "..", "build", "carc-replay"))
    ap.add_argument("--selftest", action="store_true", help="check RULES.md section 7 examples")
    ap.add_argument("records", nargs="*")
    a = ap.parse_args()
    tiles = load_tiles(a.rules)
    if a.selftest:
        sys.exit(1 if selftest(tiles) else 0)
    bad = 0
    for path in a.records:
        if a.compare:
            ok, out = compare(tiles, path, a.replay)
            print("%s %s" % ({True: "AGREE", False: "DISAGREE", None: "REFUSED"}[ok], path))
            for o in out:
                print("   ", o)
            bad += ok is False
        else:
            rec, _ = load_record(path)
            per, fin, g = run_oracle(tiles, rec)
            for i, s in enumerate(per):
                print(json.dumps({"move": i, "scores": s}))
            print(json.dumps({"final": True, "scores": fin}))
            for w in g.warnings:
                print("warning:", w, file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
