/* test_directory.c: the cluster's room directory (cluster/directory.h) and
 * lease_holder (cluster/lease.h) against a real redis-server (redis_util.h).
 * Two nodes, n1 and n2, each with its own Redis client (one loop serves
 * both: the directory does not care whose loop it is). What Redis holds is
 * read back with ru_cmd, not through the code under test.
 *
 * The directory's puts and refreshes have no callback: a PING sent after
 * them on the same connection is answered after them (Redis answers one
 * connection in order), so its reply says they are done. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "cluster/directory.h"
#include "cluster/lease.h"
#include "cluster/redis.h"
#include "redis_util.h"
#include "tests.h"

static struct ru_server srv;
static uv_loop_t loop;

struct client {
    struct redis *r;
    int up, downs;
};
static struct client c1, c2;

static void on_state(void *arg, int up)
{
    struct client *c = arg;
    c->up = up;
    if (!up)
        c->downs++;
}

static void client_open(struct client *c)
{
    memset(c, 0, sizeof *c);
    char url[128], err[160];
    ru_url(&srv, url, sizeof url);
    struct redis_opts o = {.command_ms = 200, .state = on_state, .arg = c};
    c->r = redis_new(&loop, url, &o, err, sizeof err);
    ck_assert_msg(c->r != NULL, "%s", err);
    redis_start(c->r);
    ck_assert(ru_loop_until(&loop, &c->up, 3000));
}

static void on_pong(void *arg, int status, const struct redis_reply *rep)
{
    (void)status;
    (void)rep;
    *(int *)arg = 1;
}

/* Everything c sent before this call has been answered. */
static void settle(struct client *c)
{
    int done = 0;
    const char *argv[] = {"PING"};
    ck_assert_int_eq(redis_command(c->r, on_pong, &done, 1, argv, NULL), 0);
    ck_assert(ru_loop_until(&loop, &done, 2000));
}

static void setup(void)
{
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    memset(&c1, 0, sizeof c1);
    memset(&c2, 0, sizeof c2);
    ru_start(&srv, NULL);
    test_log_capture();
}

static void teardown(void)
{
    test_log_release();
    ru_stop(&srv);
}

/* The clients closed and the loop left with nothing open. */
static void loop_done(void)
{
    redis_close(c1.r);
    redis_close(c2.r);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}

static const char *cmd(const char *c)
{
    static char out[4][256];
    static int k;
    char *o = out[k++ & 3];
    ru_cmd(&srv, c, o, 256);
    return o;
}

static struct directory *dir_new(struct client *c, const char *node, int ttl)
{
    char err[160];
    struct directory *d = directory_new(c->r, node, ttl, err, sizeof err);
    ck_assert_msg(d != NULL, "%s", err);
    return d;
}

/* d's cache after a refresh of at most max rooms has been answered. */
static int refreshed(struct directory *d, struct client *c, int max,
                     const struct directory_room **out)
{
    ck_assert_int_eq(directory_refresh(d, max), 0);
    settle(c);
    return directory_rooms(d, out);
}

/* Each node sees the other's rooms, newest first, never its own; a node
 * takes off only its own entries; max bounds the read. */
START_TEST(directory_lists_other_nodes)
{
    client_open(&c1);
    client_open(&c2);
    struct directory *d1 = dir_new(&c1, "n1", 5000), *d2 = dir_new(&c2, "n2", 5000);
    const struct directory_room *rs;
    ck_assert_int_eq(directory_rooms(d2, &rs), 0);
    ck_assert_int_eq(directory_put(d1, "R1", 1000, "{\"room\":\"R1\",\"n\":1}"), 0);
    ck_assert_int_eq(directory_put(d1, "R2", 3000, "{\"room\":\"R2\",\"n\":2}"), 0);
    ck_assert_int_eq(directory_put(d1, "R3", 2000, "{\"room\":\"R3\",\"text\":\"a\\tb\"}"), 0);
    ck_assert_int_eq(directory_put(d2, "R9", 500, "{\"room\":\"R9\"}"), 0);
    settle(&c1);
    settle(&c2);
    ck_assert_str_eq(cmd("ZCARD carcd:rooms"), "4");
    ck_assert_str_eq(cmd("ZSCORE carcd:rooms R2"), "3000");
    int pttl = atoi(cmd("PTTL carcd:room:R9"));
    ck_assert_msg(pttl > 4000 && pttl <= 5000, "PTTL %d", pttl);

    int n = refreshed(d2, &c2, 10, &rs);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(rs[0].room, "R2");
    ck_assert_str_eq(rs[1].room, "R3");
    ck_assert_str_eq(rs[2].room, "R1");
    for (int i = 0; i < 3; i++)
        ck_assert_str_eq(rs[i].node, "n1");
    ck_assert_uint_eq(rs[0].created, 3000);
    ck_assert_uint_eq(rs[1].created, 2000);
    ck_assert_uint_eq(rs[2].created, 1000);
    ck_assert_str_eq(rs[0].json, "{\"room\":\"R2\",\"n\":2}");
    ck_assert_str_eq(rs[1].json, "{\"room\":\"R3\",\"text\":\"a\\tb\"}");
    ck_assert_str_eq(rs[2].json, "{\"room\":\"R1\",\"n\":1}");

    /* n1 sees only n2's room */
    n = refreshed(d1, &c1, 10, &rs);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(rs[0].room, "R9");
    ck_assert_str_eq(rs[0].node, "n2");
    ck_assert_str_eq(rs[0].json, "{\"room\":\"R9\"}");

    /* max counts the newest ids of the whole set, before n2's own are left out */
    n = refreshed(d2, &c2, 2, &rs);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(rs[0].room, "R2");
    ck_assert_str_eq(rs[1].room, "R3");
    n = refreshed(d2, &c2, 1, &rs);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(rs[0].room, "R2");

    /* n2 cannot take n1's room off; n1 can */
    ck_assert_int_eq(directory_del(d2, "R1"), 0);
    settle(&c2);
    ck_assert_str_eq(cmd("EXISTS carcd:room:R1"), "1");
    ck_assert_str_eq(cmd("ZCARD carcd:rooms"), "4");
    ck_assert_int_eq(refreshed(d2, &c2, 10, &rs), 3);
    ck_assert_int_eq(directory_del(d1, "R1"), 0);
    settle(&c1);
    ck_assert_str_eq(cmd("EXISTS carcd:room:R1"), "0");
    ck_assert_str_eq(cmd("ZSCORE carcd:rooms R1"), "(nil)");
    ck_assert_str_eq(cmd("ZCARD carcd:rooms"), "3");
    n = refreshed(d2, &c2, 10, &rs);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(rs[0].room, "R2");
    ck_assert_str_eq(rs[1].room, "R3");

    /* a put again replaces the text (and the time) */
    ck_assert_int_eq(directory_put(d1, "R3", 4000, "{\"room\":\"R3\",\"n\":3}"), 0);
    settle(&c1);
    n = refreshed(d2, &c2, 10, &rs);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(rs[0].room, "R3");
    ck_assert_uint_eq(rs[0].created, 4000);
    ck_assert_str_eq(rs[0].json, "{\"room\":\"R3\",\"n\":3}");
    ck_assert_str_eq(cmd("ZCARD carcd:rooms"), "3");

    directory_free(d1);
    directory_free(d2);
    loop_done();
}
END_TEST

/* A node that stops putting: its entry expires, leaves the next refresh and
 * the sorted set. */
START_TEST(directory_entry_expires)
{
    client_open(&c1);
    client_open(&c2);
    struct directory *d1 = dir_new(&c1, "n1", 150), *d2 = dir_new(&c2, "n2", 5000);
    const struct directory_room *rs;
    ck_assert_int_eq(directory_put(d1, "E1", 2000, "{\"room\":\"E1\"}"), 0);
    ck_assert_int_eq(directory_put(d2, "K1", 1000, "{\"room\":\"K1\"}"), 0);
    settle(&c1);
    settle(&c2);
    int pttl = atoi(cmd("PTTL carcd:room:E1"));
    ck_assert_msg(pttl > 0 && pttl <= 150, "PTTL %d", pttl);
    struct directory *d3 = dir_new(&c1, "n3", 5000);
    ck_assert_int_eq(refreshed(d3, &c1, 10, &rs), 2);
    ck_assert_str_eq(rs[0].room, "E1");
    ru_loop_for(&loop, 300);
    ck_assert_str_eq(cmd("EXISTS carcd:room:E1"), "0");
    ck_assert_str_eq(cmd("ZCARD carcd:rooms"), "2"); /* not yet read: still in the set */
    int n = refreshed(d3, &c1, 10, &rs);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(rs[0].room, "K1");
    ck_assert_str_eq(cmd("ZSCORE carcd:rooms E1"), "(nil)");
    ck_assert_str_eq(cmd("ZCARD carcd:rooms"), "1");
    /* n2 sees nothing now (only its own K1 is left) */
    ck_assert_int_eq(refreshed(d2, &c2, 10, &rs), 0);
    directory_free(d1);
    directory_free(d2);
    directory_free(d3);
    loop_done();
}
END_TEST

/* A node cut off from Redis lists nothing rather than rooms that may be
 * gone: a refresh that fails empties the cache. */
START_TEST(directory_redis_down_empties)
{
    client_open(&c1);
    client_open(&c2);
    struct directory *d1 = dir_new(&c1, "n1", 5000), *d2 = dir_new(&c2, "n2", 5000);
    const struct directory_room *rs;
    ck_assert_int_eq(directory_put(d1, "D1", 1000, "{\"room\":\"D1\"}"), 0);
    settle(&c1);
    ck_assert_int_eq(refreshed(d2, &c2, 10, &rs), 1);
    /* paused: the read is sent and times out (command_ms 200) */
    ru_pause(&srv);
    ck_assert_int_eq(directory_refresh(d2, 10), 0);
    ck_assert_int_eq(directory_rooms(d2, &rs), 1); /* the old cache until the answer */
    for (int i = 0; i < 200 && directory_rooms(d2, &rs) != 0; i++)
        ru_loop_for(&loop, 10);
    ck_assert_int_eq(directory_rooms(d2, &rs), 0);
    ru_resume(&srv);
    ck_assert(ru_loop_until(&loop, &c2.up, 3000));
    ck_assert_int_eq(refreshed(d2, &c2, 10, &rs), 1);
    /* killed: the connection drops; a refresh then is refused at once */
    ru_kill(&srv);
    for (int i = 0; i < 200 && c2.up; i++)
        ru_loop_for(&loop, 10);
    ck_assert_int_eq(c2.up, 0);
    ck_assert_int_eq(directory_refresh(d2, 10), REDIS_E_DOWN);
    ck_assert_int_eq(directory_rooms(d2, &rs), 0);
    ck_assert_int_eq(directory_put(d1, "D2", 1000, "{}"), REDIS_E_DOWN);
    directory_free(d1);
    directory_free(d2);
    loop_done();
}
END_TEST

START_TEST(directory_bad_options)
{
    char err[160];
    ck_assert_ptr_null(directory_new(NULL, "a:b", 1000, err, sizeof err));
    ck_assert_ptr_null(directory_new(NULL, "", 1000, err, sizeof err));
    ck_assert_ptr_null(directory_new(NULL, "abcdefghijabcdefghijabcdefghijabc", 1000, err,
                                     sizeof err)); /* 33 bytes */
    ck_assert_ptr_null(directory_new(NULL, "ok", 99, err, sizeof err));
    ck_assert_msg(strstr(err, "ttl") != NULL, "%s", err);
    struct directory *d = directory_new(NULL, "abcdefghijabcdefghijabcdefghijab", 100, err,
                                        sizeof err); /* 32: the longest */
    ck_assert_ptr_nonnull(d);
    directory_free(d);
    directory_free(NULL);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* ---- lease_holder ---- */

struct holder {
    int n, status;
    char node[64];
};

static void on_holder(void *arg, int status, const char *holder)
{
    struct holder *h = arg;
    h->n++;
    h->status = status;
    snprintf(h->node, sizeof h->node, "%s", holder);
}

struct took {
    int n, status;
    uint64_t fence;
};

static void on_took(void *arg, int status, uint64_t fence, const char *holder)
{
    (void)holder;
    struct took *t = arg;
    t->n++;
    t->status = status;
    t->fence = fence;
}

static void on_set_closed(void *arg)
{
    *(int *)arg = 1;
}

static struct lease_set *set_new(struct client *c, const char *node)
{
    char err[160];
    struct lease_opts o = {.node = node, .ttl_ms = 5000};
    struct lease_set *ls = lease_set_new(&loop, c->r, &o, NULL, err, sizeof err);
    ck_assert_msg(ls != NULL, "%s", err);
    return ls;
}

static struct holder holder_of(struct lease_set *ls, const char *room)
{
    struct holder h = {0};
    ck_assert_int_eq(lease_holder(ls, room, on_holder, &h), 0);
    ck_assert_int_eq(h.n, 0); /* never inside the call */
    ck_assert(ru_loop_until(&loop, &h.n, 3000));
    ck_assert_int_eq(h.n, 1);
    return h;
}

START_TEST(lease_holder_says_who)
{
    client_open(&c1);
    client_open(&c2);
    struct lease_set *l1 = set_new(&c1, "n1"), *l2 = set_new(&c2, "node-two");
    struct took t = {0};
    ck_assert_int_eq(lease_acquire(l1, "H1", 0, on_took, &t), 0);
    ck_assert(ru_loop_until(&loop, &t.n, 2000));
    ck_assert_int_eq(t.status, 0);
    struct holder h = holder_of(l2, "H1");
    ck_assert_int_eq(h.status, 0);
    ck_assert_str_eq(h.node, "n1");
    h = holder_of(l1, "H1"); /* the holder asking about itself */
    ck_assert_str_eq(h.node, "n1");
    h = holder_of(l2, "H2");
    ck_assert_int_eq(h.status, 0);
    ck_assert_str_eq(h.node, "");
    ck_assert_str_eq(cmd("EXISTS carcd:lease:H2"), "0"); /* asking takes nothing */
    ck_assert_str_eq(cmd("EXISTS carcd:fence:H2"), "0");
    /* another node's lease, as Redis has it */
    cmd("SET carcd:lease:H3 node-two:9 PX 5000");
    h = holder_of(l1, "H3");
    ck_assert_str_eq(h.node, "node-two");
    /* released: free again */
    lease_release(l1, "H1");
    settle(&c1);
    h = holder_of(l2, "H1");
    ck_assert_int_eq(h.status, 0);
    ck_assert_str_eq(h.node, "");
    /* a value that is not NODE:FENCE is nobody's */
    cmd("SET carcd:lease:H4 garbage PX 5000");
    h = holder_of(l2, "H4");
    ck_assert_str_eq(h.node, "");
    /* not a room id */
    struct holder bad = {0};
    ck_assert_int_eq(lease_holder(l2, "bad room", on_holder, &bad), LEASE_E_ARGS);
    ck_assert_int_eq(lease_holder(l2, "", on_holder, &bad), LEASE_E_ARGS);
    ru_loop_for(&loop, 50);
    ck_assert_int_eq(bad.n, 0);
    int closed1 = 0, closed2 = 0;
    lease_set_close(l1, on_set_closed, &closed1);
    lease_set_close(l2, on_set_closed, &closed2);
    ck_assert(ru_loop_until(&loop, &closed1, 2000));
    ck_assert(ru_loop_until(&loop, &closed2, 2000));
    loop_done();
}
END_TEST

/* Redis paused: the GET times out (an error, never ""); killed: refused at once. */
START_TEST(lease_holder_redis_down)
{
    client_open(&c1);
    struct lease_set *l1 = set_new(&c1, "n1");
    cmd("SET carcd:lease:H1 n2:1 PX 60000");
    ru_pause(&srv);
    struct holder h = {0};
    ck_assert_int_eq(lease_holder(l1, "H1", on_holder, &h), 0);
    ck_assert(ru_loop_until(&loop, &h.n, 3000));
    ck_assert_int_eq(h.status, REDIS_E_TIMEOUT);
    ck_assert_str_eq(h.node, "");
    ru_resume(&srv);
    ck_assert(ru_loop_until(&loop, &c1.up, 3000));
    h = holder_of(l1, "H1");
    ck_assert_int_eq(h.status, 0);
    ck_assert_str_eq(h.node, "n2");
    ru_kill(&srv);
    for (int i = 0; i < 200 && c1.up; i++)
        ru_loop_for(&loop, 10);
    ck_assert_int_eq(c1.up, 0);
    memset(&h, 0, sizeof h);
    ck_assert_int_eq(lease_holder(l1, "H1", on_holder, &h), REDIS_E_DOWN);
    ru_loop_for(&loop, 50);
    ck_assert_int_eq(h.n, 0);
    int closed = 0;
    lease_set_close(l1, on_set_closed, &closed);
    ck_assert(ru_loop_until(&loop, &closed, 2000));
    loop_done();
}
END_TEST

Suite *suite_directory(void)
{
    Suite *s = suite_create("directory");
    TCase *tc = tcase_create("directory");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, directory_lists_other_nodes);
    tcase_add_test(tc, directory_entry_expires);
    tcase_add_test(tc, directory_redis_down_empties);
    tcase_add_test(tc, directory_bad_options);
    tcase_add_test(tc, lease_holder_says_who);
    tcase_add_test(tc, lease_holder_redis_down);
    suite_add_tcase(s, tc);
    return s;
}
