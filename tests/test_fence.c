/* test_fence.c: fencing in PostgreSQL (store/postgres.c): a room written
 * with a fencing number older than its row's is refused, alone, and
 * reported STORE_FENCED, while the batch's other rooms commit. Against a
 * real PostgreSQL (tests/pg.sh sets CARC_PG_URL); the rows are read back
 * with psql, not through the code under test. One store writes every
 * number here: the database's check depends on the numbers, not on which
 * connection sends them (two nodes on one database need the cluster mode,
 * without the single-writer lock: docs/cluster.md). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_util.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/log.h"
#include "util/mem.h"

struct done {
    char id[PROTO_ROOM_MAX];
    int ok, moves;
};
static struct done dones[8];
static int ndone;

static void on_done(void *arg, void *key, const char *id, unsigned long gen, int ok, int moves,
                    long long seq)
{
    (void)seq;
    (void)key;
    (void)arg;
    (void)gen;
    ck_assert_int_lt(ndone, 8);
    snprintf(dones[ndone].id, sizeof dones[ndone].id, "%s", id);
    dones[ndone].ok = ok;
    dones[ndone].moves = moves;
    ndone++;
}

static int done_of(const char *id)
{
    for (int i = 0; i < ndone; i++)
        if (strcmp(dones[i].id, id) == 0)
            return dones[i].ok;
    ck_abort_msg("no done for %s", id);
    return 0;
}

/* A room entry of the batch being filled: n moves {"k":K,"by":"TAG"}, two seats named TAG. */
static struct store_room *room_add(struct store *st, const char *id, uint64_t fence, int n,
                                   const char *tag)
{
    struct store_room *e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->gone = STORE_WRITE;
    e->sets = 1;
    e->nseats = 2;
    e->phase = 1;
    e->seed = 42;
    e->seq = n;
    e->created = e->updated = 1000;
    e->nseat = 2;
    for (int i = 0; i < 2; i++) {
        e->seats[i].idx = i;
        snprintf(e->seats[i].name, sizeof e->seats[i].name, "%s%d", tag, i);
        memset(e->seats[i].hash, 'a', SHA256_HEX - 1);
    }
    e->move_from = 0;
    e->move_to = n;
    e->moves = calloc((size_t)(n > 0 ? n : 1), sizeof *e->moves);
    for (int k = 0; k < n; k++) {
        char m[64];
        snprintf(m, sizeof m, "{\"k\":%d,\"by\":\"%s\"}", k, tag);
        e->moves[k] = mem_strdup(m);
    }
    e->fence = fence;
    return e;
}

static void expect(const char *q, const char *want)
{
    char got[256];
    pgu_query(q, got, sizeof got, NULL, NULL);
    ck_assert_msg(strcmp(got, want) == 0, "%s: got '%s', want '%s'", q, got, want);
}

static struct store *st;

static void fence_setup(void)
{
    pg_setup();
    char err[512];
    st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    store_hooks_set(st, &(struct store_hooks){NULL, on_done, NULL});
    ndone = 0;
    test_log_capture();
    log_level_set(LOG_WARN); /* dir_setup (store_util.c) quiets the store's lines */
}

static void fence_teardown(void)
{
    test_log_release();
    store_close(st);
    pg_teardown();
}

START_TEST(fence_newer_owner_wins)
{
    room_add(st, "F1", 5, 2, "a");
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(done_of("F1"), 1);
    expect("SELECT fence FROM rooms WHERE id = 'F1'", "5");
    /* the next owner, with a newer number */
    ndone = 0;
    room_add(st, "F1", 7, 3, "b");
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(done_of("F1"), 1);
    expect("SELECT fence || ' ' || seq FROM rooms WHERE id = 'F1'", "7 3");
    /* the old owner wakes up and writes: refused, alone */
    ndone = 0;
    room_add(st, "F1", 5, 4, "stale");
    room_add(st, "F2", 3, 1, "c");
    ck_assert_int_eq(store_flush(st), 0); /* the batch commits */
    ck_assert_int_eq(done_of("F1"), STORE_FENCED);
    ck_assert_int_eq(done_of("F2"), 1);
    expect("SELECT fence || ' ' || seq FROM rooms WHERE id = 'F1'", "7 3");
    expect("SELECT count(*) FROM moves WHERE room = 'F1'", "3");
    expect("SELECT count(*) FROM moves WHERE room = 'F1' AND move LIKE '%stale%'", "0");
    expect("SELECT string_agg(name, ',' ORDER BY idx) FROM seats WHERE room = 'F1'", "b0,b1");
    expect("SELECT count(*) FROM moves WHERE room = 'F2'", "1");
    ck_assert_msg(test_log_count("refused this node's write") == 1, "%s", test_log_text());
    ck_assert_int_eq(test_log_count("room=F1"), 1);
    /* the owner's own next batch (the same number) goes through */
    ndone = 0;
    room_add(st, "F1", 7, 4, "b");
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(done_of("F1"), 1);
    expect("SELECT count(*) FROM moves WHERE room = 'F1'", "4");
}
END_TEST

/* A stale node cannot close, delete or record over the new owner's room either. */
START_TEST(fence_stale_close_and_delete)
{
    room_add(st, "F1", 9, 2, "a");
    ck_assert_int_eq(store_flush(st), 0);
    struct store_room *e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "F1");
    e->gone = STORE_CLOSE;
    e->updated = 2000;
    e->fence = 8;
    e->record = mem_strdup("{}");
    e->players = mem_strdup("[]");
    e->scores = mem_strdup("[]");
    e->status = STORE_ABANDONED;
    ck_assert_int_eq(store_flush(st), 0);
    expect("SELECT closed FROM rooms WHERE id = 'F1'", "0");
    expect("SELECT count(*) FROM games WHERE room = 'F1'", "0");
    e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "F1");
    e->gone = STORE_DELETE;
    e->fence = 8;
    ck_assert_int_eq(store_flush(st), 0);
    expect("SELECT count(*) FROM rooms WHERE id = 'F1'", "1");
    expect("SELECT count(*) FROM seats WHERE room = 'F1'", "2");
    expect("SELECT count(*) FROM moves WHERE room = 'F1'", "2");
    /* the owner can */
    e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "F1");
    e->gone = STORE_DELETE;
    e->fence = 9;
    ck_assert_int_eq(store_flush(st), 0);
    expect("SELECT count(*) FROM rooms WHERE id = 'F1'", "0");
    expect("SELECT count(*) FROM moves WHERE room = 'F1'", "0");
}
END_TEST

/* Fence 0 on both sides is one node alone (the advisory lock keeps others
 * out): no check; and the store's number is used when an entry has none. */
START_TEST(fence_zero_and_store_default)
{
    room_add(st, "F1", 0, 1, "a");
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(done_of("F1"), 1);
    expect("SELECT fence FROM rooms WHERE id = 'F1'", "0");
    store_fence_set(st, 4);
    room_add(st, "F1", 0, 2, "a");
    ck_assert_int_eq(store_flush(st), 0);
    expect("SELECT fence FROM rooms WHERE id = 'F1'", "4");
    ndone = 0;
    store_fence_set(st, 3);
    room_add(st, "F1", 0, 3, "a");
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(done_of("F1"), STORE_FENCED);
    expect("SELECT seq FROM rooms WHERE id = 'F1'", "2");
}
END_TEST

/* Two cluster nodes share the database (a carcd alone, or a second node with
 * the same id, is refused); the node that lost a room to the other cannot
 * write it any more: the paused owner, over two real connections. */
START_TEST(fence_two_nodes)
{
    store_close(st); /* the fixture's store: a carcd alone */
    st = NULL;
    char err[512];
    struct store *a = store_open_postgres_node(su_pg, "node-a", 5, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    struct store *b = store_open_postgres_node(su_pg, "node-b", 5, err, sizeof err);
    ck_assert_msg(b != NULL, "%s", err);
    ck_assert_ptr_null(store_open_postgres_node(su_pg, "node-a", 0, err, sizeof err));
    ck_assert_msg(strstr(err, "node-id node-a") != NULL, "%s", err);
    ck_assert_ptr_null(store_open_postgres(su_pg, 0, err, sizeof err));
    store_hooks_set(a, &(struct store_hooks){NULL, on_done, NULL});
    store_hooks_set(b, &(struct store_hooks){NULL, on_done, NULL});
    room_add(a, "F1", 1, 2, "a"); /* a has the lease, fence 1 */
    ck_assert_int_eq(store_flush(a), 0);
    ck_assert_int_eq(done_of("F1"), 1);
    ndone = 0;
    room_add(b, "F1", 2, 3, "b"); /* a paused; b took the lease, fence 2 */
    ck_assert_int_eq(store_flush(b), 0);
    ck_assert_int_eq(done_of("F1"), 1);
    ndone = 0;
    room_add(a, "F1", 1, 4, "a"); /* a wakes and writes a move */
    room_add(a, "F3", 5, 1, "a"); /* one of a's own rooms in the same batch */
    ck_assert_int_eq(store_flush(a), 0);
    ck_assert_int_eq(done_of("F1"), STORE_FENCED);
    ck_assert_int_eq(done_of("F3"), 1);
    expect("SELECT fence || ' ' || seq FROM rooms WHERE id = 'F1'", "2 3");
    expect("SELECT count(*) FROM moves WHERE room = 'F1' AND move LIKE '%\\\"a\\\"%'", "0");
    expect("SELECT count(*) FROM moves WHERE room = 'F3'", "1");
    store_close(a);
    store_close(b);
    /* with the nodes gone, a carcd alone may open it again */
    st = store_open_postgres(su_pg, 5, err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
}
END_TEST

Suite *suite_fence_pg(void)
{
    Suite *s = suite_create("fence_pg");
    if (getenv("CARC_PG_URL") == NULL)
        return s; /* no database: no test case made (an unused one would leak) */
    TCase *tc = tcase_create("fence_pg");
    tcase_add_checked_fixture(tc, fence_setup, fence_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, fence_newer_owner_wins);
    tcase_add_test(tc, fence_stale_close_and_delete);
    tcase_add_test(tc, fence_zero_and_store_default);
    tcase_add_test(tc, fence_two_nodes);
    suite_add_tcase(s, tc);
    return s;
}
