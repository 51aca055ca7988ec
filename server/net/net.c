/* net.c: libwebsockets 4.1 on carcd's libuv loop (foreign loop): the context,
 * its listeners, the protocol callback, and websocket connections as sessions;
 * the HTTP side is net_http.c. Only server/net/ includes libwebsockets.h:
 * everything below the transport (lobby, rooms, HTTP routes) is plain C called
 * from here. */
#include "net/net_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn/sbuf.h"
#include "net/net_rx.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/stall.h"

_Static_assert(LWS_PRE <= SBUF_PRE, "SBUF_PRE must leave room for the lws frame header");
_Static_assert(offsetof(struct sbuf, data) == offsetof(struct sbuf, pre) + SBUF_PRE,
               "an sbuf's headroom must sit right before its text");

/* A websocket's kernel send buffer (the kernel doubles it). Left to Linux's
 * autotuning it holds a whole game for a spectator that never reads (about
 * 170 KB, measured on loopback) and megabytes for a slow reader, out of reach
 * of the outbound queue's bound; with it, and the kernel's unsent bytes
 * counted in that bound (session.unsent), a client falls behind by
 * queue-bytes, plus its own receive buffer, at most. */
#define WS_SNDBUF 16384

static struct net *net_of(struct lws *wsi)
{
    return lws_context_user(lws_get_context(wsi));
}

/* The clock the lobby gets: a message read right after a stall of the loop
 * has the stall credited first (stall.h), so that it never loses to the
 * clock that ran meanwhile. */
static uint64_t net_now(const struct net *n)
{
    return n->stall != NULL ? stall_now(n->stall) : uv_now(n->loop);
}

/* ---- the session sink ---- */

static struct net *sink_net(struct session *s)
{
    return net_of(s->conn);
}

static void sink_wake(struct session *s)
{
    if (sink_net(s)->stopping)
        return;
    lws_callback_on_writable(s->conn);
}

/* Start lws's polite close: the close frame with our code and reason goes out
 * when the socket is writable (lws waits 5 s for that, then drops the
 * connection), then lws waits for the client's close.
 *
 * Debian 12's lws 4.1.6 is built with _DEBUG, and with libuv its service
 * loop closes a connection whose callback returned -1 twice in a row
 * ("close_and_handled uv repeat test"): the second call kills it before the
 * close frame is written. A timeout kills without a close frame too. Only
 * LWS_TO_KILL_SYNC goes straight to the polite close, so every close with a
 * code goes through here, and no websocket callback returns -1 for one. */
static void ws_close_now(struct lws *wsi, struct session *s)
{
    struct conn *c = lws_container_of(s, struct conn, s);
    if (c->close_started)
        return;
    c->close_started = 1;
    lws_close_reason(wsi, (enum lws_close_status)s->close_code, (unsigned char *)s->close_reason,
                     strlen(s->close_reason));
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
}

static void close_deferred(lws_sorted_usec_list_t *sul)
{
    struct conn *c = lws_container_of(sul, struct conn, close_sul);
    ws_close_now(c->s.conn, &c->s); /* may free c: nothing after this */
}

static void sink_close(struct session *s)
{
    struct lws *wsi = s->conn;
    struct net *n = sink_net(s);
    if (n->stopping)
        return;
    if (!s->close_flush) {
        /* Whatever is queued (the queue may be full because the client does
         * not read: this must not wait for a writable callback), but not from
         * inside this call: closing a connection that is already half closed
         * runs its CLOSED callback at once, and we may be in the middle of a
         * room's broadcast. */
        struct conn *c = lws_container_of(s, struct conn, s);
        lws_sul_schedule(n->ctx, 0, &c->close_sul, close_deferred, 1);
        return;
    }
    /* After the queue drains (WRITEABLE); a client that does not read is cut
     * off after 5 s. */
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, 5);
    lws_callback_on_writable(wsi);
}

static const struct session_sink ws_sink = {sink_wake, sink_close};

/* ---- websocket ---- */

static int ws_path_ok(struct lws *wsi)
{
    char uri[64];
    int n = lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI);
    return n > 0 && strcmp(uri, "/ws") == 0;
}

static int ws_established(struct net *n, struct lws *wsi, struct conn *c)
{
    char peer[64];
    net__client_address(n, wsi, peer, sizeof peer);
    c->kind = CONN_WS;
    int fd = (int)lws_get_socket_fd(wsi), sndbuf = WS_SNDBUF;
    if (fd >= 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    session_init(&c->s, &ws_sink, wsi, &n->lobby->lim, net_now(n));
    lobby_session_open(n->lobby, &c->s, peer, net_now(n));
    c->fd = fd;
    c->has_fd = fd >= 0;
    if (net_rx_ws(fd, c) < 0) {
        log_event(LOG_INFO,
                  &(struct log_fields){
                      .addr = c->s.peer, .session = c->s.id, .close = SESSION_CLOSE_PROTOCOL},
                  "connection closed: data before the handshake's answer");
        session_close(&c->s, SESSION_CLOSE_PROTOCOL, "data before the handshake's answer", 0);
    }
    net__ws_account_start(n, wsi, c);
    return 0;
}

/* An unmasked frame (net_rx.h): refused with 1002 once this read is over; its
 * payload, which lws still delivers, is ignored as input after a close. */
static void ws_unmasked(void *ctx)
{
    struct conn *c = ctx;
    if (c->kind != CONN_WS)
        return;
    log_event(LOG_INFO,
              &(struct log_fields){
                  .addr = c->s.peer, .session = c->s.id, .close = SESSION_CLOSE_PROTOCOL},
              "connection closed: unmasked frame");
    session_close(&c->s, SESSION_CLOSE_PROTOCOL, "client frames must be masked", 0);
}

/* Control frames (net_rx.h): lws answers pings and takes pongs and closes
 * without a callback, so they are counted in the raw bytes, and each pays
 * the flood bucket like a data frame. Over it: 1008, as a data flood, one
 * loop turn later (this runs inside lws's read). */
static void ws_controls(void *ctx, uint64_t count)
{
    struct conn *c = ctx;
    struct session *s = &c->s;
    if (c->kind != CONN_WS || s->closing)
        return;
    struct net *n = net_of(s->conn);
    const struct lobby_limits *l = &n->lobby->lim;
    for (uint64_t i = 0; i < count; i++) {
        if (bucket_take(&s->flood, net_now(n), l->flood_rate, l->flood_burst, 1000) == 0)
            continue;
        log_event(
            LOG_INFO,
            &(struct log_fields){.addr = s->peer, .session = s->id, .close = SESSION_CLOSE_POLICY},
            "connection closed: flooding (control frames)");
        session_close(s, SESSION_CLOSE_POLICY, "flooding: too many control frames", 0);
        net_rx_discard(c->fd);
        return;
    }
}

/* A message over max-message-bytes: the error PROTOCOL.md promises, then the
 * close 1009 after it (input is ignored from now on). */
static void ws_too_big(struct session *s)
{
    log_event(
        LOG_INFO,
        &(struct log_fields){.addr = s->peer, .session = s->id, .close = SESSION_CLOSE_TOO_BIG},
        "connection closed: message too big");
    session_send_text(s, proto_encode_error(CARC_E_TOO_BIG, NULL, ""));
    session_close(s, SESSION_CLOSE_TOO_BIG, "message too big", 1);
}

/* Every data frame passes the same bounds: a message's bytes (text kept,
 * binary only counted) are capped at max-message-bytes; every frame that does
 * not end a text message (fragments, binary messages) pays the flood bucket,
 * and a binary message the rate bucket too; the last frame of a text message
 * pays both in lobby_session_message. Control frames (ping, pong, close) are
 * lws's own and never reach this callback: ws_controls charges them. */
static int ws_receive(struct net *n, struct lws *wsi, struct conn *c, const void *in, size_t len)
{
    struct session *s = &c->s;
    if (s->closing) {
        /* Input after a close request is ignored; after a close for
         * flooding it is not even parsed any more (net_rx_discard). */
        if (s->close_code == SESSION_CLOSE_POLICY)
            net_rx_discard(c->fd);
        return 0;
    }
    size_t remaining = lws_remaining_packet_payload(wsi);
    int frame_end = remaining == 0;
    int final = lws_is_final_fragment(wsi) && frame_end;
    if (lws_is_first_fragment(wsi) && lws_frame_is_binary(wsi))
        s->rx_skip = 1;
    int r = 0;
    if (s->rx_skip) {
        size_t want = s->rxlen + len;
        r = want > s->rxmax || remaining > s->rxmax - want ? -1 : 0;
        s->rxlen = want;
    } else {
        r = session_rx_append(s, in, len, remaining, final);
    }
    if (r < 0) {
        ws_too_big(s);
        return 0;
    }
    if (frame_end && (!final || s->rx_skip)) {
        int rate = session_rx_charge(s, &n->lobby->lim, net_now(n), final);
        if (rate < 0) {
            log_event(LOG_INFO,
                      &(struct log_fields){
                          .addr = s->peer, .session = s->id, .close = SESSION_CLOSE_POLICY},
                      "connection closed: flooding");
            return 0;
        }
        if (s->rx_skip && final) {
            session_rx_reset(s);
            session_send_text(
                s, rate ? proto_encode_error(CARC_E_RATE, NULL, "")
                        : proto_encode_error(CARC_E_INVAL,
                                             "binary frames are not accepted: send text", ""));
            return 0;
        }
    }
    if (r == 1) {
        lobby_session_message(n->lobby, s, s->rx, s->rxlen, net_now(n));
        session_rx_reset(s);
    }
    return 0;
}

/* The bytes lws handed the kernel that the peer has not taken yet. */
static size_t ws_unsent(struct lws *wsi)
{
    int q = 0, fd = (int)lws_get_socket_fd(wsi);
    return fd >= 0 && ioctl(fd, SIOCOUTQ, &q) == 0 && q > 0 ? (size_t)q : 0;
}

/* session_flush()'s writer. lws 4.1.6 hands the kernel what it can of a
 * frame and keeps the rest in its own buffer, still answering the whole
 * length; a frame written after that would only be appended to that buffer,
 * so the burst stops there (lws_partial_buffered) and lws itself asks for the
 * writable callback that drains it, before ours is called again. The kernel
 * refusing everything (EAGAIN) leaves the whole frame in that buffer, so one
 * frame at most sits outside both the queue and SIOCOUTQ, as before bursts.
 * lws_send_pipe_choked() would add a poll(2) per frame to learn the same. */
static int ws_write(void *conn, struct sbuf *b)
{
    struct lws *wsi = conn;
    int w = lws_write(wsi, (unsigned char *)b->data, b->len, LWS_WRITE_TEXT);
    if (w < (int)b->len)
        return -1;
    return lws_partial_buffered(wsi) ? 1 : 0;
}

/* One write burst per writable callback: every queued frame the socket takes.
 * A callback per frame cost a POLLOUT on and off each (epoll_ctl through
 * libuv): 42 epoll_ctl calls per move of 6 deltas and an ack. Another
 * callback is asked only when frames remain, or to close after the last one:
 * a close with flush starts from a callback that finds the queue empty, so
 * after lws has drained its own buffer too. */
static int ws_writeable(struct lws *wsi, struct conn *c)
{
    struct session *s = &c->s;
    if (s->closing) {
        if (!s->close_flush)
            return 0; /* close_deferred() is on its way */
        if (session_peek(s) == NULL) {
            ws_close_now(wsi, s);
            return 0;
        }
    }
    int r = session_flush(s, ws_write);
    if (r < 0)
        return -1;
    /* The kernel's unsent bytes matter once it is full (the burst stopped on
     * a partial write): then they are counted until the next writable
     * callback, which comes once they drain. A burst that went out whole
     * leaves at most the send buffer (WS_SNDBUF, doubled) unsent, and is not
     * asked about: SIOCOUTQ on every callback and every wake cost 12.8
     * ioctl(2) calls per move. */
    s->unsent = r > 0 || lws_partial_buffered(wsi) ? ws_unsent(wsi) : 0;
    if (r > 0 || s->closing)
        lws_callback_on_writable(wsi);
    return 0;
}

static void ws_closed(struct net *n, struct conn *c)
{
    if (c->kind != CONN_WS)
        return;
    lws_sul_cancel(&c->close_sul);
    net__ws_account_stop(c);
    net_rx_forget(c->fd);
    lobby_session_close(n->lobby, &c->s);
    session_fini(&c->s);
    c->kind = CONN_NONE;
}

/* ---- the protocol callback ---- */

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct net *n = net_of(wsi);
    struct conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return net__origin_check(n, wsi);
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        /* Upgrades only at /ws, not on the metrics listener, and none while
         * shutting down. */
        return !ws_path_ok(wsi) || n->lobby->shutting_down || net__from_metrics(n, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        return ws_established(n, wsi, c);
    case LWS_CALLBACK_RECEIVE:
        return ws_receive(n, wsi, c, in, len);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return c->kind == CONN_WS ? ws_writeable(wsi, c) : 0;
    case LWS_CALLBACK_CLOSED:
        ws_closed(n, c);
        return 0;
    case LWS_CALLBACK_HTTP:
        return net__http_request(n, wsi, c, in != NULL ? (const char *)in : "/",
                                 in != NULL ? len : 1);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return net__http_writeable(wsi, c);
    case LWS_CALLBACK_HTTP_BODY:
        /* An account route's body (net_http.c); any other POST has none
         * (`Content-Length: 0`: any other body was refused). */
        return net__http_body(n, wsi, c, in, len);
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        /* Not lws' default, which completes the transaction here, before
         * our reply's body is written; http_done() completes it after. */
        return net__http_body_done(n, wsi, c);
    case LWS_CALLBACK_CLOSED_HTTP:
        net__http_closed(c);
        break;
    case LWS_CALLBACK_WSI_DESTROY:
        net__http_closed(c); /* cancels a read in flight */
        if (c != NULL)
            ws_closed(n, c);
        /* Its socket was closed just now (the number cannot have been
         * reused yet): nothing more of it is watched. */
        if (c != NULL && c->has_fd) {
            net_rx_forget(c->fd);
            c->has_fd = 0;
        }
        break;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* tx_packet_size: the most lws hands the kernel in one send. Left at 0, lws
 * uses rx_buffer_size (2 KiB) instead: 76% of deltas left in two sends, the
 * second from lws's own buffer on one more writable callback. It is only a
 * bound, nothing is allocated for it: lws sends straight from our sbuf and
 * copies only what the kernel did not take (its send buffer is WS_SNDBUF,
 * doubled). With 64 KiB a message goes out in one send unless it is larger or
 * the kernel is full; net_http.c's HTTP_CHUNK bodies too. rx_buffer_size does
 * not limit sends once this is set. */
#define WS_TX_PACKET 65536

/* rx_buffer_size: lws allocates this much per websocket connection (at the
 * handshake, for the connection's life) and hands a message over in pieces of
 * at most this size; session.c reassembles them up to max-message-bytes. A
 * play is about 150 bytes and a create or a chat line a few hundred, so 512
 * holds nearly every message whole; a longer one costs a few more callbacks.
 * It was 2 KiB: an idle connection cost the server 4.06 KiB of RSS, now
 * about 2.5 (carc-load --idle 19900). */
#define WS_RX_BUFFER 512

static const struct lws_protocols protocols[] = {
    {"carcd", callback, sizeof(struct conn), WS_RX_BUFFER, 0, NULL, WS_TX_PACKET},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* Added by lws to every HTTP response of the vhost (lws_add_http_header_status). */
static const struct lws_protocol_vhost_options hdr_csp = {
    NULL, NULL, "content-security-policy:",
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self' ws: wss:; manifest-src 'self'; worker-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"};
static const struct lws_protocol_vhost_options hdr_nosniff = {&hdr_csp, NULL,
                                                              "x-content-type-options:", "nosniff"};
static const struct lws_protocol_vhost_options hdr_frame = {&hdr_nosniff, NULL,
                                                            "x-frame-options:", "deny"};
static const struct lws_protocol_vhost_options hdr_referrer = {&hdr_frame, NULL,
                                                               "referrer-policy:", "no-referrer"};
static const struct lws_protocol_vhost_options hdr_coop = {
    &hdr_referrer, NULL, "cross-origin-opener-policy:", "same-origin"};
const struct lws_protocol_vhost_options *const net__headers = &hdr_coop;

/* lws's own lines, through our formatter (log-format): errors and warnings
 * at those levels, the rest (notice, info) at debug. */
static void lws_log(int level, const char *line)
{
    char text[512];
    snprintf(text, sizeof text, "lws: %s", line);
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
        text[--n] = '\0';
    log_text(level == LLL_ERR ? LOG_ERROR : level == LLL_WARN ? LOG_WARN : LOG_DEBUG, NULL, text);
}

static int lws_levels(int level)
{
    int l = LLL_ERR;
    if (level >= LOG_WARN)
        l |= LLL_WARN;
    if (level >= LOG_DEBUG)
        l |= LLL_NOTICE | LLL_INFO;
    return l;
}

static const struct net_rx_hooks rx_hooks = {ws_unmasked, ws_controls, net__http_refuse_raw};

/* The second listener, for Prometheus: its connections go to the same vhost
 * and protocol callback, which routes their requests to
 * api_route_metrics_port and refuses their upgrades (net__from_metrics). One
 * vhost, not two: vhosts that do not listen themselves all have the same
 * port to lws (CONTEXT_PORT_NO_LISTEN_SERVER), and lws moves a request to the
 * first vhost of its port whose name does not match the Host header. 0, or
 * -1 after saying why on stderr. */
static int net_metrics_start(struct net *n, const struct net_options *c)
{
    char err[128];
    if (net__listen_open(&n->met, c->metrics_listen, c->metrics_port, err, sizeof err) != 0) {
        fprintf(stderr, "carcd: cannot listen for metrics on %s port %d (%s)\n", c->metrics_listen,
                c->metrics_port, err);
        return -1;
    }
    log_info("metrics on http://%s%s%s:%d/metrics", strchr(c->metrics_listen, ':') ? "[" : "",
             c->metrics_listen, strchr(c->metrics_listen, ':') ? "]" : "", n->met.port);
    return 0;
}

/* The context on the loop, with its header bounds; NULL after logging why. */
static struct lws_context *context_create(struct net *n, struct lws_context_creation_info *info)
{
    static void *loops[1];
    loops[0] = n->loop;
    info->options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
                    LWS_SERVER_OPTION_VALIDATE_UTF8;
    info->foreign_loops = loops;
    /* Header bounds: see HTTP_URI_MAX. Every known header gets the same limit. */
    static struct lws_token_limits limits;
    for (int t = 0; t < WSI_TOKEN_COUNT; t++)
        limits.token_limit[t] = HTTP_HEADER_MAX;
    limits.token_limit[WSI_TOKEN_GET_URI] = limits.token_limit[WSI_TOKEN_HEAD_URI] =
        limits.token_limit[WSI_TOKEN_POST_URI] = HTTP_URI_MAX;
    info->token_limits = &limits;
    info->max_http_header_data = HTTP_HEADERS_MAX;
    info->user = n;
    info->server_string = "carcd";
    info->port = CONTEXT_PORT_NO_LISTEN_SERVER;
    struct lws_context *ctx = lws_create_context(info);
    if (ctx == NULL)
        log_error("cannot create the libwebsockets context");
    return ctx;
}

/* Failed after the context: lws closes on the loop, which the caller runs
 * before net_free. Returns n, whose net_port is -1. */
static struct net *net_start_failed(struct net *n)
{
    n->vh = NULL;
    n->stopping = 1;
    net__listen_stop(&n->pub);
    net__listen_stop(&n->met);
    lws_context_destroy(n->ctx);
    return n;
}

struct net *net_start(uv_loop_t *loop, struct lobby *lb, struct api *api,
                      const struct net_options *c)
{
    struct net *n = mem_zalloc(1, sizeof *n);
    n->loop = loop;
    n->lobby = lb;
    n->stall = c->stall;
    n->api = api;
    n->spare = -1;
    n->pub.fd = n->met.fd = -1;
    net_rx_init(&rx_hooks, net__rx_limits());
    lws_set_log_level(lws_levels(c->log_level), lws_log);
    char perr[160];
    if (proxy_list_parse(&n->proxies, c->trusted_proxies, perr, sizeof perr) != 0)
        log_error("%s", perr); /* config_set checked it: not reached */
    if (origin_list_parse(&n->origins, c->allowed_origins != NULL ? c->allowed_origins : "", perr,
                          sizeof perr) != 0)
        log_error("%s", perr); /* config_set checked it: not reached */

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    n->ctx = context_create(n, &info);
    if (n->ctx == NULL) {
        free(n);
        return NULL;
    }
    if (c->ping_interval > 0) {
        n->retry.secs_since_valid_ping = (uint16_t)c->ping_interval;
        n->retry.secs_since_valid_hangup = (uint16_t)(c->ping_interval * 2 + 10);
        info.retry_and_idle_policy = &n->retry;
    }
    /* carcd listens itself (net_listen.c); the vhosts only serve what it
     * accepts. */
    char err[128];
    if (net__listen_open(&n->pub, c->listen, c->port, err, sizeof err) != 0) {
        log_error("cannot listen on %s port %d (%s)", c->listen, c->port, err);
        return net_start_failed(n);
    }
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = protocols;
    info.headers = &hdr_coop;
    info.vhost_name = "carcd";
    info.keepalive_timeout = 5;
    n->vh = lws_create_vhost(n->ctx, &info);
    if (n->vh == NULL) {
        log_error("cannot create the libwebsockets vhost");
        return net_start_failed(n);
    }
    n->port = n->pub.port;
    if (c->metrics_port > 0 && net_metrics_start(n, c) != 0)
        return net_start_failed(n);
    if (net__listen_start(&n->pub, n, n->vh) != 0 ||
        (n->met.fd >= 0 && net__listen_start(&n->met, n, n->vh) != 0))
        return net_start_failed(n);
    return n;
}

int net_port(const struct net *n)
{
    return n->vh != NULL ? n->port : -1;
}

void net_stop(struct net *n)
{
    if (n == NULL || n->stopping)
        return;
    n->stopping = 1;
    net__listen_stop(&n->pub);
    net__listen_stop(&n->met);
    lws_context_destroy(n->ctx);
}

void net_free(struct net *n)
{
    if (n == NULL)
        return;
    /* lws 4.1.6 on a foreign loop frees the rest of the context only on a
     * second destroy, after the loop has let its handles close. */
    if (n->ctx != NULL)
        lws_context_destroy(n->ctx);
    if (n->spare >= 0)
        close(n->spare);
    free(n);
}
