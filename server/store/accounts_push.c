/* store/accounts_push.c: see accounts_push.h. SQL both backends run
 * (accounts_int.h). */
#include <stdio.h>
#include <string.h>

#include "accounts_int.h"
#include "store/accounts_push.h"
#include "util/status.h"

static int text_ok(const char *s, size_t max)
{
    return s != NULL && s[0] != '\0' && strlen(s) <= max;
}

/* Run sql in a transaction of its own unless one is open. */
static int begin(struct store_accounts *a, int *own)
{
    *own = !a->in_tx;
    if (!*own)
        return 0;
    int rc = a->be->run(a, a->be->begin_sql, 0, NULL, NULL, NULL, NULL);
    if (rc == 0)
        a->in_tx = 1;
    return rc;
}

static int end(struct store_accounts *a, int own, int rc)
{
    if (!own)
        return rc;
    int e = a->be->run(a, rc == 0 ? "COMMIT" : "ROLLBACK", 0, NULL, NULL, NULL, NULL);
    a->in_tx = 0;
    return rc != 0 ? rc : e != 0 ? STORE_E_DB : 0;
}

int store_push_put(struct store_accounts *a, const struct store_push_sub *s, long long now_ms)
{
    if (s->account <= 0 || !text_ok(s->endpoint, STORE_PUSH_ENDPOINT_MAX) ||
        !text_ok(s->p256dh, STORE_PUSH_KEY_MAX) || !text_ok(s->auth, STORE_PUSH_KEY_MAX))
        return STORE_E_ARGS;
    int own = 0;
    int rc = begin(a, &own);
    if (rc != 0)
        return rc;
    struct acc_val v[] = {AV_S(s->endpoint), AV_I(s->account), AV_S(s->p256dh), AV_S(s->auth),
                          AV_I(now_ms)};
    rc = a->be->run(a,
                    "INSERT INTO push_subscriptions(endpoint, account, p256dh, auth, created_ms,"
                    " failures) VALUES($1, $2, $3, $4, $5, 0) ON CONFLICT(endpoint) DO UPDATE"
                    " SET account = excluded.account, p256dh = excluded.p256dh,"
                    " auth = excluded.auth, created_ms = excluded.created_ms, failures = 0",
                    5, v, NULL, NULL, NULL);
    /* The account's oldest past the limit. */
    struct acc_val w[] = {AV_I(s->account), AV_I(STORE_PUSH_PER_ACCOUNT)};
    if (rc == 0)
        rc = a->be->run(a,
                        "DELETE FROM push_subscriptions WHERE account = $1 AND endpoint NOT IN"
                        " (SELECT endpoint FROM push_subscriptions WHERE account = $1"
                        " ORDER BY created_ms DESC, endpoint LIMIT $2)",
                        2, w, NULL, NULL, NULL);
    return end(a, own, rc);
}

int store_push_delete(struct store_accounts *a, long long account, const char *endpoint)
{
    if (account < 0 || !text_ok(endpoint, STORE_PUSH_ENDPOINT_MAX))
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_S(endpoint), AV_I(account)};
    long long changes = 0;
    int rc = a->be->run(a,
                        "DELETE FROM push_subscriptions WHERE endpoint = $1"
                        " AND ($2 = 0 OR account = $2)",
                        2, v, NULL, NULL, &changes);
    return rc != 0 ? rc : changes == 0 ? STORE_E_NOT_FOUND : 0;
}

static int count_row(void *arg, const struct acc_row *r)
{
    (void)r;
    (*(int *)arg)++;
    return 0;
}

int store_push_failed(struct store_accounts *a, const char *endpoint, int max, int *dropped)
{
    *dropped = 0;
    if (!text_ok(endpoint, STORE_PUSH_ENDPOINT_MAX) || max < 1)
        return STORE_E_ARGS;
    int own = 0;
    int rc = begin(a, &own);
    if (rc != 0)
        return rc;
    struct acc_val v[] = {AV_S(endpoint), AV_I(max)};
    long long changes = 0;
    rc = a->be->run(a, "UPDATE push_subscriptions SET failures = failures + 1 WHERE endpoint = $1",
                    1, v, NULL, NULL, &changes);
    if (rc == 0 && changes == 0)
        rc = STORE_E_NOT_FOUND;
    int gone = 0;
    if (rc == 0)
        rc = a->be->run(a,
                        "DELETE FROM push_subscriptions WHERE endpoint = $1 AND failures >= $2"
                        " RETURNING endpoint",
                        2, v, count_row, &gone, NULL);
    rc = end(a, own, rc);
    *dropped = rc == 0 && gone > 0;
    return rc;
}

int store_push_delivered(struct store_accounts *a, const char *endpoint)
{
    if (!text_ok(endpoint, STORE_PUSH_ENDPOINT_MAX))
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_S(endpoint)};
    long long changes = 0;
    int rc = a->be->run(a, "UPDATE push_subscriptions SET failures = 0 WHERE endpoint = $1", 1, v,
                        NULL, NULL, &changes);
    return rc != 0 ? rc : changes == 0 ? STORE_E_NOT_FOUND : 0;
}

struct list_read {
    struct store_accounts *a;
    struct store_push_sub *out;
    int max, *n;
};

static int list_row(void *arg, const struct acc_row *r)
{
    struct list_read *l = arg;
    if (*l->n >= l->max)
        return 0;
    const struct acc_backend *be = l->a->be;
    struct store_push_sub *s = &l->out[(*l->n)++];
    snprintf(s->endpoint, sizeof s->endpoint, "%s", be->col_text(r, 0));
    snprintf(s->p256dh, sizeof s->p256dh, "%s", be->col_text(r, 1));
    snprintf(s->auth, sizeof s->auth, "%s", be->col_text(r, 2));
    s->account = be->col_int(r, 3);
    s->created_ms = be->col_int(r, 4);
    s->failures = (int)be->col_int(r, 5);
    return 0;
}

int store_push_list(struct store_accounts *a, long long account, struct store_push_sub *out,
                    int max, int *n)
{
    *n = 0;
    if (account <= 0 || max < 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account), AV_I(max)};
    struct list_read l = {a, out, max, n};
    int rc = a->be->run(a,
                        "SELECT endpoint, p256dh, auth, account, created_ms, failures"
                        " FROM push_subscriptions WHERE account = $1"
                        " ORDER BY created_ms DESC, endpoint LIMIT $2",
                        2, v, list_row, &l, NULL);
    if (rc != 0)
        *n = 0;
    return rc;
}

/* ---- webhooks ---- */

int store_webhook_put(struct store_accounts *a, long long account, const char *url,
                      long long now_ms)
{
    if (account <= 0 || !text_ok(url, STORE_WEBHOOK_MAX))
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account), AV_S(url), AV_I(now_ms)};
    return a->be->run(a,
                      "INSERT INTO webhooks(account, url, created_ms, failures)"
                      " VALUES($1, $2, $3, 0) ON CONFLICT(account) DO UPDATE"
                      " SET url = excluded.url, created_ms = excluded.created_ms, failures = 0",
                      3, v, NULL, NULL, NULL);
}

struct text_read {
    struct store_accounts *a;
    char *out;
    size_t size;
    int found;
};

static int text_row(void *arg, const struct acc_row *r)
{
    struct text_read *t = arg;
    snprintf(t->out, t->size, "%s", t->a->be->col_text(r, 0));
    t->found = 1;
    return 0;
}

int store_webhook_get(struct store_accounts *a, long long account, char *out, size_t size)
{
    out[0] = '\0';
    if (account <= 0 || size <= STORE_WEBHOOK_MAX)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account)};
    struct text_read t = {a, out, size, 0};
    int rc = a->be->run(a, "SELECT url FROM webhooks WHERE account = $1", 1, v, text_row, &t, NULL);
    return rc != 0 ? rc : t.found ? 0 : STORE_E_NOT_FOUND;
}

int store_webhook_delete(struct store_accounts *a, long long account)
{
    if (account <= 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account)};
    long long changes = 0;
    int rc = a->be->run(a, "DELETE FROM webhooks WHERE account = $1", 1, v, NULL, NULL, &changes);
    return rc != 0 ? rc : changes == 0 ? STORE_E_NOT_FOUND : 0;
}

int store_webhook_outcome(struct store_accounts *a, long long account, int ok, int max,
                          int *dropped)
{
    *dropped = 0;
    if (account <= 0 || max < 1)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account), AV_I(max)};
    long long changes = 0;
    if (ok) {
        int rc = a->be->run(a, "UPDATE webhooks SET failures = 0 WHERE account = $1", 1, v, NULL,
                            NULL, &changes);
        return rc != 0 ? rc : changes == 0 ? STORE_E_NOT_FOUND : 0;
    }
    int own = 0;
    int rc = begin(a, &own);
    if (rc != 0)
        return rc;
    rc = a->be->run(a, "UPDATE webhooks SET failures = failures + 1 WHERE account = $1", 1, v, NULL,
                    NULL, &changes);
    if (rc == 0 && changes == 0)
        rc = STORE_E_NOT_FOUND;
    int gone = 0;
    if (rc == 0)
        rc = a->be->run(a,
                        "DELETE FROM webhooks WHERE account = $1 AND failures >= $2"
                        " RETURNING account",
                        2, v, count_row, &gone, NULL);
    rc = end(a, own, rc);
    *dropped = rc == 0 && gone > 0;
    return rc;
}
