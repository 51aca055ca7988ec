/* test_corr.c: correspondence clocks (server/game/turn.c with util/tz.c):
 * days per move (every turn gets the whole time, nothing carried over; the
 * state shows per_move and the deadline), the weekend pause in the room's
 * time zone (a day per move from a Friday evening runs out on Monday
 * evening, local time), a zone the server does not know refused with nothing
 * changed, and a correspondence game that nobody watches does not pause.
 * The wall clock is set with the test clock (util/clock.h); the loop's
 * clock is the lobby's `now`, moved by hand. Restarts and failover: the
 * integration tests (test_correspondence.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/turn.h"
#include "room_util.h"
#include "tests.h"
#include "util/clock.h"
#include "util/tz.h"

#define HOUR_MS 3600000LL
#define DAY_MS 86400000LL
/* Friday 2026-01-02 19:00Z: 20:00 in Paris (CET), 08:00 Saturday in Auckland. */
#define FRI_1900Z (1767225600000LL + DAY_MS + 19 * HOUR_MS)

static struct tz_db *zones;

static void setup_corr(void)
{
    setup_default();
    zones = tz_db_load(NULL, NULL);
    lobby_zones_set(lb, zones);
}

static void teardown_corr(void)
{
    teardown();
    tz_db_free(zones);
    zones = NULL;
    clock_test_advance(-clock_test_offset()); /* CK_FORK=no runs the next test here */
}

/* The wall clock reads t now. */
static void wall_set(long long t)
{
    clock_test_advance(t - clock_wall_ms());
}

/* A two-player game with clock (JSON), a to move. */
static struct room *corr_game(const char *clock, struct fake **pa, struct fake **pb)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new();
    char extra[300];
    snprintf(extra, sizeof extra, "2, \"clock\": %s", clock);
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

static void play_first_legal(struct fake *f)
{
    drain(f);
    struct proto_client_legal l[1];
    ck_assert_int_gt(proto_client_legal(f->doc, l, 1), 0);
    say(f, "\"type\":\"play\",\"id\":9,\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
        carc_tiles[proto_client_tile(f->doc)].id, l[0].x, l[0].y, l[0].rot * 90);
}

/* Time passes on the loop's clock in one step, then one clock tick. */
static void jump(long long ms)
{
    now += (uint64_t)ms;
    lobby_clock_tick(lb, now);
}

START_TEST(per_move_gives_every_turn_the_whole_time)
{
    struct fake *a, *b;
    struct room *r = corr_game("{\"per_move\": 172800, \"on_timeout\": \"skip\"}", &a, &b);
    ck_assert_int_eq(r->seats[0].clock_ms, 2 * DAY_MS);
    ck_assert_int_eq(r->seats[1].clock_ms, 2 * DAY_MS);
    char *st = proto_state_encode(r->state, r->seq, NULL);
    ck_assert_int_eq(jint(st, "state.clock.per_move"), 172800);
    ck_assert_int_eq(jint(st, "state.clock.initial"), 172800);
    ck_assert_int_eq(jint(st, "state.clock.increment"), 0);
    ck_assert_str_eq(jstr(st, "state.clock.time_zone"), "UTC");
    ck_assert_int_eq(jint(st, "state.clock.deadline"), r->turn_wall + 2 * DAY_MS);
    free(st);
    /* a thinks for a day and a half: the next turn has two days again. */
    jump(36 * HOUR_MS);
    ck_assert_int_eq(r->game->current, 0);
    play_first_legal(a);
    ck_assert_int_eq(r->game->current, 1);
    ck_assert_int_eq(r->seats[0].clock_ms, 2 * DAY_MS);
    drain(a);
    ck_assert_int_eq(jint(a->last, "seq"), r->seq);
    /* b lets two days pass: skipped, and a has two whole days. */
    jump(2 * DAY_MS - 1000);
    ck_assert_int_eq(r->game->current, 1);
    jump(1100);
    ck_assert_int_eq(r->game->current, 0);
    ck_assert(r->moves[r->nmoves - 1].skip);
    ck_assert_int_eq(r->seats[1].clock_ms, 2 * DAY_MS);
    ck_assert_int_eq(turn_time_left(r, 0, r->turn_wall + HOUR_MS), 2 * DAY_MS - HOUR_MS);
}
END_TEST

START_TEST(weekend_pause_in_the_room_zone)
{
    wall_set(FRI_1900Z);
    struct fake *a, *b;
    struct room *r =
        corr_game("{\"per_move\": 86400, \"on_timeout\": \"skip\", \"weekend_pause\": true,"
                  " \"time_zone\": \"Europe/Paris\"}",
                  &a, &b);
    long long start = r->turn_wall;
    ck_assert_int_lt(start - FRI_1900Z, 60000);
    /* Four hours to Saturday 00:00 in Paris, then Monday 00:00 to 20:00. */
    ck_assert_int_eq(turn_deadline(r), start + 3 * DAY_MS);
    char *st = proto_state_encode(r->state, r->seq, NULL);
    ck_assert_str_eq(jdump(st, "state.clock.weekend_pause"), "true");
    ck_assert_str_eq(jstr(st, "state.clock.time_zone"), "Europe/Paris");
    ck_assert_int_eq(jint(st, "state.clock.deadline"), start + 3 * DAY_MS);
    free(st);
    /* Sunday evening: only the four hours of Friday were charged. */
    jump(2 * DAY_MS);
    ck_assert_int_eq(r->game->current, 0);
    long long friday = FRI_1900Z + 4 * HOUR_MS - start;
    ck_assert_int_eq(turn_used(r, now), friday);
    ck_assert_int_eq(turn_time_left(r, 0, start + 2 * DAY_MS), DAY_MS - friday);
    /* Monday 19:59 in Paris: still a's turn; 20:00: skipped. */
    jump(DAY_MS - 60000);
    ck_assert_int_eq(r->game->current, 0);
    jump(61000);
    ck_assert_int_eq(r->game->current, 1);
    ck_assert(r->moves[r->nmoves - 1].skip);
}
END_TEST

/* A bank clock paused on week ends too: 6 hours from Friday 20:00 in Paris
 * are 4 that evening and 2 on Monday morning, not a timeout on Saturday. */
START_TEST(weekend_pause_of_a_bank_clock)
{
    wall_set(FRI_1900Z);
    struct fake *a, *b;
    struct room *r = corr_game("{\"initial\": 21600, \"increment\": 0, \"on_timeout\": \"skip\","
                               " \"weekend_pause\": true, \"time_zone\": \"Europe/Paris\"}",
                               &a, &b);
    long long start = r->turn_wall;
    ck_assert_int_eq(turn_deadline(r), start + 2 * DAY_MS + 6 * HOUR_MS);
    jump(2 * DAY_MS + 5 * HOUR_MS);
    ck_assert_int_eq(r->game->current, 0);
    jump(HOUR_MS + 1000);
    ck_assert_int_eq(r->game->current, 1);
}
END_TEST

/* Auckland's week end began on Friday 11:00Z: a game started then has its
 * first hour counted from Monday 00:00 there (Sunday 11:00Z). */
START_TEST(weekend_pause_across_the_date_line)
{
    wall_set(FRI_1900Z);
    struct fake *a, *b;
    struct room *r =
        corr_game("{\"per_move\": 3600, \"on_timeout\": \"skip\", \"weekend_pause\": true,"
                  " \"time_zone\": \"Pacific/Auckland\"}",
                  &a, &b);
    long long start = r->turn_wall;
    /* NZDT (+13) in January: Monday 00:00 is Sunday 11:00Z. */
    long long monday = FRI_1900Z - 19 * HOUR_MS + 2 * DAY_MS + 11 * HOUR_MS;
    ck_assert_int_eq(turn_deadline(r), monday + HOUR_MS);
    jump(monday - start + HOUR_MS - 1000);
    ck_assert_int_eq(r->game->current, 0);
    jump(1100);
    ck_assert_int_eq(r->game->current, 1);
}
END_TEST

START_TEST(unknown_zone_refused)
{
    struct fake *a = fake_new();
    say(a, "\"type\":\"create\",\"name\":\"Ann\",\"seats\":2,\"clock\":{\"per_move\":86400,"
           "\"on_timeout\":\"skip\",\"weekend_pause\":true,\"time_zone\":\"Mars/Olympus\"}");
    const char *e = expect_error(a, "bad_request");
    ck_assert_msg(strstr(jstr(e, "message"), "clock.time_zone") != NULL, "%s", e);
    ck_assert_int_eq(lb->nrooms, 0);
}
END_TEST

/* A bank clock's game pauses when everyone is gone (bots-alone-grace); a
 * correspondence game, which people leave between their moves, does not. */
START_TEST(correspondence_never_pauses_alone)
{
    struct fake *a, *b;
    struct room *r = corr_game("{\"per_move\": 86400, \"on_timeout\": \"skip\"}", &a, &b);
    fake_free(a);
    fake_free(b);
    for (int k = 0; k < 10; k++)
        jump(60000);
    ck_assert_int_eq(r->paused_ms, 0);
    ck_assert_int_ge(turn_used(r, now), 600000);
}
END_TEST

/* The lobby's vacation hook, as main.c's but answered by the test. */
static int asked;
static long long asked_account;
static int asked_seat, asked_moves;
static long long asked_at;

static void vacation_hook(void *arg, long long account, const char *room, int seat, int moves,
                          long long at)
{
    (void)arg;
    (void)room;
    asked++;
    asked_at = at;
    asked_account = account;
    asked_seat = seat;
    asked_moves = moves;
}

/* A day per move, seat 0 an account's (7), the hook set: a's clock runs out
 * after a day; the hook is asked once, and until it answers nothing times
 * out; a vacation day answered moves the deadline a day; run out again, it
 * is asked again, and "none" lets the clock's end stand. */
START_TEST(vacation_taken_when_the_clock_runs_out)
{
    lb->vacation = vacation_hook;
    struct fake *a, *b;
    struct room *r = corr_game("{\"per_move\": 86400, \"on_timeout\": \"skip\"}", &a, &b);
    r->seats[0].account = 7;
    long long deadline = turn_deadline(r);
    jump(DAY_MS + 1000);
    ck_assert_int_eq(asked, 1);
    ck_assert_int_eq(asked_account, 7);
    ck_assert_int_eq(asked_seat, 0);
    ck_assert_int_eq(asked_moves, r->nmoves);
    jump(60000); /* no answer yet: asked once, no timeout */
    ck_assert_int_eq(asked, 1);
    ck_assert_int_eq(r->game->current, 0);
    /* A day from when the clock ran out: the time since then is not charged. */
    ck_assert_int_eq(asked_at, deadline);
    long long from = deadline, until = from + DAY_MS;
    long long seq = r->seq;
    lobby_vacation_answer(lb, r->id, 0, asked_moves, from, until);
    ck_assert_int_eq(turn_deadline(r), deadline + DAY_MS);
    ck_assert_int_gt(r->seq, seq); /* the new deadline published */
    drain(b);
    ck_assert_msg(strstr(b->last, "\"/clock/deadline\"") != NULL, "%s", b->last);
    jump(DAY_MS - 70000); /* within the vacation and the rest of the day */
    ck_assert_int_eq(r->game->current, 0);
    ck_assert_int_eq(asked, 1);
    jump(20000);
    ck_assert_int_eq(asked, 2);
    ck_assert_int_eq(asked_at, deadline + DAY_MS);
    ck_assert_int_eq(r->game->current, 0);
    lobby_vacation_answer(lb, r->id, 0, asked_moves, 0, 0);
    jump(100);
    ck_assert_int_eq(r->game->current, 1);
    ck_assert(r->moves[r->nmoves - 1].skip);
    ck_assert_int_eq(asked, 2);
}
END_TEST

/* A move while the bank is asked is in time. */
START_TEST(vacation_asked_move_in_time)
{
    lb->vacation = vacation_hook;
    struct fake *a, *b;
    struct room *r = corr_game("{\"per_move\": 3600, \"on_timeout\": \"forfeit\"}", &a, &b);
    r->seats[0].account = 7;
    jump(HOUR_MS + 500);
    ck_assert_int_eq(asked, 1);
    play_first_legal(a);
    ck_assert_int_eq(r->game->current, 1);
    ck_assert_int_eq(r->seats[0].forfeited, 0);
    ck_assert(!r->moves[r->nmoves - 1].skip);
}
END_TEST

/* Taken by hand: the seats of the account in every room learn it, the
 * mover's clock stops for it (its deadline moves), a guest's does not. */
START_TEST(vacation_by_hand_stops_the_clock)
{
    struct fake *a, *b;
    struct room *r = corr_game("{\"per_move\": 86400, \"on_timeout\": \"skip\"}", &a, &b);
    r->seats[0].account = 7;
    long long deadline = turn_deadline(r), from = r->turn_wall + HOUR_MS, used = turn_used(r, now);
    jump(HOUR_MS);
    lobby_vacation_set(lb, 7, from, from + 3 * DAY_MS);
    ck_assert_int_eq(turn_deadline(r), deadline + 3 * DAY_MS);
    ck_assert_int_eq(r->seats[0].vac_until, from + 3 * DAY_MS);
    lobby_vacation_set(lb, 8, from, from + 9 * DAY_MS); /* nobody's here */
    ck_assert_int_eq(turn_deadline(r), deadline + 3 * DAY_MS);
    jump(3 * DAY_MS);
    ck_assert_int_eq(turn_used(r, now), used + HOUR_MS);
    /* Ended by hand a day in: the rest of the time runs again from then. */
    lobby_vacation_set(lb, 7, from, from + DAY_MS);
    ck_assert_int_eq(turn_deadline(r), deadline + DAY_MS);
    /* 3 days + 1 h in, 2 days + 1 h charged: out; no bank here to ask (the
     * answer "none" comes at once), the next tick times the turn out. */
    jump(100);
    jump(100);
    ck_assert_int_eq(r->game->current, 1);
}
END_TEST

Suite *suite_corr(void)
{
    Suite *s = suite_create("corr");
    TCase *tc = tcase_create("corr");
    tcase_add_checked_fixture(tc, setup_corr, teardown_corr);
    tcase_add_test(tc, per_move_gives_every_turn_the_whole_time);
    tcase_add_test(tc, weekend_pause_in_the_room_zone);
    tcase_add_test(tc, weekend_pause_across_the_date_line);
    tcase_add_test(tc, weekend_pause_of_a_bank_clock);
    tcase_add_test(tc, unknown_zone_refused);
    tcase_add_test(tc, correspondence_never_pauses_alone);
    tcase_add_test(tc, vacation_taken_when_the_clock_runs_out);
    tcase_add_test(tc, vacation_asked_move_in_time);
    tcase_add_test(tc, vacation_by_hand_stops_the_clock);
    suite_add_tcase(s, tc);
    return s;
}
