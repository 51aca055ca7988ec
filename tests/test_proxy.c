/* test_proxy.c: trusted-proxies (server/net/proxy.c): the list's syntax,
 * CIDR matching over IPv4, IPv6 and IPv4-mapped peers, and the walk of
 * X-Forwarded-For / X-Real-IP that gives the client address, with every
 * malformed header falling back to the peer. */
#include <string.h>

#include "config.h"
#include "net/proxy.h"
#include "tests.h"

static struct proxy_list parse_ok(const char *spec)
{
    struct proxy_list l;
    char err[160] = "";
    ck_assert_msg(proxy_list_parse(&l, spec, err, sizeof err) == 0, "%s: %s", spec, err);
    return l;
}

START_TEST(proxy_parse)
{
    struct proxy_list l = parse_ok("");
    ck_assert_int_eq(l.n, 0);
    l = parse_ok("   ");
    ck_assert_int_eq(l.n, 0);
    l = parse_ok("127.0.0.3");
    ck_assert_int_eq(l.n, 1);
    l = parse_ok(" 10.0.0.0/8 ,::1, fd00::/8,192.168.1.7/32,0.0.0.0/0");
    ck_assert_int_eq(l.n, 5);

    static const char *const bad[] = {
        "x",     "10.0.0.0/33", "::/129", "10.0.0.1/", "10.0.0.1/-1",     "1.2.3.4,",  ",1.2.3.4",
        "1.2.3", "1.2.3.4/8x",  "[::1]",  "::1/1280",  "1.2.3.4 5.6.7.8", "localhost", "1.2.3.4:80",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[160] = "";
        ck_assert_msg(proxy_list_parse(&l, bad[i], err, sizeof err) == -1, "accepted '%s'", bad[i]);
        ck_assert_int_eq(l.n, 0);
        ck_assert_msg(strstr(err, "trusted-proxies") != NULL, "%s", err);
    }
    /* The limit on entries. */
    char many[PROXY_MAX * 12 + 16] = "";
    for (int i = 0; i <= PROXY_MAX; i++) {
        char one[24];
        snprintf(one, sizeof one, "%s10.0.%d.1", i > 0 ? "," : "", i);
        strcat(many, one);
    }
    char err[160];
    ck_assert_int_eq(proxy_list_parse(&l, many, err, sizeof err), -1);
}
END_TEST

START_TEST(proxy_match)
{
    struct proxy_list l = parse_ok("10.0.0.0/8, 192.168.1.7, fd00::/8, 172.16.0.0/12");
    ck_assert_int_eq(proxy_list_has(&l, "10.255.1.2"), 1);
    ck_assert_int_eq(proxy_list_has(&l, "11.0.0.1"), 0);
    ck_assert_int_eq(proxy_list_has(&l, "192.168.1.7"), 1);
    ck_assert_int_eq(proxy_list_has(&l, "192.168.1.8"), 0);
    ck_assert_int_eq(proxy_list_has(&l, "172.31.255.255"), 1);
    ck_assert_int_eq(proxy_list_has(&l, "172.32.0.0"), 0);
    ck_assert_int_eq(proxy_list_has(&l, "fd12:3456::1"), 1);
    ck_assert_int_eq(proxy_list_has(&l, "fe80::1"), 0);
    /* A dual-stack peer written as IPv4-mapped IPv6 is the same address. */
    ck_assert_int_eq(proxy_list_has(&l, "::ffff:10.1.2.3"), 1);
    ck_assert_int_eq(proxy_list_has(&l, "::ffff:11.1.2.3"), 0);
    ck_assert_int_eq(proxy_list_has(&l, ""), 0);
    ck_assert_int_eq(proxy_list_has(&l, "not an address"), 0);
    /* An IPv4 entry does not match IPv6 addresses that merely share bits. */
    struct proxy_list any4 = parse_ok("0.0.0.0/0");
    ck_assert_int_eq(proxy_list_has(&any4, "8.8.8.8"), 1);
    ck_assert_int_eq(proxy_list_has(&any4, "::1"), 0);
    struct proxy_list one6 = parse_ok("::1");
    ck_assert_int_eq(proxy_list_has(&one6, "::1"), 1);
    ck_assert_int_eq(proxy_list_has(&one6, "0:0::1"), 1);
    ck_assert_int_eq(proxy_list_has(&one6, "::2"), 0);
    struct proxy_list empty = parse_ok("");
    ck_assert_int_eq(proxy_list_has(&empty, "127.0.0.1"), 0);
}
END_TEST

/* The address proxy_client_find gives, and whether it was forwarded. */
static void client_is(const struct proxy_list *l, const char *peer, const char *xff,
                      const char *xri, const char *want, int forwarded)
{
    char out[64];
    int r = proxy_client_find(l, peer, xff, xri, out, sizeof out);
    ck_assert_msg(strcmp(out, want) == 0 && r == forwarded,
                  "peer %s xff '%s' x-real-ip '%s': got %s (%d), want %s (%d)", peer,
                  xff != NULL ? xff : "(none)", xri != NULL ? xri : "(none)", out, r, want,
                  forwarded);
}

START_TEST(proxy_client)
{
    struct proxy_list l = parse_ok("127.0.0.3, 10.0.0.0/8");
    /* An untrusted peer's headers are never read. */
    client_is(&l, "127.0.0.9", "1.2.3.4", "5.6.7.8", "127.0.0.9", 0);
    /* Trusted: the right-most entry that is not a trusted proxy. */
    client_is(&l, "127.0.0.3", "1.2.3.4", NULL, "1.2.3.4", 1);
    client_is(&l, "127.0.0.3", "6.6.6.6, 1.2.3.4", NULL, "1.2.3.4", 1);
    client_is(&l, "127.0.0.3", "6.6.6.6, 1.2.3.4, 10.1.1.1", NULL, "1.2.3.4", 1);
    client_is(&l, "127.0.0.3", "6.6.6.6,1.2.3.4 ,  10.1.1.1,127.0.0.3", NULL, "1.2.3.4", 1);
    /* Every entry a trusted proxy: the left-most. */
    client_is(&l, "127.0.0.3", "10.0.0.1, 10.0.0.2", NULL, "10.0.0.1", 1);
    /* X-Real-IP only without X-Forwarded-For. */
    client_is(&l, "127.0.0.3", NULL, "5.6.7.8", "5.6.7.8", 1);
    client_is(&l, "127.0.0.3", "", " 5.6.7.8 ", "5.6.7.8", 1);
    client_is(&l, "127.0.0.3", "1.2.3.4", "5.6.7.8", "1.2.3.4", 1);
    /* Canonical forms: one address, one count. */
    client_is(&l, "127.0.0.3", "::FFFF:1.2.3.4", NULL, "1.2.3.4", 1);
    client_is(&l, "127.0.0.3", "2001:DB8:0:0::1", NULL, "2001:db8::1", 1);
    client_is(&l, "::ffff:10.9.9.9", "2001:db8::7", NULL, "2001:db8::7", 1);
    /* Malformed: the peer. */
    static const char *const bad[] = {
        "unknown",         "1.2.3.4, garbage", "garbage, 1.2.3.4", "1.2.3.4,",  ",1.2.3.4",
        "1.2.3.4 5.6.7.8", "1.2.3.4:5678",     "[2001:db8::1]",    "1.2.3.400", "1.2.3.4,,5.6.7.8",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        client_is(&l, "127.0.0.3", bad[i], NULL, "127.0.0.3", 0);
        /* A bad X-Forwarded-For is not replaced by X-Real-IP either. */
        client_is(&l, "127.0.0.3", bad[i], "5.6.7.8", "127.0.0.3", 0);
    }
    client_is(&l, "127.0.0.3", NULL, "nope", "127.0.0.3", 0);
    client_is(&l, "127.0.0.3", NULL, NULL, "127.0.0.3", 0);
    /* More hops than are read: the peer. */
    char many[2048] = "";
    for (int i = 0; i < 65; i++)
        strcat(many, i > 0 ? ",1.2.3.4" : "1.2.3.4");
    client_is(&l, "127.0.0.3", many, NULL, "127.0.0.3", 0);
    /* No list: the peer, whatever the headers. */
    struct proxy_list empty = parse_ok("");
    client_is(&empty, "127.0.0.3", "1.2.3.4", "5.6.7.8", "127.0.0.3", 0);
}
END_TEST

/* The setting: empty by default, checked when set, kept as written. */
START_TEST(proxy_setting)
{
    struct carcd_config c;
    char err[256];
    char *argv[] = {"carcd", "--trusted-proxies", "127.0.0.3,10.0.0.0/8", NULL};
    ck_assert_int_eq(config_load(&c, 3, argv, stdout, err, sizeof err), 0);
    ck_assert_str_eq(c.trusted_proxies, "127.0.0.3,10.0.0.0/8");
    char *argv0[] = {"carcd", NULL};
    ck_assert_int_eq(config_load(&c, 1, argv0, stdout, err, sizeof err), 0);
    ck_assert_str_eq(c.trusted_proxies, "");
    char *bad[] = {"carcd", "--trusted-proxies=10.0.0.0/40", NULL};
    ck_assert_int_eq(config_load(&c, 2, bad, stdout, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "10.0.0.0/40") != NULL, "%s", err);
}
END_TEST

Suite *suite_proxy(void)
{
    Suite *s = suite_create("proxy");
    TCase *tc = tcase_create("proxy");
    tcase_add_test(tc, proxy_parse);
    tcase_add_test(tc, proxy_match);
    tcase_add_test(tc, proxy_client);
    tcase_add_test(tc, proxy_setting);
    suite_add_tcase(s, tc);
    return s;
}
