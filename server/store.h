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
 * Only the store files include sqlite3.h. A NULL store everywhere means memory
 * only: rooms send at once (the unit tests of test_room.c).
 *
 * Schema (PRAGMA user_version = STORE_SCHEMA): rooms, seats, moves, chat,
 * games; see store_sql.c. The files: see store_int.h. Seat tokens and room passwords are stored as
 * SHA-256 hex digests, never as text. */
#ifndef CARCD_STORE_H
#define CARCD_STORE_H

#include <stddef.h>
#include <stdint.h>

#define STORE_SCHEMA 4
#define STORE_FILE "carcd.db"
#define STORE_LOCK "carcd.lock" /* flock'd while a carcd uses the directory */
#define STORE_PAGE 20           /* games per page of GET /api/games */
#define STORE_READS_MAX 64      /* HTTP reads waiting for the disk; more are refused */
#define STORE_BUSY_MS 5000      /* default of store_open's busy_ms */
#define STORE_CKPT_PAGES 1000   /* WAL pages that start a checkpoint beside the commits */

/* A game's status as a record: it ended, or its room was closed (room-ttl,
 * stale-room) before it ended. */
#define STORE_FINISHED "finished"
#define STORE_ABANDONED "abandoned"

struct store;
struct room;
struct lobby;
struct loopstat;
struct uv_loop_s;

/* Open (create, migrate) dir/carcd.db. Returns NULL with a sentence in err
 * when the directory cannot be written or another carcd uses it, the file is
 * not a database, fails quick_check or is locked by another program, or its
 * schema is newer than this binary's. busy_ms: how long a statement waits
 * for another program's lock before it fails (STORE_BUSY_MS by default). */
struct store *store_open(const char *dir, int busy_ms, char *err, size_t errlen);

/* 1 (the default): every commit is fsynced before the batch counts as done
 * (SQLite's synchronous = FULL), so an acknowledged move survives a power cut.
 * 0: synchronous = NORMAL, which in WAL mode syncs only at checkpoints: a
 * commit is in the OS's hands, so it survives a crash of carcd but maybe not
 * of the machine. 0, or -1 with err. */
int store_fsync_set(struct store *st, int on, char *err, size_t errlen);

/* Let go of the writer connection's page cache (up to SQLite's 2 MB of
 * pages kept after the last commits) on the thread pool, then call
 * done(arg) on the loop; a quiet server calls it before giving freed memory
 * back to the system (server/memtrim.h). The writer opens with FULLMUTEX, so
 * this may run beside a commit. With a NULL store, or one already releasing,
 * done runs at once. The next commits read the pages again as needed. */
void store_cache_release(struct store *st, void (*done)(void *), void *arg);

/* Restore into lb every unfinished room not closed. Rooms untouched for
 * stale_s seconds are closed first (0 = never): a game becomes a record with
 * status "abandoned", a lobby room is deleted. Synchronous: call before
 * serving. Returns the number of rooms restored, or -1 with err. now_ms: wall
 * clock. */
int store_restore(struct store *st, struct lobby *lb, int stale_s, uint64_t now_ms, char *err,
                  size_t errlen);

/* Run batches on loop (a uv_check_t and the thread pool). The store calls
 * room_store_done for each room of a finished batch. stats (may be NULL)
 * gets the loop time of each batch and each commit's time. */
void store_start(struct store *st, struct uv_loop_s *loop, struct lobby *lb,
                 struct loopstat *stats);
/* Close the loop handle (from inside the loop). A batch in flight completes;
 * queued reads are answered 503. */
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
 * after room-ttl; a game that had started is kept as a record, "abandoned"). */
void store_room_forget(struct store *st, struct room *r, int gone);
/* The room is being freed because closed ("admin"): a lobby room's rows are
 * deleted, a room whose game started is marked closed and a running game is
 * kept as a record with status "abandoned" and that "closed". */
void store_room_close(struct store *st, struct room *r, const char *closed);
/* A chat line of room r, written with its next batch. */
void store_chat(struct store *st, const struct room *r, int seat, const char *name,
                const char *text, uint64_t now_ms);
/* The disk failed the last commit: moves are refused (storage_error). */
int store_failing(const struct store *st);
/* While failing: submit what is dirty (a retry); call about once a second. */
void store_retry(struct store *st);

/* ---- reads for HTTP (store_read.c), on the thread pool ----
 * cb runs on the loop with status 200 and the JSON text (malloc'd, the
 * callee's), 404 (no such game) or 503 (the disk could not be read) and
 * json NULL. A read returns NULL, without calling cb, when STORE_READS_MAX
 * reads already wait (the caller answers 503). */
struct store_read;
typedef void (*store_read_cb)(void *arg, int status, char *json);

/* GET /api/games?page=N[&status=abandoned]: newest first, STORE_PAGE a page:
 * {"page","per_page","total","games":[{"id","status","finished","players","scores"}]}. */
struct store_read *store_games_read(struct store *st, int page, const char *status,
                                    store_read_cb cb, void *arg);
/* GET /api/games/{id}: the record of a game that ended or was abandoned. */
struct store_read *store_game_read(struct store *st, const char *id, store_read_cb cb, void *arg);
/* The asker is gone: cb will not be called. */
void store_read_cancel(struct store_read *rq);

/* The same reads done at once on this thread (tests, tools): malloc'd JSON
 * or NULL with *status 404 or 503. */
char *store_games_get(struct store *st, int page, const char *status, int *code);
char *store_game_get(struct store *st, const char *id, int *code);

/* ---- online backups (store_backup.c) ----
 * A consistent copy of the database with SQLite's online backup API, taken
 * on a connection of its own while carcd writes: each step copies pages in
 * a read transaction and starts again when a commit changed the source, so
 * the copy is the database as of one commit. Written to dst.part, then
 * renamed to dst: dst is whole or absent. */

/* Copy the database file src_db to dst on this thread (carcd --backup). 0
 * with the copy's size in *bytes, or -1 with a sentence in err. */
int store_backup_file(const char *src_db, const char *dst, long long *bytes, char *err,
                      size_t errlen);

/* The admin backup: a copy of st's database into dir/backups/carcd-YYYYmmdd-HHMMSS.db
 * (-2, -3... when that name is taken), on the thread pool. cb runs on the
 * loop with 0, the path and the size, or -1 and a sentence. NULL (cb never
 * called) when the store has no loop yet. store_backup_cancel: the asker
 * is gone, cb is not called (the copy still completes). */
struct store_backup;
typedef void (*store_backup_cb)(void *arg, int status, const char *path, long long bytes,
                                const char *err);
struct store_backup *store_backup_start(struct store *st, const char *dir, store_backup_cb cb,
                                        void *arg);
void store_backup_cancel(struct store_backup *b);

/* Tests: the next n commits fail as if the disk did. */
void store_test_fail(struct store *st, int n);
/* Tests: run sql on the writer connection (fixtures such as an older
 * schema). 0 or -1. */
int store_test_exec(struct store *st, const char *sql);

/* Batches committed and moves written so far (for logs and tests). */
unsigned long store_batches(const struct store *st);
/* Pages in the write-ahead log after the last commit (tests). */
int store_wal_pages(const struct store *st);

#endif
