/* test_out_of_time.c: a seat whose clock ran out under on_timeout "bot" in a
 * room without increment (server/game/turn.c out_of_time): a bot plays it for
 * the rest of the game without a timeout event every turn, its own moves are
 * refused with time_out, and `resume` ("Take my seat back") gives it
 * TURN_BACK_S seconds (the initial time when less), after which it plays
 * again. Before, the seat timed out at once on every turn: its player was
 * locked out for good and nothing said so. Driven without sockets
 * (room_util.h), the bots in manual mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/bots.h"
#include "game/turn.h"
#include "room_util.h"
#include "tests.h"

static struct bots *bots;

static void no_pace(struct lobby_limits *l)
{
    l->bot_pace = 0;
}

static void setup_bots(void)
{
    setup_with(no_pace);
    bots = bots_new(NULL, 1, 0);
    lobby_bots_set(lb, bots);
}

static void teardown_bots(void)
{
    teardown();
    bots_free(bots);
    bots = NULL;
}

/* Time passes by ms, in clock ticks of 100 ms. */
static void advance(uint64_t ms)
{
    for (uint64_t t = 0; t < ms; t += 100) {
        now += 100;
        lobby_clock_tick(lb, now);
    }
}

/* Run the bots until the seat to move is a person's (or the game ends). */
static void bots_play(void)
{
    for (int guard = 0; guard < 400 && bots_pending(bots) > 0; guard++) {
        bots_run_pending(bots, now);
        lobby_clock_tick(lb, now);
    }
}

static void play_first_legal(struct fake *f)
{
    drain(f);
    struct proto_client_legal l[1];
    ck_assert_int_gt(proto_client_legal(f->doc, l, 1), 0);
    say(f, "\"type\":\"play\",\"id\":9,\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
        carc_tiles[proto_client_tile(f->doc)].id, l[0].x, l[0].y, l[0].rot * 90);
}

/* Counts the timeout events among the messages queued for f. */
static int timeouts_seen(struct fake *f)
{
    int n = 0;
    while (queued(f) > 0) {
        const char *m = pop(f);
        for (int k = 0; k < 4; k++) {
            char path[32];
            snprintf(path, sizeof path, "events.%d.type", k);
            if (has(m, path) && strcmp(jstr(m, path), "timeout") == 0)
                n++;
        }
    }
    return n;
}

static struct room *game(int initial, struct fake **pa, struct fake **pb)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new();
    char extra[160];
    snprintf(extra, sizeof extra,
             "2, \"clock\": {\"initial\": %d, \"increment\": 0, \"on_timeout\": \"bot\"}", initial);
    struct room *r = create(a, extra);
    join(b, a->room, "Bob");
    say(a, "\"type\":\"start\"");
    drain(a);
    drain(b);
    ck_assert_int_eq(r->game->current, 0);
    *pa = a;
    *pb = b;
    return r;
}

START_TEST(out_of_time_then_taken_back)
{
    struct fake *a, *b;
    struct room *r = game(2, &a, &b);
    char token[PROTO_TOKEN_MAX];
    memcpy(token, a->token, sizeof token);
    advance(2100);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_TIMEOUT);
    ck_assert_int_eq(timeouts_seen(b), 1);
    bots_play();
    ck_assert_int_eq(r->game->current, 1);
    /* No time will come back: the bot keeps the seat, and says so once. */
    ck_assert_int_eq(r->seats[0].clock_ms, 0);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_TIMEOUT);
    play_first_legal(b);
    ck_assert_int_eq(r->game->current, 0);
    /* Its player's own move is refused while the bot has the seat. */
    play_first_legal(a);
    expect_error(a, "time_out");
    advance(300);
    bots_play();
    ck_assert_int_eq(r->game->current, 1);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_TIMEOUT);
    ck_assert_int_eq(timeouts_seen(b), 0);
    /* Take my seat back: resume gives it the seat and the initial 2 s (under TURN_BACK_S). */
    struct fake *c = fake_new();
    say(c, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", a->room, token);
    expect(c, "joined");
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE);
    ck_assert_int_eq(r->seats[0].clock_ms, 2000);
    drain(c);
    play_first_legal(b);
    ck_assert_int_eq(r->game->current, 0);
    play_first_legal(c);
    expect(c, "delta");
    ck_assert_int_eq(r->game->current, 1);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE);
}
END_TEST

/* Taken back on its own turn: the bot stops, the time runs from now. */
START_TEST(taken_back_on_its_turn)
{
    struct fake *a, *b;
    struct room *r = game(120, &a, &b);
    char token[PROTO_TOKEN_MAX];
    memcpy(token, a->token, sizeof token);
    advance(120100);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_TIMEOUT);
    ck_assert_int_eq(r->game->current, 0); /* the bot has not played yet */
    struct fake *c = fake_new();
    say(c, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", a->room, token);
    expect(c, "joined");
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE);
    ck_assert_int_eq(bots_pending(bots), 0);
    advance(30000);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE); /* 60 s from the take-back */
    play_first_legal(c);
    expect(c, "delta");
    ck_assert_int_eq(r->game->current, 1);
    ck_assert_int_ge(r->seats[0].clock_ms, 29000);
}
END_TEST

Suite *suite_out_of_time(void)
{
    Suite *s = suite_create("out_of_time");
    TCase *tc = tcase_create("bot");
    tcase_add_checked_fixture(tc, setup_bots, teardown_bots);
    tcase_add_test(tc, out_of_time_then_taken_back);
    tcase_add_test(tc, taken_back_on_its_turn);
    suite_add_tcase(s, tc);
    return s;
}
