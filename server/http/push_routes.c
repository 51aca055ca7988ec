/* push_routes.c: Web Push's routes (PROTOCOL.md "Notifications"):
 *
 *   GET    /api/push/key            {"key"}: carcd's VAPID public key, as
 *                                   PushManager.subscribe's applicationServerKey takes it
 *   POST   /api/push/subscriptions  the browser's PushSubscription, kept for the account
 *   DELETE /api/push/subscriptions  {"endpoint"}: that subscription removed
 *   POST   /api/push/test           a test notice to each of the account's subscriptions
 *   GET    /api/me/webhook          {"url"}: the account's webhook, null for none
 *   POST   /api/me/webhook          {"url"}: set (https; a host webhook-hosts allows)
 *   DELETE /api/me/webhook          removed
 *
 * The key is public (no cookie). The subscription routes are checked as the
 * other state-changing /api/me routes (account_routes.c): an Origin of this
 * site, the body decoded strictly (protocol/push_json.h) and the subscription
 * checked (notify/push.h), the session cookie, then the session looked up on
 * the pool and X-CSRF-Token compared with its CSRF token; only then is the
 * subscription stored or removed (a second request of the accounts service).
 * Deferred twice; no-store. A test is checked the same way, then counted
 * against the account's push-tests an hour (429 past them), then the
 * subscriptions read (the accounts service again) and handed to the
 * notifier, which sends them off the loop. Without push (no VAPID key: storage off) every
 * route answers 404 push_off. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uv.h>

#include "http/api.h"
#include "json_str.h"
#include "notify/notifier.h"
#include "notify/push.h"
#include "notify/vapid.h"
#include "players/accounts.h"
#include "players/attempts.h"
#include "players/token.h"
#include "push_json.h"
#include "util/mem.h"
#include "util/status.h"

struct push_call {
    struct api *a;
    struct api_reply *out;
    struct accounts_req *req;
    int https;
    int subscribe; /* 1: POST, 0: DELETE */
    int hook;      /* /api/me/webhook: 1 POST, 2 DELETE, 3 GET */
    int test;      /* POST /api/push/test */
    char token[TOKEN_LEN + 1];
    char csrf[TOKEN_LEN + 1];
    struct accounts_push_sub sub;
};

static void call_free(struct push_call *c)
{
    api_wipe(c, sizeof *c);
    free(c);
}

static void on_done(void *arg, const struct accounts_result *r)
{
    struct push_call *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL;
    if (r->status == 0 && c->hook == 3) {
        const char *url = r->push != NULL ? r->push->webhook : "";
        size_t n = strlen(url) * 6 + 32;
        char *json = mem_alloc(n);
        size_t len = strlen("{\"url\":");
        memcpy(json, "{\"url\":", len + 1);
        if (url[0] != '\0') {
            proto_json_str_append(json, n, &len, url);
        } else {
            memcpy(json + len, "null", 5);
            len += 4;
        }
        memcpy(json + len, "}", 2);
        api_reply_json(out, 200, json, NULL);
    } else if (r->status == 0) {
        out->status = 204;
        out->content_type = "application/json";
        out->cache_control = "no-store";
        out->body = "";
        out->len = 0;
    } else if (r->status == ACCOUNTS_E_UNKNOWN) {
        if (c->hook)
            api_reply_json_error(out, 404, "no_webhook", "this account has no webhook");
        else
            api_reply_json_error(out, 404, "no_such_subscription",
                                 "this account has no subscription with that endpoint");
    } else if (r->status == ACCOUNTS_E_SESSION) {
        api_reply_json_error(out, 401, "not_signed_in", "not signed in");
    } else {
        api_reply_json_error(out, 503, "storage_error", "the accounts database failed; retry");
    }
    call_free(c);
    api_reply_ready(out);
}

/* The account's subscriptions, read for a test: to the notifier. */
static void on_test_subs(void *arg, const struct accounts_result *r)
{
    struct push_call *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL;
    struct notifier_sub subs[NOTIFIER_SUBS];
    int n = 0;
    for (int i = 0; r->status == 0 && r->push != NULL && i < r->push->n && n < NOTIFIER_SUBS;
         i++, n++) {
        snprintf(subs[n].endpoint, sizeof subs[n].endpoint, "%s", r->push->subs[i].endpoint);
        snprintf(subs[n].p256dh, sizeof subs[n].p256dh, "%s", r->push->subs[i].p256dh);
        snprintf(subs[n].auth, sizeof subs[n].auth, "%s", r->push->subs[i].auth);
    }
    int sent = 0;
    if (r->status != 0) {
        api_reply_json_error(out, 503, "storage_error", "the accounts database failed; retry");
    } else if (c->a->notifier == NULL) {
        api_reply_json_error(out, 503, "busy", "the server is stopping; retry");
    } else if ((sent = notifier_test_send(c->a->notifier, subs, n)) == 0) {
        api_reply_json_error(out, 404, "no_subscription",
                             "this account has no push subscription to test");
    } else {
        char *json = mem_alloc(32);
        snprintf(json, 32, "{\"pushes\":%d}", sent);
        api_reply_json(out, 202, json, NULL);
    }
    call_free(c);
    api_reply_ready(out);
}

/* A test of r's account counted against push-tests: 0, or -1 with the
 * answer (429 rate_limited with its Retry-After) written. */
static int test_count(struct api *a, const struct accounts_result *r, struct api_reply *out)
{
    if (a->push_tests <= 0) {
        api_reply_json_error(out, 403, "push_tests_off", "this server sends no test notices");
        return -1;
    }
    /* 1024 accounts remembered (attempts.h: past that, the oldest window gives way). */
    if (a->push_tested == NULL)
        a->push_tested = attempts_new(1024, a->push_tests, 3600 * 1000);
    if (a->push_tested == NULL) { /* not reached: the accounts service set up its hash key */
        api_reply_json_error(out, 503, "busy", "retry");
        return -1;
    }
    char key[32];
    snprintf(key, sizeof key, "%lld", r->account);
    int64_t now = (int64_t)(uv_hrtime() / 1000000); /* a window's length: monotonic */
    int64_t wait = attempts_wait_ms(a->push_tested, key, now);
    if (wait > 0) {
        out->retry_after = (wait + 999) / 1000;
        api_reply_json_error(out, 429, "rate_limited", "too many test notices: wait and retry");
        return -1;
    }
    attempts_fail(a->push_tested, key, now); /* a try counted, whatever comes of it */
    return 0;
}

static void on_session(void *arg, const struct accounts_result *r)
{
    struct push_call *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL;
    if (api_session_check(r, c->csrf, c->https, out) != 0) {
        /* the answer is written */
    } else if (c->test) {
        if (test_count(c->a, r, out) == 0) {
            c->req = accounts_push_list(c->a->accounts, r->account, on_test_subs, c);
            if (c->req != NULL)
                return;
            api_reply_json_error(out, 503, "busy", "too many account requests; retry");
        }
    } else {
        struct accounts *ac = c->a->accounts;
        c->req = c->hook == 1   ? accounts_webhook_put(ac, c->token, c->sub.endpoint, on_done, c)
                 : c->hook == 2 ? accounts_webhook_delete(ac, c->token, on_done, c)
                 : c->subscribe ? accounts_push_put(ac, c->token, &c->sub, on_done, c)
                                : accounts_push_delete(ac, c->token, c->sub.endpoint, on_done, c);
        if (c->req != NULL)
            return;
        api_reply_json_error(out, 503, "busy", "too many account requests; retry");
    }
    call_free(c);
    api_reply_ready(out);
}

static void on_cancel(void *arg)
{
    struct push_call *c = arg;
    if (c->req != NULL)
        accounts_cancel(c->req);
    call_free(c);
}

static void key_reply(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    out->head = strcmp(rq->method, "HEAD") == 0;
    if (strcmp(rq->method, "GET") != 0 && !out->head) {
        api_reply_json_error(out, 405, "method", "method not allowed on this route");
        return;
    }
    char *json = mem_alloc(32 + VAPID_PUBLIC_B64_LEN);
    snprintf(json, 32 + VAPID_PUBLIC_B64_LEN, "{\"key\":\"%s\"}", vapid_public_b64(a->vapid));
    /* The key stays until the data directory's key file changes: checked again each time. */
    api_reply_json(out, 200, json, "no-cache");
}

/* The body decoded and checked into c: 0, or -1 with the answer written. */
static int body_read(const struct api_request *rq, struct push_call *c, struct api_reply *out)
{
    struct proto_push_body b;
    struct proto_error err;
    proto_error_init(&err);
    int kind = c->subscribe ? PROTO_PUSH_SUBSCRIBE : PROTO_PUSH_UNSUBSCRIBE;
    if (proto_push_decode(kind, rq->body != NULL ? rq->body : "", rq->body_len, &b, &err) != 0) {
        char text[sizeof err.field + sizeof err.text + 4];
        snprintf(text, sizeof text, "%s%s%s", err.field, err.field[0] ? ": " : "", err.text);
        api_reply_json_error(out, 400, "bad_request", text);
        return -1;
    }
    if (c->subscribe) {
        struct push_subscription s;
        const char *why = NULL;
        if (push_subscription_make(b.endpoint, b.p256dh, b.auth, &s, &why) != 0) {
            api_reply_json_error(out, 400, "bad_subscription", why);
            return -1;
        }
    }
    memcpy(c->sub.endpoint, b.endpoint, sizeof c->sub.endpoint);
    memcpy(c->sub.p256dh, b.p256dh, sizeof c->sub.p256dh);
    memcpy(c->sub.auth, b.auth, sizeof c->sub.auth);
    return 0;
}

/* Whether url's host is one webhook_hosts lists (a name, or any name ending
 * in "." and it); every host when the list is empty. */
static int hook_host_ok(const char *hosts, const char *url)
{
    if (hosts == NULL || hosts[0] == '\0')
        return 1;
    char origin[PUSH_ENDPOINT_MAX + 1];
    if (push_origin(url, origin, sizeof origin) != 0)
        return 0;
    const char *host = origin + 8; /* "https://" */
    size_t hl = strcspn(host, ":");
    for (const char *p = hosts; *p != '\0';) {
        p += strspn(p, " ,");
        size_t n = strcspn(p, " ,");
        if (n > 0 && n <= hl && strncasecmp(host + hl - n, p, n) == 0 &&
            (n == hl || host[hl - n - 1] == '.'))
            return 1;
        p += n;
    }
    return 0;
}

/* POST /api/me/webhook's body into c: 0, or -1 with the answer written. */
static int hook_read(struct api *a, const struct api_request *rq, struct push_call *c,
                     struct api_reply *out)
{
    struct proto_push_body b;
    struct proto_error err;
    proto_error_init(&err);
    if (proto_push_decode(PROTO_PUSH_WEBHOOK, rq->body != NULL ? rq->body : "", rq->body_len, &b,
                          &err) != 0) {
        char text[sizeof err.field + sizeof err.text + 4];
        snprintf(text, sizeof text, "%s%s%s", err.field, err.field[0] ? ": " : "", err.text);
        api_reply_json_error(out, 400, "bad_request", text);
        return -1;
    }
    char origin[PUSH_ENDPOINT_MAX + 1];
    int plain = 1;
    for (const char *p = b.endpoint; *p != '\0'; p++)
        plain &= (unsigned char)*p > 0x20 && *p != 0x7f;
    if (!plain || push_origin(b.endpoint, origin, sizeof origin) != 0) {
        api_reply_json_error(out, 400, "bad_webhook", "url: not an https:// URL with a host");
        return -1;
    }
    if (!hook_host_ok(a->webhook_hosts, b.endpoint)) {
        api_reply_json_error(out, 403, "webhook_host",
                             "this server takes webhooks to other hosts only (webhook-hosts)");
        return -1;
    }
    memcpy(c->sub.endpoint, b.endpoint, sizeof c->sub.endpoint);
    return 0;
}

/* /api/me/webhook: 1 when rq was it. */
static int hook_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    int get = strcmp(rq->method, "GET") == 0, post = strcmp(rq->method, "POST") == 0;
    int del = strcmp(rq->method, "DELETE") == 0;
    if (a->accounts == NULL) {
        api_reply_json_error(out, 404, "accounts_off", "this server has no accounts (no storage)");
        return 1;
    }
    if (!a->webhooks) {
        api_reply_json_error(out, 403, "webhooks_off", "this server sends no webhooks");
        return 1;
    }
    if (!get && !post && !del) {
        api_reply_json_error(out, 405, "method", "method not allowed on this route");
        return 1;
    }
    if (!get && rq->origin != API_ORIGIN_OK) {
        api_reply_json_error(out, 403, "origin",
                             "a request that changes an account needs an Origin of this site");
        return 1;
    }
    struct push_call *c = mem_zalloc(1, sizeof *c);
    c->a = a;
    c->out = out;
    c->https = rq->https;
    c->hook = post ? 1 : del ? 2 : 3;
    if ((post && hook_read(a, rq, c, out) != 0) || !api_cookie_session(rq->cookie, c->token)) {
        if (out->status == 0)
            api_reply_json_error(out, 401, "not_signed_in", "not signed in");
        call_free(c);
        return 1;
    }
    if (rq->csrf != NULL && strlen(rq->csrf) == TOKEN_LEN)
        memcpy(c->csrf, rq->csrf, TOKEN_LEN + 1);
    if (out->ready != NULL)
        c->req = get ? accounts_webhook_get(a->accounts, c->token, on_done, c)
                     : accounts_session(a->accounts, c->token, on_session, c);
    if (c->req == NULL) {
        call_free(c);
        api_reply_json_error(out, 503, "busy", "too many account requests; retry");
        return 1;
    }
    out->deferred = 1;
    out->cancel = on_cancel;
    out->cancel_arg = c;
    return 1;
}

int api_push_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    if (strcmp(rq->path, "/api/me/webhook") == 0)
        return hook_route(a, rq, out);
    int key = strcmp(rq->path, "/api/push/key") == 0;
    int test = strcmp(rq->path, "/api/push/test") == 0;
    if (!key && !test && strcmp(rq->path, "/api/push/subscriptions") != 0)
        return 0;
    if (a->vapid == NULL || a->accounts == NULL) {
        api_reply_json_error(out, 404, "push_off",
                             "this server sends no push notifications (no storage)");
        return 1;
    }
    if (key) {
        key_reply(a, rq, out);
        return 1;
    }
    int post = strcmp(rq->method, "POST") == 0;
    if (!post && (test || strcmp(rq->method, "DELETE") != 0)) {
        api_reply_json_error(out, 405, "method", "method not allowed on this route");
        return 1;
    }
    if (rq->origin != API_ORIGIN_OK) {
        api_reply_json_error(out, 403, "origin",
                             "a request that changes an account needs an Origin of this site");
        return 1;
    }
    struct push_call *c = mem_zalloc(1, sizeof *c);
    c->a = a;
    c->out = out;
    c->https = rq->https;
    c->subscribe = post;
    c->test = test;
    if (!test && body_read(rq, c, out) != 0) {
        call_free(c);
        return 1;
    }
    if (!api_cookie_session(rq->cookie, c->token)) {
        api_reply_json_error(out, 401, "not_signed_in", "not signed in");
        call_free(c);
        return 1;
    }
    if (rq->csrf != NULL && strlen(rq->csrf) == TOKEN_LEN)
        memcpy(c->csrf, rq->csrf, TOKEN_LEN + 1);
    c->req = out->ready != NULL ? accounts_session(a->accounts, c->token, on_session, c) : NULL;
    if (c->req == NULL) {
        call_free(c);
        api_reply_json_error(out, 503, "busy", "too many account requests; retry");
        return 1;
    }
    out->deferred = 1;
    out->cancel = on_cancel;
    out->cancel_arg = c;
    return 1;
}
