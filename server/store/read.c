/* store/read.c: reads for HTTP (store.h): the list of records, one
 * record and one analysis, from the database, on libuv's thread pool through the backend's
 * reader connection. One read runs at a time (they are short, indexed queries, and
 * the thread pool's other threads stay free for the commits); the others wait
 * in a FIFO of at most STORE_READS_MAX, so a burst of requests cannot grow
 * memory or starve the writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"
#include "util/log.h"
#include "util/mem.h"

enum { READ_LIST, READ_RECORD, READ_ENTRY, READ_ANALYSIS };

struct store_read {
    uv_work_t work;
    struct store *st;
    struct store_read *next; /* the FIFO */
    int kind, page, running;
    char status[16];
    char id[PROTO_ROOM_MAX];
    store_read_cb cb; /* NULL: cancelled (READ_ENTRY: entry_cb) */
    store_entry_cb entry_cb;
    void *arg;
    int code;
    char *json;
    struct store_room *entry; /* READ_ENTRY's answer, malloc'd */
};

char *store_games_get(struct store *st, int page, const char *status, int *code)
{
    return st->be->games_get(st, page < 1 ? 1 : page, status, code);
}

char *store_game_get(struct store *st, const char *id, int *code)
{
    return st->be->game_get(st, id, code);
}

char *store_analysis_get(struct store *st, const char *id, int *code)
{
    return st->be->analysis_get(st, id, code);
}

/* ---- the queue ---- */

static void pump(struct store *st);

static void read_work(uv_work_t *w)
{
    struct store_read *rq = w->data;
    if (rq->kind == READ_LIST)
        rq->json = rq->st->be->games_get(rq->st, rq->page, rq->status, &rq->code);
    else if (rq->kind == READ_ENTRY)
        rq->code = rq->st->be->entry_get(rq->st, rq->id, rq->entry);
    else if (rq->kind == READ_ANALYSIS)
        rq->json = rq->st->be->analysis_get(rq->st, rq->id, &rq->code);
    else
        rq->json = rq->st->be->game_get(rq->st, rq->id, &rq->code);
}

/* rq's answer to its asker (if any), and rq freed. */
static void read_answer(struct store_read *rq)
{
    if (rq->kind == READ_ENTRY) {
        if (rq->code != 200)
            store__row_clear(rq->entry);
        if (rq->entry_cb != NULL && rq->code == 200) {
            rq->entry_cb(rq->arg, 200, rq->entry); /* the asker frees it */
            rq->entry = NULL;
        } else if (rq->entry_cb != NULL) {
            rq->entry_cb(rq->arg, rq->code, NULL);
        }
        store_entry_free(rq->entry);
    } else if (rq->cb != NULL) {
        rq->cb(rq->arg, rq->code, rq->json);
    } else {
        free(rq->json);
    }
    free(rq);
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
    read_answer(rq);
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
        rq->code = 503;
        read_answer(rq);
    }
}

static struct store_read *read_new(struct store *st, int kind, store_read_cb cb, void *arg)
{
    if (!st->started || st->rq_len >= STORE_READS_MAX)
        return NULL;
    struct store_read *rq = mem_zalloc(1, sizeof *rq);
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

struct store_read *store_entry_read(struct store *st, const char *id, store_entry_cb cb, void *arg)
{
    struct store_read *rq = read_new(st, READ_ENTRY, NULL, arg);
    if (rq == NULL)
        return NULL;
    rq->entry_cb = cb;
    rq->entry = mem_zalloc(1, sizeof *rq->entry);
    snprintf(rq->id, sizeof rq->id, "%s", id);
    return read_submit(rq);
}

void store_entry_free(struct store_room *e)
{
    if (e == NULL)
        return;
    store__row_clear(e);
    free(e);
}

static struct store_read *id_read(struct store *st, int kind, const char *id, store_read_cb cb,
                                  void *arg)
{
    struct store_read *rq = read_new(st, kind, cb, arg);
    if (rq == NULL)
        return NULL;
    snprintf(rq->id, sizeof rq->id, "%s", id);
    return read_submit(rq);
}

struct store_read *store_game_read(struct store *st, const char *id, store_read_cb cb, void *arg)
{
    return id_read(st, READ_RECORD, id, cb, arg);
}

struct store_read *store_analysis_read(struct store *st, const char *id, store_read_cb cb,
                                       void *arg)
{
    return id_read(st, READ_ANALYSIS, id, cb, arg);
}

void store_read_cancel(struct store_read *rq)
{
    if (rq == NULL)
        return;
    if (rq->running) {
        rq->cb = NULL; /* read_after frees it */
        rq->entry_cb = NULL;
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
    store_entry_free(rq->entry);
    free(rq);
}

void store__reads_stop(struct store *st)
{
    while (st->rq_head != NULL) {
        struct store_read *rq = st->rq_head;
        st->rq_head = rq->next;
        st->rq_len--;
        rq->code = 503;
        read_answer(rq);
    }
    st->rq_tail = NULL;
}
