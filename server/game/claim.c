/* claim.c: see claim.h. */
#include "game/claim.h"

#include "game/lobby.h"
#include "game/room.h"
#include "util/clock.h"
#include "util/log.h"

enum lobby_claim lobby_seat_claim(struct lobby *lb, const char *room, const char *token,
                                  long long account, int *seat)
{
    *seat = -1;
    struct room *r = lobby_room_find(lb, room);
    if (r == NULL)
        return LOBBY_CLAIM_AWAY;
    int i = room_token_seat(r, token);
    if (i < 0)
        return LOBBY_CLAIM_BAD_TOKEN;
    *seat = i;
    struct room_seat *st = &r->seats[i];
    if (st->account == account)
        return LOBBY_CLAIM_ALREADY;
    if (st->account != 0)
        return LOBBY_CLAIM_TAKEN;
    if (room_account_seat(r, account) >= 0) {
        *seat = -1;
        return LOBBY_CLAIM_OTHER_SEAT;
    }
    st->account = account;
    room__dirty(r); /* seats.account goes with the room's next batch */
    log_event(LOG_INFO, &(struct log_fields){.room = r->id, LOG_SEAT(i)},
              "a guest's seat claimed by account %lld", account);
    if (r->phase != PROTO_PHASE_LOBBY && lb->account_game != NULL) {
        long long when = r->created_ms > 0 ? (long long)r->created_ms : clock_wall_ms();
        lb->account_game(lb->account_game_arg, r->id, i, account, when);
    }
    return LOBBY_CLAIM_DONE;
}
