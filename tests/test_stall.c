/* test_stall.c: seeing the loop stall (server/util/stall.c): the arithmetic
 * on injected times (a sleep within its timeout is no stall, one past it by
 * more than the threshold is, by how much; busy time counts; the threshold
 * off), and the real thing on a libuv loop: ordinary sleeps of a ticking
 * timer are never a stall, one callback that holds the loop for 300 ms is,
 * and the next reading of the clock, whoever makes it, reports it once.
 * The clocks' side (no clock charged) is tests/test_turn.c's. */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "util/stall.h"

struct seen {
    int calls;
    uint64_t ms, now;
};

static void on_stall(void *arg, uint64_t ms, uint64_t now)
{
    struct seen *s = arg;
    s->calls++;
    s->ms = ms;
    s->now = now;
}

/* Sleeps that end within their timeout, and work between them under the
 * threshold, are no stall. */
START_TEST(stall_none_in_ordinary_turns)
{
    struct seen seen = {0};
    struct stall st;
    stall_init(&st, 2000, on_stall, &seen);
    uint64_t t = 1000000;
    /* Before the loop's first sleep, nothing counts (start-up's own time). */
    ck_assert_uint_eq(stall_check(&st, 5), 0);
    ck_assert_uint_eq(stall_check(&st, t), 0);
    for (int i = 0; i < 100; i++) {
        stall_sleep(&st, t, 100);
        t += 100; /* the timer's tick woke it */
        ck_assert_uint_eq(stall_check(&st, t), 0);
        t += 1900; /* a long turn, still under the threshold */
        ck_assert_uint_eq(stall_check(&st, t), 0);
    }
    /* No bound on the sleep (no timer): a long gap says nothing. */
    stall_sleep(&st, t, -1);
    t += 60000;
    ck_assert_uint_eq(stall_check(&st, t), 0);
    ck_assert_int_eq(seen.calls, 0);
    ck_assert_uint_eq(st.count, 0);
}
END_TEST

/* Stopped during a sleep of at most 100 ms, for 30 s: 30 s - 100 ms are
 * reported, once, to the callback, with the time they ended. */
START_TEST(stall_during_a_sleep)
{
    struct seen seen = {0};
    struct stall st;
    stall_init(&st, 2000, on_stall, &seen);
    uint64_t t = 5000;
    stall_sleep(&st, t, 100);
    t += 30000;
    ck_assert_uint_eq(stall_check(&st, t), 29900);
    ck_assert_int_eq(seen.calls, 1);
    ck_assert_uint_eq(seen.ms, 29900);
    ck_assert_uint_eq(seen.now, t);
    /* The next readings of the same turn (uv_now does not move) see nothing. */
    ck_assert_uint_eq(stall_check(&st, t), 0);
    ck_assert_uint_eq(stall_check(&st, t + 5), 0);
    ck_assert_int_eq(seen.calls, 1);
    ck_assert_uint_eq(st.count, 1);
    ck_assert_uint_eq(st.total_ms, 29900);
}
END_TEST

/* A stall while awake (a callback held the loop, or the process was stopped
 * in one): the whole gap since the last reading. Just over the threshold is
 * a stall, at it is not. */
START_TEST(stall_while_awake_and_threshold)
{
    struct seen seen = {0};
    struct stall st;
    stall_init(&st, 2000, on_stall, &seen);
    uint64_t t = 5000;
    stall_sleep(&st, t, 0); /* a poll that did not sleep */
    t += 2000;
    ck_assert_uint_eq(stall_check(&st, t), 0); /* not longer than the threshold */
    t += 2001;
    ck_assert_uint_eq(stall_check(&st, t), 2001);
    /* A sleep of 500 ms allowed, 2600 ms passed: 2100 ms stalled. */
    stall_sleep(&st, t, 500);
    t += 2600;
    ck_assert_uint_eq(stall_check(&st, t), 2100);
    ck_assert_int_eq(seen.calls, 2);
}
END_TEST

/* Threshold 0: stalls are not looked for at all. */
START_TEST(stall_off)
{
    struct seen seen = {0};
    struct stall st;
    stall_init(&st, 0, on_stall, &seen);
    stall_check(&st, 1000);
    ck_assert_uint_eq(stall_check(&st, 100000), 0);
    ck_assert_int_eq(seen.calls, 0);
}
END_TEST

/* ---- on a real loop ---- */

#define MS 1000000ull

struct run {
    uv_timer_t timer;
    struct stall *st;
    struct seen *seen;
    int ticks;
    uint64_t reported; /* stall_now's reports after the busy tick */
};

/* Every 20 ms; reads the clock through stall_now like carcd's ticks. The
 * 10th tick holds the loop for 300 ms; the 30th closes everything. */
static void on_tick(uv_timer_t *t)
{
    struct run *run = t->data;
    int before = run->seen->calls;
    stall_now(run->st);
    if (run->seen->calls > before)
        run->reported++;
    if (++run->ticks == 10) {
        uint64_t until = uv_hrtime() + 300 * MS;
        while (uv_hrtime() < until)
            ;
    }
    if (run->ticks == 30) {
        uv_close((uv_handle_t *)t, NULL);
        stall_stop(run->st);
    }
}

START_TEST(stall_on_a_loop)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    struct seen seen = {0};
    struct stall *st = calloc(1, sizeof *st);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(stall_start(st, &loop, 150, on_stall, &seen), 0);
    struct run run = {.st = st, .seen = &seen};
    uv_timer_init(&loop, &run.timer);
    run.timer.data = &run;
    uv_timer_start(&run.timer, on_tick, 20, 20);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0); /* the prepare handle was closed */
    ck_assert_int_eq(run.ticks, 30);
    /* 29 sleeps of ~20 ms: none is a stall; the held turn is, once. */
    ck_assert_int_eq(seen.calls, 1);
    ck_assert_msg(seen.ms >= 290 && seen.ms < 1000, "stalled %llu ms", (unsigned long long)seen.ms);
    ck_assert_uint_le(run.reported, 1); /* seen by the prepare or by the next tick */
    stall_stop(st);                     /* a second stop does nothing */
    free(st);
}
END_TEST

/* A loop with only the (unreferenced) prepare handle on it returns at once. */
START_TEST(stall_unref)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    struct stall st;
    ck_assert_int_eq(stall_start(&st, &loop, STALL_THRESHOLD_MS, NULL, NULL), 0);
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    stall_stop(&st);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

Suite *suite_stall(void)
{
    Suite *s = suite_create("stall");
    TCase *tc = tcase_create("arithmetic");
    tcase_add_test(tc, stall_none_in_ordinary_turns);
    tcase_add_test(tc, stall_during_a_sleep);
    tcase_add_test(tc, stall_while_awake_and_threshold);
    tcase_add_test(tc, stall_off);
    suite_add_tcase(s, tc);
    tc = tcase_create("loop");
    tcase_add_test(tc, stall_on_a_loop);
    tcase_add_test(tc, stall_unref);
    suite_add_tcase(s, tc);
    return s;
}
