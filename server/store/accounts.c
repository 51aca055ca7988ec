/* store/accounts.c: accounts.h's functions, each a statement or two of SQL
 * that both backends run (accounts_int.h). Blocking; one thread at a time per
 * handle. Nothing here logs: a failure's message is the handle's (err). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_int.h"
#include "util/status.h"

/* ---- helpers ---- */

static int text_ok(const char *s, size_t max)
{
    return s != NULL && s[0] != '\0' && strlen(s) <= max;
}

static void copy(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src != NULL ? src : "");
}

/* A name's key: ASCII lower case (names are ASCII: players/account.h). */
static void name_key(const char *name, char key[STORE_ACCOUNT_NAME_MAX + 1])
{
    size_t i = 0;
    for (; name[i] != '\0' && i < STORE_ACCOUNT_NAME_MAX; i++)
        key[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
    key[i] = '\0';
}

static int run(struct store_accounts *a, const char *sql, int n, const struct acc_val *v,
               acc_row_cb cb, void *arg, long long *changes)
{
    return a->be->run(a, sql, n, v, cb, arg, changes);
}

/* The transaction of one function: opened unless the caller has one (*own
 * says which); closed with its outcome rc, which it returns (or STORE_E_DB
 * when the commit fails). */
static int tx_open(struct store_accounts *a, int *own)
{
    *own = !a->in_tx;
    return *own ? store_accounts_begin(a) : 0;
}

static int tx_close(struct store_accounts *a, int own, int rc)
{
    if (!own)
        return rc;
    if (rc != 0) {
        char keep[sizeof a->err];
        memcpy(keep, a->err, sizeof keep);
        store_accounts_rollback(a);
        memcpy(a->err, keep, sizeof keep); /* the first failure's message */
        return rc;
    }
    return store_accounts_commit(a);
}

/* ---- the handle ---- */

struct store_accounts *store_accounts_open(struct store *st, char *err, size_t errlen)
{
    if (st == NULL) {
        snprintf(err, errlen, "accounts need storage (storage = sqlite or postgres)");
        return NULL;
    }
    if (strcmp(store_backend_name(st), "postgres") == 0)
        return store__accounts_pg_open(st, 0, err, errlen);
    return store__accounts_sqlite_open(st, 0, err, errlen);
}

void store_accounts_close(struct store_accounts *a)
{
    if (a != NULL)
        a->be->close(a);
}

const char *store_accounts_error(const struct store_accounts *a)
{
    return a->err;
}

int store_accounts_begin(struct store_accounts *a)
{
    int rc = run(a, a->be->begin_sql, 0, NULL, NULL, NULL, NULL);
    a->in_tx = rc == 0;
    return rc;
}

int store_accounts_commit(struct store_accounts *a)
{
    int rc = run(a, "COMMIT", 0, NULL, NULL, NULL, NULL);
    if (rc != 0) /* SQLite keeps a transaction whose commit failed open */
        run(a, "ROLLBACK", 0, NULL, NULL, NULL, NULL);
    a->in_tx = 0;
    return rc != 0 ? STORE_E_DB : 0;
}

int store_accounts_rollback(struct store_accounts *a)
{
    int rc = run(a, "ROLLBACK", 0, NULL, NULL, NULL, NULL);
    a->in_tx = 0;
    return rc != 0 ? STORE_E_DB : 0;
}

/* ---- accounts ---- */

#define ACCOUNT_COLS "id, name, hash, created_ms, disabled, deleted"

static void account_read(struct store_accounts *a, const struct acc_row *r,
                         struct store_account *out)
{
    out->id = a->be->col_int(r, 0);
    copy(out->name, sizeof out->name, a->be->col_text(r, 1));
    copy(out->hash, sizeof out->hash, a->be->col_text(r, 2));
    out->created_ms = a->be->col_int(r, 3);
    out->disabled = (int)a->be->col_int(r, 4);
    out->deleted = (int)a->be->col_int(r, 5);
}

struct account_rows {
    struct store_accounts *a;
    struct store_account *out;
    int n, max;
};

static int account_row(void *arg, const struct acc_row *r)
{
    struct account_rows *ar = arg;
    if (ar->n < ar->max)
        account_read(ar->a, r, &ar->out[ar->n++]);
    return 0;
}

/* Statements whose one row of one integer column we want. */
struct one_int {
    long long v;
    int found;
    struct store_accounts *a;
};

static int one_int_row(void *arg, const struct acc_row *r)
{
    struct one_int *o = arg;
    o->v = o->a->be->col_int(r, 0);
    o->found = 1;
    return 0;
}

/* code used by account if it may be; why not otherwise. */
static int invite_take(struct store_accounts *a, const char *code, long long account,
                       long long now_ms)
{
    struct acc_val v[] = {AV_S(code), AV_I(account), AV_I(now_ms)};
    long long changed = 0;
    int rc = run(a,
                 "UPDATE invites SET used_by = $2, used_ms = $3"
                 " WHERE code = $1 AND used_by = 0 AND expires_ms > $3",
                 3, v, NULL, NULL, &changed);
    if (rc != 0 || changed == 1)
        return rc;
    struct one_int used = {.a = a};
    rc = run(a, "SELECT used_by FROM invites WHERE code = $1", 1, v, one_int_row, &used, NULL);
    if (rc != 0)
        return rc;
    if (!used.found)
        return STORE_E_NOT_FOUND;
    return used.v != 0 ? STORE_E_USED : STORE_E_EXPIRED;
}

int store_account_create(struct store_accounts *a, const char *name, const char *hash,
                         long long now_ms, const char *invite, long long *id)
{
    if (!text_ok(name, STORE_ACCOUNT_NAME_MAX) || hash == NULL ||
        strlen(hash) > STORE_ACCOUNT_HASH_MAX ||
        (invite != NULL && !text_ok(invite, STORE_INVITE_MAX)))
        return STORE_E_ARGS;
    char key[STORE_ACCOUNT_NAME_MAX + 1];
    name_key(name, key);
    int own, rc = tx_open(a, &own);
    if (rc != 0)
        return rc;
    struct acc_val v[] = {AV_S(name), AV_S(key), AV_S(hash), AV_I(now_ms)};
    struct one_int got = {.a = a};
    rc = run(a,
             "INSERT INTO accounts(name, name_key, hash, created_ms) VALUES($1, $2, $3, $4)"
             " RETURNING id",
             4, v, one_int_row, &got, NULL);
    if (rc == 0 && !got.found) {
        snprintf(a->err, sizeof a->err, "the new account's id was not returned");
        rc = STORE_E_DB;
    }
    if (rc == 0 && invite != NULL)
        rc = invite_take(a, invite, got.v, now_ms);
    rc = tx_close(a, own, rc);
    if (rc == 0)
        *id = got.v;
    return rc;
}

static int account_one(struct store_accounts *a, const char *sql, struct acc_val v,
                       struct store_account *out)
{
    struct account_rows ar = {.a = a, .out = out, .max = 1};
    int rc = run(a, sql, 1, &v, account_row, &ar, NULL);
    return rc != 0 ? rc : ar.n == 1 ? 0 : STORE_E_NOT_FOUND;
}

int store_account_find(struct store_accounts *a, const char *name, struct store_account *out)
{
    if (!text_ok(name, STORE_ACCOUNT_NAME_MAX))
        return STORE_E_ARGS;
    char key[STORE_ACCOUNT_NAME_MAX + 1];
    name_key(name, key);
    return account_one(a, "SELECT " ACCOUNT_COLS " FROM accounts WHERE name_key = $1", AV_S(key),
                       out);
}

int store_account_get(struct store_accounts *a, long long id, struct store_account *out)
{
    if (id <= 0)
        return STORE_E_ARGS;
    return account_one(a, "SELECT " ACCOUNT_COLS " FROM accounts WHERE id = $1", AV_I(id), out);
}

/* sql changes the row of id ($1) with one more parameter $2; NOT_FOUND when none. */
static int account_update(struct store_accounts *a, const char *sql, long long id, struct acc_val p)
{
    if (id <= 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(id), p};
    long long changed = 0;
    int rc = run(a, sql, 2, v, NULL, NULL, &changed);
    return rc != 0 ? rc : changed == 1 ? 0 : STORE_E_NOT_FOUND;
}

int store_account_hash_set(struct store_accounts *a, long long id, const char *hash)
{
    if (hash == NULL || strlen(hash) > STORE_ACCOUNT_HASH_MAX)
        return STORE_E_ARGS;
    return account_update(a, "UPDATE accounts SET hash = $2 WHERE id = $1 AND deleted = 0", id,
                          AV_S(hash));
}

int store_account_disabled_set(struct store_accounts *a, long long id, int disabled)
{
    return account_update(a, "UPDATE accounts SET disabled = $2 WHERE id = $1", id,
                          AV_I(disabled != 0));
}

int store_account_delete(struct store_accounts *a, long long id)
{
    if (id <= 0)
        return STORE_E_ARGS;
    int own, rc = tx_open(a, &own);
    if (rc != 0)
        return rc;
    /* '#' is in no name (players/account.h), so the key is nobody's. */
    rc = account_update(a,
                        "UPDATE accounts SET deleted = 1, hash = '', name = $2,"
                        " name_key = '#' || CAST(id AS TEXT) WHERE id = $1",
                        id, AV_S(STORE_DELETED_NAME));
    if (rc == 0)
        rc = store_session_delete_all(a, id, NULL);
    /* An address is personal data: it goes with the account (accounts_mail.h). */
    if (rc == 0)
        rc = a->be->run(a, "DELETE FROM account_mail WHERE account = $1", 1, &AV_I(id), NULL, NULL,
                        NULL);
    return tx_close(a, own, rc);
}

int store_account_list(struct store_accounts *a, int offset, int max, struct store_account *out,
                       int *n)
{
    *n = 0;
    if (offset < 0 || max < 0)
        return STORE_E_ARGS;
    struct account_rows ar = {.a = a, .out = out, .max = max};
    struct acc_val v[] = {AV_I(max), AV_I(offset)};
    int rc = run(a, "SELECT " ACCOUNT_COLS " FROM accounts ORDER BY id LIMIT $1 OFFSET $2", 2, v,
                 account_row, &ar, NULL);
    *n = ar.n;
    return rc;
}

/* ---- sessions ---- */

static int session_row(void *arg, const struct acc_row *r)
{
    struct store_accounts *a = ((void **)arg)[0];
    struct store_session *out = ((void **)arg)[1];
    out->account = a->be->col_int(r, 0);
    copy(out->name, sizeof out->name, a->be->col_text(r, 1));
    copy(out->csrf, sizeof out->csrf, a->be->col_text(r, 2));
    out->created_ms = a->be->col_int(r, 3);
    out->expires_ms = a->be->col_int(r, 4);
    ((void **)arg)[2] = out; /* found */
    return 0;
}

static int digest_ok(const char *digest)
{
    return digest != NULL && strlen(digest) == STORE_SESSION_DIGEST_LEN;
}

int store_session_create(struct store_accounts *a, const char *digest, long long account,
                         const char *csrf, long long now_ms, long long expires_ms)
{
    if (!digest_ok(digest) || csrf == NULL || strlen(csrf) != STORE_SESSION_CSRF_LEN ||
        account <= 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_S(digest), AV_I(account), AV_S(csrf), AV_I(now_ms), AV_I(expires_ms)};
    return run(a,
               "INSERT INTO sessions(digest, account, csrf, created_ms, expires_ms)"
               " VALUES($1, $2, $3, $4, $5)",
               5, v, NULL, NULL, NULL);
}

int store_session_get(struct store_accounts *a, const char *digest, long long now_ms,
                      struct store_session *out)
{
    if (!digest_ok(digest))
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_S(digest), AV_I(now_ms)};
    void *arg[3] = {a, out, NULL};
    int rc = run(a,
                 "SELECT s.account, a.name, s.csrf, s.created_ms, s.expires_ms FROM sessions s"
                 " JOIN accounts a ON a.id = s.account WHERE s.digest = $1"
                 " AND s.expires_ms > $2 AND a.disabled = 0 AND a.deleted = 0",
                 2, v, session_row, arg, NULL);
    return rc != 0 ? rc : arg[2] != NULL ? 0 : STORE_E_NOT_FOUND;
}

int store_session_delete(struct store_accounts *a, const char *digest)
{
    if (!digest_ok(digest))
        return STORE_E_ARGS;
    struct acc_val v = AV_S(digest);
    long long changed = 0;
    int rc = run(a, "DELETE FROM sessions WHERE digest = $1", 1, &v, NULL, NULL, &changed);
    return rc != 0 ? rc : changed > 0 ? 0 : STORE_E_NOT_FOUND;
}

static int delete_count(struct store_accounts *a, const char *sql, long long p, long *count)
{
    struct acc_val v = AV_I(p);
    long long changed = 0;
    int rc = run(a, sql, 1, &v, NULL, NULL, &changed);
    if (count != NULL)
        *count = rc == 0 ? (long)changed : 0;
    return rc;
}

int store_session_delete_all(struct store_accounts *a, long long account, long *count)
{
    if (account <= 0)
        return STORE_E_ARGS;
    return delete_count(a, "DELETE FROM sessions WHERE account = $1", account, count);
}

int store_session_delete_others(struct store_accounts *a, long long account, const char *keep,
                                long *count)
{
    if (count != NULL)
        *count = 0;
    if (account <= 0 || !digest_ok(keep))
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account), AV_S(keep)};
    long long changed = 0;
    int rc = run(a, "DELETE FROM sessions WHERE account = $1 AND digest <> $2", 2, v, NULL, NULL,
                 &changed);
    if (count != NULL && rc == 0)
        *count = (long)changed;
    return rc;
}

int store_session_expire(struct store_accounts *a, long long now_ms, long *count)
{
    return delete_count(a, "DELETE FROM sessions WHERE expires_ms <= $1", now_ms, count);
}

/* ---- invites ---- */

int store_invite_create(struct store_accounts *a, const char *code, long long created_by,
                        long long now_ms, long long expires_ms)
{
    if (!text_ok(code, STORE_INVITE_MAX) || created_by < 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_S(code), AV_I(created_by), AV_I(now_ms), AV_I(expires_ms)};
    return run(a,
               "INSERT INTO invites(code, created_by, created_ms, expires_ms)"
               " VALUES($1, $2, $3, $4)",
               4, v, NULL, NULL, NULL);
}

int store_invite_use(struct store_accounts *a, const char *code, long long account,
                     long long now_ms)
{
    if (!text_ok(code, STORE_INVITE_MAX) || account <= 0)
        return STORE_E_ARGS;
    return invite_take(a, code, account, now_ms);
}

int store_invite_count(struct store_accounts *a, long long created_by, long long now_ms,
                       long *count)
{
    *count = 0;
    if (created_by < 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(created_by), AV_I(now_ms)};
    struct one_int n = {.a = a};
    /* In a transaction, the maker's row is locked first: a count and an
     * insert of the same account elsewhere wait for this transaction. */
    int rc = 0;
    if (a->in_tx && created_by > 0)
        rc =
            run(a, "UPDATE accounts SET disabled = disabled WHERE id = $1", 1, v, NULL, NULL, NULL);
    if (rc == 0)
        rc = run(a,
                 "SELECT COUNT(*) FROM invites WHERE created_by = $1 AND used_by = 0"
                 " AND expires_ms > $2",
                 2, v, one_int_row, &n, NULL);
    if (rc == 0)
        *count = (long)n.v;
    return rc;
}
