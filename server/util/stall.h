/* stall.h: seeing the event loop stall, so that nobody's clock is charged for
 * it. A stall is time in which the process could not answer anyone: a freeze
 * of the whole process (SIGSTOP, a paused VM, heavy swapping) or one loop turn
 * that ran for seconds.
 *
 * How it is seen. The loop sleeps only in its poll, and never longer than the
 * poll's timeout (main.c's clock timer ticks ten times a second). A prepare
 * handle notes, right before each poll, the loop's clock (uv_now) and that
 * timeout; every reading of the clock through stall_now compares it with the
 * last one noted: what passed beyond the allowed sleep is stalled time. When
 * it is longer than the threshold, the stall's callback runs, once, before
 * stall_now returns.
 *
 * Why every reading, and not a timer: after a freeze, libuv runs the timers
 * that came due during it (at the start of a turn) and the input that arrived
 * during it (in the poll) in whichever order the freeze left them: a poll
 * interrupted by the stop returns, and the next turn's timers run before the
 * next poll; a poll that finds input ready runs its callbacks first. So the
 * code that charges clocks reads the loop's clock through stall_now wherever
 * it reads it (a timer, a message, a bot's search coming back): the first of
 * them after a stall has the stall credited before it charges anything.
 *
 * Times are the loop's clock in ms (uv_now). Not thread safe: the loop's
 * thread only. Owner: the process (main.c) embeds struct stall; the loop must
 * outlive the handle (stall_stop from inside the loop). */
#ifndef CARCD_STALL_H
#define CARCD_STALL_H

#include <stdint.h>
#include <uv.h>

/* The default threshold (setting stall-threshold-ms). */
#define STALL_THRESHOLD_MS 2000

/* A stall of ms milliseconds ended at now (the loop's clock). */
typedef void (*stall_fn)(void *arg, uint64_t ms, uint64_t now);

struct stall {
    uv_prepare_t prep;
    uv_loop_t *loop;          /* NULL: stall_init alone (tests) */
    uint64_t threshold_ms;    /* 0: off, nothing is ever a stall */
    uint64_t seen_ms;         /* the loop's clock when it was last seen awake */
    uint64_t wait_ms;         /* how long it could then sleep; UINT64_MAX: unknown */
    uint64_t count, total_ms; /* stalls seen, and their time, since start */
    stall_fn fn;
    void *arg;
    int primed; /* seen_ms holds a reading: the loop has slept once */
    int running;
};

/* Set st up without a loop (fn may be NULL): stall_sleep and stall_check are
 * then driven by hand (tests). */
void stall_init(struct stall *st, uint64_t threshold_ms, stall_fn fn, void *arg);
/* stall_init, then watch loop's turns (call before uv_run; the handle is
 * unreferenced, it never keeps the loop alive). Readings count from the
 * loop's first sleep, so time spent before uv_run is no stall. Returns 0
 * or a negative libuv error (then st needs no stall_stop, and stall_now is
 * uv_now). */
int stall_start(struct stall *st, uv_loop_t *loop, uint64_t threshold_ms, stall_fn fn, void *arg);
/* Close the handle (from inside the loop); no stall is seen after it. Safe
 * twice or unstarted. */
void stall_stop(struct stall *st);

/* The loop's clock (uv_now, plus the test clock's offset: util/clock.h),
 * once a stall that ended by now was reported to the callback. Use it
 * instead of uv_now wherever a clock is charged. */
uint64_t stall_now(struct stall *st);

/* The arithmetic, on injected times. The loop is awake at now: returns the
 * milliseconds it stalled since it was last seen (the gap beyond the sleep it
 * was allowed), when that is over the threshold, after calling the callback
 * with them; else 0 (always before the first stall_sleep). */
uint64_t stall_check(struct stall *st, uint64_t now);
/* The loop is awake at now (stall_check) and is about to sleep for at most
 * timeout_ms (negative: with no bound, so the next gap says nothing). */
void stall_sleep(struct stall *st, uint64_t now, long long timeout_ms);

#endif
