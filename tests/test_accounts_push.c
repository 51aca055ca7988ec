/* test_accounts_push.c: the Web Push subscriptions of accounts in the
 * database (store/accounts_push.h), on SQLite and (suite accounts_push_pg,
 * under tests/pg.sh) PostgreSQL: kept, moved to the account that subscribes
 * the browser again, at most STORE_PUSH_PER_ACCOUNT an account, removed by
 * their account or by anyone (a push service's 404 or 410), dropped after
 * failures in a row; and account tables of version 2 brought to 3 in place. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_util.h"
#include "store/accounts.h"
#include "store/accounts_push.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/log.h"
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

/* ---- Web Push subscriptions (store/accounts_push.h) ---- */

static struct store_push_sub sub_of(long long account, const char *endpoint)
{
    struct store_push_sub s;
    memset(&s, 0, sizeof s);
    s.account = account;
    snprintf(s.endpoint, sizeof s.endpoint, "%s", endpoint);
    snprintf(s.p256dh, sizeof s.p256dh, "P-%s", endpoint + strlen(endpoint) - 1);
    snprintf(s.auth, sizeof s.auth, "A-%lld", account);
    return s;
}

START_TEST(push_subscriptions_kept_moved_and_dropped)
{
    both_open();
    long long ann = account_new("Ann"), bob = account_new("Bob");
    struct store_push_sub a1 = sub_of(ann, "https://push.example/1");
    struct store_push_sub a2 = sub_of(ann, "https://push.example/2");
    ck_assert_int_eq(store_push_put(ac, &a1, 1000), 0);
    ck_assert_int_eq(store_push_put(ac, &a2, 2000), 0);
    struct store_push_sub out[STORE_PUSH_PER_ACCOUNT + 2];
    int n = -1;
    ck_assert_int_eq(store_push_list(ac, ann, out, 12, &n), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(out[0].endpoint, a2.endpoint); /* newest first */
    ck_assert_str_eq(out[0].p256dh, "P-2");
    ck_assert_str_eq(out[1].auth, "A-1");
    /* The browser of endpoint 1 now signed in as Bob: the row moves. */
    struct store_push_sub b1 = sub_of(bob, "https://push.example/1");
    ck_assert_int_eq(store_push_put(ac, &b1, 3000), 0);
    ck_assert_int_eq(store_push_list(ac, ann, out, 12, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(store_push_list(ac, bob, out, 12, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(out[0].auth, "A-2"); /* Bob's keys */
    /* Only one's own may be removed by an account; account 0: any. */
    ck_assert_int_eq(store_push_delete(ac, ann, b1.endpoint), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_push_delete(ac, bob, b1.endpoint), 0);
    ck_assert_int_eq(store_push_delete(ac, bob, b1.endpoint), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_push_delete(ac, 0, a2.endpoint), 0);
    /* Failures in a row drop it at the limit; a delivery forgives. */
    ck_assert_int_eq(store_push_put(ac, &a1, 4000), 0);
    int dropped = -1;
    ck_assert_int_eq(store_push_failed(ac, a1.endpoint, 3, &dropped), 0);
    ck_assert_int_eq(dropped, 0);
    ck_assert_int_eq(store_push_failed(ac, a1.endpoint, 3, &dropped), 0);
    ck_assert_int_eq(store_push_delivered(ac, a1.endpoint), 0);
    ck_assert_int_eq(store_push_list(ac, ann, out, 12, &n), 0);
    ck_assert_int_eq(out[0].failures, 0);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(store_push_failed(ac, a1.endpoint, 3, &dropped), 0);
        ck_assert_int_eq(dropped, 0);
    }
    ck_assert_int_eq(store_push_failed(ac, a1.endpoint, 3, &dropped), 0);
    ck_assert_int_eq(dropped, 1);
    ck_assert_int_eq(store_push_list(ac, ann, out, 12, &n), 0);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(store_push_failed(ac, a1.endpoint, 3, &dropped), STORE_E_NOT_FOUND);
    /* At most STORE_PUSH_PER_ACCOUNT an account: the oldest go. */
    for (int i = 0; i < STORE_PUSH_PER_ACCOUNT + 2; i++) {
        char e[64];
        snprintf(e, sizeof e, "https://push.example/m%02d", i);
        struct store_push_sub m = sub_of(ann, e);
        ck_assert_int_eq(store_push_put(ac, &m, 10000 + i), 0);
    }
    ck_assert_int_eq(store_push_list(ac, ann, out, 12, &n), 0);
    ck_assert_int_eq(n, STORE_PUSH_PER_ACCOUNT);
    ck_assert_str_eq(out[0].endpoint, "https://push.example/m11");
    ck_assert_str_eq(out[n - 1].endpoint, "https://push.example/m02");
    /* Bad arguments change nothing. */
    struct store_push_sub bad = sub_of(0, "https://push.example/z");
    ck_assert_int_eq(store_push_put(ac, &bad, 1), STORE_E_ARGS);
    bad = sub_of(ann, "https://push.example/z");
    bad.auth[0] = '\0';
    ck_assert_int_eq(store_push_put(ac, &bad, 1), STORE_E_ARGS);
    ck_assert_int_eq(store_push_list(ac, ann, out, 12, &n), 0);
    ck_assert_int_eq(n, STORE_PUSH_PER_ACCOUNT);
}
END_TEST

/* Account tables of version 2 gain push_subscriptions and webhooks, their rows kept. */
START_TEST(migration_from_2_adds_push_subscriptions)
{
    both_open();
    long long ann = account_new("Ann");
    ck_assert_int_eq(
        store_test_exec(
            st, "DROP TABLE push_subscriptions; DROP TABLE webhooks; DROP TABLE account_mail;"
                " DROP TABLE vacations; UPDATE accounts_version SET version = 2"),
        0);
    store_accounts_close(ac);
    log_level_set(LOG_INFO);
    test_log_capture();
    char err[512];
    ac = store_accounts_open(st, err, sizeof err);
    test_log_release();
    log_level_set(LOG_ERROR);
    ck_assert_msg(ac != NULL, "%s", err);
    ck_assert_msg(test_log_count("from version 2 to 6") == 1, "log: %s", test_log_text());
    struct store_account acc;
    ck_assert_int_eq(store_account_find(ac, "ann", &acc), 0);
    ck_assert_int_eq(acc.id, ann);
    struct store_push_sub a1 = sub_of(ann, "https://push.example/1"), out[2];
    ck_assert_int_eq(store_push_put(ac, &a1, 1000), 0);
    int n = 0;
    ck_assert_int_eq(store_push_list(ac, ann, out, 2, &n), 0);
    ck_assert_int_eq(n, 1);
}
END_TEST

START_TEST(webhooks_set_read_and_dropped)
{
    both_open();
    long long ann = account_new("Ann"), bob = account_new("Bob");
    char url[STORE_WEBHOOK_MAX + 1];
    ck_assert_int_eq(store_webhook_get(ac, ann, url, sizeof url), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_webhook_put(ac, ann, "https://discord.com/api/webhooks/1/a", 10), 0);
    ck_assert_int_eq(store_webhook_put(ac, ann, "https://discord.com/api/webhooks/1/b", 20), 0);
    ck_assert_int_eq(store_webhook_get(ac, ann, url, sizeof url), 0);
    ck_assert_str_eq(url, "https://discord.com/api/webhooks/1/b"); /* replaced, one each */
    ck_assert_int_eq(store_webhook_get(ac, bob, url, sizeof url), STORE_E_NOT_FOUND);
    int dropped = -1;
    ck_assert_int_eq(store_webhook_outcome(ac, ann, 0, 2, &dropped), 0);
    ck_assert_int_eq(dropped, 0);
    ck_assert_int_eq(store_webhook_outcome(ac, ann, 1, 2, &dropped), 0); /* forgiven */
    ck_assert_int_eq(store_webhook_outcome(ac, ann, 0, 2, &dropped), 0);
    ck_assert_int_eq(dropped, 0);
    ck_assert_int_eq(store_webhook_outcome(ac, ann, 0, 2, &dropped), 0);
    ck_assert_int_eq(dropped, 1);
    ck_assert_int_eq(store_webhook_get(ac, ann, url, sizeof url), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_webhook_outcome(ac, ann, 0, 2, &dropped), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_webhook_put(ac, bob, "https://hooks.slack.com/services/x", 30), 0);
    ck_assert_int_eq(store_webhook_delete(ac, bob), 0);
    ck_assert_int_eq(store_webhook_delete(ac, bob), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_webhook_put(ac, 0, "https://x/", 1), STORE_E_ARGS);
    ck_assert_int_eq(store_webhook_put(ac, bob, "", 1), STORE_E_ARGS);
}
END_TEST

/* Account tables of version 3 gain webhooks. */
START_TEST(migration_from_3_adds_webhooks)
{
    both_open();
    long long ann = account_new("Ann");
    ck_assert_int_eq(store_test_exec(st, "DROP TABLE webhooks; DROP TABLE account_mail;"
                                         " DROP TABLE vacations;"
                                         " UPDATE accounts_version SET version = 3"),
                     0);
    store_accounts_close(ac);
    log_level_set(LOG_INFO);
    test_log_capture();
    char err[512];
    ac = store_accounts_open(st, err, sizeof err);
    test_log_release();
    log_level_set(LOG_ERROR);
    ck_assert_msg(ac != NULL, "%s", err);
    ck_assert_msg(test_log_count("from version 3 to 6") == 1, "log: %s", test_log_text());
    ck_assert_int_eq(store_webhook_put(ac, ann, "https://discord.com/api/webhooks/2/c", 1), 0);
}
END_TEST

static void tests_add(TCase *tc)
{
    tcase_add_test(tc, push_subscriptions_kept_moved_and_dropped);
    tcase_add_test(tc, migration_from_2_adds_push_subscriptions);
    tcase_add_test(tc, webhooks_set_read_and_dropped);
    tcase_add_test(tc, migration_from_3_adds_webhooks);
}

Suite *suite_accounts_push(void)
{
    Suite *s = suite_create("accounts_push");
    TCase *tc = tcase_create("accounts_push");
    tcase_add_checked_fixture(tc, dir_setup, sq_teardown);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}

/* The same on a real PostgreSQL (make test runs it under tests/pg.sh). */
Suite *suite_accounts_push_pg(void)
{
    Suite *s = suite_create("accounts_push_pg");
    if (getenv("CARC_PG_URL") == NULL)
        return s;
    TCase *tc = tcase_create("accounts_push_pg");
    tcase_add_checked_fixture(tc, pg_setup, pgs_teardown);
    tcase_set_timeout(tc, 30);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
