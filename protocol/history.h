/* history.h: a room's game so far as one `history` message (PROTOCOL.md), so
 * that a client who reloads or watches late sees every turn's events and the
 * recent chat. Public information only: the turns are what the deltas told
 * (each move's placed or skip event and its engine events), never the draw
 * order. */
#ifndef PROTO_HISTORY_H
#define PROTO_HISTORY_H

#include "game.h"
#include "msg.h"

struct proto_chat_line {
    int seat; /* -1: a spectator */
    char name[PROTO_NAME_MAX];
    char text[PROTO_CHAT_MAX + 1];
    long long time; /* ms since 1970 */
};

/* {"v":1,"type":"history","ref"?,"turns":[{"move","player","events"}...],
 * "chat":[{"seat","name","text","time"}...]}: the game dealt by cfg (NULL:
 * the room is in the lobby, no turns) replayed through moves[0..nmoves).
 * malloc'd text, or NULL when out of memory or a move does not replay. */
char *proto_history_encode(const struct carc_config *cfg, const struct carc_move *moves, int nmoves,
                           const struct proto_chat_line *chat, int nchat, const char *ref);

#endif
