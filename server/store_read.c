/* store_read.c: reads for HTTP (store.h): the list of records and one
 * record, from the database, on libuv's thread pool through the read-only
 * connection. One read runs at a time (they are short, indexed queries, and
 * the thread pool's other threads stay free for the commits); the others wait
 * in a FIFO of at most STORE_READS_MAX, so a burst of requests cannot grow
 * memory or starve the writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sbuf.h"
#include "store_int.h"

enum { READ_LIST, READ_RECORD };

struct store_read {
    uv_work_t work;
    struct store *st;
    struct store_read *next; /* the FIFO */
    int kind, page, running;
    char status[16];
    char id[PROTO_ROOM_MAX];
    store_read_cb cb; /* NULL: cancelled */
    void *arg;
    int code;
    char *json;
};

/* ---- a growing text ---- */

struct text {
    char *s;
    size_t n, cap;
};

static void text_add(struct text *t, const char *s, size_t len)
{
    if (t->n + len + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->n + len + 1)
            cap *= 2;
        char *p = realloc(t->s, cap);
        if (p == NULL)
            srv_oom("store read");
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, len);
    t->n += len;
    t->s[t->n] = '\0';
}

static void text_str(struct text *t, const char *s)
{
    text_add(t, s, strlen(s));
}

/* ---- the queries (any thread; only db is touched) ---- */

static char *games_get(sqlite3 *db, int page, const char *status, int *code)
{
    sqlite3_stmt *count = NULL, *q = NULL;
    struct text t = {0};
    *code = 503;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM games WHERE status = ?", -1, &count, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT room, finished, players, scores FROM games WHERE status = ?"
                           " ORDER BY finished DESC, room DESC LIMIT ? OFFSET ?",
                           -1, &q, NULL) != SQLITE_OK)
        goto out;
    sqlite3_bind_text(count, 1, status, -1, SQLITE_STATIC);
    if (sqlite3_step(count) != SQLITE_ROW)
        goto out;
    long long total = sqlite3_column_int64(count, 0);
    char buf[256];
    snprintf(buf, sizeof buf, "{\"page\":%d,\"per_page\":%d,\"total\":%lld,\"games\":[", page,
             STORE_PAGE, total);
    text_str(&t, buf);
    sqlite3_bind_text(q, 1, status, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 2, STORE_PAGE);
    sqlite3_bind_int64(q, 3, (sqlite3_int64)(page - 1) * STORE_PAGE);
    int rc, k = 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        size_t n = 0;
        n += (size_t)snprintf(buf, sizeof buf, "%s{\"id\":", k++ ? "," : "");
        store__json_str(buf, sizeof buf, &n, (const char *)sqlite3_column_text(q, 0));
        n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"status\":\"%s\",\"finished\":%lld",
                              status, (long long)sqlite3_column_int64(q, 1));
        text_add(&t, buf, n);
        /* players and scores are stored as JSON arrays written by the store. */
        text_str(&t, ",\"players\":");
        text_str(&t, (const char *)sqlite3_column_text(q, 2));
        text_str(&t, ",\"scores\":");
        text_str(&t, (const char *)sqlite3_column_text(q, 3));
        text_str(&t, "}");
    }
    if (rc != SQLITE_DONE)
        goto out;
    text_str(&t, "]}");
    *code = 200;
out:
    if (*code != 200) {
        log_error("storage: cannot list games: %s", sqlite3_errmsg(db));
        free(t.s);
        t.s = NULL;
    }
    sqlite3_finalize(count);
    sqlite3_finalize(q);
    return t.s;
}

static char *game_get(sqlite3 *db, const char *id, int *code)
{
    sqlite3_stmt *q = NULL;
    char *out = NULL;
    *code = 503;
    if (sqlite3_prepare_v2(db, "SELECT record FROM games WHERE room = ?", -1, &q, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
        int rc = sqlite3_step(q);
        if (rc == SQLITE_ROW) {
            out = store__strdup((const char *)sqlite3_column_text(q, 0));
            *code = 200;
        } else if (rc == SQLITE_DONE) {
            *code = 404;
        }
    }
    if (*code == 503)
        log_event(LOG_ERROR, &(struct log_fields){.room = id, .code = "storage_error"},
                  "storage: cannot read the game: %s", sqlite3_errmsg(db));
    sqlite3_finalize(q);
    return out;
}

char *store_games_get(struct store *st, int page, const char *status, int *code)
{
    return games_get(st->rdb, page < 1 ? 1 : page, status, code);
}

char *store_game_get(struct store *st, const char *id, int *code)
{
    return game_get(st->rdb, id, code);
}

/* ---- the queue ---- */

static void pump(struct store *st);

static void read_work(uv_work_t *w)
{
    struct store_read *rq = w->data;
    if (rq->kind == READ_LIST)
        rq->json = games_get(rq->st->rdb, rq->page, rq->status, &rq->code);
    else
        rq->json = game_get(rq->st->rdb, rq->id, &rq->code);
}

static void read_after(uv_work_t *w, int status)
{
    struct store_read *rq = w->data;
    struct store *st = rq->st;
    st->rq_busy = 0;
    if (status != 0) {
        free(rq->json);
        rq->json = NULL;
        rq->code = 503;
    }
    if (rq->cb != NULL)
        rq->cb(rq->arg, rq->code, rq->json);
    else
        free(rq->json);
    free(rq);
    pump(st);
}

static void pump(struct store *st)
{
    while (!st->rq_busy && st->rq_head != NULL) {
        struct store_read *rq = st->rq_head;
        st->rq_head = rq->next;
        if (st->rq_head == NULL)
            st->rq_tail = NULL;
        st->rq_len--;
        rq->next = NULL;
        rq->running = 1;
        rq->work.data = rq;
        if (uv_queue_work(st->loop, &rq->work, read_work, read_after) == 0) {
            st->rq_busy = 1;
            return;
        }
        if (rq->cb != NULL)
            rq->cb(rq->arg, 503, NULL);
        free(rq);
    }
}

static struct store_read *read_new(struct store *st, int kind, store_read_cb cb, void *arg)
{
    if (!st->started || st->rq_len >= STORE_READS_MAX)
        return NULL;
    struct store_read *rq = calloc(1, sizeof *rq);
    if (rq == NULL)
        srv_oom("store read");
    rq->st = st;
    rq->kind = kind;
    rq->cb = cb;
    rq->arg = arg;
    return rq;
}

static struct store_read *read_submit(struct store_read *rq)
{
    struct store *st = rq->st;
    if (st->rq_tail != NULL)
        st->rq_tail->next = rq;
    else
        st->rq_head = rq;
    st->rq_tail = rq;
    st->rq_len++;
    /* Started on the next turn would do too, but the queue is empty most of
     * the time and the caller's state is ready: start it now. The callback
     * never runs before this returns (it runs after the work, on the loop). */
    pump(st);
    return rq;
}

struct store_read *store_games_read(struct store *st, int page, const char *status,
                                    store_read_cb cb, void *arg)
{
    struct store_read *rq = read_new(st, READ_LIST, cb, arg);
    if (rq == NULL)
        return NULL;
    rq->page = page < 1 ? 1 : page;
    snprintf(rq->status, sizeof rq->status, "%s", status);
    return read_submit(rq);
}

struct store_read *store_game_read(struct store *st, const char *id, store_read_cb cb, void *arg)
{
    struct store_read *rq = read_new(st, READ_RECORD, cb, arg);
    if (rq == NULL)
        return NULL;
    snprintf(rq->id, sizeof rq->id, "%s", id);
    return read_submit(rq);
}

void store_read_cancel(struct store_read *rq)
{
    if (rq == NULL)
        return;
    if (rq->running) {
        rq->cb = NULL; /* read_after frees it */
        return;
    }
    struct store *st = rq->st;
    struct store_read **p = &st->rq_head, *prev = NULL;
    while (*p != NULL && *p != rq) {
        prev = *p;
        p = &(*p)->next;
    }
    if (*p == rq) {
        *p = rq->next;
        if (st->rq_tail == rq)
            st->rq_tail = prev;
        st->rq_len--;
    }
    free(rq);
}

void store__reads_stop(struct store *st)
{
    while (st->rq_head != NULL) {
        struct store_read *rq = st->rq_head;
        st->rq_head = rq->next;
        st->rq_len--;
        if (rq->cb != NULL)
            rq->cb(rq->arg, 503, NULL);
        free(rq);
    }
    st->rq_tail = NULL;
}
