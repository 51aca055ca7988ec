#!/usr/bin/python3
"""deploy/check_layers.py: the layer and size rules of README.md "Layout" (`make check-layers`).

Run through deploy/check-layers.sh [BUILD]. Rules:

  common/    #include <...> only of standard C headers (COMMON_STD below; no time.h: no clock),
             #include "..." only of files in common/, no computed #include.
  protocol/  #include "..." only of files in protocol/ and common/ (it is built without -Iserver);
             in server/ and protocol/ too a "..." include names a file of the tree (<...> the
             system's), so that no include escapes the checks below.
  jansson    included only under protocol/.
  uv.h, sqlite3.h   included only under server/; uv.h also by tests/, whose server tests
             drive a real loop.
  libwebsockets.h   only under server/net/ (the network adapter).
  libpq-fe.h only under server/store/ (the PostgreSQL backend).
  hiredis    only under server/cluster/ (the Redis client).
  sodium.h   only under server/players/ (password hashes, tokens).
  openssl/   only under server/notify/ (Web Push's cryptography) and tests/ (which check it).
  server/store/ never names a room_ or lobby_ function (not even in a comment).

  server/ is in folders that are layers, lowest first (a floor may hold several folders):

      util < conn, metrics < store, cluster < game, players, notify, analysis < http < net < main

  ("main": the files directly under server/). Every #include "..." in server/ is resolved as
  the compiler does (beside the file, then -Icommon -Iprotocol -Iserver; a name found under
  two of those is an error) and may point only into the file's own folder, a lower floor,
  protocol/ or common/: never up, never sideways into the other folder of its floor. The
  folder graph of the real includes must have no circle; its longest chain (the floors of
  server/, counting main) is at most 7, and at most 4 .c/.h files lie directly under server/.

  Calls: given a build directory holding objects under BUILD/obj/server/, each undefined
  symbol of an object is looked up (nm) among the others; the object defining it must lie in
  the caller's folder or lower, by the same order. Without objects that check is skipped.

  Sizes: no .c/.h file over 800 lines; no function body over 100 lines in common/, protocol/,
  server/, clients/ and tests/, except main of the command-line tools (protocol/tools/carc_*.c,
  clients/bot/carc_*.c). The code is clang-formatted in Linux brace style: a function body
  runs from a `{` at column 0 to the next `}` at column 0. CHECK_LAYERS_SIZES=0 skips the size
  rules (tests/layers/run.sh uses it on a tree whose sizes are being fixed).

Scans tracked and untracked (not ignored) .c/.h files, skipping build/ and node_modules/.
Prints file:line: reason for each violation on stderr, and exits 1 if there was any.
"""

import os
import re
import subprocess
import sys

# Floors of server/, lowest first; folders on one floor may not include each other.
FLOORS = [["util"], ["conn", "metrics"], ["store", "cluster"], ["game", "players", "notify", "analysis"],
          ["http"], ["net"],
          ["main"]]
FLOOR_OF = {folder: i for i, names in enumerate(FLOORS) for folder in names}
MAX_FLOORS = 7
MAX_MAIN_FILES = 4
MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 100
FUNCTION_AREAS = ("common/", "protocol/", "server/", "clients/", "tests/")
# -I order of the Makefile: CARC_CFLAGS has -Icommon -Iprotocol, the server's XCFLAGS -Iserver.
INCLUDE_ROOTS = {"server": ["common", "protocol", "server"],
                 "protocol": ["common", "protocol"],
                 "common": ["common"]}

# stdatomic.h: the bots' search (common/bot.h) is stopped by a flag another thread sets.
COMMON_STD = set("""assert.h ctype.h errno.h float.h inttypes.h limits.h math.h stdalign.h
stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdio.h stdlib.h string.h""".split())

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*(.*)$')
NAME_RE = re.compile(r'^([<"])([^>"]*)[>"]')
CLI_MAIN_RE = re.compile(r'^(protocol/tools|clients/bot)/carc_[^/]*\.c$')
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "__attribute__",
            "_Alignas", "_Static_assert", "__typeof__", "typeof"}

errors = []


def fail(path, line, reason):
    errors.append((path, line, reason))
    print(f"{path}:{line}: {reason}" if line else f"{path}: {reason}", file=sys.stderr)


def list_files():
    """Tracked and untracked-not-ignored .c/.h files (every file when not in git)."""
    names = None
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, check=True).stdout.strip()
        if os.path.realpath(top) == os.path.realpath("."):
            out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                  "--exclude-standard"], capture_output=True, check=True).stdout
            names = [n for n in out.decode("utf-8", "replace").split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        pass
    if names is None:
        names = []
        for root, dirs, files in os.walk("."):
            dirs[:] = [d for d in dirs if d not in (".git", "build", "node_modules")]
            names += [os.path.relpath(os.path.join(root, f), ".") for f in files]
    keep = set()
    for name in names:
        parts = name.split("/")
        if "build" in parts[:-1] or "node_modules" in parts[:-1]:
            continue
        if name.endswith((".c", ".h")) and os.path.isfile(name):
            keep.add(name)  # isfile: tracked but deleted in the work tree
    return sorted(keep)


def read_lines(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace").splitlines()


def server_folder(path):
    """The layer of a file under server/: its first folder, or "main" directly under it."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else "main"


def resolve(path, name):
    """Where the compiler finds #include "name" of path: a list (several: ambiguous)."""
    beside = os.path.normpath(os.path.join(os.path.dirname(path), name))
    if os.path.isfile(beside):
        return [beside]
    area = path.split("/")[0]
    found = []
    for root in INCLUDE_ROOTS.get(area, []):
        cand = os.path.normpath(os.path.join(root, name))
        if os.path.isfile(cand) and cand not in found:
            found.append(cand)
    return found


def order_reason(src, dst):
    """Why folder src may not use folder dst, or None when it may."""
    if src == dst:
        return None
    fs, fd = FLOOR_OF.get(src), FLOOR_OF.get(dst)
    if fs is None or fd is None:
        return None  # reported once as an unknown folder
    if fd > fs:
        return f"{src}/ is below {dst}/"
    if fd == fs:
        return f"{src}/ and {dst}/ share a floor"
    return None


def check_includes(files, graph):
    """Every include rule; fills graph[(src, dst)] with the include lines making each edge."""
    for path in files:
        area = path.split("/")[0]
        for lineno, text in enumerate(read_lines(path), 1):
            m = INCLUDE_RE.match(text)
            if not m:
                continue
            arg = m.group(1).strip()
            nm = NAME_RE.match(arg)
            if not nm:
                if area == "common":
                    fail(path, lineno, f"computed #include not allowed in common/: {arg}")
                continue
            delim, name = nm.group(1), nm.group(2)
            base = name.rsplit("/", 1)[-1]
            check_library(path, lineno, area, name, base)
            if area == "common" and delim == "<" and name not in COMMON_STD:
                fail(path, lineno, f"common/ may include only standard C headers, not <{name}>")
            if delim != '"':
                continue
            found = resolve(path, name)
            if len(found) > 1:
                fail(path, lineno, f"\"{name}\" is ambiguous: {' and '.join(found)}")
            target = found[0] if found else None
            if area == "common" and not (target or "").startswith("common/"):
                where = f"not \"{name}\" ({target})" if target else f"\"{name}\" not found there"
                fail(path, lineno, f"common/ may include only files in common/: {where}")
            if area == "protocol" and target and not target.startswith(("protocol/", "common/")):
                fail(path, lineno, f"protocol/ may include only protocol/ and common/, "
                                   f"not \"{name}\" ({target})")
            if area in ("server", "protocol") and not target:
                fail(path, lineno, f"\"{name}\" is not a file of the tree (beside it or under "
                                   f"{', '.join(INCLUDE_ROOTS[area])}/): use <{name}> for a "
                                   f"system header")
            if area == "server" and target:
                check_server_include(path, lineno, name, target, graph)


def check_library(path, lineno, area, name, base):
    if "jansson" in name and area != "protocol":
        fail(path, lineno, f"only protocol/ may include jansson: {name}")
    if (base == "uv.h" or name.startswith("uv/")) and area not in ("server", "tests"):
        fail(path, lineno, f"only server/ and tests/ may include {name}")
    if base in ("sqlite3.h", "sqlite3ext.h") and area != "server":
        fail(path, lineno, f"only server/ may include {name}")
    if base in ("libpq-fe.h", "libpq-int.h") and not path.startswith("server/store/"):
        fail(path, lineno, f"only server/store/ may include {name}")
    if (name.startswith("hiredis/") or base == "hiredis.h") \
            and not path.startswith("server/cluster/"):
        fail(path, lineno, f"only server/cluster/ may include {name}")
    if (base == "sodium.h" or name.startswith("sodium/")) \
            and not path.startswith("server/players/"):
        fail(path, lineno, f"only server/players/ may include {name}")
    if name.startswith("openssl/") \
            and not path.startswith(("server/notify/", "tests/")):
        fail(path, lineno, f"only server/notify/ (and tests/) may include {name}")
    if (base == "libwebsockets.h" or name.startswith("libwebsockets/")) \
            and not path.startswith("server/net/"):
        fail(path, lineno, f"only server/net/ (the network adapter) may include {name}")


def check_server_include(path, lineno, name, target, graph):
    if not target.startswith(("server/", "protocol/", "common/")):
        fail(path, lineno, f"server/ may include only server/, protocol/ and common/, "
                           f"not \"{name}\" ({target})")
        return
    if not target.startswith("server/"):
        return
    src, dst = server_folder(path), server_folder(target)
    if src != dst:
        graph.setdefault((src, dst), []).append(f"{path}:{lineno}")
    reason = order_reason(src, dst)
    if reason:
        fail(path, lineno, f"includes \"{name}\" ({target}): {reason} "
                           f"(order: {order_text()})")


def order_text():
    return " < ".join("|".join(names) for names in FLOORS)


def find_cycles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    succ = {n: sorted({d for (s, d) in edges if s == n}) for n in nodes}
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return comps, succ


def cycle_path(start, comp, succ):
    """A shortest circle from start through its component: folders, first == last."""
    inside = set(comp)
    prev, queue = {start: None}, [start]
    while queue:  # breadth first from start until an edge leads back to it
        v = queue.pop(0)
        for w in succ[v]:
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w in inside and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [start]


def check_graph(files, graph):
    """Circles between folders and the number of floors; returns (floors, chain)."""
    nodes = {server_folder(f) for f in files if f.startswith("server/")}
    for (s, d) in graph:
        nodes.update((s, d))
    comps, succ = find_cycles(nodes, graph)
    comp_of = {n: n for n in nodes}
    for comp in comps:
        seen = set()
        for start in comp:  # a shortest circle through each folder of it, each told once
            cyc = cycle_path(start, comp, succ)
            if frozenset(zip(cyc, cyc[1:])) in seen:
                continue
            seen.add(frozenset(zip(cyc, cyc[1:])))
            ups = [i for i, (a, b) in enumerate(zip(cyc, cyc[1:])) if order_reason(a, b)]
            if ups:  # told at the include that goes against the order: the one to remove
                cyc = cyc[ups[0]:-1] + cyc[:ups[0]] + [cyc[ups[0]]]
            hops = "; ".join(f"{a} -> {b}: {graph[(a, b)][0]}" for a, b in zip(cyc, cyc[1:]))
            where, line = graph[(cyc[0], cyc[1])][0].rsplit(":", 1)
            fail(where, line, f"include circle between folders: {' -> '.join(cyc)} ({hops})")
        for n in comp:
            comp_of[n] = "|".join(comp)
    # Longest chain over the graph with each circle taken as one node.
    csucc = {}
    for (s, d) in graph:
        if comp_of[s] != comp_of[d]:
            csucc.setdefault(comp_of[s], set()).add(comp_of[d])
    memo = {}

    def longest(c):
        if c not in memo:
            best = [c]
            for d in sorted(csucc.get(c, ())):
                chain = [c] + longest(d)
                if len(chain) > len(best):
                    best = chain
            memo[c] = best
        return memo[c]

    chain = max((longest(c) for c in sorted(set(comp_of.values()))), key=len, default=[])
    return len(chain), chain


def check_folders(files):
    for path in files:
        if path.startswith("server/") and server_folder(path) not in FLOOR_OF:
            fail(path, 1, f"server/{server_folder(path)}/ is not a layer of server/ "
                          f"(order: {order_text()}; add it in deploy/check_layers.py)")
    main_files = [f for f in files if f.startswith("server/") and f.count("/") == 1]
    if len(main_files) > MAX_MAIN_FILES:
        for path in main_files:
            fail(path, 1, f"{len(main_files)} source files directly under server/ "
                          f"(max {MAX_MAIN_FILES}): {' '.join(main_files)}")
    return main_files


def check_calls(build, files):
    """nm over BUILD/obj/server: no object uses a symbol defined in a higher folder."""
    objroot = os.path.join(build, "obj", "server")
    objs = []
    for root, _, names in os.walk(objroot):
        objs += sorted(os.path.join(root, n) for n in names if n.endswith(".o"))
    if not objs:
        print(f"check-layers: call check skipped: no objects under {objroot}/ (build first)")
        return
    sources = set(files)
    source_of, stale, old = {}, 0, 0
    for obj in objs:
        src = "server/" + os.path.relpath(obj, objroot)[:-2] + ".c"
        if src in sources:
            source_of[obj] = src
            old += os.path.getmtime(obj) < os.path.getmtime(src)
        else:
            stale += 1  # left by a file since moved or deleted
    out = subprocess.run(["nm", "-P", "-A"] + sorted(source_of), capture_output=True,
                         text=True, check=True).stdout
    defined, undefined = {}, []
    for line in out.splitlines():
        obj, _, rest = line.partition(": ")
        fields = rest.split()
        if len(fields) < 2 or obj not in source_of:
            continue
        sym, kind = fields[0], fields[1]
        if kind == "U":
            undefined.append((source_of[obj], sym))
        elif kind.isupper() or kind in "vw":
            defined.setdefault(sym, []).append(source_of[obj])
    count = 0
    for src, sym in undefined:
        for dst in defined.get(sym, []):
            if order_reason(server_folder(src), server_folder(dst)):
                fail(src, None, f"calls {sym} defined in {dst}: "
                             f"{order_reason(server_folder(src), server_folder(dst))}")
        count += 1
    note = f"; {stale} object(s) without a source skipped" if stale else ""
    note += f"; {old} object(s) older than their source (build again)" if old else ""
    shown = os.path.relpath(objroot)
    shown = objroot if shown.startswith("..") else shown
    print(f"check-layers: calls checked: {count} undefined symbol(s) in "
          f"{len(source_of)} object(s) under {shown}/{note}")


def function_name(lines, brace):
    """The name of the function whose body opens at lines[brace], and its line (1-based)."""
    i = brace - 1
    start = brace
    while i >= 0:
        t = lines[i].rstrip()
        if not t or t.startswith(("#", "}", "//", "/*", "* ", "*/")) \
                or t.endswith((";", "}", "*/")):
            break  # the end of what came before the signature
        start = i
        i -= 1
    text = " ".join(lines[start:brace])
    for m in re.finditer(r'([A-Za-z_]\w*)\s*\(', text):
        if m.group(1) not in KEYWORDS:
            return m.group(1), start + 1
    return "?", brace + 1


def check_sizes(files):
    for path in files:
        lines = read_lines(path)
        if len(lines) > MAX_FILE_LINES:
            fail(path, MAX_FILE_LINES + 1, f"file is {len(lines)} lines (max {MAX_FILE_LINES})")
        if not path.startswith(FUNCTION_AREAS):
            continue
        opened = None
        for i, text in enumerate(lines):
            if opened is None and text.startswith("{"):
                opened = i
            elif opened is not None and text.startswith("}"):
                body = i - opened - 1
                if body > MAX_FUNCTION_LINES:
                    name, line = function_name(lines, opened)
                    if not (name == "main" and CLI_MAIN_RE.match(path)):
                        fail(path, line, f"function {name} is {body} lines "
                                         f"(max {MAX_FUNCTION_LINES})")
                opened = None


def check_store_names(files):
    """The store never calls the rooms or the lobby (not even in a comment naming one)."""
    for path in files:
        if path.startswith("server/store/"):
            for lineno, text in enumerate(read_lines(path), 1):
                if "room_" in text or "lobby_" in text:
                    fail(path, lineno, f"server/store/ names a room or lobby function: {text}")


def main(argv):
    build = os.path.abspath(argv[1]) if len(argv) > 1 else None
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    files = list_files()
    graph = {}
    check_includes(files, graph)
    check_store_names(files)
    main_files = check_folders(files)
    floors, chain = check_graph(files, graph)
    if floors > MAX_FLOORS:
        fail("server/", None, f"{floors} floors (max {MAX_FLOORS}): {' > '.join(chain)}")
    if build:
        check_calls(build, files)
    else:
        print("check-layers: call check skipped: no build directory given (build first, "
              "then deploy/check-layers.sh BUILD)")
    sizes = os.environ.get("CHECK_LAYERS_SIZES", "1") != "0"
    if sizes:
        check_sizes(files)
    summary = (f"{len(files)} files; server/: {floors} floors ({' > '.join(chain)}), "
               f"{len(main_files)} files directly under it"
               + ("" if sizes else "; sizes not checked (CHECK_LAYERS_SIZES=0)"))
    if errors:
        print(f"check-layers: {len(errors)} violation(s) of the layer rules (README.md "
              f"\"Layout\"); {summary}", file=sys.stderr)
        return 1
    print(f"check-layers: ok ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
