/* bots.h: built-in bots' searches, run off the loop.
 *
 * A room that needs a move for a bot (a bot seat, or a person's seat a bot
 * plays) hands a copy of its game to bots_job_start and gets the move back
 * through a callback on the loop thread, where it applies it like any other
 * move. The search itself is carc_bot_choose (common/bot.h), pure
 * computation on libuv's thread pool (uv_queue_work), stopped by a flag when
 * the think time runs out: the loop never waits for it.
 *
 * At most `running` searches use the thread pool at once, so that storage's
 * commits, which share it, always find a thread; further jobs wait in a FIFO.
 * Without a loop (bots_new(NULL, ...): the unit tests) jobs only queue, and
 * bots_run_pending runs them on the caller's thread.
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

/* Called on the loop with status 0 and the chosen move (player filled in),
 * or a negative CARC_E_* code (the game was over) and m NULL. now: the
 * loop's clock (ms). */
typedef void (*bots_done_fn)(void *arg, int status, const struct carc_move *m, uint64_t now);

/* loop NULL: manual mode (tests). running: searches on the thread pool at
 * once (at least 1). think_ms: the time a search may take before its stop
 * flag is raised (0: no limit, the search's own budget alone). Never NULL. */
struct bots *bots_new(struct uv_loop_s *loop, int running, int think_ms);
/* Moves are delivered at st's clock (util/stall.h: a stall is credited
 * before the move is charged); without it, at uv_now. st outlives b. */
void bots_stall_set(struct bots *b, struct stall *st);
/* Stop: every job's callback runs at once with CARC_E_INVAL (its asker lets
 * go of it), running searches are stopped, and no callback runs any more. Call from inside the loop
 * (it closes a timer); bots_free after uv_run has returned. */
void bots_stop(struct bots *b);
void bots_free(struct bots *b);

/* Start a search for g->current at level (enum carc_bot_level) with seed.
 * g is copied. Returns the job, or NULL when stopped (fn is then never
 * called). */
struct bots_job *bots_job_start(struct bots *b, const struct carc_game *g, int level, uint64_t seed,
                                bots_done_fn fn, void *arg);
/* The asker no longer wants the answer: fn will not be called. j may be NULL. */
void bots_job_cancel(struct bots_job *j);

/* Manual mode: run every queued job now, in order, calling each callback
 * with now. Returns the number run. */
int bots_run_pending(struct bots *b, uint64_t now);
/* Jobs waiting or running (tests, stats). */
int bots_pending(const struct bots *b);

#endif
