/* record.h (protocol): the game record (PROTOCOL.md "Game records") as JSON text.
 *
 * proto_record_load() turns a record document into the fixed-size struct
 * carc_record of common/record.h; proto_record_dump() turns it back into text
 * with the keys in canonical order, so that load(dump(r)) == r byte for byte.
 * The parser is strict: every unknown key and every bad value is an error that
 * names its field path. */
#ifndef PROTO_RECORD_H
#define PROTO_RECORD_H

#include <stddef.h>

/* The engine's record.h shares this file's name: a plain "record.h" here would
 * include this file again, so name the other one by its directory. */
#include "record.h"
#include "perror.h"

#define PROTO_RECORD_FORMAT "carcassonne-game/1"
/* Default size cap: a full 116-tile record, pretty-printed, is about 30 KiB. */
#define PROTO_RECORD_MAX_BYTES (1u << 20)

#define PROTO_DUMP_PRETTY 0x01 /* indent by 2; default is one compact line */

/* Decode the record in text[0..len) into *rec (fully overwritten, zeroed first).
 * max_len caps len (0 means PROTO_RECORD_MAX_BYTES); nesting depth is bounded by
 * jansson's parser (2048) and duplicate keys are rejected.
 * Defaults: sets ["base"], start "BA.D", options {siege_escape: siege-tile,
 * farmers: true}, meeple.kind "normal". With neither seed nor deck, seed is 0
 * (has_seed stays 0, so dump writes no seed either). With both, the deck is the
 * draw order (PROTOCOL.md "Game records") and the seed is kept only to be written back.
 * An escape names its knight's tile by position; the record itself says which
 * tile lies there (the start tile at (0,0), else the first move at that
 * position up to this one), so its feature is resolved here into eseg. Replay
 * fails anyway, at or before this move, wherever that reading is wrong.
 * Returns 0, or CARC_E_JSON (syntax, duplicate key), CARC_E_RECORD (unknown
 * key, wrong type, bad value, size), CARC_E_ROT, CARC_E_FEATURE, CARC_E_SETS,
 * CARC_E_DECK, CARC_E_PLAYERS, CARC_E_ESCAPE, CARC_E_NOMEM, with err filled
 * (err->move = index for fields inside moves[i]). */
int proto_record_load(const char *text, size_t len, size_t max_len, struct carc_record *rec,
                      struct proto_error *err);

/* Encode rec as JSON text in canonical key order (format, sets, options,
 * players, start, seed, deck, moves; tile, x, y, rot, meeple, escape).
 * meeple is written as null when absent, escape only when present.
 * On success *out is a malloc'd NUL-terminated string the caller frees with
 * free(). Returns 0, or CARC_E_INVAL (a value of rec cannot be written: field
 * named in err) or CARC_E_NOMEM; *out is then NULL. */
int proto_record_dump(const struct carc_record *rec, unsigned flags, char **out,
                      struct proto_error *err);

/* The engine move for record move i in the current state of g: a copy with
 * player = g->current, after checking that i exists, the game is not over and
 * an escape's tile type is the one the record implied at load time.
 * Returns 0, CARC_E_INVAL (i out of range), CARC_E_OVER or CARC_E_ESCAPE. */
int proto_record_move(const struct carc_record *rec, int i, const struct carc_game *g,
                      struct carc_move *out, struct proto_error *err);

/* Tile type that rec puts at (x, y) by the end of move `upto` (the start tile
 * at (0,0), else the first of moves[0..upto] there), or -1 when none. */
int proto_record_tile_at(const struct carc_record *rec, int upto, int x, int y);

/* ---- one move alone (record_move.c) ----
 * A running room stores each move as the text of one element of a record's
 * "moves" (store/store.h), and rebuilds its record from them at start. */

/* Read text[0..len), one record move, into rec->moves[rec->nmoves] and count
 * it (rec->nmoves + 1): checked as proto_record_load checks moves[i] (an
 * escape names a tile that rec->start or the moves before it put there).
 * Returns 0, or CARC_E_JSON, CARC_E_RECORD (also: rec already holds
 * CARC_MAX_MOVES moves), CARC_E_ROT, CARC_E_FEATURE, CARC_E_ESCAPE with err
 * filled; rec->nmoves is then unchanged. */
int proto_record_move_load(const char *text, size_t len, struct carc_record *rec,
                           struct proto_error *err);

/* rec->moves[i] (i < rec->nmoves; an escape's tile is read from rec->start
 * and moves[0..i]) as compact JSON text, exactly as proto_record_dump writes
 * it inside "moves". On success *out is malloc'd (the caller frees it).
 * Returns 0, or CARC_E_INVAL (no such move, a value out of range) or
 * CARC_E_NOMEM with err filled; *out is then NULL. */
int proto_record_move_dump(const struct carc_record *rec, int i, char **out,
                           struct proto_error *err);

#endif
