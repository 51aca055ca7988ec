/* bots.h: built-in bots' searches, run off the loop.
 *
 * A room that needs a move for a bot (a bot seat, or a person's seat a bot
 * plays) hands a copy of its game to bots_job_start and gets the move back
 * through a callback on the loop thread, where it applies it like any other
 * move. The search itself is carc_bot_choose (common/bot.h), pure
 * computation on libuv's thread pool (uv_queue_work), stopped by a flag when
 * the think time runs out: the loop never waits for it.
 *
 * Sharing: at most `running` searches use the thread pool at once, and never
 * every thread of it (bots_running_max), so that storage's commits, which
 * share it, always find one. Further jobs wait in two FIFOs: the searches of
 * rooms someone is connected to (BOTS_WATCHED) go before those of rooms
 * nobody is (BOTS_ALONE). An asker has at most one job at a time (a room
 * keeps it in r->job) and asks for the next move only once the last one came
 * back, so the FIFO is a round robin of rooms: a room of five bots waits its
 * turn behind every other room for each of its moves.
 *
 * Without a loop (bots_new(NULL, ...): the unit tests) jobs only queue, and
 * bots_run_pending runs them on the caller's thread, in the same order.
 *
 * Owner: the process (main.c) owns struct bots; each job belongs to the bots
 * until its callback returns or it is cancelled. Only bots.c includes
 * bot.h's search and uv's work API. */
#ifndef CARCD_BOTS_H
#define CARCD_BOTS_H

#include <stdint.h>

#include "game.h"

struct bots;
struct bots_job;
struct uv_loop_s;
struct stall;

/* Which FIFO a job waits in: rooms with people connected first. */
enum bots_class {
    BOTS_WATCHED,
    BOTS_ALONE,
};

/* Called on the loop with status 0 and the chosen move (player filled in),
 * or a negative CARC_E_* code (the game was over) and m NULL. now: the
 * loop's clock (ms). */
typedef void (*bots_done_fn)(void *arg, int status, const struct carc_move *m, uint64_t now);

/* loop NULL: manual mode (tests). running: searches on the thread pool at
 * once, from 1 to bots_running_max() (clamped, with a warning when asked for
 * more). think_ms: the time a search may take before its stop flag is raised
 * (0: no limit, the search's own budget alone). Never NULL. */
struct bots *bots_new(struct uv_loop_s *loop, int running, int think_ms);
/* The most searches that may run at once: the thread pool's threads
 * (UV_THREADPOOL_SIZE, read as libuv reads it; 4 by default) but one, and at
 * least 1. */
int bots_running_max(void);
/* The searches b runs at once (running as clamped by bots_new). */
int bots_running(const struct bots *b);
/* Moves are delivered at st's clock (util/stall.h: a stall is credited
 * before the move is charged); without it, at uv_now. st outlives b. */
void bots_stall_set(struct bots *b, struct stall *st);
/* Stop: every job's callback runs at once with CARC_E_INVAL (its asker lets
 * go of it), running searches are stopped, and no callback runs any more. Call from inside the loop
 * (it closes a timer); bots_free after uv_run has returned. */
void bots_stop(struct bots *b);
void bots_free(struct bots *b);

/* Start a search for g->current at level (enum carc_bot_level) with seed,
 * waiting in the FIFO of cls (enum bots_class). g is copied. Returns the
 * job, or NULL when stopped (fn is then never called). One job per asker at
 * a time (the caller keeps to it). */
struct bots_job *bots_job_start(struct bots *b, const struct carc_game *g, int level, uint64_t seed,
                                int cls, bots_done_fn fn, void *arg);
/* The asker no longer wants the answer: fn will not be called. A job still
 * waiting is dropped at once (its copy of the game freed); a running one is
 * told to stop. j may be NULL; j is not to be used after this. */
void bots_job_cancel(struct bots_job *j);
/* Someone came to the asker's room: a job waiting in BOTS_ALONE moves to the
 * end of BOTS_WATCHED. A running job, or NULL, is left as it is. */
void bots_job_promote(struct bots_job *j);

/* Manual mode: run every queued job now, in order, calling each callback
 * with now. Returns the number run. */
int bots_run_pending(struct bots *b, uint64_t now);
/* Jobs waiting or running (tests, stats). */
int bots_pending(const struct bots *b);

#endif
