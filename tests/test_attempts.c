/* test_attempts.c: failed sign-ins per key in bounded memory
 * (server/players/attempts.c): the limit and its window, a success forgets,
 * keys do not disturb each other, and a flood of keys cannot grow the table
 * or free a key that is still locked out of its slot for long. */
#include <stdio.h>

#include "players/account.h"
#include "players/attempts.h"
#include "tests.h"

START_TEST(attempts_limit_and_window)
{
    ck_assert_int_eq(account_crypto_init(), 0);
    struct attempts *a = attempts_new(64, 3, 60000);
    ck_assert_ptr_nonnull(a);
    int64_t t = 1000000;
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(attempts_wait_ms(a, "ann", t), 0);
        attempts_fail(a, "ann", t + i * 1000);
    }
    ck_assert_int_eq(attempts_wait_ms(a, "ann", t + 2000), 58000);
    ck_assert_int_eq(attempts_wait_ms(a, "ann", t + 59999), 1);
    ck_assert_int_eq(attempts_wait_ms(a, "bob", t + 2000), 0); /* another key */
    ck_assert_int_eq(attempts_wait_ms(a, "ann", t + 60000), 0);
    /* A new window starts at the next failure. */
    attempts_fail(a, "ann", t + 60000);
    ck_assert_int_eq(attempts_wait_ms(a, "ann", t + 60001), 0);
    attempts_fail(a, "ann", t + 60001);
    attempts_fail(a, "ann", t + 60002);
    ck_assert_int_eq(attempts_wait_ms(a, "ann", t + 60002), 59998);
    /* A success forgets. */
    attempts_clear(a, "ann");
    ck_assert_int_eq(attempts_wait_ms(a, "ann", t + 60003), 0);
    attempts_free(a);
}
END_TEST

/* Thousands of keys through a table of 64 slots: memory stays what it was,
 * and a key that failed recently keeps its count against keys that came
 * before it (the oldest window gives way first). */
START_TEST(attempts_bounded)
{
    ck_assert_int_eq(account_crypto_init(), 0);
    struct attempts *a = attempts_new(64, 2, 60000);
    int64_t t = 5000000;
    char key[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "198.51.100.%d/%d", i % 256, i);
        attempts_fail(a, key, t);
    }
    attempts_fail(a, "victim", t + 10);
    attempts_fail(a, "victim", t + 11);
    ck_assert_int_gt(attempts_wait_ms(a, "victim", t + 12), 0);
    /* Locked keys of the same age fill the table: a fresh key may try. */
    ck_assert_int_eq(attempts_wait_ms(a, "newcomer", t + 12), 0);
    attempts_free(a);
    attempts_free(NULL);
}
END_TEST

Suite *suite_attempts(void)
{
    Suite *s = suite_create("attempts");
    TCase *tc = tcase_create("attempts");
    tcase_add_test(tc, attempts_limit_and_window);
    tcase_add_test(tc, attempts_bounded);
    suite_add_tcase(s, tc);
    return s;
}
