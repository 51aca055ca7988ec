/* store/store.c: the batch being filled on the loop and the batch cycle,
 * for every backend (store.h, store_int.h). The rows come from the owner of
 * the keys (hooks.fill) on the loop; they are written by the backend's
 * batch_write on the thread pool. */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics/metrics.h"
#include "store_int.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/loopstat.h"
#include "util/mem.h"

struct batch *store__batch_new(struct store *st, unsigned long gen)
{
    struct batch *b = mem_zalloc(1, sizeof *b);
    b->st = st;
    b->gen = gen;
    b->fence = st->fence;
    b->chat_tail = &b->chat;
    b->an_tail = &b->an;
    b->work.data = b;
    return b;
}

struct store_room *store__batch_add(struct batch *b)
{
    if (b->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 16;
        struct store_room *r = mem_resize(b->rooms, (size_t)cap * sizeof *r);
        b->rooms = r;
        b->cap = cap;
    }
    struct store_room *e = &b->rooms[b->n++];
    memset(e, 0, sizeof *e);
    return e;
}

void store__row_clear(struct store_room *e)
{
    for (int k = 0; k < e->move_to - e->move_from && e->moves != NULL; k++)
        free(e->moves[k]);
    free(e->moves);
    free(e->record);
    free(e->players);
    free(e->scores);
    e->moves = NULL;
    e->record = e->players = e->scores = NULL;
}

void store__batch_free(struct batch *b)
{
    for (int i = 0; i < b->n; i++)
        store__row_clear(&b->rooms[i]);
    free(b->rooms);
    while (b->chat != NULL) {
        struct sb_chat *c = b->chat;
        b->chat = c->next;
        free(c->text);
        free(c);
    }
    while (b->an != NULL) {
        struct sb_analysis *a = b->an;
        b->an = a->next;
        free(a->doc);
        free(a);
    }
    free(b);
}

struct store *store__new(const struct store_backend *be, void *impl)
{
    struct store *st = mem_zalloc(1, sizeof *st);
    st->be = be;
    st->impl = impl;
    st->fill_gen = 1;
    st->fill = store__batch_new(st, st->fill_gen);
    return st;
}

int store__batch_write(struct store *st, struct batch *b)
{
    b->why[0] = '\0';
    b->reason = NULL;
    if (st->test_fail > 0) {
        snprintf(b->why, sizeof b->why, "a test failure");
        b->reason = "a test failure";
        return -1;
    }
    return st->be->batch_write(st, b);
}

/* ---- text bits ---- */

void store__text_add(struct store_text *t, const char *s, size_t len)
{
    if (t->n + len + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->n + len + 1)
            cap *= 2;
        char *p = mem_resize(t->s, cap);
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, len);
    t->n += len;
    t->s[t->n] = '\0';
}

void store__text_str(struct store_text *t, const char *s)
{
    store__text_add(t, s, strlen(s));
}

/* ---- the batch being filled ---- */

unsigned long store_mark(struct store *st, void *key)
{
    if (st->ndirty == st->dirty_cap) {
        int cap = st->dirty_cap ? st->dirty_cap * 2 : 64;
        void **d = mem_resize(st->dirty, (size_t)cap * sizeof *d);
        st->dirty = d;
        st->dirty_cap = cap;
    }
    st->dirty[st->ndirty++] = key;
    return st->fill_gen;
}

void store_forget(struct store *st, void *key)
{
    for (int i = 0; i < st->ndirty; i++)
        if (st->dirty[i] == key) {
            memmove(st->dirty + i, st->dirty + i + 1, (size_t)(st->ndirty - i - 1) * sizeof key);
            st->ndirty--;
            break;
        }
    /* Its rows in flight are still written; only the done hook forgets it. */
    for (int i = 0; st->flight != NULL && i < st->flight->n; i++)
        if (st->flight->rooms[i].key == key)
            st->flight->rooms[i].key = NULL;
}

struct store_room *store_row_add(struct store *st)
{
    return store__batch_add(st->fill);
}

void store_fence_set(struct store *st, uint64_t fence)
{
    st->fence = fence;
    st->fill->fence = fence;
}

unsigned long store_fill_gen(const struct store *st)
{
    return st->fill_gen;
}

unsigned long store_done_gen(const struct store *st)
{
    return st->done_gen;
}

int store_idle(const struct store *st)
{
    return !st->inflight && st->ndirty == 0 && st->fill->n == 0 && st->fill->chat == NULL &&
           st->fill->an == NULL;
}

int store_failing(const struct store *st)
{
    return st->failing;
}

void store_health_get(const struct store *st, struct store_health *h)
{
    memset(h, 0, sizeof *h);
    if (st == NULL)
        return;
    h->failing = st->failing;
    h->failures = st->failures;
    if (st->failing) {
        h->since_ms = st->failing_since;
        snprintf(h->why, sizeof h->why, "%s", st->fail_why);
    }
}

unsigned long store_batches(const struct store *st)
{
    return st->batches;
}

void store_hooks_set(struct store *st, const struct store_hooks *hooks)
{
    st->hooks = *hooks;
}

const char *store_backend_name(const struct store *st)
{
    return st->be->name;
}

void store_chat(struct store *st, const char *room, int seat, const char *name, const char *text,
                uint64_t now_ms)
{
    struct sb_chat *c = mem_zalloc(1, sizeof *c);
    snprintf(c->room, sizeof c->room, "%s", room);
    c->seat = seat;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->text = mem_strdup(text);
    c->time = now_ms ? now_ms : (uint64_t)clock_wall_ms();
    *st->fill->chat_tail = c;
    st->fill->chat_tail = &c->next;
}

void store_analysis_add(struct store *st, const char *id, const char *doc, uint64_t now_ms,
                        store_analysis_cb cb, void *arg)
{
    struct sb_analysis *a = mem_zalloc(1, sizeof *a);
    snprintf(a->id, sizeof a->id, "%s", id);
    a->doc = mem_strdup(doc);
    a->time = now_ms ? now_ms : (uint64_t)clock_wall_ms();
    a->cb = cb;
    a->arg = arg;
    *st->fill->an_tail = a;
    st->fill->an_tail = &a->next;
}

void store_analysis_forget(struct store *st, void *arg)
{
    struct batch *bs[] = {st->fill, st->flight};
    for (int i = 0; i < 2; i++)
        for (struct sb_analysis *a = bs[i] != NULL ? bs[i]->an : NULL; a != NULL; a = a->next)
            if (a->arg == arg)
                a->cb = NULL;
}

void store_record_hook_set(struct store *st, store_record_fn fn, void *arg)
{
    st->record_fn = fn;
    st->record_arg = arg;
}

/* ---- the batch cycle ---- */

/* A failed batch's chat lines and closed rooms belong to no room that could
 * write them again (rooms that still exist roll back and are marked anew):
 * they go to the front of the batch being filled, in their order, so that
 * nothing is dropped. */
static void batch_carry(struct store *st, struct batch *b)
{
    for (int i = 0; i < b->n; i++) {
        struct store_room *e = &b->rooms[i];
        if (e->gone == STORE_WRITE)
            continue;
        struct store_room *n = store__batch_add(st->fill);
        *n = *e;
        n->fenced = 0;
        e->moves = NULL;
        e->move_from = e->move_to = 0;
        e->record = e->players = e->scores = NULL;
    }
    if (b->chat != NULL) {
        struct sb_chat *last = b->chat;
        while (last->next != NULL)
            last = last->next;
        last->next = st->fill->chat;
        if (st->fill->chat == NULL)
            st->fill->chat_tail = &last->next;
        st->fill->chat = b->chat;
        b->chat = NULL;
    }
    if (b->an != NULL) { /* in front too: their askers wait for them */
        struct sb_analysis *last = b->an;
        while (last->next != NULL)
            last = last->next;
        last->next = st->fill->an;
        if (st->fill->an == NULL)
            st->fill->an_tail = &last->next;
        st->fill->an = b->an;
        b->an = NULL;
    }
}

/* A committed batch's news for the layers above: each finished game's record
 * written (not one the database refused), each analysis stored. A hook may
 * forget analyses' askers (store_analysis_forget sees the batch as flight). */
static void batch_tell(struct store *st, struct batch *b)
{
    for (int i = 0; i < b->n && st->record_fn != NULL; i++) {
        const struct store_room *e = &b->rooms[i];
        if (e->record != NULL && !e->fenced && e->status != NULL &&
            strcmp(e->status, STORE_FINISHED) == 0)
            st->record_fn(st->record_arg, e->id);
    }
    for (struct sb_analysis *a = b->an; a != NULL; a = a->next)
        if (a->cb != NULL) {
            store_analysis_cb cb = a->cb;
            a->cb = NULL;
            cb(a->arg, a->id);
        }
}

/* The health flag follows each commit: set on the first failure of a run
 * (logged once, with the database's message), cleared by the first commit
 * that works (logged too), pushed to the metrics. */
static void health_note(struct store *st, struct batch *b)
{
    if (!b->ok) {
        st->failures++;
        snprintf(st->fail_why, sizeof st->fail_why, "%s",
                 b->reason != NULL ? b->reason : "the commit failed");
    }
    if (!b->ok && !st->failing) {
        st->failing_since = (uint64_t)clock_wall_ms();
        log_error("storage: a commit failed (%s); moves are refused until it works again",
                  b->why[0] != '\0' ? b->why : "the thread pool refused the work");
    }
    if (b->ok && st->failing)
        log_warn("storage: commits work again, after %llu ms failing",
                 (unsigned long long)((uint64_t)clock_wall_ms() - st->failing_since));
    st->failing = !b->ok;
    if (b->ok)
        st->failing_since = 0;
    metrics_store_health_set(!st->failing, st->failing_since);
}

/* A failed commit: every key still marked for the batch being filled hears
 * it now (done, failed) instead of waiting for a retry that the same disk
 * will most likely refuse; what it held is answered at once. A hook may
 * forget keys (a room deleted): each is looked up again before its call. */
static void marked_fail(struct store *st, unsigned long gen)
{
    int n = st->ndirty;
    if (n == 0 || st->hooks.done == NULL)
        return;
    void **keys = mem_alloc((size_t)n * sizeof *keys);
    memcpy(keys, st->dirty, (size_t)n * sizeof *keys);
    for (int i = 0; i < n; i++) {
        int marked = 0;
        for (int k = 0; k < st->ndirty && !marked; k++)
            marked = st->dirty[k] == keys[i];
        if (marked)
            st->hooks.done(st->hooks.arg, keys[i], "", gen, 0, 0, -1);
    }
    free(keys);
}

static void batch_finish(struct store *st, struct batch *b)
{
    st->done_gen = b->gen;
    st->inflight = 0;
    st->flight = b; /* a done hook that lets go of a key (store_forget) mutes its rows */
    st->batches++;
    metrics_commit_observe(b->commit_ns, b->ok);
    health_note(st, b);
    if (!b->ok)
        batch_carry(st, b);
    for (int i = 0; i < b->n; i++) {
        struct store_room *e = &b->rooms[i];
        if (b->ok && e->fenced)
            log_event(LOG_WARN, &(struct log_fields){.room = e->id, .code = "fenced"},
                      "storage: the database refused this node's write of the room (fence"
                      " %llu): another node wrote it with a newer number",
                      (unsigned long long)(e->fence ? e->fence : b->fence));
        if (e->gone == STORE_WRITE && st->hooks.done != NULL)
            st->hooks.done(st->hooks.arg, e->key, e->id, b->gen,
                           b->ok && e->fenced ? STORE_FENCED : b->ok, e->move_to, e->seq);
    }
    if (b->ok)
        batch_tell(st, b);
    st->flight = NULL;
    if (!b->ok)
        marked_fail(st, b->gen);
    store__batch_free(b);
}

/* Turn the marked keys into the batch being filled and detach it. */
static struct batch *batch_take(struct store *st)
{
    if (st->ndirty == 0 && st->fill->n == 0 && st->fill->chat == NULL && st->fill->an == NULL)
        return NULL;
    /* fill may mark nothing new: the list is taken first. The rows a key's
     * fill adds carry the key back to the done hook. */
    for (int i = 0; i < st->ndirty; i++) {
        int from = st->fill->n;
        st->hooks.fill(st->hooks.arg, st->dirty[i]);
        for (int k = from; k < st->fill->n; k++)
            st->fill->rooms[k].key = st->dirty[i];
    }
    st->ndirty = 0;
    struct batch *b = st->fill;
    st->fill_gen++;
    st->fill = store__batch_new(st, st->fill_gen);
    return b;
}

static void on_work(uv_work_t *w)
{
    struct batch *b = w->data;
    uint64_t t0 = uv_hrtime();
    b->ok = store__batch_write(b->st, b) == 0;
    b->commit_ns = uv_hrtime() - t0;
}

static void on_release(uv_work_t *w)
{
    struct store *st = w->data;
    if (st->be->release != NULL)
        st->be->release(st);
}

static void on_after_release(uv_work_t *w, int status)
{
    (void)status;
    struct store *st = w->data;
    st->release_busy = 0;
    st->release_done(st->release_arg);
}

void store_cache_release(struct store *st, void (*done)(void *), void *arg)
{
    if (st == NULL || !st->started || st->release_busy || st->be->release == NULL) {
        done(arg);
        return;
    }
    st->release.data = st;
    st->release_done = done;
    st->release_arg = arg;
    if (uv_queue_work(st->loop, &st->release, on_release, on_after_release) == 0)
        st->release_busy = 1;
    else
        done(arg);
}

/* What the store costs the loop is measured apart from the commit itself,
 * which runs on the thread pool: building a batch and telling its rooms. */
static void on_after_work(uv_work_t *w, int status)
{
    struct batch *b = w->data;
    if (status != 0)
        b->ok = 0;
    struct store *st = b->st;
    if (st->test_fail > 0)
        st->test_fail--;
    uint64_t t0 = uv_hrtime(), commit_ns = b->commit_ns;
    batch_finish(st, b);
    if (st->started && st->be->after_batch != NULL)
        st->be->after_batch(st);
    if (st->stats != NULL) {
        loopstat_hist_add(&st->stats->store_loop, uv_hrtime() - t0);
        loopstat_hist_add(&st->stats->store_commit, commit_ns);
    }
}

static void submit(struct store *st)
{
    if (st->inflight)
        return;
    uint64_t t0 = uv_hrtime();
    struct batch *b = batch_take(st);
    if (b == NULL)
        return;
    if (st->stats != NULL)
        loopstat_hist_add(&st->stats->store_loop, uv_hrtime() - t0);
    st->inflight = 1;
    st->flight = b;
    if (uv_queue_work(st->loop, &b->work, on_work, on_after_work) != 0) {
        b->ok = 0;
        batch_finish(st, b);
    }
}

static void on_check(uv_check_t *h)
{
    struct store *st = h->data;
    if (!st->failing)
        submit(st);
}

void store_retry(struct store *st)
{
    if (st != NULL && st->failing && st->started)
        submit(st);
}

void store_start(struct store *st, struct uv_loop_s *loop, struct loopstat *stats)
{
    st->loop = loop;
    st->stats = stats;
    uv_check_init(loop, &st->check);
    st->check.data = st;
    uv_check_start(&st->check, on_check);
    st->started = 1;
}

void store_stop(struct store *st)
{
    if (st != NULL && st->started) {
        uv_close((uv_handle_t *)&st->check, NULL);
        st->started = 0;
        store__reads_stop(st);
    }
}

int store_flush(struct store *st)
{
    struct batch *b = batch_take(st);
    if (b == NULL)
        return 0;
    b->ok = store__batch_write(st, b) == 0;
    if (st->test_fail > 0)
        st->test_fail--;
    int ok = b->ok;
    batch_finish(st, b);
    return ok ? 0 : -1;
}

void store_close(struct store *st)
{
    if (st == NULL)
        return;
    store__reads_stop(st);
    st->be->close(st);
    store__batch_free(st->fill);
    free(st->dirty);
    free(st);
}

void store_test_fail(struct store *st, int n)
{
    st->test_fail = n;
}

int store_test_exec(struct store *st, const char *sql)
{
    return st->be->exec(st, sql);
}

int store_fsync_set(struct store *st, int on, char *err, size_t errlen)
{
    return st->be->fsync_set(st, on, err, errlen);
}
