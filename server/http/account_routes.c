/* account_routes.c: the HTTP side of accounts (issue 27; PROTOCOL.md
 * "Accounts"): sign up, sign in, sign out, "me", a password change, an
 * account's deletion and a member's invite, over players/accounts.h. Every answer is JSON with
 * cache-control: no-store; each route that asks the service answers later
 * (reply.deferred), and api_reply_free cancels what is in flight.
 *
 * Secrets: the session token travels in the carcd_session cookie only (never
 * in a body), passwords in request bodies only; neither is logged, and the
 * copies held here are wiped before they are freed. An invite code is in
 * its answer only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account_json.h"
#include "claim_json.h"
#include "mail_json.h"
#include "push_json.h"
#include "vacation_json.h"
#include "http/api.h"
#include "players/accounts.h"
#include "players/token.h"
#include "util/mem.h"
#include "util/status.h"

#define COOKIE_NAME "carcd_session"

enum route { R_SIGNUP = 1, R_SIGNIN, R_SIGNOUT, R_ME, R_PASSWORD, R_DELETE, R_INVITE };

/* One request in flight: what the service's answers need (the reply it fills,
 * the token, the passwords still to send after the session's check). Owned by
 * the reply (cancel_arg) until it is answered. */
struct call {
    struct api *a;
    struct api_reply *out;
    struct accounts_req *req;
    int route;
    int https;
    int checked; /* the session's CSRF token matched: the second request is out */
    char token[TOKEN_LEN + 1];
    char csrf[TOKEN_LEN + 1]; /* the X-CSRF-Token header, when it is a token */
    char peer[64];
    struct proto_account_body body;
};

void api_wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;
    for (size_t i = 0; i < n; i++)
        v[i] = 0;
}

int api_session_check(const struct accounts_result *r, const char *csrf, int https,
                      struct api_reply *out)
{
    if (r->status == ACCOUNTS_E_SESSION) {
        api_reply_json_error(out, 401, "not_signed_in", "not signed in");
        api_session_cookie_clear(out, https);
    } else if (r->status != 0) {
        api_reply_json_error(out, 503, "storage_error", "the accounts database failed; retry");
    } else if (csrf[0] == '\0' || !token_equal(csrf, r->csrf)) {
        api_reply_json_error(out, 403, "csrf", "X-CSRF-Token must be the session's csrf token");
    } else {
        return 0;
    }
    return -1;
}

static void call_free(struct call *c)
{
    api_wipe(c, sizeof *c);
    free(c);
}

void api_reply_json(struct api_reply *out, int status, char *json, const char *cache_control)
{
    if (json == NULL)
        mem_oom("JSON reply");
    free(out->owned);
    out->status = status;
    out->content_type = "application/json";
    out->cache_control = cache_control != NULL ? cache_control : "no-store";
    out->owned = json;
    out->body = json;
    out->len = strlen(json);
}

void api_reply_json_error(struct api_reply *out, int status, const char *code, const char *message)
{
    api_reply_json(out, status, proto_account_error_encode(code, message), NULL);
}

void api_reply_ready(struct api_reply *out)
{
    out->deferred = 0;
    out->cancel = NULL;
    out->cancel_arg = NULL;
    out->ready(out, out->ready_arg);
}

static void reply_json(struct api_reply *out, int status, char *json)
{
    api_reply_json(out, status, json, NULL);
}

static void reply_error(struct api_reply *out, int status, const char *code, const char *message)
{
    api_reply_json_error(out, status, code, message);
}

static void reply_empty(struct api_reply *out, int status)
{
    free(out->owned);
    out->owned = NULL;
    out->status = status;
    out->content_type = "application/json";
    out->cache_control = "no-store";
    out->body = "";
    out->len = 0;
}

/* Set-Cookie with token, or one that clears the cookie (token NULL). */
static void set_cookie(struct api *a, struct api_reply *out, const char *token, int https)
{
    char text[256];
    long long age = token != NULL ? (long long)a->session_days * 86400 : 0;
    snprintf(text, sizeof text, COOKIE_NAME "=%s; Path=/; HttpOnly; SameSite=Lax; Max-Age=%lld%s",
             token != NULL ? token : "", age, https ? "; Secure" : "");
    free(out->set_cookie);
    out->set_cookie = mem_strdup(text);
}

void api_session_cookie_clear(struct api_reply *out, int https)
{
    char text[160];
    snprintf(text, sizeof text, COOKIE_NAME "=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0%s",
             https ? "; Secure" : "");
    free(out->set_cookie);
    out->set_cookie = mem_strdup(text);
}

int api_cookie_session(const char *header, char *out)
{
    static const char name[] = COOKIE_NAME "=";
    out[0] = '\0';
    for (const char *p = header; p != NULL && *p != '\0';) {
        p += strspn(p, " \t");
        size_t n = strcspn(p, ";");
        if (n == TOKEN_LEN + sizeof name - 1 && strncmp(p, name, sizeof name - 1) == 0) {
            memcpy(out, p + sizeof name - 1, TOKEN_LEN);
            out[TOKEN_LEN] = '\0';
            if (token_valid(out))
                return 1;
            out[0] = '\0';
        }
        p = p[n] == ';' ? p + n + 1 : NULL;
    }
    return 0;
}

/* The service's refusal as an answer. */
static void reply_refusal(struct call *c, const struct accounts_result *r)
{
    struct api_reply *out = c->out;
    const char *m = r->message;
    switch (r->status) {
    case ACCOUNTS_E_NAME:
        reply_error(out, 422, "name_refused", m);
        break;
    case ACCOUNTS_E_PASSWORD:
        reply_error(out, 422, "password_refused", m);
        break;
    case ACCOUNTS_E_TAKEN:
        reply_error(out, 409, "name_taken", "that name is taken");
        break;
    case ACCOUNTS_E_CLOSED:
        reply_error(out, 403, "registration_closed", "registration is closed");
        break;
    case ACCOUNTS_E_INVITE:
        reply_error(out, 403, "invite_needed", "an unused invite is needed");
        break;
    case ACCOUNTS_E_CREDENTIALS:
        /* Signed in already: a wrong password is no reason to look signed out. */
        reply_error(out, c->route == R_SIGNIN ? 401 : 403, "wrong_credentials",
                    "wrong name or password");
        break;
    case ACCOUNTS_E_RATE: {
        long long s = (r->retry_after_ms + 999) / 1000;
        out->retry_after = s > 0 ? s : 1;
        reply_error(out, 429, "rate_limited", "too many failed sign-ins: wait and retry");
        break;
    }
    case ACCOUNTS_E_INVITES_OFF:
        reply_error(out, 403, "invites_off", "members cannot make invites on this server");
        break;
    case ACCOUNTS_E_INVITES_MAX:
        reply_error(out, 429, "too_many_invites",
                    "too many unused invites: wait until one is used or expires");
        break;
    case ACCOUNTS_E_SESSION:
        reply_error(out, 401, "not_signed_in", "not signed in");
        set_cookie(c->a, out, NULL, c->https);
        break;
    default:
        reply_error(out, 503, "storage_error", "the accounts database failed; retry");
        break;
    }
}

static void on_answer(void *arg, const struct accounts_result *r);

/* The session checked out (its CSRF token is the header's): the request
 * itself. NULL when the queue is full. */
static struct accounts_req *second(struct call *c)
{
    struct accounts *s = c->a->accounts;
    struct proto_account_body *b = &c->body;
    c->checked = 1;
    if (c->route == R_SIGNOUT)
        return accounts_signout(s, c->token, on_answer, c);
    if (c->route == R_INVITE)
        return accounts_invite_member(s, c->token, on_answer, c);
    if (c->route == R_PASSWORD)
        return accounts_password(s, c->token, b->password, b->password_len, b->new_password,
                                 b->new_password_len, c->peer, on_answer, c);
    return accounts_delete(s, c->token, b->password, b->password_len, c->peer, on_answer, c);
}

/* A success, by route. 1 when another request went out (still deferred). */
static int reply_success(struct call *c, const struct accounts_result *r)
{
    struct api_reply *out = c->out;
    switch (c->route) {
    case R_SIGNUP:
    case R_SIGNIN:
        reply_json(out, c->route == R_SIGNUP ? 201 : 200,
                   proto_account_encode(r->name, r->created_ms > 0 ? r->created_ms : -1, r->csrf));
        set_cookie(c->a, out, r->session, c->https);
        return 0;
    case R_ME:
        reply_json(out, 200,
                   proto_account_encode(r->name, r->created_ms > 0 ? r->created_ms : -1, r->csrf));
        return 0;
    default:
        break;
    }
    if (!c->checked) {
        if (c->csrf[0] == '\0' || !token_equal(c->csrf, r->csrf)) {
            reply_error(out, 403, "csrf", "X-CSRF-Token must be the session's csrf token");
            return 0;
        }
        c->req = second(c);
        if (c->req != NULL)
            return 1;
        reply_error(out, 503, "busy", "too many account requests; retry");
        return 0;
    }
    if (c->route == R_INVITE) {
        reply_json(out, 201, proto_account_invite_encode(r->invite, r->expires_ms));
        return 0;
    }
    reply_empty(out, 204);
    if (c->route != R_PASSWORD)
        set_cookie(c->a, out, NULL, c->https);
    return 0;
}

static void on_answer(void *arg, const struct accounts_result *r)
{
    struct call *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL;
    if (r->status == 0 && reply_success(c, r))
        return;
    if (r->status == ACCOUNTS_E_SESSION && c->route == R_SIGNOUT) {
        reply_empty(out, 204); /* signed out already: no error */
        set_cookie(c->a, out, NULL, c->https);
    } else if (r->status != 0) {
        reply_refusal(c, r);
    }
    api_wipe(&c->body, sizeof c->body);
    call_free(c);
    api_reply_ready(out);
}

/* api_reply_free while a request is in flight. */
static void on_cancel(void *arg)
{
    struct call *c = arg;
    if (c->req != NULL)
        accounts_cancel(c->req);
    call_free(c);
}

static int route_of(const char *method, const char *path, int *want_method)
{
    static const struct {
        const char *path, *method;
        int route;
    } table[] = {
        {"/api/account", "POST", R_SIGNUP},
        {"/api/session", "POST", R_SIGNIN},
        {"/api/session", "DELETE", R_SIGNOUT},
        {"/api/me", "GET", R_ME},
        {"/api/me", "HEAD", R_ME},
        {"/api/me/password", "POST", R_PASSWORD},
        {"/api/me/delete", "POST", R_DELETE},
        {"/api/me/invites", "POST", R_INVITE}, /* no body */
    };
    *want_method = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(path, table[i].path) != 0)
            continue;
        *want_method = 1;
        if (strcmp(method, table[i].method) == 0)
            return table[i].route;
    }
    return 0;
}

size_t api_account_body_route(const char *method, const char *path)
{
    if (strcmp(method, "POST") == 0 && strcmp(path, "/api/me/claim") == 0)
        return PROTO_CLAIM_BODY_MAX; /* claim_route.c: up to 100 seats */
    if ((strcmp(method, "POST") == 0 || strcmp(method, "DELETE") == 0) &&
        strcmp(path, "/api/push/subscriptions") == 0)
        return PROTO_PUSH_BODY_MAX; /* push_routes.c */
    if (strcmp(method, "POST") == 0 && strcmp(path, "/api/me/webhook") == 0)
        return PROTO_PUSH_BODY_MAX; /* push_routes.c */
    if (strcmp(method, "PUT") == 0 && strcmp(path, "/api/me/email") == 0)
        return PROTO_MAIL_BODY_MAX; /* mail_routes.c */
    if (strcmp(method, "POST") == 0 && strcmp(path, "/unsubscribe") == 0)
        return 256; /* RFC 8058's "List-Unsubscribe=One-Click", never read (mail_routes.c) */
    if (strcmp(method, "POST") == 0 && strcmp(path, "/api/me/vacation") == 0)
        return PROTO_VACATION_BODY_MAX; /* vacation_routes.c */
    int known;
    int r = route_of(method, path, &known);
    return r == R_SIGNUP || r == R_SIGNIN || r == R_PASSWORD || r == R_DELETE
               ? PROTO_ACCOUNT_BODY_MAX
               : 0;
}

static const int body_kind[] = {
    [R_SIGNUP] = PROTO_ACCOUNT_SIGNUP,
    [R_SIGNIN] = PROTO_ACCOUNT_SIGNIN,
    [R_PASSWORD] = PROTO_ACCOUNT_PASSWORD,
    [R_DELETE] = PROTO_ACCOUNT_DELETE,
};

/* The checks before the service is asked; 0 when the request may go on (c
 * is then filled), else the answer is written. */
static int call_check(const struct api_request *rq, int route, struct call *c,
                      struct api_reply *out)
{
    if (route != R_ME && rq->origin != API_ORIGIN_OK) {
        reply_error(out, 403, "origin",
                    "a request that changes an account needs an Origin of this site");
        return -1;
    }
    if (route == R_SIGNUP || route == R_SIGNIN || route == R_PASSWORD || route == R_DELETE) {
        struct proto_error err;
        proto_error_init(&err);
        if (proto_account_decode(body_kind[route], rq->body != NULL ? rq->body : "", rq->body_len,
                                 &c->body, &err) != 0) {
            char text[sizeof err.field + sizeof err.text + 4];
            snprintf(text, sizeof text, "%s%s%s", err.field, err.field[0] ? ": " : "", err.text);
            reply_error(out, 400, "bad_request", text);
            return -1;
        }
    }
    if (route == R_SIGNUP || route == R_SIGNIN)
        return 0;
    if (!api_cookie_session(rq->cookie, c->token)) {
        if (route == R_SIGNOUT) {
            reply_empty(out, 204); /* nobody to sign out: no error either */
            set_cookie(c->a, out, NULL, c->https);
        } else {
            reply_error(out, 401, "not_signed_in", "not signed in");
        }
        return -1;
    }
    if (rq->csrf != NULL && strlen(rq->csrf) == TOKEN_LEN)
        memcpy(c->csrf, rq->csrf, TOKEN_LEN + 1);
    return 0;
}

static struct accounts_req *first(struct call *c)
{
    struct accounts *s = c->a->accounts;
    struct proto_account_body *b = &c->body;
    const char *invite = b->has_invite ? b->invite : NULL;
    if (c->route == R_SIGNUP)
        return accounts_signup(s, b->name, b->password, b->password_len, invite, c->peer, on_answer,
                               c);
    if (c->route == R_SIGNIN)
        return accounts_signin(s, b->name, b->password, b->password_len, c->peer, on_answer, c);
    return accounts_session(s, c->token, on_answer, c);
}

int api_account_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    int known;
    int route = route_of(rq->method, rq->path, &known);
    if (!known)
        return 0;
    out->head = strcmp(rq->method, "HEAD") == 0;
    if (route == 0) {
        reply_error(out, 405, "method", "method not allowed on this route");
        return 1;
    }
    if (a->accounts == NULL) {
        reply_error(out, 404, "accounts_off", "this server has no accounts (no storage)");
        return 1;
    }
    struct call *c = mem_zalloc(1, sizeof *c);
    c->a = a;
    c->out = out;
    c->route = route;
    c->https = rq->https;
    snprintf(c->peer, sizeof c->peer, "%s", rq->peer != NULL ? rq->peer : "");
    if (call_check(rq, route, c, out) != 0) {
        call_free(c);
        return 1;
    }
    c->req = out->ready != NULL ? first(c) : NULL;
    if (c->req == NULL) {
        call_free(c);
        reply_error(out, 503, "busy", "too many account requests; retry");
        return 1;
    }
    /* The service copied the passwords of a sign-up or sign-in. */
    if (route == R_SIGNUP || route == R_SIGNIN)
        api_wipe(&c->body, sizeof c->body);
    out->deferred = 1;
    out->cancel = on_cancel;
    out->cancel_arg = c;
    return 1;
}
