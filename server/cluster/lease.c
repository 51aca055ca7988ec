/* cluster/lease.c: room leases in Redis (lease.h).
 *
 * Each lease is an entry in a hash by room id and in a list the renewal
 * timer walks. An entry with a command in flight stays allocated until its
 * reply comes back (inflight), even once released: hiredis calls back with
 * the entry as its argument. The scripts are sent with EVAL each time; they
 * are short, and Redis caches their compiled form by digest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "cluster/lease.h"
#include "util/log.h"
#include "util/mem.h"

#define BUCKETS 1024

/* SET NX semantics with the fencing number taken in the same step: if the
 * lease exists, say whose it is; else raise the counter to the floor (Redis
 * may have lost it), INCR it, and set the lease to NODE:FENCE with PX. */
static const char acquire_lua[] =
    "local cur = redis.call('GET', KEYS[1])\n"
    "if cur then return {0, cur} end\n"
    "local f = tonumber(redis.call('GET', KEYS[2]) or '0')\n"
    "if f < tonumber(ARGV[3]) then redis.call('SET', KEYS[2], ARGV[3]) end\n"
    "f = redis.call('INCR', KEYS[2])\n"
    "local v = ARGV[1] .. ':' .. f\n"
    "redis.call('SET', KEYS[1], v, 'NX', 'PX', ARGV[2])\n"
    "return {f, v}\n";
/* Renew or delete only a lease that is still ours (the same NODE:FENCE). */
static const char renew_lua[] = "if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
                                "  return redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
                                "end\n"
                                "return 0\n";
static const char release_lua[] = "if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
                                  "  return redis.call('DEL', KEYS[1])\n"
                                  "end\n"
                                  "return 0\n";

enum { L_ACQUIRING, L_HELD };

struct lease {
    struct lease_set *ls;
    char room[LEASE_ROOM_MAX];
    char value[LEASE_NODE_MAX + 24]; /* NODE:FENCE, once held */
    uint64_t fence, valid_until, renew_sent;
    int state, gone, renewing, inflight;
    lease_cb cb;
    void *cb_arg;
    struct lease *hnext, *prev, *next, *lnext;
};

struct lease_set {
    uv_loop_t *loop;
    struct redis *r;
    char node[LEASE_NODE_MAX];
    int ttl_ms, renew_ms, margin_ms;
    struct lease_hooks hooks;
    uv_timer_t tick;
    struct lease *bucket[BUCKETS];
    struct lease *head; /* every live entry */
    int count;          /* entries held */
    int pending;        /* commands in flight, over every entry */
    int closing, timer_closed;
    void (*done)(void *);
    void *done_arg;
};

static unsigned hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s != '\0'; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h % BUCKETS;
}

static int valid_name(const char *s, size_t max, int colon_ok)
{
    size_t n = strlen(s);
    if (n == 0 || n >= max)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || (colon_ok && c == ':');
        if (!ok)
            return 0;
    }
    return 1;
}

int lease_node_valid(const char *node)
{
    return valid_name(node, LEASE_NODE_MAX, 0);
}

static struct lease *find(const struct lease_set *ls, const char *room)
{
    for (struct lease *l = ls->bucket[hash(room)]; l != NULL; l = l->hnext)
        if (strcmp(l->room, room) == 0)
            return l;
    return NULL;
}

static void maybe_finish(struct lease_set *ls)
{
    if (!ls->closing || !ls->timer_closed || ls->pending > 0)
        return;
    void (*done)(void *) = ls->done;
    void *arg = ls->done_arg;
    free(ls);
    if (done != NULL)
        done(arg);
}

/* Out of the hash and the list (no more lookups, no renewals); freed once
 * its replies are back. */
static void unlink_entry(struct lease *l)
{
    struct lease_set *ls = l->ls;
    struct lease **pp = &ls->bucket[hash(l->room)];
    while (*pp != l)
        pp = &(*pp)->hnext;
    *pp = l->hnext;
    if (l->prev != NULL)
        l->prev->next = l->next;
    else
        ls->head = l->next;
    if (l->next != NULL)
        l->next->prev = l->prev;
    if (l->state == L_HELD)
        ls->count--;
    l->gone = 1;
}

/* A reply for l came back (or failed). */
static void entry_settle(struct lease *l)
{
    struct lease_set *ls = l->ls;
    l->inflight--;
    ls->pending--;
    if (l->gone && l->inflight == 0)
        free(l);
    maybe_finish(ls);
}

static int eval(struct lease *l, redis_cb cb, const char *script, const char *key2, const char *a1,
                const char *a2, const char *a3)
{
    char key[sizeof LEASE_PREFIX + 8 + LEASE_ROOM_MAX], fkey[sizeof key];
    snprintf(key, sizeof key, LEASE_PREFIX "lease:%s", l->room);
    const char *argv[8] = {"EVAL", script, key2 != NULL ? "2" : "1", key};
    int n = 4;
    if (key2 != NULL) {
        snprintf(fkey, sizeof fkey, LEASE_PREFIX "%s:%s", key2, l->room);
        argv[n++] = fkey;
    }
    argv[n++] = a1;
    argv[n++] = a2;
    if (a3 != NULL)
        argv[n++] = a3;
    int rc = redis_command(l->ls->r, cb, l, n, argv, NULL);
    if (rc == 0) {
        l->inflight++;
        l->ls->pending++;
    }
    return rc;
}

static void on_released(void *arg, int status, const struct redis_reply *rep)
{
    (void)status;
    (void)rep;
    entry_settle(arg);
}

/* Delete l's key in Redis if it is still l's value (l already unlinked). */
static void send_release(struct lease *l)
{
    char ttl[16];
    snprintf(ttl, sizeof ttl, "%d", l->ls->ttl_ms);
    eval(l, on_released, release_lua, NULL, l->value, ttl, NULL);
}

static void lose(struct lease *l, const char *why)
{
    struct lease_set *ls = l->ls;
    log_warn("cluster: lost the lease of room %s (fence %llu): %s", l->room,
             (unsigned long long)l->fence, why);
    uint64_t fence = l->fence;
    char room[LEASE_ROOM_MAX];
    snprintf(room, sizeof room, "%s", l->room);
    unlink_entry(l);
    if (l->inflight == 0)
        free(l);
    if (!ls->closing && ls->hooks.lost != NULL)
        ls->hooks.lost(ls->hooks.arg, room, fence);
}

static void on_acquired(void *arg, int status, const struct redis_reply *rep)
{
    struct lease *l = arg;
    struct lease_set *ls = l->ls;
    uint64_t fence = 0;
    char holder[LEASE_NODE_MAX + 24] = "";
    if (status == 0) {
        if (rep->type != REDIS_T_ARRAY || rep->elements != 2 ||
            rep->element[0]->type != REDIS_T_INTEGER || rep->element[1]->type != REDIS_T_STRING)
            status = LEASE_E_REPLY;
        else {
            snprintf(holder, sizeof holder, "%s", rep->element[1]->str);
            if (rep->element[0]->integer > 0)
                fence = (uint64_t)rep->element[0]->integer;
            else
                status = LEASE_E_HELD;
        }
    }
    if (l->gone) { /* released while asked: give back what was taken */
        if (fence > 0) {
            snprintf(l->value, sizeof l->value, "%s", holder);
            send_release(l);
        }
        entry_settle(l);
        return;
    }
    lease_cb cb = l->cb;
    void *cb_arg = l->cb_arg;
    if (fence > 0) {
        l->state = L_HELD;
        l->fence = fence;
        snprintf(l->value, sizeof l->value, "%s", holder);
        l->valid_until = l->renew_sent + (uint64_t)(ls->ttl_ms - ls->margin_ms);
        ls->count++;
        holder[0] = '\0';
        snprintf(holder, sizeof holder, "%s", ls->node);
    } else {
        char *colon = strrchr(holder, ':');
        if (colon != NULL)
            *colon = '\0';
        unlink_entry(l);
    }
    entry_settle(l); /* l may be gone now (not held) */
    if (cb != NULL)
        cb(cb_arg, status, fence, holder);
}

int lease_acquire(struct lease_set *ls, const char *room, uint64_t floor, lease_cb cb, void *arg)
{
    if (ls->closing)
        return REDIS_E_CLOSED;
    if (!valid_name(room, LEASE_ROOM_MAX, 0))
        return LEASE_E_ARGS;
    if (find(ls, room) != NULL)
        return LEASE_E_BUSY;
    struct lease *l = mem_zalloc(1, sizeof *l);
    l->ls = ls;
    snprintf(l->room, sizeof l->room, "%s", room);
    l->cb = cb;
    l->cb_arg = arg;
    l->state = L_ACQUIRING;
    l->renew_sent = uv_now(ls->loop);
    char ttl[16], fl[24];
    snprintf(ttl, sizeof ttl, "%d", ls->ttl_ms);
    snprintf(fl, sizeof fl, "%llu", (unsigned long long)floor);
    int rc = eval(l, on_acquired, acquire_lua, "fence", ls->node, ttl, fl);
    if (rc != 0) {
        free(l);
        return rc;
    }
    unsigned h = hash(room);
    l->hnext = ls->bucket[h];
    ls->bucket[h] = l;
    l->next = ls->head;
    if (ls->head != NULL)
        ls->head->prev = l;
    ls->head = l;
    return 0;
}

uint64_t lease_fence(const struct lease_set *ls, const char *room)
{
    const struct lease *l = find(ls, room);
    if (l == NULL || l->state != L_HELD || uv_now(ls->loop) >= l->valid_until)
        return 0;
    return l->fence;
}

/* l is forgotten here; its key deleted in Redis if it was held (freed once
 * its replies are back). */
static void entry_drop(struct lease *l)
{
    int held = l->state == L_HELD;
    unlink_entry(l);
    if (held)
        send_release(l);
    if (l->inflight == 0)
        free(l);
}

void lease_release(struct lease_set *ls, const char *room)
{
    struct lease *l = find(ls, room);
    if (l != NULL)
        entry_drop(l);
}

struct holder_q {
    lease_holder_cb cb;
    void *arg;
};

static void on_holder(void *arg, int status, const struct redis_reply *rep)
{
    struct holder_q *q = arg;
    char node[LEASE_NODE_MAX] = "";
    if (status == 0 && rep->type == REDIS_T_STRING) {
        /* NODE:FENCE */
        const char *colon = memchr(rep->str, ':', rep->len);
        size_t n = colon != NULL ? (size_t)(colon - rep->str) : 0;
        if (n > 0 && n < sizeof node) {
            memcpy(node, rep->str, n);
            node[n] = '\0';
        }
    } else if (status == 0 && rep->type != REDIS_T_NIL) {
        status = LEASE_E_REPLY;
    }
    q->cb(q->arg, status, node);
    free(q);
}

int lease_holder(struct lease_set *ls, const char *room, lease_holder_cb cb, void *arg)
{
    if (!valid_name(room, LEASE_ROOM_MAX, 0))
        return LEASE_E_ARGS;
    if (ls->closing)
        return REDIS_E_CLOSED;
    char key[sizeof LEASE_PREFIX + 8 + LEASE_ROOM_MAX];
    snprintf(key, sizeof key, LEASE_PREFIX "lease:%s", room);
    struct holder_q *q = mem_alloc(sizeof *q);
    q->cb = cb;
    q->arg = arg;
    const char *argv[] = {"GET", key};
    int rc = redis_command(ls->r, on_holder, q, 2, argv, NULL);
    if (rc != 0)
        free(q);
    return rc;
}

int lease_count(const struct lease_set *ls)
{
    return ls->count;
}

static void on_renewed(void *arg, int status, const struct redis_reply *rep)
{
    struct lease *l = arg;
    struct lease_set *ls = l->ls;
    l->renewing = 0;
    if (!l->gone && status == 0) {
        if (rep->type == REDIS_T_INTEGER && rep->integer == 1)
            l->valid_until = l->renew_sent + (uint64_t)(ls->ttl_ms - ls->margin_ms);
        else if (rep->type == REDIS_T_INTEGER) {
            l->inflight--; /* lose() frees an entry with nothing in flight */
            ls->pending--;
            lose(l, "Redis has another owner for it");
            maybe_finish(ls);
            return;
        }
    }
    /* A failed renewal (down, timeout) is tried again at the next tick; the
     * local deadline decides. */
    entry_settle(l);
}

static void on_tick(uv_timer_t *t)
{
    struct lease_set *ls = t->data;
    uint64_t now = uv_now(ls->loop);
    struct lease *lost = NULL;
    char ttl[16];
    snprintf(ttl, sizeof ttl, "%d", ls->ttl_ms);
    for (struct lease *l = ls->head, *next; l != NULL; l = next) {
        next = l->next;
        if (l->state != L_HELD)
            continue;
        if (now >= l->valid_until) {
            /* collected first: a hook may release other rooms */
            unlink_entry(l);
            l->inflight++;
            ls->pending++;
            l->lnext = lost;
            lost = l;
            continue;
        }
        if (!l->renewing) {
            l->renew_sent = now;
            if (eval(l, on_renewed, renew_lua, NULL, l->value, ttl, NULL) == 0)
                l->renewing = 1;
        }
    }
    while (lost != NULL) {
        struct lease *l = lost;
        lost = l->lnext;
        log_warn("cluster: lost the lease of room %s (fence %llu): not renewed before its"
                 " deadline",
                 l->room, (unsigned long long)l->fence);
        if (!ls->closing && ls->hooks.lost != NULL)
            ls->hooks.lost(ls->hooks.arg, l->room, l->fence);
        entry_settle(l);
    }
}

struct lease_set *lease_set_new(uv_loop_t *loop, struct redis *r, const struct lease_opts *opts,
                                const struct lease_hooks *hooks, char *err, size_t errlen)
{
    if (opts == NULL || opts->node == NULL || !valid_name(opts->node, LEASE_NODE_MAX, 0)) {
        snprintf(err, errlen, "a node id is 1 to %d letters, digits, '-' or '_'",
                 LEASE_NODE_MAX - 1);
        return NULL;
    }
    int ttl = opts->ttl_ms > 0 ? opts->ttl_ms : LEASE_TTL_MS;
    int renew = opts->renew_ms > 0 ? opts->renew_ms : ttl / 3;
    if (ttl < 100 || renew >= ttl / 2 || renew < 10) {
        snprintf(err, errlen,
                 "a lease lasts at least 100 ms and is renewed at least twice in its life"
                 " (ttl %d ms, renewed every %d ms)",
                 ttl, renew);
        return NULL;
    }
    struct lease_set *ls = mem_zalloc(1, sizeof *ls);
    ls->loop = loop;
    ls->r = r;
    snprintf(ls->node, sizeof ls->node, "%s", opts->node);
    ls->ttl_ms = ttl;
    ls->renew_ms = renew;
    ls->margin_ms = ttl * LEASE_MARGIN_PCT / 100;
    if (hooks != NULL)
        ls->hooks = *hooks;
    uv_timer_init(loop, &ls->tick);
    ls->tick.data = ls;
    uv_timer_start(&ls->tick, on_tick, (uint64_t)renew, (uint64_t)renew);
    return ls;
}

static void tick_closed(uv_handle_t *h)
{
    struct lease_set *ls = h->data;
    ls->timer_closed = 1;
    maybe_finish(ls);
}

void lease_set_close(struct lease_set *ls, void (*done)(void *), void *arg)
{
    if (ls->closing)
        return;
    ls->closing = 1;
    ls->done = done;
    ls->done_arg = arg;
    while (ls->head != NULL)
        entry_drop(ls->head);
    uv_close((uv_handle_t *)&ls->tick, tick_closed);
}
