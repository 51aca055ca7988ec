/* err.h: the one table of status codes used by every layer of carcd.
 *
 * Functions return 0 on success or a negative CARC_E_* code. Each code has a
 * wire name (the `code` string of protocol errors and carc-replay output) and
 * a default human text; both come from this table so they cannot drift. */
#ifndef CARC_ERR_H
#define CARC_ERR_H

/* X(name, wire name, default text) */
#define CARC_ERRNO_MAP(X)                                                                          \
    X(INVAL, "bad_request", "invalid argument")                                                    \
    X(OVER, "game_over", "the game is over")                                                       \
    X(TURN, "not_your_turn", "it is not this player's turn")                                       \
    X(TILE, "wrong_tile", "the tile is not the one drawn")                                         \
    X(TAKEN, "position_taken", "a tile already lies at that position")                             \
    X(ADJACENT, "not_adjacent", "the tile must touch a placed tile along an edge")                 \
    X(EDGE, "edge_mismatch", "an edge does not match its neighbour")                               \
    X(ROT, "bad_rotation", "rotation must be 0, 90, 180 or 270")                                   \
    X(FEATURE, "unknown_feature", "the tile has no such feature")                                  \
    X(OCCUPIED, "feature_occupied", "that feature already holds a meeple")                         \
    X(NO_MEEPLE, "no_meeple_left", "no meeple of that kind is left in the supply")                 \
    X(NO_FARMERS, "farmers_off", "farmers are turned off in this game")                            \
    X(LARGE_SET, "large_meeple_unavailable", "large meeples need the inns-cathedrals set")         \
    X(ESCAPE, "illegal_escape", "that knight cannot escape")                                       \
    X(PLAYERS, "bad_player_count", "a game needs 2 to 5 players, or 6 with inns-cathedrals")       \
    X(SETS, "bad_sets", "unknown or unusable set")                                                 \
    X(DECK, "bad_deck", "the deck names a tile that is not in the game's sets")                    \
    X(RECORD, "bad_record", "the game record is malformed")                                        \
    X(JSON, "malformed_json", "the text is not valid JSON")                                        \
    X(NOMEM, "out_of_memory", "out of memory")                                                     \
    X(IO, "io_error", "input or output failed")                                                    \
    X(VERSION, "bad_version", "this server speaks protocol version 2")                             \
    X(TYPE, "unknown_type", "unknown message type")                                                \
    X(NO_ROOM, "no_such_room", "no room with that id")                                             \
    X(ROOM_FULL, "room_full", "every seat of the room is taken")                                   \
    X(PASSWORD, "wrong_password", "the room's password does not match")                            \
    X(TOKEN, "bad_token", "the seat token does not match any seat of the room")                    \
    X(NOT_HOST, "not_host", "only the host may do that")                                           \
    X(PHASE, "wrong_phase", "that message is not allowed in the room's current phase")             \
    X(SPECTATOR, "spectator", "spectators can watch but not act")                                  \
    X(NOT_IN_ROOM, "not_in_room", "join or watch a room first")                                    \
    X(IN_ROOM, "already_in_room", "this connection is already in a room")                          \
    X(NOT_ENOUGH, "not_enough_players", "a game needs at least two seated players")                \
    X(RATE, "rate_limited", "too many messages: slow down")                                        \
    X(TOO_BIG, "message_too_big", "the message is larger than the server accepts")                 \
    X(LIMIT, "limit_reached", "a server limit was reached")                                        \
    X(STORAGE, "storage_error", "the server could not store the move")                             \
    X(NOT_BOT, "not_a_bot", "that seat holds no bot")                                              \
    X(TIME_OUT, "time_out", "your time for this turn ran out")                                     \
    X(TOO_MANY_ROOMS, "too_many_rooms", "your address holds too many rooms in the lobby")          \
    X(NAME_TAKEN, "name_taken", "a seat of the room already has that name")                        \
    X(SIGN_IN, "sign_in_required", "only a signed-in player may take a seat of a rated room")

#define CARC__EPOS(name, wire, text) CARC__EPOS_##name,
enum { CARC__EPOS_OK = 0, CARC_ERRNO_MAP(CARC__EPOS) CARC__EPOS_COUNT };
#undef CARC__EPOS

#define CARC__ENEG(name, wire, text) CARC_E_##name = -CARC__EPOS_##name,
enum carc_errno { CARC_OK = 0, CARC_ERRNO_MAP(CARC__ENEG) };
#undef CARC__ENEG

/* A caller-owned error: the first failure's code and a human sentence. */
struct carc_error {
    int code;
    char text[160];
};

/* Wire name of a code ("edge_mismatch"); "ok" for 0, "unknown" for others. */
const char *carc_err_name(int code);
/* Default human text of a code. */
const char *carc_err_str(int code);
/* Code for a wire name, or 0 when unknown. */
int carc_err_from_name(const char *name);

/* Fill err (may be NULL) unless it already holds an error; returns code. */
int carc_error_set(struct carc_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
