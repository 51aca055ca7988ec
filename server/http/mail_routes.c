/* mail_routes.c: e-mail's routes (PROTOCOL.md "Notifications", "E-mail"),
 * and what the mailer (notify/mail.h) asks of the lobby and the accounts
 * service:
 *
 *   GET    /api/me/email   {"address": str|null, "digest": bool, "reminders": bool}
 *   PUT    /api/me/email   the same (address required; digest, reminders true when absent)
 *   DELETE /api/me/email   the address and settings removed
 *   GET    /unsubscribe?token=T   digest and reminders off for the account of T; a small
 *   POST   /unsubscribe?token=T   HTML page (POST: RFC 8058's one-click, body not read)
 *
 * /api/me/email is checked as the other /api/me routes (push_routes.c): an
 * Origin of this site for PUT and DELETE, the body decoded strictly
 * (protocol/mail_json.h), the session cookie, then the session looked up
 * on the pool and X-CSRF-Token compared with its CSRF token; only then is
 * anything stored (a second request of the accounts service). Without
 * smtp-url (a->mail 0) /api/me/email answers 404 mail_off; /unsubscribe
 * still works (a link of an older mail). Deferred; no-store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/lobby.h"
#include "game/room.h"
#include "http/api.h"
#include "mail_json.h"
#include "notify/mail.h"
#include "players/accounts.h"
#include "players/token.h"
#include "util/clock.h"
#include "util/mem.h"
#include "util/status.h"

enum { OP_GET = 1, OP_PUT, OP_DELETE, OP_UNSUB };

struct mail_call {
    struct api *a;
    struct api_reply *out;
    struct accounts_req *req;
    int https, op;
    char token[TOKEN_LEN + 1];
    char csrf[TOKEN_LEN + 1];
    struct proto_mail_body body;
};

static void call_free(struct mail_call *c)
{
    api_wipe(c, sizeof *c);
    free(c);
}

static void html_reply(struct api_reply *out, int status, const char *text)
{
    static const char head[] = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                               "<title>carcd e-mail</title></head><body><p>";
    size_t n = sizeof head + strlen(text) + 32;
    char *html = mem_alloc(n);
    snprintf(html, n, "%s%s</p></body></html>\n", head, text);
    free(out->owned);
    out->status = status;
    out->content_type = "text/html; charset=utf-8";
    out->cache_control = "no-store";
    out->owned = html;
    out->body = html;
    out->len = strlen(html);
}

static void settings_reply(struct api_reply *out, const struct accounts_mail *m)
{
    size_t n = 2 * ACCOUNTS_MAIL_ADDRESS_MAX + 96;
    char *json = mem_alloc(n);
    /* The address is printable ASCII without '"' or '\\' (mail_json.h): no escaping. */
    if (m != NULL && m->address[0] != '\0')
        snprintf(json, n, "{\"address\":\"%s\",\"digest\":%s,\"reminders\":%s}", m->address,
                 m->digest ? "true" : "false", m->reminders ? "true" : "false");
    else
        snprintf(json, n, "{\"address\":null,\"digest\":false,\"reminders\":false}");
    api_reply_json(out, 200, json, NULL);
}

static void on_done(void *arg, const struct accounts_result *r)
{
    struct mail_call *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL;
    if (c->op == OP_UNSUB)
        html_reply(out,
                   r->status == 0                    ? 200
                   : r->status == ACCOUNTS_E_UNKNOWN ? 404
                                                     : 503,
                   r->status == 0 ? "E-mail from carcd is off for this account: no daily digest,"
                                    " no reminders. You can turn it on again on your account page."
                   : r->status == ACCOUNTS_E_UNKNOWN
                       ? "This unsubscribe link is unknown (its address was removed?)."
                       : "The accounts database failed; please try again later.");
    else if (r->status == 0 && c->op == OP_GET)
        settings_reply(out, r->nmail > 0 ? r->mail : NULL);
    else if (r->status == 0) {
        out->status = 204;
        out->content_type = "application/json";
        out->cache_control = "no-store";
        out->body = "";
        out->len = 0;
    } else if (r->status == ACCOUNTS_E_UNKNOWN)
        api_reply_json_error(out, 404, "no_email", "this account has no e-mail address");
    else if (r->status == ACCOUNTS_E_SESSION)
        api_reply_json_error(out, 401, "not_signed_in", "not signed in");
    else
        api_reply_json_error(out, 503, "storage_error", "the accounts database failed; retry");
    call_free(c);
    api_reply_ready(out);
}

static void on_session(void *arg, const struct accounts_result *r)
{
    struct mail_call *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL;
    if (api_session_check(r, c->csrf, c->https, out) == 0) {
        struct accounts *ac = c->a->accounts;
        c->req = c->op == OP_PUT ? accounts_mail_put(ac, c->token, c->body.address, c->body.digest,
                                                     c->body.reminders, on_done, c)
                                 : accounts_mail_delete(ac, c->token, on_done, c);
        if (c->req != NULL)
            return;
        api_reply_json_error(out, 503, "busy", "too many account requests; retry");
    }
    call_free(c);
    api_reply_ready(out);
}

static void on_cancel(void *arg)
{
    struct mail_call *c = arg;
    if (c->req != NULL)
        accounts_cancel(c->req);
    call_free(c);
}

/* c's request made (or 503 busy): the reply deferred. */
static int call_start(struct mail_call *c, struct api_reply *out)
{
    if (c->req == NULL) {
        int unsub = c->op == OP_UNSUB;
        call_free(c);
        if (unsub)
            html_reply(out, 503, "carcd is busy; please try again in a moment.");
        else
            api_reply_json_error(out, 503, "busy", "too many account requests; retry");
        return 1;
    }
    out->deferred = 1;
    out->cancel = on_cancel;
    out->cancel_arg = c;
    return 1;
}

/* PUT's body into c: 0, or -1 with the answer written. */
static int body_read(const struct api_request *rq, struct mail_call *c, struct api_reply *out)
{
    struct proto_error err;
    proto_error_init(&err);
    if (proto_mail_decode(rq->body != NULL ? rq->body : "", rq->body_len, &c->body, &err) == 0)
        return 0;
    char text[sizeof err.field + sizeof err.text + 4];
    snprintf(text, sizeof text, "%s%s%s", err.field, err.field[0] ? ": " : "", err.text);
    api_reply_json_error(out, 400, "bad_request", text);
    return -1;
}

static int email_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    int op = strcmp(rq->method, "GET") == 0      ? OP_GET
             : strcmp(rq->method, "PUT") == 0    ? OP_PUT
             : strcmp(rq->method, "DELETE") == 0 ? OP_DELETE
                                                 : 0;
    if (a->accounts == NULL)
        api_reply_json_error(out, 404, "accounts_off", "this server has no accounts (no storage)");
    else if (!a->mail)
        api_reply_json_error(out, 404, "mail_off", "this server sends no e-mail (no smtp-url)");
    else if (op == 0)
        api_reply_json_error(out, 405, "method", "method not allowed on this route");
    else if (op != OP_GET && rq->origin != API_ORIGIN_OK)
        api_reply_json_error(out, 403, "origin",
                             "a request that changes an account needs an Origin of this site");
    if (out->status != 0)
        return 1;
    struct mail_call *c = mem_zalloc(1, sizeof *c);
    c->a = a;
    c->out = out;
    c->https = rq->https;
    c->op = op;
    if ((op == OP_PUT && body_read(rq, c, out) != 0) || !api_cookie_session(rq->cookie, c->token)) {
        if (out->status == 0)
            api_reply_json_error(out, 401, "not_signed_in", "not signed in");
        call_free(c);
        return 1;
    }
    if (rq->csrf != NULL && strlen(rq->csrf) == TOKEN_LEN)
        memcpy(c->csrf, rq->csrf, TOKEN_LEN + 1);
    if (out->ready != NULL)
        c->req = op == OP_GET ? accounts_mail_get(a->accounts, c->token, on_done, c)
                              : accounts_session(a->accounts, c->token, on_session, c);
    return call_start(c, out);
}

static int unsubscribe_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    int get = strcmp(rq->method, "GET") == 0 || strcmp(rq->method, "HEAD") == 0;
    const char *t = rq->query != NULL && strncmp(rq->query, "token=", 6) == 0 ? rq->query + 6 : "";
    if (!get && strcmp(rq->method, "POST") != 0) {
        html_reply(out, 405, "Method not allowed.");
        return 1;
    }
    if (a->accounts == NULL || !token_valid(t)) {
        html_reply(out, 404, "This unsubscribe link is unknown.");
        return 1;
    }
    out->head = strcmp(rq->method, "HEAD") == 0;
    struct mail_call *c = mem_zalloc(1, sizeof *c);
    c->a = a;
    c->out = out;
    c->op = OP_UNSUB;
    if (out->ready != NULL)
        c->req = accounts_mail_unsubscribe(a->accounts, t, on_done, c);
    return call_start(c, out);
}

int api_mail_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    if (strcmp(rq->path, "/api/me/email") == 0)
        return email_route(a, rq, out);
    if (strcmp(rq->path, "/unsubscribe") == 0)
        return unsubscribe_route(a, rq, out);
    return 0;
}

/* ---- what the mailer asks (main wires these into struct mail_ops) ---- */

int api_mail_waiting(const struct lobby *lb, struct mail_game *out, int max)
{
    int n = 0;
    long long now = clock_wall_ms();
    for (const struct room *r = lb != NULL ? lb->newest : NULL; r != NULL && n < max;
         r = r->older) {
        if (r->game == NULL || r->phase != PROTO_PHASE_PLAYING)
            continue;
        int turn = r->game->current;
        if (turn < 0 || turn >= r->nseats || r->seats[turn].account <= 0 || r->seats[turn].bot)
            continue;
        struct mail_game *g = &out[n++];
        memset(g, 0, sizeof *g);
        snprintf(g->room, sizeof g->room, "%s", r->id);
        g->account = r->seats[turn].account;
        g->seat = turn;
        if (r->clock.initial > 0) {
            long long left = r->seats[turn].clock_ms;
            if (r->turn_ms != 0)
                left -= now - r->turn_wall;
            g->deadline = now + (left > 0 ? left : 0);
        }
        g->n = r->nseats < NOTIFIER_PLAYERS ? r->nseats : NOTIFIER_PLAYERS;
        for (int i = 0; i < g->n; i++)
            snprintf(g->names[i], sizeof g->names[i], "%s", r->seats[i].name);
    }
    return n;
}

static void on_read(void *arg, const struct accounts_result *r)
{
    struct mail_account rows[ACCOUNTS_MAIL_BATCH];
    int n = 0;
    for (int i = 0; r->status == 0 && i < r->nmail && n < ACCOUNTS_MAIL_BATCH; i++, n++) {
        const struct accounts_mail *m = &r->mail[i];
        rows[n].account = m->account;
        snprintf(rows[n].address, sizeof rows[n].address, "%s", m->address);
        rows[n].digest = m->digest;
        rows[n].reminders = m->reminders;
        snprintf(rows[n].unsub, sizeof rows[n].unsub, "%s", m->unsub);
        rows[n].claimed = m->claimed;
    }
    mail_settings_answer(arg, rows, n);
}

int api_mail_settings(struct accounts *ac, const long long *ids, int n, long long day,
                      struct mail_ask *ask)
{
    return ac != NULL && accounts_mail_read(ac, ids, n, day, on_read, ask) != NULL ? 0 : -1;
}
