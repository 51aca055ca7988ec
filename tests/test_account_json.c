/* test_account_json.c: the bodies of the account routes and their answers
 * (protocol/account_json.h): strict decoding per route, bounds, passwords
 * as bytes, errors that never quote a value. */
#include <stdlib.h>
#include <string.h>

#include "account_json.h"
#include "tests.h"

static int decode(int kind, const char *text, struct proto_account_body *b, struct proto_error *err)
{
    proto_error_init(err);
    return proto_account_decode(kind, text, strlen(text), b, err);
}

START_TEST(account_json_signup)
{
    struct proto_account_body b;
    struct proto_error err;
    ck_assert_int_eq(
        decode(PROTO_ACCOUNT_SIGNUP, "{\"name\":\"alice\",\"password\":\"hunter22\"}", &b, &err),
        0);
    ck_assert_str_eq(b.name, "alice");
    ck_assert_str_eq(b.password, "hunter22");
    ck_assert_uint_eq(b.password_len, 8);
    ck_assert_int_eq(b.has_invite, 0);
    ck_assert_int_eq(decode(PROTO_ACCOUNT_SIGNUP,
                            "{\"invite\":\"abc\",\"name\":\"bob\",\"password\":\"p\\u00e9 x\"}", &b,
                            &err),
                     0);
    ck_assert_int_eq(b.has_invite, 1);
    ck_assert_str_eq(b.invite, "abc");
    ck_assert_str_eq(b.password, "p\xc3\xa9 x");
    /* A password is bytes: U+0000 is one of them. */
    ck_assert_int_eq(
        decode(PROTO_ACCOUNT_SIGNIN, "{\"name\":\"bob\",\"password\":\"a\\u0000b\"}", &b, &err), 0);
    ck_assert_uint_eq(b.password_len, 3);
    ck_assert_int_eq(memcmp(b.password, "a\0b", 3), 0);
}
END_TEST

START_TEST(account_json_routes)
{
    struct proto_account_body b;
    struct proto_error err;
    ck_assert_int_eq(decode(PROTO_ACCOUNT_PASSWORD,
                            "{\"password\":\"oldpassw\",\"new_password\":\"newpassw\"}", &b, &err),
                     0);
    ck_assert_str_eq(b.password, "oldpassw");
    ck_assert_str_eq(b.new_password, "newpassw");
    ck_assert_uint_eq(b.new_password_len, 8);
    ck_assert_int_eq(decode(PROTO_ACCOUNT_DELETE, "{\"password\":\"x\"}", &b, &err), 0);
    ck_assert_str_eq(b.password, "x");
    /* A key of another route is unknown here. */
    ck_assert_int_eq(decode(PROTO_ACCOUNT_SIGNIN,
                            "{\"name\":\"a\",\"password\":\"b\",\"invite\":\"c\"}", &b, &err),
                     CARC_E_INVAL);
    ck_assert_str_eq(err.text, "unknown key");
    ck_assert_int_eq(decode(PROTO_ACCOUNT_DELETE, "{\"password\":\"x\",\"name\":\"a\"}", &b, &err),
                     CARC_E_INVAL);
}
END_TEST

START_TEST(account_json_refused)
{
    struct proto_account_body b;
    struct proto_error err;
    ck_assert_int_eq(decode(PROTO_ACCOUNT_SIGNIN, "{\"name\":\"a\"}", &b, &err), CARC_E_INVAL);
    ck_assert_str_eq(err.field, "password");
    ck_assert_str_eq(err.text, "is required");
    ck_assert_int_eq(decode(PROTO_ACCOUNT_SIGNIN, "{\"name\":1,\"password\":\"b\"}", &b, &err),
                     CARC_E_INVAL);
    ck_assert_str_eq(err.field, "name");
    ck_assert_int_eq(decode(PROTO_ACCOUNT_SIGNIN, "[\"a\"]", &b, &err), CARC_E_INVAL);
    ck_assert_int_eq(decode(PROTO_ACCOUNT_SIGNIN, "name=a&password=b", &b, &err), CARC_E_JSON);
    ck_assert_int_eq(decode(PROTO_ACCOUNT_SIGNIN,
                            "{\"name\":\"a\",\"name\":\"b\",\"password\":\"c\"}", &b, &err),
                     CARC_E_JSON);
    ck_assert_int_eq(
        decode(PROTO_ACCOUNT_SIGNIN, "{\"name\":\"a\\u0000\",\"password\":\"c\"}", &b, &err),
        CARC_E_INVAL);
    ck_assert_str_eq(err.field, "name");
    /* Too long: a name, a password, the whole body. */
    char text[PROTO_ACCOUNT_BODY_MAX + 64];
    snprintf(text, sizeof text, "{\"name\":\"%0*d\",\"password\":\"x\"}",
             PROTO_ACCOUNT_NAME_MAX + 1, 0);
    ck_assert_int_eq(decode(PROTO_ACCOUNT_SIGNIN, text, &b, &err), CARC_E_INVAL);
    snprintf(text, sizeof text, "{\"name\":\"a\",\"password\":\"%0*d\"}",
             PROTO_ACCOUNT_PASSWORD_MAX + 1, 0);
    ck_assert_int_eq(decode(PROTO_ACCOUNT_SIGNIN, text, &b, &err), CARC_E_INVAL);
    ck_assert_str_eq(b.name, ""); /* wiped on error */
    snprintf(text, sizeof text, "{\"name\":\"a\",\"password\":\"b\"}%*s", PROTO_ACCOUNT_BODY_MAX,
             "");
    ck_assert_int_eq(decode(PROTO_ACCOUNT_SIGNIN, text, &b, &err), CARC_E_TOO_BIG);
}
END_TEST

/* No error text quotes what was sent: a password in a bad document stays out
 * of answers and logs. */
START_TEST(account_json_no_echo)
{
    static const char *bad[] = {
        "{\"name\":\"a\",\"password\":\"s3cretpw\"",
        "{\"name\":\"a\",\"password\":s3cretpw}",
        "{\"name\":\"a\",\"s3cretpw\":\"x\",\"password\":\"y\"}",
        "{\"name\":\"a\",\"password\":[\"s3cretpw\"]}",
        "s3cretpw",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct proto_account_body b;
        struct proto_error err;
        ck_assert_int_ne(decode(PROTO_ACCOUNT_SIGNIN, bad[i], &b, &err), 0);
        ck_assert_ptr_null(strstr(err.text, "s3cret"));
        ck_assert_ptr_null(strstr(err.field, "s3cret"));
    }
}
END_TEST

START_TEST(account_json_encode)
{
    char *s = proto_account_encode("al\"ice", 1700000000123LL, "tok-_42");
    ck_assert_str_eq(s, "{\"name\":\"al\\\"ice\",\"created\":1700000000123,\"csrf\":\"tok-_42\"}");
    free(s);
    s = proto_account_encode("bob", -1, "t");
    ck_assert_str_eq(s, "{\"name\":\"bob\",\"csrf\":\"t\"}");
    free(s);
    s = proto_account_error_encode("name_taken", "that name is \"taken\"");
    ck_assert_str_eq(s, "{\"error\":\"name_taken\",\"message\":\"that name is \\\"taken\\\"\"}");
    free(s);
    s = proto_account_error_encode("not_signed_in", NULL);
    ck_assert_str_eq(s, "{\"error\":\"not_signed_in\"}");
    free(s);
    s = proto_account_invite_encode("Ab-_0123456789abcdefgh", 1700000000123LL);
    ck_assert_str_eq(s, "{\"code\":\"Ab-_0123456789abcdefgh\",\"expires\":1700000000123}");
    free(s);
}
END_TEST

Suite *suite_account_json(void)
{
    Suite *s = suite_create("account_json");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, account_json_signup);
    tcase_add_test(tc, account_json_routes);
    tcase_add_test(tc, account_json_refused);
    tcase_add_test(tc, account_json_no_echo);
    tcase_add_test(tc, account_json_encode);
    suite_add_tcase(s, tc);
    return s;
}
