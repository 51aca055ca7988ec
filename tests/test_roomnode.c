/* test_roomnode.c: two cluster nodes (roomnode.h) in one process, each with
 * its own uv loop, Redis client, lease set, directory, PostgreSQL store
 * (store_open_postgres_node, ids "na" and "nb", one database) and lobby,
 * wired as main.c's cluster_open wires a node, against a real
 * redis-server (redis_util.h) and a real PostgreSQL (tests/pg.sh sets
 * CARC_PG_URL; without it the suite is empty). Clients are room_util.h's
 * fake sessions: its global `lb` is pointed at the node a client talks to
 * (use()). A node "dies" by not running its loop, as SIGSTOP would; it is
 * freed only at the end. What Redis and the database hold is read back with
 * ru_cmd and psql, not through the code under test.
 *
 * Rooms write before they tell (store.h), and a create or a request for a
 * room this node lacks waits for Redis: every answer comes only while the
 * node's loop runs (UNTIL). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "cluster/directory.h"
#include "cluster/lease.h"
#include "cluster/redis.h"
#include "event_json.h"
#include "game/lobby.h"
#include "game/room.h"
#include "game/roomnode.h"
#include "pg_util.h"
#include "redis_util.h"
#include "room_util.h"
#include "store/store.h"
#include "tests.h"
#include "tiles.h"
#include "util/log.h"

/* store_util.h's PostgreSQL helpers (its struct fake clashes with
 * room_util.h's, so they are declared here). */
extern const char *su_pg;
void pg_setup(void);
void pg_teardown(void);

#define TTL 600 /* lease ttl (ms): renewals every 200 ms */
static int ttl; /* the nodes' (TTL, or longer for the fencing case) */

static struct ru_server srv;

struct node {
    char id[8];
    uv_loop_t loop;
    struct redis *r;
    struct lease_set *ls;
    struct directory *dir;
    struct store *st;
    struct lobby *lb;
    struct roomnode *rn;
    int up, leases_closed;
    int dead; /* its loop is not run (SIGSTOP) */
};
static struct node na, nb;

static void on_state(void *arg, int up)
{
    ((struct node *)arg)->up = up;
}

/* main.c's on_lease_lost */
static void on_lost(void *arg, const char *room, uint64_t fence)
{
    struct node *n = arg;
    if (n->rn != NULL)
        roomnode_lease_lost(n->rn, room, fence);
}

static void node_open(struct node *n, const char *id)
{
    memset(n, 0, sizeof *n);
    snprintf(n->id, sizeof n->id, "%s", id);
    ck_assert_int_eq(uv_loop_init(&n->loop), 0);
    struct lobby_limits l;
    lobby_limits_defaults(&l);
    l.rate = l.burst = l.flood_rate = l.flood_burst = 100000;
    l.list_max = 8; /* small blocks: see heap_prime */
    n->lb = lobby_new(&l);
    char err[512], url[128];
    n->st = store_open_postgres_node(su_pg, id, 5, err, sizeof err);
    ck_assert_msg(n->st != NULL, "%s", err);
    lobby_store_set(n->lb, n->st);
    ru_url(&srv, url, sizeof url);
    n->r = redis_new(&n->loop, url,
                     &(struct redis_opts){.command_ms = 200, .state = on_state, .arg = n}, err,
                     sizeof err);
    ck_assert_msg(n->r != NULL, "%s", err);
    n->ls = lease_set_new(&n->loop, n->r, &(struct lease_opts){.node = id, .ttl_ms = ttl},
                          &(struct lease_hooks){on_lost, n}, err, sizeof err);
    ck_assert_msg(n->ls != NULL, "%s", err);
    n->dir = directory_new(n->r, id, ROOMNODE_DIR_TTLS * ttl, err, sizeof err);
    ck_assert_msg(n->dir != NULL, "%s", err);
    n->rn = roomnode_new(n->lb, n->ls, n->dir, id, ttl);
    ck_assert_ptr_eq(n->lb->node, n->rn);
    redis_start(n->r);
    ck_assert(ru_loop_until(&n->loop, &n->up, 3000));
    store_start(n->st, &n->loop, NULL);
}

static void on_leases_closed(void *arg)
{
    ((struct node *)arg)->leases_closed = 1;
}

/* main.c's order, up to the loop run out: the roomnode closed, the leases
 * released, the Redis client closed; the store and the lobby keep running
 * meanwhile (a handover does not wait for the clients), so a batch filled
 * and a tick after that must touch neither the lease set nor Redis, and
 * write nothing of the rooms (their fence is 0); then the store's handle. */
static void node_stop(struct node *n)
{
    roomnode_close(n->rn);
    for (struct room *r = n->lb->oldest; r != NULL; r = r->newer) {
        ck_assert_int_eq(roomnode_fence(n->rn, r), 0);
        room__dirty(r); /* a change after the release: filled, not written */
    }
    lease_set_close(n->ls, on_leases_closed, n);
    ck_assert(ru_loop_until(&n->loop, &n->leases_closed, 3000));
    redis_close(n->r);
    lobby_tick(n->lb, uv_now(&n->loop) + 1000);
    for (struct room *r = n->lb->oldest; r != NULL; r = r->newer)
        room__dirty(r);
    ru_loop_for(&n->loop, 50);
    store_stop(n->st);
    uv_run(&n->loop, UV_RUN_DEFAULT);
    roomnode_free(n->rn);
    ck_assert_ptr_null(n->lb->node);
}

/* The rest: the directory, the lobby, the store (clients of n gone first). */
static void node_free(struct node *n)
{
    directory_free(n->dir);
    lobby_free(n->lb);
    store_close(n->st);
    ck_assert_int_eq(uv_loop_close(&n->loop), 0);
}

/* Clients of n must be gone (fake_free) first. */
static void node_close(struct node *n)
{
    node_stop(n);
    node_free(n);
}

/* The nodes that are not dead run for about ms (both, always: a node whose
 * loop does not run for most of a lease's ttl loses its rooms). */
static void run(int ms)
{
    for (int i = 0; i < ms; i++) {
        if (!na.dead)
            uv_run(&na.loop, UV_RUN_NOWAIT);
        if (!nb.dead)
            uv_run(&nb.loop, UV_RUN_NOWAIT);
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
}

#define UNTIL(cond, ms)                                                                            \
    do {                                                                                           \
        for (int i_ = 0; i_ < (ms) && !(cond); i_++)                                               \
            run(1);                                                                                \
        ck_assert_msg((cond), "line %d: not within %d ms: %s\n%s", __LINE__, (ms), #cond,          \
                      test_log_text());                                                            \
    } while (0)

/* Clients talk to n from now on. */
static void use(struct node *n)
{
    lb = n->lb;
}

static struct fake *client(struct node *n)
{
    use(n);
    return fake_new();
}

static void client_free(struct node *n, struct fake *f)
{
    use(n);
    fake_free(f);
}

/* The oldest queued message of f, raw (for types the client library does
 * not know); "" when none. */
static const char *raw_pop(struct fake *f)
{
    static char text[4096];
    struct sbuf *b = session_peek(&f->s);
    if (b == NULL)
        return "";
    snprintf(text, sizeof text, "%s", b->data);
    session_pop(&f->s);
    return text;
}

static void run_1ms(void *arg)
{
    (void)arg;
    run(1);
}

/* One value from psql; the nodes keep running while psql does (a busy
 * machine can take longer to start it than a lease lasts). */
static void sql(const char *q, char *out, size_t size)
{
    pgu_query(q, out, size, run_1ms, NULL);
}

static long long sql_int(const char *fmt, const char *room)
{
    char q[512], out[128];
    snprintf(q, sizeof q, fmt, room);
    sql(q, out, sizeof out);
    ck_assert_msg(out[0] != '\0', "%s: no row", q);
    return atoll(out);
}

static const char *redis(const char *fmt, const char *room)
{
    static char out[4][256];
    static int k;
    char c[256], *o = out[k++ & 3];
    snprintf(c, sizeof c, fmt, room);
    ru_cmd(&srv, c, o, 256);
    return o;
}

static void setup_common(void)
{
    pg_setup();
    ru_start(&srv, NULL);
    test_log_capture();
    log_level_set(LOG_WARN);
    now = 1000000;
    node_open(&na, "na");
    node_open(&nb, "nb");
}

static void setup_nodes(void)
{
    ttl = TTL;
    setup_common();
}

static void setup_long(void)
{
    ttl = 3000;
    setup_common();
}

static void teardown_nodes(void)
{
    test_log_release();
    ru_stop(&srv);
    pg_teardown();
}

/* The directory's entry of room id names node (its value starts "node\t"). */
static void expect_listed_by(const char *id, const char *node)
{
    const char *v = redis("GET carcd:room:%s", id);
    ck_assert_msg(strncmp(v, node, 2) == 0 && v[2] == '\t', "%s", v);
}

/* ---- a game on na ---- */

/* f creates a room on n (answered only after its lease and its commit). */
static struct room *create_on(struct node *n, struct fake *f, const char *extra)
{
    use(n);
    say(f, "\"type\":\"create\",\"id\":1,\"name\":\"Ann\",\"seats\":2%s", extra);
    expect_nothing(f); /* the lease first */
    UNTIL(queued(f) > 0, 3000);
    const char *j = expect(f, "joined");
    ck_assert_int_eq(jint(j, "seat"), 0);
    snprintf(f->token, sizeof f->token, "%s", jstr(j, "token"));
    snprintf(f->room, sizeof f->room, "%s", jstr(j, "room"));
    f->seat = 0;
    proto_client_seat_set(f->doc, 0);
    expect(f, "state");
    struct room *r = lobby_room_find(n->lb, f->room);
    ck_assert_ptr_nonnull(r);
    return r;
}

/* f sends join for room (to the node lb is); the answer is not waited for. */
static void join_request(struct fake *f, const char *room)
{
    say(f, "\"type\":\"join\",\"id\":\"j\",\"room\":\"%s\",\"name\":\"Bob\"", room);
}

/* f joins room on n (the node that has it). */
static void join_on(struct node *n, struct fake *f, const char *room, const char *name)
{
    use(n);
    say(f, "\"type\":\"join\",\"id\":\"j\",\"room\":\"%s\",\"name\":\"%s\"", room, name);
    UNTIL(queued(f) > 0, 3000);
    const char *j = expect(f, "joined");
    snprintf(f->token, sizeof f->token, "%s", jstr(j, "token"));
    snprintf(f->room, sizeof f->room, "%s", room);
    f->seat = (int)jint(j, "seat");
    proto_client_seat_set(f->doc, f->seat);
    expect(f, "state");
}

/* p (to move in r on n) plays its pick-th legal placement; o (if any) sees
 * it. Answered after the commit. */
static void play_on(struct node *n, struct room *r, struct fake *p, struct fake *o, int pick)
{
    use(n);
    ck_assert(proto_client_my_turn(p->doc));
    struct proto_client_legal legal[8];
    int k = proto_client_legal(p->doc, legal, 8);
    ck_assert_int_gt(k, 0);
    const struct proto_client_legal *l = &legal[pick % (k < 8 ? k : 8)];
    long long seq = r->seq;
    say(p, "\"type\":\"play\",\"id\":%d,\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
        100 + (int)seq, carc_tiles[proto_client_tile(p->doc)].id, l->x, l->y, l->rot * 90);
    ck_assert_int_eq(r->seq, seq + 1);
    UNTIL(queued(p) > 0 && (o == NULL || queued(o) > 0), 3000);
    const char *d = expect(p, "delta");
    ck_assert_int_eq(jint(d, "seq"), seq + 1);
    expect(p, "ack");
    if (o != NULL)
        expect(o, "delta");
}

/* A started two-seat game on na with two moves: a hosts, b joined. On the
 * way, (a): a join sent to nb is redirected to na. */
static struct room *game_on_na(struct fake **pa, struct fake **pb)
{
    use(&na);
    ck_assert_int_eq(lobby_test_game(na.lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = client(&na);
    struct room *r = create_on(&na, a, "");
    ck_assert_str_eq(redis("GET carcd:lease:%s", a->room), "na:1");
    /* a client of nb asks for it: redirected to its owner */
    struct fake *x = client(&nb);
    say(x, "\"type\":\"join\",\"id\":\"x\",\"room\":\"%s\",\"name\":\"Xena\"", a->room);
    expect_nothing(x);
    UNTIL(queued(x) > 0, 3000);
    const char *m = raw_pop(x);
    ck_assert_msg(strcmp(jstr(m, "type"), "redirect") == 0, "%s", m);
    ck_assert_str_eq(jstr(m, "ref"), "x");
    ck_assert_str_eq(jstr(m, "room"), a->room);
    ck_assert_str_eq(jstr(m, "node"), "na");
    ck_assert_str_eq(jstr(m, "path"), "/n/na/ws");
    ck_assert_int_eq(jint(m, "retry_ms"), ROOMNODE_RETRY_MS);
    expect_nothing(x);
    ck_assert_ptr_null(lobby_room_find(nb.lb, a->room));
    ck_assert_int_eq(nb.lb->nrooms, 0);
    ck_assert_int_eq(lease_count(nb.ls), 0);
    ck_assert_str_eq(redis("GET carcd:lease:%s", a->room), "na:1"); /* nb took nothing */
    ck_assert_int_eq(x->s.room == NULL, 1);
    /* watch, and resume with a's own token: redirected too (a live owner
     * keeps its room: a resume elsewhere takes nothing over) */
    say(x, "\"type\":\"watch\",\"id\":\"w\",\"room\":\"%s\"", a->room);
    UNTIL(queued(x) > 0, 3000);
    m = raw_pop(x);
    ck_assert_msg(strcmp(jstr(m, "type"), "redirect") == 0, "%s", m);
    ck_assert_str_eq(jstr(m, "ref"), "w");
    ck_assert_str_eq(jstr(m, "node"), "na");
    say(x, "\"type\":\"resume\",\"id\":\"r\",\"room\":\"%s\",\"token\":\"%s\"", a->room, a->token);
    UNTIL(queued(x) > 0, 3000);
    m = raw_pop(x);
    ck_assert_msg(strcmp(jstr(m, "type"), "redirect") == 0, "%s", m);
    ck_assert_str_eq(jstr(m, "ref"), "r");
    ck_assert_str_eq(jstr(m, "path"), "/n/na/ws");
    expect_nothing(x);
    ck_assert_int_eq(nb.lb->nrooms, 0);
    ck_assert_int_eq(a->closes, 0);
    ck_assert_str_eq(redis("GET carcd:lease:%s", a->room), "na:1");
    client_free(&nb, x);
    /* it follows the redirect */
    struct fake *b = client(&na);
    join_on(&na, b, a->room, "Bob");
    UNTIL(queued(a) > 0, 3000);
    expect(a, "delta");
    use(&na);
    say(a, "\"type\":\"start\",\"id\":2");
    UNTIL(queued(a) > 0 && queued(b) > 0, 3000);
    expect(a, "delta");
    expect(b, "delta");
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    for (int i = 0; i < 2; i++) {
        struct fake *p = current(r, a, b);
        play_on(&na, r, p, p == a ? b : a, 0);
    }
    ck_assert_int_eq(r->nmoves, 2);
    *pa = a;
    *pb = b;
    return r;
}

/* The answer to `list` is built in a malloc'd array of list_max summaries
 * (lobby_rooms_encode). A block of that size freed just before is what
 * glibc's malloc hands out next (its tcache is LIFO): filled here with
 * pointers to a text that is not a JSON object, so that a field the server
 * leaves unset reads that, not whatever the heap held by chance (then the
 * failure would come and go, or be a crash). Set fields overwrite it. */
static void heap_prime(const struct lobby *l)
{
    static const char not_an_object[] = "\"unset\"";
    size_t n = (size_t)l->lim.list_max * sizeof(struct proto_room_summary) / sizeof(char *);
    /* volatile: the compiler would drop a block written and freed unread */
    const char *volatile *block = malloc(n * sizeof *block);
    ck_assert_ptr_nonnull((void *)block);
    for (size_t i = 0; i < n; i++)
        block[i] = not_an_object;
    free((void *)block);
}

/* (a) create waits for the lease, a join on the other node is redirected;
 * (b) `list` on either node shows the public rooms of both, never a
 * private one. */
START_TEST(roomnode_redirect_and_list)
{
    struct fake *a, *b;
    struct room *r = game_on_na(&a, &b);
    char pub[PROTO_ROOM_MAX];
    snprintf(pub, sizeof pub, "%s", r->id);
    struct fake *c = client(&na);
    create_on(&na, c, ",\"private\":true");
    ck_assert_str_eq(redis("GET carcd:lease:%s", c->room), "na:1");
    /* one of nb's own, in its lobby */
    struct fake *d = client(&nb);
    create_on(&nb, d, "");
    ck_assert_str_eq(redis("GET carcd:lease:%s", d->room), "nb:1");
    /* a tick on each publishes and reads */
    lobby_tick(na.lb, now);
    lobby_tick(nb.lb, now);
    run(100);
    lobby_tick(na.lb, now);
    lobby_tick(nb.lb, now);
    run(100);
    ck_assert_str_eq(redis("EXISTS carcd:room:%s", pub), "1");
    ck_assert_str_eq(redis("EXISTS carcd:room:%s", c->room), "0");
    ck_assert_str_eq(redis("ZSCORE carcd:rooms %s", c->room), "(nil)");
    ck_assert_str_eq(redis("ZCARD carcd:rooms%s", ""), "2");
    struct fake *x = client(&nb);
    heap_prime(nb.lb);
    say(x, "\"type\":\"list\",\"id\":7");
    UNTIL(queued(x) > 0, 1000);
    const char *m = expect(x, "rooms");
    ck_assert_int_eq(jint(m, "ref"), 7);
    /* newest first: nb's own room, then na's public one; not the private one.
     * heap_prime left pointers to non-objects where the list is allocated: a
     * summary of nb's own room whose json were left unset would be dropped
     * (or crash) rather than listed. */
    ck_assert_msg(strcmp(jstr(m, "rooms.0.room"), d->room) == 0, "%s", m);
    ck_assert_msg(strcmp(jstr(m, "rooms.1.room"), pub) == 0, "%s", m);
    ck_assert_msg(!has(m, "rooms.2"), "%s", m);
    ck_assert_msg(strstr(m, c->room) == NULL, "%s", m);
    ck_assert_str_eq(jstr(m, "rooms.1.phase"), "playing");
    ck_assert_int_eq(jint(m, "rooms.1.taken"), 2);
    ck_assert_str_eq(jstr(m, "rooms.1.host"), "Ann");
    ck_assert_str_eq(jstr(m, "rooms.0.phase"), "lobby");
    /* and on na */
    use(&na);
    heap_prime(na.lb);
    say(c, "\"type\":\"list\",\"id\":8");
    UNTIL(queued(c) > 0, 1000);
    m = expect(c, "rooms");
    ck_assert_msg(strcmp(jstr(m, "rooms.0.room"), d->room) == 0, "%s", m);
    ck_assert_msg(strcmp(jstr(m, "rooms.1.room"), pub) == 0, "%s", m);
    ck_assert_msg(!has(m, "rooms.2"), "%s", m);
    ck_assert_msg(strstr(m, c->room) == NULL, "%s", m);
    /* na kept its rooms all along */
    ck_assert_uint_ne(lease_fence(na.ls, pub), 0);
    ck_assert_int_eq(a->closes + b->closes + c->closes, 0);
    client_free(&na, a);
    client_free(&na, b);
    client_free(&na, c);
    client_free(&nb, d);
    client_free(&nb, x);
    node_close(&na);
    node_close(&nb);
}
END_TEST

/* nb's room rb, rebuilt from the database, plays na's game r: its state m
 * shows the same board, turn, tile and seats; its moves are na's. */
static void expect_rebuilt_as(const char *m, struct room *r, struct room *rb, int nmoves)
{
    char *na_state = proto_state_encode(r->state, r->seq, NULL);
    const char *same[] = {"state.board",     "state.turn",         "state.current",   "state.tile",
                          "state.remaining", "state.seats.1.name", "state.commitment"};
    for (int i = 0; i < 7; i++) {
        char *x = proto_json_path_dump(m, strlen(m), same[i]);
        char *y = proto_json_path_dump(na_state, strlen(na_state), same[i]);
        ck_assert_msg(x != NULL && y != NULL && strcmp(x, y) == 0, "%s: %s on nb, %s on na",
                      same[i], x, y);
        free(x);
        free(y);
    }
    free(na_state);
    ck_assert_ptr_nonnull(rb);
    ck_assert_int_eq(rb->nmoves, nmoves);
    for (int i = 0; i < nmoves; i++) {
        char x[256], y[256];
        ck_assert_int_ge(room_move_json(rb, i, x, sizeof x), 0);
        ck_assert_int_ge(room_move_json(r, i, y, sizeof y), 0);
        ck_assert_str_eq(x, y);
    }
}

/* After na gave room id up, na's wake-up touched nothing of nb's: the database
 * (seq, fence fb, nmoves + 1 moves ending with nb_move), the lease (want), nb's
 * client ra, and the directory's entry. */
static void expect_nb_owns(const char *id, struct room *rb, uint64_t fb, int nmoves,
                           const char *nb_move, const char *want, struct fake *ra)
{
    ck_assert_int_eq(sql_int("SELECT seq FROM rooms WHERE id = '%s'", id), rb->seq);
    ck_assert_int_eq(sql_int("SELECT fence FROM rooms WHERE id = '%s'", id), (long long)fb);
    ck_assert_int_eq(sql_int("SELECT count(*) FROM moves WHERE room = '%s'", id), nmoves + 1);
    char q[256], got[256];
    snprintf(q, sizeof q, "SELECT move FROM moves WHERE room = '%s' ORDER BY idx DESC LIMIT 1", id);
    sql(q, got, sizeof got);
    ck_assert_str_eq(got, nb_move);
    ck_assert_ptr_eq(lobby_room_find(nb.lb, id), rb);
    ck_assert_uint_eq(lease_fence(nb.ls, id), fb);
    ck_assert_int_eq(ra->closes, 0);
    ck_assert_str_eq(redis("GET carcd:lease:%s", id), want);
    expect_listed_by(id, "nb");
    ck_assert_str_eq(redis("ZCARD carcd:rooms%s", ""), "1");
}

/* (c) na dies with its room (not released); past the lease's ttl a resume
 * on nb takes the room from the database: joined and state with na's
 * committed seq and moves. (d) na runs again: it gives the room up (its
 * clients closed with 4003), and a move it tries is never written. */
START_TEST(roomnode_takeover_and_lost)
{
    struct fake *a, *b;
    struct room *r = game_on_na(&a, &b);
    char id[PROTO_ROOM_MAX];
    snprintf(id, sizeof id, "%s", r->id);
    long long seq = r->seq;
    int nmoves = r->nmoves;
    uint64_t fa = lease_fence(na.ls, id);
    ck_assert_uint_eq(fa, 1);
    ck_assert_int_eq(sql_int("SELECT seq FROM rooms WHERE id = '%s'", id), seq);
    /* na lists it in the directory */
    lobby_tick(na.lb, now);
    run(100);
    expect_listed_by(id, "na");
    /* na dies: only nb runs from here */
    na.dead = 1;
    run(TTL + 300);
    ck_assert_str_eq(redis("EXISTS carcd:lease:%s", id), "0");
    struct fake *ra = client(&nb);
    const char *m;
    test_log_capture(); /* the takeover's line only (the buffer is small) */
    log_level_set(LOG_INFO);
    say(ra, "\"type\":\"resume\",\"id\":5,\"room\":\"%s\",\"token\":\"%s\",\"seq\":%lld", id,
        a->token, seq);
    /* in the same turn: a spectator, and one who leaves before the answer */
    struct fake *w = client(&nb), *gone = client(&nb);
    say(w, "\"type\":\"watch\",\"id\":6,\"room\":\"%s\"", id);
    say(gone, "\"type\":\"watch\",\"id\":6,\"room\":\"%s\"", id);
    client_free(&nb, gone);
    expect_nothing(ra);
    expect_nothing(w);
    UNTIL(queued(ra) > 0 && queued(w) > 0, 3000);
    m = expect(w, "watching");
    ck_assert_int_eq(jint(m, "ref"), 6);
    m = expect(w, "state");
    ck_assert_int_gt(jint(m, "seq"), seq);
    m = expect(ra, "joined");
    ck_assert_int_eq(jint(m, "seat"), a->seat);
    m = expect(ra, "state");
    /* A rebuilt room counts on from one past its stored seq (room_restore),
     * so that a client's older seq gets this snapshot: above na's, never
     * back; the game is na's, move for move. */
    ck_assert_int_gt(jint(m, "seq"), seq);
    ck_assert_int_eq(jint(m, "ref"), 5);
    struct room *rb = lobby_room_find(nb.lb, id);
    expect_rebuilt_as(m, r, rb, nmoves);
    uint64_t fb = lease_fence(nb.ls, id);
    ck_assert_uint_gt(fb, fa);
    char want[64];
    snprintf(want, sizeof want, "nb:%llu", (unsigned long long)fb);
    ck_assert_str_eq(redis("GET carcd:lease:%s", id), want);
    /* claimed in the database with the new fence before the answer */
    ck_assert_int_eq(sql_int("SELECT fence FROM rooms WHERE id = '%s'", id), (long long)fb);
    ck_assert_msg(test_log_count("room taken over") == 1, "%s", test_log_text());
    log_level_set(LOG_WARN);
    test_log_capture();
    /* the game goes on on nb: seat a's move (a's turn: two moves were played) */
    ck_assert(proto_client_my_turn(ra->doc));
    play_on(&nb, rb, ra, NULL, 0);
    ck_assert_int_eq(rb->nmoves, nmoves + 1);
    char nb_move[256];
    ck_assert_int_ge(room_move_json(rb, nmoves, nb_move, sizeof nb_move), 0);
    /* nb lists it now (the same key, its own value) */
    lobby_tick(nb.lb, now);
    run(100);
    expect_listed_by(id, "nb");

    /* (d) na wakes: its lease is gone before it asks anyone; a move its
     * client sends now must not reach the database */
    na.dead = 0;
    uv_update_time(&na.loop);
    ck_assert_uint_eq(lease_fence(na.ls, id), 0);
    ck_assert_ptr_eq(lobby_room_find(na.lb, id), r);
    use(&na);
    ck_assert(proto_client_my_turn(a->doc));
    struct proto_client_legal legal[8];
    int k = proto_client_legal(a->doc, legal, 8);
    ck_assert_int_gt(k, 0);
    const struct proto_client_legal *l = &legal[k > 1 ? 1 : 0]; /* another than nb's if it can */
    say(a, "\"type\":\"play\",\"id\":77,\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d",
        carc_tiles[proto_client_tile(a->doc)].id, l->x, l->y, l->rot * 90);
    UNTIL(a->closes > 0 && b->closes > 0, 2000);
    ck_assert_int_eq(a->s.close_code, SESSION_CLOSE_MOVED);
    ck_assert_int_eq(b->s.close_code, SESSION_CLOSE_MOVED);
    ck_assert_ptr_null(lobby_room_find(na.lb, id));
    ck_assert_int_eq(lease_count(na.ls), 0);
    ck_assert_int_ge(test_log_count("room given up"), 1);
    /* never told: no ack for the move that was not written */
    for (const char *t; (t = raw_pop(a))[0] != '\0';)
        ck_assert_msg(strcmp(jstr(t, "type"), "ack") != 0, "%s", t);
    run(300);
    expect_nb_owns(id, rb, fb, nmoves, nb_move, want, ra);
    client_free(&na, a);
    client_free(&na, b);
    client_free(&nb, ra);
    client_free(&nb, w);
    node_close(&na);
    node_close(&nb);
}
END_TEST

/* (e) A room nobody has: no_such_room, and nothing is taken for it in
 * Redis (no lease, no fencing number). */
START_TEST(roomnode_unknown_room)
{
    struct fake *x = client(&nb);
    const char *types[] = {"join", "watch", "resume"};
    for (int i = 0; i < 3; i++) {
        use(&nb);
        if (i == 2)
            say(x, "\"type\":\"resume\",\"id\":%d,\"room\":\"Nosuch%d\",\"token\":\"%032d\"", i, i,
                0);
        else
            say(x, "\"type\":\"%s\",\"id\":%d,\"room\":\"Nosuch%d\"%s", types[i], i, i,
                i == 0 ? ",\"name\":\"X\"" : "");
        expect_nothing(x);
        UNTIL(queued(x) > 0, 3000);
        const char *m = expect_error(x, "no_such_room");
        ck_assert_int_eq(jint(m, "ref"), i);
        char room[PROTO_ROOM_MAX + 8];
        snprintf(room, sizeof room, "Nosuch%d", i);
        ck_assert_str_eq(redis("EXISTS carcd:fence:%s", room), "0");
        ck_assert_str_eq(redis("EXISTS carcd:lease:%s", room), "0");
    }
    ck_assert_int_eq(nb.lb->nrooms, 0);
    ck_assert_int_eq(lease_count(nb.ls), 0);
    /* Redis stalled: a create and a join cannot be answered but by an
     * error (within the client's command deadline), and nothing is made */
    ru_pause(&srv);
    use(&nb);
    say(x, "\"type\":\"create\",\"id\":8,\"name\":\"Ann\",\"seats\":2");
    UNTIL(queued(x) > 0, 2000);
    const char *m = expect_error(x, "storage_error");
    ck_assert_int_eq(jint(m, "ref"), 8);
    ck_assert_int_eq(nb.lb->nrooms, 0);
    UNTIL(!nb.up, 2000); /* the timeout dropped the connection */
    use(&nb);
    say(x, "\"type\":\"join\",\"id\":9,\"room\":\"Nosuch0\",\"name\":\"X\"");
    UNTIL(queued(x) > 0, 2000);
    m = expect_error(x, "storage_error");
    ck_assert_int_eq(jint(m, "ref"), 9);
    ru_resume(&srv);
    UNTIL(nb.up && na.up, 5000);
    client_free(&nb, x);
    node_close(&na);
    node_close(&nb);
}
END_TEST

/* (f) Redis lost its data (a failover without the keys): nb takes a room
 * that na still believes it holds, with a fence above the database's (the
 * floor). na's next write carries its old fence: PostgreSQL refuses it and
 * na gives the room up (fenced), though its lease has not run out. Redis is
 * paused while na writes, so that na cannot learn it from Redis first. */
START_TEST(roomnode_fenced_write)
{
    struct fake *a = client(&na);
    struct room *r = create_on(&na, a, "");
    char id[PROTO_ROOM_MAX];
    snprintf(id, sizeof id, "%s", r->id);
    ck_assert_uint_eq(lease_fence(na.ls, id), 1);
    ck_assert_int_eq(sql_int("SELECT fence FROM rooms WHERE id = '%s'", id), 1);
    na.dead = 1;
    redis("DEL carcd:lease:%s", id);
    redis("DEL carcd:fence:%s", id);
    struct fake *ra = client(&nb);
    say(ra, "\"type\":\"resume\",\"id\":5,\"room\":\"%s\",\"token\":\"%s\"", id, a->token);
    UNTIL(queued(ra) > 0, 3000);
    expect(ra, "joined");
    expect(ra, "state");
    uint64_t fb = lease_fence(nb.ls, id);
    ck_assert_uint_eq(fb, 2); /* above the database's 1, though Redis counted from 0 */
    ck_assert_int_eq(sql_int("SELECT fence FROM rooms WHERE id = '%s'", id), 2);
    /* na wakes with Redis stalled: its lease still looks valid to it */
    ru_pause(&srv);
    na.dead = 0;
    uv_update_time(&na.loop);
    ck_assert_uint_eq(lease_fence(na.ls, id), 1);
    test_log_capture();
    struct fake *b = client(&na);
    join_request(b, id);
    UNTIL(a->closes > 0, 1500);
    ck_assert_int_eq(a->s.close_code, SESSION_CLOSE_MOVED);
    ck_assert_ptr_null(lobby_room_find(na.lb, id));
    ck_assert_msg(test_log_count("fenced") >= 1, "%s", test_log_text());
    for (const char *t; (t = raw_pop(b))[0] != '\0';)
        ck_assert_msg(strcmp(jstr(t, "type"), "joined") != 0, "%s", t); /* never told */
    ru_resume(&srv);
    UNTIL(na.up && nb.up, 3000);
    run(300);
    /* the database has nb's room: its fence, and no seat for b */
    ck_assert_int_eq(sql_int("SELECT fence FROM rooms WHERE id = '%s'", id), 2);
    ck_assert_int_eq(sql_int("SELECT count(*) FROM seats WHERE room = '%s'", id), 1);
    ck_assert_ptr_nonnull(lobby_room_find(nb.lb, id));
    ck_assert_uint_eq(lease_fence(nb.ls, id), 2);
    ck_assert_int_eq(ra->closes, 0);
    client_free(&na, a);
    client_free(&na, b);
    client_free(&nb, ra);
    node_close(&na);
    node_close(&nb);
}
END_TEST

/* A node stopping while requests wait for Redis (a create's lease, a
 * join's lookup): roomnode_free drops every one (roomnode.h), so that no
 * session is left pointing at a request nobody will answer (nor is its
 * memory left behind: ASan's leak check). */
START_TEST(roomnode_stop_while_waiting)
{
    struct fake *a = client(&na);
    create_on(&na, a, "");
    struct fake *x = client(&nb), *y = client(&nb);
    say(x, "\"type\":\"join\",\"id\":1,\"room\":\"%s\",\"name\":\"X\"", a->room);
    say(y, "\"type\":\"create\",\"id\":2,\"name\":\"Y\",\"seats\":2");
    ck_assert_ptr_nonnull(x->s.wait);
    ck_assert_ptr_nonnull(y->s.wait);
    node_stop(&nb);                /* nothing ran on nb since: both still wait */
    ck_assert_ptr_null(x->s.wait); /* its GET ended with REDIS_E_CLOSED */
    ck_assert_int_eq(nb.lb->nrooms, 0);
    ck_assert_msg(strcmp(redis("KEYS carcd:lease:*%s", ""), "*1") == 0, "%s",
                  redis("KEYS carcd:lease:*%s", "")); /* a's only: y's was given back */
    /* lease_set_close drops a pending lease_acquire without calling it
     * back: roomnode_free must free the create's wait and unhook y. */
    ck_assert_ptr_null(y->s.wait);
    client_free(&nb, x);
    client_free(&nb, y);
    node_free(&nb);
    client_free(&na, a);
    node_close(&na);
}
END_TEST

Suite *suite_roomnode_pg(void)
{
    Suite *s = suite_create("roomnode_pg");
    if (getenv("CARC_PG_URL") == NULL)
        return s; /* none without PostgreSQL (a test case made and not added would leak) */
    TCase *tc = tcase_create("roomnode_pg");
    tcase_add_checked_fixture(tc, setup_nodes, teardown_nodes);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, roomnode_redirect_and_list);
    tcase_add_test(tc, roomnode_takeover_and_lost);
    tcase_add_test(tc, roomnode_unknown_room);
    tcase_add_test(tc, roomnode_stop_while_waiting);
    suite_add_tcase(s, tc);
    TCase *lf = tcase_create("roomnode_pg_fence");
    tcase_add_checked_fixture(lf, setup_long, teardown_nodes);
    tcase_set_timeout(lf, 60);
    tcase_add_test(lf, roomnode_fenced_write);
    suite_add_tcase(s, lf);
    return s;
}
