/* room_order.c: the seats among themselves: the play order of a room whose
 * options say seat_order "random" (room.h room_seat_order, PROTOCOL.md
 * start), and their names kept apart (room_name_seat). The order is a
 * function of the game's secret seed and public from the start: it gives
 * away at most log2(6!) < 10 of the seed's bits, which is why a salt keeps
 * it off the deck shuffle's own first draws. */
#include "game/room.h"

#include <stdio.h>
#include <string.h>

#include "name.h"
#include "rng.h"

int room_name_seat(const struct room *r, const char *name)
{
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].taken && proto_name_same(r->seats[i].name, name))
            return i;
    return -1;
}

const char *room_seat_name(const struct session *s, const char *name)
{
    return s->account > 0 && s->account_name[0] != '\0' ? s->account_name : name;
}

int room_account_seat(const struct room *r, long long account)
{
    for (int i = 0; account > 0 && i < r->nseats; i++)
        if (r->seats[i].taken && !r->seats[i].bot && r->seats[i].account == account)
            return i;
    return -1;
}

void room__seat_own(struct room *r, int i, const struct session *s, const char *name)
{
    struct room_seat *seat = &r->seats[i];
    snprintf(seat->name, sizeof seat->name, "%s", room_seat_name(s, name));
    seat->account = s->account > 0 ? s->account : 0;
}

void room_seat_order(uint64_t seed, int n, int *order)
{
    struct carc_rng rng;
    carc_rng_seed(&rng, seed ^ ROOM_SEAT_SALT);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)carc_rng_below(&rng, (uint32_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* The taken seats 0..nseats-1 put into play order (room_seat_order); the
 * host stays the same person. Every connected player hears its seat in a
 * `joined` (no token), queued before the start's delta. */
void room__seats_shuffle(struct room *r, uint64_t seed)
{
    int order[CARC_MAX_PLAYERS], host = r->host;
    struct room_seat old[CARC_MAX_PLAYERS];
    memcpy(old, r->seats, sizeof old);
    room_seat_order(seed, r->nseats, order);
    for (int k = 0; k < r->nseats; k++) {
        r->seats[k] = old[order[k]];
        if (r->seats[k].s != NULL)
            r->seats[k].s->seat = k;
        if (order[k] == host)
            r->host = k;
    }
    for (int k = 0; k < r->nseats; k++)
        if (r->seats[k].s != NULL)
            room__send_kind(r, r->seats[k].s, proto_encode_joined(r->id, k, NULL, ""),
                            ROOM_HELD_SAFE, NULL);
}
