/* test_store.c: carcd's storage (server/store/, server/roomdb.c) without a
 * loop, in the scratch directory and world of store_util.h: the lobby is driven
 * with fake sessions as in test_room.c, and batches are written with
 * store_flush() where the server would run them on the thread pool.
 *
 * Covered: the schema, its version check and the migration from schema 1,
 * damaged files, an unwritable directory, a second store on one directory (the
 * lock), tokens kept as hashes only, write before tell (nothing is sent before
 * the commit; a failed commit undoes the move, and a crash after it keeps the
 * seqs apart), rooms stored and restored in the lobby, mid-game and finished,
 * abandoned games kept as records and stale rooms closed at start. Reading the
 * records back (server/store/read.c) is in test_store_read.c. suite_store_pg
 * runs the tests that do not look into SQLite's files against PostgreSQL
 * (CARC_PG_URL, tests/pg.sh), plus the database's lock. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "event_json.h"
#include "game/lobby.h"
#include "record_json.h"
#include "game/room.h"
#include "conn/session.h"
#include "sha256.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"

/* ---- file helpers ---- */

/* The bytes of a file (and its size), malloc'd; NULL when missing. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int contains(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return 1;
    return 0;
}

/* ---- fake clients ---- */

static char last[65536];

static const char *pop(struct fake *f)
{
    struct sbuf *b = session_peek(&f->s);
    if (b == NULL)
        return NULL;
    snprintf(last, sizeof last, "%s", b->data);
    session_pop(&f->s);
    return last;
}

static const char *jstr(const char *text, const char *path)
{
    static char buf[4][256];
    static int k;
    char *out = buf[k++ & 3];
    if (proto_json_path_string(text, strlen(text), path, out, 256) != 0)
        snprintf(out, 256, "<missing %s>", path);
    return out;
}

static const char *expect(struct fake *f, const char *type)
{
    const char *m = pop(f);
    ck_assert_msg(m != NULL, "expected %s, the queue is empty", type);
    ck_assert_msg(strcmp(jstr(m, "type"), type) == 0, "expected %s, got %s", type, m);
    return m;
}

static void drain(struct fake *f)
{
    while (pop(f) != NULL)
        ;
}

static struct fake *fake_new(void)
{
    struct fake *f = su_fake_open();
    expect(f, "welcome");
    return f;
}

static void say(struct fake *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct fake *f, const char *fmt, ...)
{
    char body[4096], msg[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof msg, "{\"v\":2,%s}", body);
    lobby_session_message(su_lb, &f->s, msg, strlen(msg), su_now);
    su_now += 10;
}

/* The commit of everything so far (the server does it once per loop turn). */
static void commit(void)
{
    ck_assert_int_eq(store_flush(su_st), 0);
}

static void take_seat(struct fake *f, const char *j)
{
    snprintf(f->token, sizeof f->token, "%s", jstr(j, "token"));
    snprintf(f->room, sizeof f->room, "%s", jstr(j, "room"));
    long long seat = 0;
    proto_json_path_int(j, strlen(j), "seat", &seat);
    f->seat = (int)seat;
}

static struct room *create(struct fake *f, const char *extra)
{
    say(f, "\"type\":\"create\",\"id\":1,\"name\":\"Ann\",\"seats\":%s", extra);
    ck_assert_ptr_null(pop(f)); /* nothing before the commit */
    commit();
    take_seat(f, expect(f, "joined"));
    expect(f, "state");
    return lobby_room_find(su_lb, f->room);
}

static void join(struct fake *f, const char *room, const char *name, const char *pw)
{
    say(f, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"%s\",\"password\":\"%s\"", room, name, pw);
    commit();
    take_seat(f, expect(f, "joined"));
    expect(f, "state");
}

static const char *const deck[] = {"BA.V", "BA.U", "BA.E", "BA.K", "BA.W",
                                   "BA.J", "BA.D", "BA.L", "BA.B", "BA.H"};
#define NDECK ((int)(sizeof deck / sizeof deck[0]))

/* The first legal placement of the drawn tile, as a play message body. */
static void play_first(struct room *r, struct fake *f)
{
    struct carc_placement p[CARC_MAX_FRONTIER * 4];
    int n = carc_game_placements(r->game, r->game->tile, p, CARC_MAX_FRONTIER * 4);
    ck_assert_int_gt(n, 0);
    say(f,
        "\"type\":\"play\",\"id\":7,\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,\"meeple\":null",
        carc_tiles[r->game->tile].id, p[0].x, p[0].y, p[0].rot * 90);
}

static struct room *game(struct fake **pa, struct fake **pb)
{
    ck_assert_int_eq(lobby_test_game(su_lb, 7, deck, NDECK), 0);
    struct fake *a = fake_new(), *b = fake_new();
    struct room *r = create(a, "2");
    join(b, a->room, "Bob", "");
    say(a, "\"type\":\"start\"");
    commit();
    drain(a);
    drain(b);
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    *pa = a;
    *pb = b;
    return r;
}

static struct fake *mover(struct room *r, struct fake *a, struct fake *b)
{
    return r->game->current == a->seat ? a : b;
}

/* ---- the file ---- */

START_TEST(schema_created_and_version_checked)
{
    char err[512];
    struct store *s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    store_close(s);
    size_t n;
    char *b = slurp(su_dbpath, &n);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_ge(n, 100);
    ck_assert(memcmp(b, "SQLite format 3", 15) == 0);
    /* PRAGMA user_version: header bytes 60..63, big-endian. */
    ck_assert_int_eq(b[60] << 24 | b[61] << 16 | b[62] << 8 | b[63], STORE_SCHEMA);
    /* Opening again keeps it. */
    s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    store_close(s);
    /* A newer schema is refused. */
    int fd = open(su_dbpath, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    unsigned char v[4] = {0, 0, 0, STORE_SCHEMA + 1};
    ck_assert_int_eq(pwrite(fd, v, 4, 60), 4);
    close(fd);
    s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "newer") != NULL, "%s", err);
    free(b);
}
END_TEST

START_TEST(damaged_file_refused)
{
    FILE *f = fopen(su_dbpath, "wb");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 8192; i++)
        fputc("garbage!"[i % 8], f);
    fclose(f);
    char err[512];
    struct store *s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "not a carcd database") != NULL, "%s", err);
    /* A real database whose pages were overwritten. */
    unlink(su_dbpath);
    s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_ptr_nonnull(s);
    store_close(s);
    size_t n;
    char *b = slurp(su_dbpath, &n);
    ck_assert_uint_gt(n, 4096);
    int fd = open(su_dbpath, O_WRONLY);
    char junk[4096];
    memset(junk, 0xA5, sizeof junk);
    ck_assert_int_eq(pwrite(fd, junk, sizeof junk, 4096), (ssize_t)sizeof junk);
    close(fd);
    s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_ptr_null(s);
    free(b);
}
END_TEST

START_TEST(unwritable_dir_refused)
{
    char err[512];
    struct store *s;
    if (geteuid() != 0) {
        ck_assert_int_eq(chmod(su_dir, 0555), 0);
        s = store_open(su_dir, 300, err, sizeof err);
        chmod(su_dir, 0700);
    } else {
        s = store_open("/proc", 300, err, sizeof err); /* not even root creates files there */
    }
    ck_assert_ptr_null(s);
    ck_assert_msg(err[0] != '\0', "no reason given");
}
END_TEST

/* ---- rooms ---- */

START_TEST(tokens_stored_as_hashes)
{
    world_open();
    struct fake *a = fake_new(), *b = fake_new();
    struct room *r = create(a, "3, \"password\": \"sesame-secret\"");
    join(b, a->room, "Bob", "sesame-secret");
    ck_assert_ptr_nonnull(r);
    say(a, "\"type\":\"chat\",\"text\":\"hello-durable\"");
    ck_assert_ptr_null(pop(b)); /* chat too waits for its commit */
    commit();
    expect(b, "chat");
    char ta[PROTO_TOKEN_MAX], tb[PROTO_TOKEN_MAX], room[PROTO_ROOM_MAX];
    memcpy(ta, a->token, sizeof ta);
    memcpy(tb, b->token, sizeof tb);
    memcpy(room, a->room, sizeof room);
    world_close();
    const char *files[] = {"", "-wal"};
    int found_hash = 0, found_chat = 0;
    char ha[SHA256_HEX];
    sha256_hex(ta, ha);
    for (int i = 0; i < 2; i++) {
        char p[160];
        snprintf(p, sizeof p, "%s%s", su_dbpath, files[i]);
        size_t n;
        char *buf = slurp(p, &n);
        if (buf == NULL)
            continue;
        ck_assert_msg(!contains(buf, n, ta) && !contains(buf, n, tb), "a token is in %s", p);
        ck_assert_msg(!contains(buf, n, "sesame-secret"), "the password is in %s", p);
        found_hash |= contains(buf, n, ha);
        found_chat |= contains(buf, n, "hello-durable");
        free(buf);
    }
    if (su_pg != NULL)
        found_hash = found_chat = 1; /* PostgreSQL's files: checked by pg_tokens_stored_as_hashes */
    ck_assert_msg(found_hash, "the token's hash is not stored");
    ck_assert_msg(found_chat, "the chat line is not stored");
    /* Back after a restart: the tokens still open the seats. */
    world_open();
    r = lobby_room_find(su_lb, room);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(room_token_seat(r, ta), 0);
    ck_assert_int_eq(room_token_seat(r, tb), 1);
    world_close();
}
END_TEST

START_TEST(lobby_room_restored)
{
    world_open();
    struct fake *a = fake_new(), *b = fake_new();
    struct room *r = create(a, "3, \"password\": \"pw\", \"options\": {\"farms\": \"second\","
                               " \"small_city\": 2, \"seat_order\": \"random\"}");
    join(b, a->room, "Bob", "pw");
    /* The fair draw's secret and Bob's entropy (acked: stored) survive the restart. */
    say(b, "\"type\":\"entropy\",\"data\":\"%064d\"", 42);
    commit();
    expect(b, "delta");
    expect(b, "ack");
    char secret[CARC_FAIR_HEX], entropy[CARC_FAIR_HEX];
    memcpy(secret, r->fair_secret, sizeof secret);
    memcpy(entropy, r->seats[1].entropy, sizeof entropy);
    ck_assert_str_ne(secret, "");
    char room[PROTO_ROOM_MAX], tb[PROTO_TOKEN_MAX];
    memcpy(room, a->room, sizeof room);
    memcpy(tb, b->token, sizeof tb);
    long long seq = r->seq;
    world_close();

    world_open();
    r = lobby_room_find(su_lb, room);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r->fair_secret, secret);
    ck_assert_str_eq(r->seats[1].entropy, entropy);
    ck_assert_str_eq(r->seats[0].entropy, "");
    char commit_hex[CARC_FAIR_HEX];
    carc_fair_commitment(secret, commit_hex);
    ck_assert_str_eq(r->fair_commit, commit_hex);
    ck_assert_int_eq(r->phase, PROTO_PHASE_LOBBY);
    ck_assert_int_eq(r->nseats, 3);
    ck_assert_int_eq(room_taken(r), 2);
    ck_assert_str_eq(r->seats[1].name, "Bob");
    ck_assert_int_eq(r->farm_rule, CARC_FARMS_SECOND); /* rooms.variants */
    ck_assert_int_eq(r->small_city, 1);
    ck_assert_int_eq(r->seat_random, 1);
    ck_assert_int_gt(r->seq, seq); /* resumes from before the restart get a snapshot */
    struct fake *b2 = fake_new();
    say(b2, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\",\"seq\":%lld", room, tb, seq);
    commit();
    expect(b2, "joined");
    expect(b2, "state");
    struct fake *c = fake_new();
    say(c, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Cy\",\"password\":\"nope\"", room);
    ck_assert_str_eq(jstr(expect(c, "error"), "code"), "wrong_password");
    join(c, room, "Cy", "pw");
    ck_assert_int_eq(room_taken(r), 3);
    world_close();
}
END_TEST

START_TEST(game_restored_mid_game_and_finished)
{
    world_open();
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    /* Write before tell: the move is applied, but told only after the commit. */
    struct fake *m = mover(r, a, b);
    play_first(r, m);
    ck_assert_ptr_null(pop(a));
    ck_assert_ptr_null(pop(b));
    commit();
    expect(a, "delta");
    expect(b, "delta");
    expect(m, "ack");
    for (int i = 0; i < 3; i++) {
        play_first(r, mover(r, a, b));
        commit();
    }
    drain(a);
    drain(b);
    char room[PROTO_ROOM_MAX], ta[PROTO_TOKEN_MAX], tb[PROTO_TOKEN_MAX];
    memcpy(room, a->room, sizeof room);
    memcpy(ta, a->token, sizeof ta);
    memcpy(tb, b->token, sizeof tb);
    int turn = r->game->turn, cur = r->game->current, tile = r->game->tile;
    int s0 = r->game->players[0].score, s1 = r->game->players[1].score;
    world_close();

    world_open();
    r = lobby_room_find(su_lb, room);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    ck_assert_int_eq(r->game->turn, turn);
    ck_assert_int_eq(r->game->current, cur);
    ck_assert_int_eq(r->game->tile, tile);
    ck_assert_int_eq(r->game->players[0].score, s0);
    ck_assert_int_eq(r->game->players[1].score, s1);
    int code = 0;
    ck_assert_ptr_null(store_game_get(su_st, room, &code));
    ck_assert_int_eq(code, 404);
    /* Both players resume with their tokens and play to the end. */
    a = fake_new();
    b = fake_new();
    say(a, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", room, ta);
    say(b, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", room, tb);
    commit();
    ck_assert_str_eq(jstr(expect(a, "joined"), "room"), room);
    expect(b, "joined");
    a->seat = 0;
    b->seat = 1;
    drain(a);
    drain(b);
    while (r->phase == PROTO_PHASE_PLAYING) {
        play_first(r, mover(r, a, b));
        commit();
        drain(a);
        drain(b);
    }
    ck_assert_int_eq(r->phase, PROTO_PHASE_OVER);
    s0 = r->game->players[0].score;
    s1 = r->game->players[1].score;
    char *rec = store_game_get(su_st, room, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_ptr_nonnull(rec);
    ck_assert(strstr(rec, "\"seed\":7") != NULL);
    free(rec);
    world_close();

    /* Finished: a record, no longer a room. */
    world_open();
    ck_assert_ptr_null(lobby_room_find(su_lb, room));
    rec = store_game_get(su_st, room, &code);
    ck_assert_ptr_nonnull(rec);
    free(rec);
    char *page = store_games_get(su_st, 1, STORE_FINISHED, &code);
    ck_assert_int_eq(code, 200);
    char want[64];
    snprintf(want, sizeof want, "\"scores\":[%d,%d]", s0, s1);
    ck_assert_msg(strstr(page, room) != NULL && strstr(page, want) != NULL, "%s", page);
    free(page);
    world_close();
}
END_TEST

/* The seq of the last `state` or `delta` in f's queue (drains it), or -1. */
static long long last_seq(struct fake *f)
{
    long long seq = -1;
    const char *t;
    while ((t = pop(f)) != NULL) {
        const char *q = strstr(t, "\"seq\":");
        if ((strstr(t, "\"type\":\"state\"") || strstr(t, "\"type\":\"delta\"")) && q != NULL)
            seq = strtoll(q + 6, NULL, 10);
    }
    return seq;
}

/* Replies keep the order of requests: a play refused while the mover's
 * accepted one waits for its commit comes after that one's delta and ack. */
START_TEST(replies_keep_request_order)
{
    world_open();
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    struct fake *m = mover(r, a, b);
    play_first(r, m);
    play_first(r, m); /* no longer m's turn */
    say(m, "\"type\":\"ping\",\"id\":8");
    ck_assert_ptr_null(pop(m)); /* nothing before the commit */
    commit();
    expect(m, "delta");
    ck_assert_ptr_nonnull(strstr(expect(m, "ack"), "\"ref\":7,"));
    ck_assert_str_eq(jstr(expect(m, "error"), "code"), "not_your_turn");
    ck_assert_ptr_nonnull(strstr(expect(m, "pong"), "\"ref\":8"));
    /* Nothing held: a reply goes out at once. */
    say(m, "\"type\":\"ping\",\"id\":9");
    ck_assert_ptr_nonnull(strstr(expect(m, "pong"), "\"ref\":9"));
    world_close();
}
END_TEST

START_TEST(failed_commit_undoes_the_move)
{
    world_open();
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    int turn = r->game->turn;
    struct fake *m = mover(r, a, b);
    struct fake *o = m == a ? b : a;
    test_log_capture();
    store_test_fail(su_st, 1);
    play_first(r, m);
    ck_assert_int_eq(r->game->turn, turn + 1); /* applied, not told */
    ck_assert_int_eq(store_flush(su_st), -1);
    ck_assert_str_eq(jstr(expect(m, "error"), "code"), "storage_error");
    /* The fresh state is not told before it is stored either. */
    ck_assert_ptr_null(pop(m));
    ck_assert_ptr_null(pop(o));
    ck_assert_int_eq(r->game->turn, turn); /* undone */
    ck_assert(store_failing(su_st));
    /* While the disk fails, moves are refused. */
    play_first(r, m);
    ck_assert_str_eq(jstr(expect(m, "error"), "code"), "storage_error");
    /* A second failure tells nothing more. */
    store_test_fail(su_st, 1);
    ck_assert_int_eq(store_flush(su_st), -1);
    ck_assert_ptr_null(pop(o));
    /* The disk is back: the retry clears the failure, the state goes out, and
     * moves go through. */
    commit();
    ck_assert(!store_failing(su_st));
    expect(m, "state");
    /* The mover's list follows the fresh state, to the mover alone. */
    const char *l = expect(m, "legal");
    long long player = -1;
    ck_assert_int_eq(proto_json_path_int(l, strlen(l), "player", &player), 0);
    ck_assert_int_eq(player, r->game->current);
    expect(o, "state");
    ck_assert_ptr_null(pop(o));
    play_first(r, m);
    commit();
    expect(m, "delta");
    expect(m, "ack");
    ck_assert_int_eq(r->game->turn, turn + 1);
    world_close();
    test_log_release();
    /* Logged once when commits start failing, not at the second failure. */
    ck_assert_msg(test_log_count("error: storage: a commit failed (a test failure)") == 1,
                  "log: %s", test_log_text());
}
END_TEST

/* A commit fails, then the server dies before any retry: every seq a client
 * saw must still be below the restored room's, so that resuming from it gets a
 * snapshot rather than deltas of another history. */
START_TEST(failed_commit_then_crash_keeps_seqs_apart)
{
    world_open();
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    char room[PROTO_ROOM_MAX], ta[PROTO_TOKEN_MAX];
    memcpy(room, r->id, sizeof room);
    memcpy(ta, a->token, sizeof ta);
    play_first(r, mover(r, a, b));
    commit();
    struct fake *m = mover(r, a, b);
    test_log_capture();
    store_test_fail(su_st, 1);
    play_first(r, m);
    ck_assert_int_eq(store_flush(su_st), -1);
    /* Someone's connection drops meanwhile: a change to tell, not stored. */
    say(b, "\"type\":\"leave\"");
    long long sa = last_seq(a), sb = last_seq(b), seen = sa > sb ? sa : sb;
    ck_assert_int_gt(seen, 0);
    world_crash();
    world_open();
    r = lobby_room_find(su_lb, room);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_gt(r->seq, seen);
    a = fake_new();
    say(a, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\",\"seq\":%lld", room, ta, seen);
    commit();
    expect(a, "joined");
    ck_assert_int_eq(strtoll(strstr(expect(a, "state"), "\"seq\":") + 6, NULL, 10), r->seq);
    world_close();
    test_log_release();
    ck_assert_msg(test_log_count("error: storage: a commit failed (a test failure)") == 1,
                  "log: %s", test_log_text());
}
END_TEST

/* A database of schema 1 (before games.status, clocks, bot seats and the fair draw) is
 * brought to the current schema, its finished games kept. */
START_TEST(schema_migrated_from_v1)
{
    char err[512];
    struct store *s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_int_eq(store_test_exec(s, "DROP INDEX games_status; DROP TABLE games;"
                                        "CREATE TABLE games(room TEXT PRIMARY KEY, record TEXT NOT"
                                        " NULL, players TEXT NOT NULL, scores TEXT NOT NULL,"
                                        " finished INTEGER NOT NULL);"
                                        "CREATE INDEX games_finished ON games(finished);"
                                        "INSERT INTO games VALUES('OLD1', '{\"seed\":1}',"
                                        " '[\"Ann\",\"Bob\"]', '[3,4]', 5);"
                                        "ALTER TABLE rooms DROP COLUMN variants;"
                                        "ALTER TABLE rooms DROP COLUMN clock_initial;"
                                        "ALTER TABLE rooms DROP COLUMN clock_increment;"
                                        "ALTER TABLE rooms DROP COLUMN clock_policy;"
                                        "ALTER TABLE seats DROP COLUMN bot;"
                                        "ALTER TABLE seats DROP COLUMN autoplay;"
                                        "ALTER TABLE seats DROP COLUMN forfeited;"
                                        "ALTER TABLE seats DROP COLUMN timeouts;"
                                        "ALTER TABLE seats DROP COLUMN clock_ms;"
                                        "ALTER TABLE rooms DROP COLUMN fair;"
                                        "ALTER TABLE rooms DROP COLUMN fence;"
                                        "DROP TABLE schema_version;"
                                        "PRAGMA user_version = 1;"),
                     0);
    store_close(s);
    s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    store_close(s);
    size_t n;
    unsigned char *b = (unsigned char *)slurp(su_dbpath, &n);
    ck_assert_int_eq(b[60] << 24 | b[61] << 16 | b[62] << 8 | b[63], STORE_SCHEMA);
    free(b);
    s = store_open(su_dir, 300, err, sizeof err);
    int code = 0;
    char *page = store_games_get(s, 1, STORE_FINISHED, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_msg(strstr(page, "\"id\":\"OLD1\",\"status\":\"finished\"") != NULL, "%s", page);
    free(page);
    char *rec = store_game_get(s, "OLD1", &code);
    ck_assert_str_eq(rec, "{\"seed\":1}");
    free(rec);
    store_close(s);
}
END_TEST

/* The number of moves of room id's record when the list of games with this
 * status has it, else -1. */
static int record_moves(const char *id, const char *status)
{
    int code = 0;
    char *page = store_games_get(su_st, 1, status, &code);
    ck_assert_int_eq(code, 200);
    char want[64];
    snprintf(want, sizeof want, "\"id\":\"%s\",\"status\":\"%s\"", id, status);
    int listed = strstr(page, want) != NULL;
    free(page);
    if (!listed)
        return -1;
    char *rec = store_game_get(su_st, id, &code);
    ck_assert_int_eq(code, 200);
    struct carc_record *cr = calloc(1, sizeof *cr);
    struct proto_error perr;
    proto_error_init(&perr);
    ck_assert_msg(proto_record_load(rec, strlen(rec), 0, cr, &perr) == 0, "%s", perr.text);
    int n = cr->nmoves;
    free(cr);
    free(rec);
    return n;
}

/* Both players' connections close; room-ttl later the lobby closes the room. */
static void close_after_ttl(struct fake *a, struct fake *b)
{
    lobby_session_close(su_lb, &a->s);
    lobby_session_close(su_lb, &b->s);
    struct lobby_limits l;
    lobby_limits_defaults(&l);
    lobby_tick(su_lb, su_now);
    lobby_tick(su_lb, su_now + (uint64_t)l.room_ttl * 1000 + 1);
}

START_TEST(abandoned_game_kept_as_record)
{
    world_open();
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    char room[PROTO_ROOM_MAX];
    memcpy(room, r->id, sizeof room);
    for (int i = 0; i < 2; i++) {
        play_first(r, mover(r, a, b));
        commit();
    }
    close_after_ttl(a, b);
    ck_assert_ptr_null(lobby_room_find(su_lb, room));
    commit();
    ck_assert_int_eq(record_moves(room, STORE_ABANDONED), 2);
    ck_assert_int_eq(record_moves(room, STORE_FINISHED), -1);
    /* The record says why it ended early. */
    int code = 0;
    char *rec = store_game_get(su_st, room, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_msg(strstr(rec, "\"closed\":\"room-ttl\"") != NULL, "%s", rec);
    free(rec);
    world_close();
    /* Not restored as a room. */
    world_open();
    ck_assert_ptr_null(lobby_room_find(su_lb, room));
    ck_assert_int_eq(record_moves(room, STORE_ABANDONED), 2);
    world_close();
}
END_TEST

/* A failed commit drops nothing that no room can write again: its chat lines
 * and the closing of a room already freed go with the next commit. */
START_TEST(failed_commit_keeps_chat_and_closed_rooms)
{
    world_open();
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    char room[PROTO_ROOM_MAX];
    memcpy(room, r->id, sizeof room);
    for (int i = 0; i < 2; i++) {
        play_first(r, mover(r, a, b));
        commit();
    }
    say(a, "\"type\":\"chat\",\"text\":\"carried-over-line\"");
    close_after_ttl(a, b);
    ck_assert_ptr_null(lobby_room_find(su_lb, room));
    test_log_capture();
    store_test_fail(su_st, 1);
    ck_assert_int_eq(store_flush(su_st), -1);
    ck_assert_int_eq(record_moves(room, STORE_ABANDONED), -1); /* not yet */
    ck_assert_int_eq(store_flush(su_st), 0);
    test_log_release();
    ck_assert_msg(test_log_count("error: storage: a commit failed (a test failure)") == 1,
                  "log: %s", test_log_text());
    ck_assert_int_eq(record_moves(room, STORE_ABANDONED), 2);
    if (su_pg != NULL) { /* the line is in the table */
        ck_assert_int_eq(store_test_exec(su_st, "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM chat"
                                                " WHERE text = 'carried-over-line') THEN RAISE"
                                                " 'the chat line was dropped'; END IF; END $$"),
                         0);
        world_close();
        return;
    }
    world_close();
    size_t n;
    char *buf = slurp(su_dbpath, &n);
    ck_assert_ptr_nonnull(buf);
    ck_assert_msg(contains(buf, n, "carried-over-line"), "the chat line was dropped");
    free(buf);
}
END_TEST

START_TEST(stale_rooms_closed_at_start)
{
    world_open();
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    char room[PROTO_ROOM_MAX], lobby_room[PROTO_ROOM_MAX];
    memcpy(room, r->id, sizeof room);
    for (int i = 0; i < 3; i++) {
        play_first(r, mover(r, a, b));
        commit();
    }
    struct fake *c = fake_new();
    memcpy(lobby_room, create(c, "3")->id, sizeof lobby_room);
    world_close();
    /* A week later, with stale-room one day. */
    world_open_at(24 * 3600, (uint64_t)time(NULL) * 1000 + 7ull * 24 * 3600 * 1000);
    ck_assert_ptr_null(lobby_room_find(su_lb, room));
    ck_assert_ptr_null(lobby_room_find(su_lb, lobby_room));
    ck_assert_int_eq(record_moves(room, STORE_ABANDONED), 3);
    ck_assert_int_eq(record_moves(lobby_room, STORE_ABANDONED), -1);
    int code = 0;
    char *rec = store_game_get(su_st, room, &code);
    ck_assert_msg(rec != NULL && strstr(rec, "\"closed\":\"stale-room\"") != NULL, "%s", rec);
    free(rec);
    world_close();
    /* Closed for good: a restart without stale-room does not bring them back. */
    world_open();
    ck_assert_ptr_null(lobby_room_find(su_lb, room));
    ck_assert_ptr_null(lobby_room_find(su_lb, lobby_room));
    ck_assert_int_eq(record_moves(room, STORE_ABANDONED), 3);
    world_close();
}
END_TEST

START_TEST(second_store_on_a_dir_refused)
{
    char err[512];
    struct store *s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_ptr_null(store_open(su_dir, 300, err, sizeof err));
    ck_assert_msg(strstr(err, "another carcd") != NULL, "%s", err);
    store_close(s);
    s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    store_close(s);
}
END_TEST

/* store_copy: a game played on a SQLite file comes back in the store under
 * test (SQLite, or PostgreSQL in suite_store_pg) with its moves, seats and
 * chat, and goes on there; a second copy replaces, not doubles, its rows. */
START_TEST(copied_into_another_store)
{
    char dir[64], src[160];
    memcpy(dir, su_dir, sizeof dir);
    const char *pg = su_pg;
    snprintf(su_dir, sizeof su_dir, "/tmp/carc-copy-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(su_dir));
    snprintf(src, sizeof src, "%s/%s", su_dir, STORE_FILE);
    su_pg = NULL; /* the source: SQLite in its own directory */
    world_open();
    struct fake *a, *b;
    struct room *r = game(&a, &b);
    char room[PROTO_ROOM_MAX], ta[PROTO_TOKEN_MAX];
    memcpy(room, r->id, sizeof room);
    memcpy(ta, a->token, sizeof ta);
    for (int i = 0; i < 3; i++) {
        play_first(r, mover(r, a, b));
        commit();
    }
    say(a, "\"type\":\"chat\",\"text\":\"copied-line\"");
    commit();
    world_close();
    char srcdir[64];
    memcpy(srcdir, su_dir, sizeof srcdir);
    memcpy(su_dir, dir, sizeof su_dir);
    su_pg = pg;
    char err[512];
    for (int round = 0; round < 2; round++) {
        struct store *from = store_open_file(src, err, sizeof err);
        ck_assert_msg(from != NULL, "%s", err);
        struct store *to = su_store_open(err, sizeof err);
        ck_assert_msg(to != NULL, "%s", err);
        long rooms = -1, games = -1;
        ck_assert_msg(store_copy(from, to, &rooms, &games, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(rooms, 1);
        ck_assert_int_eq(games, 0);
        store_close(from);
        store_close(to);
    }
    world_open();
    r = lobby_room_find(su_lb, room);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->nmoves, 3);
    ck_assert_int_eq(room_token_seat(r, ta), 0);
    if (su_pg != NULL)
        ck_assert_int_eq(store_test_exec(su_st, "DO $$ BEGIN IF (SELECT count(*) FROM chat WHERE"
                                                " text = 'copied-line') <> 2 THEN RAISE 'chat';"
                                                " END IF; END $$"),
                         0); /* appended by each copy */
    world_close();
    const char *suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char p[200];
        snprintf(p, sizeof p, "%s%s", src, suffix[i]);
        unlink(p);
    }
    snprintf(src, sizeof src, "%s/%s", srcdir, STORE_LOCK);
    unlink(src);
    rmdir(srcdir);
}
END_TEST

/* PostgreSQL: one carcd writes a database at a time (its advisory lock). */
START_TEST(second_store_on_a_database_refused)
{
    char err[512];
    struct store *s = su_store_open(err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_str_eq(store_backend_name(s), "postgres");
    ck_assert_ptr_null(su_store_open(err, sizeof err));
    ck_assert_msg(strstr(err, "another carcd") != NULL, "%s", err);
    store_close(s);
    s = su_store_open(err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    store_close(s);
}
END_TEST

/* SQLite's own checkpoints would run inside a commit and hold up the moves
 * waiting for it; carcd runs them beside the commits, and the WAL starts over. */
START_TEST(wal_checkpointed_beside_commits)
{
    world_open();
    struct fake *a = fake_new();
    struct room *r = create(a, "2");
    /* About 1,500 pages of chat, written in one go. */
    ck_assert_int_eq(store_test_exec(su_st, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT"
                                            " i + 1 FROM n WHERE i < 1500) INSERT INTO chat(room,"
                                            " seat, name, text, time) SELECT 'X', 0, 'n',"
                                            " hex(randomblob(2000)), i FROM n"),
                     0);
    ck_assert_int_ge(store_wal_pages(su_st), STORE_CKPT_PAGES);
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    store_start(su_st, &loop, NULL);
    for (int i = 0; i < 200 && store_wal_pages(su_st) >= STORE_CKPT_PAGES; i++) {
        unsigned long n = store_batches(su_st);
        room_chat(r, &a->s, "tick");
        /* NOWAIT: the check handle that submits a batch runs after a poll,
         * and nothing else here would end a blocking one. */
        for (int k = 0; k < 10000 && store_batches(su_st) == n; k++) {
            uv_run(&loop, UV_RUN_NOWAIT);
            nanosleep(&(struct timespec){0, 100000}, NULL);
        }
        nanosleep(&(struct timespec){0, 5000000}, NULL); /* let a checkpoint run */
        uv_run(&loop, UV_RUN_NOWAIT);
    }
    ck_assert_int_lt(store_wal_pages(su_st), STORE_CKPT_PAGES / 10);
    store_stop(su_st);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    world_close();
}
END_TEST

/* A damaged row is left on disk with a message; the other rooms come back. */
START_TEST(bad_rows_not_restored)
{
    world_open();
    struct fake *a = fake_new(), *b = fake_new();
    char ra[PROTO_ROOM_MAX], rb[PROTO_ROOM_MAX];
    memcpy(ra, create(a, "2")->id, sizeof ra);
    memcpy(rb, create(b, "3")->id, sizeof rb);
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE rooms SET seats = 9 WHERE id = '%s'", ra);
    ck_assert_int_eq(store_test_exec(su_st, sql), 0);
    world_crash(); /* nothing else written over the damage */
    test_log_capture();
    world_open();
    test_log_release();
    ck_assert_msg(test_log_count("bad stored seats (left in the database, not restored)") == 1,
                  "log: %s", test_log_text());
    ck_assert_ptr_null(lobby_room_find(su_lb, ra));
    ck_assert_ptr_nonnull(lobby_room_find(su_lb, rb));
    world_close();
}
END_TEST

Suite *suite_store(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("store");
    tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
    tcase_add_test(tc, schema_created_and_version_checked);
    tcase_add_test(tc, damaged_file_refused);
    tcase_add_test(tc, unwritable_dir_refused);
    tcase_add_test(tc, tokens_stored_as_hashes);
    tcase_add_test(tc, lobby_room_restored);
    tcase_add_test(tc, game_restored_mid_game_and_finished);
    tcase_add_test(tc, replies_keep_request_order);
    tcase_add_test(tc, failed_commit_undoes_the_move);
    tcase_add_test(tc, failed_commit_then_crash_keeps_seqs_apart);
    tcase_add_test(tc, schema_migrated_from_v1);
    tcase_add_test(tc, abandoned_game_kept_as_record);
    tcase_add_test(tc, failed_commit_keeps_chat_and_closed_rooms);
    tcase_add_test(tc, wal_checkpointed_beside_commits);
    tcase_add_test(tc, bad_rows_not_restored);
    tcase_add_test(tc, stale_rooms_closed_at_start);
    tcase_add_test(tc, second_store_on_a_dir_refused);
    tcase_add_test(tc, copied_into_another_store);
    suite_add_tcase(s, tc);
    return s;
}

/* The tests above that do not look into SQLite's files, against a real
 * PostgreSQL (make test runs this suite under tests/pg.sh). */
Suite *suite_store_pg(void)
{
    Suite *s = suite_create("store_pg");
    /* Without a database the suite stays empty: a test case made and not added
     * would be leaked (LeakSanitizer, make test-asan). */
    if (getenv("CARC_PG_URL") == NULL)
        return s;
    TCase *tc = tcase_create("store_pg");
    tcase_add_checked_fixture(tc, pg_setup, pg_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, tokens_stored_as_hashes);
    tcase_add_test(tc, lobby_room_restored);
    tcase_add_test(tc, game_restored_mid_game_and_finished);
    tcase_add_test(tc, replies_keep_request_order);
    tcase_add_test(tc, failed_commit_undoes_the_move);
    tcase_add_test(tc, failed_commit_then_crash_keeps_seqs_apart);
    tcase_add_test(tc, abandoned_game_kept_as_record);
    tcase_add_test(tc, failed_commit_keeps_chat_and_closed_rooms);
    tcase_add_test(tc, bad_rows_not_restored);
    tcase_add_test(tc, stale_rooms_closed_at_start);
    tcase_add_test(tc, second_store_on_a_database_refused);
    tcase_add_test(tc, copied_into_another_store);
    suite_add_tcase(s, tc);
    return s;
}
