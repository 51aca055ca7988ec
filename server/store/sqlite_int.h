/* store/sqlite_int.h: what sqlite.c, sqlite_rows.c and backup.c share: the
 * SQLite backend's connections. */
#ifndef CARCD_STORE_SQLITE_INT_H
#define CARCD_STORE_SQLITE_INT_H

#include <sqlite3.h>

#include "store_int.h"

struct sq {
    sqlite3 *db;  /* the writer: batches, restore, copy; one user at a time */
    sqlite3 *rdb; /* the reader: HTTP reads on the thread pool, one at a time */
    sqlite3 *cdb; /* the checkpointer: WAL checkpoints on the thread pool */
    char path[512];
    char dir[512];  /* the data directory (store_open): its carcd.state; "" for a file alone */
    int lock_fd;    /* the data directory's lock (STORE_LOCK) */
    int wal_pages;  /* pages in the WAL after the last commit (the writer's WAL hook) */
    uv_work_t ckpt; /* a checkpoint on the thread pool */
    int ckpt_busy;
};

#define SQ(st) ((struct sq *)(st)->impl)

extern const struct store_backend sq_backend;

/* sqlite.c: run sql; 0, or -1 with the error logged. */
int sq__exec(sqlite3 *db, const char *sql);
/* A sentence for an SQLite failure of db (file path) while doing what; a lock
 * held by another program gets advice instead of SQLite's words. */
void sq__db_error(char *err, size_t errlen, const char *path, const char *what, sqlite3 *db);

/* sqlite_rows.c: the table's reads (store_int.h struct store_backend). */
int sq__entry_get(struct store *st, const char *id, struct store_room *e);
char *sq__games_get(struct store *st, int page, const char *status, int *code);
char *sq__game_get(struct store *st, const char *id, int *code);
char *sq__analysis_get(struct store *st, const char *id, int *code);
int sq__stale_close(struct store *st, long long before_ms, char *err, size_t errlen);
int sq__rows(struct store *st, int which, store_row_cb cb, void *arg, char *err, size_t errlen);
int sq__records(struct store *st, store_row_cb cb, void *arg, char *err, size_t errlen);
int sq__chats(struct store *st, store_chat_cb cb, void *arg, char *err, size_t errlen);

#endif
