#!/usr/bin/env bash
# deploy/check-layers.sh [BUILD]: enforce the layer and size rules of README.md "Layout"
# (`make check-layers`). The rules live in deploy/check_layers.py (its header says them all):
#
#   common/ includes only standard C headers and common/; protocol/ only protocol/ and common/;
#   jansson only under protocol/; uv.h, sqlite3.h only under server/ (uv.h also tests/);
#   libwebsockets.h only under server/net/, libpq-fe.h only server/store/, hiredis only
#   server/cluster/; server/store/ never names room_ or lobby_ functions.
#   server/ folders are layers, lowest first, and a file includes (and, with BUILD/obj/server/
#   objects given, calls: nm) only its own folder or lower floors, never the other folder of
#   its floor; no include circle between folders; at most 7 floors, at most 4 .c/.h files
#   directly under server/ ("main"):
#
#       util < conn, metrics < store, cluster < game, players, notify, analysis < http < net < main
#
#   No .c/.h file over 800 lines; no function over 100 lines in common/, protocol/, server/,
#   clients/ (but main of the CLI tools protocol/tools/carc_*.c, clients/bot/carc_*.c).
#   CHECK_LAYERS_SIZES=0 skips the size rules.
#
# Prints file:line: reason for each violation on stderr and exits 1 if there was any.
set -euo pipefail
exec /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/check_layers.py" "$@"
