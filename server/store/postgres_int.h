/* store/postgres_int.h: what postgres.c and postgres_rows.c share: the
 * PostgreSQL backend's connections and its helpers (any thread; one user of
 * a connection at a time). */
#ifndef CARCD_STORE_POSTGRES_INT_H
#define CARCD_STORE_POSTGRES_INT_H

#include <libpq-fe.h>

#include "store_int.h"

#define PG_LOCK_KEY "1668440675" /* 'carc' as an integer: the advisory lock of carcd */
#define PG_CHUNK 256             /* statements per pipeline sync */
#define PG_PREP_MAX 24           /* statements of a batch prepared once per session */
#define PG_BACKOFF_MIN_MS 250
#define PG_BACKOFF_MAX_MS 8000

struct pg_conn {
    PGconn *c;
    int writer;        /* takes the lock and sets synchronous_commit after a (re)connect */
    uint64_t next_try; /* ms: a broken connection is not reset before */
    int backoff;       /* ms */
    int lost;          /* logged that it was lost */
    const char *prep[PG_PREP_MAX]; /* statements prepared in this session (by address) */
    int nprep;
    int broken; /* a statement failed: reset before the next use (libpq may not have seen yet
                   that the server is gone, and would fail once more) */
};

struct pg {
    struct pg_conn w, r; /* the writer (batches, start-up, copy), the reader (HTTP reads) */
    int sync_commit;     /* storage-fsync */
    char *url;           /* may hold a password: never logged */
    char node[40];       /* "": one carcd alone (the exclusive lock); else a cluster node's id */
};

#define PG(st) ((struct pg *)(st)->impl)
/* An integer as a text parameter, in the char array buf. */
#define I(buf, v) (snprintf(buf, sizeof buf, "%lld", (long long)(v)), buf)

/* libpq's message of c on one line, without its newline. */
void pg__msg(PGconn *c, char *out, size_t size);
/* Run sql (no parameters, maybe several statements); 0, or -1 with why. */
int pg__run(PGconn *c, const char *sql, char *why, size_t size);
/* One statement with text parameters: its result, or NULL (see pg__msg). */
PGresult *pg__query(PGconn *c, const char *sql, int n, const char *const *vals);
/* pc usable, reconnected if need be (at most once per backoff); 0 or -1 with why. */
int pg__ready(struct pg *p, struct pg_conn *pc, char *why, size_t size);

/* postgres_rows.c: the table's reads (store_int.h struct store_backend). */
int pg__entry_get(struct store *st, const char *id, struct store_room *e);
char *pg__games_get(struct store *st, int page, const char *status, int *code);
char *pg__game_get(struct store *st, const char *id, int *code);
char *pg__analysis_get(struct store *st, const char *id, int *code);
int pg__stale_close(struct store *st, long long before_ms, char *err, size_t errlen);
int pg__rows(struct store *st, int which, store_row_cb cb, void *arg, char *err, size_t errlen);
int pg__records(struct store *st, store_row_cb cb, void *arg, char *err, size_t errlen);
int pg__chats(struct store *st, store_chat_cb cb, void *arg, char *err, size_t errlen);

#endif
