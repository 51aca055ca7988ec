/* test_accounts_vacation.c: the vacation bank in the database
 * (store/accounts_vacation.h), on SQLite and (suite accounts_vacation_pg,
 * under tests/pg.sh) PostgreSQL: days taken by hand up to the year's bank
 * (lengthening a vacation going on), a day taken when a clock runs out only
 * when no vacation goes on, the bank whole again in a new year, a vacation
 * ended early giving back its whole days not begun; and account tables of
 * version 5 brought to 6 in place. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_util.h"
#include "store/accounts.h"
#include "store/accounts_vacation.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/log.h"
#include "util/status.h"

#define DAY STORE_DAY_MS
#define T0 1767225600000LL /* 2026-01-01 */

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

START_TEST(vacation_bank_taken_and_given_back)
{
    su_accounts_open(&st, &ac);
    long long ann = su_account_new(ac, "Ann"), bob = su_account_new(ac, "Bob");
    struct store_vacation v;
    ck_assert_int_eq(store_vacation_get(ac, ann, 2026, &v), 0);
    ck_assert_int_eq(v.used, 0);
    ck_assert_int_eq(v.until_ms, 0);
    int taken = -1;
    /* Five days by hand of a bank of 7, then three more refused, two more
     * lengthen it. */
    ck_assert_int_eq(store_vacation_take(ac, ann, 2026, 5, 7, T0, 0, &taken), 0);
    ck_assert_int_eq(taken, 1);
    ck_assert_int_eq(store_vacation_take(ac, ann, 2026, 3, 7, T0 + DAY, 0, &taken), 0);
    ck_assert_int_eq(taken, 0);
    ck_assert_int_eq(store_vacation_take(ac, ann, 2026, 2, 7, T0 + DAY, 0, &taken), 0);
    ck_assert_int_eq(taken, 1);
    ck_assert_int_eq(store_vacation_get(ac, ann, 2026, &v), 0);
    ck_assert_int_eq(v.used, 7);
    ck_assert_int_eq(v.from_ms, T0);
    ck_assert_int_eq(v.until_ms, T0 + 7 * DAY);
    /* A clock running out meanwhile takes nothing (idle): one goes on. */
    ck_assert_int_eq(store_vacation_take(ac, ann, 2026, 1, 9, T0 + 2 * DAY, 1, &taken), 0);
    ck_assert_int_eq(taken, 0);
    /* Ended on day 3 and a half: days 5, 6 and 7 come back, day 4 is spent. */
    int ended = -1;
    ck_assert_int_eq(store_vacation_end(ac, ann, 2026, T0 + 3 * DAY + DAY / 2, &ended), 0);
    ck_assert_int_eq(ended, 1);
    ck_assert_int_eq(store_vacation_get(ac, ann, 2026, &v), 0);
    ck_assert_int_eq(v.used, 4);
    ck_assert_int_eq(v.until_ms, T0 + 3 * DAY + DAY / 2);
    ck_assert_int_eq(store_vacation_end(ac, ann, 2026, T0 + 4 * DAY, &ended), 0);
    ck_assert_int_eq(ended, 0);
    /* Idle now: a clock's day is taken, from when it ran out; then refused
     * while it lasts. */
    ck_assert_int_eq(store_vacation_take(ac, ann, 2026, 1, 5, T0 + 9 * DAY, 1, &taken), 0);
    ck_assert_int_eq(taken, 1);
    ck_assert_int_eq(store_vacation_get(ac, ann, 2026, &v), 0);
    ck_assert_int_eq(v.used, 5);
    ck_assert_int_eq(v.from_ms, T0 + 9 * DAY);
    ck_assert_int_eq(v.until_ms, T0 + 10 * DAY);
    ck_assert_int_eq(store_vacation_take(ac, ann, 2026, 1, 9, T0 + 9 * DAY + 5, 1, &taken), 0);
    ck_assert_int_eq(taken, 0);
    /* The bank is spent (5 of 5)... until next year. */
    ck_assert_int_eq(store_vacation_take(ac, ann, 2026, 1, 5, T0 + 20 * DAY, 1, &taken), 0);
    ck_assert_int_eq(taken, 0);
    ck_assert_int_eq(store_vacation_get(ac, ann, 2027, &v), 0);
    ck_assert_int_eq(v.used, 0);
    ck_assert_int_eq(store_vacation_take(ac, ann, 2027, 1, 5, T0 + 366 * DAY, 1, &taken), 0);
    ck_assert_int_eq(taken, 1);
    ck_assert_int_eq(store_vacation_get(ac, ann, 2027, &v), 0);
    ck_assert_int_eq(v.used, 1);
    /* Bob's bank is his own. */
    ck_assert_int_eq(store_vacation_get(ac, bob, 2026, &v), 0);
    ck_assert_int_eq(v.used, 0);
    ck_assert_int_eq(store_vacation_take(ac, bob, 2026, 8, 7, T0, 0, &taken), 0);
    ck_assert_int_eq(taken, 0);
    ck_assert_int_eq(store_vacation_take(ac, 0, 2026, 1, 7, T0, 0, &taken), STORE_E_ARGS);
}
END_TEST

/* Account tables of version 5 gain vacations. */
START_TEST(migration_from_5_adds_vacations)
{
    su_accounts_open(&st, &ac);
    long long ann = su_account_new(ac, "Ann");
    ck_assert_int_eq(
        store_test_exec(st, "DROP TABLE vacations; UPDATE accounts_version SET version = 5"), 0);
    store_accounts_close(ac);
    log_level_set(LOG_INFO);
    test_log_capture();
    char err[512];
    ac = store_accounts_open(st, err, sizeof err);
    test_log_release();
    log_level_set(LOG_ERROR);
    ck_assert_msg(ac != NULL, "%s", err);
    ck_assert_msg(test_log_count("from version 5 to 6") == 1, "log: %s", test_log_text());
    int taken = 0;
    ck_assert_int_eq(store_vacation_take(ac, ann, 2026, 2, 14, T0, 0, &taken), 0);
    ck_assert_int_eq(taken, 1);
}
END_TEST

static void tests_add(TCase *tc)
{
    tcase_add_test(tc, vacation_bank_taken_and_given_back);
    tcase_add_test(tc, migration_from_5_adds_vacations);
}

Suite *suite_accounts_vacation(void)
{
    Suite *s = suite_create("accounts_vacation");
    TCase *tc = tcase_create("accounts_vacation");
    tcase_add_checked_fixture(tc, dir_setup, sq_teardown);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}

/* The same on a real PostgreSQL (make test runs it under tests/pg.sh). */
Suite *suite_accounts_vacation_pg(void)
{
    Suite *s = suite_create("accounts_vacation_pg");
    if (getenv("CARC_PG_URL") == NULL)
        return s;
    TCase *tc = tcase_create("accounts_vacation_pg");
    tcase_add_checked_fixture(tc, pg_setup, pgs_teardown);
    tcase_set_timeout(tc, 30);
    tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
