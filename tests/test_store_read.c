/* test_store_read.c: reading the stored game records back (server/store/read.c),
 * in the scratch directory and world of store_util.h: the list of games paged
 * over more than a thousand records and each record by id, directly and as
 * reads on the libuv thread pool (answered on the loop, cancelled, bounded by
 * STORE_READS_MAX, and answered 503 when the store stops). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/mem.h"

/* ---- pages and records ---- */

/* Every record stays reachable, not only the newest: 1,005 games, paged. */
START_TEST(records_paged_from_disk)
{
    char err[512];
    struct store *s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_int_eq(store_test_exec(s, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1"
                                        " FROM n WHERE i < 1005) INSERT INTO games SELECT 'G' || i,"
                                        " '{\"n\":' || i || '}', '[\"A\"]', '[' || i || ']', i,"
                                        " 'finished' FROM n;"),
                     0);
    int code = 0;
    char *page = store_games_get(s, 1, STORE_FINISHED, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_msg(strstr(page, "\"total\":1005,\"games\":[{\"id\":\"G1005\"") != NULL, "%s", page);
    free(page);
    page = store_games_get(s, 51, STORE_FINISHED, &code);
    ck_assert_msg(strstr(page, "\"page\":51") && strstr(page, "\"id\":\"G5\"") &&
                      strstr(page, "\"id\":\"G1\"") && !strstr(page, "\"id\":\"G6\""),
                  "%s", page);
    free(page);
    page = store_games_get(s, 52, STORE_FINISHED, &code);
    ck_assert_msg(strstr(page, "\"games\":[]") != NULL, "%s", page);
    free(page);
    page = store_games_get(s, 1, STORE_ABANDONED, &code);
    ck_assert_msg(strstr(page, "\"total\":0") != NULL, "%s", page);
    free(page);
    char *rec = store_game_get(s, "G1", &code); /* the oldest */
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(rec, "{\"n\":1}");
    free(rec);
    ck_assert_ptr_null(store_game_get(s, "G1006", &code));
    ck_assert_int_eq(code, 404);
    store_close(s);
}
END_TEST

/* The same pages from PostgreSQL (generate_series for SQLite's recursive CTE). */
START_TEST(records_paged_pg)
{
    char err[512];
    struct store *s = su_store_open(err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_int_eq(store_test_exec(s, "INSERT INTO games SELECT 'G' || i, '{\"n\":' || i || '}',"
                                        " '[\"A\"]', '[' || i || ']', i, 'finished'"
                                        " FROM generate_series(1, 1005) AS i"),
                     0);
    int code = 0;
    char *page = store_games_get(s, 1, STORE_FINISHED, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_msg(strstr(page, "\"total\":1005,\"games\":[{\"id\":\"G1005\"") != NULL, "%s", page);
    free(page);
    page = store_games_get(s, 51, STORE_FINISHED, &code);
    ck_assert_msg(strstr(page, "\"page\":51") && strstr(page, "\"id\":\"G5\"") &&
                      strstr(page, "\"id\":\"G1\"") && !strstr(page, "\"id\":\"G6\""),
                  "%s", page);
    free(page);
    char *rec = store_game_get(s, "G1", &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(rec, "{\"n\":1}");
    free(rec);
    ck_assert_ptr_null(store_game_get(s, "G1006", &code));
    ck_assert_int_eq(code, 404);
    store_close(s);
}
END_TEST

/* ---- reads on the thread pool ---- */

struct got {
    int calls, status;
    char *json;
};

static void on_got(void *arg, int status, char *json)
{
    struct got *g = arg;
    g->calls++;
    g->status = status;
    free(g->json);
    g->json = json;
}

static void loop_until(uv_loop_t *loop, const int *flag)
{
    for (int i = 0; i < 100000 && !*flag; i++)
        uv_run(loop, UV_RUN_ONCE);
    ck_assert(*flag);
}

START_TEST(reads_on_the_thread_pool)
{
    world_open();
    ck_assert_int_eq(store_test_exec(su_st, "INSERT INTO games VALUES('R1', '{\"r\":1}', '[\"A\"]',"
                                            " '[1]', 1, 'finished')"),
                     0);
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    store_start(su_st, &loop, NULL);
    struct got g = {0}, miss = {0}, list = {0}, gone = {0};
    ck_assert_ptr_nonnull(store_game_read(su_st, "R1", on_got, &g));
    ck_assert_ptr_nonnull(store_game_read(su_st, "R2", on_got, &miss));
    ck_assert_ptr_nonnull(store_games_read(su_st, 1, STORE_FINISHED, on_got, &list));
    struct store_read *rq = store_game_read(su_st, "R1", on_got, &gone);
    ck_assert_int_eq(g.calls, 0); /* never before the read */
    store_read_cancel(rq);
    loop_until(&loop, &list.calls);
    ck_assert_int_eq(g.status, 200);
    ck_assert_str_eq(g.json, "{\"r\":1}");
    ck_assert_int_eq(miss.status, 404);
    ck_assert_ptr_null(miss.json);
    ck_assert_msg(strstr(list.json, "\"id\":\"R1\"") != NULL, "%s", list.json);
    /* A burst: one runs, STORE_READS_MAX wait, the next is refused. */
    struct got burst = {0};
    int taken = 0;
    while (store_game_read(su_st, "R1", on_got, &burst) != NULL)
        taken++;
    ck_assert_int_eq(taken, STORE_READS_MAX + 1);
    /* Stopping answers the waiting ones at once (503); the running one ends. */
    store_stop(su_st);
    ck_assert_int_eq(burst.calls, STORE_READS_MAX);
    ck_assert_int_eq(burst.status, 503);
    ck_assert_ptr_null(store_game_read(su_st, "R1", on_got, &burst));
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(burst.calls, STORE_READS_MAX + 1);
    ck_assert_int_eq(gone.calls, 0);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    free(g.json);
    free(list.json);
    free(burst.json);
    world_close();
}
END_TEST

/* ---- one open room, read back for a takeover (store_entry_read) ---- */

static void no_done(void *arg, void *key, const char *id, unsigned long gen, int ok, int moves,
                    long long seq)
{
    (void)seq;
    (void)key;
    (void)arg;
    (void)id;
    (void)gen;
    (void)moves;
    ck_assert_int_eq(ok, 1);
}

/* A room entry of the batch being filled: moves [from, to) as
 * {"k":K,"by":"TAG"}, two seats, fence 7. */
static struct store_room *entry_add(struct store *st, const char *id, int phase, int from, int to)
{
    struct store_room *e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->gone = STORE_WRITE;
    e->sets = 1;
    e->no_farmers = 1;
    e->nseats = 3;
    e->priv = 1;
    e->host = 1;
    e->phase = phase;
    memset(e->pw, 'b', SHA256_HEX - 1);
    e->seed = 0x1234567890abcdefull;
    e->deck_len = 3;
    e->deck[0] = 5;
    e->deck[1] = 9;
    e->deck[2] = 2;
    e->seq = 10 + to;
    e->created = 1000;
    e->updated = 2000 + (uint64_t)to;
    e->clock_initial = 60;
    e->clock_increment = 5;
    e->clock_policy = 2;
    e->variants = 1 | 1 << 2;
    e->nseat = 2;
    for (int i = 0; i < 2; i++) {
        struct store_seat *t = &e->seats[i];
        t->idx = 2 * i; /* seats 0 and 2: seat 1 is empty */
        snprintf(t->name, sizeof t->name, "P%d", i);
        memset(t->hash, i ? 'd' : 'c', SHA256_HEX - 1);
        t->bot = i;
        t->autoplay = i;
        t->timeouts = 3 * i;
        t->clock_ms = 45000 + i;
    }
    e->move_from = from;
    e->move_to = to;
    e->moves = calloc((size_t)(to > from ? to - from : 1), sizeof *e->moves);
    for (int k = from; k < to; k++) {
        char m[64];
        snprintf(m, sizeof m, "{\"k\":%d,\"by\":\"%s\"}", k, id);
        e->moves[k - from] = mem_strdup(m);
    }
    e->fence = 7;
    return e;
}

struct entry_got {
    int calls, status;
    struct store_room *e;
};

static void on_entry(void *arg, int status, struct store_room *e)
{
    struct entry_got *g = arg;
    g->calls++;
    g->status = status;
    store_entry_free(g->e);
    g->e = e;
}

static struct entry_got entry_of(struct store *st, uv_loop_t *loop, const char *id)
{
    struct entry_got g = {0};
    ck_assert_ptr_nonnull(store_entry_read(st, id, on_entry, &g));
    ck_assert_int_eq(g.calls, 0); /* on the loop, never inside the call */
    loop_until(loop, &g.calls);
    ck_assert_int_eq(g.calls, 1);
    return g;
}

/* Room id closed in the batch being filled, its game kept as an abandoned
 * record. */
static void closed_row_add(struct store *st, const char *id)
{
    struct store_room *c = store_row_add(st);
    snprintf(c->id, sizeof c->id, "%s", id);
    c->gone = STORE_CLOSE;
    c->updated = 3000;
    c->fence = 7;
    c->record = mem_strdup("{}");
    c->players = mem_strdup("[]");
    c->scores = mem_strdup("[]");
    c->status = STORE_ABANDONED;
}

/* An open room comes back whole (as two batches wrote it); a room closed,
 * a game that ended and an unknown id are 404. */
START_TEST(entry_read_open_room)
{
    char err[512];
    struct store *st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    store_hooks_set(st, &(struct store_hooks){NULL, no_done, NULL});
    entry_add(st, "E1", PROTO_PHASE_PLAYING, 0, 2);
    entry_add(st, "E2", PROTO_PHASE_LOBBY, 0, 0);
    entry_add(st, "C1", PROTO_PHASE_PLAYING, 0, 1);
    struct store_room *f = entry_add(st, "F1", PROTO_PHASE_PLAYING, 0, 1);
    ck_assert_int_eq(store_flush(st), 0);
    entry_add(st, "E1", PROTO_PHASE_PLAYING, 2, 3); /* the next batch: one more move */
    closed_row_add(st, "C1");
    f = entry_add(st, "F1", PROTO_PHASE_OVER, 1, 2);
    f->record = mem_strdup("{\"over\":1}");
    f->players = mem_strdup("[\"P0\",\"P1\"]");
    f->scores = mem_strdup("[3,4]");
    f->status = STORE_FINISHED;
    ck_assert_int_eq(store_flush(st), 0);

    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    store_start(st, &loop, NULL);
    struct entry_got g = entry_of(st, &loop, "E1");
    ck_assert_int_eq(g.status, 200);
    struct store_room *e = g.e;
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->id, "E1");
    ck_assert_int_eq(e->gone, STORE_WRITE);
    ck_assert_int_eq(e->phase, PROTO_PHASE_PLAYING);
    ck_assert_int_eq(e->sets, 1);
    ck_assert_int_eq(e->no_farmers, 1);
    ck_assert_int_eq(e->nseats, 3);
    ck_assert_int_eq(e->priv, 1);
    ck_assert_int_eq(e->host, 1);
    ck_assert_uint_eq(strlen(e->pw), SHA256_HEX - 1);
    ck_assert_int_eq(e->pw[0], 'b');
    ck_assert(e->seed == 0x1234567890abcdefull);
    ck_assert_int_eq(e->deck_len, 3);
    ck_assert_int_eq(e->deck[0] * 100 + e->deck[1] * 10 + e->deck[2], 592);
    ck_assert_int_eq(e->seq, 13);
    ck_assert_uint_eq(e->created, 1000);
    ck_assert_uint_eq(e->updated, 2003);
    ck_assert_int_eq(e->clock_initial, 60);
    ck_assert_int_eq(e->clock_increment, 5);
    ck_assert_int_eq(e->clock_policy, 2);
    ck_assert_int_eq(e->variants, 5);
    ck_assert_uint_eq(e->fence, 7);
    ck_assert_int_eq(e->nseat, 2);
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "P%d", i);
        ck_assert_int_eq(e->seats[i].idx, 2 * i);
        ck_assert_str_eq(e->seats[i].name, name);
        ck_assert_uint_eq(strlen(e->seats[i].hash), SHA256_HEX - 1);
        ck_assert_int_eq(e->seats[i].hash[0], i ? 'd' : 'c');
        ck_assert_int_eq(e->seats[i].bot, i);
        ck_assert_int_eq(e->seats[i].autoplay, i);
        ck_assert_int_eq(e->seats[i].timeouts, 3 * i);
        ck_assert_int_eq(e->seats[i].clock_ms, 45000 + i);
    }
    ck_assert_int_eq(e->move_from, 0);
    ck_assert_int_eq(e->move_to, 3);
    for (int k = 0; k < 3; k++) {
        char m[64];
        snprintf(m, sizeof m, "{\"k\":%d,\"by\":\"E1\"}", k);
        ck_assert_str_eq(e->moves[k], m);
    }
    store_entry_free(g.e);
    /* a room still in its lobby is open too: no moves */
    g = entry_of(st, &loop, "E2");
    ck_assert_int_eq(g.status, 200);
    ck_assert_int_eq(g.e->phase, PROTO_PHASE_LOBBY);
    ck_assert_int_eq(g.e->move_to, 0);
    ck_assert_int_eq(g.e->nseat, 2);
    store_entry_free(g.e);
    const char *gone[] = {"C1", "F1", "NOPE1234"};
    for (int i = 0; i < 3; i++) {
        g = entry_of(st, &loop, gone[i]);
        ck_assert_msg(g.status == 404, "%s: %d", gone[i], g.status);
        ck_assert_ptr_null(g.e);
    }
    /* the rows of those are there: 404 is "not open", not "not read" */
    int code = 0;
    char *rec = store_game_get(st, "F1", &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(rec, "{\"over\":1}");
    free(rec);
    rec = store_game_get(st, "C1", &code);
    ck_assert_int_eq(code, 200);
    free(rec);
    store_stop(st);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    store_close(st);
}
END_TEST

/* A cancelled entry read calls nothing and leaks nothing (ASan's leak check
 * in make test-asan), whether it waited or already ran; after store_stop
 * a read is refused and a waiting one answered 503. */
START_TEST(entry_read_cancel)
{
    char err[512];
    struct store *st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    store_hooks_set(st, &(struct store_hooks){NULL, no_done, NULL});
    entry_add(st, "E1", PROTO_PHASE_PLAYING, 0, 4);
    ck_assert_int_eq(store_flush(st), 0);
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    store_start(st, &loop, NULL);
    struct entry_got running = {0}, waiting = {0}, last = {0}, stopped = {0};
    struct store_read *r1 = store_entry_read(st, "E1", on_entry, &running);
    struct store_read *r2 = store_entry_read(st, "E1", on_entry, &waiting);
    ck_assert_ptr_nonnull(store_entry_read(st, "E1", on_entry, &last));
    ck_assert_ptr_nonnull(r1);
    ck_assert_ptr_nonnull(r2);
    store_read_cancel(r2); /* still in the queue */
    store_read_cancel(r1); /* on the thread pool */
    loop_until(&loop, &last.calls);
    ck_assert_int_eq(last.status, 200);
    ck_assert_int_eq(last.e->move_to, 4);
    for (int i = 0; i < 20; i++)
        uv_run(&loop, UV_RUN_NOWAIT);
    ck_assert_int_eq(running.calls, 0);
    ck_assert_int_eq(waiting.calls, 0);
    store_entry_free(last.e);
    /* one runs, one waits: stopping answers the waiting one 503 at once */
    struct entry_got a = {0};
    ck_assert_ptr_nonnull(store_entry_read(st, "E1", on_entry, &a));
    ck_assert_ptr_nonnull(store_entry_read(st, "E1", on_entry, &stopped));
    store_stop(st);
    ck_assert_int_eq(stopped.calls, 1);
    ck_assert_int_eq(stopped.status, 503);
    ck_assert_ptr_null(stopped.e);
    ck_assert_ptr_null(store_entry_read(st, "E1", on_entry, &stopped));
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(a.calls, 1);
    store_entry_free(a.e);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    store_close(st);
}
END_TEST

/* ---- store_idle: what a cluster node waits for before it hands over ---- */

static int idle_dones;

static void idle_fill(void *arg, void *key)
{
    (void)key;
    entry_add(arg, "I1", PROTO_PHASE_PLAYING, 0, 0);
}

static void idle_done(void *arg, void *key, const char *id, unsigned long gen, int ok, int moves,
                      long long seq)
{
    (void)seq;
    (void)key;
    (void)arg;
    (void)gen;
    (void)moves;
    ck_assert_str_eq(id, "I1");
    ck_assert_int_eq(ok, 1);
    idle_dones++;
}

/* Turns of the loop (not waiting for events: a chat line alone wakes
 * nothing, a carcd's timers do) until st is idle; 5 s at most. */
static void idle_wait(uv_loop_t *loop, struct store *st)
{
    for (int i = 0; i < 5000 && !store_idle(st); i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* Idle until something is handed to the store; busy while it is marked,
 * filled or in flight; idle again once committed. */
START_TEST(store_idle_follows_batches)
{
    char err[512];
    struct store *st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    store_hooks_set(st, &(struct store_hooks){idle_fill, idle_done, st});
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    store_start(st, &loop, NULL);
    idle_dones = 0;
    ck_assert(store_idle(st));
    int key;
    store_mark(st, &key);
    ck_assert(!store_idle(st)); /* marked */
    uv_run(&loop, UV_RUN_NOWAIT);
    ck_assert_int_eq(idle_dones, 0);
    ck_assert(!store_idle(st)); /* filled and in flight */
    loop_until(&loop, &idle_dones);
    ck_assert(store_idle(st));
    store_chat(st, "I1", 0, "P0", "hello", 5000);
    ck_assert(!store_idle(st)); /* a chat line waits for the next batch */
    idle_wait(&loop, st);
    ck_assert(store_idle(st));
    struct store_room *e = store_row_add(st); /* a room going: its row only */
    snprintf(e->id, sizeof e->id, "I1");
    e->gone = STORE_DELETE;
    ck_assert(!store_idle(st));
    idle_wait(&loop, st);
    ck_assert(store_idle(st));
    ck_assert_int_eq(store_batches(st), 3);
    store_stop(st);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    store_close(st);
}
END_TEST

/* ---- analyses (store_analysis_add, the record hook) ---- */

struct told {
    int calls;
    char id[PROTO_ROOM_MAX];
};

static void on_told(void *arg, const char *id)
{
    struct told *t = arg;
    t->calls++;
    snprintf(t->id, sizeof t->id, "%s", id);
}

/* id's stored analysis, or "" when there is none (404); fails on 503. */
static const char *analysis_of(struct store *st, const char *id)
{
    static char out[64];
    int code = 0;
    char *doc = store_analysis_get(st, id, &code);
    ck_assert_msg(code == 200 || code == 404, "%d", code);
    snprintf(out, sizeof out, "%s", doc != NULL ? doc : "");
    free(doc);
    return out;
}

/* A record entry of the batch being filled: a room closed with its record. */
static void record_add(struct store *st, const char *id, const char *status)
{
    struct store_room *e = store_row_add(st);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->gone = STORE_CLOSE;
    e->updated = 5;
    e->record = mem_strdup("{\"r\":1}");
    e->players = mem_strdup("[\"A\",\"B\"]");
    e->scores = mem_strdup("[1,2]");
    e->status = status;
}

/* An analysis is written once with its batch, its asker told after the
 * commit; a failed commit carries it to the next; a forgotten asker is not
 * told; only a finished game's record reaches the record hook. */
START_TEST(analyses_stored_once)
{
    char err[512];
    struct store *st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    struct told t = {0}, muted = {0}, rec = {0};
    store_analysis_add(st, "G1", "{\"a\":1}", 5, on_told, &t);
    ck_assert_int_eq(t.calls, 0);
    ck_assert_str_eq(analysis_of(st, "G1"), "");
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(t.calls, 1);
    ck_assert_str_eq(t.id, "G1");
    ck_assert_str_eq(analysis_of(st, "G1"), "{\"a\":1}");
    /* Never changed: a second document for the game is dropped. */
    store_analysis_add(st, "G1", "{\"a\":2}", 6, on_told, &t);
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(t.calls, 2);
    ck_assert_str_eq(analysis_of(st, "G1"), "{\"a\":1}");
    /* A failed commit: nobody told, the document written by the next one. */
    store_test_fail(st, 1);
    store_analysis_add(st, "G2", "{\"b\":1}", 7, on_told, &t);
    ck_assert_int_eq(store_flush(st), -1);
    ck_assert_int_eq(t.calls, 2);
    ck_assert(!store_idle(st));
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(t.calls, 3);
    ck_assert_str_eq(t.id, "G2");
    ck_assert_str_eq(analysis_of(st, "G2"), "{\"b\":1}");
    /* An asker that went away is not told; the document is still written. */
    store_analysis_add(st, "G3", "{\"c\":1}", 8, on_told, &muted);
    store_analysis_forget(st, &muted);
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(muted.calls, 0);
    ck_assert_str_eq(analysis_of(st, "G3"), "{\"c\":1}");
    ck_assert_str_eq(analysis_of(st, "G4"), "");
    /* The record hook: a finished game's record, not an abandoned one's. */
    store_record_hook_set(st, on_told, &rec);
    record_add(st, "R1", STORE_ABANDONED);
    record_add(st, "R2", STORE_FINISHED);
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(rec.calls, 1);
    ck_assert_str_eq(rec.id, "R2");
    store_record_hook_set(st, NULL, NULL);
    record_add(st, "R3", STORE_FINISHED);
    ck_assert_int_eq(store_flush(st), 0);
    ck_assert_int_eq(rec.calls, 1);
    store_close(st);
    /* The documents outlive the process. */
    st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    ck_assert_str_eq(analysis_of(st, "G2"), "{\"b\":1}");
    store_close(st);
}
END_TEST

/* GET /api/games/{id}/analysis's read, on the thread pool. */
START_TEST(analysis_read_on_the_thread_pool)
{
    char err[512];
    struct store *st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    store_analysis_add(st, "G1", "{\"a\":1}", 5, NULL, NULL);
    ck_assert_int_eq(store_flush(st), 0);
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    store_start(st, &loop, NULL);
    struct got g = {0}, miss = {0};
    ck_assert_ptr_nonnull(store_analysis_read(st, "G1", on_got, &g));
    ck_assert_ptr_nonnull(store_analysis_read(st, "G2", on_got, &miss));
    loop_until(&loop, &miss.calls);
    ck_assert_int_eq(g.status, 200);
    ck_assert_str_eq(g.json, "{\"a\":1}");
    ck_assert_int_eq(miss.status, 404);
    free(g.json);
    store_stop(st);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    store_close(st);
}
END_TEST

Suite *suite_store_read(void)
{
    Suite *s = suite_create("store_read");
    TCase *tc = tcase_create("store_read");
    tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
    tcase_add_test(tc, records_paged_from_disk);
    tcase_add_test(tc, reads_on_the_thread_pool);
    tcase_add_test(tc, entry_read_open_room);
    tcase_add_test(tc, entry_read_cancel);
    tcase_add_test(tc, store_idle_follows_batches);
    tcase_add_test(tc, analyses_stored_once);
    tcase_add_test(tc, analysis_read_on_the_thread_pool);
    suite_add_tcase(s, tc);
    /* The reads through PostgreSQL (make test runs it under tests/pg.sh); none
     * without one (a test case made and not added would leak). */
    if (getenv("CARC_PG_URL") == NULL)
        return s;
    TCase *pg = tcase_create("store_read_pg");
    tcase_add_checked_fixture(pg, pg_setup, pg_teardown);
    tcase_set_timeout(pg, 30);
    tcase_add_test(pg, records_paged_pg);
    tcase_add_test(pg, reads_on_the_thread_pool);
    tcase_add_test(pg, entry_read_open_room);
    tcase_add_test(pg, entry_read_cancel);
    tcase_add_test(pg, store_idle_follows_batches);
    tcase_add_test(pg, analyses_stored_once);
    tcase_add_test(pg, analysis_read_on_the_thread_pool);
    suite_add_tcase(s, pg);
    return s;
}
