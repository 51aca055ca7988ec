/* room_hold.c: write before tell. What a room queues for its members waits
 * for the store's batch that holds the change it tells of (room.h "Storage");
 * a room without a store sends at once. The room's other files queue only
 * through room__send and room__send_text. */
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"
#include "game/room.h"
#include "game/roomdb.h"
#include "store/store.h"
#include "util/mem.h"

int room__holding(const struct room *r)
{
    return r->store != NULL && r->wait_gen > store_done_gen(r->store);
}

/* The room changed: its next batch is where the change goes. Call before
 * queueing what tells of it. */
void room__dirty(struct room *r)
{
    if (r->store != NULL)
        r->wait_gen = roomdb_dirty(r);
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
