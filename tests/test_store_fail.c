/* test_store_fail.c: storage that fails its commits (issue 25), without a
 * loop, in store_util.h's world: every request is answered at once (what
 * needs a write is refused with storage_error, what reads is served from the
 * room's stored state), nothing is held while commits fail, what was held
 * when one failed is answered, held replies are bounded per connection and
 * in total (close 4001), and the store's health (GET /healthz, the metrics)
 * follows the commits. Run in suite_store and, on PostgreSQL, suite_store_pg
 * (store_fail_tests_add). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "http/api.h"
#include "metrics/metrics.h"
#include "store_util.h"
#include "tests.h"
#include "util/log.h"

static long long seq_of(const char *m)
{
    long long seq = -1;
    ck_assert_int_eq(proto_json_path_int(m, strlen(m), "seq", &seq), 0);
    return seq;
}

static void expect_error(struct fake *f, const char *code)
{
    ck_assert_str_eq(su_jstr(su_expect(f, "error"), "code"), code);
}

/* Placed tiles in a state message (the start tile included). */
static int board_size(const char *m)
{
    char *board = proto_json_path_dump(m, strlen(m), "state.board");
    ck_assert_ptr_nonnull(board);
    int n = 0;
    for (const char *p = strstr(board, "\"rot\":"); p != NULL; p = strstr(p + 1, "\"rot\":"))
        n++;
    free(board);
    return n;
}

/* A started game, one move stored, then a move whose commit fails: the
 * mover hears storage_error and both players the stored state at once. */
static struct room *failing_game(struct fake **pa, struct fake **pb, long long *stored)
{
    struct room *r = su_game(pa, pb);
    su_play_first(r, su_mover(r, *pa, *pb));
    su_commit();
    su_drain(*pa);
    su_drain(*pb);
    *stored = r->seq;
    struct fake *m = su_mover(r, *pa, *pb), *o = m == *pa ? *pb : *pa;
    store_test_fail(su_st, 1000);
    su_play_first(r, m);
    ck_assert_ptr_null(su_pop(m)); /* held: its commit is due */
    ck_assert_int_eq(store_flush(su_st), -1);
    expect_error(m, "storage_error");
    const char *st = su_expect(m, "state");
    ck_assert_int_eq(seq_of(st), *stored + 1); /* never above the stored seq + 1 */
    su_expect(m, "legal");                     /* still its turn: the move was undone */
    ck_assert_int_eq(seq_of(su_expect(o, "state")), *stored + 1);
    ck_assert_ptr_null(su_pop(o));
    ck_assert_int_eq(r->nmoves, 1);
    return r;
}

START_TEST(failing_storage_answers_every_request)
{
    world_open();
    struct fake *h = su_fake_new();
    char lobby_id[PROTO_ROOM_MAX];
    memcpy(lobby_id, su_create(h, "3")->id, sizeof lobby_id);
    struct fake *a, *b;
    long long stored;
    test_log_capture();
    struct room *r = failing_game(&a, &b, &stored);
    ck_assert(store_failing(su_st));
    /* Reads are served at once from what the room holds: the stored moves. */
    struct fake *w = su_fake_new();
    su_say(w, "\"type\":\"watch\",\"id\":3,\"room\":\"%s\",\"seq\":%lld", r->id, stored);
    ck_assert_ptr_nonnull(strstr(su_expect(w, "watching"), "\"ref\":3"));
    const char *st = su_expect(w, "state");
    ck_assert_ptr_nonnull(strstr(st, "\"ref\":3"));
    ck_assert_int_eq(seq_of(st), stored + 1);
    ck_assert_int_eq(board_size(st), 2); /* the start tile and the stored move */
    /* A catch-up is a state while commits fail: more than one document may
     * have carried this seq (room__rebase). */
    su_say(b, "\"type\":\"sync\",\"id\":4,\"seq\":%lld", stored + 1);
    ck_assert_ptr_nonnull(strstr(su_expect(b, "state"), "\"ref\":4"));
    su_drain(b);
    su_say(b, "\"type\":\"history\",\"id\":5");
    ck_assert_ptr_nonnull(strstr(su_expect(b, "history"), "\"ref\":5"));
    su_say(b, "\"type\":\"ping\",\"id\":6");
    su_expect(b, "pong");
    /* What needs a write is refused with storage_error. */
    su_say(b, "\"type\":\"chat\",\"text\":\"hello\"");
    expect_error(b, "storage_error");
    su_play_first(r, su_mover(r, a, b));
    expect_error(su_mover(r, a, b), "storage_error");
    struct fake *c = su_fake_new();
    su_say(c, "\"type\":\"create\",\"id\":8,\"name\":\"Cy\",\"seats\":2");
    expect_error(c, "storage_error");
    su_say(c, "\"type\":\"join\",\"id\":9,\"room\":\"%s\",\"name\":\"Cy\"", lobby_id);
    expect_error(c, "storage_error");
    /* A seat resumed elsewhere: served, and the others see it as a state. */
    struct fake *a2 = su_fake_new();
    su_say(a2, "\"type\":\"resume\",\"id\":10,\"room\":\"%s\",\"token\":\"%s\"", r->id, a->token);
    su_expect(a2, "joined");
    ck_assert_int_eq(seq_of(su_expect(a2, "state")), stored + 1);
    ck_assert_int_eq(a->s.close_code, SESSION_CLOSE_TAKEOVER);
    ck_assert_int_eq(r->nheld, 0); /* nothing waits for a commit that does not come */
    /* A dropped connection is told as a state at the same seq, at once. */
    lobby_session_close(su_lb, &w->s);
    /* The disk is back: the next commit works, moves go on. */
    store_test_fail(su_st, 0);
    su_commit();
    ck_assert(!store_failing(su_st));
    ck_assert_int_eq(r->seq_stored, stored + 1);
    struct fake *m = r->game->current == a2->s.seat ? a2 : b;
    su_drain(a2);
    su_drain(b);
    su_play_first(r, m);
    su_commit();
    ck_assert_int_eq(seq_of(su_expect(m, "delta")), stored + 2);
    test_log_release();
    world_close();
}
END_TEST

/* What waited for the commit that failed is answered: a watch and a sync
 * with the stored state and their refs, a join refused and its seat freed,
 * a new room refused and gone. */
START_TEST(failed_commit_answers_what_it_held)
{
    world_open();
    struct fake *a, *b;
    struct room *r = su_game(&a, &b);
    long long stored = r->seq;
    struct fake *w = su_fake_new(), *h = su_fake_new(), *j = su_fake_new();
    struct room *lr = su_create(h, "3");
    char lobby_id[PROTO_ROOM_MAX];
    memcpy(lobby_id, lr->id, sizeof lobby_id);
    struct fake *m = su_mover(r, a, b);
    test_log_capture();
    store_test_fail(su_st, 1);
    su_play_first(r, m);
    su_say(w, "\"type\":\"watch\",\"id\":21,\"room\":\"%s\"", r->id);
    su_say(m == a ? b : a, "\"type\":\"sync\",\"id\":22,\"seq\":%lld", stored);
    su_say(j, "\"type\":\"join\",\"id\":23,\"room\":\"%s\",\"name\":\"Jo\"", lobby_id);
    struct fake *c = su_fake_new();
    su_say(c, "\"type\":\"create\",\"id\":24,\"name\":\"Cy\",\"seats\":2");
    ck_assert_ptr_null(su_pop(w)); /* all held */
    ck_assert_ptr_null(su_pop(j));
    ck_assert_ptr_null(su_pop(c));
    ck_assert_int_eq(store_flush(su_st), -1);
    su_expect(w, "watching");
    const char *st = su_expect(w, "state");
    ck_assert_ptr_nonnull(strstr(st, "\"ref\":21"));
    ck_assert_int_eq(seq_of(st), stored + 1);
    ck_assert_ptr_null(su_pop(w)); /* one state: the catch-up's */
    st = su_expect(m == a ? b : a, "state");
    ck_assert_ptr_nonnull(strstr(st, "\"ref\":22"));
    /* The join: refused, its seat free again, the room as before. */
    const char *e = su_expect(j, "error");
    ck_assert_str_eq(su_jstr(e, "code"), "storage_error");
    ck_assert_ptr_nonnull(strstr(e, "\"ref\":23"));
    ck_assert_ptr_null(j->s.room);
    ck_assert_int_eq(room_taken(lr), 1);
    /* The create: refused, and the room it made is gone. */
    e = su_expect(c, "error");
    ck_assert_str_eq(su_jstr(e, "code"), "storage_error");
    ck_assert_ptr_nonnull(strstr(e, "\"ref\":24"));
    ck_assert_ptr_null(c->s.room);
    ck_assert_int_eq(su_lb->nrooms, 2);
    ck_assert_int_eq(su_lb->holds.bytes, 0);
    su_commit();
    test_log_release();
    world_close();
}
END_TEST

/* A commit that takes long (not failed yet): replies held for one
 * connection count against its outbound queue; past it, close 4001. */
START_TEST(held_replies_bounded_per_connection)
{
    world_open();
    struct fake *a, *b;
    struct room *r = su_game(&a, &b);
    su_play_first(r, su_mover(r, a, b)); /* a commit is due: everything is held */
    int n = 0;
    while (!b->s.closing && n < 1000) {
        su_say(b, "\"type\":\"sync\",\"id\":%d", n);
        n++;
    }
    ck_assert_int_eq(b->s.close_code, SESSION_CLOSE_OVERFLOW);
    ck_assert_int_le(n, (int)su_lb->lim.queue_messages);
    ck_assert_uint_le(b->s.held, su_lb->lim.queue_messages);
    ck_assert(!a->s.closing);
    su_commit();
    world_close();
}
END_TEST

/* ... and every room's held replies together count against held-bytes. */
START_TEST(held_replies_bounded_in_total)
{
    world_open();
    struct fake *a, *b;
    struct room *r = su_game(&a, &b);
    su_lb->holds.max = SIZE_MAX;
    su_play_first(r, su_mover(r, a, b));
    /* Room for the move's replies and about two watchers' states. */
    su_lb->holds.max = su_lb->holds.bytes + 4096;
    struct fake *w[8];
    int closed = 0;
    for (int i = 0; i < 8; i++) {
        w[i] = su_fake_new();
        su_say(w[i], "\"type\":\"watch\",\"room\":\"%s\"", r->id);
        closed += w[i]->s.close_code == SESSION_CLOSE_OVERFLOW;
    }
    ck_assert_int_gt(closed, 0);
    ck_assert_int_lt(closed, 8);
    ck_assert_uint_le(su_lb->holds.bytes, su_lb->holds.max);
    ck_assert(!a->s.closing && !b->s.closing);
    su_commit();
    ck_assert_uint_eq(su_lb->holds.bytes, 0);
    su_expect(w[0], "watching");
    world_close();
}
END_TEST

/* GET /healthz on api's listener (public, or the metrics port's): its
 * status, and its body in body. */
static int healthz(struct api *api, int metrics_port, char *body, size_t size)
{
    struct api_reply rep;
    if (metrics_port)
        api_route_metrics_port(api, "GET", "/healthz", &rep);
    else
        api_route(api, "GET", "/healthz", &rep);
    snprintf(body, size, "%.*s", (int)rep.len, rep.body);
    int status = rep.status;
    api_reply_free(&rep);
    return status;
}

START_TEST(health_follows_the_commits)
{
    world_open();
    log_level_set(LOG_WARN);
    struct store_health h;
    store_health_get(su_st, &h);
    ck_assert(!h.failing);
    store_health_get(NULL, &h); /* memory only: healthy */
    ck_assert(!h.failing);
    struct fake *a, *b;
    long long stored;
    test_log_capture();
    failing_game(&a, &b, &stored);
    store_health_get(su_st, &h);
    ck_assert(h.failing);
    ck_assert_str_eq(h.why, "a test failure");
    ck_assert_uint_gt(h.since_ms, 0);
    uint64_t since = h.since_ms;
    ck_assert(metrics_value("carcd_store_healthy", NULL) == 0);
    struct api api;
    ck_assert_int_eq(api_init(&api, su_lb, "clients/web"), 0);
    api.store = su_st;
    char body[128];
    for (int port = 0; port < 2; port++) {
        ck_assert_int_eq(healthz(&api, port, body, sizeof body), 503);
        ck_assert_str_eq(body, "storage failing: a test failure");
    }
    ck_assert(metrics_value("carcd_store_failing_since_timestamp_seconds", NULL) > 0);
    /* A retry that fails keeps the first failure's time. */
    store_flush(su_st);
    store_health_get(su_st, &h);
    ck_assert_uint_eq(h.since_ms, since);
    store_test_fail(su_st, 0);
    su_commit();
    store_health_get(su_st, &h);
    ck_assert(!h.failing);
    ck_assert_str_eq(h.why, "");
    ck_assert_uint_ge(h.failures, 1);
    ck_assert(metrics_value("carcd_store_healthy", NULL) == 1);
    for (int port = 0; port < 2; port++) {
        ck_assert_int_eq(healthz(&api, port, body, sizeof body), 200);
        ck_assert_str_eq(body, "ok");
    }
    api_fini(&api);
    ck_assert(metrics_value("carcd_store_failing_since_timestamp_seconds", NULL) == 0);
    test_log_release();
    ck_assert_msg(test_log_count("storage: commits work again") == 1, "log: %s", test_log_text());
    world_close();
}
END_TEST

void store_fail_tests_add(TCase *tc, int pg)
{
    (void)pg;
    tcase_add_test(tc, failing_storage_answers_every_request);
    tcase_add_test(tc, failed_commit_answers_what_it_held);
    tcase_add_test(tc, held_replies_bounded_per_connection);
    tcase_add_test(tc, held_replies_bounded_in_total);
    tcase_add_test(tc, health_follows_the_commits);
}
