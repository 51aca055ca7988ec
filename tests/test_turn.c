/* test_turn.c: who plays the turn (server/game/turn.c, bots.c): bot seats added
 * and removed by the host, games played to the end by bots, the clock and its
 * three timeout policies, takeover of a seat whose player left or went
 * offline, and taking it back, and games that pause when nobody has been
 * connected for bots-alone-grace (the bots' FIFOs: test_bots.c). Driven without sockets
 * (room_util.h); the bots run in manual mode (bots_run_pending), so every step is exact. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "game/bots.h"
#include "game/turn.h"
#include "record_json.h"
#include "room_util.h"
#include "tests.h"
#include "util/stall.h"

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
static void bots_play(struct room *r)
{
    for (int guard = 0; guard < 400 && bots_pending(bots) > 0; guard++) {
        bots_run_pending(bots, now);
        lobby_clock_tick(lb, now);
    }
    ck_assert(bots_pending(bots) == 0 || r->phase != PROTO_PHASE_PLAYING);
}

/* f plays the first legal placement its document offers. */
static void play_first_legal(struct fake *f)
{
    drain(f);
    struct proto_client_legal l[1];
    ck_assert_int_gt(proto_client_legal(f->doc, l, 1), 0);
    say(f, "\"type\":\"play\",\"id\":9,\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
        carc_tiles[proto_client_tile(f->doc)].id, l[0].x, l[0].y, l[0].rot * 90);
}

/* The record of r replays (engine) to the scores r shows. */
static void assert_record_replays(const struct room *r)
{
    char *text = room_record_json(r, NULL);
    ck_assert_ptr_nonnull(text);
    struct carc_record *rec = calloc(1, sizeof *rec);
    struct proto_error perr;
    proto_error_init(&perr);
    ck_assert_msg(proto_record_load(text, strlen(text), 0, rec, &perr) == 0, "%s", perr.text);
    struct carc_game *g = calloc(1, sizeof *g);
    struct carc_error err = {0, ""};
    ck_assert_int_eq(carc_record_start(rec, g, &err), 0);
    for (int i = 0; i < rec->nmoves; i++)
        ck_assert_msg(carc_record_step(rec, i, g, &err) == 0, "move %d: %s", i, err.text);
    ck_assert_int_eq(g->phase, r->game->phase);
    for (int p = 0; p < g->nplayers; p++)
        ck_assert_int_eq(g->players[p].score, r->game->players[p].score);
    free(g);
    free(rec);
    free(text);
}

START_TEST(bot_seats_in_the_lobby)
{
    struct fake *a = fake_new(), *b = fake_new();
    struct room *r = create(a, "3");
    join(b, a->room, "Bob");
    drain(a);
    say(b, "\"type\":\"add_bot\",\"id\":1,\"level\":\"greedy\"");
    expect_error(b, "not_host");
    say(a, "\"type\":\"remove_bot\",\"id\":2,\"seat\":1");
    expect_error(a, "not_a_bot");
    say(a, "\"type\":\"add_bot\",\"id\":3,\"level\":\"strong\"");
    const char *d = expect(a, "delta");
    ck_assert_str_eq(jstr(d, "events.0.type"), "seat");
    ck_assert_str_eq(jstr(d, "events.0.bot"), "strong");
    ck_assert_str_eq(jstr(d, "events.0.name"), "Strong bot");
    ck_assert_int_eq(r->seats[2].bot, 1 + 2);
    say(a, "\"type\":\"add_bot\",\"id\":4,\"level\":\"random\"");
    expect_error(a, "room_full");
    /* A bot seat takes no token. */
    ck_assert_int_eq(room_token_seat(r, "00000000000000000000000000000000"), -1);
    say(a, "\"type\":\"remove_bot\",\"id\":5,\"seat\":2");
    d = expect(a, "delta");
    ck_assert_str_eq(jstr(d, "events.0.name"), "<missing events.0.name>");
    ck_assert_int_eq(r->seats[2].taken, 0);
    /* Two bots get different names; the host leaving alone with bots ends the room. */
    say(a, "\"type\":\"add_bot\",\"level\":\"greedy\"");
    drain(a);
    ck_assert_str_eq(r->seats[2].name, "Greedy bot");
    say(b, "\"type\":\"leave\"");
    say(a, "\"type\":\"remove_bot\",\"seat\":2");
    say(a, "\"type\":\"add_bot\",\"level\":\"greedy\"");
    say(a, "\"type\":\"add_bot\",\"level\":\"greedy\"");
    drain(a);
    ck_assert_str_eq(r->seats[1].name, "Greedy bot");
    ck_assert_str_eq(r->seats[2].name, "Greedy bot 2");
    say(a, "\"type\":\"leave\"");
    ck_assert_ptr_null(lobby_room_find(lb, a->room));
}
END_TEST

/* One person and three bots of mixed levels: the game reaches its end, and
 * the record replays to the same scores. */
START_TEST(bots_finish_a_game)
{
    struct fake *a = fake_new();
    struct room *r = create(a, "4, \"sets\": [\"base\", \"inns-cathedrals\"]");
    say(a, "\"type\":\"add_bot\",\"level\":\"random\"");
    say(a, "\"type\":\"add_bot\",\"level\":\"greedy\"");
    say(a, "\"type\":\"add_bot\",\"level\":\"strong\"");
    say(a, "\"type\":\"start\"");
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    char *listed = lobby_rooms_encode(lb, "", 0);
    ck_assert_ptr_nonnull(strstr(listed, r->id)); /* a running game can be watched */
    free(listed);
    int turns = 0;
    while (r->phase == PROTO_PHASE_PLAYING && turns < 200) {
        bots_play(r);
        if (r->phase != PROTO_PHASE_PLAYING)
            break;
        ck_assert_int_eq(r->game->current, 0);
        play_first_legal(a);
        drain(a);
        turns++;
    }
    ck_assert_int_eq(r->phase, PROTO_PHASE_OVER);
    assert_record_replays(r);
    /* A finished game leaves the public room list (it is in GET /api/games). */
    char *list = lobby_rooms_encode(lb, "", 0);
    ck_assert_msg(strstr(list, r->id) == NULL, "%s", list);
    free(list);
    char *text = room_record_json(r, NULL);
    ck_assert_msg(strstr(text, "{\"name\":\"Strong bot\",\"bot\":\"strong\"}") != NULL, "%s", text);
    free(text);
}
END_TEST

/* A player who leaves is played by a bot; resume gives the seat back. */
START_TEST(leave_then_takeover_then_back)
{
    struct fake *a, *b;
    struct room *r = two_player_game(&a, &b);
    char token[PROTO_TOKEN_MAX];
    memcpy(token, b->token, sizeof token);
    if (r->game->current == 0)
        play_first_legal(a);
    ck_assert_int_eq(r->game->current, 1);
    say(b, "\"type\":\"leave\"");
    ck_assert_int_eq(r->seats[1].autoplay, PROTO_AUTO_LEFT);
    int turn = r->game->turn;
    bots_play(r);
    ck_assert_int_eq(r->game->turn, turn + 1);
    /* Back: the seat is theirs again, the bot stops. */
    struct fake *c = fake_new();
    say(c, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", a->room, token);
    expect(c, "joined");
    ck_assert_int_eq(r->seats[1].autoplay, PROTO_AUTO_NONE);
    drain(a);
    play_first_legal(a);
    ck_assert_int_eq(r->game->current, 1);
    ck_assert_int_eq(bots_pending(bots), 0);
}
END_TEST

static void grace_5s(struct lobby_limits *l)
{
    l->takeover_grace = 5;
    l->bot_pace = 0;
}

static void setup_grace(void)
{
    setup_with(grace_5s);
    bots = bots_new(NULL, 1, 0);
    lobby_bots_set(lb, bots);
}

/* Offline on its turn past the grace: a bot plays; not before. */
START_TEST(offline_past_grace)
{
    struct fake *a, *b;
    struct room *r = two_player_game(&a, &b);
    if (r->game->current == 1)
        play_first_legal(b);
    fake_free(a);
    advance(4800);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE);
    ck_assert_int_eq(bots_pending(bots), 0);
    advance(400);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_OFFLINE);
    drain(b);
    ck_assert_str_eq(jstr(b->last, "events.0.type"), "autoplay");
    ck_assert_str_eq(jstr(b->last, "events.0.reason"), "offline");
    int turn = r->game->turn;
    bots_play(r);
    ck_assert_int_eq(r->game->turn, turn + 1);
    ck_assert_int_eq(r->game->current, 1);
}
END_TEST

/* A clock room of two people: the seat to move is a's. */
static struct room *clock_game(const char *policy, int initial, int increment, struct fake **pa,
                               struct fake **pb)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new();
    char extra[200];
    snprintf(extra, sizeof extra,
             "2, \"clock\": {\"initial\": %d, \"increment\": %d, \"on_timeout\": \"%s\"}", initial,
             increment, policy);
    struct room *r = create(a, extra);
    join(b, a->room, "Bob");
    say(a, "\"type\":\"start\"");
    drain(a);
    drain(b);
    ck_assert_int_eq(r->game->current, 0);
    ck_assert_msg(strstr(a->last, "{\"op\":\"replace\",\"path\":\"/clock/turn_started\"") != NULL,
                  "%s", a->last);
    *pa = a;
    *pb = b;
    return r;
}

START_TEST(clock_charges_and_increments)
{
    struct fake *a, *b;
    struct room *r = clock_game("bot", 60, 5, &a, &b);
    ck_assert_int_eq(r->seats[0].clock_ms, 60000);
    now += 2000;
    long long used = (long long)(now - r->turn_ms);
    play_first_legal(a);
    ck_assert_int_eq(r->seats[0].clock_ms, 60000 - used + 5000);
    drain(b);
    ck_assert_int_eq(jint(b->last, "seq") > 0, 1);
    /* The document shows it. */
    char *st = proto_state_encode(r->state, r->seq, NULL);
    ck_assert_int_eq(jint(st, "state.seats.0.time_ms"), 65000 - used);
    ck_assert_int_eq(jint(st, "state.clock.initial"), 60);
    ck_assert_int_gt(jint(st, "state.clock.turn_started"), 1700000000000LL);
    free(st);
}
END_TEST

START_TEST(timeout_bot_plays_one_turn)
{
    struct fake *a, *b;
    struct room *r = clock_game("bot", 2, 1, &a, &b);
    advance(2100);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_TIMEOUT);
    drain(b);
    ck_assert_str_eq(jstr(b->last, "events.0.type"), "timeout");
    ck_assert_str_eq(jstr(b->last, "events.0.on_timeout"), "bot");
    ck_assert_str_eq(jstr(b->last, "events.1.reason"), "timeout");
    /* Too late for a's own move. */
    drain(a);
    play_first_legal(a);
    expect_error(a, "time_out");
    bots_play(r);
    ck_assert_int_eq(r->game->current, 1);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE);
    ck_assert_int_eq(r->seats[0].clock_ms, 1000);
}
END_TEST

START_TEST(timeout_skip_passes_the_turn)
{
    struct fake *a, *b;
    struct room *r = clock_game("skip", 1, 10, &a, &b);
    int tile = r->game->tile, left = carc_game_tiles_left(r->game);
    advance(1100);
    ck_assert_int_eq(r->game->current, 1);
    ck_assert_int_eq(r->game->turn, 0);
    ck_assert_int_eq(r->nmoves, 1);
    ck_assert(r->moves[0].skip);
    ck_assert_int_eq(r->game->deck[r->game->deck_len - 1], tile); /* under the pile */
    ck_assert_int_eq(carc_game_tiles_left(r->game), left);
    drain(b);
    ck_assert_str_eq(jstr(b->last, "events.0.type"), "timeout");
    ck_assert_str_eq(jstr(b->last, "events.1.type"), "skip");
    ck_assert_str_eq(jstr(b->last, "events.1.tile"), carc_tiles[tile].id);
    char move[128];
    ck_assert_int_gt(room_move_json(r, 0, move, sizeof move), 0);
    ck_assert_str_eq(move, "{\"tile\":\"BA.V\",\"skip\":true}");
    /* Three in a row and a bot plays the seat until its player is back. */
    for (int k = 0; k < 2; k++) {
        play_first_legal(b);
        ck_assert_int_eq(r->seats[0].clock_ms, 10000);
        advance(10100);
    }
    ck_assert_int_eq(r->seats[0].timeouts, 3);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_IDLE);
    assert_record_replays(r);
}
END_TEST

START_TEST(timeout_forfeit_for_good)
{
    struct fake *a, *b;
    struct room *r = clock_game("forfeit", 1, 0, &a, &b);
    advance(1100);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_FORFEIT);
    ck_assert(r->seats[0].forfeited);
    while (r->phase == PROTO_PHASE_PLAYING) {
        bots_play(r);
        if (r->phase != PROTO_PHASE_PLAYING)
            break;
        play_first_legal(b);
        /* a's own moves are refused, and resume does not give the play back */
        struct fake *c = fake_new();
        say(c, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", a->room, a->token);
        ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_FORFEIT);
        fake_free(c);
    }
    char *text = room_record_json(r, NULL);
    ck_assert_msg(strstr(text, "{\"name\":\"Ann\",\"forfeited\":true}") != NULL, "%s", text);
    free(text);
    assert_record_replays(r);
}
END_TEST

/* A play that arrives after the clock ran out, before the tick saw it. */
START_TEST(late_play_is_time_out)
{
    struct fake *a, *b;
    struct room *r = clock_game("skip", 1, 0, &a, &b);
    now += 1500;
    play_first_legal(a);
    const char *d = expect(a, "delta"); /* the timeout, told to everyone first */
    ck_assert_str_eq(jstr(d, "events.0.type"), "timeout");
    expect_error(a, "time_out");
    ck_assert_int_eq(r->game->current, 1);
    ck_assert(r->moves[0].skip);
}
END_TEST

/* The loop stalled (util/stall.h, driven here by hand as its prepare handle
 * and carcd's readings of the clock drive it): the lobby credits every
 * running turn. */
static void credit(void *arg, uint64_t ms, uint64_t at)
{
    lobby_stall(arg, ms, at);
}

/* a has 10 s on a forfeit clock and thinks for 3 s; the process is then
 * stopped for 30 s while the loop sleeps (at most 100 ms, its tick). The
 * tick that runs first after it forfeits nothing, the turn's new start goes
 * to everyone, a's move is accepted, and a is charged the time before the
 * stop and the 100 ms sleep the loop was allowed, not 33 s. */
START_TEST(stall_is_charged_to_no_clock)
{
    struct fake *a, *b;
    struct room *r = clock_game("forfeit", 10, 0, &a, &b);
    struct stall st;
    stall_init(&st, STALL_THRESHOLD_MS, credit, lb);
    long long wall = r->turn_wall;
    now += 3000;
    long long used = (long long)(now - r->turn_ms);
    stall_sleep(&st, now, 100);
    now += 30000;
    test_log_capture();
    ck_assert_uint_eq(stall_check(&st, now), 29900);
    lobby_clock_tick(lb, now);
    ck_assert_msg(test_log_count("the loop stalled for 29.9 s; no clock charged for it (1 running"
                                 " clock(s))") == 1,
                  "%s", test_log_text());
    test_log_release();
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE);
    ck_assert(!r->seats[0].forfeited);
    ck_assert_int_eq(r->turn_wall, wall + 29900);
    drain(b); /* the tick published the turn's new start */
    ck_assert_int_eq(jint(b->last, "seq"), r->seq);
    ck_assert_msg(strstr(b->last, "\"path\":\"/clock/turn_started\"") != NULL, "%s", b->last);
    ck_assert_int_eq((long long)(now - r->turn_ms), used + 100);
    play_first_legal(a);
    ck_assert_int_eq(r->game->current, 1);
    ck_assert_int_eq(r->seats[0].clock_ms, 10000 - used - 100);
    /* The next turn is charged as usual, from its own start. */
    ck_assert_int_eq(r->turn_ms, now - 60);
}
END_TEST

/* A stall no longer than the threshold is time like any other: 1 s left,
 * a gap of 1.5 s, and the clock runs out. */
START_TEST(short_stall_is_charged)
{
    struct fake *a, *b;
    struct room *r = clock_game("forfeit", 2, 0, &a, &b);
    struct stall st;
    stall_init(&st, STALL_THRESHOLD_MS, credit, lb);
    now += 1000;
    stall_sleep(&st, now, 100);
    now += 1500;
    ck_assert_uint_eq(stall_check(&st, now), 0);
    lobby_clock_tick(lb, now);
    ck_assert(r->seats[0].forfeited);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_FORFEIT);
}
END_TEST

/* One line a minute at most: the stalls between add up in the next one. A
 * room without a clock is credited too (its grace), but counts no clock. */
START_TEST(stall_lines_are_rate_limited)
{
    struct fake *a, *b;
    clock_game("bot", 600, 0, &a, &b);
    test_log_capture();
    ck_assert_int_eq(lobby_stall(lb, 5000, now), 1);
    ck_assert_int_eq(lobby_stall(lb, 2500, now + 10000), 1);
    ck_assert_int_eq(lobby_stall(lb, 3000, now + 20000), 1);
    ck_assert_int_eq(test_log_count("the loop stalled"), 1);
    ck_assert_int_eq(lobby_stall(lb, 4000, now + 61000), 1);
    ck_assert_msg(test_log_count("the loop stalled for 4.0 s; no clock charged for it (1 running "
                                 "clock(s)) (and 2 more stall(s) of 5.5 s in all since the last "
                                 "line)") == 1,
                  "%s", test_log_text());
    test_log_release();
}
END_TEST

static void setup_paced(void)
{
    setup_default(); /* bot-pace-ms 700 */
    bots = bots_new(NULL, 1, 0);
    lobby_bots_set(lb, bots);
}

/* While a person watches, a bot's move waits until its turn is 700 ms old. */
START_TEST(bots_wait_while_people_watch)
{
    struct fake *a = fake_new();
    struct room *r = create(a, "2");
    say(a, "\"type\":\"add_bot\",\"level\":\"greedy\"");
    say(a, "\"type\":\"start\"");
    if (r->game->current == 0)
        play_first_legal(a);
    ck_assert_int_eq(r->game->current, 1);
    int turn = r->game->turn;
    advance(500);
    ck_assert_int_eq(bots_pending(bots), 0);
    advance(300);
    ck_assert_int_eq(bots_pending(bots), 1);
    bots_run_pending(bots, now);
    ck_assert_int_eq(r->game->turn, turn + 1);
}
END_TEST

/* ---- bots alone: the pause (turn.h) ---- */

/* The decision alone, with times given. */
START_TEST(alone_pause_decision)
{
    struct room *r = calloc(1, sizeof *r);
    r->phase = PROTO_PHASE_PLAYING;
    r->nseats = 2;
    r->alone_grace_ms = 5000;
    ck_assert_int_eq(turn_alone(r, 1, 1000), TURN_GOES_ON);
    ck_assert_int_eq(turn_alone(r, 0, 1000), TURN_GOES_ON); /* nobody from now on */
    ck_assert_int_eq(turn_alone(r, 0, 5999), TURN_GOES_ON);
    ck_assert_int_eq(turn_alone(r, 1, 6000), TURN_GOES_ON); /* someone came: it starts over */
    ck_assert_int_eq(turn_alone(r, 0, 6100), TURN_GOES_ON);
    ck_assert_int_eq(turn_alone(r, 0, 11099), TURN_GOES_ON);
    ck_assert_int_eq(turn_alone(r, 0, 11100), TURN_PAUSE);
    r->turn_ms = 9000;
    r->turn_wall = 1700000000000LL;
    r->seats[1].offline_ms = 4000;
    turn_pause(r, 11100);
    ck_assert_int_eq(turn_alone(r, 0, 50000), TURN_GOES_ON); /* paused: stays so */
    ck_assert_int_eq(turn_alone(r, 2, 71100), TURN_RESUME);
    ck_assert_int_eq(turn_resume(r, 71100), 1);
    ck_assert_uint_eq(r->paused_ms, 0);
    ck_assert_uint_eq(r->turn_ms, 9000 + 60000); /* the pause is charged to nobody */
    ck_assert_int_eq(r->turn_wall, 1700000000000LL + 60000);
    ck_assert_uint_eq(r->seats[1].offline_ms, 4000 + 60000);
    ck_assert_uint_eq(r->seats[0].offline_ms, 0);
    ck_assert_uint_eq(r->resumed_ms, 71100);
    ck_assert_int_eq(turn_alone(r, 2, 71200), TURN_GOES_ON);
    /* A turn not started yet (a restored room) has nothing to move. */
    turn_pause(r, 80000);
    r->turn_ms = 0;
    ck_assert_int_eq(turn_resume(r, 90000), 0);
    /* 0: never; nor a game over, nor one in the lobby. */
    r->alone_grace_ms = 0;
    ck_assert_int_eq(turn_alone(r, 0, 100000), TURN_GOES_ON);
    ck_assert_int_eq(turn_alone(r, 0, 900000000), TURN_GOES_ON);
    r->alone_grace_ms = 5000;
    r->alone_ms = 0;
    r->phase = PROTO_PHASE_OVER;
    ck_assert_int_eq(turn_alone(r, 0, 1000), TURN_GOES_ON);
    ck_assert_int_eq(turn_alone(r, 0, 900000), TURN_GOES_ON);
    free(r);
}
END_TEST

static void grace_5s_paced(struct lobby_limits *l)
{
    l->bots_alone_grace = 5;
    l->lobby_rooms_ip = 1;
}

static void setup_alone(void)
{
    setup_with(grace_5s_paced); /* bot-pace-ms 700 */
    bots = bots_new(NULL, 1, 0);
    lobby_bots_set(lb, bots);
}

/* Time passes by ms in ticks of 100 ms, the bots answering at each. Returns
 * the moves played meanwhile. */
static int play_for(struct room *r, uint64_t ms)
{
    int before = r->nmoves;
    for (uint64_t t = 0; t < ms; t += 100) {
        now += 100;
        lobby_clock_tick(lb, now);
        bots_run_pending(bots, now);
    }
    return r->nmoves - before;
}

/* Ann leaves a game against two bots: they play on at their pace, then
 * after bots-alone-grace the game stands still, a search that waited is
 * dropped, and nothing is charged; when Ann resumes, the game goes on at the
 * pace, from where it stood. */
START_TEST(bots_alone_pause_then_go_on)
{
    struct fake *a = fake_new();
    struct room *r = create(a, "3");
    say(a, "\"type\":\"add_bot\",\"level\":\"greedy\"");
    say(a, "\"type\":\"add_bot\",\"level\":\"strong\"");
    say(a, "\"type\":\"start\"");
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    say(a, "\"type\":\"leave\"");
    drain(a);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_LEFT);
    /* Alone, the bots keep the pace: at most one move per 700 ms. */
    int moves = play_for(r, 3500);
    ck_assert_int_ge(moves, 3);
    ck_assert_int_le(moves, 6);
    ck_assert_uint_eq(r->paused_ms, 0);
    /* A search asked for and not yet run when the grace ends is dropped. */
    for (int k = 0; k < 16 && r->paused_ms == 0; k++) {
        now += 100;
        lobby_clock_tick(lb, now);
    }
    ck_assert_uint_ne(r->paused_ms, 0);
    ck_assert_int_eq(bots_pending(bots), 0);
    ck_assert_ptr_null(r->job);
    int nmoves = r->nmoves;
    long long seq = r->seq, wall = r->turn_wall;
    uint64_t turn = r->turn_ms, paused = r->paused_ms;
    ck_assert_int_eq(play_for(r, 120000), 0);
    ck_assert_int_eq(r->seq, seq);
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    /* Ann is back: at once a delta moves the turn's start by the pause. */
    uint64_t back = now;
    say(a, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", r->id, a->token);
    expect(a, "joined");
    ck_assert_uint_eq(r->paused_ms, 0);
    ck_assert_uint_eq(r->turn_ms, turn + (back - paused));
    ck_assert_int_eq(r->turn_wall, wall + (long long)(back - paused));
    /* Her seat connected, her seat hers again, the turn's start moved. */
    ck_assert_int_eq(r->seq, seq + 3);
    drain(a);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE);
    /* Its bots wait a whole pace from her coming back, then play one by one. */
    while (r->game->current == 0) {
        play_first_legal(a);
        drain(a);
    }
    ck_assert_int_eq(play_for(r, 600), 0);
    ck_assert_int_le(play_for(r, 1500), 2);
    ck_assert_int_gt(r->nmoves, nmoves);
}
END_TEST

/* Nobody connected stops the clock too: the seat to move has, when someone
 * is back, the time it had when the game paused. */
START_TEST(bots_alone_pause_stops_the_clock)
{
    struct fake *a, *b;
    struct room *r = clock_game("bot", 10, 0, &a, &b);
    char token[PROTO_TOKEN_MAX];
    memcpy(token, b->token, sizeof token);
    fake_free(a);
    fake_free(b);
    advance(5100); /* paused after 5 s of the turn's 10 */
    ck_assert_uint_ne(r->paused_ms, 0);
    advance(30000);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE);
    ck_assert_int_eq(r->timed_out, 0);
    struct fake *c = fake_new();
    say(c, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", r->id, token);
    expect(c, "joined");
    advance(4700);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_NONE);
    advance(500);
    ck_assert_int_eq(r->seats[0].autoplay, PROTO_AUTO_TIMEOUT);
}
END_TEST

/* A game left to bots counts against the address that created it, like a
 * room in the lobby (lobby-rooms-per-ip, 1 here); a game someone is
 * connected to does not. */
START_TEST(games_left_to_bots_count_against_their_address)
{
    struct fake *a = fake_new(), *b = fake_new();
    struct room *r = create(a, "2");
    say(a, "\"type\":\"add_bot\",\"level\":\"greedy\"");
    say(a, "\"type\":\"start\"");
    drain(a);
    struct room *r2 = create(b, "2"); /* Ann plays: her game does not count */
    char id2[sizeof r2->id];
    memcpy(id2, r2->id, sizeof id2); /* the leave frees r2 */
    say(b, "\"type\":\"leave\",\"id\":3");
    expect(b, "left");
    ck_assert_ptr_null(lobby_room_find(lb, id2));
    say(a, "\"type\":\"leave\"");
    drain(a);
    say(b, "\"type\":\"create\",\"id\":4,\"name\":\"Bob\",\"seats\":2");
    const char *e = expect_error(b, "too_many_rooms");
    ck_assert_msg(strstr(jstr(e, "message"), "games nobody is connected to") != NULL, "%s", e);
    /* Paused, it still counts. */
    play_for(r, 6000);
    ck_assert_uint_ne(r->paused_ms, 0);
    lobby_tick(lb, now);
    say(b, "\"type\":\"create\",\"id\":5,\"name\":\"Bob\",\"seats\":2");
    expect_error(b, "too_many_rooms");
    /* Someone watches it: it no longer does. */
    struct fake *w = fake_new_from("10.9.9.9");
    expect(w, "welcome");
    say(w, "\"type\":\"watch\",\"room\":\"%s\"", r->id);
    expect(w, "watching");
    ck_assert_uint_eq(r->paused_ms, 0);
    create(b, "2");
}
END_TEST

Suite *suite_turn(void)
{
    Suite *s = suite_create("turn");
    TCase *tc = tcase_create("bots");
    tcase_add_checked_fixture(tc, setup_bots, teardown_bots);
    tcase_add_test(tc, bot_seats_in_the_lobby);
    tcase_add_test(tc, bots_finish_a_game);
    tcase_add_test(tc, leave_then_takeover_then_back);
    tcase_add_test(tc, clock_charges_and_increments);
    tcase_add_test(tc, timeout_bot_plays_one_turn);
    tcase_add_test(tc, timeout_skip_passes_the_turn);
    tcase_add_test(tc, timeout_forfeit_for_good);
    tcase_add_test(tc, late_play_is_time_out);
    tcase_add_test(tc, stall_is_charged_to_no_clock);
    tcase_add_test(tc, short_stall_is_charged);
    tcase_add_test(tc, stall_lines_are_rate_limited);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    TCase *tg = tcase_create("grace");
    tcase_add_checked_fixture(tg, setup_grace, teardown_bots);
    tcase_add_test(tg, offline_past_grace);
    suite_add_tcase(s, tg);
    TCase *tp = tcase_create("pace");
    tcase_add_checked_fixture(tp, setup_paced, teardown_bots);
    tcase_add_test(tp, bots_wait_while_people_watch);
    suite_add_tcase(s, tp);
    TCase *ta = tcase_create("alone");
    tcase_add_checked_fixture(ta, setup_alone, teardown_bots);
    tcase_add_test(ta, alone_pause_decision);
    tcase_add_test(ta, bots_alone_pause_then_go_on);
    tcase_add_test(ta, bots_alone_pause_stops_the_clock);
    tcase_add_test(ta, games_left_to_bots_count_against_their_address);
    tcase_set_timeout(ta, 60);
    suite_add_tcase(s, ta);
    return s;
}
