/* test_api.c: the HTTP routes of carcd (server/api.c, api_route and
 * api_mime) without sockets: health, the JSON API, static files of the web
 * client and the paths that must not reach the disk. The lobby behind the
 * routes comes from room_util.h. */
#include <string.h>

#include "api.h"
#include "room_util.h"
#include "tests.h"

START_TEST(http_routes)
{
    struct api api;
    ck_assert_int_eq(api_init(&api, lb, "clients/web"), 0);
    struct api_reply r;
    api_route(&api, "GET", "/healthz", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "ok");
    api_reply_free(&r);
    api_route(&api, "GET", "/api/rooms", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "application/json");
    ck_assert_str_eq(r.body, "[]");
    api_reply_free(&r);
    api_route(&api, "GET", "/api/tiles", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"BA.D\""));
    api_reply_free(&r);
    api_route(&api, "POST", "/api/rooms", &r);
    ck_assert_int_eq(r.status, 405);
    api_reply_free(&r);
    api_route(&api, "GET", "/api/nope", &r);
    ck_assert_int_eq(r.status, 404);
    api_reply_free(&r);
    api_route(&api, "GET", "/", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.file, "clients/web/index.html");
    ck_assert_str_eq(r.content_type, "text/html; charset=utf-8");
    api_reply_free(&r);
    api_route(&api, "GET", "/js/main.js", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "text/javascript; charset=utf-8");
    api_reply_free(&r);
    const char *bad[] = {"/../Makefile", "/a/../../x",    "//etc/passwd", "/.git/config",
                         "/a\\b",        "/missing.html", "/ws"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        api_route(&api, "GET", bad[i], &r);
        ck_assert_msg(r.status == 404 || (i == 6 && r.status == 426), "%s gave %d", bad[i],
                      r.status);
        ck_assert_str_eq(r.file, "");
        api_reply_free(&r);
    }
    api_fini(&api);
    ck_assert_str_eq(api_mime("x/y.css"), "text/css; charset=utf-8");
    ck_assert_str_eq(api_mime("x.svg"), "image/svg+xml");
    ck_assert_str_eq(api_mime("x.d/noext"), "application/octet-stream");
}
END_TEST

Suite *suite_api(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_with("routes", setup_default);
    tcase_add_test(tc, http_routes);
    suite_add_tcase(s, tc);
    return s;
}
