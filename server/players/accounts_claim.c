/* accounts_claim.c: a guest's stored seats claimed by an account (POST
 * /api/me/claim, accounts.h accounts_claim): on the loop, a request about the
 * session of a token carrying the seats (room, token hash) in r->ext; on the
 * pool, the session read again, then each seat claimed in a transaction of
 * its own (store_seat_claim). Seats of rooms running on this node never come
 * here (game/claim.h claims them on the loop). Neither a token nor its hash
 * is logged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_int.h"
#include "store/accounts_claim.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

struct accounts_req *accounts_claim(struct accounts *a, const char *token,
                                    const struct accounts_claim *c, accounts_cb cb, void *arg)
{
    struct accounts_req *r =
        accounts__token_req(a, ACCOUNTS__CLAIM, token, ACCOUNTS_E_SESSION, cb, arg);
    if (r == NULL)
        return NULL;
    struct accounts_claim *mine = mem_zalloc(1, sizeof *mine);
    *mine = *c;
    if (mine->n < 0)
        mine->n = 0;
    if (mine->n > ACCOUNTS_CLAIM_MAX)
        mine->n = ACCOUNTS_CLAIM_MAX;
    for (int i = 0; i < mine->n; i++) {
        mine->seats[i].outcome = STORE_CLAIM_NO_SEAT;
        mine->seats[i].seat = -1;
    }
    r->ext = mine; /* freed with r */
    r->res.claim = mine;
    if (r->where == ACCOUNTS__READY)
        return r;
    return accounts__queue(r);
}

void accounts__claim_job_run(struct accounts_req *r, struct store_accounts *h)
{
    if (accounts__session_read(r, h) != 0)
        return;
    memset(r->res.csrf, 0, sizeof r->res.csrf); /* not part of this answer */
    struct accounts_claim *c = r->ext;
    for (int i = 0; c != NULL && i < c->n; i++) {
        struct accounts_claim_seat *s = &c->seats[i];
        int rc = store_seat_claim(h, s->room, s->token_hash, r->res.account, &s->outcome, &s->seat);
        if (rc == STORE_E_ARGS) { /* cannot be: the route checked the shapes */
            s->outcome = STORE_CLAIM_NO_SEAT;
            continue;
        }
        if (rc != 0) {
            accounts__storage_failed(r, h, "a claim of a guest's seat", rc);
            return;
        }
        if (s->outcome == STORE_CLAIM_DONE)
            log_event(LOG_INFO, &(struct log_fields){.room = s->room, LOG_SEAT(s->seat)},
                      "a guest's stored seat claimed by account %lld", r->res.account);
    }
    accounts__set(&r->res, 0);
}
