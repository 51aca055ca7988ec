/* net.h: the network adapter: libwebsockets on carcd's libuv loop. The only
 * files that include libwebsockets.h are server/net/'s (net.c: the context
 * and websockets; net_http.c: HTTP). This header does not include it.
 *
 * HTTP requests go to api.c; websocket connections at /ws (subprotocol
 * "carcd" or none) become sessions of the lobby. Each session's queue is
 * drained one frame per writable callback. With c->metrics_port, a second
 * vhost on c->metrics_listen answers only api_route_metrics_port (no
 * websocket); the public port's /metrics gets the Authorization header. */
#ifndef CARCD_NET_H
#define CARCD_NET_H

#include <uv.h>

#include "game/lobby.h"
#include "http/api.h"

struct net;
struct stall;

/* What the adapter needs of the settings (main.c copies them from config). */
struct net_options {
    const char *listen;          /* address to bind; "0.0.0.0" or "*": every interface */
    int port;                    /* 0: the kernel picks one */
    const char *metrics_listen;  /* the metrics listener's address ... */
    int metrics_port;            /* ... and port; 0: none */
    int ping_interval;           /* seconds between pings of a quiet connection; 0: off */
    int log_level;               /* enum log_level: how much of lws' own log to pass on */
    const char *trusted_proxies; /* proxy_list_parse's spec; "" = none */
    const char *allowed_origins; /* origin_list_parse's spec; "" or NULL = none */
    struct stall *stall;         /* the loop's clock for the lobby, stalls seen; NULL: uv_now */
};

/* Listen on c->listen:c->port (and the metrics listener) on loop. Returns
 * NULL, or a net whose net_port is -1, after printing why on stderr (address
 * in use, bad address). lb and api must outlive the net. */
struct net *net_start(uv_loop_t *loop, struct lobby *lb, struct api *api,
                      const struct net_options *c);

/* The port actually bound (the kernel's choice when c->port was 0). */
int net_port(const struct net *n);

/* Stop the adapter from inside the loop: every remaining connection closes
 * (the lobby sees each one go), lws releases its handles. Call once, after
 * the lobby's sessions have had their chance to close (lobby_shutdown). */
void net_stop(struct net *n);

/* After uv_run() has returned: free what is left. n may be NULL. */
void net_free(struct net *n);

#endif
