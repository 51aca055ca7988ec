/* bots.c: see bots.h. */
#include "game/bots.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "bot.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/pool.h"
#include "util/stall.h"

#define BOTS_RUN_MAX 16 /* struct bots.run */
#define BOTS_CLASSES 2  /* enum bots_class */

struct bots_job {
    uv_work_t work;
    struct bots *b;
    struct bots_job *prev, *next; /* its class's FIFO while it waits */
    int cls;                      /* enum bots_class */
    struct carc_game game;
    int level;
    uint64_t seed;
    bots_done_fn fn; /* NULL once cancelled */
    void *arg;
    atomic_int stop;
    int running;       /* on the thread pool */
    uint64_t deadline; /* loop ms when stop is raised; 0: none */
    int status;
    struct carc_move move;
};

/* A FIFO of waiting jobs, doubly linked so that a cancelled or promoted job
 * leaves it at once. */
struct bots_fifo {
    struct bots_job *head, *tail;
};

struct bots {
    uv_loop_t *loop;     /* NULL: manual */
    struct stall *stall; /* the clock a move is delivered at; NULL: uv_now */
    uv_timer_t timer;    /* raises stop flags; runs while searches run */
    int timer_on, stopped;
    int max_running, think_ms;
    int nrunning, nwaiting;
    struct bots_fifo wait[BOTS_CLASSES];
    struct bots_job *run[BOTS_RUN_MAX]; /* the jobs on the thread pool */
};

int bots_running_max(void)
{
    int n = pool_threads_spare();
    return n > BOTS_RUN_MAX ? BOTS_RUN_MAX : n;
}

struct bots *bots_new(uv_loop_t *loop, int running, int think_ms)
{
    struct bots *b = mem_zalloc(1, sizeof *b);
    int max = bots_running_max();
    b->loop = loop;
    b->max_running = running < 1 ? 1 : running;
    if (b->max_running > max) {
        log_event(LOG_WARN, NULL,
                  "bot-searches %d would take every thread of libuv's pool from storage: %d "
                  "searches at once (UV_THREADPOOL_SIZE sizes the pool)",
                  b->max_running, max);
        b->max_running = max;
    }
    b->think_ms = think_ms > 0 ? think_ms : 0;
    if (loop != NULL) {
        uv_timer_init(loop, &b->timer);
        b->timer.data = b;
        b->timer_on = 1;
    }
    return b;
}

int bots_running(const struct bots *b)
{
    return b->max_running;
}

static void fifo_push(struct bots *b, struct bots_job *j)
{
    struct bots_fifo *q = &b->wait[j->cls];
    j->next = NULL;
    j->prev = q->tail;
    if (q->tail != NULL)
        q->tail->next = j;
    else
        q->head = j;
    q->tail = j;
    b->nwaiting++;
}

static void fifo_unlink(struct bots *b, struct bots_job *j)
{
    struct bots_fifo *q = &b->wait[j->cls];
    if (j->prev != NULL)
        j->prev->next = j->next;
    else
        q->head = j->next;
    if (j->next != NULL)
        j->next->prev = j->prev;
    else
        q->tail = j->prev;
    j->prev = j->next = NULL;
    b->nwaiting--;
}

/* The next job to run: the first of the first FIFO that has one, unlinked;
 * NULL when none waits. */
static struct bots_job *fifo_pop(struct bots *b)
{
    for (int c = 0; c < BOTS_CLASSES; c++) {
        struct bots_job *j = b->wait[c].head;
        if (j != NULL) {
            fifo_unlink(b, j);
            return j;
        }
    }
    return NULL;
}

/* The search itself: on a thread of the pool (or the caller's, manual). */
static void job_search(struct bots_job *j)
{
    struct carc_bot_search *w = malloc(sizeof *w);
    if (w == NULL) {
        j->status = CARC_E_NOMEM;
        return;
    }
    j->status = carc_bot_choose(w, &j->game, j->level, j->seed, 0, &j->stop, &j->move);
    free(w);
}

static void on_work(uv_work_t *req)
{
    job_search(req->data);
}

void bots_stall_set(struct bots *b, struct stall *st)
{
    b->stall = st;
}

/* The clock a move is played at: a search that comes back right after a
 * stall of the loop has the stall credited first (stall.h). */
static uint64_t loop_now(struct bots *b)
{
    return b->stall != NULL ? stall_now(b->stall) : uv_now(b->loop);
}

static void job_deliver(struct bots_job *j, uint64_t now)
{
    if (j->fn != NULL)
        j->fn(j->arg, j->status, j->status == 0 ? &j->move : NULL, now);
    free(j);
}

static void bots_pump(struct bots *b);

static void on_after_work(uv_work_t *req, int status)
{
    struct bots_job *j = req->data;
    struct bots *b = j->b;
    for (int i = 0; i < b->nrunning; i++)
        if (b->run[i] == j) {
            b->run[i] = b->run[--b->nrunning];
            break;
        }
    if (status == UV_ECANCELED && j->status == 0)
        j->status = CARC_E_INVAL;
    if (b->stopped)
        j->fn = NULL;
    job_deliver(j, loop_now(b));
    if (!b->stopped)
        bots_pump(b);
}

static void on_timer(uv_timer_t *t)
{
    struct bots *b = t->data;
    uint64_t now = uv_now(b->loop);
    for (int i = 0; i < b->nrunning; i++)
        if (b->run[i]->deadline != 0 && now >= b->run[i]->deadline)
            atomic_store(&b->run[i]->stop, 1);
    if (b->nrunning == 0)
        uv_timer_stop(&b->timer);
}

/* Move waiting jobs to the thread pool while there is room. */
static void bots_pump(struct bots *b)
{
    while (b->loop != NULL && b->nrunning < b->max_running) {
        struct bots_job *j = fifo_pop(b);
        if (j == NULL)
            break;
        j->running = 1;
        j->work.data = j;
        if (b->think_ms > 0)
            j->deadline = uv_now(b->loop) + (uint64_t)b->think_ms;
        if (uv_queue_work(b->loop, &j->work, on_work, on_after_work) != 0) {
            j->status = CARC_E_NOMEM;
            job_deliver(j, uv_now(b->loop));
            continue;
        }
        b->run[b->nrunning++] = j;
        if (b->think_ms > 0 && !uv_is_active((uv_handle_t *)&b->timer))
            uv_timer_start(&b->timer, on_timer, 50, 50);
    }
}

struct bots_job *bots_job_start(struct bots *b, const struct carc_game *g, int level, uint64_t seed,
                                int cls, bots_done_fn fn, void *arg)
{
    if (b->stopped)
        return NULL;
    struct bots_job *j = mem_zalloc(1, sizeof *j);
    j->b = b;
    j->cls = cls == BOTS_ALONE ? BOTS_ALONE : BOTS_WATCHED;
    j->game = *g;
    j->level = level;
    j->seed = seed;
    j->fn = fn;
    j->arg = arg;
    atomic_init(&j->stop, 0);
    fifo_push(b, j);
    bots_pump(b);
    return j;
}

void bots_job_cancel(struct bots_job *j)
{
    if (j == NULL)
        return;
    if (!j->running) { /* still waiting: nothing of it runs, it goes now */
        fifo_unlink(j->b, j);
        free(j);
        return;
    }
    j->fn = NULL; /* freed when the thread pool gives it back */
    atomic_store(&j->stop, 1);
}

void bots_job_promote(struct bots_job *j)
{
    if (j == NULL || j->running || j->cls == BOTS_WATCHED)
        return;
    fifo_unlink(j->b, j);
    j->cls = BOTS_WATCHED;
    fifo_push(j->b, j);
}

int bots_run_pending(struct bots *b, uint64_t now)
{
    int n = 0;
    struct bots_job *j;
    while (b->loop == NULL && (j = fifo_pop(b)) != NULL) {
        j->running = 1; /* its callback may cancel other jobs, never this one */
        job_search(j);
        job_deliver(j, now);
        n++;
    }
    return n;
}

int bots_pending(const struct bots *b)
{
    return b->nwaiting + b->nrunning;
}

void bots_stop(struct bots *b)
{
    if (b == NULL || b->stopped)
        return;
    b->stopped = 1;
    uint64_t now = b->loop != NULL ? uv_now(b->loop) : 0;
    /* Every asker hears that its job is over, so that none keeps a pointer to it. */
    struct bots_job *j;
    while ((j = fifo_pop(b)) != NULL) {
        j->running = 1; /* a callback cancelling it must not free it twice */
        j->status = CARC_E_INVAL;
        job_deliver(j, now);
    }
    for (int i = 0; i < b->nrunning; i++) {
        j = b->run[i];
        if (j->fn != NULL)
            j->fn(j->arg, CARC_E_INVAL, NULL, now);
        j->fn = NULL; /* freed when the thread pool gives it back */
        atomic_store(&j->stop, 1);
    }
    if (b->timer_on) {
        uv_close((uv_handle_t *)&b->timer, NULL);
        b->timer_on = 0;
    }
}

void bots_free(struct bots *b)
{
    if (b == NULL)
        return;
    if (b->loop == NULL)
        bots_stop(b);
    free(b);
}
