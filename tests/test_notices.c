/* test_notices.c: the lobby's notice hook (game/lobby.c room_notice, room_turn.c
 * room__turn_to and room__time_check; PROTOCOL.md "Notifications") through the
 * fake clients of room_util.h: a signed-in player with no connection to the
 * room hears that the turn came to them (once a turn), that their clock is
 * down to a quarter (once a turn, a turn of 20 minutes or more), and that the
 * game ended (with their rank); a connected player, a guest, a bot, a short
 * turn's clock and a seat a bot plays for its clock hear nothing else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/bots.h"
#include "game/turn.h"
#include "room_util.h"
#include "tests.h"

static struct {
    int n;
    struct lobby_notice got[64];
} heard;

static void on_notice(void *arg, const struct lobby_notice *t)
{
    ck_assert_ptr_eq(arg, &heard);
    ck_assert_int_lt(heard.n, 64);
    heard.got[heard.n++] = *t;
}

static int count(int kind, long long account)
{
    int k = 0;
    for (int i = 0; i < heard.n; i++)
        k += heard.got[i].kind == kind && heard.got[i].account == account;
    return k;
}

static const struct lobby_notice *last(int kind)
{
    for (int i = heard.n - 1; i >= 0; i--)
        if (heard.got[i].kind == kind)
            return &heard.got[i];
    return NULL;
}

static struct bots *bots;

static void no_pace(struct lobby_limits *l)
{
    l->bot_pace = 0;
    l->takeover_grace = 100000; /* no offline takeover within a test */
}

static void setup_notices(void)
{
    setup_with(no_pace);
    bots = bots_new(NULL, 1, 0);
    lobby_bots_set(lb, bots);
    memset(&heard, 0, sizeof heard);
    lb->notice = on_notice;
    lb->notice_arg = &heard;
}

static void teardown_notices(void)
{
    teardown();
    bots_free(bots);
    bots = NULL;
}

static void sign_in(struct fake *f, long long account, const char *name)
{
    f->s.account = account;
    snprintf(f->s.account_name, sizeof f->s.account_name, "%s", name);
}

static void advance(uint64_t ms)
{
    for (uint64_t t = 0; t < ms; t += 100) {
        now += 100;
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

static void bots_play(void)
{
    for (int guard = 0; guard < 400 && bots_pending(bots) > 0; guard++) {
        bots_run_pending(bots, now);
        lobby_clock_tick(lb, now);
    }
}

/* ann (7) and bob (8), signed in, in a started game with a clock of 20 minutes. */
static struct room *game(struct fake **pa, struct fake **pb)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new();
    sign_in(a, 7, "Ann");
    sign_in(b, 8, "Bob");
    struct room *r =
        create(a, "2, \"clock\": {\"initial\": 1200, \"increment\": 0, \"on_timeout\": \"bot\"}");
    join(b, a->room, "Bob");
    say(a, "\"type\":\"start\"");
    drain(a);
    drain(b);
    ck_assert_int_eq(r->game->current, 0);
    *pa = a;
    *pb = b;
    return r;
}

START_TEST(turn_and_low_time_to_the_absent)
{
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    ck_assert_int_eq(heard.n, 0); /* ann is there at the start */
    fake_free(b);                 /* bob closes his tab */
    play_first_legal(a);
    ck_assert_int_eq(r->game->current, 1);
    ck_assert_int_eq(count(ROOM_NOTICE_TURN, 8), 1);
    const struct lobby_notice *t = last(ROOM_NOTICE_TURN);
    ck_assert_str_eq(t->room, r->id);
    ck_assert_int_eq(t->seat, 1);
    ck_assert_int_eq(t->n, 2);
    ck_assert_str_eq(t->names[0], "Ann");
    ck_assert_str_eq(t->names[1], "Bob");
    ck_assert_int_gt(t->deadline, 0); /* about 20 minutes from the wall clock's now */
    /* A quarter of 20 minutes left: told once. */
    advance(14 * 60 * 1000);
    ck_assert_int_eq(count(ROOM_NOTICE_LOW, 8), 0);
    advance(60 * 1000 + 200);
    ck_assert_int_eq(count(ROOM_NOTICE_LOW, 8), 1);
    advance(60 * 1000);
    ck_assert_int_eq(count(ROOM_NOTICE_LOW, 8), 1);
    /* Out of time: a bot plays bob's seat, nothing more about turns for him. */
    advance(4 * 60 * 1000);
    ck_assert_int_eq(r->seats[1].autoplay, PROTO_AUTO_TIMEOUT);
    bots_play();
    ck_assert_int_eq(count(ROOM_NOTICE_TURN, 8), 1);
    ck_assert_int_eq(count(ROOM_NOTICE_TURN, 7), 0); /* ann is there */
    ck_assert_int_eq(count(ROOM_NOTICE_LOW, 7), 0);
}
END_TEST

START_TEST(game_over_with_the_rank)
{
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    fake_free(b);
    /* ann plays every turn, bob's clock runs out and a bot ends his part. */
    for (int guard = 0; guard < 200 && r->phase == PROTO_PHASE_PLAYING; guard++) {
        if (r->game->current == 0) {
            play_first_legal(a);
        } else {
            advance(r->seats[1].autoplay == PROTO_AUTO_NONE ? 20 * 60 * 1000 + 200 : 100);
            bots_play();
        }
    }
    ck_assert_int_eq(r->phase, PROTO_PHASE_OVER);
    ck_assert_int_eq(count(ROOM_NOTICE_OVER, 8), 1);
    ck_assert_int_eq(count(ROOM_NOTICE_OVER, 7), 0); /* ann saw it end */
    const struct lobby_notice *o = last(ROOM_NOTICE_OVER);
    ck_assert_int_eq(o->seat, 1);
    int sa = r->game->players[0].score, sb = r->game->players[1].score;
    ck_assert_int_eq(o->scores[0], sa);
    ck_assert_int_eq(o->scores[1], sb);
    ck_assert_int_eq(o->rank, sb >= sa ? 1 : 2);
}
END_TEST

/* The host of a finished game offers a rematch: the other player, not
 * there, hears of it with the new room; the host does not. */
START_TEST(rematch_to_the_absent)
{
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    fake_free(b);
    for (int guard = 0; guard < 200 && r->phase == PROTO_PHASE_PLAYING; guard++) {
        if (r->game->current == 0) {
            play_first_legal(a);
        } else {
            advance(r->seats[1].autoplay == PROTO_AUTO_NONE ? 20 * 60 * 1000 + 200 : 100);
            bots_play();
        }
    }
    ck_assert_int_eq(r->phase, PROTO_PHASE_OVER);
    ck_assert_int_eq(count(ROOM_NOTICE_REMATCH, 8), 0);
    drain(a);
    say(a, "\"type\":\"rematch\",\"id\":5");
    const char *j = expect(a, "joined");
    ck_assert_int_eq(count(ROOM_NOTICE_REMATCH, 8), 1);
    ck_assert_int_eq(count(ROOM_NOTICE_REMATCH, 7), 0);
    const struct lobby_notice *m = last(ROOM_NOTICE_REMATCH);
    ck_assert_str_eq(m->room, jstr(j, "room"));
    ck_assert_int_eq(m->seat, 1);
    ck_assert_int_eq(m->from, 0);
    ck_assert_int_eq(m->n, 2); /* the finished game's players, its host first */
    ck_assert_int_ne(m->names[0][0], '\0');
}
END_TEST

START_TEST(guests_and_short_turns_hear_nothing)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new();
    sign_in(a, 7, "Ann");
    /* a clock of 10 minutes: too short for a "time is low" notice */
    struct room *r =
        create(a, "2, \"clock\": {\"initial\": 600, \"increment\": 0, \"on_timeout\": \"bot\"}");
    join(b, a->room, "Cy"); /* a guest */
    say(a, "\"type\":\"start\"");
    drain(a);
    fake_free(b);
    play_first_legal(a);
    ck_assert_int_eq(r->game->current, 1);
    /* the guest's turn, then its clock under a quarter: nobody to tell */
    advance(9 * 60 * 1000);
    ck_assert_int_eq(heard.n, 0);
    ck_assert_int_eq(r->seats[1].account, 0);
}
END_TEST

Suite *suite_notices(void)
{
    Suite *s = suite_create("notices");
    TCase *tc = tcase_create("notices");
    tcase_add_checked_fixture(tc, setup_notices, teardown_notices);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, turn_and_low_time_to_the_absent);
    tcase_add_test(tc, game_over_with_the_rank);
    tcase_add_test(tc, rematch_to_the_absent);
    tcase_add_test(tc, guests_and_short_turns_hear_nothing);
    suite_add_tcase(s, tc);
    return s;
}
