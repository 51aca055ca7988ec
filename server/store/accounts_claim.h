/* store/accounts_claim.h: a guest's seat of a room no node holds any more
 * (its game finished or abandoned, the room closed after room-ttl, admin or
 * stale-room) made an account's in the store (POST /api/me/claim; the
 * accounts service runs it, players/accounts_claim.c). BLOCKS, like
 * everything in store/accounts.h: the thread pool only. */
#ifndef CARCD_STORE_ACCOUNTS_CLAIM_H
#define CARCD_STORE_ACCOUNTS_CLAIM_H

#include "store/accounts.h"

/* What one stored seat's claim came to. */
enum store_claim {
    STORE_CLAIM_DONE = 0,   /* seats.account set (and the account's game linked) */
    STORE_CLAIM_NO_SEAT,    /* no person's seat of that room has that token hash */
    STORE_CLAIM_OPEN,       /* the room is not closed: a node holds it and writes its seats */
    STORE_CLAIM_TAKEN,      /* the seat belongs to another account */
    STORE_CLAIM_ALREADY,    /* ... to this one */
    STORE_CLAIM_OTHER_SEAT, /* the account holds another seat of the room */
};

/* In one transaction of a: the seat of room `room` (a room id) whose
 * seats.token_hash is token_hash (SHA-256 hex of the seat's token), when its
 * room is closed (rooms.closed = 1) and it belongs to no account, gets
 * seats.account = account; when the room's game had started (rooms.phase
 * >= 1) the row (room, seat, account, rooms.created) is added to
 * account_games (kept when there already). *outcome (enum store_claim) and
 * *seat (its index for DONE, TAKEN and ALREADY, else -1) say what happened.
 * 0, or STORE_E_ARGS (an empty or too long room id, a hash not of 64
 * characters, account <= 0) or STORE_E_DB: nothing changed. */
int store_seat_claim(struct store_accounts *a, const char *room, const char *token_hash,
                     long long account, int *outcome, int *seat);

#endif
