/* accounts_job.c: the accounts service's work on the thread pool
 * (accounts_int.h): hashing, verifying and the statements of one request on
 * the database handle it holds while it runs. Nothing here touches the loop's
 * state; a storage failure is logged with the database's message, never with
 * a password, token, digest or CSRF token. */
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "accounts_int.h"
#include "util/log.h"
#include "util/status.h"

#define DAY_MS 86400000LL

void accounts__set(struct accounts_result *res, int status)
{
    res->status = status;
    res->message = srv_status_str(status);
}

void accounts__storage_failed(struct accounts_req *r, struct store_accounts *h, const char *what,
                              int rc)
{
    log_event(LOG_WARN, NULL, "accounts: %s failed: %s (%s)", what, srv_status_name(rc),
              store_accounts_error(h));
    accounts__set(&r->res, ACCOUNTS_E_STORAGE);
}

/* The password in r (wiped here, once it has been used). */
static int verify(struct accounts_req *r, const char *hash)
{
    int ok = account_verify(hash, r->pw, r->pw_len);
    sodium_memzero(r->pw, sizeof r->pw);
    return ok;
}

int accounts__hash_new(struct accounts_req *r, char out[ACCOUNT_HASH_SIZE], const char *pw,
                       size_t len)
{
    if (account_hash(out, pw, len, r->a->cfg.hash_ops, r->a->cfg.hash_mem) == 0)
        return 0;
    log_event(LOG_WARN, NULL, "accounts: a password could not be hashed (out of memory?)");
    accounts__set(&r->res, ACCOUNTS_E_STORAGE);
    return -1;
}

/* A new session of r->res.account: its token, CSRF token and expiry in r->res. */
static void session_new(struct accounts_req *r, struct store_accounts *h)
{
    char digest[TOKEN_DIGEST_LEN + 1];
    long long expires = r->now + (long long)r->a->cfg.session_days * DAY_MS;
    int rc = STORE_E_EXISTS;
    for (int i = 0; i < 2 && rc == STORE_E_EXISTS; i++) { /* a digest twice: never, in practice */
        token_make(r->res.session);
        token_make(r->res.csrf);
        token_digest(r->res.session, digest);
        rc = store_session_create(h, digest, r->res.account, r->res.csrf, r->now, expires);
    }
    sodium_memzero(digest, sizeof digest);
    if (rc != 0) {
        sodium_memzero(r->res.session, sizeof r->res.session);
        sodium_memzero(r->res.csrf, sizeof r->res.csrf);
        accounts__storage_failed(r, h, "a new session", rc);
        return;
    }
    r->res.expires_ms = expires;
    accounts__set(&r->res, 0);
}

static void signup(struct accounts_req *r, struct store_accounts *h)
{
    char hash[ACCOUNT_HASH_SIZE];
    int hashed = accounts__hash_new(r, hash, r->pw, r->pw_len);
    sodium_memzero(r->pw, sizeof r->pw);
    if (hashed != 0)
        return;
    long long id = 0;
    int rc = store_account_create(h, r->name, hash, r->now, r->invite[0] ? r->invite : NULL, &id);
    if (rc == STORE_E_EXISTS) {
        accounts__set(&r->res, ACCOUNTS_E_TAKEN);
        return;
    }
    if (rc == STORE_E_NOT_FOUND || rc == STORE_E_USED || rc == STORE_E_EXPIRED) {
        accounts__set(&r->res, ACCOUNTS_E_INVITE);
        return;
    }
    if (rc != 0) {
        accounts__storage_failed(r, h, "sign-up", rc);
        return;
    }
    r->res.account = id;
    snprintf(r->res.name, sizeof r->res.name, "%s", r->name);
    r->res.created_ms = r->now;
    session_new(r, h);
}

/* A sign-in: a name that is nobody's (or a disabled account's) costs the same
 * hash check as a known one, against a->dummy. */
static void signin(struct accounts_req *r, struct store_accounts *h)
{
    struct store_account acc;
    memset(&acc, 0, sizeof acc);
    int rc = r->bad ? STORE_E_NOT_FOUND : store_account_find(h, r->name, &acc);
    if (rc != 0 && rc != STORE_E_NOT_FOUND) {
        sodium_memzero(r->pw, sizeof r->pw);
        accounts__storage_failed(r, h, "sign-in", rc);
        return;
    }
    int usable = rc == 0 && !acc.disabled && !acc.deleted && !r->bad;
    char fresh[ACCOUNT_HASH_SIZE];
    int stale = usable && account_hash_stale(acc.hash, r->a->cfg.hash_ops, r->a->cfg.hash_mem);
    int ok = account_verify(usable ? acc.hash : r->a->dummy, r->pw, r->pw_len) && usable;
    int rehash = ok && stale && accounts__hash_new(r, fresh, r->pw, r->pw_len) == 0;
    sodium_memzero(r->pw, sizeof r->pw);
    if (!ok) {
        accounts__set(&r->res, ACCOUNTS_E_CREDENTIALS);
        return;
    }
    if (rehash && (rc = store_account_hash_set(h, acc.id, fresh)) != 0)
        log_event(LOG_WARN, NULL, "accounts: a stale hash could not be replaced: %s (%s)",
                  srv_status_name(rc), store_accounts_error(h)); /* the old one still works */
    r->res.account = acc.id;
    snprintf(r->res.name, sizeof r->res.name, "%s", acc.name);
    r->res.created_ms = acc.created_ms;
    session_new(r, h);
}

/* The session of r->digest into r->res: 0, or the status set. */
int accounts__session_read(struct accounts_req *r, struct store_accounts *h)
{
    struct store_session s;
    int rc = store_session_get(h, r->digest, r->now, &s);
    if (rc == STORE_E_NOT_FOUND) {
        accounts__set(&r->res, ACCOUNTS_E_SESSION);
        return -1;
    }
    if (rc != 0) {
        accounts__storage_failed(r, h, "a session's lookup", rc);
        return -1;
    }
    if (r->phase == 1 && s.account != r->res.account) { /* cannot be: digests are unique */
        accounts__set(&r->res, ACCOUNTS_E_SESSION);
        return -1;
    }
    r->res.account = s.account;
    snprintf(r->res.name, sizeof r->res.name, "%s", s.name);
    snprintf(r->res.csrf, sizeof r->res.csrf, "%s", s.csrf);
    r->res.expires_ms = s.expires_ms;
    sodium_memzero(&s, sizeof s);
    accounts__set(&r->res, 0);
    return 0;
}

static void signout(struct accounts_req *r, struct store_accounts *h)
{
    int rc = store_session_delete(h, r->digest);
    if (rc != 0 && rc != STORE_E_NOT_FOUND) {
        accounts__storage_failed(r, h, "sign-out", rc);
        return;
    }
    accounts__set(&r->res, 0);
}

/* Phase 1 of a password change or a deletion: the session again (it may have
 * ended since phase 0), the account's hash, the password checked; 0 when it
 * matches, else the status set and the password wiped. */
static int recheck(struct accounts_req *r, struct store_accounts *h, struct store_account *acc)
{
    int rc = accounts__session_read(r, h);
    if (rc == 0 && (rc = store_account_get(h, r->res.account, acc)) != 0) {
        if (rc == STORE_E_NOT_FOUND)
            accounts__set(&r->res, ACCOUNTS_E_SESSION);
        else
            accounts__storage_failed(r, h, "an account's lookup", rc);
    }
    if (rc != 0) {
        sodium_memzero(r->pw, sizeof r->pw);
        return -1;
    }
    if (!verify(r, r->bad ? r->a->dummy : acc->hash) || r->bad) {
        accounts__set(&r->res, ACCOUNTS_E_CREDENTIALS);
        return -1;
    }
    return 0;
}

static void password(struct accounts_req *r, struct store_accounts *h)
{
    struct store_account acc;
    char hash[ACCOUNT_HASH_SIZE];
    int ok = recheck(r, h, &acc) == 0 && accounts__hash_new(r, hash, r->pw2, r->pw2_len) == 0;
    sodium_memzero(r->pw2, sizeof r->pw2);
    sodium_memzero(acc.hash, sizeof acc.hash);
    if (!ok)
        return;
    long n = 0;
    int rc = store_accounts_begin(h);
    if (rc == 0)
        rc = store_account_hash_set(h, acc.id, hash);
    if (rc == 0)
        rc = store_session_delete_others(h, acc.id, r->digest, &n);
    if (rc == 0)
        rc = store_accounts_commit(h);
    if (rc != 0) {
        accounts__storage_failed(r, h, "a password change", rc);
        store_accounts_rollback(h);
        return;
    }
    accounts__set(&r->res, 0);
}

static void delete (struct accounts_req *r, struct store_accounts *h)
{
    struct store_account acc;
    if (recheck(r, h, &acc) != 0)
        return;
    sodium_memzero(acc.hash, sizeof acc.hash);
    int rc = store_account_delete(h, acc.id);
    if (rc != 0) {
        accounts__storage_failed(r, h, "an account's deletion", rc);
        return;
    }
    accounts__set(&r->res, 0);
    memset(r->res.csrf, 0, sizeof r->res.csrf); /* the session is gone with it */
    r->res.expires_ms = 0;
}

void accounts__job_run(struct accounts_req *r, struct store_accounts *h)
{
    switch (r->kind) {
    case ACCOUNTS__SIGNUP:
        signup(r, h);
        break;
    case ACCOUNTS__SIGNIN:
        signin(r, h);
        break;
    case ACCOUNTS__SESSION:
        accounts__session_read(r, h);
        break;
    case ACCOUNTS__SIGNOUT:
        signout(r, h);
        break;
    case ACCOUNTS__PASSWORD:
        if (r->phase == 0)
            accounts__session_read(r, h);
        else
            password(r, h);
        break;
    case ACCOUNTS__DELETE:
        if (r->phase == 0)
            accounts__session_read(r, h);
        else
            delete (r, h);
        break;
    default:
        accounts__admin_job_run(r, h);
        break;
    }
}
