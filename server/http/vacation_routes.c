/* vacation_routes.c: the vacation bank (PROTOCOL.md "Vacations"):
 *
 *   GET    /api/me/vacation   the bank: {"days_per_year", "days_left", "year",
 *                             "from", "until"} (from and until: the vacation
 *                             going on, null when none)
 *   POST   /api/me/vacation   {"days": N}: N days from now (or added to the
 *                             vacation going on); 409 not_enough_days
 *   DELETE /api/me/vacation   the vacation going on ends now, its whole days
 *                             not begun back in the bank; 404 no_vacation
 *
 * Checked as push_routes.c's: an Origin of this site for a change, the body
 * decoded strictly (protocol/vacation_json.h), the session cookie, the
 * session looked up on the pool and X-CSRF-Token compared, then the bank
 * changed by a second request of the accounts service; the rooms this node
 * holds learn the change at once (game/lobby.h lobby_vacation_set), other
 * nodes' rooms when a clock runs out. Deferred; no-store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/lobby.h"
#include "http/api.h"
#include "players/accounts.h"
#include "players/token.h"
#include "util/clock.h"
#include "util/mem.h"
#include "util/status.h"
#include "vacation_json.h"

enum { V_GET = 0, V_START, V_END };

struct vac_call {
    struct api *a;
    struct api_reply *out;
    struct accounts_req *req;
    int https, op, days;
    char token[TOKEN_LEN + 1];
    char csrf[TOKEN_LEN + 1];
};

static void call_free(struct vac_call *c)
{
    api_wipe(c, sizeof *c);
    free(c);
}

static void bank_reply(struct api_reply *out, const struct accounts_vacation *v)
{
    char buf[256], from[24] = "null", until[24] = "null";
    if (v->until_ms > clock_wall_ms()) {
        snprintf(from, sizeof from, "%lld", v->from_ms);
        snprintf(until, sizeof until, "%lld", v->until_ms);
    }
    snprintf(buf, sizeof buf,
             "{\"days_per_year\":%d,\"days_left\":%d,\"year\":%d,\"from\":%s,\"until\":%s}",
             v->days_per_year, v->days_left, v->year, from, until);
    api_reply_json(out, 200, mem_strdup(buf), NULL);
}

static void on_done(void *arg, const struct accounts_result *r)
{
    struct vac_call *c = arg;
    struct api_reply *out = c->out;
    const struct accounts_vacation *v = r->vacation;
    c->req = NULL;
    if (r->status == 0 && v != NULL && c->op == V_START && !v->taken) {
        api_reply_json_error(out, 409, "not_enough_days",
                             "the vacation bank has fewer days left this year");
    } else if (r->status == 0 && v != NULL) {
        if (c->op != V_GET && c->a->claim_lobby != NULL)
            lobby_vacation_set(c->a->claim_lobby, v->account, v->from_ms, v->until_ms);
        bank_reply(out, v);
    } else if (r->status == ACCOUNTS_E_UNKNOWN) {
        api_reply_json_error(out, 404, "no_vacation", "no vacation is going on");
    } else if (r->status == ACCOUNTS_E_SESSION) {
        api_reply_json_error(out, 401, "not_signed_in", "not signed in");
    } else {
        api_reply_json_error(out, 503, "storage_error", "the accounts database failed; retry");
    }
    call_free(c);
    api_reply_ready(out);
}

static void on_session(void *arg, const struct accounts_result *r)
{
    struct vac_call *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL;
    if (api_session_check(r, c->csrf, c->https, out) == 0) {
        struct accounts *ac = c->a->accounts;
        c->req = c->op == V_START ? accounts_vacation_start(ac, c->token, c->days, on_done, c)
                                  : accounts_vacation_end(ac, c->token, on_done, c);
        if (c->req != NULL)
            return;
        api_reply_json_error(out, 503, "busy", "too many account requests; retry");
    }
    call_free(c);
    api_reply_ready(out);
}

static void on_cancel(void *arg)
{
    struct vac_call *c = arg;
    if (c->req != NULL)
        accounts_cancel(c->req);
    call_free(c);
}

/* POST's body into c->days: 0, or -1 with the answer written. */
static int days_read(const struct api_request *rq, struct vac_call *c, struct api_reply *out)
{
    struct proto_error err;
    proto_error_init(&err);
    if (proto_vacation_decode(rq->body != NULL ? rq->body : "", rq->body_len, &c->days, &err) == 0)
        return 0;
    char text[sizeof err.field + sizeof err.text + 4];
    snprintf(text, sizeof text, "%s", err.text);
    api_reply_json_error(out, 400, "bad_request", text);
    return -1;
}

int api_vacation_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    if (strcmp(rq->path, "/api/me/vacation") != 0)
        return 0;
    int op = strcmp(rq->method, "GET") == 0      ? V_GET
             : strcmp(rq->method, "POST") == 0   ? V_START
             : strcmp(rq->method, "DELETE") == 0 ? V_END
                                                 : -1;
    if (a->accounts == NULL || !a->vacations) {
        api_reply_json_error(out, 404, "vacations_off",
                             "this server keeps no vacation bank (no accounts, or vacation-days"
                             " is 0)");
        return 1;
    }
    if (op < 0) {
        api_reply_json_error(out, 405, "method", "method not allowed on this route");
        return 1;
    }
    if (op != V_GET && rq->origin != API_ORIGIN_OK) {
        api_reply_json_error(out, 403, "origin",
                             "a request that changes an account needs an Origin of this site");
        return 1;
    }
    struct vac_call *c = mem_zalloc(1, sizeof *c);
    c->a = a;
    c->out = out;
    c->https = rq->https;
    c->op = op;
    if ((op == V_START && days_read(rq, c, out) != 0) ||
        !api_cookie_session(rq->cookie, c->token)) {
        if (out->status == 0)
            api_reply_json_error(out, 401, "not_signed_in", "not signed in");
        call_free(c);
        return 1;
    }
    if (rq->csrf != NULL && strlen(rq->csrf) == TOKEN_LEN)
        memcpy(c->csrf, rq->csrf, TOKEN_LEN + 1);
    if (out->ready != NULL)
        c->req = op == V_GET ? accounts_vacation_get(a->accounts, c->token, on_done, c)
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
