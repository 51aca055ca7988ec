/* test_admin.c: the admin API (server/http/admin*.c) without sockets: its route
 * parser, the token check, and its routes on a lobby of fake clients
 * (room_util.h): the refusals, the rooms' details, notice, seat actions and
 * close. tests/integration/test_admin.py runs the same over HTTP. */
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "http/admin.h"
#include "http/api.h"
#include "room_util.h"
#include "tests.h"

START_TEST(route_parse)
{
    struct admin_path p;
    ck_assert_int_eq(admin_path_parse("/admin/rooms", &p), ADMIN_R_ROOMS);
    ck_assert_int_eq(admin_path_parse("/admin/notice", &p), ADMIN_R_NOTICE);
    ck_assert_int_eq(admin_path_parse("/admin/backup", &p), ADMIN_R_BACKUP);
    ck_assert_int_eq(admin_path_parse("/admin/rooms/k3J9", &p), ADMIN_R_ROOM);
    ck_assert_str_eq(p.room, "k3J9");
    ck_assert_int_eq(admin_path_parse("/admin/rooms/k3J9/close", &p), ADMIN_R_CLOSE);
    ck_assert_str_eq(p.room, "k3J9");
    ck_assert_int_eq(admin_path_parse("/admin/rooms/k3J9/seats/3/free", &p), ADMIN_R_SEAT_FREE);
    ck_assert_int_eq(p.seat, 3);
    ck_assert_int_eq(admin_path_parse("/admin/rooms/ab/seats/0/bot", &p), ADMIN_R_SEAT_BOT);
    ck_assert_int_eq(p.seat, 0);
    ck_assert_str_eq(p.room, "ab");
    /* A seat that is not a small decimal number is the route with seat -1 (400). */
    const char *bad_seats[] = {"/admin/rooms/ab/seats/x/bot", "/admin/rooms/ab/seats/-1/bot",
                               "/admin/rooms/ab/seats/100/free", "/admin/rooms/ab/seats/1a/free",
                               "/admin/rooms/ab/seats/99999999999999999999/free"};
    for (size_t i = 0; i < sizeof bad_seats / sizeof bad_seats[0]; i++) {
        ck_assert_int_ne(admin_path_parse(bad_seats[i], &p), ADMIN_R_NONE);
        ck_assert_msg(p.seat == -1, "%s: seat %d", bad_seats[i], p.seat);
    }
    /* A room id too long for any room: the route, with no room (404). */
    ck_assert_int_eq(admin_path_parse("/admin/rooms/abcdefghijklmnopqrstuvwxyz0123456789", &p),
                     ADMIN_R_ROOM);
    ck_assert_str_eq(p.room, "");
    ck_assert_int_eq(
        admin_path_parse("/admin/rooms/abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstu"
                         "vwxyz0123456789/close",
                         &p),
        ADMIN_R_CLOSE);
    ck_assert_str_eq(p.room, "");
    const char *none[] = {"/admin",
                          "/admin/",
                          "/admin/room",
                          "/admin/rooms/",
                          "/admin/rooms//close",
                          "/admin/rooms/ab/",
                          "/admin/rooms/ab/close/",
                          "/admin/rooms/ab/open",
                          "/admin/rooms/ab/seats",
                          "/admin/rooms/ab/seats/1",
                          "/admin/rooms/ab/seats/1/",
                          "/admin/rooms/ab/seats/1/kick",
                          "/admin/rooms/ab/seats/1/bot/x",
                          "/admin/rooms/ab/seats//bot",
                          "/admin/notice/x",
                          "/admin/backups",
                          "/admin/accounts/",
                          "/admin/accounts/ann",
                          "/admin/accounts/ann/",
                          "/admin/accounts/ann/delete",
                          "/admin/accounts//reset",
                          "/admin/accounts/ann/reset/x",
                          "/admin/invites/x",
                          "/api/rooms"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        ck_assert_msg(admin_path_parse(none[i], &p) == ADMIN_R_NONE, "%s parsed", none[i]);
    ck_assert_str_eq(admin_route_method(ADMIN_R_ROOMS), "GET");
    ck_assert_str_eq(admin_route_method(ADMIN_R_ROOM), "GET");
    ck_assert_str_eq(admin_route_method(ADMIN_R_CLOSE), "POST");
    ck_assert_str_eq(admin_route_method(ADMIN_R_SEAT_BOT), "POST");
    ck_assert_str_eq(admin_route_method(ADMIN_R_NOTICE), "POST");
    ck_assert_str_eq(admin_route_method(ADMIN_R_BACKUP), "POST");
    ck_assert_str_eq(admin_route_method(ADMIN_R_ACCOUNTS), "GET");
    ck_assert_str_eq(admin_route_method(ADMIN_R_ACCOUNT_RESET), "POST");
    ck_assert_str_eq(admin_route_method(ADMIN_R_INVITES), "POST");
}
END_TEST

START_TEST(account_paths)
{
    struct admin_path p;
    ck_assert_int_eq(admin_path_parse("/admin/accounts", &p), ADMIN_R_ACCOUNTS);
    ck_assert_int_eq(admin_path_parse("/admin/invites", &p), ADMIN_R_INVITES);
    ck_assert_int_eq(admin_path_parse("/admin/accounts/Ann_1/disable", &p),
                     ADMIN_R_ACCOUNT_DISABLE);
    ck_assert_str_eq(p.account, "Ann_1");
    ck_assert_int_eq(admin_path_parse("/admin/accounts/ann-2/enable", &p), ADMIN_R_ACCOUNT_ENABLE);
    ck_assert_str_eq(p.account, "ann-2");
    ck_assert_int_eq(admin_path_parse("/admin/accounts/a/reset", &p), ADMIN_R_ACCOUNT_RESET);
    ck_assert_str_eq(p.account, "a");
    /* 24 bytes is a name's most; longer is nobody's (""). */
    ck_assert_int_eq(admin_path_parse("/admin/accounts/abcdefghijklmnopqrstuvwx/reset", &p),
                     ADMIN_R_ACCOUNT_RESET);
    ck_assert_str_eq(p.account, "abcdefghijklmnopqrstuvwx");
    ck_assert_int_eq(admin_path_parse("/admin/accounts/abcdefghijklmnopqrstuvwxy/reset", &p),
                     ADMIN_R_ACCOUNT_RESET);
    ck_assert_str_eq(p.account, "");
    ck_assert_int_eq(admin_path_parse("/admin/accounts/" /* longer than the segment's buffer */
                                      "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
                                      "abcdefghijklmnopqrstuvwxyz/enable",
                                      &p),
                     ADMIN_R_ACCOUNT_ENABLE);
    ck_assert_str_eq(p.account, "");
}
END_TEST

START_TEST(token_compare)
{
    ck_assert(admin_bytes_equal("abc", "abc", 3));
    ck_assert(!admin_bytes_equal("abc", "abd", 3));
    ck_assert(!admin_bytes_equal("\x00zz", "\x01zz", 3));
    ck_assert(admin_bytes_equal("", "x", 0));
    ck_assert(admin_authorized("Bearer s3cret", "s3cret"));
    ck_assert(admin_authorized("bearer s3cret", "s3cret"));
    ck_assert(admin_authorized("BEARER   s3cret  ", "s3cret"));
    ck_assert(!admin_authorized("Bearer s3cre", "s3cret"));
    ck_assert(!admin_authorized("Bearer s3cretX", "s3cret"));
    ck_assert(!admin_authorized("Bearer S3cret", "s3cret"));
    ck_assert(!admin_authorized("Basic s3cret", "s3cret"));
    ck_assert(!admin_authorized("Bearers3cret", "s3cret"));
    ck_assert(!admin_authorized("s3cret", "s3cret"));
    ck_assert(!admin_authorized("Bearer ", "s3cret"));
    ck_assert(!admin_authorized(NULL, "s3cret"));
    /* No token configured: nothing is authorized, not even an empty one. */
    ck_assert(!admin_authorized("Bearer ", ""));
    ck_assert(!admin_authorized("Bearer x", ""));
    ck_assert(!admin_authorized("Bearer x", NULL));
}
END_TEST

static struct admin ad;

/* One admin request; the reply's status, its body in *body (freed by the next call). */
static int call(const char *method, const char *path, const char *auth, const char *text,
                char **body)
{
    static struct api_reply r;
    api_reply_free(&r);
    memset(&r, 0, sizeof r);
    struct api_request rq = {
        .method = method, .path = path, .authorization = auth, .text = text, .peer = "10.0.0.9"};
    admin_route(&ad, &rq, &r);
    if (body != NULL)
        *body = r.body != NULL ? strndup(r.body, r.len) : NULL;
    if (r.status == 401)
        ck_assert_str_eq(r.www_authenticate, "Bearer");
    else
        ck_assert_ptr_null(r.www_authenticate);
    return r.status;
}

#define AUTH "Bearer t0ken"

/* status and {"error": code} of one call. */
static void expect_refusal(const char *method, const char *path, const char *auth, int status,
                           const char *code)
{
    char *body;
    ck_assert_int_eq(call(method, path, auth, NULL, &body), status);
    ck_assert_msg(strcmp(jstr(body, "error"), code) == 0, "%s %s: %s", method, path, body);
    free(body);
}

START_TEST(refusals)
{
    admin_init(&ad, lb, NULL, "", ".");
    expect_refusal("GET", "/admin/rooms", AUTH, 403, "admin_disabled");
    expect_refusal("POST", "/admin/notice", NULL, 403, "admin_disabled");
    struct api_reply r;
    struct api_request rq = {.method = "GET", .path = "/admin/rooms", .authorization = AUTH};
    memset(&r, 0, sizeof r);
    admin_route(NULL, &rq, &r);
    ck_assert_int_eq(r.status, 403);
    api_reply_free(&r);

    admin_init(&ad, lb, NULL, "t0ken", ".");
    expect_refusal("GET", "/admin/rooms", NULL, 401, "unauthorized");
    expect_refusal("GET", "/admin/rooms", "Bearer t0ke", 401, "unauthorized");
    expect_refusal("GET", "/admin/nope", NULL, 401, "unauthorized"); /* before the route */
    expect_refusal("GET", "/admin/nope", AUTH, 404, "no_such_route");
    expect_refusal("POST", "/admin/rooms", AUTH, 405, "method_not_allowed");
    expect_refusal("GET", "/admin/notice", AUTH, 405, "method_not_allowed");
    expect_refusal("DELETE", "/admin/rooms/x", AUTH, 405, "method_not_allowed");
    expect_refusal("GET", "/admin/rooms/nosuch", AUTH, 404, "no_such_room");
    expect_refusal("POST", "/admin/rooms/nosuch/close", AUTH, 404, "no_such_room");
    expect_refusal("POST", "/admin/notice", AUTH, 400, "bad_text");
    char *body;
    ck_assert_int_eq(call("POST", "/admin/notice", AUTH, "bad \xff", &body), 400);
    free(body);
    char big[600];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ck_assert_int_eq(call("POST", "/admin/notice", AUTH, big, &body), 400);
    free(body);
    /* No storage: no backup. */
    expect_refusal("POST", "/admin/backup", AUTH, 503, "no_storage");
    /* ...nor accounts; the accounts' routes are refused as the others. */
    expect_refusal("GET", "/admin/accounts", AUTH, 503, "no_storage");
    expect_refusal("POST", "/admin/accounts/ann/reset", AUTH, 503, "no_storage");
    expect_refusal("POST", "/admin/invites", AUTH, 503, "no_storage");
    expect_refusal("POST", "/admin/accounts", AUTH, 405, "method_not_allowed");
    expect_refusal("GET", "/admin/invites", AUTH, 405, "method_not_allowed");
    expect_refusal("GET", "/admin/accounts/ann/enable", AUTH, 405, "method_not_allowed");
    expect_refusal("POST", "/admin/invites", "Bearer x", 401, "unauthorized");
    call("GET", "/admin/rooms", NULL, NULL, NULL);
}
END_TEST

START_TEST(rooms_and_actions)
{
    admin_init(&ad, lb, NULL, "t0ken", ".");
    struct fake *a, *b;
    struct room *r = two_player_game(&a, &b);
    struct fake *c = fake_new();
    struct room *lobby_room = create(c, "3");
    drain(a);
    drain(b);
    drain(c);
    char *body;
    ck_assert_int_eq(call("GET", "/admin/rooms", AUTH, NULL, &body), 200);
    ck_assert_int_eq(jint(body, "count"), 2);
    ck_assert_str_eq(jstr(body, "rooms.0.id"), r->id);
    ck_assert_str_eq(jstr(body, "rooms.0.phase"), "playing");
    ck_assert_str_eq(jstr(body, "rooms.1.phase"), "lobby");
    ck_assert_str_eq(jstr(body, "rooms.1.seats.0.name"), "Ann");
    ck_assert_int_eq(jint(body, "rooms.1.seats.2.seat"), 2);
    ck_assert(has(body, "rooms.0.seats.1.connected"));
    free(body);
    char path[96];
    snprintf(path, sizeof path, "/admin/rooms/%s", r->id);
    ck_assert_int_eq(call("GET", path, AUTH, NULL, &body), 200);
    ck_assert_str_eq(jstr(body, "state.type"), "state");
    ck_assert_int_eq(jint(body, "state.seq"), r->seq);
    ck_assert_str_eq(jstr(body, "room.id"), r->id);
    free(body);

    /* Bad seats, wrong phases. */
    snprintf(path, sizeof path, "/admin/rooms/%s/seats/2/bot", r->id);
    expect_refusal("POST", path, AUTH, 400, "bad_seat");
    snprintf(path, sizeof path, "/admin/rooms/%s/seats/x/free", r->id);
    expect_refusal("POST", path, AUTH, 400, "bad_seat");
    snprintf(path, sizeof path, "/admin/rooms/%s/seats/1/free", r->id);
    char *before = snapshot(r);
    expect_refusal("POST", path, AUTH, 409, "wrong_phase");
    assert_unchanged(r, before);
    snprintf(path, sizeof path, "/admin/rooms/%s/seats/1/free", lobby_room->id);
    expect_refusal("POST", path, AUTH, 409, "seat_empty");

    /* A notice reaches every connection. */
    ck_assert_int_eq(call("POST", "/admin/notice", AUTH, "restart in 5", &body), 200);
    ck_assert_int_eq(jint(body, "sent"), 3);
    free(body);
    ck_assert_str_eq(jstr(expect(a, "notice"), "text"), "restart in 5");
    expect(b, "notice");
    expect(c, "notice");

    /* The game's seat 1 goes to a bot for good: b is told `left`, a sees a delta. */
    snprintf(path, sizeof path, "/admin/rooms/%s/seats/1/bot", r->id);
    ck_assert_int_eq(call("POST", path, AUTH, NULL, NULL), 200);
    ck_assert_int_eq(r->seats[1].bot, 1 + CARC_BOT_GREEDY);
    ck_assert_ptr_null(r->seats[1].s);
    drain(b);
    ck_assert_str_eq(jstr(b->last, "type"), "left");
    ck_assert_int_ge(queued(a), 1);
    drain(a);
    expect_refusal("POST", path, AUTH, 409, "already_bot");
    /* b's token no longer resumes the seat. */
    say(b, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", r->id, b->token);
    expect_error(b, "bad_token");

    /* The lobby room's seat 1 gets a bot, then is freed again. */
    snprintf(path, sizeof path, "/admin/rooms/%s/seats/1/bot", lobby_room->id);
    ck_assert_int_eq(call("POST", path, AUTH, NULL, NULL), 200);
    ck_assert_int_eq(lobby_room->seats[1].bot, 1 + CARC_BOT_GREEDY);
    snprintf(path, sizeof path, "/admin/rooms/%s/seats/1/free", lobby_room->id);
    ck_assert_int_eq(call("POST", path, AUTH, NULL, NULL), 200);
    ck_assert_int_eq(lobby_room->seats[1].taken, 0);
    drain(c);
    /* Freeing the host, its last person: c is told `left`, the room is gone. */
    char id[PROTO_ROOM_MAX];
    snprintf(id, sizeof id, "%s", lobby_room->id);
    snprintf(path, sizeof path, "/admin/rooms/%s/seats/0/free", id);
    ck_assert_int_eq(call("POST", path, AUTH, NULL, NULL), 200);
    ck_assert_ptr_null(lobby_room_find(lb, id));
    drain(c);
    ck_assert_str_eq(jstr(c->last, "type"), "left");

    /* Close the game: a gets notice then left; the room is gone. */
    snprintf(id, sizeof id, "%s", r->id);
    snprintf(path, sizeof path, "/admin/rooms/%s/close", id);
    ck_assert_int_eq(call("POST", path, AUTH, NULL, NULL), 200);
    ck_assert_str_eq(jstr(expect(a, "notice"), "room"), id);
    expect(a, "left");
    ck_assert_ptr_null(lobby_room_find(lb, id));
    expect_refusal("POST", path, AUTH, 404, "no_such_room");
    call("GET", "/admin/rooms", NULL, NULL, NULL);
}
END_TEST

Suite *suite_admin(void)
{
    Suite *s = suite_create("admin");
    TCase *t = tcase_create("pure");
    tcase_add_test(t, route_parse);
    tcase_add_test(t, token_compare);
    tcase_add_test(t, account_paths);
    suite_add_tcase(s, t);
    t = tcase_with("routes", setup_default);
    tcase_add_test(t, refusals);
    tcase_add_test(t, rooms_and_actions);
    suite_add_tcase(s, t);
    return s;
}
