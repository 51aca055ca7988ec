/* test_accounts_store.c: accounts, sessions, invites, ratings and the games of
 * an account in the database (server/store/accounts.h), each test on SQLite in
 * a scratch directory (suite_accounts_store) and the same bodies on a real
 * PostgreSQL (suite_accounts_store_pg, CARC_PG_URL: tests/pg.sh), through
 * store_util.h's su_store_open. Covered: names taken without case, deletion
 * freeing the name and keeping the id, sessions expiring and refused for
 * disabled and deleted accounts, invites used once or expired (and an account
 * not created on a bad invite), a member's unused invites counted, ratings upserted, history newest
 * first, the ladder's minimum of games and order, game links paged, a game's record summary, and
 * the migration of a database made by today's store (its rows kept, the store's schema version
 * untouched, reopening idempotent, newer account tables refused); rated games
 * marked once (also from another handle; a rollback unmarks), the finished
 * rated games without a mark read back with their seats and scores (oldest
 * first, bounded, from a time on), and account tables of version 1 brought
 * to 2 with the games of rating_history marked rated. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_util.h"
#include "store/accounts.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/log.h"
#include "util/mem.h"
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

/* A digest of 64 characters c, a CSRF token of 43. */
static const char *digest_of(char c)
{
    static char d[4][STORE_SESSION_DIGEST_LEN + 1];
    static int i;
    char *out = d[i++ % 4];
    memset(out, c, STORE_SESSION_DIGEST_LEN);
    out[STORE_SESSION_DIGEST_LEN] = '\0';
    return out;
}

static const char *csrf_of(char c)
{
    static char t[STORE_SESSION_CSRF_LEN + 1];
    memset(t, c, STORE_SESSION_CSRF_LEN);
    t[STORE_SESSION_CSRF_LEN] = '\0';
    return t;
}

/* ---- accounts ---- */

START_TEST(names_taken_without_case)
{
    both_open();
    long long alice = account_new("Alice");
    long long id = 0;
    ck_assert_int_eq(store_account_create(ac, "aLICE", "h", 2000, NULL, &id), STORE_E_EXISTS);
    ck_assert_int_eq(id, 0);
    long long bob = account_new("Bob-2");
    ck_assert_int_ne(bob, alice);
    struct store_account a;
    ck_assert_int_eq(store_account_find(ac, "ALICE", &a), 0);
    ck_assert_int_eq(a.id, alice);
    ck_assert_str_eq(a.name, "Alice"); /* as typed */
    ck_assert_str_eq(a.hash, "$argon2id$v=19$fake");
    ck_assert_int_eq(a.created_ms, 1000);
    ck_assert_int_eq(a.disabled, 0);
    ck_assert_int_eq(a.deleted, 0);
    ck_assert_int_eq(store_account_find(ac, "carol", &a), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_account_get(ac, bob, &a), 0);
    ck_assert_str_eq(a.name, "Bob-2");
    ck_assert_int_eq(store_account_get(ac, bob + 100, &a), STORE_E_NOT_FOUND);
    /* Changes */
    ck_assert_int_eq(store_account_hash_set(ac, alice, "new-hash"), 0);
    ck_assert_int_eq(store_account_disabled_set(ac, bob, 1), 0);
    ck_assert_int_eq(store_account_hash_set(ac, bob + 100, "x"), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_account_get(ac, alice, &a), 0);
    ck_assert_str_eq(a.hash, "new-hash");
    ck_assert_int_eq(store_account_get(ac, bob, &a), 0);
    ck_assert_int_eq(a.disabled, 1);
    /* A name with a quote is a parameter, not SQL. */
    long long q = account_new("o'Neil");
    ck_assert_int_eq(store_account_find(ac, "O'NEIL", &a), 0);
    ck_assert_int_eq(a.id, q);
    /* Bad arguments */
    ck_assert_int_eq(store_account_create(ac, "", "h", 1, NULL, &id), STORE_E_ARGS);
    ck_assert_int_eq(store_account_create(ac, "a234567890123456789012345", "h", 1, NULL, &id),
                     STORE_E_ARGS);
    char long_hash[STORE_ACCOUNT_HASH_MAX + 2];
    memset(long_hash, 'h', sizeof long_hash - 1);
    long_hash[sizeof long_hash - 1] = '\0';
    ck_assert_int_eq(store_account_create(ac, "Dan", long_hash, 1, NULL, &id), STORE_E_ARGS);
    /* Paged by id */
    struct store_account page[4];
    int n = -1;
    ck_assert_int_eq(store_account_list(ac, 0, 4, page, &n), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(page[0].id, alice);
    ck_assert_int_eq(page[2].id, q);
    ck_assert_int_eq(store_account_list(ac, 1, 1, page, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(page[0].id, bob);
    ck_assert_int_eq(store_account_list(ac, 3, 4, page, &n), 0);
    ck_assert_int_eq(n, 0);
}
END_TEST

START_TEST(delete_frees_the_name_keeps_the_id)
{
    both_open();
    long long alice = account_new("Alice");
    long long bob = account_new("Bob");
    ck_assert_int_eq(store_session_create(ac, digest_of('a'), alice, csrf_of('c'), 1000, 9000), 0);
    ck_assert_int_eq(store_account_game_add(ac, "G1", 0, alice, 5000), 0);
    ck_assert_int_eq(store_account_delete(ac, alice), 0);
    struct store_account a;
    ck_assert_int_eq(store_account_get(ac, alice, &a), 0);
    ck_assert_int_eq(a.deleted, 1);
    ck_assert_str_eq(a.name, STORE_DELETED_NAME);
    ck_assert_str_eq(a.hash, "");
    ck_assert_int_eq(store_account_find(ac, "alice", &a), STORE_E_NOT_FOUND);
    struct store_session s;
    ck_assert_int_eq(store_session_get(ac, digest_of('a'), 2000, &s), STORE_E_NOT_FOUND);
    /* The name is free again, for a new id; the old id keeps its games. */
    long long again = account_new("ALICE");
    ck_assert_int_ne(again, alice);
    struct store_account_game g[2];
    int n = 0;
    ck_assert_int_eq(store_account_games_read(ac, alice, 0, 2, g, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(g[0].game, "G1");
    /* Two deleted accounts share the display name, not the key. */
    ck_assert_int_eq(store_account_delete(ac, bob), 0);
    ck_assert_int_eq(store_account_get(ac, bob, &a), 0);
    ck_assert_str_eq(a.name, STORE_DELETED_NAME);
    ck_assert_int_eq(store_account_find(ac, STORE_DELETED_NAME, &a), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_account_delete(ac, again + 10), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_account_hash_set(ac, alice, "h"), STORE_E_NOT_FOUND); /* deleted */
}
END_TEST

/* ---- sessions ---- */

START_TEST(sessions_expire_and_follow_the_account)
{
    both_open();
    long long alice = account_new("Alice");
    long long bob = account_new("Bob");
    const char *d1 = digest_of('1'), *d2 = digest_of('2'), *d3 = digest_of('3');
    ck_assert_int_eq(store_session_create(ac, d1, alice, csrf_of('x'), 1000, 2000), 0);
    ck_assert_int_eq(store_session_create(ac, d1, bob, csrf_of('y'), 1000, 2000), STORE_E_EXISTS);
    struct store_session s;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(store_session_get(ac, d1, 1999, &s), 0);
    ck_assert_int_eq(s.account, alice);
    ck_assert_str_eq(s.name, "Alice");
    ck_assert_str_eq(s.csrf, csrf_of('x'));
    ck_assert_int_eq(s.created_ms, 1000);
    ck_assert_int_eq(s.expires_ms, 2000);
    ck_assert_int_eq(store_session_get(ac, d1, 2000, &s), STORE_E_NOT_FOUND); /* expired */
    ck_assert_int_eq(store_session_get(ac, d2, 1000, &s), STORE_E_NOT_FOUND);
    /* A disabled account's sessions are not returned, and come back with it. */
    ck_assert_int_eq(store_account_disabled_set(ac, alice, 1), 0);
    ck_assert_int_eq(store_session_get(ac, d1, 1500, &s), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_account_disabled_set(ac, alice, 0), 0);
    ck_assert_int_eq(store_session_get(ac, d1, 1500, &s), 0);
    /* One, all of an account, the expired ones. */
    ck_assert_int_eq(store_session_delete(ac, d1), 0);
    ck_assert_int_eq(store_session_delete(ac, d1), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_session_create(ac, d1, alice, csrf_of('x'), 1000, 1500), 0);
    ck_assert_int_eq(store_session_create(ac, d2, alice, csrf_of('x'), 1000, 2500), 0);
    ck_assert_int_eq(store_session_create(ac, d3, bob, csrf_of('x'), 1000, 3500), 0);
    long count = -1;
    ck_assert_int_eq(store_session_expire(ac, 2500, &count), 0);
    ck_assert_int_eq(count, 2);
    ck_assert_int_eq(store_session_get(ac, d3, 2600, &s), 0);
    ck_assert_int_eq(store_session_create(ac, d1, bob, csrf_of('x'), 1000, 9000), 0);
    ck_assert_int_eq(store_session_delete_all(ac, bob, &count), 0);
    ck_assert_int_eq(count, 2);
    ck_assert_int_eq(store_session_get(ac, d3, 2600, &s), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_session_create(ac, "abc", bob, csrf_of('x'), 1, 2), STORE_E_ARGS);
    ck_assert_int_eq(store_session_create(ac, d1, bob, "short", 1, 2), STORE_E_ARGS);
    /* Every session of an account but one: the others of that account go, other accounts'
     * stay. */
    ck_assert_int_eq(store_session_create(ac, d1, alice, csrf_of('x'), 1000, 9000), 0);
    ck_assert_int_eq(store_session_create(ac, d2, alice, csrf_of('x'), 1000, 9000), 0);
    ck_assert_int_eq(store_session_create(ac, d3, alice, csrf_of('x'), 1000, 9000), 0);
    const char *d4 = digest_of('4');
    ck_assert_int_eq(store_session_create(ac, d4, bob, csrf_of('x'), 1000, 9000), 0);
    ck_assert_int_eq(store_session_delete_others(ac, alice, d2, &count), 0);
    ck_assert_int_eq(count, 2);
    ck_assert_int_eq(store_session_get(ac, d2, 2000, &s), 0);
    ck_assert_int_eq(store_session_get(ac, d1, 2000, &s), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_session_get(ac, d3, 2000, &s), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_session_get(ac, d4, 2000, &s), 0);
    ck_assert_int_eq(store_session_delete_others(ac, alice, "abc", &count), STORE_E_ARGS);
}
END_TEST

/* ---- invites ---- */

START_TEST(invites_used_once_or_expired)
{
    both_open();
    long long alice = account_new("Alice");
    ck_assert_int_eq(store_invite_create(ac, "inv-1", 0, 1000, 5000), 0);
    ck_assert_int_eq(store_invite_create(ac, "inv-1", alice, 1000, 5000), STORE_E_EXISTS);
    ck_assert_int_eq(store_invite_create(ac, "inv-2", alice, 1000, 2000), 0);
    ck_assert_int_eq(store_invite_use(ac, "inv-1", alice, 4999), 0);
    ck_assert_int_eq(store_invite_use(ac, "inv-1", alice, 4999), STORE_E_USED);
    ck_assert_int_eq(store_invite_use(ac, "nope", alice, 1000), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_invite_use(ac, "inv-2", alice, 2000), STORE_E_EXPIRED);
    /* An account made with an invite uses it in the same transaction... */
    ck_assert_int_eq(store_invite_create(ac, "inv-3", alice, 1000, 5000), 0);
    long long bob = 0, carol = 0;
    ck_assert_int_eq(store_account_create(ac, "Bob", "h", 1500, "inv-3", &bob), 0);
    ck_assert_int_gt(bob, alice);
    ck_assert_int_eq(store_invite_use(ac, "inv-3", alice, 1600), STORE_E_USED);
    /* ...and is not made when the invite cannot be used. */
    struct store_account a;
    ck_assert_int_eq(store_account_create(ac, "Carol", "h", 1500, "inv-1", &carol), STORE_E_USED);
    ck_assert_int_eq(store_account_find(ac, "Carol", &a), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_account_create(ac, "Carol", "h", 1500, "nope", &carol),
                     STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_account_create(ac, "Carol", "h", 2500, "inv-2", &carol),
                     STORE_E_EXPIRED);
    ck_assert_int_eq(store_account_find(ac, "Carol", &a), STORE_E_NOT_FOUND);
    ck_assert_int_eq(carol, 0);
    /* The name is still free. */
    account_new("Carol");
}
END_TEST

START_TEST(invites_counted_unused_and_unexpired)
{
    both_open();
    long long alice = account_new("Alice"), bob = account_new("Bob");
    long n = -1;
    ck_assert_int_eq(store_invite_count(ac, alice, 1000, &n), 0);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(store_invite_create(ac, "a-1", alice, 1000, 5000), 0);
    ck_assert_int_eq(store_invite_create(ac, "a-2", alice, 1000, 3000), 0);
    ck_assert_int_eq(store_invite_create(ac, "a-3", alice, 1000, 5000), 0);
    ck_assert_int_eq(store_invite_create(ac, "b-1", bob, 1000, 5000), 0);
    ck_assert_int_eq(store_invite_create(ac, "adm", 0, 1000, 5000), 0);
    ck_assert_int_eq(store_invite_count(ac, alice, 1000, &n), 0);
    ck_assert_int_eq(n, 3);
    /* A used one no longer counts, nor one expired (expires_ms <= now). */
    long long carol = 0;
    ck_assert_int_eq(store_account_create(ac, "Carol", "h", 1500, "a-1", &carol), 0);
    ck_assert_int_eq(store_invite_count(ac, alice, 2999, &n), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(store_invite_count(ac, alice, 3000, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(store_invite_count(ac, bob, 3000, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(store_invite_count(ac, 0, 3000, &n), 0); /* the admin's */
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(store_invite_count(ac, carol, 3000, &n), 0);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(store_invite_count(ac, alice, 5000, &n), 0);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(store_invite_count(ac, -1, 1000, &n), STORE_E_ARGS);
    /* In a transaction (the account's row locked first), with an insert after it. */
    ck_assert_int_eq(store_accounts_begin(ac), 0);
    ck_assert_int_eq(store_invite_count(ac, bob, 1000, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(store_invite_create(ac, "b-2", bob, 1000, 5000), 0);
    ck_assert_int_eq(store_accounts_commit(ac), 0);
    ck_assert_int_eq(store_invite_count(ac, bob, 1000, &n), 0);
    ck_assert_int_eq(n, 2);
}
END_TEST

/* ---- ratings ---- */

static struct store_rating rating_of(double display, int games)
{
    return (struct store_rating){.rating = display + 0.123456789012345,
                                 .deviation = 62.5,
                                 .volatility = 0.0599987654321,
                                 .display = display,
                                 .games = games,
                                 .updated_ms = 1000 + games};
}

START_TEST(ratings_upserted_with_history)
{
    both_open();
    long long alice = account_new("Alice");
    struct store_rating r;
    ck_assert_int_eq(store_rating_get(ac, alice, STORE_POOL_2P, &r), STORE_E_NOT_FOUND);
    struct store_rating one = rating_of(1500, 1);
    ck_assert_int_eq(store_rating_put(ac, alice, STORE_POOL_2P, &one), 0);
    struct store_rating multi = {.mu = 27.1234567890123, .sigma = 7.5, .display = 4.6, .games = 3};
    ck_assert_int_eq(store_rating_put(ac, alice, STORE_POOL_MULTI, &multi), 0);
    struct store_rating two = rating_of(1523.75, 2);
    ck_assert_int_eq(store_rating_put(ac, alice, STORE_POOL_2P, &two), 0);
    ck_assert_int_eq(store_rating_get(ac, alice, STORE_POOL_2P, &r), 0);
    ck_assert_double_eq(r.rating, two.rating); /* exact, both backends */
    ck_assert_double_eq(r.deviation, two.deviation);
    ck_assert_double_eq(r.volatility, two.volatility);
    ck_assert_double_eq(r.display, two.display);
    ck_assert_double_eq(r.mu, 0);
    ck_assert_int_eq(r.games, 2);
    ck_assert_int_eq(r.updated_ms, 1002);
    ck_assert_int_eq(store_rating_get(ac, alice, STORE_POOL_MULTI, &r), 0);
    ck_assert_double_eq(r.mu, multi.mu);
    ck_assert_double_eq(r.sigma, 7.5);
    ck_assert_int_eq(r.games, 3);
    ck_assert_int_eq(store_rating_get(ac, alice, "4p", &r), STORE_E_ARGS);
    ck_assert_int_eq(store_rating_put(ac, alice, "", &two), STORE_E_ARGS);
    /* History: newest first by time, then by insertion. */
    struct store_rating_point p[] = {
        {"g-a", 100, 1500, 350}, {"g-b", 300, 1510, 300}, {"g-c", 200, 1490, 320},
        {"g-d", 300, 1520, 290}, {"g-e", 50, 1400, 340},
    };
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(store_rating_history_add(ac, alice, STORE_POOL_2P, &p[i]), 0);
    struct store_rating_point multi_p = {"g-m", 999, 25, 8};
    ck_assert_int_eq(store_rating_history_add(ac, alice, STORE_POOL_MULTI, &multi_p), 0);
    struct store_rating_point out[5];
    int n = 0;
    ck_assert_int_eq(store_rating_history_read(ac, alice, STORE_POOL_2P, 3, out, &n), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(out[0].game, "g-d");
    ck_assert_str_eq(out[1].game, "g-b");
    ck_assert_str_eq(out[2].game, "g-c");
    ck_assert_int_eq(out[2].time_ms, 200);
    ck_assert_double_eq(out[2].rating, 1490);
    ck_assert_double_eq(out[2].deviation, 320);
    ck_assert_int_eq(store_rating_history_read(ac, alice, STORE_POOL_MULTI, 5, out, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(out[0].game, "g-m");
}
END_TEST

START_TEST(ladder_minimum_games_and_order)
{
    both_open();
    long long a = account_new("Ann"), b = account_new("Ben"), c = account_new("Cid");
    long long d = account_new("Dee"), e = account_new("Eve");
    struct store_rating ra = rating_of(1600, 10), rb = rating_of(1700, 3), rc = rating_of(1650, 12);
    struct store_rating rd = rating_of(1800, 20), re = rating_of(1900, 30);
    ck_assert_int_eq(store_rating_put(ac, a, STORE_POOL_2P, &ra), 0);
    ck_assert_int_eq(store_rating_put(ac, b, STORE_POOL_2P, &rb), 0);
    ck_assert_int_eq(store_rating_put(ac, c, STORE_POOL_2P, &rc), 0);
    ck_assert_int_eq(store_rating_put(ac, d, STORE_POOL_2P, &rd), 0);
    ck_assert_int_eq(store_rating_put(ac, e, STORE_POOL_2P, &re), 0);
    ck_assert_int_eq(store_rating_put(ac, a, STORE_POOL_MULTI, &re), 0); /* another pool */
    ck_assert_int_eq(store_account_disabled_set(ac, d, 1), 0);
    ck_assert_int_eq(store_account_delete(ac, e), 0);
    struct store_ladder_row l[5];
    int n = 0;
    ck_assert_int_eq(store_ladder_read(ac, STORE_POOL_2P, 5, 0, 5, l, &n), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(l[0].account, c);
    ck_assert_str_eq(l[0].name, "Cid");
    ck_assert_double_eq(l[0].r.display, 1650);
    ck_assert_int_eq(l[0].r.games, 12);
    ck_assert_int_eq(l[1].account, a);
    ck_assert_int_eq(store_ladder_read(ac, STORE_POOL_2P, 0, 0, 5, l, &n), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(l[0].account, b);
    ck_assert_int_eq(l[1].account, c);
    ck_assert_int_eq(l[2].account, a);
    ck_assert_int_eq(store_ladder_read(ac, STORE_POOL_2P, 0, 1, 1, l, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(l[0].account, c);
    ck_assert_int_eq(store_account_disabled_set(ac, d, 0), 0);
    ck_assert_int_eq(store_ladder_read(ac, STORE_POOL_2P, 5, 0, 5, l, &n), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(l[0].account, d);
    ck_assert_int_eq(store_ladder_read(ac, STORE_POOL_MULTI, 0, 0, 5, l, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(l[0].account, a);
}
END_TEST

/* Several calls in one transaction: all or nothing. */
START_TEST(transaction_all_or_nothing)
{
    both_open();
    long long a = account_new("Ann"), b = account_new("Ben");
    struct store_rating r = rating_of(1600, 1);
    ck_assert_int_eq(store_accounts_begin(ac), 0);
    ck_assert_int_eq(store_rating_put(ac, a, STORE_POOL_2P, &r), 0);
    ck_assert_int_eq(store_rating_put(ac, b, STORE_POOL_2P, &r), 0);
    ck_assert_int_eq(store_accounts_rollback(ac), 0);
    ck_assert_int_eq(store_rating_get(ac, a, STORE_POOL_2P, &r), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_accounts_begin(ac), 0);
    ck_assert_int_eq(store_rating_put(ac, a, STORE_POOL_2P, &r), 0);
    ck_assert_int_eq(store_account_delete(ac, b), 0); /* its own transaction joins this one */
    ck_assert_int_eq(store_accounts_commit(ac), 0);
    ck_assert_int_eq(store_rating_get(ac, a, STORE_POOL_2P, &r), 0);
    struct store_account acc;
    ck_assert_int_eq(store_account_get(ac, b, &acc), 0);
    ck_assert_int_eq(acc.deleted, 1);
}
END_TEST

/* ---- games of an account ---- */

START_TEST(account_games_newest_first)
{
    both_open();
    long long a = account_new("Ann"), b = account_new("Ben");
    ck_assert_int_eq(store_account_game_add(ac, "g1", 0, a, 100), 0);
    ck_assert_int_eq(store_account_game_add(ac, "g2", 1, a, 300), 0);
    ck_assert_int_eq(store_account_game_add(ac, "g2", 0, b, 300), 0);
    ck_assert_int_eq(store_account_game_add(ac, "g3", 2, a, 200), 0);
    struct store_account_game g[4];
    int n = 0;
    ck_assert_int_eq(store_account_games_read(ac, a, 0, 4, g, &n), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(g[0].game, "g2");
    ck_assert_int_eq(g[0].seat, 1);
    ck_assert_int_eq(g[0].time_ms, 300);
    ck_assert_str_eq(g[1].game, "g3");
    ck_assert_str_eq(g[2].game, "g1");
    ck_assert_int_eq(store_account_games_read(ac, a, 1, 1, g, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(g[0].game, "g3");
    ck_assert_int_eq(store_account_game_add(ac, "g1", 0, a, 400), 0); /* replaced */
    ck_assert_int_eq(store_account_games_read(ac, a, 0, 4, g, &n), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(g[0].game, "g1");
    ck_assert_int_eq(store_account_games_read(ac, b, 0, 4, g, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(g[0].game, "g2");
    ck_assert_int_eq(store_account_game_add(ac, "", 0, a, 1), STORE_E_ARGS);
}
END_TEST

/* A game's record as the account's list shows it: none while it runs, then
 * its status, end, players and scores. */
START_TEST(account_game_record_summary)
{
    both_open();
    struct store_game_summary g;
    ck_assert_int_eq(store_account_game_record(ac, "R1", &g), STORE_E_NOT_FOUND);
    ck_assert_ptr_null(g.players);
    ck_assert_int_eq(store_test_exec(st, "INSERT INTO games VALUES('R1', '{}', '[\"Ann\",\"Bot\"]',"
                                         " '[12,7]', 500, 'finished');"
                                         "INSERT INTO games VALUES('R2', '{}', '[\"Ann\"]',"
                                         " '[0]', 600, 'abandoned')"),
                     0);
    ck_assert_int_eq(store_account_game_record(ac, "R1", &g), 0);
    ck_assert_str_eq(g.status, STORE_FINISHED);
    ck_assert_int_eq(g.finished_ms, 500);
    ck_assert_str_eq(g.players, "[\"Ann\",\"Bot\"]");
    ck_assert_str_eq(g.scores, "[12,7]");
    store_game_summary_free(&g);
    ck_assert_int_eq(store_account_game_record(ac, "R2", &g), 0);
    ck_assert_str_eq(g.status, STORE_ABANDONED);
    store_game_summary_free(&g);
    ck_assert_int_eq(store_account_game_record(ac, "", &g), STORE_E_ARGS);
}
END_TEST

/* ---- migration ---- */

static void no_done(void *arg, void *key, const char *id, unsigned long gen, int ok, int moves,
                    long long seq)
{
    (void)arg, (void)key, (void)id, (void)gen, (void)moves, (void)seq;
    ck_assert_int_eq(ok, 1);
}

/* A finished game's record written through the store's batch, as carcd does. */
static void record_write(const char *id)
{
    store_hooks_set(st, &(struct store_hooks){NULL, no_done, NULL});
    struct store_room *e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->gone = STORE_WRITE;
    e->nseats = 2;
    e->phase = 2;
    e->created = 1000;
    e->updated = 5000;
    e->record = mem_strdup("{\"v\":1}");
    e->players = mem_strdup("[\"Ann\",\"Ben\"]");
    e->scores = mem_strdup("[12,9]");
    e->status = STORE_FINISHED;
    ck_assert_int_eq(store_flush(st), 0);
}

static void record_check(const char *id)
{
    int code = 0;
    char *json = store_game_get(st, id, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_ptr_nonnull(json);
    free(json);
}

/* The store's own schema version (SQLite: PRAGMA user_version in the header). */
static void store_version_check(void)
{
    if (su_pg != NULL) {
        char v[32];
        pgu_query("SELECT max(version) FROM schema_version", v, sizeof v, NULL, NULL);
        ck_assert_int_eq(atoi(v), STORE_SCHEMA);
        pgu_query("SELECT max(version) FROM accounts_version", v, sizeof v, NULL, NULL);
        ck_assert_int_eq(atoi(v), STORE_ACCOUNTS_SCHEMA);
        return;
    }
    unsigned char b[4];
    int fd = open(su_dbpath, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pread(fd, b, 4, 60), 4);
    close(fd);
    ck_assert_int_eq(b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3], STORE_SCHEMA);
}

START_TEST(migration_keeps_rows_and_is_idempotent)
{
    char err[512];
    /* A database of today's store, with a game in it. */
    st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    record_write("OLD1");
    store_close(st);
    /* Started again with accounts: the tables are added, the game stays. */
    log_level_set(LOG_INFO);
    test_log_capture();
    both_open();
    test_log_release();
    ck_assert_msg(test_log_count("created the") == 1, "log: %s", test_log_text());
    record_check("OLD1");
    long long alice = account_new("Alice");
    ck_assert_int_eq(store_session_create(ac, digest_of('s'), alice, csrf_of('t'), 1000, 9000), 0);
    /* The store writes beside the accounts' connection. */
    record_write("NEW1");
    ck_assert_int_eq(store_account_game_add(ac, "NEW1", 0, alice, 5000), 0);
    both_close();
    /* Again: nothing to create, everything there. */
    test_log_capture();
    both_open();
    test_log_release();
    log_level_set(LOG_ERROR);
    ck_assert_msg(test_log_count("created the") == 0, "log: %s", test_log_text());
    store_version_check();
    record_check("OLD1");
    record_check("NEW1");
    struct store_account a;
    ck_assert_int_eq(store_account_find(ac, "alice", &a), 0);
    ck_assert_int_eq(a.id, alice);
    struct store_session s;
    ck_assert_int_eq(store_session_get(ac, digest_of('s'), 2000, &s), 0);
    ck_assert_int_eq(s.account, alice);
    /* Account tables of a newer carcd are refused; the store still opens. */
    store_accounts_close(ac);
    ac = NULL;
    char newer[80];
    snprintf(newer, sizeof newer, "UPDATE accounts_version SET version = %d",
             STORE_ACCOUNTS_SCHEMA + 1);
    ck_assert_int_eq(store_test_exec(st, newer), 0);
    ck_assert_ptr_null(store_accounts_open(st, err, sizeof err));
    ck_assert_msg(strstr(err, "newer") != NULL, "%s", err);
    store_close(st);
    st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    record_check("OLD1");
    ck_assert_ptr_null(store_accounts_open(NULL, err, sizeof err)); /* memory only */
}
END_TEST

/* A game's rows written through the store's batch, as carcd does: finished
 * (its record and scores) or still playing, rated or not, its seats ann's
 * (account 7), a greedy bot's (level 1) and, with three, bob's (8, forfeited). */
static void game_write(const char *id, int rated, int finished, int nseats)
{
    store_hooks_set(st, &(struct store_hooks){NULL, no_done, NULL});
    struct store_room *e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->gone = STORE_WRITE;
    e->nseats = nseats;
    e->phase = finished ? 2 : 1;
    e->created = 1000;
    e->updated = 5000;
    e->variants = rated << 4 | 1; /* and farms "second": the other bits do not count */
    e->nseat = nseats;
    for (int i = 0; i < nseats; i++) {
        e->seats[i].idx = i;
        snprintf(e->seats[i].name, sizeof e->seats[i].name, "p%d", i);
    }
    e->seats[0].account = 7;
    e->seats[1].bot = 2;
    if (nseats > 2) {
        e->seats[2].account = 8;
        e->seats[2].forfeited = 1;
    }
    if (finished) {
        e->record = mem_strdup("{\"v\":1}");
        e->players = mem_strdup(nseats > 2 ? "[\"p0\",\"p1\",\"p2\"]" : "[\"p0\",\"p1\"]");
        e->scores = mem_strdup(nseats > 2 ? "[12, 9,30]" : "[12,9]");
        e->status = STORE_FINISHED;
    }
    ck_assert_int_eq(store_flush(st), 0);
}

/* rated_games: the finished rated games without a mark are found again with
 * their seats and scores (oldest first, bounded); a game is marked once (a
 * second claim, or another handle's, finds it marked), and once marked it is
 * pending no more. */
START_TEST(rated_games_claimed_once_and_pending)
{
    both_open();
    game_write("G3", 1, 1, 3);
    game_write("G2", 1, 1, 2);
    game_write("U1", 0, 1, 2); /* unrated */
    game_write("P1", 1, 0, 2); /* still playing */
    ck_assert_int_eq(store_test_exec(st, "UPDATE games SET finished = 100 WHERE room = 'G3'"), 0);
    struct store_rated_game g[4];
    int n = -1;
    ck_assert_int_eq(store_rated_games_pending(ac, 0, 4, g, &n), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(g[0].room, "G3"); /* the older end first */
    ck_assert_int_eq(g[0].time_ms, 100);
    ck_assert_int_eq(g[0].n, 3);
    ck_assert_int_eq(g[0].seat[0].account, 7);
    ck_assert_int_eq(g[0].seat[0].score, 12);
    ck_assert_int_eq(g[0].seat[1].bot, 2);
    ck_assert_int_eq(g[0].seat[1].score, 9);
    ck_assert_int_eq(g[0].seat[2].account, 8);
    ck_assert_int_eq(g[0].seat[2].forfeited, 1);
    ck_assert_int_eq(g[0].seat[2].score, 30);
    ck_assert_int_eq(g[0].seat[0].forfeited, 0);
    ck_assert_str_eq(g[1].room, "G2");
    ck_assert_int_eq(g[1].n, 2);
    ck_assert_int_eq(store_rated_games_pending(ac, 0, 1, g, &n), 0); /* bounded */
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(store_rated_games_pending(ac, 101, 4, g, &n), 0); /* a window */
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(g[0].room, "G2");
    /* Claimed once, inside a transaction; rolled back, it is not. */
    int claimed = -1;
    ck_assert_int_eq(store_ratings_lock(ac), STORE_E_ARGS); /* outside a transaction */
    ck_assert_int_eq(store_accounts_begin(ac), 0);
    ck_assert_int_eq(store_ratings_lock(ac), 0);
    ck_assert_int_eq(store_rated_game_claim(ac, "G3", 100, &claimed), 0);
    ck_assert_int_eq(claimed, 1);
    ck_assert_int_eq(store_accounts_rollback(ac), 0);
    ck_assert_int_eq(store_rated_games_pending(ac, 0, 4, g, &n), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(store_accounts_begin(ac), 0);
    ck_assert_int_eq(store_rated_game_claim(ac, "G3", 100, &claimed), 0);
    ck_assert_int_eq(claimed, 1);
    ck_assert_int_eq(store_rated_game_claim(ac, "G3", 100, &claimed), 0);
    ck_assert_int_eq(claimed, 0);
    ck_assert_int_eq(store_accounts_commit(ac), 0);
    /* Another handle (another node) finds it marked. */
    char err[512];
    struct store_accounts *other = store_accounts_open(st, err, sizeof err);
    ck_assert_msg(other != NULL, "%s", err);
    ck_assert_int_eq(store_accounts_begin(other), 0);
    ck_assert_int_eq(store_rated_game_claim(other, "G3", 100, &claimed), 0);
    ck_assert_int_eq(claimed, 0);
    ck_assert_int_eq(store_accounts_commit(other), 0);
    store_accounts_close(other);
    ck_assert_int_eq(store_rated_games_pending(ac, 0, 4, g, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(g[0].room, "G2");
    ck_assert_int_eq(store_rated_game_claim(ac, "", 1, &claimed), STORE_E_ARGS);
}
END_TEST

/* Account tables of version 1 (before rated_games) are brought to 2, and
 * every game of rating_history is marked rated: an upgrade rates nothing
 * again. */
START_TEST(migration_from_1_marks_the_rated_games)
{
    both_open();
    game_write("OLD", 1, 1, 2);
    game_write("LOST", 1, 1, 2);
    struct store_rating_point pt = {"OLD", 5000, 1600, 300};
    long long ann = account_new("Ann");
    ck_assert_int_eq(store_rating_history_add(ac, ann, STORE_POOL_2P, &pt), 0);
    ck_assert_int_eq(store_test_exec(st, "DROP TABLE rated_games; DROP TABLE push_subscriptions;"
                                         " DROP TABLE webhooks; DROP TABLE account_mail;"
                                         " DROP TABLE vacations;"
                                         " UPDATE accounts_version SET version = 1"),
                     0);
    store_accounts_close(ac);
    log_level_set(LOG_INFO);
    test_log_capture();
    char err[512];
    ac = store_accounts_open(st, err, sizeof err);
    test_log_release();
    log_level_set(LOG_ERROR);
    ck_assert_msg(ac != NULL, "%s", err);
    ck_assert_msg(test_log_count("from version 1 to 6") == 1, "log: %s", test_log_text());
    struct store_rated_game g[4];
    int n = -1, claimed = -1;
    ck_assert_int_eq(store_rated_games_pending(ac, 0, 4, g, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(g[0].room, "LOST"); /* finished, never rated: a crash's */
    ck_assert_int_eq(store_accounts_begin(ac), 0);
    ck_assert_int_eq(store_rated_game_claim(ac, "OLD", 1, &claimed), 0);
    ck_assert_int_eq(claimed, 0);
    ck_assert_int_eq(store_accounts_commit(ac), 0);
    /* At the newest version now: opened again, nothing is updated. */
    store_accounts_close(ac);
    log_level_set(LOG_INFO);
    test_log_capture();
    ac = store_accounts_open(st, err, sizeof err);
    test_log_release();
    log_level_set(LOG_ERROR);
    ck_assert_msg(ac != NULL, "%s", err);
    ck_assert_msg(test_log_count("version") == 0, "log: %s", test_log_text());
}
END_TEST

static void tests_add(TCase *tc)
{
    tcase_add_test(tc, names_taken_without_case);
    tcase_add_test(tc, delete_frees_the_name_keeps_the_id);
    tcase_add_test(tc, sessions_expire_and_follow_the_account);
    tcase_add_test(tc, invites_used_once_or_expired);
    tcase_add_test(tc, invites_counted_unused_and_unexpired);
    tcase_add_test(tc, ratings_upserted_with_history);
    tcase_add_test(tc, ladder_minimum_games_and_order);
    tcase_add_test(tc, transaction_all_or_nothing);
    tcase_add_test(tc, account_games_newest_first);
    tcase_add_test(tc, account_game_record_summary);
    tcase_add_test(tc, migration_keeps_rows_and_is_idempotent);
    tcase_add_test(tc, rated_games_claimed_once_and_pending);
    tcase_add_test(tc, migration_from_1_marks_the_rated_games);
}

Suite *suite_accounts_store(void)
{
    Suite *s = suite_create("accounts_store");
    TCase *tc = tcase_create("accounts_store");
    tcase_add_checked_fixture(tc, dir_setup, sq_teardown);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}

/* The same on a real PostgreSQL (make test runs it under tests/pg.sh). */
Suite *suite_accounts_store_pg(void)
{
    Suite *s = suite_create("accounts_store_pg");
    if (getenv("CARC_PG_URL") == NULL) /* as suite_store_pg: empty without a database */
        return s;
    TCase *tc = tcase_create("accounts_store_pg");
    tcase_add_checked_fixture(tc, pg_setup, pgs_teardown);
    tcase_set_timeout(tc, 30);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
