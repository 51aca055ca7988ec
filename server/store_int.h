/* store_int.h: what the storage files share (store.c, store_sql.c,
 * store_restore.c, store_read.c, store_backup.c). Not for the rest of the server: store.h is
 * the interface. Only the store files include sqlite3.h.
 *
 *   store.c          the batch being filled on the loop, the batch cycle
 *   store_sql.c      open, check, migrate, close; one batch written in one transaction
 *   store_restore.c  start: rooms rebuilt from their moves, stale rooms closed as records
 *   store_read.c     reads for HTTP (GET /api/games...) on the thread pool
 *   store_backup.c   online backups (carcd --backup, POST /admin/backup) */
#ifndef CARCD_STORE_INT_H
#define CARCD_STORE_INT_H

#include <sqlite3.h>
#include <stdint.h>
#include <uv.h>

#include "game.h"
#include "msg.h"
#include "sha256.h"
#include "store.h"

struct room;
struct loopstat;

/* ---- a batch: rows copied on the loop, written on the thread pool ---- */

struct sb_seat {
    int idx;
    char name[PROTO_NAME_MAX];
    char hash[SHA256_HEX];
    int bot, autoplay, forfeited, timeouts; /* as in struct room_seat */
    long long clock_ms;
};

enum sb_gone {
    SB_WRITE = 0,  /* write the room */
    SB_DELETE = 1, /* a lobby room nobody holds: delete its rows */
    SB_CLOSE = 2,  /* closed after room-ttl: marked closed (a running game becomes a record) */
};

struct sb_room {
    char id[PROTO_ROOM_MAX];
    int gone; /* enum sb_gone */
    int sets, no_farmers, escape_rule, nseats, priv, host, phase;
    int variants; /* farm_rule | small_city << 2 | seat_random << 3 (store_sql.c) */
    char pw[SHA256_HEX];
    uint64_t seed;
    uint8_t deck[CARC_MAX_TILES];
    int deck_len;
    long long seq;
    uint64_t created, updated;
    int clock_initial, clock_increment, clock_policy; /* struct proto_clock */
    int nseat;
    struct sb_seat seats[CARC_MAX_PLAYERS];
    int move_from, move_to;
    char **moves;           /* move_to - move_from JSON texts */
    char *record;           /* a game that ended or was abandoned: its record */
    char *players, *scores; /* with the record: JSON arrays */
    const char *status;     /* with the record: STORE_FINISHED or STORE_ABANDONED */
};

struct sb_chat {
    struct sb_chat *next;
    char room[PROTO_ROOM_MAX];
    int seat;
    char name[PROTO_NAME_MAX];
    char *text;
    uint64_t time;
};

struct batch {
    uv_work_t work;
    struct store *st;
    unsigned long gen;
    struct sb_room *rooms;
    int n, cap;
    struct sb_chat *chat, **chat_tail;
    int ok;
    char why[160];      /* failed: SQLite's message */
    uint64_t commit_ns; /* time spent writing, on the thread pool */
};

struct store_read;

struct store {
    sqlite3 *db;  /* the writer: batches, restore; one user at a time */
    sqlite3 *rdb; /* the reader: HTTP reads on the thread pool, one at a time */
    sqlite3 *cdb; /* the checkpointer: WAL checkpoints on the thread pool */
    char path[512];
    int lock_fd; /* the data directory's lock (STORE_LOCK) */
    uv_loop_t *loop;
    uv_check_t check;
    int started;
    struct lobby *lb;
    struct room *dirty; /* rooms changed since the last batch was built */
    struct batch *fill; /* chat lines and gone rooms of the batch being filled */
    unsigned long fill_gen, done_gen;
    int inflight, failing;
    int wal_pages;  /* pages in the WAL after the last commit (the writer's WAL hook) */
    uv_work_t ckpt; /* a checkpoint on the thread pool */
    int ckpt_busy;
    uv_work_t release; /* store_cache_release: the writer's page cache let go */
    int release_busy;
    void (*release_done)(void *);
    void *release_arg;
    unsigned long batches;
    struct loopstat *stats; /* NULL: not measured */
    int test_fail;          /* tests: fail the next commits */
    /* Reads (store_read.c): one on the thread pool, the others queued FIFO. */
    struct store_read *rq_head, *rq_tail;
    int rq_len, rq_busy;
};

/* Wall clock, ms since 1970. */
uint64_t store__wall_ms(void);
/* strdup that aborts when out of memory. */
char *store__strdup(const char *s);
/* Run sql; 0, or -1 with the error logged. */
int store__exec(sqlite3 *db, const char *sql);
/* Append s as a JSON string to out (size bytes, *n used, NUL kept). */
void store__json_str(char *out, size_t size, size_t *n, const char *s);
/* Fill e->record, players, scores and status from r (a game that ended or
 * is abandoned). */
void store__record_entry(struct sb_room *e, const struct room *r, const char *status,
                         const char *closed);

/* store.c: a new batch (number gen) and freeing one. */
struct batch *store__batch_new(struct store *st, unsigned long gen);
void store__batch_free(struct batch *b);
/* A new zeroed room entry of b. */
struct sb_room *store__batch_add(struct batch *b);

/* store_sql.c */
/* A sentence for an SQLite failure of db (file path) while doing what; a lock
 * held by another program gets advice instead of SQLite's words. */
void store__db_error(char *err, size_t errlen, const char *path, const char *what, sqlite3 *db);
/* Write batch b in one transaction (thread pool, or the caller's thread in
 * store_flush); touches only b and db. fail: tests, fail as a disk would. */
int store__batch_write(sqlite3 *db, struct batch *b, int fail);

/* store_read.c: the read connection is closed by store_close. */
void store__reads_stop(struct store *st);

#endif
