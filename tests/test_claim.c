/* test_claim.c: a guest's seats claimed by an account (POST /api/me/claim;
 * issue 27, item 3). Suite claim: the body's decoder and the answer's encoder
 * (protocol/claim_json.h: what is refused, that no token is echoed); on
 * SQLite in a scratch directory, the lobby's side (game/claim.h: a running
 * room's seat, its game linked once, bad token, already, taken, another seat
 * of the account, a room not here; the account stored with the room's next
 * batch and restored) and the store's side (store/accounts_claim.h: a closed
 * room's seat and its account_games row, already, taken, another seat, no
 * seat, a room still open left alone). Suite claim_pg: both sides again on a
 * real PostgreSQL (CARC_PG_URL, tests/pg.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claim_json.h"
#include "game/claim.h"
#include "game/lobby.h"
#include "game/room.h"
#include "sha256.h"
#include "store/accounts.h"
#include "store/accounts_claim.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/status.h"

#define TOKEN_A "0123456789abcdef0123456789abcdef"

/* ---- the body and the answer ---- */

static int decode(const char *text, struct proto_claim_body *b, struct proto_error *err)
{
    proto_error_init(err);
    return proto_claim_decode(text, strlen(text), b, err);
}

START_TEST(body_decoded)
{
    struct proto_claim_body b;
    struct proto_error err;
    ck_assert_int_eq(decode("{\"seats\":[{\"room\":\"Ab12\",\"token\":\"" TOKEN_A "\"},"
                            "{\"token\":\"" TOKEN_A "\",\"room\":\"Z\"}]}",
                            &b, &err),
                     0);
    ck_assert_int_eq(b.n, 2);
    ck_assert_str_eq(b.seats[0].room, "Ab12");
    ck_assert_str_eq(b.seats[0].token, TOKEN_A);
    ck_assert_str_eq(b.seats[1].room, "Z");
    /* 100 seats in a body over 4096 bytes */
    char *big = malloc(PROTO_CLAIM_BODY_MAX);
    size_t n = (size_t)snprintf(big, PROTO_CLAIM_BODY_MAX, "{\"seats\":[");
    for (int i = 0; i < PROTO_CLAIM_MAX; i++)
        n += (size_t)snprintf(big + n, PROTO_CLAIM_BODY_MAX - n,
                              "%s{\"room\":\"Room%04d\",\"token\":\"%032x\"}", i ? ", " : "", i, i);
    snprintf(big + n, PROTO_CLAIM_BODY_MAX - n, "]}");
    ck_assert_int_gt(strlen(big), 4096);
    ck_assert_int_eq(decode(big, &b, &err), 0);
    ck_assert_int_eq(b.n, PROTO_CLAIM_MAX);
    ck_assert_str_eq(b.seats[99].room, "Room0099");
    free(big);
}
END_TEST

START_TEST(body_refused)
{
    static const struct {
        const char *text, *field;
        int code;
    } bad[] = {
        {"[]", "", CARC_E_INVAL},
        {"{\"seats\":[", "", CARC_E_JSON},
        {"{}", "seats", CARC_E_INVAL},
        {"{\"seats\":[],\"x\":1}", "seats", CARC_E_INVAL},
        {"{\"seats\":[]}", "seats", CARC_E_INVAL},
        {"{\"seats\":{}}", "seats", CARC_E_INVAL},
        {"{\"seats\":[1]}", "seats[0]", CARC_E_INVAL},
        {"{\"seats\":[{\"room\":\"A\"}]}", "seats[0]", CARC_E_INVAL},
        {"{\"seats\":[{\"room\":\"A\",\"token\":\"" TOKEN_A "\",\"seat\":0}]}", "seats[0]",
         CARC_E_INVAL},
        {"{\"seats\":[{\"room\":\"A-b\",\"token\":\"" TOKEN_A "\"}]}", "seats[0].room",
         CARC_E_INVAL},
        {"{\"seats\":[{\"room\":\"\",\"token\":\"" TOKEN_A "\"}]}", "seats[0].room", CARC_E_INVAL},
        {"{\"seats\":[{\"room\":\"A12345678901234567\",\"token\":\"" TOKEN_A "\"}]}",
         "seats[0].room", CARC_E_INVAL},
        {"{\"seats\":[{\"room\":\"A\",\"token\":\"0123456789ABCDEF0123456789abcdef\"}]}",
         "seats[0].token", CARC_E_INVAL},
        {"{\"seats\":[{\"room\":\"A\",\"token\":\"0123\"}]}", "seats[0].token", CARC_E_INVAL},
        {"{\"seats\":[{\"room\":\"A\",\"token\":7}]}", "seats[0].token", CARC_E_INVAL},
        {"{\"seats\":[{\"room\":\"A\",\"token\":\"" TOKEN_A "\"},{\"room\":\"B\",\"room\":\"C\","
         "\"token\":\"" TOKEN_A "\"}]}",
         "", CARC_E_JSON},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct proto_claim_body b;
        struct proto_error err;
        ck_assert_msg(decode(bad[i].text, &b, &err) == bad[i].code, "%s: %d", bad[i].text,
                      err.code);
        ck_assert_msg(strcmp(err.field, bad[i].field) == 0, "%s: field %s", bad[i].text, err.field);
        ck_assert_ptr_null(strstr(err.text, "0123456789"));
        ck_assert_int_eq(b.n, 0); /* wiped */
    }
    /* 101 seats */
    char text[12000];
    size_t n = (size_t)snprintf(text, sizeof text, "{\"seats\":[");
    for (int i = 0; i <= PROTO_CLAIM_MAX; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"room\":\"R\",\"token\":\"%s\"}",
                              i ? "," : "", TOKEN_A);
    snprintf(text + n, sizeof text - n, "]}");
    struct proto_claim_body b;
    struct proto_error err;
    ck_assert_int_eq(decode(text, &b, &err), CARC_E_INVAL);
    ck_assert_str_eq(err.field, "seats");
}
END_TEST

START_TEST(answer_encoded)
{
    struct proto_claim_outcome o[] = {
        {"A", -1, "taken"}, {"B", 2, NULL}, {"C", -1, "elsewhere"}, {"D", 0, NULL}};
    char *text = proto_claim_answer_encode(o, 4);
    ck_assert_str_eq(text, "{\"claimed\":[{\"room\":\"B\",\"seat\":2},{\"room\":\"D\",\"seat\":0}],"
                           "\"skipped\":[{\"room\":\"A\",\"reason\":\"taken\"},"
                           "{\"room\":\"C\",\"reason\":\"elsewhere\"}]}");
    free(text);
    text = proto_claim_answer_encode(o, 0);
    ck_assert_str_eq(text, "{\"claimed\":[],\"skipped\":[]}");
    free(text);
}
END_TEST

/* ---- the lobby's side ---- */

struct links {
    int n;
    char room[PROTO_ROOM_MAX];
    int seat;
    long long account;
};

static void on_link(void *arg, const char *room, int seat, long long account, long long time_ms)
{
    struct links *l = arg;
    (void)time_ms;
    l->n++;
    snprintf(l->room, sizeof l->room, "%s", room);
    l->seat = seat;
    l->account = account;
}

/* A started game of the guests Ann (a) and Bob (b); its room. */
static struct room *guests_game(struct fake **pa, struct fake **pb)
{
    ck_assert_int_eq(lobby_test_game(su_lb, 7, NULL, 0), 0);
    struct fake *a = su_fake_new(), *b = su_fake_new();
    struct room *r = su_create(a, "3");
    su_join(b, a->room, "Bob", "");
    su_say(a, "\"type\":\"start\"");
    su_commit();
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    *pa = a;
    *pb = b;
    return r;
}

START_TEST(lobby_seat_claimed)
{
    world_open();
    struct links l = {0};
    su_lb->account_game = on_link;
    su_lb->account_game_arg = &l;
    struct fake *a, *b;
    struct room *r = guests_game(&a, &b);
    char room[PROTO_ROOM_MAX];
    memcpy(room, r->id, sizeof room);
    int seat;
    ck_assert_int_eq(lobby_seat_claim(su_lb, "NoSuchRoom", a->token, 5, &seat), LOBBY_CLAIM_AWAY);
    ck_assert_int_eq(lobby_seat_claim(su_lb, room, TOKEN_A, 5, &seat), LOBBY_CLAIM_BAD_TOKEN);
    ck_assert_int_eq(seat, -1);
    ck_assert_int_eq(l.n, 0);
    ck_assert_int_eq(lobby_seat_claim(su_lb, room, a->token, 5, &seat), LOBBY_CLAIM_DONE);
    ck_assert_int_eq(seat, a->s.seat);
    ck_assert_int_eq(r->seats[seat].account, 5);
    ck_assert_int_eq(r->dirty, 1);
    ck_assert_int_eq(l.n, 1);
    ck_assert_str_eq(l.room, room);
    ck_assert_int_eq(l.seat, seat);
    ck_assert_int_eq(l.account, 5);
    ck_assert_int_eq(lobby_seat_claim(su_lb, room, a->token, 5, &seat), LOBBY_CLAIM_ALREADY);
    ck_assert_int_eq(lobby_seat_claim(su_lb, room, a->token, 6, &seat), LOBBY_CLAIM_TAKEN);
    ck_assert_int_eq(r->seats[a->s.seat].account, 5);
    /* account 5 holds a seat of the room already: not Bob's too */
    ck_assert_int_eq(lobby_seat_claim(su_lb, room, b->token, 5, &seat), LOBBY_CLAIM_OTHER_SEAT);
    ck_assert_int_eq(seat, -1);
    ck_assert_int_eq(r->seats[b->s.seat].account, 0);
    ck_assert_int_eq(l.n, 1);
    int mine = a->s.seat;
    su_commit();
    world_close();
    /* stored with the room: restored as the account's */
    world_open();
    r = lobby_room_find(su_lb, room);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->seats[mine].account, 5);
    ck_assert_int_eq(r->seats[1 - mine].account, 0);
    world_close();
}
END_TEST

START_TEST(lobby_room_in_its_lobby)
{
    world_open();
    struct links l = {0};
    su_lb->account_game = on_link;
    su_lb->account_game_arg = &l;
    struct fake *a = su_fake_new();
    struct room *r = su_create(a, "2");
    int seat;
    ck_assert_int_eq(lobby_seat_claim(su_lb, r->id, a->token, 5, &seat), LOBBY_CLAIM_DONE);
    ck_assert_int_eq(l.n, 0); /* no game yet */
    struct fake *b = su_fake_new();
    su_join(b, a->room, "Bob", "");
    su_say(a, "\"type\":\"start\"");
    su_commit();
    ck_assert_int_eq(l.n, 1); /* at its start, as any account's seat */
    ck_assert_int_eq(l.account, 5);
    ck_assert_int_eq(l.seat, a->s.seat);
    world_close();
}
END_TEST

/* ---- the store's side ---- */

static struct store_accounts *accounts_open(void)
{
    char err[512];
    struct store_accounts *ac = store_accounts_open(su_st, err, sizeof err);
    ck_assert_msg(ac != NULL, "%s", err);
    return ac;
}

static void hash_of(const char *token, char out[SHA256_HEX])
{
    sha256_hex(token, out);
}

static int games_of(struct store_accounts *ac, long long account, struct store_account_game *g)
{
    int n = 0;
    ck_assert_int_eq(store_account_games_read(ac, account, 0, 4, g, &n), 0);
    return n;
}

START_TEST(stored_seat_claimed)
{
    world_open();
    struct fake *a, *b;
    struct room *r = guests_game(&a, &b);
    char room[PROTO_ROOM_MAX], ha[SHA256_HEX], hb[SHA256_HEX], hx[SHA256_HEX];
    memcpy(room, r->id, sizeof room);
    int sa = a->s.seat, sb = b->s.seat;
    hash_of(a->token, ha);
    hash_of(b->token, hb);
    hash_of(TOKEN_A, hx);
    su_commit();
    struct store_accounts *ac = accounts_open();
    int o, seat;
    /* open: the node holding the room writes its seats */
    ck_assert_int_eq(store_seat_claim(ac, room, ha, 5, &o, &seat), 0);
    ck_assert_int_eq(o, STORE_CLAIM_OPEN);
    lobby_room_close(su_lb, r, "admin", "closed");
    su_commit();
    ck_assert_int_eq(store_seat_claim(ac, room, hx, 5, &o, &seat), 0);
    ck_assert_int_eq(o, STORE_CLAIM_NO_SEAT);
    ck_assert_int_eq(store_seat_claim(ac, "Other", ha, 5, &o, &seat), 0);
    ck_assert_int_eq(o, STORE_CLAIM_NO_SEAT);
    ck_assert_int_eq(store_seat_claim(ac, room, "short", 5, &o, &seat), STORE_E_ARGS);
    struct store_account_game g[4];
    ck_assert_int_eq(games_of(ac, 5, g), 0);
    /* claimed, with its game */
    ck_assert_int_eq(store_seat_claim(ac, room, ha, 5, &o, &seat), 0);
    ck_assert_int_eq(o, STORE_CLAIM_DONE);
    ck_assert_int_eq(seat, sa);
    ck_assert_int_eq(games_of(ac, 5, g), 1);
    ck_assert_str_eq(g[0].game, room);
    ck_assert_int_eq(g[0].seat, sa);
    ck_assert_int_eq(store_seat_claim(ac, room, ha, 5, &o, &seat), 0);
    ck_assert_int_eq(o, STORE_CLAIM_ALREADY);
    ck_assert_int_eq(store_seat_claim(ac, room, ha, 6, &o, &seat), 0);
    ck_assert_int_eq(o, STORE_CLAIM_TAKEN);
    ck_assert_int_eq(seat, sa);
    ck_assert_int_eq(games_of(ac, 6, g), 0);
    ck_assert_int_eq(store_seat_claim(ac, room, hb, 5, &o, &seat), 0);
    ck_assert_int_eq(o, STORE_CLAIM_OTHER_SEAT);
    ck_assert_int_eq(games_of(ac, 5, g), 1);
    ck_assert_int_eq(store_seat_claim(ac, room, hb, 6, &o, &seat), 0);
    ck_assert_int_eq(o, STORE_CLAIM_DONE);
    ck_assert_int_eq(seat, sb);
    ck_assert_int_eq(games_of(ac, 6, g), 1);
    store_accounts_close(ac);
    world_close();
}
END_TEST

static void claim_tests_add(TCase *tc)
{
    tcase_add_test(tc, lobby_seat_claimed);
    tcase_add_test(tc, lobby_room_in_its_lobby);
    tcase_add_test(tc, stored_seat_claimed);
}

Suite *suite_claim(void)
{
    Suite *s = suite_create("claim");
    TCase *tc = tcase_create("claim_json");
    tcase_add_test(tc, body_decoded);
    tcase_add_test(tc, body_refused);
    tcase_add_test(tc, answer_encoded);
    suite_add_tcase(s, tc);
    tc = tcase_create("claim_sqlite");
    tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
    claim_tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}

/* The same on a real PostgreSQL (make test runs it under tests/pg.sh). */
Suite *suite_claim_pg(void)
{
    Suite *s = suite_create("claim_pg");
    if (getenv("CARC_PG_URL") == NULL)
        return s;
    TCase *tc = tcase_create("claim_pg");
    tcase_add_checked_fixture(tc, pg_setup, pg_teardown);
    tcase_set_timeout(tc, 30);
    claim_tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
