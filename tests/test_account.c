/* test_account.c: names, password hashes and tokens (server/players/account.c,
 * token.c): the name rule and its key, Argon2id hashes that verify, refuse a
 * wrong password and record their parameters, tokens of the documented form
 * whose digests and comparisons hold. */
#include <string.h>

#include "players/account.h"
#include "players/token.h"
#include "tests.h"

START_TEST(account_names)
{
    char key[ACCOUNT_NAME_MAX + 1];
    ck_assert_int_eq(account_name_check("Ann", key), ACCOUNT_OK);
    ck_assert_str_eq(key, "ann");
    ck_assert_int_eq(account_name_check("Zoe_de-Vries99", key), ACCOUNT_OK);
    ck_assert_str_eq(key, "zoe_de-vries99");
    ck_assert_int_eq(account_name_check("7x", key), ACCOUNT_OK);
    ck_assert_int_eq(account_name_check("abcdefghijklmnopqrstuvwx", key), ACCOUNT_OK);
    static const struct {
        const char *name;
        int why;
    } bad[] = {
        {"", ACCOUNT_NAME_LENGTH},
        {"a", ACCOUNT_NAME_LENGTH},
        {"abcdefghijklmnopqrstuvwxy", ACCOUNT_NAME_LENGTH},
        {"bot.strong", ACCOUNT_NAME_CHARS},
        {"_ann", ACCOUNT_NAME_CHARS},
        {"-ann", ACCOUNT_NAME_CHARS},
        {"ann bob", ACCOUNT_NAME_CHARS},
        {"J\xc3\xbcrgen", ACCOUNT_NAME_CHARS},
        {"\xd0\x90nn", ACCOUNT_NAME_CHARS}, /* a Cyrillic A */
        {"ann\n", ACCOUNT_NAME_CHARS},
        {"Admin", ACCOUNT_NAME_RESERVED},
        {"DELETED", ACCOUNT_NAME_RESERVED},
        {"bot", ACCOUNT_NAME_RESERVED},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(account_name_check(bad[i].name, key) == bad[i].why, "%s", bad[i].name);
        ck_assert_str_eq(key, "");
        ck_assert_str_ne(account_refusal_text(bad[i].why), "refused");
    }
}
END_TEST

START_TEST(account_passwords)
{
    ck_assert_int_eq(account_password_check("ann", "correct horse", 13), ACCOUNT_OK);
    ck_assert_int_eq(account_password_check("ann", "short", 5), ACCOUNT_PASSWORD_LENGTH);
    ck_assert_int_eq(account_password_check("annabelle", "AnnaBelle", 9), ACCOUNT_PASSWORD_NAME);
    char longpw[ACCOUNT_PASSWORD_MAX + 2];
    memset(longpw, 'x', sizeof longpw);
    ck_assert_int_eq(account_password_check("ann", longpw, ACCOUNT_PASSWORD_MAX), ACCOUNT_OK);
    ck_assert_int_eq(account_password_check("ann", longpw, ACCOUNT_PASSWORD_MAX + 1),
                     ACCOUNT_PASSWORD_LENGTH);
}
END_TEST

/* One hash at the shipped parameters (what a sign-up costs), the rest at the
 * smallest libsodium allows, to keep the suite quick. */
START_TEST(account_hashes)
{
    ck_assert_int_eq(account_crypto_init(), 0);
    char h[ACCOUNT_HASH_SIZE], h2[ACCOUNT_HASH_SIZE];
    const char *pw = "correct horse battery";
    ck_assert_int_eq(account_hash(h, pw, strlen(pw), ACCOUNT_HASH_OPS, ACCOUNT_HASH_MEM), 0);
    ck_assert_msg(strncmp(h, "$argon2id$v=19$m=65536,t=2,p=1$", 31) == 0, "%s", h);
    ck_assert_ptr_null(strstr(h, pw));
    ck_assert_int_eq(account_verify(h, pw, strlen(pw)), 1);
    ck_assert_int_eq(account_verify(h, pw, strlen(pw) - 1), 0);
    ck_assert_int_eq(account_verify(h, "Correct horse battery", strlen(pw)), 0);
    ck_assert_int_eq(account_hash_stale(h, ACCOUNT_HASH_OPS, ACCOUNT_HASH_MEM), 0);
    ck_assert_int_eq(account_hash_stale(h, ACCOUNT_HASH_OPS + 1, ACCOUNT_HASH_MEM), 1);

    /* A new salt each time: two hashes of one password differ, both verify. */
    ck_assert_int_eq(account_hash(h2, pw, strlen(pw), 1, 8192), 0);
    ck_assert_str_ne(h, h2);
    ck_assert_int_eq(account_verify(h2, pw, strlen(pw)), 1);
    ck_assert_int_eq(account_hash_stale(h2, ACCOUNT_HASH_OPS, ACCOUNT_HASH_MEM), 1);

    /* Not ours: another algorithm's string, garbage, a truncated hash. */
    ck_assert_int_eq(account_verify("$argon2i$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA", pw, strlen(pw)),
                     0);
    ck_assert_int_eq(account_verify("", pw, strlen(pw)), 0);
    h2[40] = '\0';
    ck_assert_int_eq(account_verify(h2, pw, strlen(pw)), 0);
}
END_TEST

START_TEST(account_tokens)
{
    ck_assert_int_eq(account_crypto_init(), 0);
    char a[TOKEN_LEN + 1], b[TOKEN_LEN + 1], da[TOKEN_DIGEST_LEN + 1], db[TOKEN_DIGEST_LEN + 1];
    token_make(a);
    token_make(b);
    ck_assert_int_eq((int)strlen(a), TOKEN_LEN);
    ck_assert_int_eq(token_valid(a), 1);
    ck_assert_str_ne(a, b);
    ck_assert_int_eq(token_equal(a, a), 1);
    ck_assert_int_eq(token_equal(a, b), 0);
    ck_assert_int_eq(token_digest(a, da), 0);
    ck_assert_int_eq(token_digest(b, db), 0);
    ck_assert_int_eq((int)strlen(da), TOKEN_DIGEST_LEN);
    ck_assert_str_ne(da, db);
    ck_assert_ptr_null(strstr(da, a));
    /* The digest is SHA-256 of the text (the vector from coreutils sha256sum). */
    const char *fixed = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    ck_assert_int_eq(token_digest(fixed, da), 0);
    ck_assert_str_eq(da, "0f007385b6f9d4b7eeb2748605afe1a984a0a3bfa3f014d09e2a784ce9e5cd1a");
}
END_TEST

START_TEST(account_token_forms)
{
    char d[TOKEN_DIGEST_LEN + 1];
    static const char *const bad[] = {
        "",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",   /* 42 */
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", /* 44 */
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA+",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA;",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(!token_valid(bad[i]), "%s", bad[i]);
        ck_assert_int_eq(token_digest(bad[i], d), -1);
        ck_assert_str_eq(d, "");
        ck_assert_int_eq(token_equal(bad[i], bad[i]), 0);
    }
}
END_TEST

Suite *suite_account(void)
{
    Suite *s = suite_create("account");
    TCase *tc = tcase_create("account");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, account_names);
    tcase_add_test(tc, account_passwords);
    tcase_add_test(tc, account_hashes);
    tcase_add_test(tc, account_tokens);
    tcase_add_test(tc, account_token_forms);
    suite_add_tcase(s, tc);
    return s;
}
