/* room_hold.c: write before tell, from end to end. A change marks the room
 * in the store's batch being filled (room__dirty: store_mark with the room
 * as the key); what tells of it waits in the room's hold queue (room__hold,
 * room__send); the store asks roomdb.c for the room's rows when it builds
 * the batch, commits it on the thread pool, and hands the key back
 * (roomdb.c's done hook -> room_store_done here), which releases what waited
 * for that batch, or on a failed commit answers everything held at once
 * (fail_resolve). While storage fails nothing is held: the room tells only
 * what the disk holds (room__rebase) and refuses what needs a write. A room
 * without a store sends at once. The room's other files queue only through
 * the room__send functions. */
#include <stdlib.h>
#include <string.h>

#include "game/room.h"
#include "metrics/metrics.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"

int room__failing(const struct room *r)
{
    return r->store != NULL && store_failing(r->store);
}

int room__holding(const struct room *r)
{
    if (r->store == NULL)
        return 0;
    if (r->nheld > r->held_head)
        return 1; /* behind what waits already, whatever the store does */
    return !store_failing(r->store) && r->wait_gen > store_done_gen(r->store);
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

/* Held messages count against s's outbound queue (they will be queued to
 * it) and against the lobby's bound for every room: a slow commit must not
 * let replies pile up without end. Over either, s is closed with 4001 (as a
 * queue overflow) and -1 says hold nothing. */
static int hold_bounded(struct room *r, struct session *s, size_t len)
{
    const char *why = NULL;
    if (s->qlen + s->held + 1 > s->qmax ||
        s->qbytes + s->unsent + s->held_bytes + len > s->qmax_bytes)
        why = "outbound queue overflow (replies waiting for storage)";
    else if (r->holds != NULL && r->holds->max > 0 && r->holds->bytes + len > r->holds->max)
        why = "server busy: too many replies waiting for storage";
    if (why == NULL)
        return 0;
    log_event(
        LOG_INFO,
        &(struct log_fields){
            .room = r->id, .addr = s->peer, .session = s->id, .close = SESSION_CLOSE_OVERFLOW},
        "connection closed: %s", why);
    session_close(s, SESSION_CLOSE_OVERFLOW, why, 0);
    return -1;
}

void room__hold(struct room *r, struct session *s, struct sbuf *b, struct sbuf *alt, int kind,
                const char *ref)
{
    if (s->closing || hold_bounded(r, s, b->len) != 0)
        return; /* nothing more reaches s */
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
    r->held[r->nheld++] = (struct room_held){
        r->wait_gen, s,
        sbuf_ref(b), alt ? sbuf_ref(alt) : NULL,
        kind,        kind == ROOM_HELD_END ? mem_strdup(ref != NULL ? ref : "") : NULL};
    s->held++;
    s->held_bytes += b->len;
    if (r->holds != NULL)
        r->holds->bytes += b->len;
}

/* Let go of entry h (sent or dropped): its references and its counts. */
static void held_free(struct room *r, struct room_held *h)
{
    h->s->held--;
    h->s->held_bytes -= h->b->len;
    if (r->holds != NULL)
        r->holds->bytes -= h->b->len;
    sbuf_unref(h->b);
    sbuf_unref(h->alt);
    free(h->ref);
}

/* Queue b to s now, or once the room's change is on disk. */
void room__send(struct room *r, struct session *s, struct sbuf *b)
{
    if (room__holding(r))
        room__hold(r, s, b, NULL, ROOM_HELD_TELL, NULL);
    else
        session_send(s, b);
}

void room__send_text(struct room *r, struct session *s, char *text)
{
    room__send_kind(r, s, text, ROOM_HELD_TELL, NULL);
}

void room__send_kind(struct room *r, struct session *s, char *text, int kind, const char *ref)
{
    struct sbuf *b = sbuf_take(text);
    if (room__holding(r))
        room__hold(r, s, b, NULL, kind, ref);
    else
        session_send(s, b);
    sbuf_unref(b);
}

void room__send_alt(struct room *r, struct session *s, char *text, char *alt)
{
    struct sbuf *b = sbuf_take(text), *a = sbuf_take(alt);
    if (room__holding(r))
        room__hold(r, s, b, a, ROOM_HELD_TELL, NULL);
    else
        session_send(s, b);
    sbuf_unref(b);
    sbuf_unref(a);
}

void room_reply(struct room *r, struct session *s, char *text)
{
    int waiting = 0;
    for (int i = r->held_head; i < r->nheld && !waiting; i++)
        waiting = r->held[i].s == s;
    struct sbuf *b = sbuf_take(text);
    /* alt = b: told even if that commit fails and the held changes are dropped. */
    if (waiting)
        room__hold(r, s, b, b, ROOM_HELD_TELL, NULL);
    else
        session_send(s, b);
    sbuf_unref(b);
}

void room__send_seat(struct room *r, struct session *s, char *text, const char *ref)
{
    struct sbuf *b = sbuf_take(text);
    if (room__holding(r)) {
        struct sbuf *alt = sbuf_take(proto_encode_error(
            CARC_E_STORAGE, "the server could not store the seat; nothing changed, retry", ref));
        room__hold(r, s, b, alt, ROOM_HELD_SEAT, NULL);
        sbuf_unref(alt);
    } else {
        session_send(s, b);
    }
    sbuf_unref(b);
}

void room__held_fini(struct room *r)
{
    for (int i = r->held_head; i < r->nheld; i++) {
        struct room_held *h = &r->held[i];
        if (r->holds != NULL)
            r->holds->bytes -= h->b->len;
        sbuf_unref(h->b);
        sbuf_unref(h->alt);
        free(h->ref);
    }
    free(r->held);
    r->held = NULL;
    r->nheld = r->held_head = r->held_cap = 0;
}

/* s is leaving the room: what was held for it is dropped. */
void room__unhold(struct room *r, const struct session *s)
{
    int k = r->held_head;
    for (int i = r->held_head; i < r->nheld; i++) {
        if (r->held[i].s == s)
            held_free(r, &r->held[i]);
        else
            r->held[k++] = r->held[i];
    }
    r->nheld = k;
}

void room__release(struct room *r, unsigned long gen)
{
    while (r->held_head < r->nheld && r->held[r->held_head].gen <= gen) {
        struct room_held *h = &r->held[r->held_head++];
        session_send(h->s, h->b);
        held_free(r, h);
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

/* ---- a failed commit ---- */

/* Seats taken by a `create` or `join` whose `joined` is still held: in the
 * lobby the seat is freed again and the request is refused (the entry keeps
 * its alt, storage_error); a seat that cannot be freed any more (the game
 * started in the same batch) keeps its player, whose `joined` then goes out
 * (the seat is written by the first commit that works). */
static void seats_undo(struct room *r)
{
    for (int i = r->held_head; i < r->nheld; i++) {
        struct room_held *h = &r->held[i];
        if (h->kind != ROOM_HELD_SEAT)
            continue;
        struct session *s = h->s;
        if (r->phase == PROTO_PHASE_LOBBY && s->room == r && s->seat >= 0 &&
            r->seats[s->seat].s == s) {
            int seat = s->seat;
            memset(&r->seats[seat], 0, sizeof r->seats[seat]);
            s->room = NULL;
            s->seat = -1;
            if (r->host == seat)
                room__host_pass(r);
            log_event(LOG_INFO,
                      &(struct log_fields){
                          .room = r->id, LOG_SEAT(seat), .code = "storage_error", .session = s->id},
                      "seat freed: its commit failed");
        } else {
            sbuf_unref(h->alt);
            h->alt = NULL;
            h->kind = ROOM_HELD_SAFE;
        }
    }
}

/* s (a member) gets the room's state with ref ("" none), then its legal
 * list when its seat is to move. fresh: that state without ref, shared. */
static void state_to(struct room *r, struct session *s, const char *ref, struct sbuf *fresh)
{
    if (ref != NULL && ref[0] != '\0')
        session_send_text(s, proto_state_encode(r->state, r->seq, ref));
    else
        session_send(s, fresh);
    if (s->seat >= 0 && s->seat == proto_state_mover(r->state))
        session_send_text(s, proto_legal_encode(r->state, r->seq));
}

/* Did the held queue end a catch-up of s (it got its state there)? */
static int ended(const struct room *r, const struct session *s)
{
    for (int i = r->held_head; i < r->nheld; i++)
        if (r->held[i].s == s && r->held[i].kind == ROOM_HELD_END)
            return 1;
    return 0;
}

/* Nothing waits for a commit any more: every held message is answered now,
 * in order, from the rebased room, and every member gets the fresh state. */
static void fail_resolve(struct room *r, int undo)
{
    seats_undo(r);
    r->ntimed = 0; /* the moves held are undone: never broadcast */
    if (undo)
        room__rollback(r);
    room__rebase(r);
    struct sbuf *fresh = sbuf_take(proto_state_encode(r->state, r->seq, ""));
    for (int i = r->held_head; i < r->nheld; i++) {
        struct room_held *h = &r->held[i];
        if (h->alt != NULL)
            session_send(h->s, h->alt);
        else if (h->kind == ROOM_HELD_SAFE)
            session_send(h->s, h->b);
        else if (h->kind == ROOM_HELD_END && h->s->room == r)
            state_to(r, h->s, h->ref, fresh);
    }
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].s != NULL && !ended(r, r->seats[i].s))
            state_to(r, r->seats[i].s, NULL, fresh);
    for (struct session *s = r->spectators; s != NULL; s = s->rnext)
        if (!ended(r, s))
            state_to(r, s, NULL, fresh);
    sbuf_unref(fresh);
    for (int i = r->held_head; i < r->nheld; i++)
        held_free(r, &r->held[i]);
    r->held_head = r->nheld = 0;
}

/* Nothing is told before it is on disk, failures included: a seq a client
 * saw is never above the seq stored + 1, and a restored room starts at
 * stored + 1 with a snapshot for every older seq, so after a crash every
 * client's seq gets a snapshot, never deltas of another history. */
void room_store_done(struct room *r, unsigned long gen, int ok, int moves, long long seq)
{
    if (ok) {
        if (moves > r->moves_committed)
            r->moves_committed = moves;
        if (seq > r->seq_stored)
            r->seq_stored = seq;
        room__release(r, gen);
        return;
    }
    /* Written again with the next batch that goes through. */
    r->moves_saved = r->moves_committed;
    r->finish_saved = 0;
    room__dirty(r);
    int undo = r->game != NULL && r->nmoves > r->moves_committed;
    /* Nothing held, nothing to undo, and what was told is at most the state
     * after the stored one: clients have what the disk has (a second
     * failure, a retry). */
    if (!undo && r->nheld == r->held_head && r->seq <= r->seq_stored + 1)
        return;
    fail_resolve(r, undo);
}
