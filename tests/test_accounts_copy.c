/* test_accounts_copy.c: store_accounts_copy (server/store/accounts.h, what
 * carcd --import-db / --export-db run beside store_copy). A SQLite source in a
 * directory of its own gets accounts (ids with a gap, one deleted, one
 * disabled), sessions, invites (one used), ratings, history and game links;
 * they are copied into the store under test (SQLite in suite_accounts_copy,
 * PostgreSQL in suite_accounts_copy_pg: CARC_PG_URL, tests/pg.sh) and from
 * there into a new SQLite file; every row is checked on both, a new account
 * and a new history row on the target get fresh ids, a second copy replaces
 * rather than doubles (a session signed out in the source since goes). Also:
 * a database made before accounts copies nothing and stays without account
 * tables; an account whose name the target has under another id fails the
 * copy, leaving the target's account tables as they were. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/accounts.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/status.h"

static char src_dir[64], src_path[160], out_path[160];

static void files_remove(const char *path)
{
    const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    for (int i = 0; i < 4; i++) {
        char p[200];
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
}

static void src_setup(void)
{
    snprintf(src_dir, sizeof src_dir, "/tmp/carc-acopy-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(src_dir));
    snprintf(src_path, sizeof src_path, "%s/src.db", src_dir);
    snprintf(out_path, sizeof out_path, "%s/out.db", src_dir);
}

static void src_teardown(void)
{
    files_remove(src_path);
    files_remove(out_path);
    rmdir(src_dir);
}

static void sq_setup(void)
{
    dir_setup();
    src_setup();
}

static void sq_teardown(void)
{
    src_teardown();
    dir_teardown();
}

static void pgs_setup(void)
{
    pg_setup();
    src_setup();
}

static void pgs_teardown(void)
{
    src_teardown();
    pg_teardown();
}

static struct store *open_file(const char *path)
{
    char err[512];
    struct store *s = store_open_file(path, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    return s;
}

static struct store_accounts *acc_open(struct store *s)
{
    char err[512];
    struct store_accounts *a = store_accounts_open(s, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    return a;
}

static const char *text_of(char c, int len)
{
    static char t[4][80];
    static int i;
    char *out = t[i++ % 4];
    memset(out, c, (size_t)len);
    out[len] = '\0';
    return out;
}

#define DIGEST(c) text_of(c, STORE_SESSION_DIGEST_LEN)
#define CSRF(c) text_of(c, STORE_SESSION_CSRF_LEN)

static long long account_new(struct store_accounts *a, const char *name, const char *invite)
{
    long long id = 0;
    int rc = store_account_create(a, name, "$argon2id$v=19$h", 1000 + (long long)strlen(name),
                                  invite, &id);
    ck_assert_msg(rc == 0, "%s: %s (%s)", name, srv_status_name(rc), store_accounts_error(a));
    return id;
}

static const struct store_rating R2P = {1612.25, 80.5, 0.0599, 0, 0, 1451.25, 7, 9000};
static const struct store_rating RMULTI = {0, 0, 0, 27.125, 6.0625, 8.9375, 3, 9100};

static void point_add(struct store_accounts *a, long long acc, const char *game, long long t,
                      double r)
{
    struct store_rating_point p = {.time_ms = t, .rating = r, .deviation = 99.5};
    snprintf(p.game, sizeof p.game, "%s", game);
    ck_assert_int_eq(store_rating_history_add(a, acc, STORE_POOL_2P, &p), 0);
}

/* The source: alice 1, then (the id sequence moved on) bob 41, deleted, and
 * carol 42, disabled, signed up with alice's invite. */
static void source_fill(struct store *src)
{
    struct store_accounts *a = acc_open(src);
    ck_assert_int_eq(account_new(a, "Alice", NULL), 1);
    ck_assert_int_eq(store_test_exec(src, "UPDATE sqlite_sequence SET seq = 40 WHERE name ="
                                          " 'accounts'"),
                     0);
    ck_assert_int_eq(account_new(a, "Bob", NULL), 41);
    ck_assert_int_eq(store_invite_create(a, "from-alice", 1, 1000, 99000), 0);
    ck_assert_int_eq(store_invite_create(a, "from-admin", 0, 1000, 99000), 0);
    ck_assert_int_eq(account_new(a, "Carol", "from-alice"), 42);
    ck_assert_int_eq(store_session_create(a, DIGEST('a'), 1, CSRF('A'), 1000, 90000), 0);
    ck_assert_int_eq(store_session_create(a, DIGEST('b'), 1, CSRF('B'), 1100, 90000), 0);
    ck_assert_int_eq(store_session_create(a, DIGEST('c'), 42, CSRF('C'), 1200, 90000), 0);
    ck_assert_int_eq(store_session_create(a, DIGEST('d'), 41, CSRF('D'), 1200, 90000), 0);
    ck_assert_int_eq(store_account_delete(a, 41), 0); /* its session goes with it */
    ck_assert_int_eq(store_account_disabled_set(a, 42, 1), 0);
    ck_assert_int_eq(store_rating_put(a, 1, STORE_POOL_2P, &R2P), 0);
    ck_assert_int_eq(store_rating_put(a, 1, STORE_POOL_MULTI, &RMULTI), 0);
    ck_assert_int_eq(store_rating_put(a, 42, STORE_POOL_2P, &R2P), 0);
    point_add(a, 1, "G1", 5000, 1500.5);
    point_add(a, 1, "G2", 6000, 1550.25);
    point_add(a, 1, "G3", 6000, 1612.25); /* same time: insertion (id) orders */
    point_add(a, 42, "G1", 5000, 1480);
    ck_assert_int_eq(store_account_game_add(a, "G1", 0, 1, 5000), 0);
    ck_assert_int_eq(store_account_game_add(a, "G1", 1, 42, 5000), 0);
    ck_assert_int_eq(store_account_game_add(a, "G2", 0, 1, 6000), 0);
    store_accounts_close(a);
}

static void counts_check(const struct store_accounts_counts *n)
{
    ck_assert_int_eq(n->accounts, 3);
    ck_assert_int_eq(n->sessions, 3);
    ck_assert_int_eq(n->invites, 2);
    ck_assert_int_eq(n->ratings, 3);
    ck_assert_int_eq(n->history, 4);
    ck_assert_int_eq(n->games, 3);
}

static void rating_eq(const struct store_rating *a, const struct store_rating *b)
{
    ck_assert(a->rating == b->rating && a->deviation == b->deviation);
    ck_assert(a->volatility == b->volatility && a->mu == b->mu && a->sigma == b->sigma);
    ck_assert(a->display == b->display && a->games == b->games);
    ck_assert_int_eq(a->updated_ms, b->updated_ms);
}

static void accounts_check(struct store_accounts *a)
{
    struct store_account x;
    ck_assert_int_eq(store_account_find(a, "alice", &x), 0);
    ck_assert_int_eq(x.id, 1);
    ck_assert_str_eq(x.name, "Alice");
    ck_assert_str_eq(x.hash, "$argon2id$v=19$h");
    ck_assert_int_eq(x.created_ms, 1005);
    ck_assert_int_eq(store_account_find(a, "bob", &x), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_account_get(a, 41, &x), 0);
    ck_assert(x.deleted && strcmp(x.name, STORE_DELETED_NAME) == 0 && x.hash[0] == '\0');
    ck_assert_int_eq(store_account_find(a, "CAROL", &x), 0);
    ck_assert(x.id == 42 && x.disabled && !x.deleted);
}

static void sessions_invites_check(struct store_accounts *a)
{
    struct store_session s;
    ck_assert_int_eq(store_session_get(a, DIGEST('a'), 2000, &s), 0);
    ck_assert(s.account == 1 && strcmp(s.csrf, CSRF('A')) == 0);
    ck_assert(s.created_ms == 1000 && s.expires_ms == 90000);
    ck_assert_int_eq(store_session_get(a, DIGEST('b'), 2000, &s), 0);
    ck_assert_int_eq(store_session_get(a, DIGEST('d'), 2000, &s), STORE_E_NOT_FOUND);
    /* Carol is disabled: her session is there but not read; enabled, it is. */
    ck_assert_int_eq(store_session_get(a, DIGEST('c'), 2000, &s), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_account_disabled_set(a, 42, 0), 0);
    ck_assert_int_eq(store_session_get(a, DIGEST('c'), 2000, &s), 0);
    ck_assert_int_eq(s.account, 42);
    ck_assert_int_eq(store_account_disabled_set(a, 42, 1), 0);
    ck_assert_int_eq(store_invite_use(a, "from-alice", 1, 2000), STORE_E_USED);
    long count = -1;
    ck_assert_int_eq(store_invite_count(a, 0, 2000, &count), 0);
    ck_assert_int_eq(count, 1);
    ck_assert_int_eq(store_invite_count(a, 1, 2000, &count), 0);
    ck_assert_int_eq(count, 0);
}

static void ratings_games_check(struct store_accounts *a)
{
    struct store_rating r;
    ck_assert_int_eq(store_rating_get(a, 1, STORE_POOL_2P, &r), 0);
    rating_eq(&r, &R2P);
    ck_assert_int_eq(store_rating_get(a, 1, STORE_POOL_MULTI, &r), 0);
    rating_eq(&r, &RMULTI);
    ck_assert_int_eq(store_rating_get(a, 42, STORE_POOL_2P, &r), 0);
    rating_eq(&r, &R2P);
    struct store_rating_point p[8];
    int n = 0;
    ck_assert_int_eq(store_rating_history_read(a, 1, STORE_POOL_2P, 8, p, &n), 0);
    ck_assert_int_eq(n, 3);
    ck_assert(strcmp(p[0].game, "G3") == 0 && strcmp(p[1].game, "G2") == 0);
    ck_assert(p[0].rating == 1612.25 && p[2].rating == 1500.5 && p[2].deviation == 99.5);
    ck_assert_int_eq(store_rating_history_read(a, 42, STORE_POOL_2P, 8, p, &n), 0);
    ck_assert_int_eq(n, 1);
    struct store_account_game g[8];
    ck_assert_int_eq(store_account_games_read(a, 1, 0, 8, g, &n), 0);
    ck_assert_int_eq(n, 2);
    ck_assert(strcmp(g[0].game, "G2") == 0 && g[0].seat == 0 && g[0].time_ms == 6000);
    ck_assert_int_eq(store_account_games_read(a, 42, 0, 8, g, &n), 0);
    ck_assert(n == 1 && g[0].seat == 1);
    /* The copied history's games are marked rated: the target rates none again. */
    int claimed = -1;
    ck_assert_int_eq(store_accounts_begin(a), 0);
    ck_assert_int_eq(store_rated_game_claim(a, "G2", 1, &claimed), 0);
    ck_assert_int_eq(claimed, 0);
    ck_assert_int_eq(store_rated_game_claim(a, "G3", 1, &claimed), 0);
    ck_assert_int_eq(claimed, 0);
    ck_assert_int_eq(store_rated_game_claim(a, "never-rated", 1, &claimed), 0);
    ck_assert_int_eq(claimed, 1);
    ck_assert_int_eq(store_accounts_rollback(a), 0);
}

/* Every source row in st's account tables. */
static void target_check(struct store *st)
{
    struct store_accounts *a = acc_open(st);
    accounts_check(a);
    sessions_invites_check(a);
    ratings_games_check(a);
    store_accounts_close(a);
}

/* After a copy: a new account and a new history row get ids past the copied. */
static void fresh_ids_check(struct store *st, const char *name)
{
    struct store_accounts *a = acc_open(st);
    ck_assert_int_eq(account_new(a, name, NULL), 43);
    point_add(a, 43, "G9", 7000, 1400);
    store_accounts_close(a);
}

static void copy_ok(struct store *from, struct store *to, struct store_accounts_counts *n)
{
    char err[512];
    ck_assert_msg(store_accounts_copy(from, to, n, err, sizeof err) == 0, "%s", err);
}

START_TEST(every_row_copied_with_its_id)
{
    char err[512];
    struct store *src = open_file(src_path);
    source_fill(src);
    struct store *to = su_store_open(err, sizeof err);
    ck_assert_msg(to != NULL, "%s", err);
    struct store_accounts_counts n;
    copy_ok(src, to, &n);
    counts_check(&n);
    target_check(to);
    fresh_ids_check(to, "Dave");
    /* Again, after Alice signed out of one device on the source: replaced,
     * not doubled, her old session gone, Dave (the target's own) kept. */
    struct store_accounts *a = acc_open(src);
    ck_assert_int_eq(store_session_delete(a, DIGEST('b')), 0);
    store_accounts_close(a);
    copy_ok(src, to, &n);
    ck_assert(n.accounts == 3 && n.sessions == 2 && n.history == 4);
    a = acc_open(to);
    struct store_session s;
    ck_assert_int_eq(store_session_get(a, DIGEST('b'), 2000, &s), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_session_get(a, DIGEST('a'), 2000, &s), 0);
    struct store_account x;
    ck_assert_int_eq(store_account_find(a, "dave", &x), 0);
    ck_assert_int_eq(x.id, 43);
    struct store_rating_point p[8];
    int k = 0;
    ck_assert_int_eq(store_rating_history_read(a, 1, STORE_POOL_2P, 8, p, &k), 0);
    ck_assert_int_eq(k, 3);
    ck_assert_int_eq(store_session_create(a, DIGEST('b'), 1, CSRF('B'), 1100, 90000), 0);
    store_accounts_close(a);
    /* The target into a new SQLite file (--export-db): the same rows. */
    struct store *out = open_file(out_path);
    copy_ok(to, out, &n);
    ck_assert(n.accounts == 4 && n.sessions == 3 && n.history == 5);
    target_check(out);
    a = acc_open(out);
    ck_assert_int_eq(account_new(a, "Erin", NULL), 44);
    store_accounts_close(a);
    store_close(out);
    store_close(to);
    store_close(src);
}
END_TEST

START_TEST(database_before_accounts_copies_nothing)
{
    char err[512];
    struct store *src = open_file(src_path); /* the store alone: no account tables */
    struct store *to = su_store_open(err, sizeof err);
    ck_assert_msg(to != NULL, "%s", err);
    struct store_accounts_counts n = {1, 1, 1, 1, 1, 1};
    copy_ok(src, to, &n);
    ck_assert(n.accounts == 0 && n.sessions == 0 && n.invites == 0);
    ck_assert(n.ratings == 0 && n.history == 0 && n.games == 0);
    ck_assert_int_eq(store_test_exec(src, "SELECT 1 FROM accounts_version"), -1); /* untouched */
    struct store_accounts *a = acc_open(to);
    ck_assert_int_eq(account_new(a, "First", NULL), 1);
    store_accounts_close(a);
    store_close(to);
    store_close(src);
}
END_TEST

START_TEST(name_taken_under_another_id_fails)
{
    char err[512];
    struct store *src = open_file(src_path);
    source_fill(src);
    struct store *to = su_store_open(err, sizeof err);
    ck_assert_msg(to != NULL, "%s", err);
    struct store_accounts *a = acc_open(to);
    ck_assert_int_eq(account_new(a, "Zed", NULL), 1);
    ck_assert_int_eq(account_new(a, "carol", NULL), 2);
    store_accounts_close(a);
    struct store_accounts_counts n;
    ck_assert_int_eq(store_accounts_copy(src, to, &n, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "account 42") != NULL && strstr(err, "name") != NULL, "%s", err);
    a = acc_open(to);
    struct store_account x;
    ck_assert_int_eq(store_account_get(a, 1, &x), 0);
    ck_assert_str_eq(x.name, "Zed"); /* not Alice: nothing of the copy stayed */
    struct store_session s;
    ck_assert_int_eq(store_session_get(a, DIGEST('a'), 2000, &s), STORE_E_NOT_FOUND);
    store_accounts_close(a);
    store_close(to);
    store_close(src);
}
END_TEST

static void tests_add(TCase *tc)
{
    tcase_add_test(tc, every_row_copied_with_its_id);
    tcase_add_test(tc, database_before_accounts_copies_nothing);
    tcase_add_test(tc, name_taken_under_another_id_fails);
}

Suite *suite_accounts_copy(void)
{
    Suite *s = suite_create("accounts_copy");
    TCase *tc = tcase_create("accounts_copy");
    tcase_add_checked_fixture(tc, sq_setup, sq_teardown);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}

/* The same into a real PostgreSQL (make test runs it under tests/pg.sh). */
Suite *suite_accounts_copy_pg(void)
{
    Suite *s = suite_create("accounts_copy_pg");
    if (getenv("CARC_PG_URL") == NULL) /* as suite_store_pg: empty without a database */
        return s;
    TCase *tc = tcase_create("accounts_copy_pg");
    tcase_add_checked_fixture(tc, pgs_setup, pgs_teardown);
    tcase_set_timeout(tc, 30);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
