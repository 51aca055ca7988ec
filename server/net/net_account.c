/* net_account.c: the account of a websocket connection (issue 27). At the
 * upgrade (which passed the Origin check), a carcd_session cookie is looked
 * up by the accounts service (players/accounts.h) before the connection's
 * first message is read: reading pauses (lws_rx_flow_control) until the
 * answer, at most NET_ACCOUNT_MS; then the session carries the account's id
 * and name (conn/session.h), or nothing: no cookie, an unknown or expired
 * session, an error, a full queue or no answer in time, and the connection
 * goes on as a guest. A guest without a cookie never waits. */
#include "net/net_int.h"

#include <stdio.h>
#include <string.h>

#include "players/accounts.h"
#include "util/log.h"

#define NET_ACCOUNT_MS 5000

/* Read again, with or without an account. */
static void account_done(struct conn *c)
{
    c->acct_req = NULL;
    lws_sul_cancel(&c->acct_sul);
    if (c->kind == CONN_WS)
        lws_rx_flow_control(c->s.conn, 1);
}

static void account_answer(void *arg, const struct accounts_result *r)
{
    struct conn *c = arg;
    struct session *s = &c->s;
    if (r->status == 0 && r->account > 0) {
        s->account = r->account;
        snprintf(s->account_name, sizeof s->account_name, "%s", r->name);
        log_event(LOG_DEBUG, &(struct log_fields){.addr = s->peer, .session = s->id},
                  "connection signed in as account %lld", r->account);
    }
    account_done(c);
}

static void account_timeout(lws_sorted_usec_list_t *sul)
{
    struct conn *c = lws_container_of(sul, struct conn, acct_sul);
    log_event(LOG_INFO, &(struct log_fields){.addr = c->s.peer, .session = c->s.id},
              "no answer about the connection's account in time: a guest");
    accounts_cancel(c->acct_req);
    account_done(c);
}

void net__ws_account_start(struct net *n, struct lws *wsi, struct conn *c)
{
    if (n->api == NULL || n->api->accounts == NULL || c->s.closing)
        return;
    char cookie[HTTP_HEADER_MAX], token[TOKEN_LEN + 1];
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_COOKIE) >= (int)sizeof cookie ||
        lws_hdr_copy(wsi, cookie, sizeof cookie, WSI_TOKEN_HTTP_COOKIE) < 0)
        cookie[0] = '\0';
    int have = api_cookie_session(cookie, token);
    struct accounts_req *req =
        have ? accounts_session(n->api->accounts, token, account_answer, c) : NULL;
    /* The session token: never left behind on the stack. */
    volatile char *v = cookie;
    for (size_t i = 0; i < sizeof cookie; i++)
        v[i] = 0;
    v = token;
    for (size_t i = 0; i < sizeof token; i++)
        v[i] = 0;
    if (!have)
        return;
    if (req == NULL) {
        log_event(LOG_INFO, &(struct log_fields){.addr = c->s.peer, .session = c->s.id},
                  "the accounts service is busy: the connection is a guest");
        return;
    }
    c->acct_req = req;
    lws_rx_flow_control(wsi, 0);
    lws_sul_schedule(n->ctx, 0, &c->acct_sul, account_timeout,
                     (lws_usec_t)NET_ACCOUNT_MS * LWS_US_PER_MS);
}

void net__ws_account_stop(struct conn *c)
{
    if (c->acct_req == NULL)
        return;
    accounts_cancel(c->acct_req);
    c->acct_req = NULL;
    lws_sul_cancel(&c->acct_sul);
}
