/* test_cluster.c: the cluster's foundations against a real Redis
 * (redis_util.h starts Debian's redis-server on a loopback port): the
 * client on the loop (cluster/redis.h) and the room leases
 * (cluster/lease.h, test_lease.c). */
#include <check.h>
#include <string.h>
#include <uv.h>

#include "cluster/redis.h"
#include "redis_util.h"
#include "tests.h"

static struct ru_server srv;
static uv_loop_t loop;

static void setup(void)
{
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    ru_start(&srv, NULL);
    test_log_capture();
}

static void teardown(void)
{
    test_log_release();
    ru_stop(&srv);
}

/* The loop is left with nothing open. */
static void loop_done(void)
{
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}

struct got {
    int n, status, type;
    long long integer;
    char str[128];
    size_t elements;
};

static void on_got(void *arg, int status, const struct redis_reply *rep)
{
    struct got *g = arg;
    g->n++;
    g->status = status;
    if (rep != NULL) {
        g->type = rep->type;
        g->integer = rep->integer;
        g->elements = rep->elements;
        snprintf(g->str, sizeof g->str, "%s", rep->str != NULL ? rep->str : "");
    }
}

struct upd {
    int up, down;
};

static void on_state(void *arg, int up)
{
    struct upd *u = arg;
    if (up)
        u->up++;
    else
        u->down++;
}

static struct redis *client(struct upd *u, int command_ms)
{
    char url[128], err[160];
    ru_url(&srv, url, sizeof url);
    struct redis_opts o = {
        .connect_ms = 1000, .command_ms = command_ms, .state = on_state, .arg = u};
    struct redis *r = redis_new(&loop, url, &o, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    redis_start(r);
    ck_assert_msg(ru_loop_until(&loop, &u->up, 3000), "not connected: %s", test_log_text());
    return r;
}

static int cmd(struct redis *r, struct got *g, int argc, const char *const *argv)
{
    memset(g, 0, sizeof *g);
    return redis_command(r, on_got, g, argc, argv, NULL);
}

START_TEST(redis_roundtrip)
{
    struct upd u = {0};
    struct redis *r = client(&u, 0);
    ck_assert(redis_up(r));
    struct got a, b, c, d;
    ck_assert_int_eq(cmd(r, &a, 3, (const char *[]){"SET", "k", "v\0x"}), 0);
    ck_assert_int_eq(a.n, 0); /* never from inside the call */
    ck_assert_int_eq(cmd(r, &b, 2, (const char *[]){"GET", "k"}), 0);
    ck_assert_int_eq(cmd(r, &c, 2, (const char *[]){"INCR", "n"}), 0);
    ck_assert_int_eq(cmd(r, &d, 1, (const char *[]){"NOSUCHCOMMAND"}), 0);
    ck_assert(ru_loop_until(&loop, &d.n, 2000));
    ck_assert_int_eq(a.n, 1);
    ck_assert_int_eq(a.type, REDIS_T_STATUS);
    ck_assert_str_eq(a.str, "OK");
    ck_assert_int_eq(b.type, REDIS_T_STRING);
    ck_assert_str_eq(b.str, "v");
    ck_assert_int_eq(c.type, REDIS_T_INTEGER);
    ck_assert_int_eq(c.integer, 1);
    ck_assert_int_eq(d.status, 0); /* it ran, and Redis said no */
    ck_assert_int_eq(d.type, REDIS_T_ERROR);
    char out[64];
    ru_cmd(&srv, "GET n", out, sizeof out);
    ck_assert_str_eq(out, "1");
    /* an array reply */
    struct got e;
    ck_assert_int_eq(cmd(r, &e, 3, (const char *[]){"MGET", "k", "none"}), 0);
    ck_assert(ru_loop_until(&loop, &e.n, 2000));
    ck_assert_int_eq(e.type, REDIS_T_ARRAY);
    ck_assert_int_eq(e.elements, 2);
    struct redis_stats st;
    redis_stats_get(r, &st);
    ck_assert_int_eq(st.sent, 5);
    ck_assert_int_eq(st.replies, 5);
    ck_assert_int_eq(st.connects, 1);
    redis_close(r);
    loop_done();
}
END_TEST

START_TEST(redis_url_parse)
{
    char err[160];
    const char *bad[] = {
        "http://x",      "redis://",     "redis://:6379",  "redis://h:0",        "redis://h:70000",
        "redis://h:12x", "redis://[::1", "redis://h:1/db", "redis://secretpw@h", NULL};
    for (int i = 0; bad[i] != NULL; i++) {
        err[0] = '\0';
        ck_assert_msg(redis_new(&loop, bad[i], NULL, err, sizeof err) == NULL, "%s", bad[i]);
        ck_assert_msg(err[0] != '\0', "%s: no reason", bad[i]);
        ck_assert_msg(strstr(err, "secretpw") == NULL, "the password in: %s", err);
    }
    struct redis *r = redis_new(&loop, "redis://u:pw@[::1]:7000/3", NULL, err, sizeof err);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(redis_where(r), "::1:7000");
    redis_close(r);
    r = redis_new(&loop, "redis://localhost", NULL, err, sizeof err);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(redis_where(r), "localhost:6379");
    redis_close(r);
    loop_done();
}
END_TEST

/* Down at start: commands are refused without a callback; the client keeps
 * trying and comes up once the server does. */
START_TEST(redis_down_then_up)
{
    ru_kill(&srv);
    char url[128], err[160];
    ru_url(&srv, url, sizeof url);
    struct upd u = {0};
    struct redis_opts o = {.state = on_state, .arg = &u};
    struct redis *r = redis_new(&loop, url, &o, err, sizeof err);
    ck_assert_ptr_nonnull(r);
    redis_start(r);
    ru_loop_for(&loop, 400);
    ck_assert(!redis_up(r));
    struct got g;
    ck_assert_int_eq(cmd(r, &g, 2, (const char *[]){"GET", "k"}), REDIS_E_DOWN);
    ck_assert_msg(test_log_count("unreachable") >= 1, "%s", test_log_text());
    ru_restart(&srv);
    ck_assert(ru_loop_until(&loop, &u.up, 6000));
    ck_assert_int_eq(test_log_count("unreachable"), 1); /* said once, not at each try */
    ck_assert_int_eq(cmd(r, &g, 2, (const char *[]){"GET", "k"}), 0);
    ck_assert(ru_loop_until(&loop, &g.n, 2000));
    ck_assert_int_eq(g.type, REDIS_T_NIL);
    redis_close(r);
    loop_done();
    ck_assert_int_eq(g.n, 1);
}
END_TEST

/* A paused Redis: the command fails with REDIS_E_TIMEOUT after command_ms
 * (the loop went on), the connection is dropped, and made again when the
 * server wakes. */
START_TEST(redis_paused_times_out)
{
    struct upd u = {0};
    struct redis *r = client(&u, 300);
    ru_pause(&srv);
    struct got g;
    ck_assert_int_eq(cmd(r, &g, 2, (const char *[]){"GET", "k"}), 0);
    uint64_t t0 = uv_now(&loop);
    ck_assert(ru_loop_until(&loop, &g.n, 2000));
    uint64_t waited = uv_now(&loop) - t0;
    ck_assert_int_eq(g.status, REDIS_E_TIMEOUT);
    ck_assert_msg(waited >= 250 && waited < 1000, "failed after %llu ms",
                  (unsigned long long)waited);
    ck_assert_int_eq(u.down, 1);
    ck_assert(!redis_up(r));
    /* the kernel still accepts connections for the paused server: not up
     * until it answers */
    int before_pause = u.up;
    ru_loop_for(&loop, 500);
    ck_assert_int_eq(u.up, before_pause);
    ck_assert(!redis_up(r));
    ru_resume(&srv);
    int before = u.up;
    for (int i = 0; i < 600 && u.up == before; i++)
        ru_loop_for(&loop, 10);
    ck_assert_int_eq(u.up, before + 1);
    ck_assert_int_eq(cmd(r, &g, 1, (const char *[]){"PING"}), 0);
    ck_assert(ru_loop_until(&loop, &g.n, 2000));
    ck_assert_int_eq(g.status, 0);
    ck_assert_str_eq(g.str, "PONG");
    redis_close(r);
    loop_done();
}
END_TEST

/* The server dies with commands in flight: they fail (REDIS_E_DOWN), and
 * the client reconnects to its successor. */
START_TEST(redis_killed_reconnects)
{
    struct upd u = {0};
    struct redis *r = client(&u, 0);
    struct got g;
    ck_assert_int_eq(cmd(r, &g, 3, (const char *[]){"BLPOP", "nothing", "5"}), 0);
    ru_loop_for(&loop, 50);
    ru_kill(&srv);
    ck_assert(ru_loop_until(&loop, &g.n, 2000));
    ck_assert_int_eq(g.status, REDIS_E_DOWN);
    ck_assert_int_eq(u.down, 1);
    ru_restart(&srv);
    for (int i = 0; i < 600 && u.up < 2; i++)
        ru_loop_for(&loop, 10);
    ck_assert_int_eq(u.up, 2);
    redis_close(r);
    loop_done();
}
END_TEST

/* Closing with a command in flight: it completes with REDIS_E_CLOSED, later
 * commands are refused, and nothing of the client is left on the loop. */
START_TEST(redis_close_pending)
{
    struct upd u = {0};
    struct redis *r = client(&u, 0);
    struct got g;
    ck_assert_int_eq(cmd(r, &g, 3, (const char *[]){"BLPOP", "nothing", "5"}), 0);
    redis_close(r);
    ck_assert_int_eq(g.n, 1);
    ck_assert_int_eq(g.status, REDIS_E_CLOSED);
    loop_done();
}
END_TEST

/* A password from the URL (AUTH before the client counts as up); a wrong
 * one never comes up and is not logged. */
START_TEST(redis_auth)
{
    ru_stop(&srv);
    ru_start(&srv, "s3cretpass");
    struct upd u = {0};
    struct redis *r = client(&u, 0);
    struct got g;
    ck_assert_int_eq(cmd(r, &g, 3, (const char *[]){"SET", "a", "1"}), 0);
    ck_assert(ru_loop_until(&loop, &g.n, 2000));
    ck_assert_str_eq(g.str, "OK");
    redis_close(r);
    char url[128], err[160];
    snprintf(url, sizeof url, "redis://:wrongpass@127.0.0.1:%d", srv.port);
    struct upd w = {0};
    struct redis_opts o = {.state = on_state, .arg = &w};
    r = redis_new(&loop, url, &o, err, sizeof err);
    redis_start(r);
    ru_loop_for(&loop, 500);
    ck_assert_int_eq(w.up, 0);
    ck_assert_int_ge(test_log_count("refused the connection's setup"), 1);
    ck_assert_int_eq(test_log_count("wrongpass"), 0);
    ck_assert_int_eq(test_log_count("s3cretpass"), 0);
    redis_close(r);
    loop_done();
}
END_TEST

Suite *suite_cluster(void)
{
    Suite *s = suite_create("cluster");
    TCase *tc = tcase_create("redis");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, redis_roundtrip);
    tcase_add_test(tc, redis_url_parse);
    tcase_add_test(tc, redis_down_then_up);
    tcase_add_test(tc, redis_paused_times_out);
    tcase_add_test(tc, redis_killed_reconnects);
    tcase_add_test(tc, redis_close_pending);
    tcase_add_test(tc, redis_auth);
    suite_add_tcase(s, tc);
    return s;
}
