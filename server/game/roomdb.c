/* roomdb.c: rooms to plain rows and back (roomdb.h). */
#include "game/roomdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/fair_room.h"
#include "game/lobby.h"
#include "game/room.h"
#include "game/roomnode.h"
#include "json_str.h"
#include "record_json.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"

/* ---- a room to rows ---- */

_Static_assert(STORE_FAIR_TEXT == FAIR_ROOM_TEXT, "rooms.fair holds fair_room_text");

/* e's record, players, scores and status from r (a game that ended or is
 * abandoned). */
static void record_entry(struct store_room *e, const struct room *r, const char *status,
                         const char *closed)
{
    e->record = room_record_json(r, closed);
    e->status = status;
    char buf[1024];
    size_t n = 0;
    buf[n++] = '[';
    for (int i = 0; i < r->nseats; i++) {
        if (i > 0)
            buf[n++] = ',';
        proto_json_str_append(buf, sizeof buf, &n, r->seats[i].name);
    }
    buf[n++] = ']';
    buf[n] = '\0';
    e->players = mem_strdup(buf);
    n = (size_t)snprintf(buf, sizeof buf, "[");
    for (int i = 0; i < r->nseats; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", i ? "," : "",
                              (int)r->game->players[i].score);
    snprintf(buf + n, sizeof buf - n, "]");
    e->scores = mem_strdup(buf);
}

/* The fencing number of r's writes: its lease's in a cluster (0 there: the
 * lease is lost and nothing may be written; the room is being given up),
 * else 0, which the database does not check. Returns -1 for "write nothing". */
static int room_fence(const struct lobby *lb, const struct room *r, uint64_t *fence)
{
    *fence = lb->node != NULL ? roomnode_fence(lb->node, r) : 0;
    return lb->node != NULL && *fence == 0 ? -1 : 0;
}

/* r's rows into the batch being filled: the room, its taken seats, the moves
 * not handed to a batch yet, and its record once the game ended. */
static void snapshot(struct lobby *lb, struct room *r)
{
    struct store *st = lb->store;
    uint64_t fence;
    if (room_fence(lb, r, &fence) != 0) {
        r->dirty = 0; /* the lease's lost hook gives the room up */
        return;
    }
    struct store_room *e = store_row_add(st);
    e->fence = fence;
    snprintf(e->id, sizeof e->id, "%s", r->id);
    e->sets = (int)r->sets;
    e->no_farmers = r->no_farmers;
    e->escape_rule = r->escape_rule;
    e->nseats = r->nseats;
    e->priv = r->private_room;
    e->host = r->host;
    e->phase = r->phase;
    memcpy(e->pw, r->pw_hash, sizeof e->pw);
    e->seed = r->seed;
    e->deck_len = r->deck_len;
    if (r->deck_len > 0)
        memcpy(e->deck, r->deck, (size_t)r->deck_len);
    e->seq = r->seq;
    e->created = r->created_ms;
    e->updated = r->updated_ms;
    e->clock_initial = r->clock.initial;
    e->clock_increment = r->clock.increment;
    e->clock_policy = r->clock.on_timeout;
    e->clock_per_move = r->clock.per_move;
    snprintf(e->clock_zone, sizeof e->clock_zone, "%s", r->clock.time_zone);
    /* A per-move clock's turn goes on across a restart (turn_restart). */
    e->turn_wall = r->clock.per_move <= 0 ? 0 : r->turn_ms != 0 ? r->turn_wall : r->turn_wall_saved;
    e->variants = r->farm_rule | r->small_city << 2 | r->seat_random << 3 | r->rated << 4 |
                  (r->clock.weekend_pause != 0) << 5;
    fair_room_text(r, e->fair);
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].taken) {
            const struct room_seat *rs = &r->seats[i];
            struct store_seat *s = &e->seats[e->nseat++];
            s->idx = i;
            memcpy(s->name, rs->name, sizeof s->name);
            memcpy(s->hash, rs->token_hash, sizeof s->hash);
            s->bot = rs->bot;
            s->autoplay = rs->autoplay;
            s->forfeited = rs->forfeited;
            s->timeouts = rs->timeouts;
            s->clock_ms = rs->clock_ms;
            s->account = rs->account;
            s->vac_from = rs->vac_from;
            s->vac_until = rs->vac_until;
        }
    e->move_from = r->moves_saved;
    e->move_to = r->nmoves;
    if (e->move_to > e->move_from) {
        e->moves = mem_zalloc((size_t)(e->move_to - e->move_from), sizeof *e->moves);
        for (int i = e->move_from; i < e->move_to; i++) {
            char *text = room__move_text(r, i);
            /* Never for a move the engine took; "null" would not load back. */
            e->moves[i - e->move_from] = text != NULL ? text : mem_strdup("null");
        }
    }
    r->moves_saved = r->nmoves;
    if (r->phase == PROTO_PHASE_OVER && !r->finish_saved && r->game != NULL) {
        record_entry(e, r, STORE_FINISHED, NULL);
        r->finish_saved = 1;
    }
    r->dirty = 0;
}

static void on_fill(void *arg, void *key)
{
    snapshot(arg, key);
}

static void on_done(void *arg, void *key, const char *id, unsigned long gen, int ok, int moves,
                    long long seq)
{
    (void)id;
    struct lobby *lb = arg;
    struct room *r = key; /* NULL: forgotten (freed) since, or a row of a room going */
    if (r == NULL)
        return;
    /* Another node wrote the room with a newer fence: it owns the room now.
     * Nothing of this write counted; the room is not ours to roll back. */
    if (ok == STORE_FENCED && lb->node != NULL) {
        roomnode_give_up(lb->node, r,
                         "the database refused its write (fenced): another node"
                         " owns it");
        return;
    }
    room_store_done(r, gen, ok == 1, moves, seq);
    /* A failed commit frees the seats of the creates and joins it held: a
     * lobby room left without a person goes, as after their `leave`. */
    if (ok != 1)
        lobby_room_reap(lb, r);
}

void roomdb_attach(struct lobby *lb, struct store *st)
{
    if (st != NULL)
        store_hooks_set(st, &(struct store_hooks){on_fill, on_done, lb});
}

static void forget(struct lobby *lb, struct room *r, int gone, const char *closed)
{
    struct store *st = r->store;
    if (r->dirty && gone == STORE_CLOSE)
        snapshot(lb, r);
    store_forget(st, r); /* no fill and no done hook for it any more */
    r->dirty = 0;
    uint64_t fence;
    if (gone && room_fence(lb, r, &fence) == 0) {
        struct store_room *e = store_row_add(st);
        e->fence = fence;
        snprintf(e->id, sizeof e->id, "%s", r->id);
        e->gone = gone;
        e->updated = (uint64_t)clock_wall_ms();
        /* A game closed before its end is kept as a record too. */
        if (gone == STORE_CLOSE && r->phase == PROTO_PHASE_PLAYING && r->game != NULL)
            record_entry(e, r, STORE_ABANDONED, closed);
    }
}

void roomdb_forget(struct lobby *lb, struct room *r, int gone)
{
    forget(lb, r, gone, "room-ttl");
}

void roomdb_close(struct lobby *lb, struct room *r, const char *closed)
{
    forget(lb, r, r->phase == PROTO_PHASE_LOBBY ? STORE_DELETE : STORE_CLOSE, closed);
}

/* ---- rows to a room (start-up) ---- */

struct room *roomdb_room_load(struct lobby *lb, const struct store_room *e, char *err,
                              size_t errlen)
{
    return room_new_restored(e, lb->lim.history, lb->lim.history_bytes, err, errlen);
}

struct restore_ctx {
    struct lobby *lb;
    int bad;
};

/* Closed rooms whose game started but has no record yet (closed by
 * stale-room just now, or by an older carcd) become "abandoned" records. */
static int on_abandoned(void *arg, struct store_room *e)
{
    struct restore_ctx *c = arg;
    char why[256];
    struct room *r = roomdb_room_load(c->lb, e, why, sizeof why);
    if (r == NULL) {
        log_error("storage: %s (left in the database, no record)", why);
        return -1;
    }
    record_entry(e, r, STORE_ABANDONED, "stale-room");
    room_free(r);
    return 0;
}

static int on_room(void *arg, const struct store_room *e)
{
    struct restore_ctx *c = arg;
    char why[256];
    struct room *r = roomdb_room_load(c->lb, e, why, sizeof why);
    if (r == NULL) {
        log_error("storage: %s (left in the database, not restored)", why);
        c->bad++;
        return -1;
    }
    lobby_room_add(c->lb, r);
    return 0;
}

int roomdb_restore(struct lobby *lb, int stale_s, uint64_t now_ms, char *err, size_t errlen)
{
    struct restore_ctx c = {lb, 0};
    struct store_restore_hooks h = {on_abandoned, on_room, &c};
    int n = store_restore(lb->store, stale_s, now_ms, &h, err, errlen);
    if (n > 0 || c.bad > 0)
        log_info("storage: restored %d room(s)%s", n,
                 c.bad ? "; some rooms could not be restored" : "");
    return n;
}
