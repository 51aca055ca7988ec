/* test_lease.c: room leases (cluster/lease.h) between two nodes, each with
 * its own loop and Redis client, against one real redis-server. A node is
 * "paused" by not running its loop, as SIGSTOP would: its timers do not
 * fire and it learns nothing until it runs again. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "cluster/lease.h"
#include "cluster/redis.h"
#include "redis_util.h"
#include "tests.h"

static struct ru_server srv;

struct node {
    uv_loop_t loop;
    struct redis *r;
    struct lease_set *ls;
    int up;
    int lost;
    char lost_room[LEASE_ROOM_MAX];
    uint64_t lost_fence;
    int closed;
};

static struct node na, nb;

struct got {
    int n, status;
    uint64_t fence;
    char holder[64];
};

static void on_got(void *arg, int status, uint64_t fence, const char *holder)
{
    struct got *g = arg;
    g->n++;
    g->status = status;
    g->fence = fence;
    snprintf(g->holder, sizeof g->holder, "%s", holder);
}

static void on_state(void *arg, int up)
{
    ((struct node *)arg)->up = up;
}

static void on_lost(void *arg, const char *room, uint64_t fence)
{
    struct node *n = arg;
    n->lost++;
    snprintf(n->lost_room, sizeof n->lost_room, "%s", room);
    n->lost_fence = fence;
}

static void on_closed(void *arg)
{
    ((struct node *)arg)->closed = 1;
}

static void node_open(struct node *n, const char *id, int ttl)
{
    memset(n, 0, sizeof *n);
    ck_assert_int_eq(uv_loop_init(&n->loop), 0);
    char url[128], err[160];
    ru_url(&srv, url, sizeof url);
    struct redis_opts o = {.command_ms = 200, .state = on_state, .arg = n};
    n->r = redis_new(&n->loop, url, &o, err, sizeof err);
    ck_assert_ptr_nonnull(n->r);
    redis_start(n->r);
    ck_assert(ru_loop_until(&n->loop, &n->up, 3000));
    struct lease_opts lo = {.node = id, .ttl_ms = ttl};
    struct lease_hooks h = {on_lost, n};
    n->ls = lease_set_new(&n->loop, n->r, &lo, &h, err, sizeof err);
    ck_assert_msg(n->ls != NULL, "%s", err);
}

/* Clean shutdown: leases released, then the client; the loop left empty. */
static void node_close(struct node *n)
{
    if (n->ls != NULL)
        lease_set_close(n->ls, on_closed, n);
    ck_assert(ru_loop_until(&n->loop, &n->closed, 2000));
    redis_close(n->r);
    uv_run(&n->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&n->loop), 0);
}

/* Both nodes run for ms. */
static void run_both(int ms)
{
    for (int i = 0; i < ms / 2; i++) {
        uv_run(&na.loop, UV_RUN_NOWAIT);
        uv_run(&nb.loop, UV_RUN_NOWAIT);
        struct timespec ts = {0, 2 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

static void until_both(const int *flag, int ms)
{
    for (int i = 0; i < ms / 2 && !*flag; i++)
        run_both(2);
    ck_assert_msg(*flag, "nothing came within %d ms", ms);
}

static void setup(void)
{
    ru_start(&srv, NULL);
    test_log_capture();
}

static void teardown(void)
{
    test_log_release();
    ru_stop(&srv);
}

/* Two nodes ask for one room in the same turn: one gets it, the other is
 * told who has it. */
START_TEST(lease_race)
{
    node_open(&na, "node-a", 1000);
    node_open(&nb, "node-b", 1000);
    struct got ga = {0}, gb = {0};
    ck_assert_int_eq(lease_acquire(na.ls, "R1", 0, on_got, &ga), 0);
    ck_assert_int_eq(lease_acquire(nb.ls, "R1", 0, on_got, &gb), 0);
    ck_assert_int_eq(lease_acquire(na.ls, "R1", 0, on_got, &ga), LEASE_E_BUSY);
    ck_assert_int_eq(ga.n + gb.n, 0);
    until_both(&ga.n, 2000);
    until_both(&gb.n, 2000);
    struct got *win = ga.status == 0 ? &ga : &gb, *lose = win == &ga ? &gb : &ga;
    struct node *w = win == &ga ? &na : &nb, *l = w == &na ? &nb : &na;
    ck_assert_int_eq(win->status, 0);
    ck_assert_int_eq(win->fence, 1);
    ck_assert_int_eq(lose->status, LEASE_E_HELD);
    ck_assert_str_eq(lose->holder, w == &na ? "node-a" : "node-b");
    ck_assert_int_eq(lose->fence, 0);
    ck_assert_int_eq(lease_fence(w->ls, "R1"), 1);
    ck_assert_int_eq(lease_fence(l->ls, "R1"), 0);
    ck_assert_int_eq(lease_count(w->ls), 1);
    ck_assert_int_eq(lease_count(l->ls), 0);
    char out[64];
    ru_cmd(&srv, "GET carcd:lease:R1", out, sizeof out);
    ck_assert_str_eq(out, w == &na ? "node-a:1" : "node-b:1");
    node_close(&na);
    node_close(&nb);
}
END_TEST

/* A lease renewed while its node runs outlives its ttl many times. */
START_TEST(lease_renewed)
{
    node_open(&na, "node-a", 600);
    struct got g = {0};
    ck_assert_int_eq(lease_acquire(na.ls, "R1", 0, on_got, &g), 0);
    ck_assert(ru_loop_until(&na.loop, &g.n, 2000));
    ck_assert_int_eq(g.status, 0);
    ru_loop_for(&na.loop, 2000);
    ck_assert_int_eq(na.lost, 0);
    ck_assert_int_eq(lease_fence(na.ls, "R1"), g.fence);
    char out[64];
    ru_cmd(&srv, "PTTL carcd:lease:R1", out, sizeof out);
    ck_assert_msg(atoi(out) > 0 && atoi(out) <= 600, "PTTL %s", out);
    node_close(&na);
}
END_TEST

/* The owner is paused past its ttl: the lease expires in Redis and another
 * node takes it with a higher fence; the owner, woken, finds it lost
 * before it writes anything. */
START_TEST(lease_paused_owner_loses)
{
    node_open(&na, "node-a", 300);
    node_open(&nb, "node-b", 300);
    struct got ga = {0}, gb = {0};
    ck_assert_int_eq(lease_acquire(na.ls, "R1", 0, on_got, &ga), 0);
    ck_assert(ru_loop_until(&na.loop, &ga.n, 2000));
    ck_assert_int_eq(ga.status, 0);
    /* a pauses; b is refused while the lease lasts */
    ck_assert_int_eq(lease_acquire(nb.ls, "R1", 0, on_got, &gb), 0);
    ck_assert(ru_loop_until(&nb.loop, &gb.n, 2000));
    ck_assert_int_eq(gb.status, LEASE_E_HELD);
    ck_assert_str_eq(gb.holder, "node-a");
    ru_loop_for(&nb.loop, 400);
    memset(&gb, 0, sizeof gb);
    ck_assert_int_eq(lease_acquire(nb.ls, "R1", 0, on_got, &gb), 0);
    ck_assert(ru_loop_until(&nb.loop, &gb.n, 2000));
    ck_assert_int_eq(gb.status, 0);
    ck_assert_int_gt(gb.fence, ga.fence);
    /* a wakes */
    uv_update_time(&na.loop);
    ck_assert_int_eq(lease_fence(na.ls, "R1"), 0);
    ck_assert(ru_loop_until(&na.loop, &na.lost, 1000));
    ck_assert_str_eq(na.lost_room, "R1");
    ck_assert_int_eq(na.lost_fence, ga.fence);
    ck_assert_int_eq(lease_count(na.ls), 0);
    /* and b keeps it: a's wake-up did not touch b's key */
    run_both(400);
    ck_assert_int_eq(lease_fence(nb.ls, "R1"), gb.fence);
    ck_assert_int_eq(nb.lost, 0);
    char out[64], want[64];
    ru_cmd(&srv, "GET carcd:lease:R1", out, sizeof out);
    snprintf(want, sizeof want, "node-b:%llu", (unsigned long long)gb.fence);
    ck_assert_str_eq(out, want);
    node_close(&na);
    node_close(&nb);
}
END_TEST

/* Redis says the lease is another's now (its key was overwritten, as after
 * a failover of Redis): the next renewal loses it at once. */
START_TEST(lease_renewal_refused)
{
    node_open(&na, "node-a", 1500);
    struct got g = {0};
    ck_assert_int_eq(lease_acquire(na.ls, "R1", 0, on_got, &g), 0);
    ck_assert(ru_loop_until(&na.loop, &g.n, 2000));
    char out[64];
    ru_cmd(&srv, "SET carcd:lease:R1 node-b:7 PX 5000", out, sizeof out);
    uint64_t t0 = uv_now(&na.loop);
    ck_assert(ru_loop_until(&na.loop, &na.lost, 2000));
    /* at a renewal (every 500 ms), not at the deadline (1350 ms) */
    ck_assert_int_lt(uv_now(&na.loop) - t0, 1300);
    ck_assert_int_eq(lease_fence(na.ls, "R1"), 0);
    ck_assert_int_ge(test_log_count("another owner"), 1);
    ru_loop_for(&na.loop, 300);
    ru_cmd(&srv, "GET carcd:lease:R1", out, sizeof out);
    ck_assert_str_eq(out, "node-b:7"); /* not deleted by the loser */
    node_close(&na);
}
END_TEST

/* A release hands the room over at once, and a clean shutdown releases
 * every lease. */
START_TEST(lease_release_handover)
{
    node_open(&na, "node-a", 5000);
    node_open(&nb, "node-b", 5000);
    struct got g[3] = {{0}};
    const char *rooms[] = {"R1", "R2", "R3"};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(lease_acquire(na.ls, rooms[i], 0, on_got, &g[i]), 0);
    ck_assert(ru_loop_until(&na.loop, &g[2].n, 2000));
    ck_assert_int_eq(lease_count(na.ls), 3);
    lease_release(na.ls, "R1");
    ck_assert_int_eq(lease_fence(na.ls, "R1"), 0);
    ck_assert_int_eq(lease_count(na.ls), 2);
    ru_loop_for(&na.loop, 50);
    struct got gb = {0};
    ck_assert_int_eq(lease_acquire(nb.ls, "R1", 0, on_got, &gb), 0);
    ck_assert(ru_loop_until(&nb.loop, &gb.n, 2000));
    ck_assert_int_eq(gb.status, 0);
    ck_assert_int_eq(gb.fence, g[0].fence + 1);
    /* a releases a lease it no longer has: b's key stays */
    lease_release(na.ls, "R1");
    node_close(&na);
    ck_assert_int_eq(na.lost, 0);
    char out[64];
    ru_cmd(&srv, "EXISTS carcd:lease:R2", out, sizeof out);
    ck_assert_str_eq(out, "0");
    ru_cmd(&srv, "EXISTS carcd:lease:R3", out, sizeof out);
    ck_assert_str_eq(out, "0");
    ru_cmd(&srv, "GET carcd:lease:R1", out, sizeof out);
    ck_assert_str_eq(out, "node-b:2");
    node_close(&nb);
}
END_TEST

/* The floor (the database's fence) keeps the numbers above it even when
 * Redis lost its counter; a release while the acquisition is in flight
 * gives back what it took and never calls back. */
START_TEST(lease_floor_and_cancel)
{
    node_open(&na, "node-a", 5000);
    struct got g = {0}, h = {0};
    ck_assert_int_eq(lease_acquire(na.ls, "R1", 41, on_got, &g), 0);
    ck_assert(ru_loop_until(&na.loop, &g.n, 2000));
    ck_assert_int_eq(g.fence, 42);
    ck_assert_int_eq(lease_acquire(na.ls, "R2", 0, on_got, &h), 0);
    lease_release(na.ls, "R2");
    ru_loop_for(&na.loop, 200);
    ck_assert_int_eq(h.n, 0);
    char out[64];
    ru_cmd(&srv, "EXISTS carcd:lease:R2", out, sizeof out);
    ck_assert_str_eq(out, "0");
    ru_cmd(&srv, "GET carcd:fence:R2", out, sizeof out);
    ck_assert_str_eq(out, "1"); /* taken, then given back */
    ck_assert_int_eq(lease_acquire(na.ls, "bad room", 0, on_got, &h), LEASE_E_ARGS);
    node_close(&na);
}
END_TEST

/* Redis unreachable: nothing can be taken, and a held lease lasts only to
 * its local deadline (the renewals time out). */
START_TEST(lease_redis_paused)
{
    node_open(&na, "node-a", 600);
    struct got g = {0};
    ck_assert_int_eq(lease_acquire(na.ls, "R1", 0, on_got, &g), 0);
    ck_assert(ru_loop_until(&na.loop, &g.n, 2000));
    ru_pause(&srv);
    uint64_t t0 = uv_now(&na.loop);
    /* the fence (what a write checks) is gone by the local deadline: at most
     * ttl - 10% after the acquisition was sent, which was before t0 */
    while (lease_fence(na.ls, "R1") != 0 && uv_now(&na.loop) - t0 < 2000)
        ru_loop_for(&na.loop, 5);
    uint64_t t = uv_now(&na.loop) - t0;
    ck_assert_msg(t <= 540 + 10, "fence valid %llu ms into a 600 ms ttl", (unsigned long long)t);
    /* the hook follows at the next renewal tick (every ttl / 3) */
    ck_assert(ru_loop_until(&na.loop, &na.lost, 400));
    ck_assert_int_eq(lease_acquire(na.ls, "R2", 0, on_got, &g), REDIS_E_DOWN);
    ru_resume(&srv);
    node_close(&na);
}
END_TEST

START_TEST(lease_bad_options)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    char err[160];
    struct lease_opts o = {.node = "a:b"};
    ck_assert_ptr_null(lease_set_new(&loop, NULL, &o, NULL, err, sizeof err));
    o.node = "";
    ck_assert_ptr_null(lease_set_new(&loop, NULL, &o, NULL, err, sizeof err));
    o.node = "ok";
    o.ttl_ms = 50;
    ck_assert_ptr_null(lease_set_new(&loop, NULL, &o, NULL, err, sizeof err));
    o.ttl_ms = 1000;
    o.renew_ms = 600;
    ck_assert_ptr_null(lease_set_new(&loop, NULL, &o, NULL, err, sizeof err));
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    ck_assert_str_eq(srv_status_name(LEASE_E_HELD), "LEASE_E_HELD");
    ck_assert_str_eq(srv_status_name(REDIS_E_TIMEOUT), "REDIS_E_TIMEOUT");
}
END_TEST

/* One number space: no server status reads as an engine code (REDIS_E_DOWN
 * once was -1, CARC_E_INVAL) and every status has a name of its own. */
START_TEST(status_one_space)
{
    ck_assert_int_ne(REDIS_E_DOWN, CARC_E_INVAL);
    ck_assert_int_ne(LEASE_E_HELD, CARC_E_NOMEM);
    ck_assert_str_eq(srv_status_name(CARC_E_STORAGE), "storage_error");
    ck_assert_str_eq(srv_status_name(REDIS_E_DOWN), "REDIS_E_DOWN");
    ck_assert_str_eq(srv_status_str(LEASE_E_ARGS), "bad node id, room id or times");
    for (int a = -1; a >= SRV_STATUS_MIN; a--) {
        ck_assert_str_ne(srv_status_name(a), "unknown_status");
        for (int b = a - 1; b >= SRV_STATUS_MIN; b--)
            ck_assert_str_ne(srv_status_name(a), srv_status_name(b));
    }
    ck_assert_str_eq(srv_status_name(SRV_STATUS_MIN - 1), "unknown_status");
    ck_assert_str_eq(srv_status_name(1), "unknown_status");
}
END_TEST

Suite *suite_lease(void)
{
    Suite *s = suite_create("lease");
    TCase *tc = tcase_create("lease");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, status_one_space);
    tcase_add_test(tc, lease_race);
    tcase_add_test(tc, lease_renewed);
    tcase_add_test(tc, lease_paused_owner_loses);
    tcase_add_test(tc, lease_renewal_refused);
    tcase_add_test(tc, lease_release_handover);
    tcase_add_test(tc, lease_floor_and_cancel);
    tcase_add_test(tc, lease_redis_paused);
    tcase_add_test(tc, lease_bad_options);
    suite_add_tcase(s, tc);
    return s;
}
