/* route.h: how the C clients reach a room when carcd runs as several nodes
 * behind a proxy (PROTOCOL.md "Redirects between nodes"). With one carcd no
 * redirect ever comes and route_enter is just connect, welcome, send, answer.
 *
 * The rules, the same for every client:
 * - Every connection starts at the base URL, the one the user gave
 *   (ws://127.0.0.1:8080/ws). A reconnect (close 4003: the node gave the room
 *   up; 1001: it shuts down; a network error) goes to the base URL too, never to
 *   a path a redirect gave, and sends `resume` with the seat token.
 * - A `redirect` answering join, watch or resume names the room's owner: open
 *   its `path` on the same host and port, wait for the welcome, send the same
 *   message again. At most ROUTE_MAX_HOPS in a row; after that, or when the path
 *   does not answer (its node just died: the proxy says 503), wait `retry_ms`
 *   and start again from the base URL.
 * - `create` is never redirected (a room is created where the request lands). */
#ifndef CARC_ROUTE_H
#define CARC_ROUTE_H

#include <stdio.h>

#include "client.h"
#include "ws.h"

#define ROUTE_MAX_HOPS 3         /* redirects followed in a row */
#define ROUTE_PATIENCE_MS 30000  /* the default for route.patience_ms */
#define ROUTE_DEFAULT_RETRY 1000 /* ms, when a redirect names no retry_ms */

struct route {
    const char *base;   /* the base URL (ws://HOST:PORT/PATH) */
    const char *source; /* local address to bind (ws_connect), or NULL */
    int retry_base;     /* 0: a base URL that cannot be connected to is an error at once
                           (a first connection); 1: it is tried again until the patience
                           runs out (a reconnect) */
    int patience_ms;    /* give up after this long in all; 0: ROUTE_PATIENCE_MS */
    FILE *log;          /* a line per redirect followed and per retry, or NULL */
    const char *who;    /* the prefix of those lines ("carc-bot") */
    int redirects;      /* out: redirects followed by the last route_enter */
};

/* Connect c (not connected on entry) to r->base, read its welcome, send msg
 * (not taken) and read until its answer, following redirects by the rules above.
 * Blocking; it sleeps while it waits to retry. Returns WS_OK with c connected to
 * the node that answered and *ev that answer (PROTO_S_JOINED, PROTO_S_WATCHING
 * or PROTO_S_ERROR; what the server sent after it stays buffered in c, for
 * ws_next or ws_recv), or WS_ERROR with c closed and c->err saying why (the base
 * did not answer and retry_base is 0, or the patience ran out). */
int route_enter(struct route *r, struct ws_conn *c, const char *msg, struct proto_client_event *ev);

/* 1 when a connection that ended with this close code (ws_conn.close_code) is
 * to be resumed through the base URL: 1001 (the node shuts down), 4003 (it gave
 * the room up), 1006 or 0 (no close frame: the network or the node failed).
 * Every other code is final (4000: the seat was taken over by a newer
 * connection; 1008, 4001, 4002: this client broke a rule). */
int route_should_resume(int close_code);

#endif
