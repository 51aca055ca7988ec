/* test_store_start.c: storage across a restart and between stores, part of
 * suites store and store_pg (test_store.c registers them through
 * store_start_tests_add): the migration from schema 1, games kept as records
 * when abandoned, chat and closed rooms through a failed commit, stale rooms
 * closed at start, rows that do not restore, a second store refused (the
 * lock), copies into another store, and SQLite's checkpoints beside commits. */
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
                                        "ALTER TABLE seats DROP COLUMN account;"
                                        "ALTER TABLE rooms DROP COLUMN clock_per_move;"
                                        "ALTER TABLE rooms DROP COLUMN clock_zone;"
                                        "ALTER TABLE rooms DROP COLUMN turn_wall;"
                                        "ALTER TABLE seats DROP COLUMN vac_from;"
                                        "ALTER TABLE seats DROP COLUMN vac_until;"
                                        "ALTER TABLE rooms DROP COLUMN fair;"
                                        "ALTER TABLE rooms DROP COLUMN fence;"
                                        "DROP TABLE schema_version;"
                                        "DROP TABLE analyses;"
                                        "PRAGMA user_version = 1;"),
                     0);
    store_close(s);
    s = store_open(su_dir, 300, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    store_close(s);
    size_t n;
    unsigned char *b = (unsigned char *)su_slurp(su_dbpath, &n);
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
    struct room *r = su_game(&a, &b);
    char room[PROTO_ROOM_MAX];
    memcpy(room, r->id, sizeof room);
    for (int i = 0; i < 2; i++) {
        su_play_first(r, su_mover(r, a, b));
        su_commit();
    }
    close_after_ttl(a, b);
    ck_assert_ptr_null(lobby_room_find(su_lb, room));
    su_commit();
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
    struct room *r = su_game(&a, &b);
    char room[PROTO_ROOM_MAX];
    memcpy(room, r->id, sizeof room);
    for (int i = 0; i < 2; i++) {
        su_play_first(r, su_mover(r, a, b));
        su_commit();
    }
    su_say(a, "\"type\":\"chat\",\"text\":\"carried-over-line\"");
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
    char *buf = su_slurp(su_dbpath, &n);
    ck_assert_ptr_nonnull(buf);
    ck_assert_msg(su_contains(buf, n, "carried-over-line"), "the chat line was dropped");
    free(buf);
}
END_TEST

START_TEST(stale_rooms_closed_at_start)
{
    world_open();
    struct fake *a, *b;
    struct room *r = su_game(&a, &b);
    char room[PROTO_ROOM_MAX], lobby_room[PROTO_ROOM_MAX];
    memcpy(room, r->id, sizeof room);
    for (int i = 0; i < 3; i++) {
        su_play_first(r, su_mover(r, a, b));
        su_commit();
    }
    struct fake *c = su_fake_new();
    memcpy(lobby_room, su_create(c, "3")->id, sizeof lobby_room);
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
    struct room *r = su_game(&a, &b);
    char room[PROTO_ROOM_MAX], ta[PROTO_TOKEN_MAX];
    memcpy(room, r->id, sizeof room);
    memcpy(ta, a->token, sizeof ta);
    for (int i = 0; i < 3; i++) {
        su_play_first(r, su_mover(r, a, b));
        su_commit();
    }
    su_say(a, "\"type\":\"chat\",\"text\":\"copied-line\"");
    su_commit();
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
    snprintf(src, sizeof src, "%s/%s", srcdir, STORE_STATE);
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
    struct fake *a = su_fake_new();
    struct room *r = su_create(a, "2");
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
    struct fake *a = su_fake_new(), *b = su_fake_new();
    char ra[PROTO_ROOM_MAX], rb[PROTO_ROOM_MAX];
    memcpy(ra, su_create(a, "2")->id, sizeof ra);
    memcpy(rb, su_create(b, "3")->id, sizeof rb);
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

/* Called by suite_store (pg 0: SQLite, every test) and suite_store_pg (pg 1: the
 * tests that do not look into SQLite's files, and the database's lock). */
void store_start_tests_add(TCase *tc, int pg)
{
    if (pg) {
        tcase_add_test(tc, abandoned_game_kept_as_record);
        tcase_add_test(tc, failed_commit_keeps_chat_and_closed_rooms);
        tcase_add_test(tc, bad_rows_not_restored);
        tcase_add_test(tc, stale_rooms_closed_at_start);
        tcase_add_test(tc, second_store_on_a_database_refused);
        tcase_add_test(tc, copied_into_another_store);
        return;
    }
    tcase_add_test(tc, schema_migrated_from_v1);
    tcase_add_test(tc, abandoned_game_kept_as_record);
    tcase_add_test(tc, failed_commit_keeps_chat_and_closed_rooms);
    tcase_add_test(tc, wal_checkpointed_beside_commits);
    tcase_add_test(tc, bad_rows_not_restored);
    tcase_add_test(tc, stale_rooms_closed_at_start);
    tcase_add_test(tc, second_store_on_a_dir_refused);
    tcase_add_test(tc, copied_into_another_store);
}
