/* test_accounts_mail.c: the e-mail settings of accounts in the database
 * (store/accounts_mail.h), on SQLite and (suite accounts_mail_pg, under
 * tests/pg.sh) PostgreSQL: written and read back, the unsubscribe token made
 * once and kept, turned off by that token alone, the digest of a day claimed
 * once, rows of deleted accounts gone; and account tables of version 4
 * brought to 5 in place, their rows kept. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_util.h"
#include "store/accounts.h"
#include "store/accounts_mail.h"
#include "store/accounts_push.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/log.h"
#include "util/status.h"

static struct store *st;
static struct store_accounts *ac;

static void sq_teardown(void)
{
    su_accounts_close(&st, &ac);
    dir_teardown();
}

static void pgs_teardown(void)
{
    su_accounts_close(&st, &ac);
    pg_teardown();
}

/* A token of the right length, made of c. */
static const char *unsub_of(char c)
{
    static char buf[4][STORE_MAIL_UNSUB_LEN + 1];
    static int k;
    char *t = buf[k++ % 4];
    memset(t, c, STORE_MAIL_UNSUB_LEN);
    t[STORE_MAIL_UNSUB_LEN] = '\0';
    return t;
}

START_TEST(mail_settings_written_read_and_removed)
{
    su_accounts_open(&st, &ac);
    long long ann = su_account_new(ac, "Ann"), bob = su_account_new(ac, "Bob");
    struct store_mail m;
    ck_assert_int_eq(store_mail_get(ac, ann, &m), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_mail_put(ac, ann, "ann@example.org", 1, 0, unsub_of('a'), 10), 0);
    ck_assert_int_eq(store_mail_get(ac, ann, &m), 0);
    ck_assert_int_eq(m.account, ann);
    ck_assert_str_eq(m.address, "ann@example.org");
    ck_assert_int_eq(m.digest, 1);
    ck_assert_int_eq(m.reminders, 0);
    ck_assert_str_eq(m.unsub, unsub_of('a'));
    ck_assert_int_eq(m.digest_day, 0);
    /* Written again: the address and flags change, the token stays. */
    ck_assert_int_eq(store_mail_put(ac, ann, "ann@example.net", 0, 1, unsub_of('z'), 20), 0);
    ck_assert_int_eq(store_mail_get(ac, ann, &m), 0);
    ck_assert_str_eq(m.address, "ann@example.net");
    ck_assert_int_eq(m.digest, 0);
    ck_assert_int_eq(m.reminders, 1);
    ck_assert_str_eq(m.unsub, unsub_of('a'));
    /* Two accounts cannot hold one token. */
    ck_assert_int_eq(store_mail_put(ac, bob, "bob@example.org", 1, 1, unsub_of('a'), 30),
                     STORE_E_EXISTS);
    ck_assert_int_eq(store_mail_get(ac, bob, &m), STORE_E_NOT_FOUND);
    /* Bad arguments change nothing. */
    char longer[STORE_MAIL_ADDRESS_MAX + 2];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    ck_assert_int_eq(store_mail_put(ac, bob, longer, 1, 1, unsub_of('b'), 1), STORE_E_ARGS);
    ck_assert_int_eq(store_mail_put(ac, bob, "", 1, 1, unsub_of('b'), 1), STORE_E_ARGS);
    ck_assert_int_eq(store_mail_put(ac, bob, "b@x", 1, 1, "short", 1), STORE_E_ARGS);
    ck_assert_int_eq(store_mail_put(ac, 0, "b@x", 1, 1, unsub_of('b'), 1), STORE_E_ARGS);
    ck_assert_int_eq(store_mail_get(ac, bob, &m), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_mail_delete(ac, ann), 0);
    ck_assert_int_eq(store_mail_delete(ac, ann), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_mail_get(ac, ann, &m), STORE_E_NOT_FOUND);
}
END_TEST

START_TEST(mail_unsubscribed_by_token)
{
    su_accounts_open(&st, &ac);
    long long ann = su_account_new(ac, "Ann"), bob = su_account_new(ac, "Bob");
    ck_assert_int_eq(store_mail_put(ac, ann, "ann@example.org", 1, 1, unsub_of('a'), 10), 0);
    ck_assert_int_eq(store_mail_put(ac, bob, "bob@example.org", 1, 1, unsub_of('b'), 10), 0);
    long long who = -1;
    ck_assert_int_eq(store_mail_unsubscribe(ac, unsub_of('c'), &who), STORE_E_NOT_FOUND);
    ck_assert_int_eq(who, 0);
    ck_assert_int_eq(store_mail_unsubscribe(ac, "short", &who), STORE_E_ARGS);
    ck_assert_int_eq(store_mail_unsubscribe(ac, unsub_of('a'), &who), 0);
    ck_assert_int_eq(who, ann);
    struct store_mail m;
    ck_assert_int_eq(store_mail_get(ac, ann, &m), 0);
    ck_assert_int_eq(m.digest, 0);
    ck_assert_int_eq(m.reminders, 0);
    ck_assert_str_eq(m.address, "ann@example.org");
    ck_assert_int_eq(store_mail_unsubscribe(ac, unsub_of('a'), &who), 0); /* again: the same */
    ck_assert_int_eq(who, ann);
    ck_assert_int_eq(store_mail_get(ac, bob, &m), 0); /* the other untouched */
    ck_assert_int_eq(m.digest, 1);
    ck_assert_int_eq(m.reminders, 1);
}
END_TEST

START_TEST(mail_digest_claimed_once_a_day)
{
    su_accounts_open(&st, &ac);
    long long ann = su_account_new(ac, "Ann"), bob = su_account_new(ac, "Bob");
    ck_assert_int_eq(store_mail_put(ac, ann, "ann@example.org", 1, 0, unsub_of('a'), 10), 0);
    ck_assert_int_eq(store_mail_put(ac, bob, "bob@example.org", 0, 1, unsub_of('b'), 10), 0);
    int claimed = -1;
    ck_assert_int_eq(store_mail_digest_claim(ac, ann, 20000, &claimed), 0);
    ck_assert_int_eq(claimed, 1);
    ck_assert_int_eq(store_mail_digest_claim(ac, ann, 20000, &claimed), 0);
    ck_assert_int_eq(claimed, 0); /* the same day again */
    ck_assert_int_eq(store_mail_digest_claim(ac, ann, 19999, &claimed), 0);
    ck_assert_int_eq(claimed, 0); /* an earlier day (a clock set back) */
    struct store_mail m;
    ck_assert_int_eq(store_mail_get(ac, ann, &m), 0);
    ck_assert_int_eq(m.digest_day, 20000);
    ck_assert_int_eq(store_mail_digest_claim(ac, ann, 20001, &claimed), 0);
    ck_assert_int_eq(claimed, 1);
    /* Digest off, or no row: never claimed. */
    ck_assert_int_eq(store_mail_digest_claim(ac, bob, 20001, &claimed), 0);
    ck_assert_int_eq(claimed, 0);
    ck_assert_int_eq(store_mail_digest_claim(ac, 999, 20001, &claimed), 0);
    ck_assert_int_eq(claimed, 0);
    ck_assert_int_eq(store_mail_digest_claim(ac, ann, 0, &claimed), STORE_E_ARGS);
    /* Written again: the day stays (no second digest on the same day). */
    ck_assert_int_eq(store_mail_put(ac, ann, "ann@example.org", 1, 1, unsub_of('q'), 30), 0);
    ck_assert_int_eq(store_mail_digest_claim(ac, ann, 20001, &claimed), 0);
    ck_assert_int_eq(claimed, 0);
}
END_TEST

START_TEST(mail_gone_with_its_account)
{
    su_accounts_open(&st, &ac);
    long long ann = su_account_new(ac, "Ann");
    ck_assert_int_eq(store_mail_put(ac, ann, "ann@example.org", 1, 1, unsub_of('a'), 10), 0);
    ck_assert_int_eq(store_account_disabled_set(ac, ann, 1), 0);
    struct store_mail m;
    ck_assert_int_eq(store_mail_get(ac, ann, &m), STORE_E_NOT_FOUND); /* not for mail */
    ck_assert_int_eq(store_account_disabled_set(ac, ann, 0), 0);
    ck_assert_int_eq(store_mail_get(ac, ann, &m), 0);
    ck_assert_int_eq(store_account_delete(ac, ann), 0);
    ck_assert_int_eq(store_mail_get(ac, ann, &m), STORE_E_NOT_FOUND);
    ck_assert_int_eq(store_mail_delete(ac, ann), STORE_E_NOT_FOUND); /* the row went */
}
END_TEST

/* Account tables of version 4 gain account_mail, their rows kept. */
START_TEST(migration_from_4_adds_account_mail)
{
    su_accounts_open(&st, &ac);
    long long ann = su_account_new(ac, "Ann");
    ck_assert_int_eq(store_webhook_put(ac, ann, "https://discord.com/api/webhooks/1/a", 10), 0);
    ck_assert_int_eq(store_test_exec(st, "DROP TABLE account_mail; DROP TABLE vacations;"
                                         " UPDATE accounts_version SET version = 4"),
                     0);
    store_accounts_close(ac);
    log_level_set(LOG_INFO);
    test_log_capture();
    char err[512];
    ac = store_accounts_open(st, err, sizeof err);
    test_log_release();
    log_level_set(LOG_ERROR);
    ck_assert_msg(ac != NULL, "%s", err);
    ck_assert_msg(test_log_count("from version 4 to 6") == 1, "log: %s", test_log_text());
    char url[STORE_WEBHOOK_MAX + 1];
    ck_assert_int_eq(store_webhook_get(ac, ann, url, sizeof url), 0);
    ck_assert_str_eq(url, "https://discord.com/api/webhooks/1/a");
    ck_assert_int_eq(store_mail_put(ac, ann, "ann@example.org", 1, 1, unsub_of('a'), 10), 0);
    /* Opened again: nothing to do. */
    store_accounts_close(ac);
    log_level_set(LOG_INFO);
    test_log_capture();
    ac = store_accounts_open(st, err, sizeof err);
    test_log_release();
    log_level_set(LOG_ERROR);
    ck_assert_msg(ac != NULL, "%s", err);
    ck_assert_msg(test_log_count("version") == 0, "log: %s", test_log_text());
    struct store_mail m;
    ck_assert_int_eq(store_mail_get(ac, ann, &m), 0);
}
END_TEST

static void tests_add(TCase *tc)
{
    tcase_add_test(tc, mail_settings_written_read_and_removed);
    tcase_add_test(tc, mail_unsubscribed_by_token);
    tcase_add_test(tc, mail_digest_claimed_once_a_day);
    tcase_add_test(tc, mail_gone_with_its_account);
    tcase_add_test(tc, migration_from_4_adds_account_mail);
}

Suite *suite_accounts_mail(void)
{
    Suite *s = suite_create("accounts_mail");
    TCase *tc = tcase_create("accounts_mail");
    tcase_add_checked_fixture(tc, dir_setup, sq_teardown);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}

/* The same on a real PostgreSQL (make test runs it under tests/pg.sh). */
Suite *suite_accounts_mail_pg(void)
{
    Suite *s = suite_create("accounts_mail_pg");
    if (getenv("CARC_PG_URL") == NULL)
        return s;
    TCase *tc = tcase_create("accounts_mail_pg");
    tcase_add_checked_fixture(tc, pg_setup, pgs_teardown);
    tcase_set_timeout(tc, 30);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
