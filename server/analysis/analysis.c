/* analysis/analysis.c: see analysis.h. */
#include "analysis/analysis.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "analysis_json.h"
#include "metrics/metrics.h"
#include "msg.h"
#include "store/store.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/pool.h"

/* A job's steps: QUEUED (waiting), READING (its record being read: holds a
 * thread's place), RUNNING (on the thread pool), STORED (its document handed
 * to the store, until the commit). */
enum { JOB_QUEUED, JOB_READING, JOB_RUNNING, JOB_STORED };

struct analysis_job {
    uv_work_t work;
    struct analysis *a;
    struct analysis_job *next; /* every job, oldest first */
    char id[PROTO_ROOM_MAX];
    int step;
    char *record; /* the record's text; freed once analysed */
    size_t len;
    struct store_read *rq; /* READING: the read in flight */
    struct proto_analysis_progress progress;
    /* Set on the thread pool, read in the after-work callback: */
    int rc;
    char *doc; /* the document (malloc'd by proto_analysis_run) */
    struct proto_error err;
    double cpu_s;
};

struct analysis {
    uv_loop_t *loop;
    struct store *st;
    struct analysis_config cfg;
    struct analysis_job *head, *tail;
    int njobs, nbusy; /* in memory; READING or RUNNING */
    int stopped;
    atomic_int stop; /* raised by analysis_stop: running analyses end */
};

/* The threads analyses may take at once: the pool's but one (util/pool.h). */
static int pool_room(void)
{
    int n = pool_threads_spare();
    return n > ANALYSIS_THREADS_MAX ? ANALYSIS_THREADS_MAX : n;
}

/* ANALYSIS_AUTO: the store committed the record of a game that ended. */
static void on_game_ended(void *arg, const char *id)
{
    struct analysis *a = arg;
    if (analysis_request(a, id, NULL, 0) != 0)
        log_event(LOG_WARN, &(struct log_fields){.room = id, .code = "busy"},
                  "analysis: the queue is full (analysis-queue %d); the game is not analysed",
                  a->cfg.queue);
}

struct analysis *analysis_new(uv_loop_t *loop, struct store *st, const struct analysis_config *cfg)
{
    struct analysis *a = mem_zalloc(1, sizeof *a);
    a->loop = loop;
    a->st = st;
    a->cfg = *cfg;
    a->cfg.queue = cfg->queue > 0 ? cfg->queue : ANALYSIS_QUEUE_DEFAULT;
    a->cfg.threads = cfg->threads < 1 ? 1 : cfg->threads;
    int room = pool_room();
    if (a->cfg.threads > room) {
        log_warn("analysis-threads %d would take every thread of libuv's pool from storage: %d at"
                 " once (UV_THREADPOOL_SIZE sizes the pool)",
                 a->cfg.threads, room);
        a->cfg.threads = room;
    }
    atomic_init(&a->stop, 0);
    metrics_analysis_queue_set(0);
    if (a->cfg.mode == ANALYSIS_AUTO)
        store_record_hook_set(st, on_game_ended, a);
    return a;
}

int analysis_mode(const struct analysis *a)
{
    return a->cfg.mode;
}

int analysis_threads(const struct analysis *a)
{
    return a->cfg.threads;
}

int analysis_pending(const struct analysis *a)
{
    return a->njobs;
}

static struct analysis_job *job_find(const struct analysis *a, const char *id)
{
    for (struct analysis_job *j = a->head; j != NULL; j = j->next)
        if (strcmp(j->id, id) == 0)
            return j;
    return NULL;
}

void analysis_state_get(const struct analysis *a, const char *id, struct analysis_state *out)
{
    memset(out, 0, sizeof *out);
    const struct analysis_job *j = job_find(a, id);
    if (j == NULL)
        return;
    static const int status[] = {[JOB_QUEUED] = ANALYSIS_QUEUED,
                                 [JOB_READING] = ANALYSIS_QUEUED,
                                 [JOB_RUNNING] = ANALYSIS_RUNNING,
                                 [JOB_STORED] = ANALYSIS_STORED};
    out->status = status[j->step];
    out->done = atomic_load(&j->progress.done);
    out->moves = atomic_load(&j->progress.total);
    out->doc = j->step == JOB_STORED ? j->doc : NULL;
}

/* j out of the list and freed (a read in flight cancelled). */
static void job_drop(struct analysis *a, struct analysis_job *j)
{
    struct analysis_job **p = &a->head, *prev = NULL;
    while (*p != NULL && *p != j) {
        prev = *p;
        p = &(*p)->next;
    }
    if (*p == j) {
        *p = j->next;
        if (a->tail == j)
            a->tail = prev;
        a->njobs--;
    }
    store_read_cancel(j->rq);
    free(j->record);
    free(j->doc);
    free(j);
    metrics_analysis_queue_set(a->njobs);
}

/* ---- the work ---- */

static void on_work(uv_work_t *w)
{
    struct analysis_job *j = w->data;
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    proto_error_init(&j->err);
    j->rc = proto_analysis_run(j->id, j->record, j->len, PROTO_ANALYSIS_SEED, j->a->cfg.ms_per_move,
                               &j->a->stop, &j->progress, &j->doc, &j->err);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    j->cpu_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

static void pump(struct analysis *a);

/* The store committed the batch holding id's document: it is read from the
 * database from now on. */
static void on_stored(void *arg, const char *id)
{
    struct analysis *a = arg;
    struct analysis_job *j = job_find(a, id);
    if (j != NULL && j->step == JOB_STORED)
        job_drop(a, j);
}

static void on_after_work(uv_work_t *w, int status)
{
    struct analysis_job *j = w->data;
    struct analysis *a = j->a;
    a->nbusy--;
    free(j->record);
    j->record = NULL;
    if (a->stopped || status == UV_ECANCELED) {
        job_drop(a, j);
        return;
    }
    metrics_analysis_count(j->rc == 0, j->cpu_s);
    if (j->rc != 0) {
        log_event(LOG_WARN, &(struct log_fields){.room = j->id, .code = carc_err_name(j->rc)},
                  "analysis: the game's record could not be analysed: %s%s%s", j->err.field,
                  j->err.field[0] != '\0' ? ": " : "", j->err.text);
        job_drop(a, j);
    } else {
        log_info("analysis of %s done: %d moves in %.1f s", j->id, atomic_load(&j->progress.total),
                 j->cpu_s);
        j->step = JOB_STORED;
        store_analysis_add(a->st, j->id, j->doc, 0, on_stored, a);
    }
    pump(a);
}

static void job_run(struct analysis *a, struct analysis_job *j)
{
    j->step = JOB_RUNNING;
    j->work.data = j;
    if (uv_queue_work(a->loop, &j->work, on_work, on_after_work) != 0) {
        log_event(LOG_ERROR, &(struct log_fields){.room = j->id},
                  "analysis: the thread pool refused the work");
        metrics_analysis_count(0, 0);
        a->nbusy--;
        job_drop(a, j);
    }
}

/* The record is back from the store. */
static void on_record(void *arg, int status, char *json)
{
    struct analysis_job *j = arg;
    struct analysis *a = j->a;
    j->rq = NULL;
    if (status != 200) {
        free(json);
        log_event(LOG_WARN,
                  &(struct log_fields){.room = j->id,
                                       .code = status == 404 ? "no_such_game" : "storage_error"},
                  "analysis: the game's record could not be read (%d); not analysed", status);
        metrics_analysis_count(0, 0);
        a->nbusy--;
        job_drop(a, j);
        pump(a);
        return;
    }
    j->record = json;
    j->len = strlen(json);
    job_run(a, j);
    pump(a); /* job_run may have dropped it */
}

/* Start waiting jobs, oldest first, while a thread's place is free. */
static void pump(struct analysis *a)
{
    struct analysis_job *j = a->head;
    while (!a->stopped && a->nbusy < a->cfg.threads && j != NULL) {
        struct analysis_job *next = j->next;
        if (j->step == JOB_QUEUED) {
            a->nbusy++;
            if (j->record != NULL) {
                job_run(a, j);
            } else {
                j->step = JOB_READING;
                j->rq = store_game_read(a->st, j->id, on_record, j);
                if (j->rq == NULL) { /* the reads' queue is full: dropped, a request may retry */
                    log_event(LOG_WARN, &(struct log_fields){.room = j->id, .code = "busy"},
                              "analysis: the record could not be read now; not analysed");
                    metrics_analysis_count(0, 0);
                    a->nbusy--;
                    job_drop(a, j);
                }
            }
        }
        j = next;
    }
}

int analysis_request(struct analysis *a, const char *id, const char *record, size_t len)
{
    if (job_find(a, id) != NULL)
        return 0;
    if (a->stopped || a->njobs >= a->cfg.queue)
        return CARC_E_LIMIT;
    struct analysis_job *j = mem_zalloc(1, sizeof *j);
    j->a = a;
    snprintf(j->id, sizeof j->id, "%s", id);
    atomic_init(&j->progress.done, 0);
    atomic_init(&j->progress.total, 0);
    if (record != NULL) {
        j->record = mem_strndup(record, len);
        j->len = len;
    }
    if (a->tail != NULL)
        a->tail->next = j;
    else
        a->head = j;
    a->tail = j;
    a->njobs++;
    metrics_analysis_queue_set(a->njobs);
    pump(a);
    return 0;
}

void analysis_stop(struct analysis *a)
{
    if (a == NULL || a->stopped)
        return;
    a->stopped = 1;
    atomic_store(&a->stop, 1);
    store_analysis_forget(a->st, a);
    if (a->cfg.mode == ANALYSIS_AUTO)
        store_record_hook_set(a->st, NULL, NULL);
    struct analysis_job *j = a->head;
    while (j != NULL) {
        struct analysis_job *next = j->next;
        if (j->step != JOB_RUNNING) /* a running one is dropped by its after-work */
            job_drop(a, j);
        j = next;
    }
    a->nbusy = 0;
    for (j = a->head; j != NULL; j = j->next)
        a->nbusy++;
}

void analysis_free(struct analysis *a)
{
    if (a == NULL)
        return;
    while (a->head != NULL)
        job_drop(a, a->head);
    free(a);
}
