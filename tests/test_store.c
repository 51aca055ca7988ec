/* test_store.c: carcd's storage (server/store/, server/game/roomdb.c) without a
 * loop, in the scratch directory and world of store_util.h: the lobby is driven
 * with fake sessions as in test_room.c, and batches are written with
 * store_flush() where the server would run them on the thread pool.
 *
 * Covered: the schema, its version check and the migration from schema 1,
 * damaged files, an unwritable directory, a second store on one directory (the
 * lock), tokens kept as hashes only, write before tell (nothing is sent before
 * the commit; a failed commit undoes the move, and a crash after it keeps the
 * seqs apart), rooms stored and restored in the lobby, mid-game and finished,
 * abandoned games kept as records and stale rooms closed at start (those, the
 * migration, copies, locks and checkpoints: test_store_start.c). Reading the
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

#include "conn/session.h"
#include "event_json.h"
#include "game/lobby.h"
#include "game/room.h"
#include "record_json.h"
#include "sha256.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"

/* ---- the file ---- */

START_TEST(schema_created_and_version_checked)
{
    char err[512];
    struct store *s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    store_close(s);
    size_t n;
    char *b = su_slurp(su_dbpath, &n);
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
    char *b = su_slurp(su_dbpath, &n);
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
    struct fake *a = su_fake_new(), *b = su_fake_new();
    struct room *r = su_create(a, "3, \"password\": \"sesame-secret\"");
    su_join(b, a->room, "Bob", "sesame-secret");
    ck_assert_ptr_nonnull(r);
    su_say(a, "\"type\":\"chat\",\"text\":\"hello-durable\"");
    ck_assert_ptr_null(su_pop(b)); /* chat too waits for its commit */
    su_commit();
    su_expect(b, "chat");
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
        char *buf = su_slurp(p, &n);
        if (buf == NULL)
            continue;
        ck_assert_msg(!su_contains(buf, n, ta) && !su_contains(buf, n, tb), "a token is in %s", p);
        ck_assert_msg(!su_contains(buf, n, "sesame-secret"), "the password is in %s", p);
        found_hash |= su_contains(buf, n, ha);
        found_chat |= su_contains(buf, n, "hello-durable");
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

static void no_rating(void *arg, const struct lobby_rated_game *g)
{
    (void)arg;
    (void)g;
}

/* A rated room's flag (rooms.variants bit 4) survives a restart, and so does
 * the forfeit of a seat whose player left its game. */
START_TEST(rated_room_restored)
{
    world_open();
    su_lb->rated_game = no_rating;
    struct fake *a = su_fake_new();
    a->s.account = 5;
    snprintf(a->s.account_name, sizeof a->s.account_name, "ann");
    struct room *r =
        su_create(a, "2, \"rated\": true, \"clock\": {\"initial\": 600, \"increment\": 0,"
                     " \"on_timeout\": \"bot\"}");
    ck_assert_int_eq(r->rated, 1);
    struct fake *b = su_fake_new();
    b->s.account = 6;
    snprintf(b->s.account_name, sizeof b->s.account_name, "bob");
    su_join(b, a->room, "Bob", NULL);
    su_say(a, "\"type\":\"start\"");
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    su_say(b, "\"type\":\"leave\""); /* a resignation: forfeited, kept so */
    ck_assert_int_eq(r->seats[1].forfeited, 1);
    char room[PROTO_ROOM_MAX];
    memcpy(room, a->room, sizeof room);
    su_commit();
    world_close();
    world_open();
    r = lobby_room_find(su_lb, room);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->rated, 1);
    ck_assert_int_eq(r->seats[0].account, 5);
    ck_assert_int_eq(r->seats[1].forfeited, 1);
    ck_assert_int_eq(r->seats[1].autoplay, PROTO_AUTO_FORFEIT);
    world_close();
}
END_TEST

START_TEST(lobby_room_restored)
{
    world_open();
    struct fake *a = su_fake_new(), *b = su_fake_new();
    struct room *r = su_create(a, "3, \"password\": \"pw\", \"options\": {\"farms\": \"second\","
                                  " \"small_city\": 2, \"seat_order\": \"random\"}");
    su_join(b, a->room, "Bob", "pw");
    /* The fair draw's secret and Bob's entropy (acked: stored) survive the restart. */
    su_say(b, "\"type\":\"entropy\",\"data\":\"%064d\"", 42);
    su_commit();
    su_expect(b, "delta");
    su_expect(b, "ack");
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
    struct fake *b2 = su_fake_new();
    su_say(b2, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\",\"seq\":%lld", room, tb, seq);
    su_commit();
    su_expect(b2, "joined");
    su_expect(b2, "state");
    struct fake *c = su_fake_new();
    su_say(c, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Cy\",\"password\":\"nope\"", room);
    ck_assert_str_eq(su_jstr(su_expect(c, "error"), "code"), "wrong_password");
    su_join(c, room, "Cy", "pw");
    ck_assert_int_eq(room_taken(r), 3);
    world_close();
}
END_TEST

START_TEST(game_restored_mid_game_and_finished)
{
    world_open();
    struct fake *a, *b;
    struct room *r = su_game(&a, &b);
    /* Write before tell: the move is applied, but told only after the commit. */
    struct fake *m = su_mover(r, a, b);
    su_play_first(r, m);
    ck_assert_ptr_null(su_pop(a));
    ck_assert_ptr_null(su_pop(b));
    su_commit();
    su_expect(a, "delta");
    su_expect(b, "delta");
    su_expect(m, "ack");
    for (int i = 0; i < 3; i++) {
        su_play_first(r, su_mover(r, a, b));
        su_commit();
    }
    su_drain(a);
    su_drain(b);
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
    a = su_fake_new();
    b = su_fake_new();
    su_say(a, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", room, ta);
    su_say(b, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", room, tb);
    su_commit();
    ck_assert_str_eq(su_jstr(su_expect(a, "joined"), "room"), room);
    su_expect(b, "joined");
    a->seat = 0;
    b->seat = 1;
    su_drain(a);
    su_drain(b);
    while (r->phase == PROTO_PHASE_PLAYING) {
        su_play_first(r, su_mover(r, a, b));
        su_commit();
        su_drain(a);
        su_drain(b);
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
    while ((t = su_pop(f)) != NULL) {
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
    struct room *r = su_game(&a, &b);
    struct fake *m = su_mover(r, a, b);
    su_play_first(r, m);
    su_play_first(r, m); /* no longer m's turn */
    su_say(m, "\"type\":\"ping\",\"id\":8");
    ck_assert_ptr_null(su_pop(m)); /* nothing before the commit */
    su_commit();
    su_expect(m, "delta");
    ck_assert_ptr_nonnull(strstr(su_expect(m, "ack"), "\"ref\":7,"));
    ck_assert_str_eq(su_jstr(su_expect(m, "error"), "code"), "not_your_turn");
    ck_assert_ptr_nonnull(strstr(su_expect(m, "pong"), "\"ref\":8"));
    /* Nothing held: a reply goes out at once. */
    su_say(m, "\"type\":\"ping\",\"id\":9");
    ck_assert_ptr_nonnull(strstr(su_expect(m, "pong"), "\"ref\":9"));
    world_close();
}
END_TEST

START_TEST(failed_commit_undoes_the_move)
{
    world_open();
    struct fake *a, *b;
    struct room *r = su_game(&a, &b);
    int turn = r->game->turn;
    struct fake *m = su_mover(r, a, b);
    struct fake *o = m == a ? b : a;
    test_log_capture();
    store_test_fail(su_st, 1);
    su_play_first(r, m);
    ck_assert_int_eq(r->game->turn, turn + 1); /* applied, not told */
    ck_assert_ptr_null(su_pop(m));
    ck_assert_ptr_null(su_pop(o));
    ck_assert_int_eq(store_flush(su_st), -1);
    ck_assert_str_eq(su_jstr(su_expect(m, "error"), "code"), "storage_error");
    ck_assert_int_eq(r->game->turn, turn); /* undone */
    ck_assert(store_failing(su_st));
    /* Nothing waits for a commit while they fail: everyone gets the stored
     * state at once, the mover its list after it, to the mover alone. */
    su_expect(m, "state");
    const char *l = su_expect(m, "legal");
    long long player = -1;
    ck_assert_int_eq(proto_json_path_int(l, strlen(l), "player", &player), 0);
    ck_assert_int_eq(player, r->game->current);
    su_expect(o, "state");
    ck_assert_ptr_null(su_pop(o));
    /* While the disk fails, moves are refused. */
    su_play_first(r, m);
    ck_assert_str_eq(su_jstr(su_expect(m, "error"), "code"), "storage_error");
    /* A second failure tells nothing more. */
    store_test_fail(su_st, 1);
    ck_assert_int_eq(store_flush(su_st), -1);
    ck_assert_ptr_null(su_pop(m));
    ck_assert_ptr_null(su_pop(o));
    /* The disk is back: the retry clears the failure (nothing to tell: the
     * clients have the stored state), and moves go through. */
    su_commit();
    ck_assert(!store_failing(su_st));
    ck_assert_ptr_null(su_pop(m));
    ck_assert_ptr_null(su_pop(o));
    su_play_first(r, m);
    su_commit();
    su_expect(m, "delta");
    su_expect(m, "ack");
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
    struct room *r = su_game(&a, &b);
    char room[PROTO_ROOM_MAX], ta[PROTO_TOKEN_MAX];
    memcpy(room, r->id, sizeof room);
    memcpy(ta, a->token, sizeof ta);
    su_play_first(r, su_mover(r, a, b));
    su_commit();
    struct fake *m = su_mover(r, a, b);
    test_log_capture();
    store_test_fail(su_st, 1);
    su_play_first(r, m);
    ck_assert_int_eq(store_flush(su_st), -1);
    /* Someone's connection drops meanwhile: a change to tell, not stored. */
    su_say(b, "\"type\":\"leave\"");
    long long sa = last_seq(a), sb = last_seq(b), seen = sa > sb ? sa : sb;
    ck_assert_int_gt(seen, 0);
    world_crash();
    world_open();
    r = lobby_room_find(su_lb, room);
    ck_assert_ptr_nonnull(r);
    /* The clients saw at most the stored seq + 1 (the fresh state of the
     * failure), where the restored room starts, with a snapshot for it and
     * every older seq. */
    ck_assert_int_ge(r->seq, seen);
    ck_assert_int_gt(r->snap_below, seen);
    a = su_fake_new();
    su_say(a, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\",\"seq\":%lld", room, ta, seen);
    su_commit();
    su_expect(a, "joined");
    ck_assert_int_eq(strtoll(strstr(su_expect(a, "state"), "\"seq\":") + 6, NULL, 10), r->seq);
    world_close();
    test_log_release();
    ck_assert_msg(test_log_count("error: storage: a commit failed (a test failure)") == 1,
                  "log: %s", test_log_text());
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
    tcase_add_test(tc, rated_room_restored);
    tcase_add_test(tc, game_restored_mid_game_and_finished);
    tcase_add_test(tc, replies_keep_request_order);
    tcase_add_test(tc, failed_commit_undoes_the_move);
    tcase_add_test(tc, failed_commit_then_crash_keeps_seqs_apart);
    store_start_tests_add(tc, 0);
    store_account_tests_add(tc, 0);
    store_fail_tests_add(tc, 0);
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
    tcase_add_test(tc, rated_room_restored);
    tcase_add_test(tc, game_restored_mid_game_and_finished);
    tcase_add_test(tc, replies_keep_request_order);
    tcase_add_test(tc, failed_commit_undoes_the_move);
    tcase_add_test(tc, failed_commit_then_crash_keeps_seqs_apart);
    store_start_tests_add(tc, 1);
    store_account_tests_add(tc, 1);
    store_fail_tests_add(tc, 1);
    suite_add_tcase(s, tc);
    return s;
}
