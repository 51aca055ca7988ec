/* test_store_read.c: reading the stored game records back (server/store/read.c),
 * in the scratch directory and world of store_util.h: the list of games paged
 * over more than a thousand records and each record by id, directly and as
 * reads on the libuv thread pool (answered on the loop, cancelled, bounded by
 * STORE_READS_MAX, and answered 503 when the store stops). */
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "store/store.h"
#include "store_util.h"
#include "tests.h"

/* ---- pages and records ---- */

/* Every record stays reachable, not only the newest: 1,005 games, paged. */
START_TEST(records_paged_from_disk)
{
    char err[512];
    struct store *s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_int_eq(store_test_exec(s, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1"
                                        " FROM n WHERE i < 1005) INSERT INTO games SELECT 'G' || i,"
                                        " '{\"n\":' || i || '}', '[\"A\"]', '[' || i || ']', i,"
                                        " 'finished' FROM n;"),
                     0);
    int code = 0;
    char *page = store_games_get(s, 1, STORE_FINISHED, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_msg(strstr(page, "\"total\":1005,\"games\":[{\"id\":\"G1005\"") != NULL, "%s", page);
    free(page);
    page = store_games_get(s, 51, STORE_FINISHED, &code);
    ck_assert_msg(strstr(page, "\"page\":51") && strstr(page, "\"id\":\"G5\"") &&
                      strstr(page, "\"id\":\"G1\"") && !strstr(page, "\"id\":\"G6\""),
                  "%s", page);
    free(page);
    page = store_games_get(s, 52, STORE_FINISHED, &code);
    ck_assert_msg(strstr(page, "\"games\":[]") != NULL, "%s", page);
    free(page);
    page = store_games_get(s, 1, STORE_ABANDONED, &code);
    ck_assert_msg(strstr(page, "\"total\":0") != NULL, "%s", page);
    free(page);
    char *rec = store_game_get(s, "G1", &code); /* the oldest */
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(rec, "{\"n\":1}");
    free(rec);
    ck_assert_ptr_null(store_game_get(s, "G1006", &code));
    ck_assert_int_eq(code, 404);
    store_close(s);
}
END_TEST

/* The same pages from PostgreSQL (generate_series for SQLite's recursive CTE). */
START_TEST(records_paged_pg)
{
    char err[512];
    struct store *s = su_store_open(err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_int_eq(store_test_exec(s, "INSERT INTO games SELECT 'G' || i, '{\"n\":' || i || '}',"
                                        " '[\"A\"]', '[' || i || ']', i, 'finished'"
                                        " FROM generate_series(1, 1005) AS i"),
                     0);
    int code = 0;
    char *page = store_games_get(s, 1, STORE_FINISHED, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_msg(strstr(page, "\"total\":1005,\"games\":[{\"id\":\"G1005\"") != NULL, "%s", page);
    free(page);
    page = store_games_get(s, 51, STORE_FINISHED, &code);
    ck_assert_msg(strstr(page, "\"page\":51") && strstr(page, "\"id\":\"G5\"") &&
                      strstr(page, "\"id\":\"G1\"") && !strstr(page, "\"id\":\"G6\""),
                  "%s", page);
    free(page);
    char *rec = store_game_get(s, "G1", &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(rec, "{\"n\":1}");
    free(rec);
    ck_assert_ptr_null(store_game_get(s, "G1006", &code));
    ck_assert_int_eq(code, 404);
    store_close(s);
}
END_TEST

/* ---- reads on the thread pool ---- */

struct got {
    int calls, status;
    char *json;
};

static void on_got(void *arg, int status, char *json)
{
    struct got *g = arg;
    g->calls++;
    g->status = status;
    free(g->json);
    g->json = json;
}

static void loop_until(uv_loop_t *loop, const int *flag)
{
    for (int i = 0; i < 100000 && !*flag; i++)
        uv_run(loop, UV_RUN_ONCE);
    ck_assert(*flag);
}

START_TEST(reads_on_the_thread_pool)
{
    world_open();
    ck_assert_int_eq(store_test_exec(su_st, "INSERT INTO games VALUES('R1', '{\"r\":1}', '[\"A\"]',"
                                            " '[1]', 1, 'finished')"),
                     0);
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    store_start(su_st, &loop, NULL);
    struct got g = {0}, miss = {0}, list = {0}, gone = {0};
    ck_assert_ptr_nonnull(store_game_read(su_st, "R1", on_got, &g));
    ck_assert_ptr_nonnull(store_game_read(su_st, "R2", on_got, &miss));
    ck_assert_ptr_nonnull(store_games_read(su_st, 1, STORE_FINISHED, on_got, &list));
    struct store_read *rq = store_game_read(su_st, "R1", on_got, &gone);
    ck_assert_int_eq(g.calls, 0); /* never before the read */
    store_read_cancel(rq);
    loop_until(&loop, &list.calls);
    ck_assert_int_eq(g.status, 200);
    ck_assert_str_eq(g.json, "{\"r\":1}");
    ck_assert_int_eq(miss.status, 404);
    ck_assert_ptr_null(miss.json);
    ck_assert_msg(strstr(list.json, "\"id\":\"R1\"") != NULL, "%s", list.json);
    /* A burst: one runs, STORE_READS_MAX wait, the next is refused. */
    struct got burst = {0};
    int taken = 0;
    while (store_game_read(su_st, "R1", on_got, &burst) != NULL)
        taken++;
    ck_assert_int_eq(taken, STORE_READS_MAX + 1);
    /* Stopping answers the waiting ones at once (503); the running one ends. */
    store_stop(su_st);
    ck_assert_int_eq(burst.calls, STORE_READS_MAX);
    ck_assert_int_eq(burst.status, 503);
    ck_assert_ptr_null(store_game_read(su_st, "R1", on_got, &burst));
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(burst.calls, STORE_READS_MAX + 1);
    ck_assert_int_eq(gone.calls, 0);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    free(g.json);
    free(list.json);
    free(burst.json);
    world_close();
}
END_TEST

Suite *suite_store_read(void)
{
    Suite *s = suite_create("store_read");
    TCase *tc = tcase_create("store_read");
    tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
    tcase_add_test(tc, records_paged_from_disk);
    tcase_add_test(tc, reads_on_the_thread_pool);
    suite_add_tcase(s, tc);
    /* The reads through PostgreSQL (make test runs it under tests/pg.sh); none
     * without one (a test case made and not added would leak). */
    if (getenv("CARC_PG_URL") == NULL)
        return s;
    TCase *pg = tcase_create("store_read_pg");
    tcase_add_checked_fixture(pg, pg_setup, pg_teardown);
    tcase_set_timeout(pg, 30);
    tcase_add_test(pg, records_paged_pg);
    tcase_add_test(pg, reads_on_the_thread_pool);
    suite_add_tcase(s, pg);
    return s;
}
