/* test_bots.c: the bots' searches on the thread pool (server/game/bots.c): the
 * two FIFOs (rooms someone watches first, a round robin of rooms), cancel and
 * promote, and the thread storage always keeps. Manual mode
 * (bots_run_pending): every step is exact, no thread runs. */
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "game/bots.h"
#include "room_util.h"
#include "tests.h"

static struct bots *bots;

/* An asker of the scheduler like a room: one job at a time, the next asked
 * for from the callback of the last. */
struct asker {
    char name;
    int cls, left;
    struct bots_job *job;
};
static char ran[32];
static int nran;
static struct carc_game *sched_game;

static void asker_done(void *arg, int status, const struct carc_move *m, uint64_t t)
{
    struct asker *a = arg;
    ck_assert_int_eq(status, 0);
    ck_assert_ptr_nonnull(m);
    a->job = NULL;
    if (nran < (int)sizeof ran - 1)
        ran[nran++] = a->name;
    if (--a->left > 0)
        a->job =
            bots_job_start(bots, sched_game, CARC_BOT_RANDOM, (uint64_t)t, a->cls, asker_done, a);
}

static void asker_start(struct asker *a)
{
    a->job = bots_job_start(bots, sched_game, CARC_BOT_RANDOM, 1, a->cls, asker_done, a);
    ck_assert_ptr_nonnull(a->job);
}

static void setup_sched(void)
{
    bots = bots_new(NULL, 1, 0);
    sched_game = calloc(1, sizeof *sched_game);
    struct carc_config cfg = {.nplayers = 2, .sets = 1u << CARC_SET_BASE, .start = -1, .seed = 3};
    struct carc_error err = {0, ""};
    ck_assert_int_eq(carc_game_init(sched_game, &cfg, &err), 0);
    memset(ran, 0, sizeof ran);
    nran = 0;
}

static void teardown_sched(void)
{
    bots_free(bots);
    bots = NULL;
    free(sched_game);
}

/* A room of five bots asks for five moves one after the other: each waits
 * behind the others' (a round robin of rooms), and a room nobody watches
 * comes after every room someone does. */
START_TEST(bots_round_robin_watched_first)
{
    struct asker a = {'A', BOTS_WATCHED, 5, NULL}, b = {'B', BOTS_WATCHED, 2, NULL};
    struct asker c = {'C', BOTS_ALONE, 1, NULL};
    asker_start(&c);
    asker_start(&a);
    asker_start(&b);
    ck_assert_int_eq(bots_pending(bots), 3);
    ck_assert_int_eq(bots_run_pending(bots, now), 8);
    ck_assert_str_eq(ran, "ABABAAAC");
    ck_assert_int_eq(bots_pending(bots), 0);
}
END_TEST

/* A cancelled waiting job goes at once (no callback, nothing left queued);
 * a promoted one moves to the end of the first FIFO. */
START_TEST(bots_cancel_and_promote)
{
    struct asker a = {'A', BOTS_WATCHED, 1, NULL}, b = {'B', BOTS_ALONE, 1, NULL};
    struct asker c = {'C', BOTS_ALONE, 1, NULL}, d = {'D', BOTS_WATCHED, 1, NULL};
    asker_start(&a);
    asker_start(&b);
    asker_start(&c);
    asker_start(&d);
    bots_job_promote(c.job);
    bots_job_promote(d.job); /* already first: stays where it is */
    bots_job_cancel(a.job);
    ck_assert_int_eq(bots_pending(bots), 3);
    bots_job_promote(NULL);
    bots_job_cancel(NULL);
    ck_assert_int_eq(bots_run_pending(bots, now), 3);
    ck_assert_str_eq(ran, "DCB");
}
END_TEST

/* Searches never take every thread of libuv's pool: storage keeps one. */
START_TEST(bots_leave_a_thread_to_storage)
{
    static const struct {
        const char *env;
        int max;
    } cases[] = {{NULL, 3}, {"4", 3}, {"8", 7}, {"2", 1}, {"1", 1}, {"0", 1}, {"64", 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].env == NULL)
            unsetenv("UV_THREADPOOL_SIZE");
        else
            setenv("UV_THREADPOOL_SIZE", cases[i].env, 1);
        ck_assert_msg(bots_running_max() == cases[i].max, "UV_THREADPOOL_SIZE=%s",
                      cases[i].env ? cases[i].env : "(unset)");
    }
    setenv("UV_THREADPOOL_SIZE", "4", 1);
    struct bots *b = bots_new(NULL, 16, 0);
    ck_assert_int_eq(bots_running(b), 3);
    bots_free(b);
    b = bots_new(NULL, 2, 0);
    ck_assert_int_eq(bots_running(b), 2);
    bots_free(b);
    unsetenv("UV_THREADPOOL_SIZE");
}
END_TEST

Suite *suite_bots(void)
{
    Suite *s = suite_create("bots");
    TCase *ts = tcase_create("schedule");
    tcase_add_checked_fixture(ts, setup_sched, teardown_sched);
    tcase_add_test(ts, bots_round_robin_watched_first);
    tcase_add_test(ts, bots_cancel_and_promote);
    tcase_add_test(ts, bots_leave_a_thread_to_storage);
    suite_add_tcase(s, ts);
    return s;
}
