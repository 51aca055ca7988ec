/* event_json.h: engine events (struct carc_event) as JSON with readable
 * names, the JSON Lines of carc-replay, and a few readers of JSON text for
 * tools and tests, which may not include jansson.h themselves.
 *
 * An event object (keys appear only for the types named):
 *   {"type": "score"|"barn"|"escape"|"discard"|"herbs",
 *    "feature": "city"|"road"|"farm"|"cloister"             score
 *    "tile": "BA.X"                                          discard
 *    "tiles"                                                 score (not farms), barn
 *    "points", "scorers": [players]                          score, barn
 *    "pennants"                                              score of a city
 *    "cities", "besieged" (counts)                           score of a farm
 *    "farms", "tithe": bool                                  barn
 *    "x", "y", "segment": "c1"                               score, barn, escape
 *    "delta": [per player], "final": bool                    all but discard
 *    "returned": [per player]                                score, escape
 *    "inn", "cathedral", "besieged", "apothecary", "void": true   only when true
 *    "herbs_to": p, "herbs": n                               when herbs were given
 *    "herbs": n                                              herbs (tokens held)
 *    "large_back": [players]                                 when non-empty}
 */
#ifndef PROTO_EVENT_JSON_H
#define PROTO_EVENT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"

struct json_t; /* jansson's value; only protocol/ code may look inside */

/* A new JSON object for ev, read against g (player count, and the tile at the
 * event's position to name its segment). The caller owns the reference
 * (json_decref). NULL when out of memory. */
struct json_t *proto_event_new(const struct carc_game *g, const struct carc_event *ev);

/* 1 for an event of end-game scoring (CARC_EVF_FINAL, or herb points). */
int proto_event_is_final(const struct carc_event *ev);

/* The scores of g's players (into scores[nplayers]) after the scoring of the
 * turn just played, without the end-game scoring that the last move also ran. */
void proto_event_turn_scores(const struct carc_game *g, int32_t *scores);

/* The same object as one line of compact JSON text (malloc'd, caller frees), or NULL. */
char *proto_event_dump(const struct carc_game *g, const struct carc_event *ev);

/* carc-replay's lines (PROTOCOL.md "Game records"), each malloc'd compact JSON without a
 * newline (caller frees), or NULL when out of memory.
 * move line: {"move","player","tile","scores","events"}; events = g->events
 *   of the last call except discards and end-game ones; scores[0..nplayers).
 * discard line: {"discard": id}.
 * end line: {"final": true, "scores", "events"} (the end-game events of the
 *   last call) when g is over, else {"final": false, "scores", "next":
 *   {"player", "tile"}}.
 * error line: {"error": {"move", "field", "code", "message"}}; "move" is
 *   left out when move < 0, "field" when field is NULL or "". */
char *proto_replay_move_line(const struct carc_game *g, int move, int player, int tile,
                             const int32_t *scores);
/* {"move": i, "player": p, "skip": "BA.U"}: a skipped turn (the tile went under the pile). */
char *proto_replay_skip_line(int move, int player, int tile);
char *proto_replay_discard_line(int tile);
char *proto_replay_end_line(const struct carc_game *g);
char *proto_replay_error_line(int move, const char *field, int code, const char *message);

/* Readers. path is dot-separated object keys and array indexes,
 * "expect.scores_after_move.3"; "" is the whole document.
 * proto_json_path_dump: the value at path as compact JSON (malloc'd, caller
 *   frees), or NULL when text is not JSON, path is missing, or no memory.
 * proto_json_path_ints: an array of integers into out[0..max); returns how
 *   many it holds (may exceed max), or a negative code (CARC_E_JSON, CARC_E_RECORD).
 * proto_json_path_int: one integer. proto_json_path_string: one string into buf
 *   (truncated to size - 1). Both return 0 or a negative code. */
char *proto_json_path_dump(const char *text, size_t len, const char *path);
int proto_json_path_ints(const char *text, size_t len, const char *path, long long *out, int max);
int proto_json_path_int(const char *text, size_t len, const char *path, long long *out);
int proto_json_path_string(const char *text, size_t len, const char *path, char *buf, size_t size);

#endif
