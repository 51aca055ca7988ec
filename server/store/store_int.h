/* store/store_int.h: what the storage files share. Not for the rest of the
 * server: store.h is the interface. Only sqlite.c, sqlite_rows.c, backup.c
 * and accounts_sqlite.c include sqlite3.h; only postgres.c, postgres_rows.c
 * and accounts_pg.c include libpq-fe.h. The account tables (accounts.h) have
 * their own connections and files: accounts.c, accounts_ratings.c (the SQL),
 * accounts_sqlite.c, accounts_pg.c (accounts_int.h).
 *
 *   store.c        the batch being filled on the loop, the batch cycle (any backend)
 *   read.c         the queue of HTTP reads on the thread pool (any backend)
 *   restore.c      start-up: stale rooms closed, rooms handed back (any backend)
 *   copy.c         every row of one store written into another
 *   sqlite.c       SQLite: open, check, migrate, close; one batch in one transaction
 *   sqlite_rows.c  SQLite: the reads (records, restore rows, copy)
 *   backup.c       SQLite: online backups (carcd --backup, POST /admin/backup)
 *   wal.c          SQLite's write-ahead log read without SQLite (start-up checks)
 *   damage.c       start-up checks of the data directory's files, carcd.state
 *   postgres.c     PostgreSQL: the same with libpq, on the thread pool
 *
 * The backends sit behind struct store_backend, the way libuv's platforms sit
 * behind one header: the batch cycle, the read queue and restore's logic are
 * written once. Every function of the table runs on one thread at a time for
 * a given connection: the writer (batches, restore, copy) and the reader
 * (HTTP reads) are separate connections. */
#ifndef CARCD_STORE_INT_H
#define CARCD_STORE_INT_H

#include <stdint.h>
#include <uv.h>

#include "store/store.h"

struct loopstat;

/* A chat line of a batch. */
struct sb_chat {
    struct sb_chat *next;
    char room[PROTO_ROOM_MAX];
    int seat;
    char name[PROTO_NAME_MAX];
    char *text;
    uint64_t time;
};

/* An analysis document of a batch (store_analysis_add). */
struct sb_analysis {
    struct sb_analysis *next;
    char id[PROTO_ROOM_MAX];
    char *doc;
    uint64_t time;
    store_analysis_cb cb; /* NULL: nobody waits for it (store_analysis_forget) */
    void *arg;
};

/* gone values past enum store_gone, used by copy.c only. */
enum {
    STORE_RECORD = 3, /* only the record (games row) of e */
    STORE_CLOSED = 4, /* the room as STORE_WRITE, but marked closed */
};

struct batch {
    uv_work_t work;
    struct store *st;
    unsigned long gen;
    uint64_t fence; /* the store's fencing number when the batch was begun */
    struct store_room *rooms;
    int n, cap;
    struct sb_chat *chat, **chat_tail;
    struct sb_analysis *an, **an_tail;
    int ok;
    char why[160];      /* failed: the database's message */
    const char *reason; /* failed: a short static reason for /healthz (store_health), or NULL */
    uint64_t commit_ns; /* time spent writing, on the thread pool */
};

/* Which rows store_backend.rows reads. */
enum store_rows {
    ROWS_OPEN,      /* rooms not closed and not over, oldest first (restore) */
    ROWS_ABANDONED, /* closed rooms of a started game without a record (restore) */
    ROWS_ALL, /* every room, closed and over ones too (copy); closed rooms: gone STORE_CLOSED */
};
/* A row read back: 0 goes on, -1 stops the read (which then returns -1). */
typedef int (*store_row_cb)(void *arg, struct store_room *e);
typedef int (*store_chat_cb)(void *arg, struct sb_chat *c);

struct store_backend {
    const char *name;
    /* Write b in one transaction: 0, or -1 with b->why (and b->reason when the
     * backend can name the kind of failure). Thread pool (or the
     * caller's thread: flush, restore, copy); touches only b and the writer. */
    int (*batch_write)(struct store *st, struct batch *b);
    /* The reads of read.c, on the reader connection. */
    char *(*games_get)(struct store *st, int page, const char *status, int *code);
    char *(*game_get)(struct store *st, const char *id, int *code);
    /* A game's analysis document (table analyses): 200, 404 or 503. */
    char *(*analysis_get)(struct store *st, const char *id, int *code);
    /* One open room (not closed, not over) with its seats and moves, as of
     * one snapshot, into e: 200, 404 (no such open room) or 503. */
    int (*entry_get)(struct store *st, const char *id, struct store_room *e);
    /* Start-up and copy, on the writer, on the caller's thread. */
    int (*stale_close)(struct store *st, long long before_ms, char *err, size_t errlen);
    int (*rows)(struct store *st, int which, store_row_cb cb, void *arg, char *err, size_t errlen);
    /* Copy: every record (as STORE_RECORD entries) and every chat line. */
    int (*records)(struct store *st, store_row_cb cb, void *arg, char *err, size_t errlen);
    int (*chats)(struct store *st, store_chat_cb cb, void *arg, char *err, size_t errlen);
    /* On the loop after each batch (SQLite: a checkpoint beside the commits); may be NULL. */
    void (*after_batch)(struct store *st);
    /* Thread pool: caches let go; may be NULL. */
    void (*release)(struct store *st);
    int (*fsync_set)(struct store *st, int on, char *err, size_t errlen);
    int (*exec)(struct store *st, const char *sql);
    /* The database file (backups), or NULL when the backend has none. */
    const char *(*file)(const struct store *st);
    void (*close)(struct store *st);
};

struct store {
    const struct store_backend *be;
    void *impl; /* the backend's connections (struct sq, struct pg) */
    uv_loop_t *loop;
    uv_check_t check;
    int started;
    struct store_hooks hooks;
    void **dirty; /* keys marked since the last batch was built */
    int ndirty, dirty_cap;
    struct batch *fill; /* the batch being filled */
    unsigned long fill_gen, done_gen;
    uint64_t fence; /* store_fence_set */
    int inflight, failing;
    uint64_t failing_since;          /* wall clock ms of the first failure of this run */
    unsigned long failures;          /* failed commits since start */
    char fail_why[STORE_REASON_MAX]; /* the failure's short reason (struct store_health) */
    struct batch *flight;            /* the batch in flight, or being finished (store_forget) */
    uv_work_t release;               /* store_cache_release */
    int release_busy;
    void (*release_done)(void *);
    void *release_arg;
    unsigned long batches;
    struct loopstat *stats; /* NULL: not measured */
    int test_fail;          /* tests: fail the next commits */
    /* Reads (read.c): one on the thread pool, the others queued FIFO. */
    struct store_read *rq_head, *rq_tail;
    int rq_len, rq_busy;
    /* Records of finished games committed (store_record_hook_set). */
    store_record_fn record_fn;
    void *record_arg;
};

/* store.c: a new store around a backend's connections (fill batch ready). */
struct store *store__new(const struct store_backend *be, void *impl);
/* A new batch (number gen) and freeing one; an entry's strings freed. */
struct batch *store__batch_new(struct store *st, unsigned long gen);
void store__batch_free(struct batch *b);
void store__row_clear(struct store_room *e);
/* A new zeroed room entry of b. */
struct store_room *store__batch_add(struct batch *b);
/* Write b through the backend (the test failures counted). */
int store__batch_write(struct store *st, struct batch *b);

/* A growing text (reads' JSON answers); out of memory aborts. */
struct store_text {
    char *s;
    size_t n, cap;
};
void store__text_add(struct store_text *t, const char *s, size_t len);
void store__text_str(struct store_text *t, const char *s);

/* read.c: the queued reads answered 503 (store_stop, store_close). */
void store__reads_stop(struct store *st);

/* ---- damage.c: the start-up check (store.h "start-up checks") ---- */

/* carcd.state: the last run on a data directory, as its store opened (clean
 * 0) or closed (clean 1). */
struct store_state {
    int clean;                       /* 1: that run stopped cleanly */
    long long rooms, records, moves; /* rows of rooms, games and moves then; -1: not counted */
    int64_t time_ms;                 /* when it was written (wall clock) */
};
/* dir's carcd.state into s: 1, 0 when there is none, -1 when it cannot be
 * read or is not one (s zeroed: not clean). */
int store__state_read(const char *dir, struct store_state *s);
/* s into dir's carcd.state: a temporary file, fsync, rename, the directory
 * fsync'd, so the file is the old one or the new one. 0, or -1 with err. */
int store__state_write(const char *dir, const struct store_state *s, char *err, size_t errlen);
/* Look at dir's files before SQLite opens them; on findings, keep copies
 * aside and log them at error. 0: open them (nothing found, or accept and
 * the loss logged); -1 with err: do not (damage, or files that cannot be
 * read). On the caller's thread, before the loop runs. */
int store__damage_check(const char *dir, int accept, char *err, size_t errlen);

#endif
