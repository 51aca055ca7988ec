/* test_api.c: the HTTP routes of carcd (server/http/api.c, api_route and
 * api_mime) without sockets: health, the JSON API, static files of the web
 * client and the paths that must not reach the disk. The lobby behind the
 * routes comes from room_util.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "http/api.h"
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
    /* The rating routes without accounts (no storage): 404 accounts_off; POST: 405. */
    api_route(&api, "GET", "/api/players/ann", &r);
    ck_assert_int_eq(r.status, 404);
    ck_assert_ptr_nonnull(strstr(r.body, "accounts_off"));
    api_reply_free(&r);
    api_route(&api, "GET", "/api/ladder", &r);
    ck_assert_int_eq(r.status, 404);
    api_reply_free(&r);
    api_route(&api, "POST", "/api/ladder", &r);
    ck_assert_int_eq(r.status, 405);
    api_reply_free(&r);
    /* Game analysis without the queue (analysis = off, or no storage): 404
     * to GET and POST (routed before /api/games/{id}), 405 to others. */
    const char *an[] = {"GET", "HEAD", "POST"};
    for (int i = 0; i < 3; i++) {
        api_route(&api, an[i], "/api/games/abc/analysis", &r);
        ck_assert_int_eq(r.status, 404);
        ck_assert_str_eq(r.content_type, "application/json");
        ck_assert_msg(strstr(r.body, "game analysis is off") != NULL, "%s", r.body);
        api_reply_free(&r);
    }
    api_route(&api, "DELETE", "/api/games/abc/analysis", &r);
    ck_assert_int_eq(r.status, 405);
    api_reply_free(&r);
    api_route(&api, "POST", "/api/games/abc", &r); /* the record's route: GET only */
    ck_assert_int_eq(r.status, 405);
    api_reply_free(&r);
    api_route(&api, "GET", "/", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "text/html; charset=utf-8");
    size_t n = 0;
    char *index = test_file_read("clients/web/index.html", &n);
    ck_assert_uint_eq(r.len, n);
    ck_assert(memcmp(r.body, index, n) == 0); /* from memory, the file as it was at start */
    free(index);
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
        api_reply_free(&r);
    }
    api_fini(&api);
    ck_assert_str_eq(api_mime("x/y.css"), "text/css; charset=utf-8");
    ck_assert_str_eq(api_mime("x.svg"), "image/svg+xml");
    ck_assert_str_eq(api_mime("x.d/noext"), "application/octet-stream");
}
END_TEST

/* What the web root's table holds: plain files, directories' index.html,
 * and neither hidden names nor symbolic links (which could lead out). */
/* HEAD answers every GET route with its headers; static files carry an
 * ETag (304 when the client has it) and go out compressed to a client that
 * accepts gzip: the same bytes once inflated. */
START_TEST(head_etag_and_gzip)
{
    struct api api;
    ck_assert_int_eq(api_init(&api, lb, "clients/web"), 0);
    struct api_reply r, g;
    api_route(&api, "HEAD", "/", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert(r.head);
    api_route(&api, "GET", "/", &g);
    ck_assert_uint_eq(r.len, g.len);
    api_reply_free(&g);
    api_reply_free(&r);
    api_route(&api, "HEAD", "/api/rooms", &r);
    ck_assert_int_eq(r.status, 200);
    api_reply_free(&r);
    api_route(&api, "HEAD", "/nope.html", &r);
    ck_assert_int_eq(r.status, 404);
    api_reply_free(&r);

    api_route(&api, "GET", "/js/main.js", &r);
    ck_assert_ptr_nonnull(r.etag);
    ck_assert_ptr_null(r.content_encoding);
    char etag[32];
    snprintf(etag, sizeof etag, "%s", r.etag);
    size_t plain_len = r.len;
    char *plain = malloc(plain_len);
    memcpy(plain, r.body, plain_len);
    api_reply_free(&r);
    api_route_http(&api, "GET", "/js/main.js", NULL, NULL, etag, &r, NULL, NULL);
    ck_assert_int_eq(r.status, 304);
    ck_assert_uint_eq(r.len, 0);
    api_reply_free(&r);
    api_route_http(&api, "GET", "/js/main.js", NULL, "gzip;q=0", NULL, &r, NULL, NULL);
    ck_assert_ptr_null(r.content_encoding);
    api_reply_free(&r);
    api_route_http(&api, "GET", "/js/main.js", NULL, "deflate, gzip, br", NULL, &r, NULL, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_encoding, "gzip");
    ck_assert_uint_lt(r.len, plain_len);
    /* Inflate and compare. */
    char *out = malloc(plain_len + 1);
    z_stream z;
    memset(&z, 0, sizeof z);
    ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = (Bytef *)r.body;
    z.avail_in = (uInt)r.len;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)plain_len + 1;
    ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
    ck_assert_uint_eq(z.total_out, plain_len);
    ck_assert(memcmp(out, plain, plain_len) == 0);
    inflateEnd(&z);
    free(out);
    free(plain);
    api_reply_free(&r);
    api_fini(&api);
}
END_TEST

START_TEST(web_root_in_memory)
{
    char dir[] = "/tmp/carc-web-XXXXXX", p[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* Served: a web client's kinds of file; not served: hidden names, links,
     * and whatever else lies beside the client (its README, notes). */
    const char *files[] = {"index.html", "sub/index.html", "sub/a.css", "sub/app.js",
                           ".hidden",    "README.md",      "notes.txt", "Makefile"};
    enum { NFILES = sizeof files / sizeof files[0] };
    snprintf(p, sizeof p, "%s/sub", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    for (int i = 0; i < NFILES; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "<%s>", files[i]);
        fclose(f);
    }
    snprintf(p, sizeof p, "%s/link", dir);
    ck_assert_int_eq(symlink("/etc/hostname", p), 0);
    struct api api;
    ck_assert_int_eq(api_init(&api, lb, dir), 0);
    ck_assert_int_eq(api.web.n, 4);
    struct api_reply r;
    const char *want[][2] = {{"/", "<index.html>"},
                             {"/sub", "<sub/index.html>"},
                             {"/sub/", "<sub/index.html>"},
                             {"/sub/a.css", "<sub/a.css>"}};
    for (int i = 0; i < 4; i++) {
        api_route(&api, "GET", want[i][0], &r);
        ck_assert_int_eq(r.status, 200);
        ck_assert_uint_eq(r.len, strlen(want[i][1]));
        ck_assert(memcmp(r.body, want[i][1], r.len) == 0);
        api_reply_free(&r);
    }
    api_route(&api, "GET", "/sub/app.js", &r);
    ck_assert_int_eq(r.status, 200);
    api_reply_free(&r);
    const char *gone[] = {"/.hidden",   "/link",      "/sub/b.css",
                          "/README.md", "/notes.txt", "/Makefile"};
    for (int i = 0; i < 6; i++) {
        api_route(&api, "GET", gone[i], &r);
        ck_assert_msg(r.status == 404, "%s gave %d", gone[i], r.status);
        api_reply_free(&r);
    }
    api_fini(&api);
    /* A missing web root: the server still runs, says so once, static files are 404. */
    test_log_capture();
    ck_assert_int_eq(api_init(&api, lb, "/nonexistent/carc-web"), 0);
    test_log_release();
    ck_assert_msg(test_log_count("warn: web root /nonexistent/carc-web") == 1, "log: %s",
                  test_log_text());
    api_route(&api, "GET", "/", &r);
    ck_assert_int_eq(r.status, 404);
    api_reply_free(&r);
    api_fini(&api);
    for (int i = NFILES - 1; i >= 0; i--) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/link", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/sub", dir);
    rmdir(p);
    rmdir(dir);
}
END_TEST

/* The player pages: /players/NAME and /ladder are served from players.html
 * and ladder.html in place; a nested, empty, hidden or odd name is not a page
 * (404 unless a file of that path exists), and no alias leaves the root. */
START_TEST(player_pages)
{
    char dir[] = "/tmp/carc-pages-XXXXXX", p[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *files[] = {"players.html", "ladder.html", "index.html"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "<%s>", files[i]);
        fclose(f);
    }
    struct api api;
    ck_assert_int_eq(api_init(&api, lb, dir), 0);
    struct api_reply r;
    const char *pages[][2] = {
        {"/players/Ann", "<players.html>"},    {"/players/bot.strong", "<players.html>"},
        {"/players/a_b-C9", "<players.html>"}, {"/players/x", "<players.html>"},
        {"/ladder", "<ladder.html>"},          {"/ladder.html", "<ladder.html>"}};
    for (int i = 0; i < 6; i++) {
        api_route(&api, "GET", pages[i][0], &r);
        ck_assert_msg(r.status == 200, "%s gave %d", pages[i][0], r.status);
        ck_assert_str_eq(r.content_type, "text/html; charset=utf-8");
        ck_assert_uint_eq(r.len, strlen(pages[i][1]));
        ck_assert(memcmp(r.body, pages[i][1], r.len) == 0);
        api_reply_free(&r);
    }
    const char *gone[] = {"/players/Ann/games",
                          "/players/",
                          "/players",
                          "/players/.hidden",
                          "/players/..",
                          "/players/../index.html",
                          "/players/a%2fb",
                          "/players/a b",
                          "/players/Ann/",
                          "/ladder/",
                          "/ladder/2p",
                          "/players//Ann",
                          "/players/0123456789012345678901234567890123456789x"};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
        ck_assert_ptr_null(api_page_alias(gone[i]));
        api_route(&api, "GET", gone[i], &r);
        ck_assert_msg(r.status == 404, "%s gave %d", gone[i], r.status);
        api_reply_free(&r);
    }
    ck_assert_str_eq(api_page_alias("/players/0123456789012345678901234567890123456789"),
                     "/players.html");
    /* A POST is refused before any page. */
    api_route(&api, "POST", "/players/Ann", &r);
    ck_assert_int_eq(r.status, 405);
    api_reply_free(&r);
    api_fini(&api);
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}
END_TEST

Suite *suite_api(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_with("routes", setup_default);
    tcase_add_test(tc, http_routes);
    tcase_add_test(tc, web_root_in_memory);
    tcase_add_test(tc, head_etag_and_gzip);
    tcase_add_test(tc, player_pages);
    suite_add_tcase(s, tc);
    return s;
}
