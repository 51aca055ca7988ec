/* test_loopstat.c: the latency histograms of server/util/loopstat.c (bucket
 * bounds, quantiles, the max, the JSON) and the loop busy time on a real
 * libuv loop, where one timer callback holds the loop for 20 ms.
 *
 * The loop test asserts only what the busy-wait guarantees (the longest turn
 * lasted at least as long as it) and that an ordinary turn is far shorter; it
 * measures no performance target. */
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"
#include "tests.h"
#include "util/loopstat.h"

#define US 1000ull
#define MS 1000000ull

START_TEST(test_hist_empty)
{
    struct loopstat_hist h;
    memset(&h, 0, sizeof h);
    ck_assert_uint_eq(loopstat_hist_quantile(&h, 0.0), 0);
    ck_assert_uint_eq(loopstat_hist_quantile(&h, 0.5), 0);
    ck_assert_uint_eq(loopstat_hist_quantile(&h, 1.0), 0);
    ck_assert_uint_eq(h.count, 0);
    ck_assert_uint_eq(h.max, 0);
}
END_TEST

/* 1 us, 2 us, ... 1000 us: the quantiles are the upper bounds of the buckets
 * holding 500 us and 900 us (a power of two cut in 16), or the max. */
START_TEST(test_hist_quantiles)
{
    struct loopstat_hist h;
    memset(&h, 0, sizeof h);
    for (uint64_t i = 1000; i >= 1; i--) /* order does not matter */
        loopstat_hist_add(&h, i * US);
    ck_assert_uint_eq(h.count, 1000);
    ck_assert_uint_eq(h.max, 1000 * US);
    ck_assert_uint_eq(h.sum, 500500 * US);
    /* 500000 = 30.5 x 2^14: bucket [30 << 14, (31 << 14) - 1] */
    ck_assert_uint_eq(loopstat_hist_quantile(&h, 0.50), (31ull << 14) - 1);
    /* 900000 = 27.5 x 2^15 */
    ck_assert_uint_eq(loopstat_hist_quantile(&h, 0.90), (28ull << 15) - 1);
    /* 990000 = 30.2 x 2^15, but that bucket's bound (31 << 15) - 1 is above the max */
    ck_assert_uint_eq(loopstat_hist_quantile(&h, 0.99), 1000 * US);
    /* the top bucket's bound lies above the max: clamped */
    ck_assert_uint_eq(loopstat_hist_quantile(&h, 1.0), 1000 * US);
    /* the smallest, 1000 ns, is in the bucket under 1 us: its bound is 1023 */
    ck_assert_uint_eq(loopstat_hist_quantile(&h, 0.0), 1023);
}
END_TEST

/* One value: every quantile is that value (the bucket bound clamped to the
 * max); below 1 us and from 16 s up too. */
START_TEST(test_hist_single)
{
    const uint64_t vals[] = {0, 1, 100, 1023, 1024, 1500, 20 * MS, 16000 * MS, 20000 * MS};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        struct loopstat_hist h;
        memset(&h, 0, sizeof h);
        loopstat_hist_add(&h, vals[i]);
        ck_assert_uint_eq(h.max, vals[i]);
        ck_assert_uint_eq(loopstat_hist_quantile(&h, 0.5), vals[i]);
        ck_assert_uint_eq(loopstat_hist_quantile(&h, 0.99), vals[i]);
    }
}
END_TEST

/* For v from 1 us to 16 s, with a larger value beside it: the median reported
 * is v's bucket bound, at least v and at most 1/16 above it. */
START_TEST(test_hist_error_bound)
{
    for (uint64_t v = 1024; v < (1ull << LOOPSTAT_MAX_SHIFT); v += v / 7 + 1) {
        struct loopstat_hist h;
        memset(&h, 0, sizeof h);
        loopstat_hist_add(&h, v);
        loopstat_hist_add(&h, 1ull << 40);
        uint64_t q = loopstat_hist_quantile(&h, 0.5);
        ck_assert_msg(q >= v && q <= v + v / 16, "v %llu reported %llu", (unsigned long long)v,
                      (unsigned long long)q);
    }
}
END_TEST

START_TEST(test_json)
{
    struct loopstat *ls = calloc(1, sizeof *ls);
    ck_assert_ptr_nonnull(ls);
    char *js = loopstat_json(ls);
    ck_assert_ptr_nonnull(js);
    ck_assert_ptr_nonnull(strstr(js, "{\"loop\":{\"iterations\":0,\"busy_p50_us\":0.0,"));
    ck_assert_ptr_nonnull(strstr(js, "\"store_commit\":{\"count\":0,\"p50_us\":0.0,"));
    free(js);
    for (uint64_t i = 1; i <= 1000; i++)
        loopstat_hist_add(&ls->store_loop, i * US);
    loopstat_hist_add(&ls->store_commit, 3 * MS);
    js = loopstat_json(ls);
    ck_assert_ptr_nonnull(js);
    ck_assert_ptr_nonnull(strstr(js, "\"store_loop\":{\"count\":1000,\"p50_us\":507.9,"
                                     "\"p99_us\":1000.0,\"max_us\":1000.0,\"mean_us\":500.5}"));
    ck_assert_ptr_nonnull(strstr(js, "\"store_commit\":{\"count\":1,\"p50_us\":3000.0,"
                                     "\"p99_us\":3000.0,\"max_us\":3000.0,\"mean_us\":3000.0}}"));
    ck_assert_int_eq(js[strlen(js) - 1], '}');
    free(js);
    char line[512];
    loopstat_summary(ls, line, sizeof line);
    ck_assert_ptr_nonnull(strstr(line, "store_commit: p50 3000.0 us"));
    free(ls);
}
END_TEST

/* ---- a real loop ---- */

#define TICKS 30
#define BUSY_TICK 10

struct busy_run {
    uv_timer_t timer;
    struct loopstat *ls;
    int ticks;
};

/* Every 5 ms; the BUSY_TICK-th call holds the loop for 20 ms. */
static void on_busy_tick(uv_timer_t *t)
{
    struct busy_run *run = t->data;
    if (++run->ticks == BUSY_TICK) {
        uint64_t until = uv_hrtime() + 20 * MS;
        while (uv_hrtime() < until)
            ;
    }
    if (run->ticks == TICKS) {
        uv_close((uv_handle_t *)t, NULL);
        loopstat_stop(run->ls);
    }
}

START_TEST(test_loop_busy)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    struct loopstat *ls = calloc(1, sizeof *ls);
    ck_assert_ptr_nonnull(ls);
    ck_assert_int_eq(loopstat_start(ls, &loop), 0);
    struct busy_run run = {.ls = ls};
    uv_timer_init(&loop, &run.timer);
    run.timer.data = &run;
    uv_timer_start(&run.timer, on_busy_tick, 5, 5);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(run.ticks, TICKS);
    ck_assert_int_eq(uv_loop_close(&loop), 0); /* the prepare handle was closed */

    /* One turn per tick at least, less the first and last (not measured). */
    ck_assert_uint_ge(ls->iter.count, TICKS - 2);
    ck_assert_msg(ls->iter.max >= 20 * MS, "max %llu ns", (unsigned long long)ls->iter.max);
    uint64_t p50 = loopstat_hist_quantile(&ls->iter, 0.5);
    /* A turn lasts ~5 ms of wall time, nearly all of it waiting: a measure that
     * counted the wait (wall clock alone) would put the median near 5 ms. */
    ck_assert_msg(p50 < 1 * MS, "p50 %llu ns", (unsigned long long)p50);
    ck_assert_uint_ge(ls->busy_total, 20 * MS);
    /* The fixed buckets saw the same turns: the 20 ms one above 10 ms. */
    uint64_t n = 0, slow = 0;
    for (int i = 0; i <= LOOPSTAT_TURN_BOUNDS; i++) {
        n += ls->turn_le[i];
        if (i > 0 && loopstat_turn_bounds_ns[i - 1] >= 10 * MS)
            slow += ls->turn_le[i];
    }
    ck_assert_uint_eq(n, ls->iter.count);
    ck_assert_uint_ge(slow, 1);
    ck_assert_uint_ge(ls->wall_total, ls->busy_total + (TICKS - 4) * 4 * MS);
    loopstat_stop(ls); /* a second stop does nothing */
    free(ls);
}
END_TEST

/* The fixed buckets of carcd_loop_turn_seconds: a value on a bound counts in
 * that bound's bucket (Prometheus' le), one just above in the next; above 1 s
 * in the last; the exposition gives them cumulative, with the sum and count. */
START_TEST(test_turn_buckets)
{
    struct loopstat *ls = calloc(1, sizeof *ls);
    ck_assert_ptr_nonnull(ls);
    ck_assert_uint_eq(loopstat_turn_bounds_ns[0], 50 * US);
    ck_assert_uint_eq(loopstat_turn_bounds_ns[LOOPSTAT_TURN_BOUNDS - 1], 1000 * MS);
    for (int i = 1; i < LOOPSTAT_TURN_BOUNDS; i++)
        ck_assert_uint_lt(loopstat_turn_bounds_ns[i - 1], loopstat_turn_bounds_ns[i]);
    loopstat_turn_add(ls, 0);           /* le 50 us */
    loopstat_turn_add(ls, 50 * US);     /* le 50 us: on the bound */
    loopstat_turn_add(ls, 50 * US + 1); /* le 100 us */
    loopstat_turn_add(ls, 20 * MS);     /* le 25 ms */
    loopstat_turn_add(ls, 1000 * MS);   /* le 1 s */
    loopstat_turn_add(ls, 3000 * MS);   /* above every bound */
    ck_assert_uint_eq(ls->turn_le[0], 2);
    ck_assert_uint_eq(ls->turn_le[1], 1);
    ck_assert_uint_eq(ls->turn_le[11], 1); /* 25 ms */
    ck_assert_uint_eq(ls->turn_le[LOOPSTAT_TURN_BOUNDS - 1], 1);
    ck_assert_uint_eq(ls->turn_le[LOOPSTAT_TURN_BOUNDS], 1);
    uint64_t n = 0;
    for (int i = 0; i <= LOOPSTAT_TURN_BOUNDS; i++)
        n += ls->turn_le[i];
    ck_assert_uint_eq(n, 6);
    ck_assert_uint_eq(ls->iter.count, 6);
    ck_assert_uint_eq(ls->busy_total, 100 * US + 1 + 4020 * MS);

    char *text = metrics_exposition(NULL, ls);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "# TYPE carcd_loop_turn_seconds histogram\n"));
    ck_assert_ptr_nonnull(strstr(text, "carcd_loop_turn_seconds_bucket{le=\"5e-05\"} 2\n"));
    ck_assert_ptr_nonnull(strstr(text, "carcd_loop_turn_seconds_bucket{le=\"0.0001\"} 3\n"));
    ck_assert_ptr_nonnull(strstr(text, "carcd_loop_turn_seconds_bucket{le=\"0.01\"} 3\n"));
    ck_assert_ptr_nonnull(strstr(text, "carcd_loop_turn_seconds_bucket{le=\"0.025\"} 4\n"));
    ck_assert_ptr_nonnull(strstr(text, "carcd_loop_turn_seconds_bucket{le=\"1\"} 5\n"));
    ck_assert_ptr_nonnull(strstr(text, "carcd_loop_turn_seconds_bucket{le=\"+Inf\"} 6\n"));
    ck_assert_ptr_nonnull(strstr(text, "carcd_loop_turn_seconds_count 6\n"));
    ck_assert_ptr_nonnull(strstr(text, "carcd_loop_turn_seconds_sum 4.020100001\n"));
    free(text);
    /* Without the loop's figures the family is left out, as the others of the loop. */
    text = metrics_exposition(NULL, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_null(strstr(text, "carcd_loop_turn_seconds"));
    free(text);
    free(ls);
}
END_TEST

/* A loop with only the (unreferenced) measurement on it returns at once. */
START_TEST(test_loop_unref)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    struct loopstat *ls = calloc(1, sizeof *ls);
    ck_assert_ptr_nonnull(ls);
    ck_assert_int_eq(loopstat_start(ls, &loop), 0);
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    loopstat_stop(ls);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    free(ls);
}
END_TEST

Suite *suite_loopstat(void)
{
    Suite *s = suite_create("loopstat");
    TCase *tc = tcase_create("hist");
    tcase_add_test(tc, test_hist_empty);
    tcase_add_test(tc, test_hist_quantiles);
    tcase_add_test(tc, test_hist_single);
    tcase_add_test(tc, test_hist_error_bound);
    tcase_add_test(tc, test_json);
    tcase_add_test(tc, test_turn_buckets);
    suite_add_tcase(s, tc);
    tc = tcase_create("loop");
    tcase_add_test(tc, test_loop_busy);
    tcase_add_test(tc, test_loop_unref);
    suite_add_tcase(s, tc);
    return s;
}
