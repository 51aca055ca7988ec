/* test_seat_account.c: seats of accounts (issue 27; server/game/room_order.c,
 * lobby_cmd.c) through the fake clients of room_util.h: a session signed in
 * (its account set as the transport sets it, net/net_account.c) takes a seat
 * that belongs to its account, under the account's name; the lobby reports
 * the seats of accounts when the game starts; `resume` without a token takes
 * the seat of the connection's account, and a guest's gets bad_token. Rated
 * rooms: refused without accounts or a clock, not for a guest, their end
 * handed to the rated_game hook, and their takeover rules (turn.c): `leave`
 * forfeits, no pause, a seat out of time for good keeps its bot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/turn.h"
#include "room_util.h"
#include "tests.h"

static void sign_in(struct fake *f, long long account, const char *name)
{
    f->s.account = account;
    snprintf(f->s.account_name, sizeof f->s.account_name, "%s", name);
}

/* The lobby's account_game hook, recorded. */
static struct {
    int n;
    char room[PROTO_ROOM_MAX];
    int seat[CARC_MAX_PLAYERS];
    long long account[CARC_MAX_PLAYERS], time_ms[CARC_MAX_PLAYERS];
} links;

static void on_account_game(void *arg, const char *room, int seat, long long account,
                            long long time_ms)
{
    ck_assert_ptr_eq(arg, &links);
    snprintf(links.room, sizeof links.room, "%s", room);
    ck_assert_int_lt(links.n, CARC_MAX_PLAYERS);
    links.seat[links.n] = seat;
    links.account[links.n] = account;
    links.time_ms[links.n++] = time_ms;
}

/* ann (account 7) hosts, bob (account 8) joins under another name, a guest
 * joins as "Cy": the seats' names and accounts, in the room and its state. */
static struct room *three_seats(struct fake **pa, struct fake **pb, struct fake **pc)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new(), *c = fake_new();
    sign_in(a, 7, "ann");
    sign_in(b, 8, "bob");
    struct room *r = create(a, "4"); /* its name "Ann" is ignored */
    ck_assert_str_eq(r->seats[0].name, "ann");
    ck_assert_int_eq(r->seats[0].account, 7);
    join(b, a->room, "Zed");
    expect(a, "delta");
    ck_assert_str_eq(r->seats[1].name, "bob");
    ck_assert_int_eq(r->seats[1].account, 8);
    join(c, a->room, "Cy");
    expect(a, "delta");
    expect(b, "delta");
    ck_assert_str_eq(r->seats[2].name, "Cy");
    ck_assert_int_eq(r->seats[2].account, 0);
    struct proto_client_seat st;
    ck_assert_int_eq(proto_client_seat_get(c->doc, 1, &st), 0);
    ck_assert_str_eq(st.name, "bob");
    *pa = a;
    *pb = b;
    *pc = c;
    return r;
}

START_TEST(seats_belong_to_accounts)
{
    struct fake *a, *b, *c;
    struct room *r = three_seats(&a, &b, &c);
    /* A signed-in join whose account's name is a seat's already: name_taken. */
    struct fake *d = fake_new();
    sign_in(d, 9, "Cy");
    say(d, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Dee\"", a->room);
    expect_error(d, "name_taken");
    /* The start tells the hook of the two seats of accounts, not the guest's. */
    memset(&links, 0, sizeof links);
    lb->account_game = on_account_game;
    lb->account_game_arg = &links;
    say(a, "\"type\":\"start\"");
    expect(a, "delta");
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    ck_assert_int_eq(links.n, 2);
    ck_assert_str_eq(links.room, r->id);
    ck_assert_int_eq(links.seat[0], 0);
    ck_assert_int_eq(links.account[0], 7);
    ck_assert_int_eq(links.seat[1], 1);
    ck_assert_int_eq(links.account[1], 8);
    ck_assert_int_gt(links.time_ms[0], 1700000000000LL);
}
END_TEST

START_TEST(resume_by_account)
{
    struct fake *a, *b, *c;
    struct room *r = three_seats(&a, &b, &c);
    say(a, "\"type\":\"start\"");
    expect(a, "delta");
    drain(b);
    drain(c);
    /* bob on a second device, no token: his seat, taken over from b. */
    struct fake *b2 = fake_new();
    sign_in(b2, 8, "bob");
    say(b2, "\"type\":\"resume\",\"id\":5,\"room\":\"%s\"", a->room);
    const char *j = expect(b2, "joined");
    ck_assert(!has(j, "token"));
    ck_assert_int_eq(jint(j, "seat"), 1);
    ck_assert_int_eq(jint(j, "ref"), 5);
    ck_assert_int_eq(jint(expect(b2, "state"), "seq"), r->seq);
    ck_assert_ptr_eq(r->seats[1].s, &b2->s);
    ck_assert_int_eq(b->closes, 1);
    ck_assert_int_eq(b->s.close_code, SESSION_CLOSE_TAKEOVER);
    ck_assert_ptr_null(b->s.room);
    /* the token still resumes it too */
    struct fake *b3 = fake_new();
    say(b3, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", a->room, b->token);
    ck_assert_int_eq(jint(expect(b3, "joined"), "seat"), 1);
    /* A guest without a token, an account without a seat here: bad_token. */
    struct fake *g = fake_new();
    say(g, "\"type\":\"resume\",\"room\":\"%s\"", a->room);
    expect_error(g, "bad_token");
    struct fake *e = fake_new();
    sign_in(e, 10, "eve");
    say(e, "\"type\":\"resume\",\"room\":\"%s\"", a->room);
    expect_error(e, "bad_token");
    ck_assert_ptr_null(e->s.room);
    /* The guest's seat is not an account's: a signed-in stranger cannot take it. */
    ck_assert_int_eq(room_account_seat(r, 0), -1);
    ck_assert_int_eq(room_account_seat(r, 7), 0);
}
END_TEST

/* A rated room's clock (a rated room needs one). */
#define CLOCK "\"clock\":{\"initial\":600,\"increment\":0,\"on_timeout\":\"bot\"}"

/* The lobby's rated_game hook, recorded. */
static struct {
    int calls;
    struct lobby_rated_game g;
} rated;

static void on_rated_game(void *arg, const struct lobby_rated_game *g)
{
    ck_assert_ptr_eq(arg, &rated);
    rated.calls++;
    rated.g = *g;
}

/* Rated rooms (PROTOCOL.md "Ratings"): refused without the hook (no
 * accounts); a guest may neither create one nor join one (sign_in_required);
 * the state and the list say rated; the game's end hands the hook its
 * players' accounts and scores, once; an unrated game calls nothing. */
START_TEST(rated_rooms)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new(), *g = fake_new();
    sign_in(a, 7, "ann");
    sign_in(b, 8, "bob");
    say(a, "\"type\":\"create\",\"name\":\"Ann\",\"seats\":2,\"rated\":true,%s", CLOCK);
    expect_error(a, "bad_request");
    memset(&rated, 0, sizeof rated);
    lb->rated_game = on_rated_game;
    lb->rated_game_arg = &rated;
    say(g, "\"type\":\"create\",\"name\":\"Gus\",\"seats\":2,\"rated\":true,%s", CLOCK);
    expect_error(g, "sign_in_required");
    ck_assert_ptr_null(g->s.room);
    /* A rated room needs a clock: refused without one, nothing created. */
    int rooms = lb->nrooms;
    say(a, "\"type\":\"create\",\"name\":\"Ann\",\"seats\":2,\"rated\":true");
    ck_assert_ptr_nonnull(strstr(jstr(expect_error(a, "bad_request"), "message"), "needs a clock"));
    ck_assert_ptr_null(a->s.room);
    ck_assert_int_eq(lb->nrooms, rooms);
    struct room *r = create(a, "2,\"rated\":true," CLOCK);
    ck_assert_int_eq(r->rated, 1);
    char *st = proto_state_encode(r->state, r->seq, "");
    ck_assert_ptr_nonnull(strstr(st, "\"rated\":true"));
    free(st);
    say(g, "\"type\":\"list\"");
    ck_assert_str_eq(jdump(expect(g, "rooms"), "rooms.0.rated"), "true");
    say(g, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Gus\"", a->room);
    expect_error(g, "sign_in_required");
    join(b, a->room, "Bob");
    expect(a, "delta");
    say(a, "\"type\":\"start\"");
    while (r->phase == PROTO_PHASE_PLAYING) {
        drain(a);
        drain(b);
        struct fake *p = r->game->current == 0 ? a : b;
        ck_assert_int_eq(rated.calls, 0);
        struct proto_client_legal legal[1];
        ck_assert_int_gt(proto_client_legal(p->doc, legal, 1), 0);
        say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
            carc_tiles[proto_client_tile(p->doc)].id, legal[0].x, legal[0].y, legal[0].rot * 90);
    }
    ck_assert_int_eq(rated.calls, 1);
    ck_assert_str_eq(rated.g.room, r->id);
    ck_assert_int_eq(rated.g.n, 2);
    ck_assert_int_eq(rated.g.p[0].account, 7);
    ck_assert_int_eq(rated.g.p[1].account, 8);
    ck_assert_int_eq(rated.g.p[0].bot, 0);
    ck_assert_int_eq(rated.g.p[0].score, r->game->players[0].score);
    ck_assert_int_eq(rated.g.p[1].score, r->game->players[1].score);
    ck_assert_int_gt(rated.g.time_ms, 1700000000000LL);
    /* An unrated game ends without a call. */
    struct fake *c = fake_new(), *d = fake_new();
    sign_in(c, 9, "cy");
    struct room *u = create(c, "2");
    ck_assert_int_eq(u->rated, 0);
    st = proto_state_encode(u->state, u->seq, "");
    ck_assert_ptr_null(strstr(st, "rated"));
    free(st);
    join(d, c->room, "Dee");
    say(c, "\"type\":\"start\"");
    while (u->phase == PROTO_PHASE_PLAYING) {
        drain(c);
        drain(d);
        struct fake *p = u->game->current == 0 ? c : d;
        struct proto_client_legal legal[1];
        ck_assert_int_gt(proto_client_legal(p->doc, legal, 1), 0);
        say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
            carc_tiles[proto_client_tile(p->doc)].id, legal[0].x, legal[0].y, legal[0].rot * 90);
    }
    ck_assert_int_eq(rated.calls, 1);
}
END_TEST

/* A rated game closed before its end (the admin's close; abandoned rooms
 * likewise never reach their last move) rates nobody. */
START_TEST(rated_game_closed_rates_nobody)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    memset(&rated, 0, sizeof rated);
    lb->rated_game = on_rated_game;
    lb->rated_game_arg = &rated;
    struct fake *a = fake_new(), *b = fake_new();
    sign_in(a, 7, "ann");
    sign_in(b, 8, "bob");
    struct room *r = create(a, "2,\"rated\":true," CLOCK);
    join(b, a->room, "Bob");
    say(a, "\"type\":\"start\"");
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    drain(a);
    drain(b);
    struct fake *p = r->game->current == 0 ? a : b;
    struct proto_client_legal legal[1];
    ck_assert_int_gt(proto_client_legal(p->doc, legal, 1), 0);
    say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
        carc_tiles[proto_client_tile(p->doc)].id, legal[0].x, legal[0].y, legal[0].rot * 90);
    lobby_room_close(lb, r, "admin", "closed");
    ck_assert_ptr_null(lobby_room_find(lb, a->room));
    ck_assert_int_eq(rated.calls, 0);
}
END_TEST

/* The takeover rules of a rated room (PROTOCOL.md "Ratings"): `leave`
 * during the game forfeits the seat (autoplay forfeit, for good: a resume
 * does not take it back); the game never pauses with nobody connected; a
 * seat out of time for good keeps its bot when its player comes back. */
START_TEST(rated_takeover_rules)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    lb->rated_game = on_rated_game;
    lb->rated_game_arg = &rated;
    struct fake *a = fake_new(), *b = fake_new();
    sign_in(a, 7, "ann");
    sign_in(b, 8, "bob");
    struct room *r = create(a, "2,\"rated\":true," CLOCK);
    join(b, a->room, "Bob");
    say(a, "\"type\":\"start\"");
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    drain(a);
    drain(b);
    say(b, "\"type\":\"leave\"");
    expect(b, "left");
    ck_assert_int_eq(r->seats[1].forfeited, 1);
    ck_assert_int_eq(r->seats[1].autoplay, PROTO_AUTO_FORFEIT);
    int told = 0; /* Bob's seat goes offline, then its autoplay turns forfeit */
    for (const char *m; (m = pop(a)) != NULL;)
        told += strstr(m, "\"autoplay\"") != NULL && strstr(m, "\"forfeit\"") != NULL;
    ck_assert_int_eq(told, 1);
    say(b, "\"type\":\"resume\",\"room\":\"%s\"", a->room);
    expect(b, "joined");
    ck_assert_int_eq(r->seats[1].forfeited, 1);
    ck_assert_int_eq(r->seats[1].autoplay, PROTO_AUTO_FORFEIT);
    /* Nobody connected, long past any grace: it goes on. */
    r->alone_grace_ms = 1000;
    ck_assert_int_eq(turn_alone(r, 0, 1000), TURN_GOES_ON);
    ck_assert_int_eq(turn_alone(r, 0, 900000), TURN_GOES_ON);
    ck_assert_uint_eq(r->paused_ms, 0);
    /* Ann out of time for good (on_timeout bot, no increment): back, she
     * watches her bot play on; unrated she would get TURN_BACK_S. */
    r->seats[0].autoplay = PROTO_AUTO_TIMEOUT;
    r->seats[0].clock_ms = 0;
    struct turn_outcome o;
    turn_seat_back(r, 0, now, &o);
    ck_assert_int_eq(o.act, TURN_NONE);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_TIMEOUT);
    ck_assert_int_eq(r->seats[0].clock_ms, 0);
    r->rated = 0;
    turn_seat_back(r, 0, now, &o);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE);
    ck_assert_int_gt(r->seats[0].clock_ms, 0);
}
END_TEST

Suite *suite_seat_account(void)
{
    Suite *s = suite_create("seat_account");
    TCase *tc = tcase_with("seats of accounts", setup_default);
    tcase_add_test(tc, seats_belong_to_accounts);
    tcase_add_test(tc, resume_by_account);
    tcase_add_test(tc, rated_rooms);
    tcase_add_test(tc, rated_game_closed_rates_nobody);
    tcase_add_test(tc, rated_takeover_rules);
    suite_add_tcase(s, tc);
    return s;
}
