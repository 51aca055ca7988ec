/* store/accounts_int.h: what accounts.c (the statements, written once) and
 * its two backends share. A backend runs one statement with typed
 * parameters named $1..$n (PostgreSQL's syntax; SQLite reads "$1" as a
 * named parameter, and accounts_sqlite.c binds it by that name) and hands
 * each row to a callback that reads its columns through the backend.
 *
 *   accounts.c         every function of accounts.h, as SQL both backends run
 *   accounts_sqlite.c  SQLite: a connection to the store's file, the tables, run
 *   accounts_pg.c      PostgreSQL: a connection to the store's URL, the tables, run */
#ifndef CARCD_STORE_ACCOUNTS_INT_H
#define CARCD_STORE_ACCOUNTS_INT_H

#include "store/accounts.h"
#include "store_int.h"

#define ACC_PARAMS_MAX 12 /* parameters of one statement */

enum acc_type { ACC_INT, ACC_REAL, ACC_TEXT };

struct acc_val {
    int type; /* enum acc_type */
    long long i;
    double d;
    const char *s;
};

#define AV_I(x) ((struct acc_val){.type = ACC_INT, .i = (x)})
#define AV_D(x) ((struct acc_val){.type = ACC_REAL, .d = (x)})
#define AV_S(x) ((struct acc_val){.type = ACC_TEXT, .s = (x)})

/* A row being read: the backend's statement (SQLite) or result (PostgreSQL)
 * and, for PostgreSQL, the row's number. */
struct acc_row {
    void *res;
    int row;
};

/* A row of a statement's result: 0 reads on, anything else stops the read
 * (run returns it). */
typedef int (*acc_row_cb)(void *arg, const struct acc_row *r);

struct acc_backend {
    /* Run sql with n parameters; each row of its result to cb (may be NULL);
     * the rows it changed in *changes (may be NULL). 0, STORE_E_EXISTS (a
     * unique key refused the row), STORE_E_DB with a->err, or cb's stop. */
    int (*run)(struct store_accounts *a, const char *sql, int n, const struct acc_val *v,
               acc_row_cb cb, void *arg, long long *changes);
    /* Column k of r ("" and 0 for NULL). */
    long long (*col_int)(const struct acc_row *r, int k);
    double (*col_real)(const struct acc_row *r, int k);
    const char *(*col_text)(const struct acc_row *r, int k);
    const char *begin_sql; /* the backend's BEGIN (SQLite: take the write lock at once) */
    const char *read_sql;  /* a read-only transaction on one snapshot (accounts_copy.c) */
    /* Inside a transaction: wait for every other rating transaction of the
     * database to end (store_ratings_lock; NULL: begin_sql orders them). */
    const char *ratings_lock_sql;
    /* Run after rows were written with their own ids (accounts_copy.c): the
     * ids handed out next made to follow the highest (NULL: SQLite's
     * AUTOINCREMENT follows an inserted id by itself). */
    const char *ids_sql;
    /* 1: PostgreSQL's SQL dialect where the two differ (the JSON functions of
     * accounts_stats.c); 0: SQLite's. */
    int postgres;
    void (*close)(struct store_accounts *a);
};

struct store_accounts {
    const struct acc_backend *be;
    void *impl;    /* the backend's connection */
    int in_tx;     /* a transaction is open (store_accounts_begin, or a function's own) */
    int absent;    /* opened to read (ACC_OPEN_READ) on a database without account tables */
    char err[256]; /* the last STORE_E_DB's message */
};

/* The tables, one text for both backends: SERIAL the id column's type with its
 * key, REAL a floating-point type. accounts_version is written by the caller. */
#define ACC_SCHEMA_SQL(SERIAL, REAL)                                                               \
    "CREATE TABLE accounts(id " SERIAL ", name TEXT NOT NULL,"                                     \
    " name_key TEXT NOT NULL UNIQUE, hash TEXT NOT NULL DEFAULT '',"                               \
    " created_ms BIGINT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0,"                            \
    " deleted INTEGER NOT NULL DEFAULT 0);"                                                        \
    "CREATE TABLE sessions(digest TEXT PRIMARY KEY, account BIGINT NOT NULL,"                      \
    " csrf TEXT NOT NULL, created_ms BIGINT NOT NULL, expires_ms BIGINT NOT NULL);"                \
    "CREATE INDEX sessions_account ON sessions(account);"                                          \
    "CREATE INDEX sessions_expires ON sessions(expires_ms);"                                       \
    "CREATE TABLE invites(code TEXT PRIMARY KEY, created_by BIGINT NOT NULL DEFAULT 0,"            \
    " created_ms BIGINT NOT NULL, expires_ms BIGINT NOT NULL,"                                     \
    " used_by BIGINT NOT NULL DEFAULT 0, used_ms BIGINT NOT NULL DEFAULT 0);"                      \
    "CREATE TABLE ratings(account BIGINT NOT NULL, pool TEXT NOT NULL,"                            \
    " rating " REAL " NOT NULL, deviation " REAL " NOT NULL, volatility " REAL " NOT NULL,"        \
    " mu " REAL " NOT NULL, sigma " REAL " NOT NULL, display " REAL " NOT NULL,"                   \
    " games INTEGER NOT NULL, updated_ms BIGINT NOT NULL, PRIMARY KEY(account, pool));"            \
    "CREATE INDEX ratings_ladder ON ratings(pool, display);"                                       \
    "CREATE TABLE rating_history(id " SERIAL ", account BIGINT NOT NULL, pool TEXT NOT NULL,"      \
    " game TEXT NOT NULL, time_ms BIGINT NOT NULL, rating " REAL " NOT NULL,"                      \
    " deviation " REAL " NOT NULL);"                                                               \
    "CREATE INDEX rating_history_account ON rating_history(account, pool, time_ms);"               \
    "CREATE TABLE account_games(game TEXT NOT NULL, seat INTEGER NOT NULL,"                        \
    " account BIGINT NOT NULL, time_ms BIGINT NOT NULL, PRIMARY KEY(game, seat));"                 \
    "CREATE INDEX account_games_account ON account_games(account, time_ms);"                       \
    "CREATE TABLE accounts_version(version INTEGER NOT NULL);" ACC_RATED_SQL ACC_PUSH_SQL          \
        ACC_HOOK_SQL ACC_MAIL_SQL ACC_VACATION_SQL

/* Version 2: the rated games (accounts_rated.c), one row per game rated (or
 * found unratable), written in the transaction of its ratings. */
#define ACC_RATED_SQL "CREATE TABLE rated_games(room TEXT PRIMARY KEY, time_ms BIGINT NOT NULL);"
/* Every game of rating_history is rated already: marked (the migration from
 * 1, and a copy between backends, whose source may be of version 1). */
#define ACC_RATED_BACKFILL_SQL                                                                     \
    "INSERT INTO rated_games(room, time_ms) SELECT game, max(time_ms) FROM rating_history"         \
    " WHERE true GROUP BY game ON CONFLICT(room) DO NOTHING"
/* From version 1 to 2 (the caller holds the migration's lock). */
#define ACC_V2_SQL ACC_RATED_SQL ACC_RATED_BACKFILL_SQL ";UPDATE accounts_version SET version = 2;"

/* Version 3: Web Push subscriptions (accounts_push.c). */
#define ACC_PUSH_SQL                                                                               \
    "CREATE TABLE push_subscriptions(endpoint TEXT PRIMARY KEY, account BIGINT NOT NULL,"          \
    " p256dh TEXT NOT NULL, auth TEXT NOT NULL, created_ms BIGINT NOT NULL,"                       \
    " failures INTEGER NOT NULL DEFAULT 0);"                                                       \
    "CREATE INDEX push_subscriptions_account ON push_subscriptions(account, created_ms);"
/* From version 2 to 3. */
#define ACC_V3_SQL ACC_PUSH_SQL "UPDATE accounts_version SET version = 3;"
/* Version 4: an account's webhook (accounts_push.c). */
#define ACC_HOOK_SQL                                                                               \
    "CREATE TABLE webhooks(account BIGINT PRIMARY KEY, url TEXT NOT NULL,"                         \
    " created_ms BIGINT NOT NULL, failures INTEGER NOT NULL DEFAULT 0);"
#define ACC_V4_SQL ACC_HOOK_SQL "UPDATE accounts_version SET version = 4;"
/* Version 5: an account's e-mail settings (accounts_mail.c). */
#define ACC_MAIL_SQL                                                                               \
    "CREATE TABLE account_mail(account BIGINT PRIMARY KEY, address TEXT NOT NULL,"                 \
    " digest INTEGER NOT NULL DEFAULT 1, reminders INTEGER NOT NULL DEFAULT 1,"                    \
    " unsub TEXT NOT NULL UNIQUE, digest_day BIGINT NOT NULL DEFAULT 0,"                           \
    " created_ms BIGINT NOT NULL);"
#define ACC_V5_SQL ACC_MAIL_SQL "UPDATE accounts_version SET version = 5;"
/* Version 6: an account's vacation bank (accounts_vacation.c). */
#define ACC_VACATION_SQL                                                                           \
    "CREATE TABLE vacations(account BIGINT PRIMARY KEY, year INTEGER NOT NULL,"                    \
    " used INTEGER NOT NULL, from_ms BIGINT NOT NULL, until_ms BIGINT NOT NULL);"
#define ACC_V6_SQL ACC_VACATION_SQL "UPDATE accounts_version SET version = 6;"

/* accounts_sqlite.c, accounts_pg.c: a handle on st's database (st of that
 * backend), its tables created or checked; NULL with err. With ACC_OPEN_READ
 * nothing is created (nor is SQLite's write lock taken): a database without
 * account tables (made by a carcd before them) gives a handle with absent
 * set, to be closed unused. */
#define ACC_OPEN_READ 1
struct store_accounts *store__accounts_sqlite_open(struct store *st, int flags, char *err,
                                                   size_t errlen);
struct store_accounts *store__accounts_pg_open(struct store *st, int flags, char *err,
                                               size_t errlen);

#endif
