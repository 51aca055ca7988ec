/* store/store.h: durability, one interface below the rooms, two backends.
 *
 *   sqlite.c    (the default) one SQLite file, <data-dir>/carcd.db, in WAL mode
 *   postgres.c  a PostgreSQL database (libpq), for hosts who run several nodes
 *
 * The store knows nothing of rooms or the lobby: it writes plain data
 * (struct store_room: a room's row, its seats, its new moves as record JSON
 * text, the record of a game that ended) and hands back plain data. The game
 * layer (game/roomdb.c) builds that data; the key it marks a room with comes
 * back with the done hook.
 *
 * Write before tell: a room that changed is marked (store_mark, with a key
 * the store never looks into) and holds what it would send. Once per loop turn
 * a uv_check_t handle asks the owner of every marked key to add its rows to
 * the batch being filled (hooks.fill), and runs that batch as ONE transaction
 * on libuv's thread pool; one batch is in flight at a time (group commit).
 * Back on the loop, hooks.done runs for each room entry of the batch, with
 * its key, the batch's number and whether it was committed: the room then releases
 * what it held, or rolls back to its committed moves. A failed commit also
 * runs hooks.done (failed) at once for every key marked in the batch being
 * filled, so that nothing waits for a batch that cannot be written either.
 * While commits fail (store_failing) the rooms refuse what needs a write and
 * hold nothing; store_retry submits again. store_health says since when and
 * why, for GET /healthz and the metrics (plain data: the store calls nothing
 * above it).
 *
 * A NULL store everywhere means memory only: rooms send at once.
 *
 * Schema (version STORE_SCHEMA, in a table schema_version in both backends;
 * SQLite also keeps PRAGMA user_version): rooms, seats, moves, chat, games,
 * analyses; see sqlite.c. Seat tokens and room passwords are stored as SHA-256 hex
 * digests, never as text. rooms.fence is the writer's fencing number: the
 * entry's (a node's lease on the room, cluster/lease.h) or the store's
 * (store_fence_set); PostgreSQL writes a room only if its row's number is not
 * newer (see struct store_room's fence). */
#ifndef CARCD_STORE_H
#define CARCD_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "fair.h"
#include "game.h"
#include "msg.h"
#include "sha256.h"

#define STORE_SCHEMA 7
/* rooms.fair: the secret, then a comma and an entropy (or nothing) per seat (fair/fair_room.h) */
#define STORE_FAIR_TEXT (CARC_FAIR_HEX * (1 + CARC_MAX_PLAYERS) + 8)
#define STORE_FILE "carcd.db"
#define STORE_LOCK "carcd.lock"   /* flock'd while a carcd uses the directory */
#define STORE_STATE "carcd.state" /* a clean stop or a run in progress (damage.c) */
#define STORE_PAGE 20             /* games per page of GET /api/games */
#define STORE_READS_MAX 64        /* HTTP reads waiting for the disk; more are refused */
#define STORE_BUSY_MS 5000        /* default of store_open's busy_ms */
#define STORE_CKPT_PAGES 1000     /* WAL pages that start a checkpoint beside the commits */
#define STORE_WAIT_S 30           /* default: seconds PostgreSQL may be down at start */

/* A game's status as a record: it ended, or its room was closed (room-ttl,
 * stale-room) before it ended. */
#define STORE_FINISHED "finished"
#define STORE_ABANDONED "abandoned"

struct store;
struct loopstat;
struct uv_loop_s;

/* ---- the plain data of a room ---- */

struct store_seat {
    int idx;
    char name[PROTO_NAME_MAX];
    char hash[SHA256_HEX];
    int bot, autoplay, forfeited, timeouts; /* as in a room's seat (room.h) */
    long long clock_ms;
    long long account; /* the account the seat belongs to, 0: none (a guest's, a bot's) */
    long long vac_from, vac_until; /* its account's last vacation known to the room, 0 */
};

enum store_gone {
    STORE_WRITE = 0,  /* write the room */
    STORE_DELETE = 1, /* a lobby room nobody holds: delete its rows */
    STORE_CLOSE = 2,  /* closed (room-ttl, admin, stale-room): marked closed; with a record */
};

/* One room of a batch, or one room read back by store_restore. Strings and
 * arrays are malloc'd and owned by the entry (the store frees them once
 * written; a restore's entries are freed after the hook returns). */
struct store_room {
    char id[PROTO_ROOM_MAX];
    int gone; /* enum store_gone */
    int sets, no_farmers, escape_rule, nseats, priv, host, phase;
    char pw[SHA256_HEX];
    uint64_t seed;
    uint8_t deck[CARC_MAX_TILES];
    int deck_len;
    long long seq;
    uint64_t created, updated;
    int clock_initial, clock_increment, clock_policy; /* struct proto_clock */
    int clock_per_move;                               /* seconds, 0: a bank clock */
    char clock_zone[PROTO_TZ_MAX];                    /* clock.time_zone, "": UTC */
    long long turn_wall; /* the current turn's start (wall ms) of a per-move clock, 0: none */
    int variants;        /* farm_rule | small_city << 2 | seat_random << 3 | rated << 4 |
                            weekend_pause << 5 (sqlite.c) */
    char fair[STORE_FAIR_TEXT]; /* rooms.fair: the fair draw's secret and entropies, or "" */
    int nseat;
    struct store_seat seats[CARC_MAX_PLAYERS];
    int move_from, move_to;
    char **moves;           /* move_to - move_from record moves as JSON text */
    char *record;           /* a game that ended or was abandoned: its record */
    char *players, *scores; /* with the record: JSON arrays */
    const char *status;     /* with the record: STORE_FINISHED or STORE_ABANDONED (static) */
    /* The fencing number of this write: the room's lease's (scale-out), or 0
     * for the store's (store_fence_set). PostgreSQL refuses a write whose
     * number is older than the row's: the entry is then left out of the
     * commit (the batch's other rooms are not) and its done hook gets
     * STORE_FENCED. 0 on both sides: no check (one node, the advisory lock). */
    uint64_t fence;
    int fenced; /* set by the backend: the database refused it (fence) */
    /* The key whose hooks.fill added this row (set by the store), handed back
     * to hooks.done; NULL for a row added otherwise, or once store_forget(key). */
    void *key;
};

/* hooks.done's ok for a room whose write the database refused because
 * another node wrote the room with a newer fencing number: that node owns
 * the room now; this one must give it up, not retry. */
#define STORE_FENCED (-1)

/* What the owner of the rooms gives the store (store_hooks_set). */
struct store_hooks {
    /* On the loop, while a batch is built: add key's rows (store_row_add). */
    void (*fill)(void *arg, void *key);
    /* On the loop, for each STORE_WRITE entry of batch gen once it is done:
     * key the key whose fill added it (NULL: added otherwise, or the key was
     * forgotten since: nobody is waiting for it), id the entry's; ok 1
     * committed, 0 failed, STORE_FENCED refused (a newer owner); moves = the
     * entry's move_to, seq the entry's seq (what the database now holds when
     * ok is 1). When gen failed, done(key, "", gen, 0, 0, -1) follows for
     * every key still marked in the batch being filled. */
    void (*done)(void *arg, void *key, const char *id, unsigned long gen, int ok, int moves,
                 long long seq);
    void *arg;
};

/* ---- opening ---- */

/* Open (create, migrate) dir/carcd.db. Returns NULL with a sentence in err
 * when the directory cannot be written or another carcd uses it, the
 * start-up check finds files whose opening would lose data (below), the file
 * is not a database, fails quick_check or is locked by another program, or its
 * schema is newer than this binary's. busy_ms: how long a statement waits
 * for another program's lock before it fails (STORE_BUSY_MS by default). */
struct store *store_open(const char *dir, int busy_ms, char *err, size_t errlen);

/* store_open with flags: STORE_ACCEPT_DAMAGE starts on files the start-up
 * check found damaged (below) instead of refusing them. */
#define STORE_ACCEPT_DAMAGE 1
struct store *store_open_flags(const char *dir, int busy_ms, int flags, char *err, size_t errlen);

/* The SQLite database file path itself (created when missing), without the
 * data directory's lock: for copying from a file a serving carcd may be
 * writing (WAL mode: a reader neither waits for it nor holds it up) or into a
 * new one. NULL with err as store_open. */
struct store *store_open_file(const char *path, char *err, size_t errlen);

/* Connect to PostgreSQL (url: a libpq connection string or URI), create or
 * migrate the schema, and take the database's carcd lock (an advisory lock:
 * one carcd writes a database at a time). A database that does not answer is
 * tried again with backoff for wait_s seconds (this blocks: call it before
 * serving). NULL with a sentence in err (never the password of url). */
struct store *store_open_postgres(const char *url, int wait_s, char *err, size_t errlen);

/* The same for a cluster node (scale-out; node: its id, 1 to 39 bytes): the
 * nodes share the database, each writing the rooms whose leases it holds
 * with their fencing numbers (struct store_room's fence); a carcd alone
 * (store_open_postgres) and a cluster exclude each other, and so do two
 * nodes with one id. NULL with err as store_open_postgres. */
struct store *store_open_postgres_node(const char *url, const char *node, int wait_s, char *err,
                                       size_t errlen);

/* "sqlite" or "postgres". */
const char *store_backend_name(const struct store *st);

/* 1 (the default): every commit is durable before the batch counts as done
 * (SQLite synchronous = FULL; PostgreSQL synchronous_commit = on). 0: SQLite
 * synchronous = NORMAL (survives a crash of carcd, not of the machine),
 * PostgreSQL synchronous_commit = off. 0, or -1 with err. */
int store_fsync_set(struct store *st, int on, char *err, size_t errlen);

/* Let go of caches (SQLite: the writer's page cache) on the thread pool,
 * then call done(arg) on the loop (server/util/memtrim.h). With a NULL store, one
 * not started, or one already releasing, done runs at once. */
void store_cache_release(struct store *st, void (*done)(void *), void *arg);

/* ---- start-up checks (wal.c, damage.c) ----
 * SQLite drops without a word what it cannot read: a write-ahead log from its
 * first frame that does not check (a bad checksum or salt) on, a log that is
 * missing, and a log beside an empty database (deleted). So store_open looks
 * at dir's files before SQLite opens them, on the caller's thread (start-up,
 * before the loop runs), and refuses, with a sentence per finding logged at
 * error, files whose opening would lose committed transactions:
 *
 *   - carcd.db-wal damaged: frames of its current round (its header's salts)
 *     with a commit at or after the first frame that does not check (but a
 *     commit frame cut short by the crash: struct store_wal's torn), or a
 *     header that does not check in front of commits (or of anything, when
 *     it names no page size);
 *   - carcd.db-wal missing while carcd.db is in WAL mode and carcd.state says
 *     the last run did not stop cleanly;
 *   - carcd.db empty (0 bytes) or missing while carcd.state says the directory
 *     held rows at its last clean stop or was in use when carcd died, or
 *     beside a log holding commits (SQLite would delete that log).
 *
 * The files (carcd.db, its -wal and -shm, carcd.state) are first copied as
 * they are into dir/damaged-YYYYmmdd-HHMMSS/ (UTC) with found.txt, which says
 * what was found; a later start on the same unchanged files reuses that copy.
 * With STORE_ACCEPT_DAMAGE the store then opens what SQLite can read.
 *
 * carcd.state is written (a temporary file, fsync, rename) when the store
 * opens ("in use", with the counts of rooms, records and moves) and when it
 * closes ("clean stop", the counts then): a new directory has none, and a
 * clean stop and start never trips the check. */

/* What store_wal_scan learns of a write-ahead log. Frames are counted from 0. */
struct store_wal {
    int exists;        /* 0: no such file (the rest is 0) */
    long long size;    /* bytes */
    int page_size;     /* from the header; 0 when it names none */
    long frames;       /* whole frames in the file */
    long valid;        /* frames SQLite keeps: up to the last commit before the first bad frame */
    long commits;      /* commits among them */
    long first_bad;    /* the first frame that does not check, when a commit of the log's
                          current round comes at or after it (damaged, or torn); else -1 */
    const char *why;   /* why the first frame that does not check fails (static), or NULL */
    long lost_frames;  /* frames with the current round's salts from the first bad one on */
    long lost_commits; /* commits among them: transactions SQLite would drop */
    int header_bad;    /* the header does not check and frames follow: SQLite ignores them all */
    int torn;          /* the one lost commit is the first bad frame, over an earlier round:
                          most likely a commit frame cut between its two writes by the crash
                          (never acknowledged); not counted as damage */
};

/* Read the write-ahead log at path (a missing file is exists 0) into w; no
 * SQLite call. 0, or -1 with err when it cannot be read. */
int store_wal_scan(const char *path, struct store_wal *w, char *err, size_t errlen);
/* 1 when opening the log would drop a committed transaction. */
int store_wal_damaged(const struct store_wal *w);

/* ---- start-up ---- */

struct store_restore_hooks {
    /* A closed room whose game started but has no record yet: set e->record,
     * players, scores and status (malloc'd; the store writes and frees them)
     * and return 0, or -1 when it cannot be rebuilt (left as it is). */
    int (*abandoned)(void *arg, struct store_room *e);
    /* A room to serve again; -1: it could not be rebuilt (logged, skipped). */
    int (*room)(void *arg, const struct store_room *e);
    void *arg;
};

/* Rooms untouched for stale_s seconds are closed first (0 = never): a lobby
 * room is deleted, a game is closed and, through hooks->abandoned, kept as a
 * record "abandoned". Then every unfinished room not closed goes to
 * hooks->room, oldest first, with all its seats and moves. Synchronous: call
 * before serving. The number of rooms given to hooks->room that took them,
 * or -1 with err. now_ms: wall clock. */
int store_restore(struct store *st, int stale_s, uint64_t now_ms,
                  const struct store_restore_hooks *hooks, char *err, size_t errlen);

/* ---- the batch cycle ---- */

/* Where fill and done go; before store_start or store_flush. */
void store_hooks_set(struct store *st, const struct store_hooks *hooks);
/* Run batches on loop (a uv_check_t and the thread pool). stats (may be
 * NULL) gets the loop time of each batch and each commit's time. */
void store_start(struct store *st, struct uv_loop_s *loop, struct loopstat *stats);
/* Close the loop handle (from inside the loop). A batch in flight completes;
 * queued reads are answered 503. */
void store_stop(struct store *st);
/* Write what is still marked now, on this thread (after uv_run returned, and
 * in tests). Returns 0 or -1 when the commit failed. */
int store_flush(struct store *st);
/* Close the database; st may be NULL. */
void store_close(struct store *st);

/* key changed: hooks.fill(key) will run for the batch being filled. The
 * caller marks a key at most once until its fill runs (it keeps a flag).
 * Returns that batch's number (what the key's sends wait for). */
unsigned long store_mark(struct store *st, void *key);
/* The fencing number written into every room row (rooms.fence) from the
 * batch being filled on; 0 until a lease gives one (scale-out: the database
 * will refuse a write whose number is older than the row's). */
void store_fence_set(struct store *st, uint64_t fence);
/* The number of the batch being filled. */
unsigned long store_fill_gen(const struct store *st);
/* key is going away: it leaves the batch being filled (its fill will not
 * run), and the done hook of the batch in flight gets NULL for its rows. */
void store_forget(struct store *st, void *key);
/* A new zeroed entry of the batch being filled (from hooks.fill, or for a
 * room that is going: gone set by the caller). Never NULL. */
struct store_room *store_row_add(struct store *st);
/* Number of the last batch committed (or failed). */
unsigned long store_done_gen(const struct store *st);
/* A chat line of room id, written with the next batch. */
void store_chat(struct store *st, const char *room, int seat, const char *name, const char *text,
                uint64_t now_ms);
/* Nothing is marked, waiting in the batch being filled or in flight: every
 * change handed to the store so far is committed (or failed). */
int store_idle(const struct store *st);
/* The last commit failed: moves are refused (storage_error). */
int store_failing(const struct store *st);

/* Whether commits work, as plain data (GET /healthz, the metrics). */
#define STORE_REASON_MAX 48
struct store_health {
    int failing;                /* the last commit failed */
    uint64_t since_ms;          /* wall clock of the first failure of this run of them; 0 */
    unsigned long failures;     /* failed commits since start */
    char why[STORE_REASON_MAX]; /* while failing: a short reason ("disk full", "I/O error",
                                  "database locked", "database unreachable", ...), else "" */
};
/* st's health into h; a NULL store (memory only) is healthy. */
void store_health_get(const struct store *st, struct store_health *h);
/* While failing: submit what is marked (a retry); call about once a second.
 * The backend reconnects with its own backoff. */
void store_retry(struct store *st);

/* ---- reads for HTTP (read.c), on the thread pool ----
 * cb runs on the loop with status 200 and the JSON text (malloc'd, the
 * callee's), 404 (no such game) or 503 (the database could not be read) and
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
/* One open room (not closed, its game not over) with its seats and moves
 * (and the fence its last writer wrote), as of one snapshot, for a cluster
 * node that has just taken the room's lease (cluster/lease.h). cb runs on the
 * loop with 200 and the entry (the callee's: store_entry_free), or 404 (no
 * such open room) or 503 with e NULL. NULL as the reads above. */
typedef void (*store_entry_cb)(void *arg, int status, struct store_room *e);
struct store_read *store_entry_read(struct store *st, const char *id, store_entry_cb cb, void *arg);
void store_entry_free(struct store_room *e);

/* GET /api/games/{id}/analysis: the game's stored analysis document
 * (PROTOCOL.md "Game analysis"), 404 while there is none. As store_game_read. */
struct store_read *store_analysis_read(struct store *st, const char *id, store_read_cb cb,
                                       void *arg);

/* The asker is gone: cb will not be called. */
void store_read_cancel(struct store_read *rq);

/* The same reads done at once on this thread (tests, tools): malloc'd JSON
 * or NULL with *status 404 or 503. */
char *store_games_get(struct store *st, int page, const char *status, int *code);
char *store_game_get(struct store *st, const char *id, int *code);
char *store_analysis_get(struct store *st, const char *id, int *code);

/* ---- analyses (server/analysis/) ----
 * A game's analysis is written once and never changes (table analyses: game,
 * doc, created). */

/* Called on the loop once the batch holding id's analysis committed. */
typedef void (*store_analysis_cb)(void *arg, const char *id);
/* id's analysis document doc (copied) joins the batch being filled and is
 * written in its transaction; a game that has one already keeps it (insert
 * once). cb (may be NULL) is called once, after the commit: a failed batch
 * carries the document into the next one, like chat lines, and a store
 * closed before it was written never calls cb. now_ms: the created time (0:
 * the wall clock). */
void store_analysis_add(struct store *st, const char *id, const char *doc, uint64_t now_ms,
                        store_analysis_cb cb, void *arg);
/* The asker arg is going: no cb with it will be called (its documents are
 * still written). */
void store_analysis_forget(struct store *st, void *arg);

/* A record of a game that ended (STORE_FINISHED; not an abandoned one) was
 * committed: fn(arg, id) on the loop after the batch, once per record
 * written. One hook per store (the analysis queue's `auto`); NULL: none. */
typedef void (*store_record_fn)(void *arg, const char *id);
void store_record_hook_set(struct store *st, store_record_fn fn, void *arg);

/* ---- online backups (backup.c; SQLite only) ----
 * A consistent copy of the database with SQLite's online backup API, taken
 * on a connection of its own while carcd writes: each step copies pages in
 * a read transaction and starts again when a commit changed the source, so
 * the copy is the database as of one commit. Written to dst.part, then
 * renamed to dst: dst is whole or absent. PostgreSQL is backed up with its
 * own tools (pg_dump, base backups): store_backup_start answers -1. */

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

/* ---- copying between backends (copy.c: carcd --export-db / --import-db) ----
 * Every room (closed ones too, with their seats and moves), every record and
 * every chat line of from is written to to in one transaction of to, on this
 * thread. from is read in one read transaction, so a live database (a
 * serving carcd's SQLite file) is copied as of one commit. Rooms and records
 * of to with the same ids are replaced; chat lines are appended. Neither store
 * may be started. 0 with the counts, or -1 with err (to is then unchanged).
 * The account tables are not rows of this store: store_accounts_copy
 * (accounts.h) copies them, and carcd runs both. */
int store_copy(struct store *from, struct store *to, long *rooms, long *games, char *err,
               size_t errlen);

/* Tests: the next n commits fail as if the disk did. */
void store_test_fail(struct store *st, int n);
/* Tests: run sql on the writer connection (fixtures such as an older
 * schema). 0 or -1. */
int store_test_exec(struct store *st, const char *sql);

/* Batches committed so far (for logs and tests). */
unsigned long store_batches(const struct store *st);
/* Pages in the write-ahead log after the last commit (SQLite; tests). */
int store_wal_pages(const struct store *st);

#endif
