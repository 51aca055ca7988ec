/* store/accounts_sqlite.c: the account tables on SQLite (accounts_int.h): a
 * connection of its own to the store's file (WAL mode, set by the store: it
 * reads and writes beside the store's writer and reader, a write waiting up
 * to STORE_BUSY_MS for another's lock), the tables created when missing, and
 * one statement run with its parameters bound by name ($1..$n). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_int.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

#define DB(a) ((sqlite3 *)(a)->impl)

static int fail(struct store_accounts *a)
{
    snprintf(a->err, sizeof a->err, "%s", sqlite3_errmsg(DB(a)));
    return STORE_E_DB;
}

static int params_bind(sqlite3_stmt *s, int n, const struct acc_val *v)
{
    for (int k = 0; k < n; k++) {
        char name[16];
        snprintf(name, sizeof name, "$%d", k + 1);
        int i = sqlite3_bind_parameter_index(s, name);
        if (i == 0) /* not in this statement */
            continue;
        int rc = v[k].type == ACC_INT    ? sqlite3_bind_int64(s, i, v[k].i)
                 : v[k].type == ACC_REAL ? sqlite3_bind_double(s, i, v[k].d)
                                         : sqlite3_bind_text(s, i, v[k].s, -1, SQLITE_STATIC);
        if (rc != SQLITE_OK)
            return -1;
    }
    return 0;
}

static int sq_run(struct store_accounts *a, const char *sql, int n, const struct acc_val *v,
                  acc_row_cb cb, void *arg, long long *changes)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(DB(a), sql, -1, &s, NULL) != SQLITE_OK)
        return fail(a);
    if (params_bind(s, n, v) != 0) {
        int rc = fail(a);
        sqlite3_finalize(s);
        return rc;
    }
    int rc, out = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct acc_row r = {.res = s};
        if (cb != NULL && (out = cb(arg, &r)) != 0)
            break;
    }
    if (out == 0 && rc != SQLITE_DONE) {
        int ext = sqlite3_extended_errcode(DB(a));
        if (ext == SQLITE_CONSTRAINT_UNIQUE || ext == SQLITE_CONSTRAINT_PRIMARYKEY)
            out = STORE_E_EXISTS;
        else
            out = fail(a);
    }
    if (changes != NULL)
        *changes = sqlite3_changes64(DB(a));
    sqlite3_finalize(s);
    return out;
}

static long long sq_col_int(const struct acc_row *r, int k)
{
    return sqlite3_column_int64(r->res, k);
}

static double sq_col_real(const struct acc_row *r, int k)
{
    return sqlite3_column_double(r->res, k);
}

static const char *sq_col_text(const struct acc_row *r, int k)
{
    const unsigned char *t = sqlite3_column_text(r->res, k);
    return t != NULL ? (const char *)t : "";
}

static void sq_close(struct store_accounts *a)
{
    sqlite3_close(DB(a));
    free(a);
}

static const struct acc_backend sq_accounts = {
    .run = sq_run,
    .col_int = sq_col_int,
    .col_real = sq_col_real,
    .col_text = sq_col_text,
    .begin_sql = "BEGIN IMMEDIATE",
    .read_sql = "BEGIN",      /* deferred: the snapshot is taken at the first read */
    .ratings_lock_sql = NULL, /* BEGIN IMMEDIATE: one writer at a time already */
    .ids_sql = NULL,
    .close = sq_close,
};

/* The tables created when missing, in one transaction that holds the write
 * lock (another process opening the same file at once waits, then finds
 * them); with ACC_OPEN_READ only looked for (a->absent). 0, or -1 with err. */
static int migrate(struct store_accounts *a, const char *path, int flags, char *err, size_t errlen)
{
    const char *what = "cannot start the account tables' update";
    int read = (flags & ACC_OPEN_READ) != 0;
    if (sqlite3_exec(DB(a), read ? "BEGIN" : "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    int version = 0;
    sqlite3_stmt *s = NULL;
    what = "cannot read the account tables' version";
    if (sqlite3_prepare_v2(DB(a),
                           "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                           " AND name = 'accounts_version'",
                           -1, &s, NULL) != SQLITE_OK ||
        sqlite3_step(s) != SQLITE_ROW) {
        sqlite3_finalize(s);
        goto fail;
    }
    int exists = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    if (exists) {
        if (sqlite3_prepare_v2(DB(a), "SELECT max(version) FROM accounts_version", -1, &s, NULL) !=
                SQLITE_OK ||
            sqlite3_step(s) != SQLITE_ROW) {
            sqlite3_finalize(s);
            goto fail;
        }
        version = sqlite3_column_int(s, 0);
        sqlite3_finalize(s);
    }
    if (version > STORE_ACCOUNTS_SCHEMA) {
        sqlite3_exec(DB(a), "ROLLBACK", NULL, NULL, NULL);
        snprintf(err, errlen,
                 "%s has account tables of version %d, newer than this carcd knows (%d): run a"
                 " newer carcd",
                 path, version, STORE_ACCOUNTS_SCHEMA);
        return -1;
    }
    a->absent = read && version == 0;
    what = "cannot create the account tables";
    if (version == 0 && !read &&
        sqlite3_exec(DB(a),
                     ACC_SCHEMA_SQL("INTEGER PRIMARY KEY AUTOINCREMENT",
                                    "REAL") "INSERT INTO accounts_version VALUES(6);",
                     NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    what = "cannot update the account tables to version 2";
    if (version == 1 && !read && sqlite3_exec(DB(a), ACC_V2_SQL, NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    what = "cannot update the account tables to version 3";
    if (version >= 1 && version <= 2 && !read &&
        sqlite3_exec(DB(a), ACC_V3_SQL, NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    what = "cannot update the account tables to version 4";
    if (version >= 1 && version <= 3 && !read &&
        sqlite3_exec(DB(a), ACC_V4_SQL, NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    what = "cannot update the account tables to version 5";
    if (version >= 1 && version <= 4 && !read &&
        sqlite3_exec(DB(a), ACC_V5_SQL, NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    what = "cannot update the account tables to version 6";
    if (version >= 1 && version <= 5 && !read &&
        sqlite3_exec(DB(a), ACC_V6_SQL, NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    if (sqlite3_exec(DB(a), "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    if (version == 0 && !read)
        log_info("storage: created the account tables in %s (version %d)", path,
                 STORE_ACCOUNTS_SCHEMA);
    if (version >= 1 && version < STORE_ACCOUNTS_SCHEMA && !read)
        log_info("storage: updated the account tables in %s from version %d to %d (rated_games,"
                 " push_subscriptions, webhooks, account_mail, vacations)",
                 path, version, STORE_ACCOUNTS_SCHEMA);
    return 0;
fail:
    snprintf(err, errlen, "%s: %s: %s", path, what, sqlite3_errmsg(DB(a)));
    sqlite3_exec(DB(a), "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

struct store_accounts *store__accounts_sqlite_open(struct store *st, int flags, char *err,
                                                   size_t errlen)
{
    const char *path = st->be->file != NULL ? st->be->file(st) : NULL;
    if (path == NULL) {
        snprintf(err, errlen, "the store has no database file");
        return NULL;
    }
    sqlite3 *db = NULL;
    /* FULLMUTEX: the handle moves between the pool's threads (one at a time). */
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) !=
        SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open it: %s", path,
                 db != NULL ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, STORE_BUSY_MS);
    struct store_accounts *a = mem_zalloc(1, sizeof *a);
    a->be = &sq_accounts;
    a->impl = db;
    if (sqlite3_exec(db, "PRAGMA synchronous = FULL", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot set synchronous: %s", path, sqlite3_errmsg(db));
        sq_close(a);
        return NULL;
    }
    if (migrate(a, path, flags, err, errlen) != 0) {
        sq_close(a);
        return NULL;
    }
    return a;
}
