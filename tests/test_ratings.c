/* test_ratings.c: ratings in the accounts service (server/players/ratings_job.c;
 * PROTOCOL.md "Ratings") on a real loop and thread pool, over SQLite
 * (suite_ratings) and a real PostgreSQL (suite_ratings_pg, CARC_PG_URL:
 * tests/pg.sh). The numbers are checked against players/rating.c's own
 * arithmetic: a fresh two-player game (both from 1500/350/0.06), a second
 * game days later (deviations aged first), a bot's identity, a four-player
 * game with a tie, a forfeit; rating a game twice changes nothing; an
 * unrated player's read, a player's answer and a ladder's page; the catch-up
 * of ratings lost in a crash (accounts_rate_pending): once, in batches, in
 * its window, and a game that cannot be rated marked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "players/accounts.h"
#include "players/rating.h"
#include "store/accounts.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/mem.h"
#include "util/status.h"

#define DAY_MS 86400000LL
#define T0 1700000000000LL

static uv_loop_t loop;
static struct store *st;
static struct accounts *svc;
static struct store_accounts *h;
static long long fake_now;

static long long now_fn(void)
{
    return fake_now;
}

static void setup_common(void)
{
    fake_now = T0;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    char err[512];
    st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    struct accounts_config c;
    accounts_config_defaults(&c);
    c.hash_ops = 1;
    c.hash_mem = 8192;
    svc = accounts_new(&loop, st, &c, now_fn, err, sizeof err);
    ck_assert_msg(svc != NULL, "%s", err);
    h = store_accounts_open(st, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
}

static void on_closed(void *arg)
{
    (*(int *)arg)++;
}

static void teardown_common(void)
{
    store_accounts_close(h);
    int done = 0;
    accounts_close(svc, on_closed, &done);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(done, 1);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    store_close(st);
}

static void sq_setup(void)
{
    dir_setup();
    setup_common();
}

static void sq_teardown(void)
{
    teardown_common();
    dir_teardown();
}

static void pgs_setup(void)
{
    pg_setup();
    setup_common();
}

static void pgs_teardown(void)
{
    teardown_common();
    pg_teardown();
}

struct got {
    int n;
    struct accounts_result r;
    struct accounts_player player;
    struct accounts_ladder_row rows[ACCOUNTS_LADDER_PAGE];
};

static void on_result(void *arg, const struct accounts_result *r)
{
    struct got *g = arg;
    g->n++;
    g->r = *r;
    if (r->player != NULL)
        g->player = *r->player;
    for (int i = 0; r->ladder != NULL && i < r->nlist; i++)
        g->rows[i] = r->ladder[i];
}

static long long account(const char *name)
{
    long long id = 0;
    ck_assert_int_eq(store_account_create(h, name, "x", T0, NULL, &id), 0);
    return id;
}

static long long bot_id(const char *name)
{
    struct store_account a;
    ck_assert_int_eq(store_account_find(h, name, &a), 0);
    return a.id;
}

/* The game rated; the loop runs until the job is done. */
static void rate(const char *game, long long time_ms, const struct accounts_rated_player *p, int n)
{
    ck_assert_int_eq(accounts_rate_game(svc, game, time_ms, p, n), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
}

static struct store_rating rating(long long id, const char *pool)
{
    struct store_rating r;
    ck_assert_int_eq(store_rating_get(h, id, pool, &r), 0);
    return r;
}

#define NEAR(a, b) ck_assert_msg(fabs((a) - (b)) < 1e-9, "%.12f != %.12f", (double)(a), (double)(b))

/* Glicko-2 of one game of x against y (both as they stood before it). */
static struct rating_g2 g2_after(struct rating_g2 x, const struct rating_g2 *y, double score)
{
    struct rating_g2_game g = {y->rating, y->deviation, score};
    ck_assert_int_eq(rating_g2_update(&x, &g, 1, RATING_G2_TAU), 0);
    return x;
}

static void g2_is(long long id, const struct rating_g2 *want, int games)
{
    struct store_rating r = rating(id, STORE_POOL_2P);
    NEAR(r.rating, want->rating);
    NEAR(r.deviation, want->deviation);
    NEAR(r.volatility, want->volatility);
    NEAR(r.display, want->rating);
    ck_assert_int_eq(r.games, games);
}

START_TEST(bots_have_identities)
{
    static const char *const names[] = ACCOUNTS_BOT_NAMES;
    for (int i = 0; i < ACCOUNTS_BOTS; i++) {
        struct store_account a;
        ck_assert_int_eq(store_account_find(h, names[i], &a), 0);
        ck_assert_str_eq(a.hash, ""); /* no password: nobody signs in as a bot */
    }
    struct got g = {0};
    ck_assert_ptr_nonnull(
        accounts_signin(svc, "bot.random", "any password", 12, "10.0.0.1", on_result, &g));
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g.n, 1);
    ck_assert_int_ne(g.r.status, 0);
}
END_TEST

START_TEST(two_players)
{
    long long ann = account("ann"), bob = account("bob");
    struct accounts_rated_player p[2] = {{ann, 0, 30, 0}, {bob, 0, 12, 0}};
    rate("g1", T0 + 1000, p, 2);
    struct rating_g2 fresh, a1, b1;
    rating_g2_init(&fresh);
    a1 = g2_after(fresh, &fresh, 1.0);
    b1 = g2_after(fresh, &fresh, 0.0);
    g2_is(ann, &a1, 1);
    g2_is(bob, &b1, 1);
    ck_assert_double_gt(a1.rating, 1500);
    /* Twice: nothing changes. */
    rate("g1", T0 + 2000, p, 2);
    g2_is(ann, &a1, 1);
    g2_is(bob, &b1, 1);
    struct store_rating_point pts[4];
    int n = 0;
    ck_assert_int_eq(store_rating_history_read(h, ann, STORE_POOL_2P, 4, pts, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(pts[0].game, "g1");
    NEAR(pts[0].rating, a1.rating);
    /* Ten days later a draw: both deviations aged first. */
    long long t2 = T0 + 1000 + 10 * DAY_MS;
    struct accounts_rated_player q[2] = {{bob, 0, 20, 0}, {ann, 0, 20, 0}};
    rate("g2", t2, q, 2);
    struct rating_g2 a = a1, b = b1;
    ck_assert_int_eq(rating_g2_age(&a, 10 * RATING_G2_PERIODS_PER_DAY), 0);
    ck_assert_int_eq(rating_g2_age(&b, 10 * RATING_G2_PERIODS_PER_DAY), 0);
    struct rating_g2 a2 = g2_after(a, &b, 0.5), b2 = g2_after(b, &a, 0.5);
    g2_is(ann, &a2, 2);
    g2_is(bob, &b2, 2);
    /* Nothing in the other pool. */
    struct store_rating r;
    ck_assert_int_eq(store_rating_get(h, ann, STORE_POOL_MULTI, &r), STORE_E_NOT_FOUND);
}
END_TEST

/* A bot is rated as its level's identity; a forfeit loses whatever the score. */
START_TEST(bot_identity_and_forfeit)
{
    long long ann = account("ann"), greedy = bot_id("bot.greedy");
    struct accounts_rated_player p[2] = {{ann, 0, 50, 1}, {0, 2, 3, 0}};
    rate("g1", T0, p, 2);
    struct rating_g2 fresh;
    rating_g2_init(&fresh);
    struct rating_g2 a1 = g2_after(fresh, &fresh, 0.0), b1 = g2_after(fresh, &fresh, 1.0);
    g2_is(ann, &a1, 1);
    g2_is(greedy, &b1, 1);
    struct store_rating r;
    ck_assert_int_eq(store_rating_get(h, bot_id("bot.random"), STORE_POOL_2P, &r),
                     STORE_E_NOT_FOUND);
}
END_TEST

START_TEST(four_players_with_a_tie)
{
    long long id[4] = {account("ann"), account("bob"), account("cy"), account("dee")};
    struct accounts_rated_player p[4] = {
        {id[0], 0, 10, 0}, {id[1], 0, 7, 0}, {id[2], 0, 7, 0}, {id[3], 0, 3, 0}};
    rate("m1", T0, p, 4);
    rate("m1", T0, p, 4); /* twice: counted once */
    struct rating_pl_model m;
    rating_pl_model_init(&m);
    struct rating_pl pl[4];
    for (int i = 0; i < 4; i++)
        rating_pl_init(&pl[i], &m);
    int rank[4] = {0, 1, 1, 3};
    ck_assert_int_eq(rating_pl_update(pl, rank, 4, &m), 0);
    for (int i = 0; i < 4; i++) {
        struct store_rating r = rating(id[i], STORE_POOL_MULTI);
        NEAR(r.mu, pl[i].mu);
        NEAR(r.sigma, pl[i].sigma);
        NEAR(r.display, rating_pl_display(&pl[i]));
        ck_assert_int_eq(r.games, 1);
    }
    /* The tied two moved alike. */
    NEAR(pl[1].mu, pl[2].mu);
    struct store_rating r;
    ck_assert_int_eq(store_rating_get(h, id[0], STORE_POOL_2P, &r), STORE_E_NOT_FOUND);
}
END_TEST

/* A player's answer and a ladder's page; an unknown name. */
START_TEST(player_and_ladder)
{
    long long ann = account("ann"), bob = account("bob");
    struct accounts_rated_player p[2] = {{ann, 0, 30, 0}, {bob, 0, 12, 0}};
    rate("g1", T0, p, 2);
    struct got g = {0};
    ck_assert_ptr_nonnull(accounts_player(svc, "ANN", on_result, &g));
    ck_assert_int_eq(g.n, 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g.r.status, 0);
    ck_assert_str_eq(g.player.name, "ann");
    ck_assert_int_eq(g.player.pool[0].present, 1);
    ck_assert_int_eq(g.player.pool[0].games, 1);
    ck_assert_int_eq(g.player.pool[0].provisional, 1);
    ck_assert_int_eq(g.player.pool[0].nhistory, 1);
    ck_assert_str_eq(g.player.pool[0].history[0].game, "g1");
    ck_assert_int_eq(g.player.pool[1].present, 0);
    struct store_rating r = rating(ann, STORE_POOL_2P);
    NEAR(g.player.pool[0].rating, r.rating);
    memset(&g, 0, sizeof g);
    accounts_player(svc, "nobody", on_result, &g);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g.r.status, ACCOUNTS_E_UNKNOWN);
    memset(&g, 0, sizeof g);
    accounts_player(svc, "bot.strong", on_result, &g);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g.r.status, 0);
    ck_assert_int_eq(g.player.pool[0].present, 0);
    memset(&g, 0, sizeof g);
    accounts_ladder(svc, 0, 0, 1, on_result, &g);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g.r.status, 0);
    ck_assert_int_eq(g.r.nlist, 2);
    ck_assert_str_eq(g.rows[0].name, "ann");
    ck_assert_int_eq(g.rows[0].rank, 1);
    ck_assert_str_eq(g.rows[1].name, "bob");
    ck_assert_int_eq(g.rows[1].rank, 2);
    memset(&g, 0, sizeof g);
    accounts_ladder(svc, 0, 0, 2, on_result, &g); /* nobody has two games */
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g.r.nlist, 0);
}
END_TEST

static void no_done(void *arg, void *key, const char *id, unsigned long gen, int ok, int moves,
                    long long seq)
{
    (void)arg, (void)key, (void)id, (void)gen, (void)moves, (void)seq;
    ck_assert_int_eq(ok, 1);
}

/* A finished rated game of two seats (accounts a and b, or b 0: a guest's
 * seat) as the store holds it after carcd wrote its end, and no rating. */
static void finished_write(const char *id, long long a, long long b, const char *scores)
{
    store_hooks_set(st, &(struct store_hooks){NULL, no_done, NULL});
    struct store_room *e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->nseats = e->nseat = 2;
    e->phase = 2;
    e->created = 1000;
    e->updated = 5000;
    e->variants = 1 << 4;
    e->seats[0].account = a;
    e->seats[1].account = b;
    e->seats[1].idx = 1;
    snprintf(e->seats[0].name, sizeof e->seats[0].name, "a");
    snprintf(e->seats[1].name, sizeof e->seats[1].name, "b");
    e->record = mem_strdup("{}");
    e->players = mem_strdup("[\"a\",\"b\"]");
    e->scores = mem_strdup(scores);
    e->status = STORE_FINISHED;
    ck_assert_int_eq(store_flush(st), 0);
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE games SET finished = %lld WHERE room = '%s'", T0, id);
    ck_assert_int_eq(store_test_exec(st, sql), 0);
}

/* The catch-up: a finished rated game whose rating was lost (carcd died
 * before it committed) is rated from the store's rows as its end would have
 * rated it; again, or its end's job arriving late, changes nothing; a game
 * that cannot be rated (a guest's seat) is marked and left. */
START_TEST(lost_rating_caught_up_once)
{
    long long ann = account("ann"), bob = account("bob");
    finished_write("lost", ann, bob, "[30,12]");
    finished_write("guest", ann, 0, "[1,2]");
    ck_assert_int_eq(accounts_rate_pending(svc, 1), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    struct rating_g2 fresh;
    rating_g2_init(&fresh);
    struct rating_g2 a1 = g2_after(fresh, &fresh, 1.0), b1 = g2_after(fresh, &fresh, 0.0);
    g2_is(ann, &a1, 1);
    g2_is(bob, &b1, 1);
    struct store_rating_point pts[4];
    int n = 0;
    ck_assert_int_eq(store_rating_history_read(h, ann, STORE_POOL_2P, 4, pts, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(pts[0].game, "lost");
    ck_assert_int_eq(pts[0].time_ms, T0);
    struct store_rated_game g[4];
    ck_assert_int_eq(store_rated_games_pending(h, 0, 4, g, &n), 0);
    ck_assert_int_eq(n, 0); /* the guest's game marked too */
    ck_assert_int_eq(accounts_rate_pending(svc, 1), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    struct accounts_rated_player p[2] = {{ann, 0, 30, 0}, {bob, 0, 12, 0}};
    rate("lost", T0, p, 2);
    g2_is(ann, &a1, 1);
    g2_is(bob, &b1, 1);
}
END_TEST

/* More lost games than one run rates (32): the runs follow one another
 * until every one is rated; a run that is not the first after start looks
 * back a day only. */
START_TEST(lost_ratings_in_batches_and_window)
{
    long long ann = account("ann"), bob = account("bob");
    finished_write("old", ann, bob, "[30,12]");
    ck_assert_int_eq(store_test_exec(st, "UPDATE games SET finished = 1699000000000"), 0);
    ck_assert_int_eq(accounts_rate_pending(svc, 0), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    struct store_rating r;
    ck_assert_int_eq(store_rating_get(h, ann, STORE_POOL_2P, &r), STORE_E_NOT_FOUND);
    for (int i = 0; i < 40; i++) {
        char id[16];
        snprintf(id, sizeof id, "g%02d", i);
        finished_write(id, ann, bob, "[30,12]");
    }
    ck_assert_int_eq(accounts_rate_pending(svc, 0), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(rating(ann, STORE_POOL_2P).games, 40);
    ck_assert_int_eq(accounts_rate_pending(svc, 1), 0); /* the first run: every game */
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(rating(ann, STORE_POOL_2P).games, 41);
    ck_assert_int_eq(rating(bob, STORE_POOL_2P).games, 41);
}
END_TEST

static void tests_add(TCase *tc)
{
    tcase_add_test(tc, bots_have_identities);
    tcase_add_test(tc, two_players);
    tcase_add_test(tc, bot_identity_and_forfeit);
    tcase_add_test(tc, four_players_with_a_tie);
    tcase_add_test(tc, player_and_ladder);
    tcase_add_test(tc, lost_rating_caught_up_once);
    tcase_add_test(tc, lost_ratings_in_batches_and_window);
}

Suite *suite_ratings(void)
{
    Suite *s = suite_create("ratings");
    TCase *tc = tcase_create("ratings");
    tcase_add_checked_fixture(tc, sq_setup, sq_teardown);
    tcase_set_timeout(tc, 60);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}

Suite *suite_ratings_pg(void)
{
    Suite *s = suite_create("ratings_pg");
    if (getenv("CARC_PG_URL") == NULL)
        return s;
    TCase *tc = tcase_create("ratings_pg");
    tcase_add_checked_fixture(tc, pgs_setup, pgs_teardown);
    tcase_set_timeout(tc, 60);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
