/* store/accounts_copy.c: the account tables of one store written into
 * another's (accounts.h "copying between backends"): each table read in key
 * order on a read transaction of the source, each row upserted with its own
 * key on one transaction of the target, through the two handles' backends
 * (accounts_int.h). Called by carcd --import-db / --export-db beside
 * store_copy. */
#include <stdio.h>
#include <string.h>

#include "accounts_int.h"
#include "util/status.h"

/* One table: its columns (", " between them) with their types (one letter
 * each: I integer, R real, T text), its key (the first columns of cols, the
 * order it is read in and what an upsert replaces by), and a statement run on
 * the target with the row's first column before the row is written (NULL:
 * none). */
struct acc_table {
    const char *name, *cols, *types, *key, *before;
    long *count;
};

#define ACC_TABLES 6

static void tables_fill(struct acc_table t[ACC_TABLES], struct store_accounts_counts *n)
{
    /* Accounts first, by id: a name freed by a deletion (its key becomes "#id")
     * is freed before a later account takes it. The sessions of a copied
     * account are the source's alone. */
    t[0] = (struct acc_table){"accounts",
                              "id, name, name_key, hash, created_ms, disabled, deleted",
                              "ITTTIII",
                              "id",
                              "DELETE FROM sessions WHERE account = $1",
                              &n->accounts};
    t[1] = (struct acc_table){"sessions", "digest, account, csrf, created_ms, expires_ms",
                              "TITII",    "digest",
                              NULL,       &n->sessions};
    t[2] =
        (struct acc_table){"invites", "code, created_by, created_ms, expires_ms, used_by, used_ms",
                           "TIIIII",  "code",
                           NULL,      &n->invites};
    t[3] = (struct acc_table){"ratings",
                              "account, pool, rating, deviation, volatility, mu, sigma, display,"
                              " games, updated_ms",
                              "ITRRRRRRII",
                              "account, pool",
                              NULL,
                              &n->ratings};
    t[4] = (struct acc_table){"rating_history",
                              "id, account, pool, game, time_ms, rating, deviation",
                              "IITTIRR",
                              "id",
                              NULL,
                              &n->history};
    t[5] = (struct acc_table){
        "account_games", "game, seat, account, time_ms", "TIII", "game, seat", NULL, &n->games};
}

/* "INSERT INTO t(cols) VALUES($1, ..) ON CONFLICT(key) DO UPDATE SET c =
 * excluded.c, .." (the columns past the key), both backends' syntax. */
static void upsert_sql(const struct acc_table *t, char *sql, size_t size)
{
    size_t ncols = strlen(t->types), nkey = 1;
    for (const char *c = t->key; *c != '\0'; c++)
        nkey += *c == ',';
    int len = snprintf(sql, size, "INSERT INTO %s(%s) VALUES(", t->name, t->cols);
    for (size_t k = 0; k < ncols; k++)
        len += snprintf(sql + len, size - (size_t)len, "%s$%zu", k ? ", " : "", k + 1);
    len += snprintf(sql + len, size - (size_t)len, ") ON CONFLICT(%s) DO UPDATE SET ", t->key);
    const char *c = t->cols;
    for (size_t k = 0; k < ncols; k++) {
        size_t w = strcspn(c, ",");
        if (k >= nkey)
            len += snprintf(sql + len, size - (size_t)len, "%s%.*s = excluded.%.*s",
                            k > nkey ? ", " : "", (int)w, c, (int)w, c);
        c += w;
        c += strspn(c, ", ");
    }
}

struct copy_ctx {
    struct store_accounts *from, *to;
    const struct acc_table *t;
    const char *insert;
    long long bad_id; /* an account whose name the target has under another id */
    int to_failed;    /* the failure was the target's */
};

static int row_copy(void *arg, const struct acc_row *r)
{
    struct copy_ctx *c = arg;
    const struct acc_backend *fb = c->from->be;
    struct acc_val v[ACC_PARAMS_MAX];
    int n = (int)strlen(c->t->types);
    for (int k = 0; k < n; k++)
        v[k] = c->t->types[k] == 'I'   ? AV_I(fb->col_int(r, k))
               : c->t->types[k] == 'R' ? AV_D(fb->col_real(r, k))
                                       : AV_S(fb->col_text(r, k));
    int rc = 0;
    if (c->t->before != NULL)
        rc = c->to->be->run(c->to, c->t->before, 1, v, NULL, NULL, NULL);
    if (rc == 0)
        rc = c->to->be->run(c->to, c->insert, n, v, NULL, NULL, NULL);
    if (rc == STORE_E_EXISTS)
        c->bad_id = v[0].i;
    if (rc != 0) {
        c->to_failed = 1;
        return rc;
    }
    (*c->t->count)++;
    return 0;
}

/* Every table copied inside both transactions. 0, or -1 with err. */
static int tables_copy(struct store_accounts *from, struct store_accounts *to,
                       struct store_accounts_counts *n, char *err, size_t errlen)
{
    struct acc_table t[ACC_TABLES];
    tables_fill(t, n);
    for (int i = 0; i < ACC_TABLES; i++) {
        char select[512], insert[1024];
        snprintf(select, sizeof select, "SELECT %s FROM %s ORDER BY %s", t[i].cols, t[i].name,
                 t[i].key);
        upsert_sql(&t[i], insert, sizeof insert);
        struct copy_ctx c = {from, to, &t[i], insert, 0, 0};
        int rc = from->be->run(from, select, 0, NULL, row_copy, &c, NULL);
        if (rc == 0)
            continue;
        if (rc == STORE_E_EXISTS && i == 0)
            snprintf(err, errlen,
                     "account %lld: its name is another account's in the target database (it"
                     " already has accounts of its own)",
                     c.bad_id);
        else if (rc == STORE_E_EXISTS)
            snprintf(err, errlen, "a row of the %s table is refused by a key of the target",
                     t[i].name);
        else if (c.to_failed)
            snprintf(err, errlen, "cannot write the %s table: %s", t[i].name, to->err);
        else
            snprintf(err, errlen, "cannot read the %s table: %s", t[i].name, from->err);
        return -1;
    }
    /* The copied history's games are rated (a source of version 1 has no
     * rated_games): else the target would rate them again. */
    if (to->be->run(to, ACC_RATED_BACKFILL_SQL, 0, NULL, NULL, NULL, NULL)) {
        snprintf(err, errlen, "cannot mark the copied history's games rated: %s", to->err);
        return -1;
    }
    if (to->be->ids_sql != NULL && to->be->run(to, to->be->ids_sql, 0, NULL, NULL, NULL, NULL)) {
        snprintf(err, errlen, "cannot move the ids past the copied ones: %s", to->err);
        return -1;
    }
    return 0;
}

static struct store_accounts *read_open(struct store *st, char *err, size_t errlen)
{
    if (st == NULL) {
        snprintf(err, errlen, "no storage to copy from");
        return NULL;
    }
    if (strcmp(store_backend_name(st), "postgres") == 0)
        return store__accounts_pg_open(st, ACC_OPEN_READ, err, errlen);
    return store__accounts_sqlite_open(st, ACC_OPEN_READ, err, errlen);
}

int store_accounts_copy(struct store *from, struct store *to, struct store_accounts_counts *n,
                        char *err, size_t errlen)
{
    char why[512];
    memset(n, 0, sizeof *n);
    struct store_accounts *f = read_open(from, why, sizeof why), *t = NULL;
    if (f == NULL) {
        snprintf(err, errlen, "accounts: %s", why);
        return -1;
    }
    t = store_accounts_open(to, why, sizeof why);
    if (t == NULL) {
        snprintf(err, errlen, "accounts: %s", why);
        store_accounts_close(f);
        return -1;
    }
    int rc = 0;
    if (!f->absent) {
        rc = f->be->run(f, f->be->read_sql, 0, NULL, NULL, NULL, NULL);
        if (rc != 0)
            snprintf(why, sizeof why, "cannot start reading: %s", f->err);
        f->in_tx = rc == 0;
        if (rc == 0 && (rc = store_accounts_begin(t)) != 0)
            snprintf(why, sizeof why, "cannot start writing: %s", t->err);
        if (rc == 0) {
            rc = tables_copy(f, t, n, why, sizeof why);
            if (rc != 0)
                store_accounts_rollback(t);
            else if ((rc = store_accounts_commit(t)) != 0)
                snprintf(why, sizeof why, "cannot commit: %s", t->err);
        }
        if (f->in_tx)
            store_accounts_rollback(f); /* read only: nothing to keep */
    }
    store_accounts_close(f);
    store_accounts_close(t);
    if (rc != 0) {
        memset(n, 0, sizeof *n);
        snprintf(err, errlen, "accounts: %s", why);
        return -1;
    }
    return 0;
}
