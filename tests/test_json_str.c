/* test_json_str.c: the one JSON string writer (protocol/json_str.h): what
 * jansson writes for valid text, the log's mode for any bytes, whole escapes
 * only when the buffer is short, and the quoted append of stored rows. */
#include <string.h>

#include "json_str.h"
#include "tests.h"

/* The escape of s (mode flags) as a NUL-terminated string, whole. */
static const char *esc(const char *s, size_t n, unsigned flags)
{
    static char buf[512];
    size_t used = 0;
    size_t k = proto_json_escape(buf, sizeof buf - 1, s, n, &used, flags);
    ck_assert_uint_eq(used, n);
    buf[k] = '\0';
    return buf;
}

START_TEST(json_str_codec_mode)
{
    /* What jansson's dump writes (the codec's output must not change): the
     * short escapes, upper-case hex for the other controls, '/' and DEL and
     * UTF-8 as they are. */
    const char in[] = "\x01\b\t\n\f\r\x1f \"q\" a\\b / \x7f caf\xc3\xa9 \xf0\x9f\x8f\xb0";
    ck_assert_str_eq(esc(in, sizeof in - 1, 0), "\\u0001\\b\\t\\n\\f\\r\\u001F \\\"q\\\" "
                                                "a\\\\b / \x7f caf\xc3\xa9 \xf0\x9f\x8f\xb0");
}
END_TEST

START_TEST(json_str_any_bytes)
{
    ck_assert_str_eq(esc("a\"b\\c\nd\x01\x1f\x7f", 10, PROTO_JSON_ANY_BYTES),
                     "a\\\"b\\\\c\\nd\\u0001\\u001f\\u007f");
    /* Not UTF-8: a stray continuation byte, a cut sequence, an overlong form, a surrogate. */
    ck_assert_str_eq(esc("\x80|\xc3|\xc0\xaf|\xed\xa0\x80", 10, PROTO_JSON_ANY_BYTES),
                     "\\ufffd|\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd");
    ck_assert_str_eq(esc("\xc3\xa9", 2, PROTO_JSON_ANY_BYTES), "\xc3\xa9");
    /* Without the flag, the same bytes go through (the caller vouched for them). */
    ck_assert_str_eq(esc("\x7f\xc3\xa9", 3, 0), "\x7f\xc3\xa9");
}
END_TEST

START_TEST(json_str_short_buffer)
{
    char out[8];
    size_t used = 99;
    /* "ab" fits, the 6-byte escape of \x01 does not: it is not cut in half. */
    size_t k = proto_json_escape(out, 7, "ab\x01z", 4, &used, 0);
    ck_assert_uint_eq(k, 2);
    ck_assert_uint_eq(used, 2);
    /* A 3-byte character that does not fit stays out whole. */
    k = proto_json_escape(out, 4, "ab\xe2\x82\xac", 5, &used, PROTO_JSON_ANY_BYTES);
    ck_assert_uint_eq(k, 2);
    ck_assert_uint_eq(used, 2);
    k = proto_json_escape(out, 0, "ab", 2, &used, 0);
    ck_assert_uint_eq(k, 0);
    ck_assert_uint_eq(used, 0);
}
END_TEST

START_TEST(json_str_append)
{
    char buf[32] = "[";
    size_t n = 1;
    proto_json_str_append(buf, sizeof buf, &n, "Ann \"A\"");
    buf[n++] = ',';
    buf[n] = '\0';
    proto_json_str_append(buf, sizeof buf, &n, "B\n");
    ck_assert_str_eq(buf, "[\"Ann \\\"A\\\"\",\"B\\n\"");
    ck_assert_uint_eq(n, strlen(buf));
    /* Too long for the buffer: cut, but still quoted and terminated. */
    char small[8] = "";
    size_t m = 0;
    proto_json_str_append(small, sizeof small, &m, "abcdefghij");
    ck_assert_str_eq(small, "\"abcde\"");
    ck_assert_uint_eq(m, 7);
}
END_TEST

Suite *suite_json_str(void)
{
    Suite *s = suite_create("json_str");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, json_str_codec_mode);
    tcase_add_test(tc, json_str_any_bytes);
    tcase_add_test(tc, json_str_short_buffer);
    tcase_add_test(tc, json_str_append);
    suite_add_tcase(s, tc);
    return s;
}
