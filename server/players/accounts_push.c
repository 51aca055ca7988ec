/* accounts_push.c: Web Push subscriptions in the accounts service
 * (accounts.h "Web Push subscriptions"), both sides: on the loop, a request
 * whose operation and data are in r->ext; on the pool, the session read
 * again when the operation is a signed-in page's, then one statement of
 * store/accounts_push.h. A subscription's endpoint is a capability of its
 * own (whoever knows it can push): it is logged by its host only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_int.h"
#include "store/accounts_push.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

enum op {
    OP_PUT,
    OP_DELETE,
    OP_LIST,
    OP_OUTCOME,
    OP_HOOK_PUT,
    OP_HOOK_GET,
    OP_HOOK_DELETE,
    OP_HOOK_OUTCOME
};

_Static_assert(sizeof((struct accounts_push_sub *)0)->endpoint == STORE_PUSH_ENDPOINT_MAX + 1,
               "endpoint sizes");
_Static_assert(sizeof((struct accounts_push_sub *)0)->p256dh == STORE_PUSH_KEY_MAX + 1,
               "key sizes");
_Static_assert(sizeof((struct accounts_push_sub *)0)->auth == STORE_PUSH_KEY_MAX + 1, "key sizes");

struct push_ext {
    int op;
    int outcome;
    long long account; /* OP_LIST */
    struct accounts_push_sub sub;
    struct accounts_push list;
};

static struct accounts_req *push_req(struct accounts_req *r, int op)
{
    struct push_ext *x = mem_zalloc(1, sizeof *x);
    x->op = op;
    r->ext = x;
    return r;
}

static struct accounts_req *session_req(struct accounts *a, const char *token, int op,
                                        accounts_cb cb, void *arg)
{
    struct accounts_req *r =
        accounts__token_req(a, ACCOUNTS__PUSH, token, ACCOUNTS_E_SESSION, cb, arg);
    if (r == NULL)
        return NULL;
    return push_req(r, op);
}

struct accounts_req *accounts_push_put(struct accounts *a, const char *token,
                                       const struct accounts_push_sub *s, accounts_cb cb, void *arg)
{
    struct accounts_req *r = session_req(a, token, OP_PUT, cb, arg);
    if (r == NULL || r->where == ACCOUNTS__READY)
        return r;
    ((struct push_ext *)r->ext)->sub = *s;
    return accounts__queue(r);
}

struct accounts_req *accounts_push_delete(struct accounts *a, const char *token,
                                          const char *endpoint, accounts_cb cb, void *arg)
{
    struct accounts_req *r = session_req(a, token, OP_DELETE, cb, arg);
    if (r == NULL || r->where == ACCOUNTS__READY)
        return r;
    struct push_ext *x = r->ext;
    snprintf(x->sub.endpoint, sizeof x->sub.endpoint, "%s", endpoint);
    return accounts__queue(r);
}

struct accounts_req *accounts_push_list(struct accounts *a, long long account, accounts_cb cb,
                                        void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__PUSH, cb, arg);
    if (r == NULL)
        return NULL;
    push_req(r, OP_LIST);
    ((struct push_ext *)r->ext)->account = account;
    return accounts__queue(r);
}

struct accounts_req *accounts_push_outcome(struct accounts *a, const char *endpoint, int outcome,
                                           accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__PUSH, cb, arg);
    if (r == NULL)
        return NULL;
    struct push_ext *x = push_req(r, OP_OUTCOME)->ext;
    x->outcome = outcome;
    snprintf(x->sub.endpoint, sizeof x->sub.endpoint, "%s", endpoint);
    return accounts__queue(r);
}

struct accounts_req *accounts_webhook_put(struct accounts *a, const char *token, const char *url,
                                          accounts_cb cb, void *arg)
{
    struct accounts_req *r = session_req(a, token, OP_HOOK_PUT, cb, arg);
    if (r == NULL || r->where == ACCOUNTS__READY)
        return r;
    struct push_ext *x = r->ext;
    snprintf(x->list.webhook, sizeof x->list.webhook, "%s", url);
    return accounts__queue(r);
}

struct accounts_req *accounts_webhook_get(struct accounts *a, const char *token, accounts_cb cb,
                                          void *arg)
{
    struct accounts_req *r = session_req(a, token, OP_HOOK_GET, cb, arg);
    return r == NULL || r->where == ACCOUNTS__READY ? r : accounts__queue(r);
}

struct accounts_req *accounts_webhook_delete(struct accounts *a, const char *token, accounts_cb cb,
                                             void *arg)
{
    struct accounts_req *r = session_req(a, token, OP_HOOK_DELETE, cb, arg);
    return r == NULL || r->where == ACCOUNTS__READY ? r : accounts__queue(r);
}

struct accounts_req *accounts_webhook_outcome(struct accounts *a, long long account, int outcome,
                                              accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__PUSH, cb, arg);
    if (r == NULL)
        return NULL;
    struct push_ext *x = push_req(r, OP_HOOK_OUTCOME)->ext;
    x->outcome = outcome;
    x->account = account;
    return accounts__queue(r);
}

/* The host of an endpoint, for a log line. */
static void host_of(const char *endpoint, char *out, size_t size)
{
    const char *h = strstr(endpoint, "://");
    h = h != NULL ? h + 3 : endpoint;
    snprintf(out, size, "%.*s", (int)strcspn(h, "/?#"), h);
}

static void list_run(struct accounts_req *r, struct store_accounts *h, struct push_ext *x)
{
    struct store_push_sub rows[ACCOUNTS_PUSH_MAX];
    int n = 0;
    int rc = store_push_list(h, x->account, rows, ACCOUNTS_PUSH_MAX, &n);
    if (rc != 0) {
        accounts__storage_failed(r, h, "an account's push subscriptions", rc);
        return;
    }
    x->list.account = x->account;
    x->list.n = n;
    rc = store_webhook_get(h, x->account, x->list.webhook, sizeof x->list.webhook);
    if (rc != 0 && rc != STORE_E_NOT_FOUND) {
        accounts__storage_failed(r, h, "an account's webhook", rc);
        return;
    }
    for (int i = 0; i < n; i++) { /* same sizes: both NUL-terminated */
        memcpy(x->list.subs[i].endpoint, rows[i].endpoint, sizeof x->list.subs[i].endpoint);
        memcpy(x->list.subs[i].p256dh, rows[i].p256dh, sizeof x->list.subs[i].p256dh);
        memcpy(x->list.subs[i].auth, rows[i].auth, sizeof x->list.subs[i].auth);
    }
    r->res.push = &x->list;
    accounts__set(&r->res, 0);
}

static void outcome_run(struct accounts_req *r, struct store_accounts *h, struct push_ext *x)
{
    int rc, dropped = 0;
    char host[128];
    host_of(x->sub.endpoint, host, sizeof host);
    if (x->outcome == ACCOUNTS_PUSH_SENT)
        rc = store_push_delivered(h, x->sub.endpoint);
    else if (x->outcome == ACCOUNTS_PUSH_GONE)
        rc = store_push_delete(h, 0, x->sub.endpoint), dropped = rc == 0;
    else
        rc = store_push_failed(h, x->sub.endpoint, ACCOUNTS_PUSH_FAILURES_MAX, &dropped);
    if (rc == STORE_E_NOT_FOUND) /* removed meanwhile by its page */
        rc = 0;
    if (rc != 0) {
        accounts__storage_failed(r, h, "a push subscription's delivery", rc);
        return;
    }
    if (dropped)
        log_info("push: a subscription at %s was dropped (%s)", host,
                 x->outcome == ACCOUNTS_PUSH_GONE ? "gone" : "too many failed deliveries");
    accounts__set(&r->res, 0);
}

static void hook_outcome_run(struct accounts_req *r, struct store_accounts *h, struct push_ext *x)
{
    int dropped = 0, rc;
    if (x->outcome == ACCOUNTS_PUSH_GONE)
        rc = store_webhook_delete(h, x->account), dropped = rc == 0;
    else
        rc = store_webhook_outcome(h, x->account, x->outcome == ACCOUNTS_PUSH_SENT,
                                   ACCOUNTS_PUSH_FAILURES_MAX, &dropped);
    if (rc == STORE_E_NOT_FOUND)
        rc = 0;
    if (rc != 0) {
        accounts__storage_failed(r, h, "a webhook's delivery", rc);
        return;
    }
    if (dropped)
        log_info("webhook: account %lld's webhook was dropped (%s)", x->account,
                 x->outcome == ACCOUNTS_PUSH_GONE ? "gone" : "too many failed deliveries");
    accounts__set(&r->res, 0);
}

/* A signed-in page's webhook: set, read or removed. */
static void hook_run(struct accounts_req *r, struct store_accounts *h, struct push_ext *x)
{
    int rc;
    if (x->op == OP_HOOK_PUT) {
        rc = store_webhook_put(h, r->res.account, x->list.webhook, r->now);
    } else if (x->op == OP_HOOK_GET) {
        rc = store_webhook_get(h, r->res.account, x->list.webhook, sizeof x->list.webhook);
        if (rc == STORE_E_NOT_FOUND)
            rc = 0; /* "" */
        r->res.push = &x->list;
    } else {
        rc = store_webhook_delete(h, r->res.account);
        if (rc == STORE_E_NOT_FOUND) {
            accounts__set(&r->res, ACCOUNTS_E_UNKNOWN);
            return;
        }
    }
    if (rc != 0) {
        accounts__storage_failed(r, h, "an account's webhook", rc);
        return;
    }
    accounts__set(&r->res, 0);
}

void accounts__push_job_run(struct accounts_req *r, struct store_accounts *h)
{
    struct push_ext *x = r->ext;
    if (x->op == OP_LIST) {
        list_run(r, h, x);
        return;
    }
    if (x->op == OP_OUTCOME) {
        outcome_run(r, h, x);
        return;
    }
    if (x->op == OP_HOOK_OUTCOME) {
        hook_outcome_run(r, h, x);
        return;
    }
    if (accounts__session_read(r, h) != 0)
        return;
    memset(r->res.csrf, 0, sizeof r->res.csrf); /* not part of these answers */
    if (x->op >= OP_HOOK_PUT) {
        hook_run(r, h, x);
        return;
    }
    int rc;
    if (x->op == OP_PUT) {
        struct store_push_sub s;
        memset(&s, 0, sizeof s);
        s.account = r->res.account;
        snprintf(s.endpoint, sizeof s.endpoint, "%s", x->sub.endpoint);
        snprintf(s.p256dh, sizeof s.p256dh, "%s", x->sub.p256dh);
        snprintf(s.auth, sizeof s.auth, "%s", x->sub.auth);
        rc = store_push_put(h, &s, r->now);
    } else {
        rc = store_push_delete(h, r->res.account, x->sub.endpoint);
        if (rc == STORE_E_NOT_FOUND) {
            accounts__set(&r->res, ACCOUNTS_E_UNKNOWN);
            return;
        }
    }
    if (rc != 0) {
        accounts__storage_failed(r, h, "a push subscription", rc);
        return;
    }
    accounts__set(&r->res, 0);
}
