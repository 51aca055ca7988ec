/* test_session.c: a connection's limits (server/conn/session.c, and the lobby that
 * enforces them in server/game/lobby.c and lobby_cmd.c) through the fake clients of
 * room_util.h: the message rate and flood buckets, the message size and frame
 * reassembly, the outbound queue, the idle timeout and room TTL, connections
 * per address, and the close codes of a shutdown. */
#include <stdlib.h>
#include <string.h>

#include "room_util.h"
#include "tests.h"

/* ---- abuse ---- */

START_TEST(rate_limit_and_flood)
{
    struct fake *a = fake_new();
    int pongs = 0, limited = 0;
    /* All at one instant: the burst (40) passes, then rate_limited. */
    for (int i = 0; i < 60; i++)
        raw(a, "{\"v\":2,\"type\":\"ping\",\"id\":1}");
    const char *m;
    while ((m = pop(a)) != NULL) {
        if (strcmp(jstr(m, "type"), "pong") == 0)
            pongs++;
        else if (strcmp(jstr(m, "code"), "rate_limited") == 0) {
            limited++;
            ck_assert_int_eq(jint(m, "ref"), 1);
        }
    }
    ck_assert_int_eq(pongs, 40);
    ck_assert_int_eq(limited, 20);
    ck_assert_int_eq(a->closes, 0);
    /* Half a second later, 10 more pass. */
    now += 500;
    for (int i = 0; i < 10; i++)
        raw(a, "{\"v\":2,\"type\":\"ping\"}");
    for (int i = 0; i < 10; i++)
        expect(a, "pong");
    /* Far over (the flood bucket, 80 burst): closed with 1008. */
    for (int i = 0; i < 200 && !a->s.closing; i++)
        raw(a, "{\"v\":2,\"type\":\"ping\"}");
    ck_assert_int_eq(a->closes, 1);
    ck_assert_int_eq(a->s.close_code, SESSION_CLOSE_POLICY);
    /* Nothing more is handled. */
    drain(a);
    now += 100000;
    raw(a, "{\"v\":2,\"type\":\"ping\"}");
    expect_nothing(a);
}
END_TEST

START_TEST(message_too_big)
{
    struct fake *a = fake_new();
    size_t n = lb->lim.message_bytes + 1;
    char *big = malloc(n + 1);
    memset(big, ' ', n);
    big[n] = '\0';
    lobby_session_message(lb, &a->s, big, n, now);
    ck_assert_int_eq(a->closes, 1);
    ck_assert_int_eq(a->s.close_code, SESSION_CLOSE_TOO_BIG);
    free(big);
    /* The reassembly buffer refuses to grow past the limit too. */
    struct fake *b = fake_new();
    char chunk[4096];
    memset(chunk, 'x', sizeof chunk);
    ck_assert_int_eq(session_rx_append(&b->s, chunk, sizeof chunk, 0, 0), 0);
    ck_assert_int_eq(session_rx_append(&b->s, chunk, sizeof chunk, 0, 0), 0);
    ck_assert_int_eq(session_rx_append(&b->s, chunk, 10, 20000, 0), -1);
    session_rx_reset(&b->s);
    ck_assert_int_eq(session_rx_append(&b->s, "{\"v\":2,", 7, 0, 0), 0);
    ck_assert_int_eq(session_rx_append(&b->s, "\"type\":\"ping\"}", 14, 0, 1), 1);
    lobby_session_message(lb, &b->s, b->s.rx, b->s.rxlen, now);
    expect(b, "pong");
}
END_TEST

/* Frames the lobby does not see as messages (binary ones, fragments) pay the
 * same buckets through session_rx_charge (net/net.c): the rate's burst, then
 * rate_limited, then the flood close. */
START_TEST(frames_pay_the_buckets)
{
    struct fake *a = fake_new();
    const struct lobby_limits *l = &lb->lim;
    int ok = 0, limited = 0, rc = 0;
    for (int i = 0; i < 1000 && rc >= 0; i++) {
        rc = session_rx_charge(&a->s, l, now, 1);
        ok += rc == 0;
        limited += rc == 1;
    }
    ck_assert_int_eq(ok, l->burst);
    ck_assert_int_eq(ok + limited, l->flood_burst);
    ck_assert_int_eq(a->closes, 1);
    ck_assert_int_eq(a->s.close_code, SESSION_CLOSE_POLICY);
    /* Fragments pay the flood bucket only. */
    struct fake *b = fake_new();
    for (int i = 0; i < l->flood_burst; i++)
        ck_assert_int_eq(session_rx_charge(&b->s, l, now, 0), 0);
    ck_assert_int_eq(session_rx_charge(&b->s, l, now, 0), -1);
}
END_TEST

/* Bytes the kernel has not handed to the peer count toward queue-bytes. */
START_TEST(unsent_counts_toward_queue_bytes)
{
    struct fake *a = fake_new();
    a->s.unsent = (size_t)lb->lim.queue_bytes - 8;
    raw(a, "{\"v\":2,\"type\":\"ping\"}");
    ck_assert_int_eq(a->closes, 1);
    ck_assert_int_eq(a->s.close_code, SESSION_CLOSE_OVERFLOW);
    struct fake *b = fake_new();
    b->s.unsent = (size_t)lb->lim.queue_bytes / 2;
    raw(b, "{\"v\":2,\"type\":\"ping\"}");
    expect(b, "pong");
    ck_assert_int_eq(b->closes, 0);
}
END_TEST

/* A transport for session_flush(): takes `room` messages, the last of them
 * only in part (it answers 1), then none (-1), or all when room < 0. */
static int write_room, write_count;
static size_t write_bytes;

static int write_some(void *conn, struct sbuf *b)
{
    ck_assert_ptr_nonnull(conn);
    if (write_room == 0)
        return -1;
    write_count++;
    write_bytes += b->len;
    return write_room > 0 && --write_room == 0 ? 1 : 0;
}

/* One burst writes the queue oldest first, pops exactly what was written and
 * says whether anything is left; a refused message stays queued. */
START_TEST(flush_bursts)
{
    struct fake *a = fake_new();
    drain(a);
    for (int i = 0; i < 5; i++)
        raw(a, "{\"v\":2,\"type\":\"ping\"}");
    ck_assert_int_eq(queued(a), 5);
    size_t one = a->s.qbytes / 5;
    unsigned long sent = a->s.sent;
    write_room = 2, write_count = 0, write_bytes = 0;
    ck_assert_int_eq(session_flush(&a->s, write_some), 1);
    ck_assert_int_eq(write_count, 2);
    ck_assert_int_eq(queued(a), 3);
    ck_assert_uint_eq(a->s.qbytes, 3 * one);
    ck_assert_uint_eq(a->s.sent, sent + 2);
    write_room = 0;
    ck_assert_int_eq(session_flush(&a->s, write_some), -1);
    ck_assert_int_eq(queued(a), 3);
    write_room = -1;
    ck_assert_int_eq(session_flush(&a->s, write_some), 0);
    ck_assert_int_eq(write_count, 5);
    ck_assert_uint_eq(write_bytes, 5 * one);
    ck_assert_int_eq(queued(a), 0);
    ck_assert_uint_eq(a->s.qbytes, 0);
    ck_assert_uint_eq(a->s.sent, sent + 5);
    ck_assert_int_eq(session_flush(&a->s, write_some), 0); /* empty: nothing written */
    ck_assert_int_eq(write_count, 5);
    /* A close with flush keeps the queue for the transport to write first. */
    raw(a, "{\"v\":2,\"type\":\"ping\"}");
    session_close(&a->s, SESSION_CLOSE_GOING_AWAY, "bye", 1);
    ck_assert_int_eq(queued(a), 1);
    ck_assert_int_eq(session_flush(&a->s, write_some), 0);
    ck_assert_int_eq(write_count, 6);
}
END_TEST

static void small_queue(struct lobby_limits *l)
{
    l->queue_messages = 8;
}

START_TEST(queue_overflow)
{
    struct fake *a = fake_new(), *b = fake_new(), *slow = fake_new();
    create(a, "2");
    join(b, a->room, "Bob");
    drain(a);
    say(slow, "\"type\":\"watch\",\"room\":\"%s\"", a->room);
    /* slow never reads: watching + state are queued, then chat piles up. */
    for (int i = 0; i < 8; i++) {
        say(a, "\"type\":\"chat\",\"text\":\"m%d\"", i);
        now += 20000; /* stay under the chat rate */
        drain(a);
        drain(b);
    }
    ck_assert_int_eq(slow->closes, 1);
    ck_assert_int_eq(slow->s.close_code, SESSION_CLOSE_OVERFLOW);
    ck_assert_int_eq(queued(slow), 0); /* dropped at once */
    ck_assert_int_eq(a->closes, 0);
    ck_assert_int_eq(b->closes, 0);
    /* The others go on; the slow one is still a member until its
     * connection is gone, but gets nothing more. */
    say(a, "\"type\":\"chat\",\"text\":\"still here\"");
    expect(b, "chat");
    expect_nothing(slow);
    fake_free(slow);
    say(a, "\"type\":\"chat\",\"text\":\"bye\"");
    expect(b, "chat");
}
END_TEST

static void short_idle(struct lobby_limits *l)
{
    l->idle_timeout = 10;
    l->lobby_room_ttl = 30; /* the room below is in the lobby: this one counts */
    l->room_ttl = 3600;
}

START_TEST(idle_and_ttl)
{
    struct fake *a = fake_new(), *b = fake_new();
    create(a, "2");
    char room[PROTO_ROOM_MAX];
    snprintf(room, sizeof room, "%s", a->room);
    now += 5000;
    say(b, "\"type\":\"ping\"");
    now += 6000;
    lobby_tick(lb, now);
    /* a was silent for 11 s, b for 6 s */
    ck_assert_int_eq(a->closes, 1);
    ck_assert_int_eq(a->s.close_code, SESSION_CLOSE_IDLE);
    ck_assert_int_eq(b->closes, 0);
    fake_free(a);
    /* The room has nobody connected: kept for lobby_room_ttl, then deleted. */
    ck_assert_ptr_nonnull(lobby_room_find(lb, room));
    lobby_tick(lb, now);
    now += 29000;
    say(b, "\"type\":\"ping\"");
    lobby_tick(lb, now);
    ck_assert_ptr_nonnull(lobby_room_find(lb, room));
    now += 2000;
    say(b, "\"type\":\"ping\"");
    lobby_tick(lb, now);
    ck_assert_ptr_null(lobby_room_find(lb, room));
    ck_assert_int_eq(b->closes, 0);
}
END_TEST

static void two_per_ip(struct lobby_limits *l)
{
    l->conns_per_ip = 2;
}

START_TEST(connections_per_address)
{
    struct fake *a = fake_new_from("10.0.0.9"), *b = fake_new_from("10.0.0.9");
    expect(a, "welcome");
    expect(b, "welcome");
    struct fake *c = fake_new_from("10.0.0.9");
    ck_assert_int_eq(c->closes, 1);
    ck_assert_int_eq(c->s.close_code, SESSION_CLOSE_POLICY);
    expect_nothing(c);
    struct fake *d = fake_new_from("10.0.0.10");
    expect(d, "welcome");
    fake_free(c); /* a refused connection does not free a slot */
    struct fake *e = fake_new_from("10.0.0.9");
    ck_assert_int_eq(e->closes, 1);
    fake_free(e);
    fake_free(a);
    struct fake *f = fake_new_from("10.0.0.9");
    expect(f, "welcome");
    ck_assert_int_eq(f->closes, 0);
}
END_TEST

static void few_creates(struct lobby_limits *l)
{
    l->lobby_rooms_ip = 2;
    l->create_rate = 2;
    l->create_rate_ip = 3;
}

/* Room creation limits (PROTOCOL.md "create"): lobby rooms per address,
 * creates per connection and per address, a minute each. */
START_TEST(create_limits)
{
    struct fake *a = fake_new_from("10.0.0.9"), *b = fake_new_from("10.0.0.9");
    struct fake *c = fake_new_from("10.0.0.9"), *d = fake_new_from("10.0.0.10");
    drain(a);
    drain(b);
    drain(c);
    drain(d);
    create(a, "2");
    create(b, "2");
    say(c, "\"type\":\"create\",\"name\":\"Cy\",\"seats\":2");
    expect_error(c, "too_many_rooms");
    create(d, "2"); /* another address */
    /* a's room goes with its last person: the address holds one. */
    say(a, "\"type\":\"leave\"");
    expect(a, "left");
    create(c, "2");
    say(c, "\"type\":\"leave\"");
    expect(c, "left");
    /* three creates from 10.0.0.9 this minute: its rate is spent, on any connection */
    struct fake *e = fake_new_from("10.0.0.9");
    drain(e);
    say(e, "\"type\":\"create\",\"name\":\"Eve\",\"seats\":2");
    expect_error(e, "rate_limited");
    now += 60000;
    create(e, "2");
    /* d: two creates per connection a minute */
    say(d, "\"type\":\"leave\"");
    expect(d, "left");
    for (int i = 0; i < 2; i++) { /* its bucket refilled in that minute */
        create(d, "2");
        say(d, "\"type\":\"leave\"");
        expect(d, "left");
    }
    say(d, "\"type\":\"create\",\"name\":\"Dan\",\"seats\":2");
    expect_error(d, "rate_limited");
    /* a room that starts no longer counts for its address */
    struct fake *j = fake_new_from("10.0.0.11");
    drain(j);
    join(j, b->room, "Jo");
    drain(b);
    say(b, "\"type\":\"start\"");
    expect(b, "delta");
    struct fake *f = fake_new_from("10.0.0.9");
    drain(f);
    create(f, "2");
}
END_TEST

START_TEST(shutdown)
{
    struct fake *a = fake_new(), *b = fake_new();
    create(a, "2");
    say(b, "\"type\":\"ping\"");
    lobby_shutdown(lb);
    ck_assert_int_eq(a->closes, 1);
    ck_assert_int_eq(b->closes, 1);
    ck_assert_int_eq(a->s.close_code, SESSION_CLOSE_GOING_AWAY);
    ck_assert_str_eq(a->s.close_reason, "server restarting, retry");
    ck_assert(a->s.close_flush);
    /* b's pong is still delivered before the close */
    expect(b, "pong");
    struct fake *c = fake_new_from("10.0.0.2");
    ck_assert_int_eq(c->closes, 1);
    ck_assert_int_eq(c->s.close_code, SESSION_CLOSE_GOING_AWAY);
}
END_TEST

/* ---- registry ---- */

static void setup_small_queue(void)
{
    setup_with(small_queue);
}
static void setup_short_idle(void)
{
    setup_with(short_idle);
}
static void setup_two_per_ip(void)
{
    setup_with(two_per_ip);
}
static void setup_few_creates(void)
{
    setup_with(few_creates);
}

Suite *suite_session(void)
{
    Suite *s = suite_create("session");
    TCase *tc = tcase_with("lobby", setup_default);
    tcase_add_test(tc, rate_limit_and_flood);
    tcase_add_test(tc, message_too_big);
    tcase_add_test(tc, frames_pay_the_buckets);
    tcase_add_test(tc, unsent_counts_toward_queue_bytes);
    tcase_add_test(tc, flush_bursts);
    tcase_add_test(tc, shutdown);
    suite_add_tcase(s, tc);
    tc = tcase_with("queue", setup_small_queue);
    tcase_add_test(tc, queue_overflow);
    suite_add_tcase(s, tc);
    tc = tcase_with("idle", setup_short_idle);
    tcase_add_test(tc, idle_and_ttl);
    suite_add_tcase(s, tc);
    tc = tcase_with("addresses", setup_two_per_ip);
    tcase_add_test(tc, connections_per_address);
    suite_add_tcase(s, tc);
    tc = tcase_with("creates", setup_few_creates);
    tcase_add_test(tc, create_limits);
    suite_add_tcase(s, tc);
    return s;
}
