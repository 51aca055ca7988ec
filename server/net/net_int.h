/* net_int.h: what the network adapter's files share (net.c: the lws context,
 * its listeners, websocket connections; net_http.c: HTTP requests and replies).
 * It includes libwebsockets.h: only server/net/ may include it. */
#ifndef CARCD_NET_INT_H
#define CARCD_NET_INT_H

#include <libwebsockets.h>
#include <stddef.h>

#include "conn/session.h"
#include "http/api.h"
#include "conn/rxguard.h"
#include "net/net.h"
#include "net/origin.h"
#include "net/proxy.h"

/* HTTP request bounds (server/README.md "HTTP"). lws keeps a request's headers
 * in one buffer of HTTP_HEADERS_MAX bytes, and the path, each query parameter
 * and each header it knows in a table of WSI_TOKEN_COUNT fragments; it drops a
 * request that overflows either without an answer. So the raw bytes are
 * judged first (net_rx.c, rxguard.h): a request target of HTTP_URI_MAX bytes
 * or more gets 414, more than HTTP_PARAMS_MAX query parameters 400, more than
 * HTTP_FIELDS_MAX header fields, unknown header fields whose values add up to
 * HTTP_HEADER_MAX bytes or more, or a head of HTTP_HEAD_MAX bytes or more 431.
 * A per-header limit (lws's token_limits) truncates a known header and skips
 * the rest of its line, which net_http.c sees and answers: any known header
 * of HTTP_HEADER_MAX bytes or more (repeats added up) gets 431. */
#define HTTP_URI_MAX 2048
#define HTTP_HEADER_MAX 4096
#define HTTP_HEADERS_MAX 8192
#define HTTP_PARAMS_MAX 32
#define HTTP_FIELDS_MAX 40
#define HTTP_HEAD_MAX 7168 /* net.c checks that lws' buffer holds any head below it */
/* Request bodies: only the account routes take one (api_account_body_route),
 * application/json of at most the route's limit (4096 bytes; POST
 * /api/me/claim 16384, HTTP_BODY_MAX, the buffer of one), read whole within
 * HTTP_BODY_MS of the head (lws drops a body that stalls for 5 s, its
 * timeout_secs, on its own; this bounds one that trickles). */
#define HTTP_BODY_MAX 16384
#define HTTP_BODY_MS 10000

/* One listening socket of carcd's own (net_listen.c): connections accepted
 * on it are adopted by the vhost vh. Embedded in struct net. */
struct net_listener {
    struct net *net;
    struct lws_vhost *vh;
    int fd;            /* the listening socket; -1 once closed */
    int port;          /* the port bound (the kernel's choice for 0) */
    int started;       /* poll and pause are initialised: net__listen_stop closes them */
    unsigned pause_ms; /* the last pause after a failed accept; 0 after a success */
    uv_poll_t poll;    /* readable: accept; stopped during a pause */
    uv_timer_t pause;  /* the end of a pause */
};

/* Bind and listen on spec:port (listen's forms: an address, localhost,
 * 0.0.0.0 or *, an interface name), nothing on the loop yet. 0, or -1 with
 * the reason in err. */
int net__listen_open(struct net_listener *l, const char *spec, int port, char *err, size_t errlen);

/* Start accepting on the loop, into vh; n->spare is opened if it is not. 0,
 * or -1 after logging why (the socket stays open: net__listen_stop). */
int net__listen_start(struct net_listener *l, struct net *n, struct lws_vhost *vh);

/* Stop accepting and close the socket (in a close callback once started).
 * Safe to call again, and on a listener whose open failed. */
void net__listen_stop(struct net_listener *l);

/* Owned by net_start's caller: net_free frees it. Both listeners' connections
 * are the vhost vh's; each connection's lws "opaque user data" is the
 * listener that accepted it. */
struct net {
    uv_loop_t *loop;
    struct lobby *lobby;
    struct api *api;
    struct stall *stall; /* NULL: the lobby's clock is uv_now alone */
    struct lws_context *ctx;
    struct lws_vhost *vh;
    int port;
    int stopping; /* lws_context_destroy has begun: the sinks do nothing */
    lws_retry_bo_t retry;
    struct net_listener pub, met; /* the public port; metrics-port (met.fd -1: none) */
    int spare; /* /dev/null, held to be given up for a refusal when out of descriptors */
    struct proxy_list proxies;  /* trusted-proxies */
    struct origin_list origins; /* allowed-origins */
    uint64_t origin_logged;     /* uv_now of the last "origin not allowed" line */
    unsigned long origin_quiet; /* refusals since then, not logged one by one */
};

enum conn_kind { CONN_NONE = 0, CONN_HTTP, CONN_WS };

enum http_pending {
    HTTP_IDLE = 0,
    HTTP_WAITING, /* a deferred reply: waiting for the database */
    HTTP_HEADERS, /* its reply is ready: headers on the next writable */
    HTTP_BODY,    /* headers sent; body chunks on each writable */
};

/* What an account route needs of its request, read from the head (lws' header
 * buffer is not ours once the body is being read), and its body. Allocated
 * for a request with a body while it is read; wiped when freed. */
struct http_in {
    char method[8];
    char path[24];
    char query[64];  /* page=N (GET /api/me/games), token=T (/unsubscribe), or "" */
    char cookie[80]; /* "carcd_session=TOKEN", or "" */
    char csrf[64];   /* X-CSRF-Token, or "" when absent or too long */
    char peer[64];
    int origin; /* enum api_origin */
    int https;
    uint64_t start; /* uv_now at the head */
    size_t want, len;
    char body[HTTP_BODY_MAX];
};

/* Per-connection memory, allocated and zeroed by lws for the protocol. */
struct conn {
    int kind;
    int fd;                           /* its socket, for net_rx_forget, once has_fd */
    int has_fd;                       /* fd is set (the first request, or ESTABLISHED) */
    int close_started;                /* ws_close_now() has run */
    lws_sorted_usec_list_t close_sul; /* a deferred ws_close_now() */
    struct session s;                 /* CONN_WS */
    struct accounts_req *acct_req;    /* CONN_WS: its account being looked up, or NULL */
    lws_sorted_usec_list_t acct_sul;  /* ... and the end of the wait (net_account.c) */
    struct {                          /* CONN_HTTP: the reply being written */
        struct api_reply reply;
        struct lws *wsi;
        size_t off;
        int pending;        /* enum http_pending */
        int close;          /* close the connection after this reply (a refused request) */
        struct http_in *in; /* a request body being read, or NULL */
    } http;
};

/* The connection came in on the metrics listener (metrics-port). */
static inline int net__from_metrics(struct net *n, struct lws *wsi)
{
    return lws_get_opaque_user_data(wsi) == (void *)&n->met;
}

/* The address the per-address limits count and the logs show: the TCP peer,
 * or, when the peer is a trusted proxy, the client it forwards
 * (proxy_client_find). Headers are read here, at the upgrade: lws keeps them
 * until ESTABLISHED returns. */
void net__client_address(struct net *n, struct lws *wsi, char *buf, size_t size);

/* LWS_CALLBACK_HTTP for the request at path (len bytes, as lws decoded it):
 * refused (http_refusal), routed to api.c, or deferred until the database
 * answers. The protocol callback's result: -1 closes the connection. */
int net__http_request(struct net *n, struct lws *wsi, struct conn *c, const char *path, size_t len);

/* LWS_CALLBACK_HTTP_BODY: bytes of an account route's body (nothing for
 * any other request). -1 closes: more than announced, or too slow. */
int net__http_body(struct net *n, struct lws *wsi, struct conn *c, const void *in, size_t len);
/* LWS_CALLBACK_HTTP_BODY_COMPLETION: the body is whole; route it. */
int net__http_body_done(struct net *n, struct lws *wsi, struct conn *c);

/* LWS_CALLBACK_HTTP_WRITEABLE: the reply's headers, or its next body chunk. */
int net__http_writeable(struct lws *wsi, struct conn *c);

/* LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: 0 lets the upgrade go on; a page of
 * another origin (origin.h, allowed-origins) is answered 403 (-1: the
 * connection closes after it), counted and logged at most every 10 s. */
int net__origin_check(struct net *n, struct lws *wsi);

/* net_rx's refuse hook (net_rx.h): the answer to a request head over a bound,
 * written on fd at once, with the headers every answer carries. */
void net__http_refuse_raw(int fd, int status, const char *why);

/* The bounds net_rx judges request heads by (HTTP_* above), with the names of
 * the headers lws keeps in fragments of their own. Static storage: valid for
 * the process. */
const struct rxguard_http_limits *net__rx_limits(void);

/* The headers every answer carries (net.c: the vhost's; net_http.c writes
 * them itself on the answers it gives before lws). */
extern const struct lws_protocol_vhost_options *const net__headers;

/* net_account.c: at ESTABLISHED (the Origin check passed), a carcd_session
 * cookie is looked up while the connection's reading pauses; its account, if
 * any, goes to c->s (account, account_name) and reading goes on. Nothing for
 * a guest, nor without the accounts service. */
void net__ws_account_start(struct net *n, struct lws *wsi, struct conn *c);
/* The connection is gone: a lookup in flight is cancelled. */
void net__ws_account_stop(struct conn *c);

/* The HTTP connection is closed or destroyed: its reply is freed (which
 * cancels a read in flight). Nothing for c NULL or not CONN_HTTP. */
void net__http_closed(struct conn *c);

#endif
