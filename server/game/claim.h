/* claim.h: a guest's seat of a room running on this node made an account's
 * (POST /api/me/claim, server/http/claim_route.c; PROTOCOL.md "Seats of
 * accounts"). The route asks here first for each seat; a room this lobby
 * does not hold is the accounts service's to claim in the store
 * (players/accounts.h accounts_claim). */
#ifndef CARCD_GAME_CLAIM_H
#define CARCD_GAME_CLAIM_H

struct lobby;

/* What one seat's claim came to. */
enum lobby_claim {
    LOBBY_CLAIM_DONE = 0,   /* the seat is the account's now */
    LOBBY_CLAIM_AWAY,       /* no room of that id in this lobby */
    LOBBY_CLAIM_BAD_TOKEN,  /* no seat of the room has that token */
    LOBBY_CLAIM_TAKEN,      /* the seat belongs to another account */
    LOBBY_CLAIM_ALREADY,    /* the seat belongs to this account already */
    LOBBY_CLAIM_OTHER_SEAT, /* the account holds another seat of the room */
};

/* The seat of room `room` whose token is `token` (a NUL-terminated buffer of
 * PROTO_TOKEN_MAX bytes, compared by hash and without an early exit, as
 * `resume` does) becomes account's (> 0) when it belongs to no account: in
 * memory at once, and in the store with the room's next batch (the room is
 * marked changed). A room in its lobby is claimed too: its game, when it
 * starts, is the account's as for a seat taken signed in. A room whose game
 * has started (or ended) tells the lobby's account_game hook (the account's
 * games: accounts_game_link), dated by the room's creation. The seat's index
 * in *seat for DONE, ALREADY and TAKEN. The token is never logged. */
enum lobby_claim lobby_seat_claim(struct lobby *lb, const char *room, const char *token,
                                  long long account, int *seat);

#endif
