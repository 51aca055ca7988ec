/* test_origin.c: allowed-origins (server/net/origin.c): the list's syntax, the
 * normal form origins are compared in, and which upgrades may go on: none
 * without Origin refused, the request's own host (Host) and the listed
 * origins allowed, every other page refused. */
#include <string.h>

#include "net/origin.h"
#include "tests.h"

static struct origin_list parse_ok(const char *spec)
{
    struct origin_list l;
    char err[200] = "";
    ck_assert_msg(origin_list_parse(&l, spec, err, sizeof err) == 0, "%s: %s", spec, err);
    return l;
}

START_TEST(origin_parse_forms)
{
    struct origin o;
    ck_assert_int_eq(origin_parse("https://Play.Example.ORG", &o), 0);
    ck_assert_str_eq(o.scheme, "https");
    ck_assert_str_eq(o.host, "play.example.org");
    ck_assert_int_eq(o.port, 443);
    ck_assert_int_eq(origin_parse("HTTP://127.0.0.1:8080", &o), 0);
    ck_assert_str_eq(o.scheme, "http");
    ck_assert_int_eq(o.port, 8080);
    ck_assert_int_eq(origin_parse("http://[::1]:9000", &o), 0);
    ck_assert_str_eq(o.host, "[::1]");
    ck_assert_int_eq(o.port, 9000);
    ck_assert_int_eq(origin_parse("moz-extension://abc-123", &o), 0);
    ck_assert_int_eq(o.port, 0);
    static const char *const bad[] = {
        "null",
        "",
        "https://",
        "https:/x.org",
        "x.org",
        "https://x.org/",
        "https://x.org/a",
        "https://u@x.org",
        "https://x.org:0",
        "https://x.org:65536",
        "https://x.org:",
        "https://x.org:8a",
        "https://x.org?q",
        "https://x .org",
        "https://[::1",
        "https://[]",
        "1http://x.org",
        "https://x.org:123456",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(origin_parse(bad[i], &o) == -1, "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(origin_list_syntax)
{
    struct origin_list l = parse_ok("");
    ck_assert_int_eq(l.n + l.any, 0);
    l = parse_ok("  ");
    ck_assert_int_eq(l.n + l.any, 0);
    l = parse_ok(" https://play.example.org ,http://localhost:5173");
    ck_assert_int_eq(l.n, 2);
    ck_assert_int_eq(l.any, 0);
    l = parse_ok("*");
    ck_assert_int_eq(l.any, 1);
    static const char *const bad[] = {"x",
                                      "https://a.org,",
                                      ",https://a.org",
                                      "https://a.org/",
                                      "https://a.org, null",
                                      "**",
                                      "https://a.org https://b.org"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[200] = "";
        ck_assert_msg(origin_list_parse(&l, bad[i], err, sizeof err) == -1, "accepted '%s'",
                      bad[i]);
        ck_assert_int_eq(l.n + l.any, 0);
        ck_assert_msg(strstr(err, "allowed-origins") != NULL, "%s", err);
    }
    /* The bound on entries. */
    char spec[2000] = "";
    for (int i = 0; i <= ORIGIN_MAX; i++) {
        char one[40];
        snprintf(one, sizeof one, "%shttps://h%d.org", i ? "," : "", i);
        strcat(spec, one);
    }
    char err[200] = "";
    ck_assert_int_eq(origin_list_parse(&l, spec, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "more than") != NULL, "%s", err);
    *strrchr(spec, ',') = '\0';
    l = parse_ok(spec);
    ck_assert_int_eq(l.n, ORIGIN_MAX);
}
END_TEST

START_TEST(origin_allowed_cases)
{
    struct origin_list none = parse_ok(""), some = parse_ok("https://play.example.org"),
                       any = parse_ok("*");
    /* No Origin: bots and tools. */
    ck_assert_int_eq(origin_allowed(&none, NULL, "x.org"), 1);
    ck_assert_int_eq(origin_allowed(&none, "", NULL), 1);
    /* The request's own host: direct, behind a proxy on the default port,
     * with a port written out, in other cases. */
    ck_assert_int_eq(origin_allowed(&none, "http://127.0.0.1:8080", "127.0.0.1:8080"), 1);
    ck_assert_int_eq(origin_allowed(&none, "https://carcd.example.org", "carcd.example.org"), 1);
    ck_assert_int_eq(origin_allowed(&none, "https://carcd.example.org", "Carcd.Example.org:443"),
                     1);
    ck_assert_int_eq(origin_allowed(&none, "http://carcd.example.org:80", "carcd.example.org"), 1);
    ck_assert_int_eq(origin_allowed(&none, "http://[::1]:8080", "[::1]:8080"), 1);
    /* Another page: another host, another port, a port the Host lacks. */
    ck_assert_int_eq(origin_allowed(&none, "https://evil.example", "carcd.example.org"), 0);
    ck_assert_int_eq(origin_allowed(&none, "http://127.0.0.1:9999", "127.0.0.1:8080"), 0);
    ck_assert_int_eq(origin_allowed(&none, "https://carcd.example.org:8443", "carcd.example.org"),
                     0);
    ck_assert_int_eq(
        origin_allowed(&none, "http://carcd.example.org.evil.example", "carcd.example.org"), 0);
    ck_assert_int_eq(origin_allowed(&none, "https://carcd.example.org", NULL), 0);
    ck_assert_int_eq(origin_allowed(&none, "null", "carcd.example.org"), 0);
    ck_assert_int_eq(origin_allowed(&none, "https://a.org", "a.org/x"), 0);
    /* The list: exact origins, scheme and port included. */
    ck_assert_int_eq(origin_allowed(&some, "https://play.example.org", "api.example.org"), 1);
    ck_assert_int_eq(origin_allowed(&some, "https://PLAY.example.org:443", "api.example.org"), 1);
    ck_assert_int_eq(origin_allowed(&some, "http://play.example.org", "api.example.org"), 0);
    ck_assert_int_eq(origin_allowed(&some, "https://play.example.org:8443", "api.example.org"), 0);
    ck_assert_int_eq(origin_allowed(&some, "https://evil.example", "api.example.org"), 0);
    /* "*": any page. */
    ck_assert_int_eq(origin_allowed(&any, "https://evil.example", "api.example.org"), 1);
    ck_assert_int_eq(origin_allowed(&any, "null", NULL), 1);
}
END_TEST

Suite *suite_origin(void)
{
    Suite *s = suite_create("origin");
    TCase *tc = tcase_create("origin");
    tcase_add_test(tc, origin_parse_forms);
    tcase_add_test(tc, origin_list_syntax);
    tcase_add_test(tc, origin_allowed_cases);
    suite_add_tcase(s, tc);
    return s;
}
