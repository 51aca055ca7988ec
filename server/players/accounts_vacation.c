/* accounts_vacation.c: the vacation bank in the accounts service
 * (accounts.h "vacations"), both sides: on the loop, a request whose
 * operation is in r->ext; on the pool, the session read again when the
 * operation is a signed-in page's, then store/accounts_vacation.h. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accounts_int.h"
#include "store/accounts_vacation.h"
#include "util/mem.h"
#include "util/status.h"

enum op { OP_GET, OP_START, OP_END, OP_AUTO };

struct vac_ext {
    int op;
    int days;     /* OP_START */
    long long at; /* OP_AUTO: when the clock ran out */
    struct accounts_vacation v;
};

static struct accounts_req *vac_req(struct accounts_req *r, int op)
{
    if (r == NULL || r->where == ACCOUNTS__READY)
        return r;
    struct vac_ext *x = mem_zalloc(1, sizeof *x);
    x->op = op;
    r->ext = x; /* freed with r */
    return r;
}

struct accounts_req *accounts_vacation_get(struct accounts *a, const char *token, accounts_cb cb,
                                           void *arg)
{
    struct accounts_req *r = vac_req(
        accounts__token_req(a, ACCOUNTS__VACATION, token, ACCOUNTS_E_SESSION, cb, arg), OP_GET);
    return r == NULL || r->where == ACCOUNTS__READY ? r : accounts__queue(r);
}

struct accounts_req *accounts_vacation_start(struct accounts *a, const char *token, int days,
                                             accounts_cb cb, void *arg)
{
    struct accounts_req *r = vac_req(
        accounts__token_req(a, ACCOUNTS__VACATION, token, ACCOUNTS_E_SESSION, cb, arg), OP_START);
    if (r == NULL || r->where == ACCOUNTS__READY)
        return r;
    ((struct vac_ext *)r->ext)->days = days;
    return accounts__queue(r);
}

struct accounts_req *accounts_vacation_end(struct accounts *a, const char *token, accounts_cb cb,
                                           void *arg)
{
    struct accounts_req *r = vac_req(
        accounts__token_req(a, ACCOUNTS__VACATION, token, ACCOUNTS_E_SESSION, cb, arg), OP_END);
    return r == NULL || r->where == ACCOUNTS__READY ? r : accounts__queue(r);
}

struct accounts_req *accounts_vacation_auto(struct accounts *a, long long account, long long at,
                                            accounts_cb cb, void *arg)
{
    struct accounts_req *r = vac_req(accounts__req_new(a, ACCOUNTS__VACATION, cb, arg), OP_AUTO);
    if (r == NULL)
        return NULL;
    struct vac_ext *x = r->ext;
    x->v.account = account;
    x->at = at;
    return accounts__queue(r);
}

/* The UTC calendar year of now_ms. */
static int year_of(long long now_ms)
{
    time_t t = (time_t)(now_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    return tm.tm_year + 1900;
}

void accounts__vacation_job_run(struct accounts_req *r, struct store_accounts *h)
{
    struct vac_ext *x = r->ext;
    if (x->op != OP_AUTO) {
        if (accounts__session_read(r, h) != 0)
            return;
        memset(r->res.csrf, 0, sizeof r->res.csrf); /* not part of these answers */
        x->v.account = r->res.account;
    }
    int per_year = r->a->cfg.vacation_days, year = year_of(r->now), rc = 0, done = 0;
    struct store_vacation cur;
    if (x->op == OP_START)
        rc = store_vacation_take(h, x->v.account, year, x->days, per_year, r->now, 0, &done);
    else if (x->op == OP_END)
        rc = store_vacation_end(h, x->v.account, year, r->now, &done);
    else if (x->op == OP_AUTO && per_year > 0)
        rc = store_vacation_take(h, x->v.account, year, 1, per_year,
                                 x->at > 0 && x->at <= r->now ? x->at : r->now, 1, &done);
    if (rc == 0)
        rc = store_vacation_get(h, x->v.account, year, &cur);
    if (rc != 0) {
        accounts__storage_failed(r, h, "an account's vacation", rc);
        return;
    }
    x->v.days_per_year = per_year;
    x->v.days_left = per_year - cur.used > 0 ? per_year - cur.used : 0;
    x->v.year = year;
    x->v.from_ms = cur.from_ms;
    x->v.until_ms = cur.until_ms;
    x->v.taken = (x->op == OP_START || x->op == OP_AUTO) && done;
    r->res.vacation = &x->v;
    accounts__set(&r->res, x->op == OP_END && !done ? ACCOUNTS_E_UNKNOWN : 0);
}
