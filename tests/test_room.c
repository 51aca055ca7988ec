/* test_room.c: the lobby and rooms of carcd (server/game/lobby.c, lobby_cmd.c,
 * room.c) driven without sockets through the fake clients of room_util.h: a
 * full game seen by players and a spectator, every error code of the lobby and
 * of a move, seats, leaving and the host, the room list, chat, and the room
 * ids and seat tokens (server/util/rand.c); resume, sync, takeover and the
 * history kept for them are in test_resume.c. Session limits are in test_session.c, HTTP routes in
 * test_api.c, the config parser in test_config.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "event_json.h"
#include "room_util.h"
#include "tests.h"
#include "util/rand.h"

/* ---- full game ---- */

START_TEST(full_game)
{
    struct fake *a, *b;
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    a = fake_new();
    b = fake_new();
    struct room *r = create(a, "3, \"sets\": [\"base\"]");
    join(b, a->room, "Bob");
    const char *d = expect(a, "delta");
    ck_assert_int_eq(jint(d, "seq"), 1);
    ck_assert_str_eq(jstr(d, "events.0.type"), "seat");
    ck_assert_str_eq(jstr(d, "events.0.name"), "Bob");

    /* A spectator from the lobby on: its first state plus every delta it
     * gets must give the final state. */
    struct fake *w = fake_new();
    say(w, "\"type\":\"watch\",\"id\":3,\"room\":\"%s\"", a->room);
    ck_assert_int_eq(jint(expect(w, "watching"), "ref"), 3);
    char *first = strdup(expect(w, "state"));
    char *deltas[64];
    int nd = 0;

    /* Seat 2 stays empty: start drops it. */
    say(a, "\"type\":\"start\",\"id\":2");
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    ck_assert_int_eq(r->nseats, 2);
    /* Encoded once: the three queues hold the very same buffer. */
    ck_assert_ptr_eq(session_peek(&a->s), session_peek(&b->s));
    ck_assert_ptr_eq(session_peek(&a->s), session_peek(&w->s));
    expect(a, "delta");
    expect(b, "delta");
    deltas[nd++] = strdup(expect(w, "delta"));

    int moves = 0, meeples = 0;
    while (r->phase == PROTO_PHASE_PLAYING) {
        struct fake *p = current(r, a, b);
        ck_assert(proto_client_my_turn(p->doc));
        struct proto_client_legal legal[8];
        int n = proto_client_legal(p->doc, legal, 8);
        ck_assert_int_gt(n, 0);
        const struct proto_client_legal *l = &legal[moves % (n < 8 ? n : 8)];
        int t = proto_client_tile(p->doc);
        char meeple[64] = "null";
        if (moves % 2 == 0 && l->nmeeples > 0) {
            snprintf(meeple, sizeof meeple, "{\"feature\":\"%s\",\"kind\":\"normal\"}",
                     l->meeples[0].feature);
            meeples++;
        }
        long long seq = r->seq;
        say(p,
            "\"type\":\"play\",\"id\":%d,\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,"
            "\"meeple\":%s",
            100 + moves, carc_tiles[t].id, l->x, l->y, l->rot * 90, meeple);
        ck_assert_int_eq(r->seq, seq + 1);
        d = expect(p, "delta");
        ck_assert_int_eq(jint(d, "seq"), seq + 1);
        ck_assert_str_eq(jstr(d, "events.0.type"), "placed");
        const char *ack = expect(p, "ack");
        ck_assert_int_eq(jint(ack, "seq"), seq + 1);
        ck_assert_int_eq(jint(ack, "ref"), 100 + moves);
        struct fake *o = p == a ? b : a;
        expect(o, "delta");
        expect_nothing(o);
        ck_assert_int_lt(nd, 64);
        deltas[nd++] = strdup(expect(w, "delta"));
        moves++;
    }
    ck_assert_int_eq(r->phase, PROTO_PHASE_OVER);
    ck_assert_int_gt(moves, 3);
    ck_assert_int_gt(meeples, 0);
    ck_assert_int_eq(proto_client_phase(a->doc), PROTO_PHASE_OVER);
    ck_assert_int_eq(proto_client_phase(w->doc), PROTO_PHASE_OVER);

    /* Play after the end: game_over, nothing changes. */
    char *before = snapshot(r);
    say(a, "\"type\":\"play\",\"tile\":\"BA.V\",\"x\":9,\"y\":9,\"rot\":0");
    expect_error(a, "game_over");
    assert_unchanged(r, before);

    /* The documents the clients built from deltas equal a fresh state. */
    say(w, "\"type\":\"sync\",\"id\":4,\"seq\":100000");
    const char *fresh = expect(w, "state");
    ck_assert_int_eq(jint(fresh, "ref"), 4);
    struct proto_error err;
    proto_error_init(&err);
    ck_assert_msg(proto_patch_check(first, (const char *const *)deltas, nd, fresh, &err) == 0, "%s",
                  err.text);
    for (int i = 0; i < nd; i++)
        free(deltas[i]);
    free(first);
    char *da = proto_client_doc_dump(a->doc), *db = proto_client_doc_dump(b->doc);
    ck_assert_str_eq(da, db);
    free(da);
    free(db);
}
END_TEST

/* ---- errors ---- */

START_TEST(decode_errors)
{
    struct fake *a = fake_new();
    raw(a, "{not json");
    expect_error(a, "malformed_json");
    say(a, "\"type\":\"dance\",\"id\":5");
    ck_assert_int_eq(jint(expect_error(a, "unknown_type"), "ref"), 5);
    raw(a, "{\"v\":1,\"type\":\"ping\"}"); /* version 1 sent the legal list to everyone */
    expect_error(a, "bad_version");
    say(a, "\"type\":\"ping\",\"id\":\"k\",\"extra\":1");
    const char *e = expect_error(a, "bad_request");
    ck_assert_str_eq(jstr(e, "ref"), "k");
    ck_assert_ptr_nonnull(strstr(jstr(e, "message"), "extra"));
    say(a, "\"type\":\"ping\",\"id\":6");
    ck_assert_int_eq(jint(expect(a, "pong"), "ref"), 6);
    say(a, "\"type\":\"ping\"");
    ck_assert(!has(expect(a, "pong"), "ref"));
    ck_assert_int_eq(a->closes, 0);
}
END_TEST

START_TEST(lobby_errors)
{
    struct fake *a = fake_new(), *b = fake_new(), *c = fake_new(), *d = fake_new();

    /* not_in_room for every in-room message */
    say(a, "\"type\":\"leave\"");
    expect_error(a, "not_in_room");
    say(a, "\"type\":\"chat\",\"text\":\"hi\"");
    expect_error(a, "not_in_room");
    say(a, "\"type\":\"sync\",\"seq\":0");
    expect_error(a, "not_in_room");
    say(a, "\"type\":\"start\"");
    expect_error(a, "not_in_room");
    say(a, "\"type\":\"play\",\"tile\":\"BA.V\",\"x\":1,\"y\":0,\"rot\":0");
    expect_error(a, "not_in_room");

    /* no_such_room */
    say(b, "\"type\":\"join\",\"room\":\"ZZZZZZZZ\",\"name\":\"Bob\"");
    expect_error(b, "no_such_room");
    say(b, "\"type\":\"watch\",\"room\":\"ZZZZZZZZ\"");
    expect_error(b, "no_such_room");
    say(b, "\"type\":\"resume\",\"room\":\"ZZZZZZZZ\",\"token\":\"%032d\"", 0);
    expect_error(b, "no_such_room");

    /* bad settings for the engine: 6 seats need inns-cathedrals */
    say(a, "\"type\":\"create\",\"name\":\"Ann\",\"seats\":6");
    expect_error(a, "bad_player_count");
    ck_assert_int_eq(lb->nrooms, 0);

    struct room *r = create(a, "2, \"password\": \"sesame\"");
    char *before = snapshot(r);

    /* already_in_room */
    say(a, "\"type\":\"create\",\"name\":\"Ann\",\"seats\":2");
    expect_error(a, "already_in_room");
    say(a, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Ann\"", a->room);
    expect_error(a, "already_in_room");
    say(a, "\"type\":\"watch\",\"room\":\"%s\"", a->room);
    expect_error(a, "already_in_room");

    /* wrong_password */
    say(b, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Bob\"", a->room);
    expect_error(b, "wrong_password");
    say(b, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Bob\",\"password\":\"sesam\"", a->room);
    expect_error(b, "wrong_password");
    say(b, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Bob\",\"password\":\"sesamee\"", a->room);
    expect_error(b, "wrong_password");

    /* bad_token */
    say(b, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%032d\"", a->room, 0);
    expect_error(b, "bad_token");

    /* not_enough_players */
    say(a, "\"type\":\"start\",\"id\":9");
    ck_assert_int_eq(jint(expect_error(a, "not_enough_players"), "ref"), 9);
    expect_nothing(a);
    assert_unchanged(r, before);

    say(b, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Bob\",\"password\":\"sesame\"", a->room);
    expect(b, "joined");
    expect(b, "state");
    b->seat = 1;
    expect(a, "delta");

    /* room_full */
    say(c, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Cy\",\"password\":\"sesame\"", a->room);
    expect_error(c, "room_full");

    /* spectator and not_host */
    say(d, "\"type\":\"watch\",\"room\":\"%s\"", a->room);
    expect(d, "watching");
    expect(d, "state");
    before = snapshot(r);
    say(d, "\"type\":\"start\"");
    expect_error(d, "spectator");
    say(b, "\"type\":\"start\"");
    expect_error(b, "not_host");
    say(d, "\"type\":\"play\",\"tile\":\"BA.V\",\"x\":1,\"y\":0,\"rot\":0");
    expect_error(d, "spectator");
    /* wrong_phase: play in the lobby */
    say(a, "\"type\":\"play\",\"tile\":\"BA.V\",\"x\":1,\"y\":0,\"rot\":0");
    expect_error(a, "wrong_phase");
    assert_unchanged(r, before);
    expect_nothing(a);
    expect_nothing(b);
    expect_nothing(d);

    say(a, "\"type\":\"start\"");
    expect(a, "delta");
    expect(b, "delta");
    expect(d, "delta");
    /* wrong_phase: join or start a running game */
    say(c, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Cy\",\"password\":\"sesame\"", a->room);
    expect_error(c, "wrong_phase");
    say(a, "\"type\":\"start\"");
    expect_error(a, "wrong_phase");
}
END_TEST

START_TEST(play_errors)
{
    struct fake *a, *b;
    struct room *r = two_player_game(&a, &b);
    struct fake *p = current(r, a, b), *o = p == a ? b : a;
    int t = r->game->tile;
    const char *id = carc_tiles[t].id;
    struct proto_client_legal legal[64];
    int n = proto_client_legal(p->doc, legal, 64);
    ck_assert_int_gt(n, 0);
    char *before = snapshot(r);

    /* not_your_turn */
    say(o, "\"type\":\"play\",\"id\":1,\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d", id,
        legal[0].x, legal[0].y, legal[0].rot * 90);
    ck_assert_int_eq(jint(expect_error(o, "not_your_turn"), "ref"), 1);
    /* wrong_tile */
    const char *other = t == carc_tile_find("BA.A") ? "BA.B" : "BA.A";
    say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d", other, legal[0].x,
        legal[0].y, legal[0].rot * 90);
    expect_error(p, "wrong_tile");
    /* position_taken, not_adjacent */
    say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":0,\"y\":0,\"rot\":0", id);
    expect_error(p, "position_taken");
    say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":5,\"y\":5,\"rot\":0", id);
    expect_error(p, "not_adjacent");
    /* bad_rotation (the decoder) */
    say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":45", id, legal[0].x,
        legal[0].y);
    expect_error(p, "bad_rotation");
    /* edge_mismatch: a rotation not legal at a legal position */
    int found = 0;
    for (int i = 0; i < n && !found; i++)
        for (int rot = 0; rot < 4 && !found; rot++) {
            int legal_rot = 0;
            for (int j = 0; j < n; j++)
                legal_rot |=
                    legal[j].x == legal[i].x && legal[j].y == legal[i].y && legal[j].rot == rot;
            if (!legal_rot) {
                say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d", id,
                    legal[i].x, legal[i].y, rot * 90);
                expect_error(p, "edge_mismatch");
                found = 1;
            }
        }
    ck_assert(found);
    /* unknown_feature */
    say(p,
        "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,"
        "\"meeple\":{\"feature\":\"c9\",\"kind\":\"normal\"}",
        id, legal[0].x, legal[0].y, legal[0].rot * 90);
    expect_error(p, "unknown_feature");
    /* large_meeple_unavailable: base only */
    if (legal[0].nmeeples > 0) {
        say(p,
            "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,"
            "\"meeple\":{\"feature\":\"%s\",\"kind\":\"large\"}",
            id, legal[0].x, legal[0].y, legal[0].rot * 90, legal[0].meeples[0].feature);
        expect_error(p, "large_meeple_unavailable");
    }
    /* illegal_escape: no tile there, and no knight of the mover there */
    say(p,
        "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,"
        "\"escape\":{\"x\":7,\"y\":7,\"feature\":\"c1\"}",
        id, legal[0].x, legal[0].y, legal[0].rot * 90);
    expect_error(p, "illegal_escape");
    say(p,
        "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,"
        "\"escape\":{\"x\":0,\"y\":0,\"feature\":\"zz\"}",
        id, legal[0].x, legal[0].y, legal[0].rot * 90);
    expect_error(p, "illegal_escape");
    say(p,
        "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,"
        "\"escape\":{\"x\":0,\"y\":0,\"feature\":\"c1\"}",
        id, legal[0].x, legal[0].y, legal[0].rot * 90);
    expect_error(p, "illegal_escape");

    /* Nothing changed and nobody else heard a thing. */
    assert_unchanged(r, before);
    expect_nothing(p);
    expect_nothing(o);

    /* The move itself still works. */
    say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,\"meeple\":null", id,
        legal[0].x, legal[0].y, legal[0].rot * 90);
    expect(p, "delta");
    expect(p, "ack");
    expect(o, "delta");
}
END_TEST

START_TEST(farmers_off)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new();
    struct room *r = create(a, "2, \"options\": {\"farmers\": false}");
    join(b, a->room, "Bob");
    drain(a);
    say(a, "\"type\":\"start\"");
    drain(a);
    drain(b);
    struct fake *p = current(r, a, b);
    int t = r->game->tile;
    int f1 = carc_tile_seg_find(t, "f1");
    ck_assert_int_ge(f1, 0);
    struct proto_client_legal l;
    ck_assert_int_gt(proto_client_legal(p->doc, &l, 1), 0);
    say(p,
        "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,"
        "\"meeple\":{\"feature\":\"f1\",\"kind\":\"normal\"}",
        carc_tiles[t].id, l.x, l.y, l.rot * 90);
    expect_error(p, "farmers_off");
}
END_TEST

static void one_room(struct lobby_limits *l)
{
    l->max_rooms = 1;
}

START_TEST(room_limit)
{
    struct fake *a = fake_new(), *b = fake_new();
    create(a, "2");
    say(b, "\"type\":\"create\",\"name\":\"Bob\",\"seats\":2");
    expect_error(b, "limit_reached");
    ck_assert_int_eq(lb->nrooms, 1);
}
END_TEST

/* ---- seats, leave, host, lists ---- */

START_TEST(leave_and_host)
{
    struct fake *a = fake_new(), *b = fake_new(), *c = fake_new(), *w = fake_new();
    struct room *r = create(a, "3");
    join(b, a->room, "Bob");
    join(c, a->room, "Cy");
    say(w, "\"type\":\"watch\",\"room\":\"%s\",\"seq\":0", a->room);
    expect(w, "watching");
    /* seq 0 given: the two deltas since, then synced, no state */
    ck_assert_int_eq(jint(expect(w, "delta"), "seq"), 1);
    ck_assert_int_eq(jint(expect(w, "delta"), "seq"), 2);
    ck_assert_int_eq(jint(expect(w, "synced"), "seq"), 2);
    expect_nothing(w);
    drain(a);
    drain(b);

    /* The host leaves the lobby: seat freed, host passes to Bob. */
    say(a, "\"type\":\"leave\",\"id\":8");
    ck_assert_int_eq(jint(expect(a, "left"), "ref"), 8);
    expect_nothing(a);
    ck_assert_ptr_null(a->s.room);
    const char *d = expect(b, "delta");
    ck_assert_str_eq(jstr(d, "events.0.type"), "seat");
    /* A freed seat has no name (PROTOCOL.md Events). */
    ck_assert(strstr(d, "\"name\":null,\"taken\":false") != NULL);
    ck_assert_int_eq(r->host, 1);
    ck_assert_int_eq(proto_client_host(b->doc), 1);
    expect(c, "delta");
    expect(w, "delta");
    ck_assert_int_eq(r->seats[0].taken, 0);

    /* a can join again: the free seat 0 */
    join(a, b->room, "Ann2");
    ck_assert_int_eq(a->seat, 0);
    drain(b);
    drain(c);
    drain(w);

    /* Everyone leaves: the room goes away, the spectator is told. */
    say(a, "\"type\":\"leave\"");
    say(b, "\"type\":\"leave\"");
    say(c, "\"type\":\"leave\"");
    ck_assert_ptr_null(lobby_room_find(lb, b->room));
    ck_assert_int_eq(lb->nrooms, 0);
    drain(w);
    ck_assert_str_eq(jstr(w->last, "type"), "left");
    ck_assert_ptr_null(w->s.room);
    /* The spectator is free to create its own room. */
    create(w, "2");
}
END_TEST

START_TEST(list_rooms)
{
    struct fake *a = fake_new(), *b = fake_new(), *c = fake_new();
    create(a, "2, \"sets\": [\"base\", \"inns-cathedrals\"]");
    say(b, "\"type\":\"create\",\"name\":\"Bob\",\"seats\":4,\"private\":true");
    snprintf(b->room, sizeof b->room, "%s", jstr(expect(b, "joined"), "room"));
    expect(b, "state");
    say(c, "\"type\":\"list\",\"id\":\"l\"");
    const char *m = expect(c, "rooms");
    ck_assert_str_eq(jstr(m, "ref"), "l");
    struct proto_client_room rooms[4];
    ck_assert_int_eq(proto_client_rooms(m, strlen(m), rooms, 4), 1);
    ck_assert_str_eq(rooms[0].room, a->room);
    ck_assert_str_eq(rooms[0].host, "Ann");
    ck_assert_int_eq(rooms[0].seats, 2);
    ck_assert_int_eq(rooms[0].taken, 1);
    ck_assert_int_eq(rooms[0].phase, PROTO_PHASE_LOBBY);
    ck_assert(rooms[0].sets & (1u << CARC_SET_INNS_CATHEDRALS));
    char *arr = lobby_rooms_encode(lb, "", 0);
    ck_assert_int_eq(arr[0], '[');
    ck_assert_int_eq(proto_client_rooms(arr, strlen(arr), rooms, 4), 1);
    free(arr);
    /* A private room can still be joined by id. */
    join(c, b->room, "Cy");
}
END_TEST

/* ---- chat ---- */

START_TEST(chat)
{
    struct fake *a = fake_new(), *b = fake_new(), *w = fake_new();
    create(a, "2");
    join(b, a->room, "Bob");
    drain(a);
    say(w, "\"type\":\"watch\",\"room\":\"%s\"", a->room);
    drain(w);
    say(a, "\"type\":\"chat\",\"text\":\"hello\"");
    const char *m = expect(b, "chat");
    ck_assert_int_eq(jint(m, "seat"), 0);
    ck_assert_str_eq(jstr(m, "name"), "Ann");
    ck_assert_str_eq(jstr(m, "text"), "hello");
    expect(a, "chat");
    expect(w, "chat");
    say(w, "\"type\":\"chat\",\"text\":\"from the stands\"");
    m = expect(a, "chat");
    char *seat = proto_json_path_dump(m, strlen(m), "seat");
    ck_assert_str_eq(seat, "null");
    free(seat);
    drain(b);
    drain(w);

    /* Length cap (decoder): 281 bytes and empty are refused. */
    char big[300];
    memset(big, 'x', 281);
    big[281] = '\0';
    say(a, "\"type\":\"chat\",\"text\":\"%s\"", big);
    expect_error(a, "bad_request");
    say(a, "\"type\":\"chat\",\"text\":\"\"");
    expect_error(a, "bad_request");
    big[280] = '\0';
    say(a, "\"type\":\"chat\",\"text\":\"%s\"", big);
    expect(a, "chat");
    drain(b);
    drain(w);

    /* Rate cap: a's burst is spent (5, one already used above by the big one). */
    int sent = 0;
    for (int i = 0; i < 10; i++) {
        say(a, "\"type\":\"chat\",\"text\":\"spam %d\"", i);
        const char *r = pop(a);
        if (strcmp(jstr(r, "type"), "error") == 0) {
            ck_assert_str_eq(jstr(r, "code"), "rate_limited");
            break;
        }
        sent++;
    }
    ck_assert_int_lt(sent, 10);
    drain(b);
    /* A minute later it flows again. */
    now += 60000;
    say(a, "\"type\":\"chat\",\"text\":\"back\"");
    ck_assert_str_eq(jstr(expect(b, "chat"), "text"), "back");
    ck_assert_int_eq(a->closes, 0);
}
END_TEST

/* No two seats of a room have the same name to people (protocol/name.h):
 * a second "Ann" is refused with name_taken and changes nothing; a bot gets
 * a name no seat has; a name with a bidirectional control is bad_request. */
START_TEST(names_in_a_room)
{
    struct fake *a = fake_new(), *b = fake_new(), *c = fake_new();
    struct room *r = create(a, "4"); /* the host is "Ann" */
    drain(a);
    char *before = snapshot(r);
    const char *taken[] = {"Ann", "ann", " ANN ", "\\u00a0aNn\\u3000"};
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        say(b, "\"type\":\"join\",\"id\":7,\"room\":\"%s\",\"name\":\"%s\"", a->room, taken[i]);
        const char *e = expect_error(b, "name_taken");
        ck_assert_int_eq(jint(e, "ref"), 7);
        ck_assert_str_eq(jstr(e, "message"), "seat 0 has that name (case aside)");
    }
    say(b, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Ann\\u202e\"", a->room);
    const char *e = expect_error(b, "bad_request");
    ck_assert_str_eq(jstr(e, "message"), "name: must not contain U+202E (a bidirectional control)");
    say(b, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"\\u200bAnn\"", a->room);
    expect_error(b, "bad_request");
    expect_nothing(a); /* nobody else heard of any of it */
    assert_unchanged(r, before);
    /* A person named like a bot: the bot takes the next name, and nobody
     * takes the bot's. */
    join(b, a->room, " greedy BOT ");
    ck_assert_str_eq(r->seats[1].name, "greedy BOT");
    say(a, "\"type\":\"add_bot\",\"level\":\"greedy\"");
    ck_assert_str_eq(r->seats[2].name, "Greedy bot 2");
    say(c, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"GREEDY BOT 2\"", a->room);
    expect_error(c, "name_taken");
    join(c, a->room, "Annabel");
    ck_assert_int_eq(r->seats[3].taken, 1);
}
END_TEST

/* ---- rematch ---- */

/* Plays r to its end: each mover places the first legal placement. */
static void play_out(struct room *r, struct fake *a, struct fake *b, struct fake *w)
{
    int moves = 0;
    while (r->phase == PROTO_PHASE_PLAYING) {
        struct fake *p = current(r, a, b);
        struct proto_client_legal legal[1];
        ck_assert_int_gt(proto_client_legal(p->doc, legal, 1), 0);
        say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
            carc_tiles[proto_client_tile(p->doc)].id, legal[0].x, legal[0].y, legal[0].rot * 90);
        drain(a);
        drain(b);
        drain(w);
        ck_assert_int_lt(++moves, 100);
    }
}

/* rematch (PROTOCOL.md): only the host of a finished game; a new room with
 * the same seats, settings and bots, the host in seat 0 with a new token,
 * every other member told the new room's id; the others join it by name. */
START_TEST(rematch)
{
    struct fake *a, *b, *w = fake_new();
    struct room *r = two_player_game(&a, &b);
    char old[PROTO_ROOM_MAX];
    snprintf(old, sizeof old, "%s", r->id);
    say(w, "\"type\":\"watch\",\"room\":\"%s\"", old);
    drain(w);
    say(a, "\"type\":\"rematch\",\"id\":8");
    ck_assert_int_eq(jint(expect_error(a, "wrong_phase"), "ref"), 8);
    play_out(r, a, b, w);
    ck_assert_int_eq(r->phase, PROTO_PHASE_OVER);
    /* seat 1 was a bot's (as if Bob had been one): its level comes along */
    r->seats[1].bot = 1 + CARC_BOT_GREEDY;
    char *before = snapshot(r);
    say(b, "\"type\":\"rematch\"");
    expect_error(b, "not_host");
    say(w, "\"type\":\"rematch\"");
    expect_error(w, "spectator");
    assert_unchanged(r, before);
    int rooms = lb->nrooms;

    say(a, "\"type\":\"rematch\",\"id\":9");
    ck_assert_int_eq(lb->nrooms, rooms + 1);
    const char *j = expect(a, "joined");
    ck_assert_int_eq(jint(j, "ref"), 9);
    ck_assert_int_eq(jint(j, "seat"), 0);
    ck_assert(has(j, "token"));
    char id[PROTO_ROOM_MAX];
    snprintf(id, sizeof id, "%s", jstr(j, "room"));
    ck_assert_str_ne(id, old);
    struct room *n = lobby_room_find(lb, id);
    ck_assert_ptr_nonnull(n);
    ck_assert_ptr_eq(a->s.room, n);
    ck_assert_int_eq(n->phase, PROTO_PHASE_LOBBY);
    ck_assert_int_eq(n->nseats, 2);
    ck_assert_uint_eq(n->sets, r->sets);
    ck_assert_str_eq(n->seats[0].name, "Ann");
    ck_assert_int_eq(n->seats[1].bot, 1 + CARC_BOT_GREEDY);
    ck_assert_str_eq(n->seats[1].name, "Greedy bot");
    const char *m = expect(b, "rematch");
    ck_assert_str_eq(jstr(m, "room"), id);
    ck_assert_str_eq(jstr(m, "host"), "Ann");
    ck_assert_int_eq(jint(m, "seat"), 1);
    ck_assert(!has(m, "ref"));
    m = expect(w, "rematch");
    ck_assert_str_eq(jstr(m, "room"), id);
    ck_assert_str_eq(jdump(m, "seat"), "null");
    /* the finished room stays, Ann no longer connected to it */
    ck_assert_ptr_eq(lobby_room_find(lb, old), r);
    ck_assert_ptr_null(r->seats[0].s);
}
END_TEST

/* A rematch counts as a create: the server's room limit. */
START_TEST(rematch_limit)
{
    struct fake *a, *b;
    struct room *r = two_player_game(&a, &b);
    play_out(r, a, b, b);
    say(a, "\"type\":\"rematch\"");
    expect_error(a, "limit_reached");
    ck_assert_int_eq(lb->nrooms, 1);
    ck_assert_ptr_eq(a->s.room, r);
}
END_TEST

START_TEST(ids_and_tokens)
{
    char id[RAND_ROOM_LEN + 1], id2[RAND_ROOM_LEN + 1], tok[RAND_TOKEN_LEN + 1];
    rand_room_id(id);
    rand_room_id(id2);
    ck_assert_uint_eq(strlen(id), 8);
    ck_assert_str_ne(id, id2);
    for (int i = 0; i < 8; i++)
        ck_assert(strchr("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", id[i]) !=
                  NULL);
    rand_token(tok);
    ck_assert_uint_eq(strlen(tok), 32);
    ck_assert_uint_eq(strspn(tok, "0123456789abcdef"), 32);
}
END_TEST

/* ---- registry ---- */

static void setup_one_room(void)
{
    setup_with(one_room);
}
Suite *suite_room(void)
{
    Suite *s = suite_create("room");
    TCase *tc = tcase_with("lobby", setup_default);
    tcase_add_test(tc, full_game);
    tcase_add_test(tc, decode_errors);
    tcase_add_test(tc, lobby_errors);
    tcase_add_test(tc, play_errors);
    tcase_add_test(tc, farmers_off);
    tcase_add_test(tc, leave_and_host);
    tcase_add_test(tc, list_rooms);
    tcase_add_test(tc, chat);
    tcase_add_test(tc, ids_and_tokens);
    tcase_add_test(tc, names_in_a_room);
    tcase_add_test(tc, rematch);
    suite_add_tcase(s, tc);
    tc = tcase_with("limits", setup_one_room);
    tcase_add_test(tc, room_limit);
    tcase_add_test(tc, rematch_limit);
    suite_add_tcase(s, tc);
    return s;
}
