/* roomnode.c: rooms, leases and the directory of a cluster node (roomnode.h). */
#include "game/roomnode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/directory.h"
#include "cluster/lease.h"
#include "game/lobby.h"
#include "game/room.h"
#include "game/roomdb.h"
#include "metrics/metrics.h"
#include "store/store.h"
#include "util/log.h"
#include "util/mem.h"

enum { W_LOCATE, W_CREATE };

/* A request waiting for Redis or PostgreSQL. */
struct roomnode_wait {
    struct roomnode *n;
    struct session *s; /* NULL: its session closed (the wait is dropped when it comes back) */
    struct proto_msg m;
    char room[PROTO_ROOM_MAX];
    int kind;
    roomnode_then_fn then;      /* the lobby's, once the room is here (or is not anywhere) */
    struct roomnode_wait *next; /* the other requests waiting on the same takeover */
    struct roomnode_wait *wprev, *wnext; /* every wait of the roomnode (roomnode_free) */
};

/* A room being taken over from PostgreSQL: read, lease, read again, rebuild. */
struct take {
    struct roomnode *n;
    char room[PROTO_ROOM_MAX];
    int step;  /* T_EXISTS, T_LEASE, T_READ */
    int tries; /* leases taken again because the database's fence was newer */
    uint64_t fence;
    struct roomnode_wait *waiters;
    struct take *next;
};
enum { T_EXISTS, T_LEASE, T_READ };

struct roomnode {
    struct lobby *lb;
    struct lease_set *ls;
    struct directory *dir;
    char node[LEASE_NODE_MAX];
    struct take *takes;          /* in progress (a few at a time) */
    struct roomnode_wait *waits; /* every request waiting, whatever for */
    int closed;                  /* roomnode_close: the lease set and Redis are going */
    int ttl_ms;
};

struct roomnode *roomnode_new(struct lobby *lb, struct lease_set *ls, struct directory *dir,
                              const char *node, int ttl_ms)
{
    struct roomnode *n = mem_zalloc(1, sizeof *n);
    n->lb = lb;
    n->ls = ls;
    n->dir = dir;
    n->ttl_ms = ttl_ms > 0 ? ttl_ms : LEASE_TTL_MS;
    snprintf(n->node, sizeof n->node, "%s", node);
    lb->node = n;
    return n;
}

/* ---- waiting requests ---- */

static struct roomnode_wait *wait_new(struct roomnode *n, struct session *s,
                                      const struct proto_msg *m, const char *room, int kind,
                                      roomnode_then_fn then)
{
    struct roomnode_wait *w = mem_zalloc(1, sizeof *w);
    w->n = n;
    w->s = s;
    w->m = *m;
    w->then = then;
    w->kind = kind;
    snprintf(w->room, sizeof w->room, "%s", room);
    s->wait = w;
    w->wnext = n->waits;
    if (n->waits != NULL)
        n->waits->wprev = w;
    n->waits = w;
    return w;
}

/* w is answered (or dropped): its session no longer waits. */
static void wait_free(struct roomnode_wait *w)
{
    if (w->s != NULL && w->s->wait == w)
        w->s->wait = NULL;
    if (w->wprev != NULL)
        w->wprev->wnext = w->wnext;
    else
        w->n->waits = w->wnext;
    if (w->wnext != NULL)
        w->wnext->wprev = w->wprev;
    free(w);
}

void roomnode_session_close(struct session *s)
{
    if (s->wait != NULL) {
        s->wait->s = NULL;
        s->wait = NULL;
    }
}

static void wait_error(struct roomnode_wait *w, int code, const char *text)
{
    if (w->s != NULL && !w->s->closing)
        session_send_text(w->s, proto_encode_error(code, text, w->m.id));
    wait_free(w);
}

static void wait_redirect(struct roomnode_wait *w, const char *node)
{
    if (w->s != NULL && !w->s->closing) {
        char path[LEASE_NODE_MAX + 8];
        snprintf(path, sizeof path, "/n/%s/ws", node);
        session_send_text(w->s,
                          proto_encode_redirect(w->room, node, path, ROOMNODE_RETRY_MS, w->m.id));
        metrics_redirect_count();
    }
    wait_free(w);
}

/* The room is here now (or known not to be anywhere): the request runs
 * again, without another lookup. */
static void wait_run(struct roomnode_wait *w)
{
    struct session *s = w->s;
    if (s != NULL && !s->closing) {
        s->wait = NULL;
        w->then(w->n->lb, s, &w->m, w->room);
    }
    wait_free(w);
}

static const char *redis_trouble = "the cluster's room directory cannot be reached; retry";

/* ---- takeover: a room of the database comes to this node ---- */

static void take_step(struct take *t);

static void take_end(struct take *t)
{
    struct take **p = &t->n->takes;
    while (*p != t)
        p = &(*p)->next;
    *p = t->next;
    free(t);
}

/* Every waiter of t gets the same outcome. */
static void take_answer(struct take *t, int run, const char *holder, int code, const char *text)
{
    struct roomnode_wait *w = t->waiters;
    t->waiters = NULL;
    take_end(t);
    while (w != NULL) {
        struct roomnode_wait *next = w->next;
        if (run)
            wait_run(w);
        else if (holder != NULL)
            wait_redirect(w, holder);
        else
            wait_error(w, code, text);
        w = next;
    }
}

/* The room read after the lease was taken: rebuild it and claim it in the
 * database with the new fence before anyone is answered. */
static void take_build(struct take *t, struct store_room *e)
{
    struct roomnode *n = t->n;
    struct lobby *lb = n->lb;
    if (e->fence >= t->fence && t->tries >= 2) {
        lease_release(n->ls, t->room);
        take_answer(t, 0, NULL, CARC_E_STORAGE, "the room's fencing number is behind; retry");
        return;
    }
    if (e->fence >= t->fence) {
        t->tries++;
        /* The database saw a newer number than Redis gave: Redis lost its
         * counter. Start again with the database's number as the floor. */
        log_event(LOG_WARN, &(struct log_fields){.room = t->room, .code = "fenced"},
                  "cluster: the database has fence %llu, above the lease's %llu; taking again",
                  (unsigned long long)e->fence, (unsigned long long)t->fence);
        lease_release(n->ls, t->room);
        t->fence = e->fence;
        t->step = T_LEASE;
        take_step(t);
        return;
    }
    char why[256];
    struct room *r = roomdb_room_load(lb, e, why, sizeof why);
    if (r == NULL) {
        log_error("storage: %s (left in the database, not taken over)", why);
        lease_release(n->ls, t->room);
        take_answer(t, 0, NULL, CARC_E_STORAGE, "the room could not be rebuilt");
        return;
    }
    lobby_room_add(lb, r);
    room__dirty(r); /* the new fence written before anything is told */
    /* Its turn restarts now (the move to this node is charged to nobody),
     * before the request that brought it is answered: the state it gets
     * has clock.turn_started. */
    room_turn_restart(r, lb->now);
    log_event(LOG_INFO, &(struct log_fields){.room = r->id},
              "cluster: room taken over (fence %llu, %d moves)", (unsigned long long)t->fence,
              r->nmoves);
    metrics_takeover_count();
    take_answer(t, 1, NULL, 0, NULL);
}

static void on_take_read(void *arg, int status, struct store_room *e)
{
    struct take *t = arg;
    if (status == 200 && t->step == T_EXISTS) {
        uint64_t floor = e->fence;
        store_entry_free(e);
        t->fence = floor;
        t->step = T_LEASE;
        take_step(t);
        return;
    }
    if (status == 200) {
        take_build(t, e);
        store_entry_free(e);
        return;
    }
    if (t->step == T_READ)
        lease_release(t->n->ls, t->room);
    if (status == 404)
        take_answer(t, 0, NULL, CARC_E_NO_ROOM, NULL);
    else
        take_answer(t, 0, NULL, CARC_E_STORAGE, "the room cannot be read now; retry");
}

static void on_take_lease(void *arg, int status, uint64_t fence, const char *holder)
{
    struct take *t = arg;
    if (status == LEASE_E_HELD) {
        take_answer(t, 0, holder, 0, NULL);
        return;
    }
    if (status != 0) {
        take_answer(t, 0, NULL, CARC_E_STORAGE, redis_trouble);
        return;
    }
    t->fence = fence;
    t->step = T_READ;
    take_step(t);
}

static void take_step(struct take *t)
{
    struct roomnode *n = t->n;
    if (t->step == T_LEASE) {
        int rc = lease_acquire(n->ls, t->room, t->fence, on_take_lease, t);
        if (rc != 0)
            take_answer(t, 0, NULL, CARC_E_STORAGE, redis_trouble);
        return;
    }
    if (store_entry_read(n->lb->store, t->room, on_take_read, t) == NULL) {
        if (t->step == T_READ)
            lease_release(n->ls, t->room);
        take_answer(t, 0, NULL, CARC_E_STORAGE, "the server is busy reading; retry");
    }
}

static struct take *take_find(struct roomnode *n, const char *room)
{
    for (struct take *t = n->takes; t != NULL; t = t->next)
        if (strcmp(t->room, room) == 0)
            return t;
    return NULL;
}

/* w waits for room's takeover (started when none is under way). */
static void take_join(struct roomnode *n, struct roomnode_wait *w)
{
    struct take *t = take_find(n, w->room);
    if (t == NULL) {
        t = mem_zalloc(1, sizeof *t);
        t->n = n;
        snprintf(t->room, sizeof t->room, "%s", w->room);
        t->step = T_EXISTS;
        t->next = n->takes;
        n->takes = t;
        w->next = NULL;
        t->waiters = w;
        take_step(t);
        return;
    }
    w->next = t->waiters;
    t->waiters = w;
}

/* ---- locating a room ---- */

static void on_holder(void *arg, int status, const char *holder)
{
    struct roomnode_wait *w = arg;
    struct roomnode *n = w->n;
    if (w->s == NULL || w->s->closing) {
        wait_free(w);
        return;
    }
    if (status != 0) {
        wait_error(w, CARC_E_STORAGE, redis_trouble);
        return;
    }
    if (lobby_room_find(n->lb, w->room) != NULL || take_find(n, w->room) != NULL) {
        /* Became ours while Redis answered. */
        if (take_find(n, w->room) != NULL)
            take_join(n, w);
        else
            wait_run(w);
        return;
    }
    if (holder[0] != '\0') {
        /* Another node's (or a lease of this node's previous life, which
         * expires: the client comes back after retry_ms). */
        wait_redirect(w, holder);
        return;
    }
    take_join(n, w);
}

void roomnode_close(struct roomnode *n)
{
    n->closed = 1;
}

static const char *closing_text = "this server is shutting down; retry";

int roomnode_locate(struct roomnode *n, struct session *s, const struct proto_msg *m,
                    roomnode_then_fn then, struct carc_error *err)
{
    if (n->closed)
        return carc_error_set(err, CARC_E_STORAGE, "%s", closing_text);
    const char *room = m->type == PROTO_T_JOIN     ? m->u.join.room
                       : m->type == PROTO_T_RESUME ? m->u.resume.room
                                                   : m->u.watch.room;
    if (s->wait != NULL)
        return carc_error_set(err, CARC_E_RATE, "a request is already waiting for its room");
    struct roomnode_wait *w = wait_new(n, s, m, room, W_LOCATE, then);
    struct take *t = take_find(n, room);
    if (t != NULL) {
        take_join(n, w);
        return 0;
    }
    int rc = lease_holder(n->ls, room, on_holder, w);
    if (rc == LEASE_E_ARGS) {
        wait_free(w);
        return carc_error_set(err, CARC_E_NO_ROOM, NULL);
    }
    if (rc != 0) {
        wait_free(w);
        return carc_error_set(err, CARC_E_STORAGE, "%s", redis_trouble);
    }
    return 0;
}

/* ---- creating a room ---- */

static void on_create_lease(void *arg, int status, uint64_t fence, const char *holder)
{
    (void)fence;
    (void)holder;
    struct roomnode_wait *w = arg;
    struct roomnode *n = w->n;
    struct session *s = w->s;
    if (status != 0) {
        /* LEASE_E_HELD: the random id is another node's room (1 in 2^47). */
        if (s != NULL)
            wait_error(w, CARC_E_STORAGE,
                       status == LEASE_E_HELD ? "the room could not be created; retry"
                                              : redis_trouble);
        else
            wait_free(w);
        return;
    }
    if (s == NULL || s->closing || s->room != NULL || lobby_room_find(n->lb, w->room) != NULL) {
        lease_release(n->ls, w->room);
        wait_free(w);
        return;
    }
    s->wait = NULL;
    w->then(n->lb, s, &w->m, w->room);
    wait_free(w);
}

int roomnode_create(struct roomnode *n, struct session *s, const struct proto_msg *m,
                    const char *id, roomnode_then_fn then, struct carc_error *err)
{
    if (n->closed)
        return carc_error_set(err, CARC_E_STORAGE, "%s", closing_text);
    if (s->wait != NULL)
        return carc_error_set(err, CARC_E_RATE, "a request is already waiting for its room");
    struct roomnode_wait *w = wait_new(n, s, m, id, W_CREATE, then);
    int rc = lease_acquire(n->ls, id, 0, on_create_lease, w);
    if (rc != 0) {
        wait_free(w);
        return carc_error_set(err, CARC_E_STORAGE, "%s", redis_trouble);
    }
    return 0;
}

/* ---- rooms that go ---- */

void roomnode_room_gone(struct roomnode *n, const struct room *r)
{
    if (n->closed)
        return;
    lease_release(n->ls, r->id);
    if (r->dir_listed)
        directory_del(n->dir, r->id);
}

uint64_t roomnode_fence(const struct roomnode *n, const struct room *r)
{
    return n->closed ? 0 : lease_fence(n->ls, r->id);
}

void roomnode_give_up(struct roomnode *n, struct room *r, const char *why)
{
    struct lobby *lb = n->lb;
    log_event(LOG_WARN, &(struct log_fields){.room = r->id, .code = "given_up"},
              "cluster: room given up: %s; its connections are closed (4003)", why);
    metrics_given_up_count();
    /* Closed first (session_close leaves room membership alone), then detached. */
    const char *bye = "room moved to another node: resume";
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].s != NULL)
            session_close(r->seats[i].s, SESSION_CLOSE_MOVED, bye, 1);
    for (struct session *s = r->spectators; s != NULL; s = s->rnext)
        session_close(s, SESSION_CLOSE_MOVED, bye, 1);
    room_evict(r, 0);
    if (r->store != NULL)
        roomdb_forget(lb, r, 0); /* nothing more is written: the room is not ours */
    lobby_room_delete(lb, r);
}

void roomnode_lease_lost(void *arg, const char *room, uint64_t fence)
{
    struct roomnode *n = arg;
    struct room *r = lobby_room_find(n->lb, room);
    if (r == NULL)
        return;
    char why[96];
    snprintf(why, sizeof why, "its lease (fence %llu) was lost", (unsigned long long)fence);
    roomnode_give_up(n, r, why);
}

/* ---- the directory ---- */

static uint64_t text_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void roomnode_tick(struct roomnode *n, uint64_t now)
{
    struct lobby *lb = n->lb;
    if (n->closed)
        return;
    for (struct room *r = lb->oldest; r != NULL; r = r->newer) {
        int listed = !r->private_room && r->phase != PROTO_PHASE_OVER && r->created_ms != 0 &&
                     lease_fence(n->ls, r->id) != 0;
        if (!listed) {
            if (r->dir_listed && directory_del(n->dir, r->id) == 0)
                r->dir_listed = 0;
            continue;
        }
        int due = !r->dir_listed || now - r->dir_ms >= (uint64_t)n->ttl_ms;
        if (!due && r->dir_updated == r->updated_ms)
            continue;
        struct proto_room_summary sum;
        room_summary(r, &sum);
        char *json = proto_encode_room_entry(&sum);
        if (json == NULL)
            mem_oom("directory");
        uint64_t h = text_hash(json);
        r->dir_updated = r->updated_ms;
        if ((due || h != r->dir_hash) && directory_put(n->dir, r->id, r->created_ms, json) == 0) {
            r->dir_hash = h;
            r->dir_ms = now;
            r->dir_listed = 1;
        }
        free(json);
    }
    directory_refresh(n->dir, lb->lim.list_max);
}

int roomnode_rooms(const struct roomnode *n, const struct directory_room **out)
{
    *out = NULL;
    return n == NULL || n->closed ? 0 : directory_rooms(n->dir, out);
}

void roomnode_free(struct roomnode *n)
{
    if (n == NULL)
        return;
    /* Nothing can answer them now: lease_set_close dropped pending
     * acquisitions without their callbacks, Redis and the store are closed. */
    while (n->waits != NULL)
        wait_free(n->waits);
    while (n->takes != NULL) {
        struct take *t = n->takes;
        n->takes = t->next;
        free(t);
    }
    n->lb->node = NULL;
    free(n);
}
