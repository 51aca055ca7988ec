/* accounts_admin.c: the admin's requests of the accounts service (a list of
 * accounts, disable and enable, a password reset) and invites, the admin's
 * and a member's (accounts.h). Both sides are here: the calls on the loop
 * (over accounts.c's requests, accounts_int.h) and the jobs on the thread
 * pool (called from accounts_job.c).
 *
 * Secrets: a reset's password and an invite's code are made here, on the
 * pool, handed to the callback in the result and wiped with the request;
 * neither is ever logged (log lines name the account, never the password or
 * the code). */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_int.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

#define DAY_MS 86400000LL

/* The characters of a reset's password: no 0 O o, 1 I l i (55 of them, so 16
 * characters are about 92 bits). */
static const char alphabet[] = "23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ";

/* ---- the loop's side ---- */

struct accounts_req *accounts_list(struct accounts *a, int offset, int max, accounts_cb cb,
                                   void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__LIST, cb, arg);
    if (r == NULL)
        return NULL;
    r->offset = offset > 0 ? offset : 0;
    r->max = max < 0 ? 0 : max > ACCOUNTS_LIST_MAX ? ACCOUNTS_LIST_MAX : max;
    return accounts__queue(r);
}

/* A request about the account named name (flag: a disable's): answered
 * ACCOUNTS_E_UNKNOWN soon when it is no name at all. */
static struct accounts_req *named_req(struct accounts *a, int kind, const char *name, int flag,
                                      accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__req_new(a, kind, cb, arg);
    if (r == NULL)
        return NULL;
    r->flag = flag;
    if (name == NULL || accounts__name_key(name, r->key) != 0)
        return accounts__answer_soon(r, ACCOUNTS_E_UNKNOWN, NULL);
    snprintf(r->name, sizeof r->name, "%s", name);
    return accounts__queue(r);
}

struct accounts_req *accounts_disable(struct accounts *a, const char *name, int disabled,
                                      accounts_cb cb, void *arg)
{
    return named_req(a, ACCOUNTS__DISABLE, name, disabled != 0, cb, arg);
}

struct accounts_req *accounts_reset(struct accounts *a, const char *name, accounts_cb cb, void *arg)
{
    return named_req(a, ACCOUNTS__RESET, name, 0, cb, arg);
}

struct accounts_req *accounts_invite_admin(struct accounts *a, accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__INVITE, cb, arg);
    return r == NULL ? NULL : accounts__queue(r);
}

struct accounts_req *accounts_invite_member(struct accounts *a, const char *token, accounts_cb cb,
                                            void *arg)
{
    struct accounts_req *r =
        accounts__token_req(a, ACCOUNTS__INVITE, token, ACCOUNTS_E_SESSION, cb, arg);
    if (r == NULL || r->where == ACCOUNTS__READY)
        return r;
    if (!a->cfg.member_invites)
        return accounts__answer_soon(r, ACCOUNTS_E_INVITES_OFF, NULL);
    return accounts__queue(r);
}

/* ---- the pool's side ---- */

static void list(struct accounts_req *r, struct store_accounts *h)
{
    struct store_account *rows = mem_zalloc(r->max > 0 ? (size_t)r->max : 1, sizeof *rows);
    int n = 0;
    int rc = store_account_list(h, r->offset, r->max, rows, &n);
    if (rc == 0 && n > 0) {
        r->list = mem_zalloc((size_t)n, sizeof *r->list);
        for (int i = 0; i < n; i++) {
            struct accounts_entry *e = &r->list[i];
            e->id = rows[i].id;
            snprintf(e->name, sizeof e->name, "%s", rows[i].name);
            e->created_ms = rows[i].created_ms;
            e->disabled = rows[i].disabled;
            e->deleted = rows[i].deleted;
        }
    }
    sodium_memzero(rows, (r->max > 0 ? (size_t)r->max : 1) * sizeof *rows); /* the hashes */
    free(rows);
    if (rc != 0) {
        accounts__storage_failed(r, h, "the list of accounts", rc);
        return;
    }
    r->res.list = r->list;
    r->res.nlist = n;
    accounts__set(&r->res, 0);
}

/* The account named r->name into acc (its hash wiped): 0, or -1 with the
 * status set (ACCOUNTS_E_UNKNOWN for nobody's). */
static int named(struct accounts_req *r, struct store_accounts *h, struct store_account *acc)
{
    int rc = store_account_find(h, r->name, acc);
    sodium_memzero(acc->hash, sizeof acc->hash);
    if (rc == STORE_E_NOT_FOUND || (rc == 0 && acc->deleted)) {
        accounts__set(&r->res, ACCOUNTS_E_UNKNOWN);
        return -1;
    }
    if (rc != 0) {
        accounts__storage_failed(r, h, "an account's lookup", rc);
        return -1;
    }
    r->res.account = acc->id;
    snprintf(r->res.name, sizeof r->res.name, "%s", acc->name);
    r->res.created_ms = acc->created_ms;
    return 0;
}

static void disable(struct accounts_req *r, struct store_accounts *h)
{
    struct store_account acc;
    if (named(r, h, &acc) != 0)
        return;
    long ended = 0;
    int rc = store_accounts_begin(h);
    if (rc == 0)
        rc = store_account_disabled_set(h, acc.id, r->flag);
    if (rc == 0 && r->flag)
        rc = store_session_delete_all(h, acc.id, &ended);
    if (rc == 0)
        rc = store_accounts_commit(h);
    if (rc != 0) {
        accounts__storage_failed(r, h, r->flag ? "disabling an account" : "enabling an account",
                                 rc);
        store_accounts_rollback(h);
        return;
    }
    log_event(LOG_INFO, NULL, "accounts: %s %s (%ld sessions ended)", acc.name,
              r->flag ? "disabled" : "enabled", ended);
    r->res.disabled = r->flag;
    accounts__set(&r->res, 0);
}

/* A new password for name in out: ACCOUNTS_RESET_LEN characters of the
 * alphabet, drawn without bias, that the password rule takes. */
static void password_make(const char *name, char out[ACCOUNTS_RESET_LEN + 1])
{
    do {
        for (int i = 0; i < ACCOUNTS_RESET_LEN; i++)
            out[i] = alphabet[randombytes_uniform((uint32_t)(sizeof alphabet - 1))];
        out[ACCOUNTS_RESET_LEN] = '\0';
    } while (account_password_check(name, out, ACCOUNTS_RESET_LEN) != ACCOUNT_OK);
}

static void reset(struct accounts_req *r, struct store_accounts *h)
{
    struct store_account acc;
    char hash[ACCOUNT_HASH_SIZE];
    if (named(r, h, &acc) != 0)
        return;
    password_make(acc.name, r->res.password);
    int rc = accounts__hash_new(r, hash, r->res.password, ACCOUNTS_RESET_LEN);
    long ended = 0;
    if (rc == 0) {
        rc = store_accounts_begin(h);
        if (rc == 0)
            rc = store_account_hash_set(h, acc.id, hash);
        if (rc == 0)
            rc = store_session_delete_all(h, acc.id, &ended);
        if (rc == 0)
            rc = store_accounts_commit(h);
        if (rc != 0) {
            accounts__storage_failed(r, h, "a password reset", rc);
            store_accounts_rollback(h);
        }
    }
    sodium_memzero(hash, sizeof hash);
    if (rc != 0) {
        sodium_memzero(r->res.password, sizeof r->res.password);
        return;
    }
    log_event(LOG_INFO, NULL, "accounts: the password of %s was reset (%ld sessions ended)",
              acc.name, ended);
    accounts__set(&r->res, 0);
}

/* A new invite made by `by` (0: the admin), in r->res: 0, or the store's status. */
static int invite_new(struct accounts_req *r, struct store_accounts *h, long long by)
{
    unsigned char raw[16];
    long long expires = r->now + (long long)r->a->cfg.invite_days * DAY_MS;
    int rc = STORE_E_EXISTS;
    for (int i = 0; i < 2 && rc == STORE_E_EXISTS; i++) { /* a code twice: never, in practice */
        randombytes_buf(raw, sizeof raw);
        sodium_bin2base64(r->res.invite, sizeof r->res.invite, raw, sizeof raw,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING);
        rc = store_invite_create(h, r->res.invite, by, r->now, expires);
    }
    sodium_memzero(raw, sizeof raw);
    if (rc == 0)
        r->res.expires_ms = expires;
    return rc;
}

static void invite(struct accounts_req *r, struct store_accounts *h)
{
    long long by = 0;
    if (r->digest[0] != '\0') { /* a member's: the session again, counted, made */
        if (accounts__session_read(r, h) != 0)
            return;
        by = r->res.account;
        r->res.expires_ms = 0;
        memset(r->res.csrf, 0, sizeof r->res.csrf);
    }
    long n = 0;
    int rc = store_accounts_begin(h);
    if (rc == 0 && by > 0)
        rc = store_invite_count(h, by, r->now, &n);
    if (rc == 0 && n >= r->a->cfg.invites_per_member) {
        store_accounts_rollback(h);
        accounts__set(&r->res, ACCOUNTS_E_INVITES_MAX);
        return;
    }
    if (rc == 0)
        rc = invite_new(r, h, by);
    if (rc == 0)
        rc = store_accounts_commit(h);
    if (rc != 0) {
        sodium_memzero(r->res.invite, sizeof r->res.invite);
        r->res.expires_ms = 0;
        accounts__storage_failed(r, h, "a new invite", rc);
        store_accounts_rollback(h);
        return;
    }
    if (by > 0)
        log_event(LOG_INFO, NULL, "accounts: %s made an invite (%ld unused before)", r->res.name,
                  n);
    accounts__set(&r->res, 0);
}

/* ---- the games of an account ---- */

static void link_done(void *arg, const struct accounts_result *res)
{
    (void)arg;
    if (res->status != 0)
        log_event(LOG_WARN, NULL, "accounts: a game of account %lld was not recorded: %s",
                  res->account, srv_status_name(res->status));
}

int accounts_game_link(struct accounts *a, const char *room, int seat, long long account,
                       long long time_ms)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__GAME, link_done, NULL);
    if (r == NULL) {
        log_event(LOG_WARN, NULL,
                  "accounts: a game of account %lld was not recorded: the queue is full", account);
        return -1;
    }
    snprintf(r->game, sizeof r->game, "%s", room);
    r->seat = seat;
    r->account = account;
    r->time_ms = time_ms;
    accounts__queue(r);
    return 0;
}

static void game_link(struct accounts_req *r, struct store_accounts *h)
{
    r->res.account = r->account;
    int rc = store_account_game_add(h, r->game, r->seat, r->account, r->time_ms);
    if (rc != 0) {
        accounts__storage_failed(r, h, "a game's link to its account", rc);
        return;
    }
    accounts__set(&r->res, 0);
}

void accounts__admin_job_run(struct accounts_req *r, struct store_accounts *h)
{
    switch (r->kind) {
    case ACCOUNTS__LIST:
        list(r, h);
        break;
    case ACCOUNTS__DISABLE:
        disable(r, h);
        break;
    case ACCOUNTS__RESET:
        reset(r, h);
        break;
    case ACCOUNTS__INVITE:
        invite(r, h);
        break;
    case ACCOUNTS__GAME:
        game_link(r, h);
        break;
    case ACCOUNTS__RATE:
    case ACCOUNTS__PLAYER:
    case ACCOUNTS__LADDER:
        accounts__ratings_job_run(r, h);
        break;
    case ACCOUNTS__GAMES:
        accounts__games_job_run(r, h);
        break;
    case ACCOUNTS__STATS:
        accounts__stats_job_run(r, h);
        break;
    case ACCOUNTS__CLAIM:
        accounts__claim_job_run(r, h);
        break;
    case ACCOUNTS__PUSH:
        accounts__push_job_run(r, h);
        break;
    case ACCOUNTS__MAIL:
        accounts__mail_job_run(r, h);
        break;
    case ACCOUNTS__VACATION:
        accounts__vacation_job_run(r, h);
        break;
    default:
        accounts__set(&r->res, ACCOUNTS_E_STORAGE);
        break;
    }
}
