/* test_resume.c: a player who comes back (server/game/lobby_cmd.c, room.c)
 * through the fake clients of room_util.h: resume with and without a seq,
 * sync, a takeover by a newer connection, the history ring kept for them
 * (bounded in count and bytes), and `history` for a late spectator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "room_util.h"
#include "tests.h"

static void short_history(struct lobby_limits *l)
{
    l->history = 4;
}

/* What a resume with seq `seen` queues on f after its `joined`: every kept
 * delta after seen in order, then `synced` with the request's ref (1), then
 * `legal` when the resumed seat (1) is to move. */
static void expect_catch_up(struct fake *f, struct room *r, long long seen)
{
    long long want = seen + 1;
    const char *m;
    int synced = 0;
    while ((m = session_peek(&f->s) != NULL ? session_peek(&f->s)->data : NULL) != NULL) {
        if (want == r->seq + 1 && !synced) { /* the end of the catch-up, with the request's ref */
            ck_assert_str_eq(jstr(m, "type"), "synced");
            ck_assert_int_eq(jint(m, "seq"), r->seq);
            ck_assert_int_eq(jint(m, "ref"), 1);
            session_pop(&f->s);
            synced = 1;
            /* then the list, when the resumed seat is to move */
            m = session_peek(&f->s) != NULL ? session_peek(&f->s)->data : "";
            ck_assert_int_eq(strstr(m, "\"type\":\"legal\"") != NULL, r->game->current == 1);
            if (r->game->current == 1) {
                ck_assert_int_eq(jint(m, "player"), 1);
                ck_assert_int_eq(jint(m, "seq"), r->seq);
                session_pop(&f->s);
            }
            continue;
        }
        ck_assert_str_eq(jstr(m, "type"), "delta");
        ck_assert_int_eq(jint(m, "seq"), want);
        want++;
        session_pop(&f->s);
    }
    ck_assert_int_eq(want, r->seq + 1);
    ck_assert(synced);
}

/* sync: deltas then synced when kept (none at the current seq), a state
 * when not. */
static void expect_sync_answers(struct fake *b3, struct room *r)
{
    say(b3, "\"type\":\"sync\",\"seq\":%lld", r->seq - 1);
    ck_assert_int_eq(jint(expect(b3, "delta"), "seq"), r->seq);
    ck_assert_int_eq(jint(expect(b3, "synced"), "seq"), r->seq);
    expect_nothing(b3);
    say(b3, "\"type\":\"sync\",\"id\":\"s\",\"seq\":%lld", r->seq);
    const char *sy = expect(b3, "synced");
    ck_assert_int_eq(jint(sy, "seq"), r->seq);
    ck_assert_str_eq(jstr(sy, "ref"), "s");
    expect_nothing(b3);
    say(b3, "\"type\":\"sync\",\"seq\":0");
    for (long long q = 1; q <= r->seq; q++)
        ck_assert_int_eq(jint(expect(b3, "delta"), "seq"), q);
    expect(b3, "synced");
    expect_nothing(b3);
    /* a seq the room has not reached: a state */
    say(b3, "\"type\":\"sync\",\"id\":2,\"seq\":%lld", r->seq + 1);
    const char *s = expect(b3, "state");
    ck_assert_int_eq(jint(s, "ref"), 2);
    ck_assert_int_eq(jint(s, "seq"), r->seq);
}

START_TEST(resume_with_and_without_seq)
{
    struct fake *a, *b;
    struct room *r = two_player_game(&a, &b);
    char token[PROTO_TOKEN_MAX], room[PROTO_ROOM_MAX];
    snprintf(token, sizeof token, "%s", b->token);
    snprintf(room, sizeof room, "%s", b->room);
    long long seen = proto_client_doc_seq(b->doc);
    ck_assert_int_eq(seen, r->seq);

    /* b's connection drops: a sees the seat disconnected. */
    fake_free(b);
    const char *d = expect(a, "delta");
    ck_assert_int_eq(jint(d, "seq"), seen + 1);
    ck_assert_str_eq(jstr(d, "events.0.type"), "seat");
    struct proto_client_seat st;
    ck_assert_int_eq(proto_client_seat_get(a->doc, 1, &st), 0);
    ck_assert_int_eq(st.connected, 0);
    ck_assert_int_eq(st.taken, 1);
    /* a plays on while b is away */
    if (r->game->current == a->seat) {
        struct proto_client_legal l;
        proto_client_legal(a->doc, &l, 1);
        say(a, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
            carc_tiles[r->game->tile].id, l.x, l.y, l.rot * 90);
        expect(a, "delta");
        expect(a, "ack");
    }

    /* Resume with seq: joined (no token), the missing deltas, then the
     * connect delta everyone else gets too. */
    struct fake *b2 = fake_new();
    long long target = r->seq + 1;
    say(b2, "\"type\":\"resume\",\"id\":1,\"room\":\"%s\",\"token\":\"%s\",\"seq\":%lld", room,
        token, seen);
    const char *j = expect(b2, "joined");
    ck_assert(!has(j, "token"));
    ck_assert_int_eq(jint(j, "seat"), 1);
    ck_assert_int_eq(jint(j, "ref"), 1);
    ck_assert_int_eq(r->seq, target);
    expect_catch_up(b2, r, seen);
    d = expect(a, "delta");
    ck_assert_int_eq(jint(d, "seq"), r->seq);
    ck_assert_int_eq(proto_client_seat_get(a->doc, 1, &st), 0);
    ck_assert_int_eq(st.connected, 1);

    /* Resume without seq: a state. */
    struct fake *b3 = fake_new();
    say(b3, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", room, token);
    expect(b3, "joined");
    ck_assert_int_eq(jint(expect(b3, "state"), "seq"), r->seq);
    expect_nothing(b3);
    /* b2 was taken over: closed with 4000, not told anything else. */
    ck_assert_int_eq(b2->closes, 1);
    ck_assert_int_eq(b2->s.close_code, SESSION_CLOSE_TAKEOVER);
    ck_assert_ptr_null(b2->s.room);
    /* The seat stayed connected: no delta to a. */
    expect_nothing(a);
    ck_assert_ptr_eq(r->seats[1].s, &b3->s);
    /* The old connection going away later changes nothing. */
    fake_free(b2);
    expect_nothing(a);
    ck_assert_ptr_eq(r->seats[1].s, &b3->s);

    expect_sync_answers(b3, r);
}
END_TEST

START_TEST(resume_too_old)
{
    struct fake *a = fake_new(), *b = fake_new(), *c = fake_new();
    struct room *r = create(a, "4");
    join(b, a->room, "Bob");
    /* Many seat changes: more deltas than the history keeps. */
    for (int i = 0; i < 3; i++) {
        join(c, a->room, "Cy");
        say(c, "\"type\":\"leave\"");
        expect(c, "left");
    }
    ck_assert_int_gt(r->seq, 5);
    drain(b);
    say(b, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\",\"seq\":1", a->room, b->token);
    /* b is already on that seat: joined, then a state (seq 1 is too old) */
    expect(b, "joined");
    drain(b);
    ck_assert_str_eq(jstr(b->last, "type"), "state");
    ck_assert_int_eq(jint(b->last, "seq"), r->seq);
    /* within the history: deltas */
    say(b, "\"type\":\"sync\",\"seq\":%lld", r->seq - 4);
    for (int i = 3; i >= 0; i--)
        ck_assert_int_eq(jint(expect(b, "delta"), "seq"), r->seq - i);
    ck_assert_int_eq(jint(expect(b, "synced"), "seq"), r->seq);
    say(b, "\"type\":\"sync\",\"seq\":%lld", r->seq - 5);
    expect(b, "state");
    /* a seat token from another room is refused */
    struct fake *d = fake_new();
    create(d, "2");
    say(d, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", a->room, d->token);
    expect_error(d, "bad_token");
    /* resuming a seat elsewhere moves the session: d leaves its room */
    say(d, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", a->room, a->token);
    expect(d, "joined");
    ck_assert_ptr_eq(d->s.room, r);
    ck_assert_int_eq(a->closes, 1);
    ck_assert_int_eq(a->s.close_code, SESSION_CLOSE_TAKEOVER);
    ck_assert_int_eq(lb->nrooms, 2); /* d's old lobby room keeps its (disconnected) seat */
}
END_TEST

/* The history also gives way by bytes: the deltas kept add up to at most
 * history-bytes, however many the count would allow. */
START_TEST(history_bounded_by_bytes)
{
    struct fake *a = fake_new(), *b = fake_new(), *c = fake_new();
    struct room *r = create(a, "4");
    join(b, a->room, "Bob");
    for (int i = 0; i < 8; i++) {
        join(c, a->room, "Cy");
        say(c, "\"type\":\"leave\"");
        expect(c, "left");
    }
    /* What is kept: the newest deltas, within the bound, and at least one. */
    size_t kept = 0;
    for (long long q = r->hist_first; q <= r->seq; q++)
        kept += r->hist[q % r->hist_cap]->len;
    ck_assert_uint_eq(kept, r->hist_bytes);
    ck_assert_uint_le(r->hist_bytes, r->hist_max_bytes);
    long long n = r->seq - r->hist_first + 1;
    ck_assert_int_ge(n, 1);
    ck_assert_int_lt(n, 16);         /* the count alone would keep 32 */
    ck_assert_int_gt(r->seq, n + 4); /* the bytes, not the count, dropped the others */
    drain(b);
    /* Within what is kept: deltas; below it: a state. */
    say(b, "\"type\":\"sync\",\"seq\":%lld", r->hist_first - 1);
    for (long long q = r->hist_first; q <= r->seq; q++)
        ck_assert_int_eq(jint(expect(b, "delta"), "seq"), q);
    expect(b, "synced");
    say(b, "\"type\":\"sync\",\"seq\":%lld", r->hist_first - 2);
    expect(b, "state");
}
END_TEST

static void setup_short_history(void)
{
    setup_with(short_history);
}
static void small_history_bytes(struct lobby_limits *l)
{
    l->history = 32;
    l->history_bytes = 1024;
}
static void setup_small_history_bytes(void)
{
    setup_with(small_history_bytes);
}

/* `history`: a late spectator gets every turn's events as the deltas told
 * them, and the chat; in the lobby, no turns. */
START_TEST(history_for_late_comers)
{
    struct fake *a, *b;
    struct room *r = two_player_game(&a, &b);
    say(a, "\"type\":\"chat\",\"text\":\"good luck\"");
    drain(a);
    drain(b);
    char seen[4][4096];
    for (int k = 0; k < 4; k++) {
        struct fake *p = current(r, a, b), *o = p == a ? b : a;
        struct proto_client_legal l[1];
        ck_assert_int_gt(proto_client_legal(p->doc, l, 1), 0);
        say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
            carc_tiles[proto_client_tile(p->doc)].id, l[0].x, l[0].y, l[0].rot * 90);
        const char *d = expect(o, "delta");
        const char *ev = strstr(d, "\"events\":"), *end = strstr(d, ",\"patch\":");
        ck_assert(ev != NULL && end != NULL && end - ev < 4000);
        snprintf(seen[k], sizeof seen[k], "%.*s", (int)(end - ev), ev);
        drain(a);
        drain(b);
    }
    struct fake *w = fake_new();
    say(w, "\"type\":\"watch\",\"room\":\"%s\"", a->room);
    drain(w);
    say(w, "\"type\":\"history\",\"id\":4");
    const char *h = expect(w, "history");
    ck_assert_int_eq(jint(h, "ref"), 4);
    for (int k = 0; k < 4; k++) {
        char key[32];
        snprintf(key, sizeof key, "turns.%d.move", k);
        ck_assert_int_eq(jint(h, key), k);
        ck_assert_msg(strstr(h, seen[k]) != NULL, "turn %d: %s not in %s", k, seen[k], h);
    }
    ck_assert(!has(h, "turns.4"));
    ck_assert_str_eq(jstr(h, "chat.0.text"), "good luck");
    ck_assert_str_eq(jstr(h, "chat.0.name"), "Ann");
    ck_assert(strstr(h, "\"seed\"") == NULL && strstr(h, "\"deck\"") == NULL);
    /* Nor the fair draw's secret (only the state's commitment is public). */
    ck_assert(r->fair_secret[0] != '\0' && strstr(h, r->fair_secret) == NULL);
    /* In the lobby there are no turns yet. */
    struct fake *c = fake_new();
    create(c, "2");
    say(c, "\"type\":\"history\",\"id\":5");
    h = expect(c, "history");
    ck_assert(!has(h, "turns.0") && !has(h, "chat.0"));
    /* Not in a room: refused. */
    struct fake *d = fake_new();
    say(d, "\"type\":\"history\"");
    expect_error(d, "not_in_room");
}
END_TEST

Suite *suite_resume(void)
{
    Suite *s = suite_create("resume");
    TCase *tc = tcase_with("resume", setup_default);
    tcase_add_test(tc, resume_with_and_without_seq);
    suite_add_tcase(s, tc);
    tc = tcase_with("history", setup_short_history);
    tcase_add_test(tc, resume_too_old);
    suite_add_tcase(s, tc);
    tc = tcase_with("history bytes", setup_small_history_bytes);
    tcase_add_test(tc, history_bounded_by_bytes);
    tcase_add_test(tc, history_for_late_comers);
    suite_add_tcase(s, tc);
    return s;
}
