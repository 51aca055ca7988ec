/* test_session.c: a connection's limits (server/conn/session.c, and the lobby that
 * enforces them in server/game/lobby.c and lobby_cmd.c) through the fake clients of
 * room_util.h: the message rate and flood buckets, the message size and frame
 * reassembly, the outbound queue, the idle timeout and room TTL, connections
 * per address, and the close codes of a shutdown. */
#include <stdlib.h>
#include <string.h>

#include "room_util.h"
#include "tests.h"
#include "util/log.h"

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

/* The per-address limits' key (session_peer_key): IPv4 exact, IPv4-mapped
 * IPv6 as IPv4, IPv6 by its network of ipv6-prefix bits, canonical. */
START_TEST(peer_key)
{
    static const struct {
        const char *peer;
        int prefix;
        const char *key;
    } cases[] = {
        {"203.0.113.7", 64, "203.0.113.7"},
        {"203.0.113.7", 128, "203.0.113.7"},
        {"::ffff:203.0.113.7", 64, "203.0.113.7"},
        {"::FFFF:cb00:7107", 48, "203.0.113.7"},
        {"2001:db8:1:2:3:4:5:6", 64, "2001:db8:1:2::/64"},
        {"2001:0db8:0001:0002:ffff:ffff:ffff:ffff", 64, "2001:db8:1:2::/64"},
        {"2001:db8:1:2::1", 128, "2001:db8:1:2::1"},
        {"2001:DB8:1:2:0:0:0:1", 128, "2001:db8:1:2::1"},
        {"2001:db8:1:2:3:4:5:6", 56, "2001:db8:1::/56"},
        {"2001:db8:1:2ff:3:4:5:6", 60, "2001:db8:1:2f0::/60"},
        {"2001:db8:1:2:3:4:5:6", 32, "2001:db8::/32"},
        {"2001:db8:1:2:3:4:5:6", 16, "2001:db8::/32"}, /* below the range: 32 */
        {"2001:db8:1:2:3:4:5:6", 200, "2001:db8:1:2:3:4:5:6"},
        {"::1", 64, "::/64"},
        {"fe80::1", 64, "fe80::/64"},
        {"", 64, ""},
        {"not an address", 64, "not an address"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char key[64];
        session_peer_key(cases[i].peer, cases[i].prefix, key, sizeof key);
        ck_assert_msg(strcmp(key, cases[i].key) == 0, "%s /%d: %s, not %s", cases[i].peer,
                      cases[i].prefix, key, cases[i].key);
    }
    /* Every form fits 64 bytes; a shorter buffer gets a cut, terminated key. */
    char key[64], small[8];
    session_peer_key("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 127, key, sizeof key);
    ck_assert_str_eq(key, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127");
    session_peer_key("2001:db8:1:2::1", 64, small, sizeof small);
    ck_assert_str_eq(small, "2001:db");
}
END_TEST

/* Two addresses of one IPv6 /64 are one address for max-conns-per-ip; the
 * next /64 is another; an IPv4-mapped peer is its IPv4 address. */
START_TEST(connections_per_ipv6_network)
{
    struct fake *a = fake_new_from("2001:db8:1:2::a");
    struct fake *b = fake_new_from("2001:db8:1:2:ffff:ffff:ffff:b");
    expect(a, "welcome");
    expect(b, "welcome");
    int level = log_level_get();
    log_level_set(LOG_INFO);
    test_log_capture();
    struct fake *c = fake_new_from("2001:db8:1:2::c");
    ck_assert_int_eq(c->closes, 1);
    ck_assert_int_eq(c->s.close_code, SESSION_CLOSE_POLICY);
    ck_assert_msg(test_log_count("too many connections from its network (ipv6-prefix)") == 1, "%s",
                  test_log_text());
    ck_assert_int_eq(test_log_count("addr=2001:db8:1:2::c"), 1);
    test_log_release();
    log_level_set(level);
    struct fake *d = fake_new_from("2001:db8:1:3::a");
    expect(d, "welcome");
    fake_free(a);
    struct fake *e = fake_new_from("2001:db8:1:2::c");
    expect(e, "welcome");
    struct fake *m1 = fake_new_from("10.0.0.9"), *m2 = fake_new_from("::ffff:10.0.0.9");
    expect(m1, "welcome");
    expect(m2, "welcome");
    struct fake *m3 = fake_new_from("10.0.0.9");
    ck_assert_int_eq(m3->closes, 1);
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

/* Lobby rooms and creates per address count a whole IPv6 /64. */
START_TEST(create_limits_ipv6_network)
{
    struct fake *a = fake_new_from("2001:db8:7:7::1"), *b = fake_new_from("2001:db8:7:7::2");
    struct fake *c = fake_new_from("2001:db8:7:7::3"), *d = fake_new_from("2001:db8:7:8::1");
    drain(a);
    drain(b);
    drain(c);
    drain(d);
    create(a, "2");
    create(b, "2");
    say(c, "\"type\":\"create\",\"name\":\"Cy\",\"seats\":2");
    expect_error(c, "too_many_rooms");
    create(d, "2"); /* another /64 */
    /* a's room goes with its last person: the network holds one, and its
     * third create of the minute is its last. */
    say(a, "\"type\":\"leave\"");
    expect(a, "left");
    create(c, "2");
    say(c, "\"type\":\"leave\"");
    expect(c, "left");
    struct fake *e = fake_new_from("2001:db8:7:7:1:2:3:4");
    drain(e);
    say(e, "\"type\":\"create\",\"name\":\"Eve\",\"seats\":2");
    expect_error(e, "rate_limited");
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
    tcase_add_test(tc, peer_key);
    suite_add_tcase(s, tc);
    tc = tcase_with("queue", setup_small_queue);
    tcase_add_test(tc, queue_overflow);
    suite_add_tcase(s, tc);
    tc = tcase_with("idle", setup_short_idle);
    tcase_add_test(tc, idle_and_ttl);
    suite_add_tcase(s, tc);
    tc = tcase_with("addresses", setup_two_per_ip);
    tcase_add_test(tc, connections_per_address);
    tcase_add_test(tc, connections_per_ipv6_network);
    suite_add_tcase(s, tc);
    tc = tcase_with("creates", setup_few_creates);
    tcase_add_test(tc, create_limits);
    tcase_add_test(tc, create_limits_ipv6_network);
    suite_add_tcase(s, tc);
    return s;
}
