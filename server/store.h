/* store.h: durability. One SQLite file, <data-dir>/carcd.db, in WAL mode.
 *
 * Rooms do not write: they mark themselves dirty (store_room_dirty) and hold
 * what they would send until the batch holding their change is committed
 * (write before tell, room.c). Once per loop turn a uv_check_t handle turns
 * every dirty room into one batch (rows copied on the loop: the room, its
 * seats with token hashes, its new moves as record JSON, chat lines, the
 * record of a finished game) and runs it as ONE transaction on libuv's
 * thread pool; one batch is in flight at a time. Back on the loop, each room
 * of the batch is told (room_store_done): it releases what it held, or, when
 * the commit failed, rolls back to its stored moves.
 *
 * Only store.c includes sqlite3.h. A NULL store everywhere means memory
 * only: rooms send at once (the unit tests of test_room.c).
 *
 * Schema (PRAGMA user_version = STORE_SCHEMA): rooms, seats, moves, chat,
 * games; see store.c. Seat tokens and room passwords are stored as SHA-256
 * hex digests, never as text. */
#ifndef CARCD_STORE_H
#define CARCD_STORE_H

#include <stddef.h>
#include <stdint.h>

#define STORE_SCHEMA 1
#define STORE_FILE "carcd.db"
#define STORE_GAMES_MAX 1000 /* finished records kept in memory for GET /api/games */
#define STORE_PAGE 20        /* games per page of GET /api/games */

struct store;
struct room;
struct lobby;
struct uv_loop_s;

/* Open (create, migrate) dir/carcd.db. Returns NULL with a sentence in err
 * when the directory cannot be written, the file is not a database or fails
 * quick_check, or its schema is newer than this binary's. */
struct store *store_open(const char *dir, char *err, size_t errlen);

/* Restore into lb every unfinished room not closed (rooms untouched for
 * stale_s seconds are closed first, kept as records; 0 = never), and load the
 * newest finished records. Synchronous: call before serving. Returns the
 * number of rooms restored, or -1 with err. now_ms: wall clock. */
int store_restore(struct store *st, struct lobby *lb, int stale_s, uint64_t now_ms, char *err,
                  size_t errlen);

/* Run batches on loop (a uv_check_t and the thread pool). The store calls
 * lobby_store_done for each room of a finished batch. */
void store_start(struct store *st, struct uv_loop_s *loop, struct lobby *lb);
/* Close the loop handle (from inside the loop). A batch in flight completes. */
void store_stop(struct store *st);
/* Write what is still dirty now, on this thread (after uv_run returned, and in
 * tests). Returns 0 or -1 when the commit failed. */
int store_flush(struct store *st, struct lobby *lb);
/* Close the database; st may be NULL. */
void store_close(struct store *st);

/* The room changed: it joins the batch being filled. Returns that batch's
 * number (what the room's sends wait for). */
unsigned long store_room_dirty(struct store *st, struct room *r);
/* Number of the last batch committed (or failed). */
unsigned long store_done_gen(const struct store *st);
/* The room is being freed: drop it from the batch being filled. gone: also
 * write that it is over (1: lobby room abandoned, rows deleted; 2: closed
 * after room-ttl, kept as a record). */
void store_room_forget(struct store *st, struct room *r, int gone);
/* A chat line of room r, written with its next batch. */
void store_chat(struct store *st, const struct room *r, int seat, const char *name,
                const char *text, uint64_t now_ms);
/* The disk failed the last commit: moves are refused (storage_error). */
int store_failing(const struct store *st);
/* While failing: submit what is dirty (a retry); call about once a second. */
void store_retry(struct store *st);

/* GET /api/games?page=N: newest first, STORE_PAGE per page (malloc'd JSON). */
char *store_games_page(const struct store *st, int page);
/* GET /api/games/{id}: the record (borrowed), or NULL. */
const char *store_game_record(const struct store *st, const char *id);

/* Tests: the next n commits fail as if the disk did. */
void store_test_fail(struct store *st, int n);

/* Batches committed and moves written so far (for logs and tests). */
unsigned long store_batches(const struct store *st);

#endif
