/* admin_accounts.c: the admin API's accounts and invites (admin_int.h) over
 * players/accounts.h:
 *
 *   GET  /admin/accounts?page=N          {"accounts":[...],"page":N}, 50 a page by id
 *   POST /admin/accounts/{name}/disable  {"name","disabled":true}; its sessions end
 *   POST /admin/accounts/{name}/enable   {"name","disabled":false}
 *   POST /admin/accounts/{name}/reset    {"name","password"}: a new password, shown once
 *   POST /admin/invites                  201 {"code","expires"}
 *
 * Every answer is deferred (the service works on the thread pool) and
 * cancelled by api_reply_free. A reset's password and an invite's code are
 * in the answer only: the log line of each request has its status, never its
 * body. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/admin.h"
#include "http/admin_int.h"
#include "players/accounts.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

#define PER_PAGE 50

/* One request in flight, owned by the reply (cancel_arg) until answered. */
struct call {
    struct api_reply *out;
    struct accounts_req *req;
    int kind; /* enum admin_route_kind */
    int page;
    char what[160]; /* "POST /admin/... from PEER" for the log */
};

static char *list_json(const struct accounts_result *r, int page)
{
    struct admin_json j;
    admin__json_init(&j);
    admin__json_raw(&j, "{\"accounts\":[");
    for (int i = 0; i < r->nlist; i++) {
        const struct accounts_entry *e = &r->list[i];
        admin__json_fmt(&j, "%s{\"id\":%lld,\"name\":", i ? "," : "", e->id);
        admin__json_str(&j, e->name);
        admin__json_fmt(&j, ",\"created\":%lld,\"disabled\":%s,\"deleted\":%s}", e->created_ms,
                        e->disabled ? "true" : "false", e->deleted ? "true" : "false");
    }
    admin__json_fmt(&j, "],\"page\":%d}", page);
    return admin__json_take(&j);
}

/* {"name":NAME,KEY:VALUE} with VALUE raw JSON (or a string when quoted). */
static char *named_json(const char *name, const char *key, const char *value, int quoted)
{
    struct admin_json j;
    admin__json_init(&j);
    admin__json_raw(&j, "{\"name\":");
    admin__json_str(&j, name);
    admin__json_fmt(&j, ",\"%s\":", key);
    if (quoted)
        admin__json_str(&j, value);
    else
        admin__json_raw(&j, value);
    admin__json_raw(&j, "}");
    return admin__json_take(&j);
}

static void reply_success(struct call *c, const struct accounts_result *r)
{
    struct api_reply *out = c->out;
    switch (c->kind) {
    case ADMIN_R_ACCOUNTS:
        admin__reply(out, 200, list_json(r, c->page));
        break;
    case ADMIN_R_ACCOUNT_RESET:
        admin__reply(out, 200, named_json(r->name, "password", r->password, 1));
        break;
    case ADMIN_R_INVITES: {
        struct admin_json j;
        admin__json_init(&j);
        admin__json_raw(&j, "{\"code\":");
        admin__json_str(&j, r->invite);
        admin__json_fmt(&j, ",\"expires\":%lld}", r->expires_ms);
        admin__reply(out, 201, admin__json_take(&j));
        break;
    }
    default: /* disable, enable */
        admin__reply(out, 200, named_json(r->name, "disabled", r->disabled ? "true" : "false", 0));
        break;
    }
}

static void on_answer(void *arg, const struct accounts_result *r)
{
    struct call *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL;
    if (r->status == 0)
        reply_success(c, r);
    else if (r->status == ACCOUNTS_E_UNKNOWN)
        admin__error(out, 404, "no_such_account");
    else
        admin__error(out, 503, "storage_error");
    /* The status alone: a 200's or 201's body may hold a password or a code. */
    log_info("admin: %s: %d%s%s", c->what, out->status, r->status != 0 ? " " : "",
             r->status != 0 ? srv_status_name(r->status) : "");
    api_wipe(c, sizeof *c);
    free(c);
    api_reply_ready(out);
}

static void on_cancel(void *arg)
{
    struct call *c = arg;
    accounts_cancel(c->req);
    api_wipe(c, sizeof *c);
    free(c);
}

static struct accounts_req *ask(struct accounts *s, const struct admin_path *ap, struct call *c)
{
    switch (ap->kind) {
    case ADMIN_R_ACCOUNTS:
        return accounts_list(s, (c->page - 1) * PER_PAGE, PER_PAGE, on_answer, c);
    case ADMIN_R_ACCOUNT_DISABLE:
    case ADMIN_R_ACCOUNT_ENABLE:
        return accounts_disable(s, ap->account, ap->kind == ADMIN_R_ACCOUNT_DISABLE, on_answer, c);
    case ADMIN_R_ACCOUNT_RESET:
        return accounts_reset(s, ap->account, on_answer, c);
    default:
        return accounts_invite_admin(s, on_answer, c);
    }
}

void admin__accounts_route(struct admin *ad, const struct api_request *rq,
                           const struct admin_path *ap, struct api_reply *out)
{
    if (ad->accounts == NULL || out->ready == NULL) {
        admin__error(out, 503, "no_storage");
        return;
    }
    if (ap->kind != ADMIN_R_ACCOUNTS && ap->kind != ADMIN_R_INVITES && ap->account[0] == '\0') {
        admin__error(out, 404, "no_such_account"); /* longer than any name */
        return;
    }
    struct call *c = mem_zalloc(1, sizeof *c);
    c->out = out;
    c->kind = ap->kind;
    c->page = api_query_page(rq->query);
    snprintf(c->what, sizeof c->what, "%s %s from %s", rq->method, rq->path,
             rq->peer != NULL && rq->peer[0] != '\0' ? rq->peer : "?");
    c->req = ask(ad->accounts, ap, c);
    if (c->req == NULL) {
        free(c);
        admin__error(out, 503, "busy");
        return;
    }
    out->deferred = 1;
    out->cancel = on_cancel;
    out->cancel_arg = c;
}
