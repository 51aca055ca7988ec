/* claim_route.c: POST /api/me/claim (PROTOCOL.md "Accounts (HTTP)", "Seats
 * of accounts"): the signed-in account takes the guest seats whose tokens the
 * browser kept. Checked as the other state-changing /api/me routes
 * (account_routes.c): an Origin of this site, the body decoded strictly
 * (protocol/claim_json.h; at most PROTO_CLAIM_BODY_MAX bytes, a limit of its
 * own), the session cookie, then the session looked up on the pool and the
 * X-CSRF-Token header compared with its CSRF token.
 *
 * Then, on the loop, each seat of a room this node's lobby holds is claimed
 * there (game/claim.h); the others go, hashed, to the accounts service in one
 * request (accounts_claim), which claims each in the store when its room is
 * closed, and skips it as "elsewhere" when a node still holds the room (in a
 * cluster, its owner writes the room's seats and would overwrite seats.account).
 * The answer lists every seat once, claimed or skipped with a reason.
 * Deferred (twice: the session, then the stored seats); no-store. A token is
 * never logged nor answered, and the copies here are wiped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claim_json.h"
#include "game/claim.h"
#include "http/api.h"
#include "players/accounts.h"
#include "players/token.h"
#include "sha256.h"
#include "store/accounts_claim.h"
#include "util/mem.h"
#include "util/status.h"

#define NOT_TRIED (-1) /* a seat's outcome before (or without) its claim */

struct claim_call {
    struct api *a;
    struct api_reply *out;
    struct accounts_req *req;
    int https;
    int stage; /* 0: the session's lookup; 1: the stored seats' claim */
    long long account;
    char token[TOKEN_LEN + 1];
    char csrf[TOKEN_LEN + 1];
    struct proto_claim_body body;
    const char *reason[PROTO_CLAIM_MAX]; /* NULL: claimed (seat[i]) */
    int seat[PROTO_CLAIM_MAX];
    int away[PROTO_CLAIM_MAX]; /* the body's index of each stored seat asked */
    int naway;
};

static void call_free(struct claim_call *c)
{
    api_wipe(c, sizeof *c);
    free(c);
}

static const char *lobby_reason(enum lobby_claim o)
{
    switch (o) {
    case LOBBY_CLAIM_DONE:
        return NULL;
    case LOBBY_CLAIM_TAKEN:
        return "taken";
    case LOBBY_CLAIM_ALREADY:
        return "already";
    case LOBBY_CLAIM_OTHER_SEAT:
        return "other_seat";
    default:
        return "bad_token";
    }
}

static const char *store_reason(int o)
{
    switch (o) {
    case STORE_CLAIM_DONE:
        return NULL;
    case STORE_CLAIM_OPEN:
        return "elsewhere";
    case STORE_CLAIM_TAKEN:
        return "taken";
    case STORE_CLAIM_ALREADY:
        return "already";
    case STORE_CLAIM_OTHER_SEAT:
        return "other_seat";
    case STORE_CLAIM_NO_SEAT:
        return "bad_token";
    default:
        return "retry";
    }
}

/* The answer: every seat of the body with its outcome. */
static void answer(struct claim_call *c)
{
    struct proto_claim_outcome o[PROTO_CLAIM_MAX];
    for (int i = 0; i < c->body.n; i++) {
        o[i].room = c->body.seats[i].room;
        o[i].seat = c->seat[i];
        o[i].reason = c->reason[i];
    }
    api_reply_json(c->out, 200, proto_claim_answer_encode(o, c->body.n), NULL);
}

static void on_stored(void *arg, const struct accounts_result *r)
{
    struct claim_call *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL;
    /* A failure (storage, the session gone meanwhile) leaves the seats not
     * tried: "retry". */
    for (int k = 0; k < c->naway; k++) {
        int i = c->away[k];
        const struct accounts_claim_seat *s = r->claim != NULL ? &r->claim->seats[k] : NULL;
        int o = s != NULL && r->status == 0 ? s->outcome : NOT_TRIED;
        if (s != NULL && r->status != 0 && s->outcome == STORE_CLAIM_DONE)
            o = STORE_CLAIM_DONE; /* done before the failure: it stays done */
        c->reason[i] = store_reason(o);
        c->seat[i] = o == STORE_CLAIM_DONE && s != NULL ? s->seat : -1;
    }
    answer(c);
    call_free(c);
    api_reply_ready(out);
}

/* The session is known: the seats held here, then the stored ones. 1 when
 * the stored ones went to the service (still deferred). */
static int claim_seats(struct claim_call *c)
{
    struct accounts_claim *stored = mem_zalloc(1, sizeof *stored);
    for (int i = 0; i < c->body.n; i++) {
        const struct proto_claim_seat *s = &c->body.seats[i];
        enum lobby_claim o = LOBBY_CLAIM_AWAY;
        c->seat[i] = -1;
        if (c->a->claim_lobby != NULL)
            o = lobby_seat_claim(c->a->claim_lobby, s->room, s->token, c->account, &c->seat[i]);
        if (o != LOBBY_CLAIM_AWAY) {
            c->reason[i] = lobby_reason(o);
            if (o != LOBBY_CLAIM_DONE)
                c->seat[i] = -1;
            continue;
        }
        struct accounts_claim_seat *t = &stored->seats[stored->n];
        snprintf(t->room, sizeof t->room, "%s", s->room);
        sha256_hex(s->token, t->token_hash);
        c->reason[i] = "retry";
        c->away[stored->n++] = i;
    }
    c->naway = stored->n;
    /* The tokens are not needed any more: the stored seats go by hash. */
    for (int i = 0; i < c->body.n; i++)
        api_wipe(c->body.seats[i].token, sizeof c->body.seats[i].token);
    if (stored->n > 0) {
        c->stage = 1;
        c->req = accounts_claim(c->a->accounts, c->token, stored, on_stored, c);
    }
    api_wipe(stored, sizeof *stored);
    free(stored);
    return c->req != NULL; /* a full queue: those seats are "retry" */
}

static void on_session(void *arg, const struct accounts_result *r)
{
    struct claim_call *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL;
    if (api_session_check(r, c->csrf, c->https, out) == 0) {
        c->account = r->account;
        if (claim_seats(c))
            return;
        answer(c);
    }
    call_free(c);
    api_reply_ready(out);
}

static void on_cancel(void *arg)
{
    struct claim_call *c = arg;
    if (c->req != NULL)
        accounts_cancel(c->req);
    call_free(c);
}

int api_claim_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    if (strcmp(rq->path, "/api/me/claim") != 0)
        return 0;
    if (strcmp(rq->method, "POST") != 0) {
        api_reply_json_error(out, 405, "method", "method not allowed on this route");
        return 1;
    }
    if (a->accounts == NULL) {
        api_reply_json_error(out, 404, "accounts_off", "this server has no accounts (no storage)");
        return 1;
    }
    if (rq->origin != API_ORIGIN_OK) {
        api_reply_json_error(out, 403, "origin",
                             "a request that changes an account needs an Origin of this site");
        return 1;
    }
    struct claim_call *c = mem_zalloc(1, sizeof *c);
    c->a = a;
    c->out = out;
    c->https = rq->https;
    struct proto_error err;
    proto_error_init(&err);
    if (proto_claim_decode(rq->body != NULL ? rq->body : "", rq->body_len, &c->body, &err) != 0) {
        char text[sizeof err.field + sizeof err.text + 4];
        snprintf(text, sizeof text, "%s%s%s", err.field, err.field[0] ? ": " : "", err.text);
        api_reply_json_error(out, 400, "bad_request", text);
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
