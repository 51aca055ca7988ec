/* accounts_mail.c: e-mail settings in the accounts service (accounts.h
 * "e-mail settings"), both sides: on the loop, a request whose operation and
 * data are in r->ext; on the pool, the session read again when the
 * operation is a signed-in page's, then the statements of
 * store/accounts_mail.h. An address is personal data and an unsubscribe
 * token a capability: neither is logged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_int.h"
#include "store/accounts_mail.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

enum op { OP_GET, OP_PUT, OP_DELETE, OP_UNSUB, OP_READ };

_Static_assert(ACCOUNTS_MAIL_ADDRESS_MAX == STORE_MAIL_ADDRESS_MAX, "address sizes");
_Static_assert(TOKEN_LEN == STORE_MAIL_UNSUB_LEN, "token sizes");

struct mail_ext {
    int op;
    long long day;
    int n;
    long long ids[ACCOUNTS_MAIL_BATCH];
    struct accounts_mail rows[ACCOUNTS_MAIL_BATCH]; /* OP_PUT: rows[0] is the input */
};

static struct accounts_req *mail_req(struct accounts_req *r, int op)
{
    struct mail_ext *x = mem_zalloc(1, sizeof *x);
    x->op = op;
    r->ext = x;
    return r;
}

static struct accounts_req *session_req(struct accounts *a, const char *token, int op,
                                        accounts_cb cb, void *arg)
{
    struct accounts_req *r =
        accounts__token_req(a, ACCOUNTS__MAIL, token, ACCOUNTS_E_SESSION, cb, arg);
    if (r == NULL)
        return NULL;
    mail_req(r, op);
    return r->where == ACCOUNTS__READY ? r : accounts__queue(r);
}

struct accounts_req *accounts_mail_get(struct accounts *a, const char *token, accounts_cb cb,
                                       void *arg)
{
    return session_req(a, token, OP_GET, cb, arg);
}

struct accounts_req *accounts_mail_put(struct accounts *a, const char *token, const char *address,
                                       int digest, int reminders, accounts_cb cb, void *arg)
{
    struct accounts_req *r =
        accounts__token_req(a, ACCOUNTS__MAIL, token, ACCOUNTS_E_SESSION, cb, arg);
    if (r == NULL)
        return NULL;
    struct mail_ext *x = mail_req(r, OP_PUT)->ext;
    if (r->where == ACCOUNTS__READY)
        return r;
    snprintf(x->rows[0].address, sizeof x->rows[0].address, "%s", address);
    x->rows[0].digest = digest != 0;
    x->rows[0].reminders = reminders != 0;
    token_make(x->rows[0].unsub); /* used only if the account has none yet */
    return accounts__queue(r);
}

struct accounts_req *accounts_mail_delete(struct accounts *a, const char *token, accounts_cb cb,
                                          void *arg)
{
    return session_req(a, token, OP_DELETE, cb, arg);
}

struct accounts_req *accounts_mail_unsubscribe(struct accounts *a, const char *unsub,
                                               accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__MAIL, cb, arg);
    if (r == NULL)
        return NULL;
    struct mail_ext *x = mail_req(r, OP_UNSUB)->ext;
    if (unsub == NULL || !token_valid(unsub))
        return accounts__answer_soon(r, ACCOUNTS_E_UNKNOWN, "no such unsubscribe link");
    snprintf(x->rows[0].unsub, sizeof x->rows[0].unsub, "%s", unsub);
    return accounts__queue(r);
}

struct accounts_req *accounts_mail_read(struct accounts *a, const long long *ids, int n,
                                        long long day, accounts_cb cb, void *arg)
{
    if (n < 0 || n > ACCOUNTS_MAIL_BATCH)
        return NULL;
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__MAIL, cb, arg);
    if (r == NULL)
        return NULL;
    struct mail_ext *x = mail_req(r, OP_READ)->ext;
    x->day = day;
    x->n = n;
    memcpy(x->ids, ids, (size_t)n * sizeof *ids);
    return accounts__queue(r);
}

static void row_copy(struct accounts_mail *out, const struct store_mail *m)
{
    out->account = m->account;
    memcpy(out->address, m->address, sizeof out->address); /* same sizes, NUL-terminated */
    out->digest = m->digest;
    out->reminders = m->reminders;
    memcpy(out->unsub, m->unsub, sizeof out->unsub);
}

/* The accounts of a batch: their rows, and the day's digests claimed. */
static void read_run(struct accounts_req *r, struct store_accounts *h, struct mail_ext *x)
{
    int k = 0;
    for (int i = 0; i < x->n; i++) {
        struct store_mail m;
        int rc = store_mail_get(h, x->ids[i], &m);
        if (rc == STORE_E_NOT_FOUND)
            continue;
        int claimed = 0;
        if (rc == 0 && x->day > 0 && m.digest)
            rc = store_mail_digest_claim(h, m.account, x->day, &claimed);
        if (rc != 0) {
            accounts__storage_failed(r, h, "an account's e-mail settings", rc);
            return;
        }
        row_copy(&x->rows[k], &m);
        x->rows[k++].claimed = claimed;
    }
    r->res.mail = x->rows;
    r->res.nmail = k;
    accounts__set(&r->res, 0);
}

static void unsub_run(struct accounts_req *r, struct store_accounts *h, struct mail_ext *x)
{
    long long account = 0;
    int rc = store_mail_unsubscribe(h, x->rows[0].unsub, &account);
    struct store_mail m;
    if (rc == 0)
        rc = store_mail_get(h, account, &m);
    if (rc == STORE_E_NOT_FOUND || rc == STORE_E_ARGS) {
        accounts__set(&r->res, ACCOUNTS_E_UNKNOWN);
        return;
    }
    if (rc != 0) {
        accounts__storage_failed(r, h, "an unsubscribe", rc);
        return;
    }
    log_info("mail: account %lld unsubscribed by the link of a mail", account);
    row_copy(&x->rows[0], &m);
    r->res.mail = x->rows;
    r->res.nmail = 1;
    accounts__set(&r->res, 0);
}

void accounts__mail_job_run(struct accounts_req *r, struct store_accounts *h)
{
    struct mail_ext *x = r->ext;
    if (x->op == OP_READ) {
        read_run(r, h, x);
        return;
    }
    if (x->op == OP_UNSUB) {
        unsub_run(r, h, x);
        return;
    }
    if (accounts__session_read(r, h) != 0)
        return;
    memset(r->res.csrf, 0, sizeof r->res.csrf); /* not part of these answers */
    int rc;
    if (x->op == OP_PUT) {
        struct accounts_mail *in = &x->rows[0];
        rc = store_mail_put(h, r->res.account, in->address, in->digest, in->reminders, in->unsub,
                            r->now);
    } else if (x->op == OP_DELETE) {
        rc = store_mail_delete(h, r->res.account);
        if (rc == STORE_E_NOT_FOUND) {
            accounts__set(&r->res, ACCOUNTS_E_UNKNOWN);
            return;
        }
    } else {
        struct store_mail m;
        rc = store_mail_get(h, r->res.account, &m);
        memset(&x->rows[0], 0, sizeof x->rows[0]);
        if (rc == 0)
            row_copy(&x->rows[0], &m);
        if (rc == STORE_E_NOT_FOUND)
            rc = 0;
        x->rows[0].account = r->res.account;
        r->res.mail = x->rows;
        r->res.nmail = 1;
    }
    if (rc != 0) {
        accounts__storage_failed(r, h, "an account's e-mail settings", rc);
        return;
    }
    accounts__set(&r->res, 0);
}
