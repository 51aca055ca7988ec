/* store/accounts_pg.c: the account tables on PostgreSQL (accounts_int.h): a
 * connection of its own to the store's database (the URL of postgres-url,
 * never logged), with the store's bounds (connect_timeout 5 s, keepalives,
 * statement_timeout 30 s); the tables created when missing under a
 * transaction-scoped advisory lock of their own (two carcd nodes starting at
 * once: one creates, the other finds them); one statement run with text
 * parameters (PostgreSQL infers their types from the columns).
 *
 * A connection found broken is reset before the next statement, at most once
 * per backoff (250 ms doubling to 8 s, as the store's); a statement is never
 * sent twice. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accounts_int.h"
#include "postgres_int.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

/* 'carc' + 1: the lock of the account tables' creation (the store's writer
 * holds PG_LOCK_KEY for its session). */
#define ACC_LOCK_KEY "1668440676"
/* The ratings' transactions (store_ratings_lock): 'carc' + 2. */
#define ACC_RATINGS_LOCK_KEY "1668440677"

struct acc_pg {
    PGconn *c;
    uint64_t next_try; /* monotonic ms: no reset before */
    int backoff;       /* ms */
};

#define APG(a) ((struct acc_pg *)(a)->impl)

static PGconn *conn_open(const char *url)
{
    const char *keys[] = {"connect_timeout",
                          "keepalives_idle",
                          "keepalives_interval",
                          "keepalives_count",
                          "application_name",
                          "dbname",
                          NULL};
    char name[32];
    snprintf(name, sizeof name, "carcd-%ld", (long)getpid());
    const char *vals[] = {"5", "10", "5", "3", name, url, NULL};
    return PQconnectdbParams(keys, vals, 1);
}

static int session_setup(PGconn *c, char *why, size_t size)
{
    return pg__run(c, "SET statement_timeout = 30000; SET client_min_messages = warning", why,
                   size);
}

/* The connection usable: reset if broken, at most once per backoff. */
static int ready(struct store_accounts *a)
{
    struct acc_pg *p = APG(a);
    if (PQstatus(p->c) == CONNECTION_OK)
        return 0;
    if (a->in_tx) { /* the transaction went with the connection: not reset under it */
        snprintf(a->err, sizeof a->err, "the connection was lost in a transaction");
        return STORE_E_DB;
    }
    uint64_t now = (uint64_t)clock_mono_ms();
    if (now < p->next_try) {
        snprintf(a->err, sizeof a->err, "the database is unreachable; next try in %llu ms",
                 (unsigned long long)(p->next_try - now));
        return STORE_E_DB;
    }
    PQreset(p->c);
    if (PQstatus(p->c) == CONNECTION_OK && session_setup(p->c, a->err, sizeof a->err) == 0) {
        p->backoff = 0;
        return 0;
    }
    if (PQstatus(p->c) != CONNECTION_OK)
        pg__msg(p->c, a->err, sizeof a->err);
    p->backoff = p->backoff ? p->backoff * 2 : PG_BACKOFF_MIN_MS;
    if (p->backoff > PG_BACKOFF_MAX_MS)
        p->backoff = PG_BACKOFF_MAX_MS;
    p->next_try = (uint64_t)clock_mono_ms() + (uint64_t)p->backoff;
    return STORE_E_DB;
}

static int pg_run(struct store_accounts *a, const char *sql, int n, const struct acc_val *v,
                  acc_row_cb cb, void *arg, long long *changes)
{
    if (n > ACC_PARAMS_MAX)
        return STORE_E_ARGS;
    int rc = ready(a);
    if (rc != 0)
        return rc;
    char buf[ACC_PARAMS_MAX][32];
    const char *vals[ACC_PARAMS_MAX];
    for (int k = 0; k < n; k++) {
        if (v[k].type == ACC_TEXT) {
            vals[k] = v[k].s;
            continue;
        }
        if (v[k].type == ACC_INT)
            snprintf(buf[k], sizeof buf[k], "%lld", v[k].i);
        else
            snprintf(buf[k], sizeof buf[k], "%.17g", v[k].d); /* exact back */
        vals[k] = buf[k];
    }
    PGresult *res = PQexecParams(APG(a)->c, sql, n, NULL, vals, NULL, NULL, 0);
    ExecStatusType s = PQresultStatus(res);
    if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
        const char *state = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
        if (state != NULL && strcmp(state, "23505") == 0) /* unique_violation */
            rc = STORE_E_EXISTS;
        else {
            pg__msg(APG(a)->c, a->err, sizeof a->err);
            rc = STORE_E_DB;
        }
        PQclear(res);
        return rc;
    }
    for (int i = 0; cb != NULL && i < PQntuples(res) && rc == 0; i++) {
        struct acc_row r = {.res = res, .row = i};
        rc = cb(arg, &r);
    }
    if (changes != NULL)
        *changes = strtoll(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    return rc;
}

static long long pg_col_int(const struct acc_row *r, int k)
{
    return strtoll(PQgetvalue(r->res, r->row, k), NULL, 10);
}

static double pg_col_real(const struct acc_row *r, int k)
{
    return strtod(PQgetvalue(r->res, r->row, k), NULL);
}

static const char *pg_col_text(const struct acc_row *r, int k)
{
    return PQgetvalue(r->res, r->row, k);
}

static void pg_close(struct store_accounts *a)
{
    PQfinish(APG(a)->c);
    free(a->impl);
    free(a);
}

static const struct acc_backend pg_accounts = {
    .run = pg_run,
    .col_int = pg_col_int,
    .col_real = pg_col_real,
    .col_text = pg_col_text,
    .begin_sql = "BEGIN",
    .read_sql = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    .ratings_lock_sql = "SELECT pg_advisory_xact_lock(" ACC_RATINGS_LOCK_KEY ")",
    .ids_sql = "SELECT setval(pg_get_serial_sequence('accounts', 'id'),"
               " COALESCE((SELECT max(id) FROM accounts), 0) + 1, false),"
               " setval(pg_get_serial_sequence('rating_history', 'id'),"
               " COALESCE((SELECT max(id) FROM rating_history), 0) + 1, false)",
    .postgres = 1,
    .close = pg_close,
};

/* The tables created when missing, or their version checked; with
 * ACC_OPEN_READ only looked for (*absent). 0, or -1 with err. */
static int migrate(PGconn *c, int flags, int *absent, char *err, size_t errlen)
{
    int read = (flags & ACC_OPEN_READ) != 0;
    char why[256];
    int version = 0;
    if (pg__run(c, "BEGIN; SELECT pg_advisory_xact_lock(" ACC_LOCK_KEY ")", why, sizeof why))
        goto fail;
    PGresult *res = pg__query(c, "SELECT to_regclass('accounts_version') IS NOT NULL", 0, NULL);
    int exists = res != NULL && strcmp(PQgetvalue(res, 0, 0), "t") == 0;
    PQclear(res);
    if (res != NULL && exists) {
        res = pg__query(c, "SELECT max(version) FROM accounts_version", 0, NULL);
        if (res != NULL)
            version = atoi(PQgetvalue(res, 0, 0));
        PQclear(res);
    }
    if (res == NULL) {
        pg__msg(c, why, sizeof why);
        goto fail;
    }
    if (version > STORE_ACCOUNTS_SCHEMA) {
        pg__run(c, "ROLLBACK", why, sizeof why);
        snprintf(err, errlen,
                 "the PostgreSQL database has account tables of version %d, newer than this"
                 " carcd knows (%d): run a newer carcd",
                 version, STORE_ACCOUNTS_SCHEMA);
        return -1;
    }
    *absent = read && version == 0;
    if (version == 0 && !read &&
        pg__run(c,
                ACC_SCHEMA_SQL("BIGSERIAL PRIMARY KEY",
                               "DOUBLE PRECISION") "INSERT INTO accounts_version VALUES(6);",
                why, sizeof why) != 0)
        goto fail;
    if (version == 1 && !read && pg__run(c, ACC_V2_SQL, why, sizeof why) != 0)
        goto fail;
    if (version >= 1 && version <= 2 && !read && pg__run(c, ACC_V3_SQL, why, sizeof why) != 0)
        goto fail;
    if (version >= 1 && version <= 3 && !read && pg__run(c, ACC_V4_SQL, why, sizeof why) != 0)
        goto fail;
    if (version >= 1 && version <= 4 && !read && pg__run(c, ACC_V5_SQL, why, sizeof why) != 0)
        goto fail;
    if (version >= 1 && version <= 5 && !read && pg__run(c, ACC_V6_SQL, why, sizeof why) != 0)
        goto fail;
    if (pg__run(c, "COMMIT", why, sizeof why) != 0)
        goto fail;
    if (version == 0 && !read)
        log_info("storage: created the PostgreSQL account tables (version %d)",
                 STORE_ACCOUNTS_SCHEMA);
    if (version >= 1 && version < STORE_ACCOUNTS_SCHEMA && !read)
        log_info("storage: updated the PostgreSQL account tables from version %d to %d"
                 " (rated_games, push_subscriptions, webhooks, account_mail, vacations)",
                 version, STORE_ACCOUNTS_SCHEMA);
    return 0;
fail:
    snprintf(err, errlen, "PostgreSQL: cannot create or check the account tables: %s", why);
    char ignore[64];
    pg__run(c, "ROLLBACK", ignore, sizeof ignore);
    return -1;
}

struct store_accounts *store__accounts_pg_open(struct store *st, int flags, char *err,
                                               size_t errlen)
{
    char why[256];
    int absent = 0;
    PGconn *c = conn_open(PG(st)->url);
    if (PQstatus(c) != CONNECTION_OK) {
        pg__msg(c, why, sizeof why);
        snprintf(err, errlen, "cannot connect to PostgreSQL: %s", why);
        PQfinish(c);
        return NULL;
    }
    if (session_setup(c, why, sizeof why) != 0) {
        snprintf(err, errlen, "PostgreSQL: %s", why);
        PQfinish(c);
        return NULL;
    }
    if (migrate(c, flags, &absent, err, errlen) != 0) {
        PQfinish(c);
        return NULL;
    }
    struct acc_pg *p = mem_zalloc(1, sizeof *p);
    p->c = c;
    struct store_accounts *a = mem_zalloc(1, sizeof *a);
    a->be = &pg_accounts;
    a->impl = p;
    a->absent = absent;
    return a;
}
