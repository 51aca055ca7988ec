/* test_analysis_queue.c: the analyses' queue (server/analysis/analysis.h) on a real
 * libuv loop and a SQLite store in the scratch directory (store_util.h):
 * games queued once each and bounded by the queue, run on the thread pool at
 * a budget of 1 ms a move, their documents stored with a batch and the jobs
 * forgotten after the commit; a record that does not analyse stores nothing;
 * `auto` queues a finished game's record as the store commits it (not an
 * abandoned one); stopping ends a running analysis by its flag. The records
 * are tests/data/record/valid/deck_only.json (it analyses) and
 * design_example.json (its first move cannot be rated). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "analysis/analysis.h"
#include "err.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/mem.h"

#define GOOD "tests/data/record/valid/deck_only.json"
#define BAD "tests/data/record/valid/design_example.json"

static uv_loop_t loop;
static struct store *st;

/* A games row of id with the record of file (status finished). */
static void game_put(const char *id, const char *file)
{
    size_t n;
    char *text = su_slurp(file, &n);
    ck_assert_ptr_nonnull(text);
    struct store_room *e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->gone = STORE_CLOSE;
    e->updated = 5;
    e->record = text;
    e->players = mem_strdup("[\"Ann\",\"Bob\"]");
    e->scores = mem_strdup("[0,0]");
    e->status = STORE_FINISHED;
}

static void open_all(void)
{
    char err[512];
    st = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    ck_assert_int_eq(uv_loop_init(&loop), 0);
}

static void close_all(struct analysis *a)
{
    analysis_stop(a);
    store_stop(st);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    analysis_free(a);
    store_close(st);
}

/* Run the loop until a holds no game (at most about a minute). */
static void run_until_idle(struct analysis *a)
{
    uint64_t end = uv_hrtime() + 60 * 1000000000ull;
    while (analysis_pending(a) > 0 && uv_hrtime() < end)
        uv_run(&loop, UV_RUN_ONCE);
    ck_assert_int_eq(analysis_pending(a), 0);
}

/* "" when id has no stored analysis. */
static char *stored(const char *id)
{
    int code = 0;
    char *doc = store_analysis_get(st, id, &code);
    ck_assert_msg(code == 200 || code == 404, "%d", code);
    return doc != NULL ? doc : mem_strdup("");
}

START_TEST(queued_once_bounded_and_stored)
{
    open_all();
    game_put("G1", GOOD);
    game_put("G2", BAD);
    ck_assert_int_eq(store_flush(st), 0);
    store_start(st, &loop, NULL);
    struct analysis_config cfg = {ANALYSIS_REQUEST, 1, 1, 2};
    struct analysis *a = analysis_new(&loop, st, &cfg);
    struct analysis_state s;
    analysis_state_get(a, "G1", &s);
    ck_assert_int_eq(s.status, ANALYSIS_NONE);
    ck_assert_int_eq(analysis_request(a, "G1", NULL, 0), 0);
    analysis_state_get(a, "G1", &s);
    ck_assert_int_eq(s.status, ANALYSIS_QUEUED); /* its record is being read */
    ck_assert_int_eq(analysis_request(a, "G1", NULL, 0), 0);
    ck_assert_int_eq(analysis_pending(a), 1);
    ck_assert_int_eq(analysis_request(a, "G2", NULL, 0), 0);
    ck_assert_int_eq(analysis_request(a, "G3", NULL, 0), CARC_E_LIMIT);
    ck_assert_int_eq(analysis_pending(a), 2);
    analysis_state_get(a, "G3", &s);
    ck_assert_int_eq(s.status, ANALYSIS_NONE);
    run_until_idle(a);
    char *doc = stored("G1");
    ck_assert_msg(strncmp(doc,
                          "{\"format\":\"carcd-analysis/1\",\"id\":\"G1\",\"seed\":1,"
                          "\"ms_per_move\":1,\"playouts\":40,",
                          60) == 0,
                  "%s", doc);
    free(doc);
    doc = stored("G2"); /* it failed: nothing stored, nothing held */
    ck_assert_str_eq(doc, "");
    free(doc);
    /* A game without a record is taken, and fails when its record is read. */
    ck_assert_int_eq(analysis_request(a, "G3", NULL, 0), 0);
    run_until_idle(a);
    doc = stored("G3");
    ck_assert_str_eq(doc, "");
    free(doc);
    close_all(a);
}
END_TEST

/* The record handed over is used as it is: no read. */
START_TEST(record_handed_over)
{
    open_all();
    store_start(st, &loop, NULL);
    struct analysis_config cfg = {ANALYSIS_REQUEST, 1, 1, 4};
    struct analysis *a = analysis_new(&loop, st, &cfg);
    size_t n;
    char *text = su_slurp(GOOD, &n);
    ck_assert_int_eq(analysis_request(a, "H1", text, n), 0);
    free(text);
    run_until_idle(a);
    char *doc = stored("H1");
    ck_assert_msg(strstr(doc, "\"id\":\"H1\"") != NULL, "%s", doc);
    free(doc);
    close_all(a);
}
END_TEST

START_TEST(auto_on_finished_records)
{
    open_all();
    store_start(st, &loop, NULL);
    struct analysis_config cfg = {ANALYSIS_AUTO, 1, 1, 4};
    struct analysis *a = analysis_new(&loop, st, &cfg);
    game_put("A1", GOOD);
    game_put("A2", GOOD);
    /* A3 abandoned: not analysed without a request. */
    struct store_room *e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "A3");
    e->gone = STORE_CLOSE;
    e->record = mem_strdup("{}");
    e->players = mem_strdup("[]");
    e->scores = mem_strdup("[]");
    e->status = STORE_ABANDONED;
    uv_run(&loop, UV_RUN_NOWAIT); /* the batch goes to the thread pool */
    for (int i = 0; i < 1000 && analysis_pending(a) < 2; i++)
        uv_run(&loop, UV_RUN_ONCE);
    ck_assert_int_eq(analysis_pending(a), 2);
    run_until_idle(a);
    char *d1 = stored("A1"), *d2 = stored("A2"), *d3 = stored("A3");
    ck_assert_msg(strstr(d1, "\"id\":\"A1\"") != NULL, "%s", d1);
    ck_assert_msg(strstr(d2, "\"id\":\"A2\"") != NULL, "%s", d2);
    ck_assert_str_eq(d3, "");
    free(d1);
    free(d2);
    free(d3);
    close_all(a);
}
END_TEST

/* A running analysis ends when stopped: nothing stored, the loop ends. */
START_TEST(stop_ends_a_running_analysis)
{
    open_all();
    game_put("S1", GOOD);
    ck_assert_int_eq(store_flush(st), 0);
    store_start(st, &loop, NULL);
    struct analysis_config cfg = {ANALYSIS_REQUEST, 1, 10000, 4};
    struct analysis *a = analysis_new(&loop, st, &cfg);
    ck_assert_int_eq(analysis_request(a, "S1", NULL, 0), 0);
    struct analysis_state s = {0};
    for (int i = 0; i < 1000 && s.status != ANALYSIS_RUNNING; i++) {
        uv_run(&loop, UV_RUN_ONCE);
        analysis_state_get(a, "S1", &s);
    }
    ck_assert_int_eq(s.status, ANALYSIS_RUNNING);
    analysis_stop(a);
    ck_assert_int_eq(analysis_request(a, "S2", NULL, 0), CARC_E_LIMIT);
    uint64_t t0 = uv_hrtime();
    run_until_idle(a);
    ck_assert_msg(uv_hrtime() - t0 < 5000000000ull, "the analysis did not stop");
    char *doc = stored("S1");
    ck_assert_str_eq(doc, "");
    free(doc);
    close_all(a);
}
END_TEST

Suite *suite_analysis_queue(void)
{
    Suite *s = suite_create("analysis_queue");
    TCase *tc = tcase_create("analysis_queue");
    tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, queued_once_bounded_and_stored);
    tcase_add_test(tc, record_handed_over);
    tcase_add_test(tc, auto_on_finished_records);
    tcase_add_test(tc, stop_ends_a_running_analysis);
    suite_add_tcase(s, tc);
    return s;
}
