/* test_accounts_stats.c: the statistics of an account's finished games
 * (server/store/accounts_stats.h), aggregated by the database on SQLite
 * (suite_accounts_stats) and by the same test body on a real PostgreSQL
 * (suite_accounts_stats_pg, CARC_PG_URL: tests/pg.sh). Hand-made rows of
 * games and account_games: wins, a shared first place counted as a win, 2-
 * and 3-player games, an abandoned game and a running one (a link without a
 * record) not counted, a record without "sets" counted as the base game,
 * sets ordered by count then name, the bound on the newest links, and an
 * account without games. Then the accounts service's side
 * (players/accounts_stats.c) on a real loop and thread pool: the totals, a
 * name in any case, a bot's identity (zeros), an unknown or deleted name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "players/accounts.h"
#include "store/accounts.h"
#include "store/accounts_stats.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/status.h"

static struct store *st;
static struct store_accounts *ac;

static void both_open(void)
{
    su_accounts_open(&st, &ac);
}

static void both_close(void)
{
    su_accounts_close(&st, &ac);
}

static void sq_teardown(void)
{
    both_close();
    dir_teardown();
}

static void pgs_teardown(void)
{
    both_close();
    pg_teardown();
}

static long long account_new(const char *name)
{
    return su_account_new(ac, name);
}

/* A game's record row, as the store writes one (sets: the record's "sets"
 * array, or NULL for a record without the key). */
static void game_put(const char *room, const char *sets, const char *scores, const char *status)
{
    char sql[1024];
    char rec[256];
    if (sets != NULL)
        snprintf(rec, sizeof rec, "{\"format\":\"carcassonne-game/1\",\"sets\":%s,\"moves\":[]}",
                 sets);
    else
        snprintf(rec, sizeof rec, "{\"format\":\"carcassonne-game/1\",\"moves\":[]}");
    snprintf(sql, sizeof sql,
             "INSERT INTO games(room, record, players, scores, finished, status)"
             " VALUES('%s', '%s', '[]', '%s', 500, '%s')",
             room, rec, scores, status);
    ck_assert_int_eq(store_test_exec(st, sql), 0);
}

static void link_add(const char *room, int seat, long long account, long long time_ms)
{
    int rc = store_account_game_add(ac, room, seat, account, time_ms);
    ck_assert_msg(rc == 0, "%s: %s (%s)", room, srv_status_name(rc), store_accounts_error(ac));
}

static void by_check(const struct store_account_stats *s, int i, int players, long long played,
                     long long won, double avg)
{
    ck_assert_int_gt(s->nby, i);
    ck_assert_int_eq(s->by[i].players, players);
    ck_assert_int_eq(s->by[i].played, played);
    ck_assert_int_eq(s->by[i].won, won);
    ck_assert_msg(s->by[i].average_score > avg - 1e-9 && s->by[i].average_score < avg + 1e-9,
                  "players %d: average %.17g, want %.17g", players, s->by[i].average_score, avg);
}

static void set_check(const struct store_account_stats *s, int i, const char *set, long long played)
{
    ck_assert_int_gt(s->nsets, i);
    ck_assert_str_eq(s->sets[i].set, set);
    ck_assert_int_eq(s->sets[i].played, played);
}

START_TEST(stats_of_finished_games)
{
    both_open();
    long long ann = account_new("Ann"), ben = account_new("Ben"), cy = account_new("Cy");
    game_put("G1", "[\"base\"]", "[30,20]", STORE_FINISHED);                     /* Ann wins */
    game_put("G2", "[\"base\",\"inns-cathedrals\"]", "[25,25]", STORE_FINISHED); /* a tie */
    game_put("G3", NULL, "[10,40]", STORE_FINISHED);                             /* lost */
    game_put("G4", "[\"base\",\"inns-cathedrals\",\"cathars\"]", "[50,12,50]", STORE_FINISHED);
    game_put("G5", "[\"base\",\"cathars\"]", "[5,3,9]", STORE_FINISHED); /* lost */
    game_put("G6", "[\"base\",\"siege\"]", "[100,0]", STORE_ABANDONED);  /* not counted */
    link_add("G1", 0, ann, 100);
    link_add("G1", 1, ben, 100);
    link_add("G2", 1, ann, 200);
    link_add("G3", 0, ann, 300);
    link_add("G4", 2, ann, 400);
    link_add("G5", 1, ann, 500);
    link_add("G6", 0, ann, 600);
    link_add("G7", 0, ann, 700); /* running: no record yet */

    struct store_account_stats s;
    int rc = store_account_stats_read(ac, ann, 5000, &s);
    ck_assert_msg(rc == 0, "%s (%s)", srv_status_name(rc), store_accounts_error(ac));
    ck_assert_int_eq(s.nby, 2);
    by_check(&s, 0, 2, 3, 2, (30 + 25 + 10) / 3.0);
    by_check(&s, 1, 3, 2, 1, (50 + 3) / 2.0);
    ck_assert_int_eq(s.nsets, 3);
    set_check(&s, 0, "base", 5);
    set_check(&s, 1, "cathars", 2); /* a tie of counts: by name */
    set_check(&s, 2, "inns-cathedrals", 2);

    /* Ben's one game, lost. */
    ck_assert_int_eq(store_account_stats_read(ac, ben, 5000, &s), 0);
    ck_assert_int_eq(s.nby, 1);
    by_check(&s, 0, 2, 1, 0, 20);
    ck_assert_int_eq(s.nsets, 1);
    set_check(&s, 0, "base", 1);

    /* Only the newest 3 links of Ann (G7, G6, G5): G5 alone is finished. */
    ck_assert_int_eq(store_account_stats_read(ac, ann, 3, &s), 0);
    ck_assert_int_eq(s.nby, 1);
    by_check(&s, 0, 3, 1, 0, 3);
    ck_assert_int_eq(s.nsets, 2);
    set_check(&s, 0, "base", 1);
    set_check(&s, 1, "cathars", 1);

    /* Nobody's games: zeros; bad arguments. */
    ck_assert_int_eq(store_account_stats_read(ac, cy, 5000, &s), 0);
    ck_assert_int_eq(s.nby, 0);
    ck_assert_int_eq(s.nsets, 0);
    ck_assert_int_eq(store_account_stats_read(ac, 0, 5000, &s), STORE_E_ARGS);
    ck_assert_int_eq(store_account_stats_read(ac, ann, 0, &s), STORE_E_ARGS);

    /* Inside a caller's transaction it reads there and leaves it open. */
    ck_assert_int_eq(store_accounts_begin(ac), 0);
    ck_assert_int_eq(store_account_stats_read(ac, ann, 5000, &s), 0);
    ck_assert_int_eq(s.nby, 2);
    ck_assert_int_eq(store_accounts_commit(ac), 0);
}
END_TEST

/* ---- the service ---- */

struct got {
    int n;
    struct accounts_result r;
    struct accounts_stats stats;
};

static void on_result(void *arg, const struct accounts_result *r)
{
    struct got *g = arg;
    g->n++;
    g->r = *r;
    if (r->stats != NULL)
        g->stats = *r->stats;
}

static void on_closed(void *arg)
{
    (*(int *)arg)++;
}

/* accounts_stats(name) answered on the loop, into g. */
static void ask(struct accounts *svc, uv_loop_t *loop, const char *name, struct got *g)
{
    memset(g, 0, sizeof *g);
    ck_assert_ptr_nonnull(accounts_stats(svc, name, on_result, g));
    ck_assert_int_eq(g->n, 0); /* never from inside the call */
    uv_run(loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g->n, 1);
}

START_TEST(service_answers)
{
    both_open();
    long long ann = account_new("Ann"), del = account_new("Gone");
    game_put("G1", "[\"base\"]", "[30,20]", STORE_FINISHED);
    game_put("G2", "[\"base\",\"cathars\"]", "[7,9,9]", STORE_FINISHED);
    link_add("G1", 0, ann, 100);
    link_add("G2", 2, ann, 200);
    link_add("G2", 0, del, 200);
    ck_assert_int_eq(store_account_delete(ac, del), 0);

    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    struct accounts_config c;
    accounts_config_defaults(&c);
    c.hash_ops = 1; /* the dummy hash made at start: cheap here */
    c.hash_mem = 8192;
    char err[512];
    struct accounts *svc = accounts_new(&loop, st, &c, NULL, err, sizeof err);
    ck_assert_msg(svc != NULL, "%s", err);
    struct got g;
    ask(svc, &loop, "ANN", &g);
    ck_assert_int_eq(g.r.status, 0);
    ck_assert_int_eq(g.stats.played, 2);
    ck_assert_int_eq(g.stats.won, 2); /* a win and a shared first place */
    ck_assert_int_eq(g.stats.nby, 2);
    ck_assert_int_eq(g.stats.by[0].players, 2);
    ck_assert_int_eq(g.stats.by[1].players, 3);
    ck_assert_msg(g.stats.by[1].average_score == 9.0, "%g", g.stats.by[1].average_score);
    ck_assert_int_eq(g.stats.nsets, 2);
    ck_assert_str_eq(g.stats.sets[0].set, "base");
    ck_assert_int_eq(g.stats.sets[0].played, 2);
    ck_assert_str_eq(g.stats.sets[1].set, "cathars");
    ask(svc, &loop, "bot.random", &g); /* made by accounts_new, never linked */
    ck_assert_int_eq(g.r.status, 0);
    ck_assert_int_eq(g.stats.played, 0);
    ck_assert_int_eq(g.stats.nby + g.stats.nsets, 0);
    ask(svc, &loop, "nobody", &g);
    ck_assert_int_eq(g.r.status, ACCOUNTS_E_UNKNOWN);
    ask(svc, &loop, "Gone", &g); /* deleted: nobody's name any more */
    ck_assert_int_eq(g.r.status, ACCOUNTS_E_UNKNOWN);
    ask(svc, &loop, "", &g);
    ck_assert_int_eq(g.r.status, ACCOUNTS_E_UNKNOWN);

    int done = 0;
    accounts_close(svc, on_closed, &done);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(done, 1);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

Suite *suite_accounts_stats(void)
{
    Suite *s = suite_create("accounts_stats");
    TCase *tc = tcase_create("accounts_stats");
    tcase_add_checked_fixture(tc, dir_setup, sq_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, stats_of_finished_games);
    tcase_add_test(tc, service_answers);
    suite_add_tcase(s, tc);
    return s;
}

/* The same on a real PostgreSQL (make test runs it under tests/pg.sh). */
Suite *suite_accounts_stats_pg(void)
{
    Suite *s = suite_create("accounts_stats_pg");
    if (getenv("CARC_PG_URL") == NULL) /* as suite_store_pg: empty without a database */
        return s;
    TCase *tc = tcase_create("accounts_stats_pg");
    tcase_add_checked_fixture(tc, pg_setup, pgs_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, stats_of_finished_games);
    tcase_add_test(tc, service_answers);
    suite_add_tcase(s, tc);
    return s;
}
