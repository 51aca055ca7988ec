/* room_hold.c: write before tell, from end to end. A change marks the room
 * in the store's batch being filled (room__dirty: store_mark with the room
 * as the key); what tells of it waits in the room's hold queue (room__hold,
 * room__send); the store asks roomdb.c for the room's rows when it builds
 * the batch, commits it on the thread pool, and hands the key back
 * (roomdb.c's done hook -> room_store_done here), which releases what waited
 * for that batch, or on a failed commit undoes the moves not on disk. A room
 * without a store sends at once. The room's other files queue only through
 * room__send and room__send_text. */
#include <stdlib.h>
#include <string.h>

#include "game/room.h"
#include "metrics/metrics.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/mem.h"

int room__holding(const struct room *r)
{
    return r->store != NULL && r->wait_gen > store_done_gen(r->store);
}

/* The room changed: its next batch is where the change goes. Call before
 * queueing what tells of it. */
void room__dirty(struct room *r)
{
    if (r->store == NULL)
        return;
    uint64_t now = (uint64_t)clock_wall_ms();
    if (r->created_ms == 0)
        r->created_ms = now;
    r->updated_ms = now;
    if (!r->dirty) {
        r->dirty = 1; /* until its rows are taken (roomdb.c) or it is forgotten */
        r->wait_gen = store_mark(r->store, r);
    } else {
        r->wait_gen = store_fill_gen(r->store);
    }
}

void room__hold(struct room *r, struct session *s, struct sbuf *b, struct sbuf *alt)
{
    if (r->nheld == r->held_cap) {
        if (r->held_head > 0) {
            memmove(r->held, r->held + r->held_head,
                    (size_t)(r->nheld - r->held_head) * sizeof *r->held);
            r->nheld -= r->held_head;
            r->held_head = 0;
        }
        if (r->nheld == r->held_cap) {
            int cap = r->held_cap ? r->held_cap * 2 : 16;
            struct room_held *h = mem_resize(r->held, (size_t)cap * sizeof *h);
            r->held = h;
            r->held_cap = cap;
        }
    }
    r->held[r->nheld++] =
        (struct room_held){r->wait_gen, s, sbuf_ref(b), alt ? sbuf_ref(alt) : NULL};
}

/* Queue b to s now, or once the room's change is on disk. */
void room__send(struct room *r, struct session *s, struct sbuf *b)
{
    if (room__holding(r))
        room__hold(r, s, b, NULL);
    else
        session_send(s, b);
}

void room__send_text(struct room *r, struct session *s, char *text)
{
    struct sbuf *b = sbuf_take(text);
    room__send(r, s, b);
    sbuf_unref(b);
}

void room_reply(struct room *r, struct session *s, char *text)
{
    int waiting = 0;
    for (int i = r->held_head; i < r->nheld && !waiting; i++)
        waiting = r->held[i].s == s;
    struct sbuf *b = sbuf_take(text);
    /* alt = b: told even if that commit fails and the held changes are dropped. */
    if (waiting)
        room__hold(r, s, b, b);
    else
        session_send(s, b);
    sbuf_unref(b);
}

/* s is leaving the room: what was held for it is dropped. */
void room__unhold(struct room *r, const struct session *s)
{
    int k = r->held_head;
    for (int i = r->held_head; i < r->nheld; i++) {
        if (r->held[i].s == s) {
            sbuf_unref(r->held[i].b);
            sbuf_unref(r->held[i].alt);
        } else {
            r->held[k++] = r->held[i];
        }
    }
    r->nheld = k;
}

void room__release(struct room *r, unsigned long gen)
{
    while (r->held_head < r->nheld && r->held[r->held_head].gen <= gen) {
        struct room_held *h = &r->held[r->held_head++];
        session_send(h->s, h->b);
        sbuf_unref(h->b);
        sbuf_unref(h->alt);
    }
    if (r->held_head == r->nheld)
        r->held_head = r->nheld = 0;
    int k = 0;
    uint64_t now = r->ntimed > 0 ? metrics_now_ns() : 0;
    for (int i = 0; i < r->ntimed; i++) {
        if (r->timed_gen[i] <= gen) {
            metrics_broadcast_observe(now - r->timed_ns[i]);
        } else {
            r->timed_ns[k] = r->timed_ns[i];
            r->timed_gen[k++] = r->timed_gen[i];
        }
    }
    r->ntimed = k;
}

void room__move_timed(struct room *r, uint64_t t0)
{
    if (!room__holding(r)) {
        metrics_broadcast_observe(metrics_now_ns() - t0);
    } else if (r->ntimed < ROOM_TIMED) {
        r->timed_ns[r->ntimed] = t0;
        r->timed_gen[r->ntimed++] = r->wait_gen;
    }
}

/* Nothing is told before it is on disk, failures included: a seq a client
 * saw is never above the seq stored, so after a crash every client's seq is
 * one the restored room knows (and answers with a snapshot). */
void room_store_done(struct room *r, unsigned long gen, int ok, int moves)
{
    if (ok) {
        if (moves > r->moves_committed)
            r->moves_committed = moves;
        room__release(r, gen);
        return;
    }
    /* Written again with the next batch that goes through; what is held
     * waits for it. */
    r->moves_saved = r->moves_committed;
    r->finish_saved = 0;
    room__dirty(r);
    if (r->game == NULL || r->nmoves <= r->moves_committed)
        return; /* no move to undo: the change stays and is told once stored */
    /* Undo the moves that are not on disk: nobody was told of them. The
     * movers hear why now (an error is not state); the deltas that held the
     * moves are dropped, and everyone gets a fresh state once it is stored. */
    for (int i = r->held_head; i < r->nheld; i++) {
        if (r->held[i].alt != NULL)
            session_send(r->held[i].s, r->held[i].alt);
        sbuf_unref(r->held[i].b);
        sbuf_unref(r->held[i].alt);
    }
    r->held_head = r->nheld = 0;
    r->ntimed = 0; /* those moves are undone: never broadcast */
    room__rollback(r);
}
