/* store.c: the batch being filled on the loop and the batch cycle (store.h,
 * store_int.h). Rows are copied from the rooms here, on the loop; they are
 * written by store__batch_write (store_sql.c) on the thread pool. */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lobby.h"
#include "log.h"
#include "loopstat.h"
#include "metrics/metrics.h"
#include "room.h"
#include "sbuf.h"
#include "store_int.h"

uint64_t store__wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

char *store__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d == NULL)
        srv_oom("store");
    memcpy(d, s, n);
    return d;
}

struct batch *store__batch_new(struct store *st, unsigned long gen)
{
    struct batch *b = calloc(1, sizeof *b);
    if (b == NULL)
        srv_oom("store batch");
    b->st = st;
    b->gen = gen;
    b->chat_tail = &b->chat;
    b->work.data = b;
    return b;
}

struct sb_room *store__batch_add(struct batch *b)
{
    if (b->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 16;
        struct sb_room *r = realloc(b->rooms, (size_t)cap * sizeof *r);
        if (r == NULL)
            srv_oom("store batch");
        b->rooms = r;
        b->cap = cap;
    }
    struct sb_room *e = &b->rooms[b->n++];
    memset(e, 0, sizeof *e);
    return e;
}

void store__batch_free(struct batch *b)
{
    for (int i = 0; i < b->n; i++) {
        struct sb_room *e = &b->rooms[i];
        for (int k = 0; k < e->move_to - e->move_from && e->moves != NULL; k++)
            free(e->moves[k]);
        free(e->moves);
        free(e->record);
        free(e->players);
        free(e->scores);
    }
    free(b->rooms);
    while (b->chat != NULL) {
        struct sb_chat *c = b->chat;
        b->chat = c->next;
        free(c->text);
        free(c);
    }
    free(b);
}

/* ---- JSON bits ---- */

void store__json_str(char *out, size_t size, size_t *n, const char *s)
{
    if (*n + 1 < size)
        out[(*n)++] = '"';
    for (; *s != '\0' && *n + 8 < size; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            out[(*n)++] = '\\';
            out[(*n)++] = (char)ch;
        } else if (ch < 0x20) {
            *n += (size_t)snprintf(out + *n, size - *n, "\\u%04x", ch);
        } else {
            out[(*n)++] = (char)ch;
        }
    }
    if (*n + 1 < size)
        out[(*n)++] = '"';
    out[*n] = '\0';
}

/* ---- the batch being filled ---- */

void store__record_entry(struct sb_room *e, const struct room *r, const char *status,
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
        store__json_str(buf, sizeof buf, &n, r->seats[i].name);
    }
    buf[n++] = ']';
    buf[n] = '\0';
    e->players = store__strdup(buf);
    n = (size_t)snprintf(buf, sizeof buf, "[");
    for (int i = 0; i < r->nseats; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", i ? "," : "",
                              (int)r->game->players[i].score);
    snprintf(buf + n, sizeof buf - n, "]");
    e->scores = store__strdup(buf);
}

static void snapshot(struct store *st, struct room *r)
{
    struct sb_room *e = store__batch_add(st->fill);
    snprintf(e->id, sizeof e->id, "%s", r->id);
    e->sets = (int)r->sets;
    e->no_farmers = r->no_farmers;
    e->escape_rule = r->escape_rule;
    e->variants = r->farm_rule | r->small_city << 2 | r->seat_random << 3;
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
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].taken) {
            const struct room_seat *rs = &r->seats[i];
            struct sb_seat *s = &e->seats[e->nseat++];
            s->idx = i;
            memcpy(s->name, rs->name, sizeof s->name);
            memcpy(s->hash, rs->token_hash, sizeof s->hash);
            s->bot = rs->bot;
            s->autoplay = rs->autoplay;
            s->forfeited = rs->forfeited;
            s->timeouts = rs->timeouts;
            s->clock_ms = rs->clock_ms;
        }
    e->move_from = r->moves_saved;
    e->move_to = r->nmoves;
    if (e->move_to > e->move_from) {
        e->moves = calloc((size_t)(e->move_to - e->move_from), sizeof *e->moves);
        if (e->moves == NULL)
            srv_oom("store batch");
        char buf[256];
        for (int i = e->move_from; i < e->move_to; i++) {
            if (room_move_json(r, i, buf, sizeof buf) < 0)
                snprintf(buf, sizeof buf, "null");
            e->moves[i - e->move_from] = store__strdup(buf);
        }
    }
    r->moves_saved = r->nmoves;
    if (r->phase == PROTO_PHASE_OVER && !r->finish_saved && r->game != NULL) {
        store__record_entry(e, r, STORE_FINISHED, NULL);
        r->finish_saved = 1;
    }
    r->dirty = 0;
}

unsigned long store_room_dirty(struct store *st, struct room *r)
{
    uint64_t now = store__wall_ms();
    if (r->created_ms == 0)
        r->created_ms = now;
    r->updated_ms = now;
    if (!r->dirty) {
        r->dirty = 1;
        r->dnext = st->dirty;
        st->dirty = r;
    }
    return st->fill_gen;
}

unsigned long store_done_gen(const struct store *st)
{
    return st->done_gen;
}

int store_failing(const struct store *st)
{
    return st->failing;
}

unsigned long store_batches(const struct store *st)
{
    return st->batches;
}

int store_wal_pages(const struct store *st)
{
    return st->wal_pages;
}

static void dirty_unlink(struct store *st, struct room *r)
{
    for (struct room **p = &st->dirty; *p != NULL; p = &(*p)->dnext)
        if (*p == r) {
            *p = r->dnext;
            break;
        }
    r->dirty = 0;
    r->dnext = NULL;
}

static void room_forget(struct store *st, struct room *r, int gone, const char *closed);

void store_room_forget(struct store *st, struct room *r, int gone)
{
    room_forget(st, r, gone, "room-ttl");
}

void store_room_close(struct store *st, struct room *r, const char *closed)
{
    room_forget(st, r, r->phase == PROTO_PHASE_LOBBY ? SB_DELETE : SB_CLOSE, closed);
}

static void room_forget(struct store *st, struct room *r, int gone, const char *closed)
{
    if (r->dirty) {
        if (gone == 2)
            snapshot(st, r);
        dirty_unlink(st, r);
    }
    if (gone) {
        struct sb_room *e = store__batch_add(st->fill);
        snprintf(e->id, sizeof e->id, "%s", r->id);
        e->gone = gone;
        e->updated = store__wall_ms();
        /* A game closed before its end is kept as a record too. */
        if (gone == SB_CLOSE && r->phase == PROTO_PHASE_PLAYING && r->game != NULL)
            store__record_entry(e, r, STORE_ABANDONED, closed);
    }
}

void store_chat(struct store *st, const struct room *r, int seat, const char *name,
                const char *text, uint64_t now_ms)
{
    struct sb_chat *c = calloc(1, sizeof *c);
    if (c == NULL)
        srv_oom("store chat");
    snprintf(c->room, sizeof c->room, "%s", r->id);
    c->seat = seat;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->text = store__strdup(text);
    c->time = now_ms ? now_ms : store__wall_ms();
    *st->fill->chat_tail = c;
    st->fill->chat_tail = &c->next;
}

/* ---- the batch cycle ---- */

/* A failed batch's chat lines and closed rooms belong to no room that could
 * write them again (rooms that still exist are marked dirty and snapshot
 * anew): they go to the front of the batch being filled, in their order, so
 * that nothing is dropped. */
static void batch_carry(struct store *st, struct batch *b)
{
    for (int i = 0; i < b->n; i++) {
        struct sb_room *e = &b->rooms[i];
        if (e->gone == SB_WRITE)
            continue;
        struct sb_room *n = store__batch_add(st->fill);
        *n = *e;
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
}

static void batch_finish(struct store *st, struct batch *b)
{
    st->done_gen = b->gen;
    st->inflight = 0;
    st->batches++;
    metrics_commit_observe(b->commit_ns, b->ok);
    if (!b->ok && !st->failing)
        log_error("storage: a commit failed (%s); moves are refused until it works again",
                  b->why[0] != '\0' ? b->why : "the thread pool refused the work");
    if (b->ok && st->failing)
        log_warn("storage: commits work again");
    st->failing = !b->ok;
    if (!b->ok)
        batch_carry(st, b);
    for (int i = 0; i < b->n; i++) {
        struct sb_room *e = &b->rooms[i];
        if (e->gone == 0 && st->lb != NULL) {
            struct room *r = lobby_room_find(st->lb, e->id);
            if (r != NULL)
                room_store_done(r, b->gen, b->ok, e->move_to);
        }
    }
    store__batch_free(b);
}

/* Turn the dirty rooms into the batch being filled and detach it. */
static struct batch *batch_take(struct store *st)
{
    if (st->dirty == NULL && st->fill->n == 0 && st->fill->chat == NULL)
        return NULL;
    while (st->dirty != NULL) {
        struct room *r = st->dirty;
        st->dirty = r->dnext;
        r->dnext = NULL;
        snapshot(st, r);
    }
    struct batch *b = st->fill;
    st->fill_gen++;
    st->fill = store__batch_new(st, st->fill_gen);
    return b;
}

static void on_work(uv_work_t *w)
{
    struct batch *b = w->data;
    uint64_t t0 = uv_hrtime();
    b->ok = store__batch_write(b->st->db, b, b->st->test_fail > 0) == 0;
    b->commit_ns = uv_hrtime() - t0;
}

/* What the store costs the loop is measured apart from the commit itself,
 * which runs on the thread pool: building a batch and telling its rooms. */
/* A passive checkpoint copies the WAL into the database while commits go on
 * (it waits for nobody); the WAL starts over once it is all copied. */
static void on_ckpt(uv_work_t *w)
{
    struct store *st = w->data;
    int rc = sqlite3_wal_checkpoint_v2(st->cdb, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY)
        log_warn("storage: checkpoint: %s", sqlite3_errmsg(st->cdb));
}

static void on_after_ckpt(uv_work_t *w, int status)
{
    (void)status;
    ((struct store *)w->data)->ckpt_busy = 0;
}

static void ckpt_maybe(struct store *st)
{
    if (st->ckpt_busy || !st->started || st->wal_pages < STORE_CKPT_PAGES)
        return;
    st->ckpt.data = st;
    if (uv_queue_work(st->loop, &st->ckpt, on_ckpt, on_after_ckpt) == 0)
        st->ckpt_busy = 1;
}

static void on_release(uv_work_t *w)
{
    struct store *st = w->data;
    sqlite3_db_release_memory(st->db);
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
    if (st == NULL || !st->started || st->release_busy) {
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
    ckpt_maybe(st);
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

void store_start(struct store *st, struct uv_loop_s *loop, struct lobby *lb, struct loopstat *stats)
{
    st->loop = loop;
    st->lb = lb;
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

int store_flush(struct store *st, struct lobby *lb)
{
    st->lb = lb;
    struct batch *b = batch_take(st);
    if (b == NULL)
        return 0;
    b->ok = store__batch_write(st->db, b, st->test_fail > 0) == 0;
    if (st->test_fail > 0)
        st->test_fail--;
    int ok = b->ok;
    batch_finish(st, b);
    return ok ? 0 : -1;
}
