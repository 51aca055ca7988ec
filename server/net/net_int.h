/* net_int.h: what the network adapter's files share (net.c: the lws context,
 * its listeners, websocket connections; net_http.c: HTTP requests and replies).
 * It includes libwebsockets.h: only server/net/ may include it. */
#ifndef CARCD_NET_INT_H
#define CARCD_NET_INT_H

#include <libwebsockets.h>
#include <stddef.h>

#include "conn/session.h"
#include "http/api.h"
#include "net/net.h"
#include "net/proxy.h"

/* HTTP request bounds (server/README.md "HTTP"). lws keeps a request's headers
 * in one buffer of HTTP_HEADERS_MAX bytes and drops a request that overflows
 * it without an answer; a per-header limit (lws's token_limits) instead
 * truncates that header and skips the rest of its line, which we see and
 * answer: a request target of HTTP_URI_MAX bytes or more gets 414, any known
 * header of HTTP_HEADER_MAX bytes or more (repeats added up) gets 431. */
#define HTTP_URI_MAX 2048
#define HTTP_HEADER_MAX 4096
#define HTTP_HEADERS_MAX 8192

/* Owned by net_start's caller: net_free frees it. */
struct net {
    uv_loop_t *loop;
    struct lobby *lobby;
    struct api *api;
    struct stall *stall; /* NULL: the lobby's clock is uv_now alone */
    struct lws_context *ctx;
    struct lws_vhost *vh;
    struct lws_vhost *mvh; /* the metrics listener (metrics-port), or NULL */
    int port;
    int stopping; /* lws_context_destroy has begun: the sinks do nothing */
    lws_retry_bo_t retry;
    char iface[64], miface[64];
    struct proxy_list proxies; /* trusted-proxies */
};

enum conn_kind { CONN_NONE = 0, CONN_HTTP, CONN_WS };

enum http_pending {
    HTTP_IDLE = 0,
    HTTP_WAITING, /* a deferred reply: waiting for the database */
    HTTP_HEADERS, /* its reply is ready: headers on the next writable */
    HTTP_BODY,    /* headers sent; body chunks on each writable */
};

/* Per-connection memory, allocated and zeroed by lws for the protocol. */
struct conn {
    int kind;
    int fd;                           /* CONN_WS: its socket, for net_rx_forget */
    int close_started;                /* ws_close_now() has run */
    lws_sorted_usec_list_t close_sul; /* a deferred ws_close_now() */
    struct session s;                 /* CONN_WS */
    struct {                          /* CONN_HTTP: the reply being written */
        struct api_reply reply;
        struct lws *wsi;
        size_t off;
        int pending; /* enum http_pending */
        int close;   /* close the connection after this reply (a refused request) */
    } http;
};

/* The address the per-address limits count and the logs show: the TCP peer,
 * or, when the peer is a trusted proxy, the client it forwards
 * (proxy_client_find). Headers are read here, at the upgrade: lws keeps them
 * until ESTABLISHED returns. */
void net__client_address(struct net *n, struct lws *wsi, char *buf, size_t size);

/* LWS_CALLBACK_HTTP for the request at path (len bytes, as lws decoded it):
 * refused (http_refusal), routed to api.c, or deferred until the database
 * answers. The protocol callback's result: -1 closes the connection. */
int net__http_request(struct net *n, struct lws *wsi, struct conn *c, const char *path, size_t len);

/* LWS_CALLBACK_HTTP_WRITEABLE: the reply's headers, or its next body chunk. */
int net__http_writeable(struct lws *wsi, struct conn *c);

/* The HTTP connection is closed or destroyed: its reply is freed (which
 * cancels a read in flight). Nothing for c NULL or not CONN_HTTP. */
void net__http_closed(struct conn *c);

#endif
