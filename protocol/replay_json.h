/* replay_json.h: a game record played through the engine, as the replay
 * document of GET /api/games/{id}/replay (PROTOCOL.md "Replays").
 *
 *   {"format": "carcd-replay/1", "id", "players": [names], "sets", "options",
 *    "closed": null | "room-ttl" | "stale-room",
 *    "start": {"tile", "x": 0, "y": 0, "rot": 0, "events": [discards of the first draw]},
 *    "moves": [{"move", "player", "tile", "skip", "x", "y", "rot", "meeple", "escape",
 *               "events", "scores", "meeples": [{"x", "y", "player", "feature", "kind"}]}],
 *    "final": {"over", "scores", "events"}}
 *
 * A move's "events" are the events of that move's delta (its "placed" or
 * "skip" event, then the engine events: scores, discards...) without the
 * end-of-game ones, which are "final.events"; its "scores" are the scores
 * after it without end-game scoring, so that every move's scores are the
 * previous ones plus the deltas of its events, and final.scores are the last
 * move's plus final.events' deltas. */
#ifndef PROTO_REPLAY_JSON_H
#define PROTO_REPLAY_JSON_H

#include <stddef.h>

#include "perror.h"

#define PROTO_REPLAY_FORMAT "carcd-replay/1"

/* Play the record text[0..len) (PROTOCOL.md "Game records", at most
 * PROTO_RECORD_MAX_BYTES) and write its replay document, with "id": id
 * (any UTF-8 string), into *out: malloc'd NUL-terminated compact JSON the
 * caller frees. Pure computation, no I/O: safe on any thread.
 * Returns 0, or a code of proto_record_load (the record is malformed), an
 * engine code (CARC_E_POSITION, CARC_E_OVER...: a move does not replay; err
 * names the move in err->move), or CARC_E_NOMEM; *out is then NULL and err
 * (may be NULL) holds the first failure. A record that stops before the end
 * (an abandoned game) is not an error: "final.over" is false. */
int proto_replay_encode(const char *id, const char *text, size_t len, char **out,
                        struct proto_error *err);

#endif
