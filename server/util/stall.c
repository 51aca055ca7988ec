/* stall.c: see stall.h. */
#include "util/stall.h"

#include <string.h>

#include "util/clock.h"

#define WAIT_UNKNOWN UINT64_MAX

void stall_init(struct stall *st, uint64_t threshold_ms, stall_fn fn, void *arg)
{
    memset(st, 0, sizeof *st);
    st->threshold_ms = threshold_ms;
    st->wait_ms = WAIT_UNKNOWN;
    st->fn = fn;
    st->arg = arg;
}

uint64_t stall_check(struct stall *st, uint64_t now)
{
    /* Before the loop's first sleep there is nothing to compare with: the
     * loop's clock may still be the one of uv_loop_init, from before the
     * start-up's work (restoring the rooms). */
    if (!st->primed)
        return 0;
    uint64_t stalled = 0;
    if (st->threshold_ms > 0 && st->wait_ms != WAIT_UNKNOWN && now > st->seen_ms) {
        uint64_t gap = now - st->seen_ms;
        if (gap > st->wait_ms && gap - st->wait_ms > st->threshold_ms)
            stalled = gap - st->wait_ms;
    }
    /* The loop's clock never goes back; an older reading would only shorten
     * the next gap. */
    if (now > st->seen_ms)
        st->seen_ms = now;
    st->wait_ms = 0; /* awake: whatever passes from here until the next sleep is work */
    if (stalled > 0) {
        st->count++;
        st->total_ms += stalled;
        if (st->fn != NULL)
            st->fn(st->arg, stalled, now + (uint64_t)clock_test_offset());
    }
    return stalled;
}

void stall_sleep(struct stall *st, uint64_t now, long long timeout_ms)
{
    stall_check(st, now);
    if (!st->primed || now > st->seen_ms)
        st->seen_ms = now;
    st->primed = 1;
    st->wait_ms = timeout_ms < 0 ? WAIT_UNKNOWN : (uint64_t)timeout_ms;
}

/* Right before the poll: uv_now is still the turn's start, the time the
 * poll's timeout is counted from, which is what the next reading compares. */
static void on_prepare(uv_prepare_t *p)
{
    struct stall *st = p->data;
    stall_sleep(st, uv_now(st->loop), uv_backend_timeout(st->loop));
}

int stall_start(struct stall *st, uv_loop_t *loop, uint64_t threshold_ms, stall_fn fn, void *arg)
{
    stall_init(st, threshold_ms, fn, arg);
    st->loop = loop;
    int rc = uv_prepare_init(loop, &st->prep);
    if (rc != 0)
        return rc;
    st->prep.data = st;
    uv_prepare_start(&st->prep, on_prepare); /* cannot fail once initialised */
    uv_unref((uv_handle_t *)&st->prep);
    st->running = 1;
    return 0;
}

void stall_stop(struct stall *st)
{
    if (!st->running)
        return;
    st->running = 0;
    st->wait_ms = WAIT_UNKNOWN; /* nothing notes the sleeps any more */
    uv_close((uv_handle_t *)&st->prep, NULL);
}

uint64_t stall_now(struct stall *st)
{
    uint64_t now = uv_now(st->loop);
    if (st->running)
        stall_check(st, now);
    /* The test clock moves the lobby's time, not the stall's arithmetic. */
    return now + (uint64_t)clock_test_offset();
}
