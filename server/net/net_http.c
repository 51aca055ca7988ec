/* http.c: the network adapter's HTTP side (net_int.h): a request's client
 * address, the checks before routing and their refusals, routing to api.c
 * (the metrics listener's routes too), and writing replies in chunks; the
 * websocket upgrade's Origin; the answers to request heads net_rx refuses. */
#include "net/net_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "metrics/metrics.h"
#include "net/net_rx.h"
#include "util/log.h"
#include "util/mem.h"

#define HTTP_CHUNK 16384

/* lws' fragments: one unused, the path, the query's start, each '&' or ';',
 * the version, each header field it knows (net_int.h); a few to spare. */
_Static_assert(1 + 1 + 1 + HTTP_PARAMS_MAX + 1 + HTTP_FIELDS_MAX + 4 <= WSI_TOKEN_COUNT,
               "lws must have a fragment for every parameter and field net_rx lets through");
/* lws' header buffer: a field costs it at most 8 bytes more than the wire
 * (an unknown one's record), the request line a few. */
_Static_assert(HTTP_HEAD_MAX + 8 * HTTP_FIELDS_MAX + 512 <= HTTP_HEADERS_MAX,
               "lws' header buffer must hold any head net_rx lets through");

static void peer_address(struct lws *wsi, char *buf, size_t size)
{
    buf[0] = '\0';
    if (lws_get_peer_simple(wsi, buf, size) == NULL)
        buf[0] = '\0';
    /* Dual-stack sockets show IPv4 peers as ::ffff:a.b.c.d. */
    if (strncmp(buf, "::ffff:", 7) == 0 && strchr(buf + 7, ':') == NULL)
        memmove(buf, buf + 7, strlen(buf + 7) + 1);
}

/* A header's value, or "" when absent or longer than size - 1 (a forwarded
 * header cut short is not a list of addresses). */
static void header_copy(struct lws *wsi, enum lws_token_indexes t, char *buf, int size)
{
    if (lws_hdr_total_length(wsi, t) >= size || lws_hdr_copy(wsi, buf, size, t) < 0)
        buf[0] = '\0';
}

void net__client_address(struct net *n, struct lws *wsi, char *buf, size_t size)
{
    char peer[64];
    peer_address(wsi, peer, sizeof peer);
    if (n->proxies.n == 0 || !proxy_list_has(&n->proxies, peer)) {
        snprintf(buf, size, "%s", peer);
        return;
    }
    char xff[HTTP_HEADER_MAX], xri[64];
    header_copy(wsi, WSI_TOKEN_X_FORWARDED_FOR, xff, sizeof xff);
    header_copy(wsi, WSI_TOKEN_HTTP_X_REAL_IP, xri, sizeof xri);
    proxy_client_find(&n->proxies, peer, xff, xri, buf, size);
}

static void origin_header(struct lws *wsi, enum lws_token_indexes t, char *buf, int size)
{
    if (lws_hdr_total_length(wsi, t) >= size || lws_hdr_copy(wsi, buf, size, t) < 0)
        buf[0] = '\0';
}

static const char *method_name(struct lws *wsi)
{
    char *uri;
    int len;
    switch (lws_http_get_uri_and_method(wsi, &uri, &len)) {
    case LWSHUMETH_GET:
        return "GET";
    case LWSHUMETH_HEAD:
        return "HEAD";
    case LWSHUMETH_POST:
        return "POST";
    case LWSHUMETH_DELETE:
        return "DELETE";
    case LWSHUMETH_PUT:
        return "PUT";
    default:
        return "OTHER";
    }
}

/* The body being read (or kept) is wiped and freed: it may hold passwords. */
static void http_in_free(struct conn *c)
{
    if (c->http.in == NULL)
        return;
    volatile unsigned char *p = (volatile unsigned char *)c->http.in;
    for (size_t i = 0; i < sizeof *c->http.in; i++)
        p[i] = 0;
    free(c->http.in);
    c->http.in = NULL;
}

static int http_done(struct lws *wsi, struct conn *c)
{
    api_reply_free(&c->http.reply);
    http_in_free(c);
    c->http.pending = HTTP_IDLE;
    if (c->http.close)
        return -1; /* a refused request: its body, if any, is never read */
    /* A head refused by net_rx after this one may now be answered at once
     * (not while lws still holds part of this answer). */
    if (!lws_partial_buffered(wsi))
        net_rx_http_answered((int)lws_get_socket_fd(wsi));
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* One "name: value" header; nothing when value is NULL. Nonzero when it does not fit. */
static int http_header(struct lws *wsi, const char *name, const char *value, unsigned char **p,
                       unsigned char *end)
{
    return value != NULL &&
           lws_add_http_header_by_name(wsi, (const unsigned char *)name,
                                       (const unsigned char *)value, (int)strlen(value), p, end);
}

/* The status line and headers of a reply with a body; then the body goes
 * out in chunks as the socket is writable (not for HEAD). */
static int http_headers(struct lws *wsi, struct conn *c)
{
    struct api_reply *r = &c->http.reply;
    unsigned char buf[LWS_PRE + 2048];
    unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    char retry[24];
    snprintf(retry, sizeof retry, "%lld", r->retry_after);
    if (lws_add_http_common_headers(wsi, (unsigned)r->status, r->content_type,
                                    (lws_filepos_t)r->len, &p, end))
        return -1;
    if (http_header(wsi, "cache-control:", r->cache_control, &p, end) ||
        http_header(wsi, "etag:", r->etag, &p, end) ||
        http_header(wsi, "content-encoding:", r->content_encoding, &p, end) ||
        http_header(wsi, "www-authenticate:", r->www_authenticate, &p, end) ||
        http_header(wsi, "vary:", r->etag != NULL ? "accept-encoding" : NULL, &p, end) ||
        http_header(wsi, "set-cookie:", r->set_cookie, &p, end) ||
        http_header(wsi, "retry-after:", r->retry_after > 0 ? retry : NULL, &p, end) ||
        http_header(wsi, "connection:", c->http.close ? "close" : NULL, &p, end))
        return -1;
    if (lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    c->http.off = 0;
    c->http.pending = HTTP_BODY;
    if (r->len == 0 || r->head)
        return http_done(wsi, c);
    lws_callback_on_writable(wsi);
    return 0;
}

/* A deferred reply (a read from the database) is ready: its headers go out
 * when the socket is writable. */
static void http_ready(struct api_reply *r, void *arg)
{
    struct conn *c = arg;
    (void)r;
    c->http.pending = HTTP_HEADERS;
    lws_callback_on_writable(c->http.wsi);
}

/* Is the Content-Type value JSON ("application/json", any parameters)? */
static int json_type(const char *v)
{
    static const char type[] = "application/json";
    size_t k = sizeof type - 1;
    v += strspn(v, " \t");
    return strncasecmp(v, type, k) == 0 &&
           (v[k] == '\0' || v[k] == ';' || v[k] == ' ' || v[k] == '\t');
}

/* An account route's body (api_account_body_route): application/json (else
 * 415), a Content-Length (cl; NULL when absent: 411) of plain digits (400)
 * and at most max bytes, the route's limit (413). 0 with *body its length.
 * any_type: any Content-Type (RFC 8058's one-click POST /unsubscribe is a
 * form, and its body is never read). */
static int body_refusal(struct lws *wsi, const char *cl, size_t max, size_t *body, int any_type)
{
    char type[128];
    if (!any_type && (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE) >= (int)sizeof type ||
                      lws_hdr_copy(wsi, type, sizeof type, WSI_TOKEN_HTTP_CONTENT_TYPE) <= 0 ||
                      !json_type(type)))
        return 415;
    if (cl == NULL)
        return 411;
    if (cl[0] == '\0' || strspn(cl, "0123456789") != strlen(cl))
        return 400;
    if (strlen(cl) > 6 || strtoul(cl, NULL, 10) > max || max > HTTP_BODY_MAX)
        return 413;
    *body = strtoul(cl, NULL, 10);
    return 0;
}

/* What lws's parser let through that carcd refuses before routing, as an HTTP
 * status, or 0. lws percent-decodes the target and removes its dot segments
 * (`/a/../b` is `/b`) before we see it; a decoded CR or LF ends its request
 * line there (the HTTP version is then missing) and a decoded NUL ends the
 * path early (the bytes after it are skipped, visible as a gap before the next
 * header fragment). A NUL after a path segment's first byte makes lws drop the
 * connection itself. The server serves GET and HEAD, and POST without a body
 * (the admin API; api.c answers 405 elsewhere): a request that carries a body (Content-Length other
 * than 0, several of them, or any Transfer-Encoding) is refused, so that its body can never be read
 * as the next request. */
static int http_refusal(struct lws *wsi, const char *path, size_t len, size_t *body)
{
    /* net_rx answered longer targets already, as sent; this is the decoded
     * target, the query's parameters added up (one cut at HTTP_URI_MAX by
     * lws' token limit makes the sum reach it too). */
    if (len + (size_t)lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS) >= HTTP_URI_MAX)
        return 414;
    for (int t = 0; t < WSI_TOKEN_COUNT; t++)
        if (lws_hdr_total_length(wsi, (enum lws_token_indexes)t) >= HTTP_HEADER_MAX)
            return 431;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP) == 0 || strlen(path) != len)
        return 400;
    /* lws 4.1.6 keeps the next fragment right after the path's terminator (the
     * arguments one byte further, past the '?'); a decoded NUL leaves bytes
     * between them. Read through the pointer lws gave us: the fragment exists. */
    char next[HTTP_URI_MAX + 1];
    int args = lws_hdr_copy_fragment(wsi, next, sizeof next, WSI_TOKEN_HTTP_URI_ARGS, 0);
    int m = args >= 0 ? args : lws_hdr_copy(wsi, next, sizeof next, WSI_TOKEN_HTTP);
    if (m < 0 || memcmp(path + len + (args >= 0 ? 2 : 1), next, (size_t)m) != 0)
        return 400;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0)
        return 400;
    char cl[32];
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH);
    if (n > 0 && (n >= (int)sizeof cl ||
                  lws_hdr_copy(wsi, cl, sizeof cl, WSI_TOKEN_HTTP_CONTENT_LENGTH) <= 0))
        return 400;
    size_t max = api_account_body_route(method_name(wsi), path);
    if (max == 0)
        return n > 0 && strcmp(cl, "0") != 0 ? 400 : 0;
    return body_refusal(wsi, n > 0 ? cl : NULL, max, body, strcmp(path, "/unsubscribe") == 0);
}

static int http_headers(struct lws *wsi, struct conn *c);

static int http_refuse(struct lws *wsi, struct conn *c, int status)
{
    struct api_reply *r = &c->http.reply;
    memset(r, 0, sizeof *r);
    r->status = status;
    r->content_type = "text/plain; charset=utf-8";
    r->body = status == 414   ? "request target too long\n"
              : status == 431 ? "request header too long\n"
              : status == 411 ? "a request body needs a Content-Length\n"
              : status == 413 ? "request body too large\n"
              : status == 415 ? "a request body must be application/json\n"
                              : "bad request\n";
    r->len = strlen(r->body);
    c->http.close = 1;
    /* Headers and body now, then close: lws would go on parsing what follows
     * in its input buffer (a body taken as a request) before a writable. */
    if (http_headers(wsi, c) != 0 || c->http.pending != HTTP_BODY)
        return -1;
    static unsigned char buf[LWS_PRE + 64];
    memcpy(buf + LWS_PRE, r->body, r->len);
    (void)lws_write(wsi, buf + LWS_PRE, r->len, LWS_WRITE_HTTP_FINAL);
    return -1;
}

/* ---- the account routes: their headers and bodies ---- */

static int account_path(const char *path)
{
    return strcmp(path, "/api/account") == 0 || strcmp(path, "/api/session") == 0 ||
           (strncmp(path, "/api/me", 7) == 0 && (path[7] == '\0' || path[7] == '/')) ||
           strncmp(path, "/api/push/", 10) == 0 || strcmp(path, "/unsubscribe") == 0;
}

/* Where the request's Origin header points (net/origin.h). */
static int origin_judge(struct net *n, struct lws *wsi)
{
    if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) == 0)
        return API_ORIGIN_NONE;
    char origin[ORIGIN_HOST_MAX + 32], host[ORIGIN_HOST_MAX + 8];
    origin_header(wsi, WSI_TOKEN_ORIGIN, origin, sizeof origin);
    origin_header(wsi, WSI_TOKEN_HOST, host, sizeof host);
    return origin[0] != '\0' && origin_allowed(&n->origins, origin, host[0] ? host : NULL)
               ? API_ORIGIN_OK
               : API_ORIGIN_BAD;
}

/* Did the client use https? carcd has no TLS of its own: only a trusted
 * proxy's X-Forwarded-Proto (its first entry) can say so. */
static int client_https(struct net *n, struct lws *wsi)
{
    char peer[64], proto[64];
    peer_address(wsi, peer, sizeof peer);
    if (n->proxies.n == 0 || !proxy_list_has(&n->proxies, peer))
        return 0;
    if (lws_hdr_custom_copy(wsi, proto, sizeof proto, "x-forwarded-proto:", 18) < 0)
        return 0;
    char *p = proto + strspn(proto, " \t");
    size_t k = strcspn(p, " \t,");
    return k == 5 && strncasecmp(p, "https", 5) == 0;
}

/* What an account route reads of the head, into in. */
static void account_head(struct net *n, struct lws *wsi, const char *path, const char *query,
                         struct http_in *in)
{
    snprintf(in->method, sizeof in->method, "%s", method_name(wsi));
    snprintf(in->path, sizeof in->path, "%s", path);
    snprintf(in->query, sizeof in->query, "%.*s", (int)strcspn(query, "&"), query);
    char cookie[HTTP_HEADER_MAX], token[64];
    header_copy(wsi, WSI_TOKEN_HTTP_COOKIE, cookie, sizeof cookie);
    if (api_cookie_session(cookie, token))
        snprintf(in->cookie, sizeof in->cookie, "carcd_session=%s", token);
    volatile char *v = cookie; /* the session token: never left behind on the stack */
    for (size_t i = 0; i < sizeof cookie; i++)
        v[i] = 0;
    v = token;
    for (size_t i = 0; i < sizeof token; i++)
        v[i] = 0;
    if (lws_hdr_custom_copy(wsi, in->csrf, sizeof in->csrf, "x-csrf-token:", 13) < 0)
        in->csrf[0] = '\0';
    in->origin = origin_judge(n, wsi);
    in->https = client_https(n, wsi);
    net__client_address(n, wsi, in->peer, sizeof in->peer);
    in->start = uv_now(n->loop);
}

static void account_route(struct net *n, struct conn *c, struct http_in *in)
{
    struct api_request rq = {.method = in->method,
                             .path = in->path,
                             .query = in->query,
                             .peer = in->peer,
                             .cookie = in->cookie[0] != '\0' ? in->cookie : NULL,
                             .csrf = in->csrf[0] != '\0' ? in->csrf : NULL,
                             .origin = in->origin,
                             .https = in->https,
                             .body = in->body,
                             .body_len = in->len};
    api_route_request(n->api, &rq, &c->http.reply, http_ready, c);
}

/* An account route's request: routed now, or once its body is read. */
static int account_request(struct net *n, struct lws *wsi, struct conn *c, const char *path,
                           const char *query, size_t body)
{
    if (body > 0) {
        c->http.in = mem_zalloc(1, sizeof *c->http.in);
        account_head(n, wsi, path, query, c->http.in);
        c->http.in->want = body;
        return 0; /* LWS_CALLBACK_HTTP_BODY follows */
    }
    struct http_in in;
    memset(&in, 0, sizeof in);
    account_head(n, wsi, path, query, &in);
    account_route(n, c, &in);
    volatile unsigned char *v = (volatile unsigned char *)&in;
    for (size_t i = 0; i < sizeof in; i++)
        v[i] = 0;
    if (c->http.reply.deferred) {
        c->http.pending = HTTP_WAITING;
        return 0;
    }
    return http_headers(wsi, c);
}

int net__http_body(struct net *n, struct lws *wsi, struct conn *c, const void *in, size_t len)
{
    struct http_in *b = c != NULL ? c->http.in : NULL;
    if (b == NULL)
        return 0; /* a POST with `Content-Length: 0` */
    if (len > b->want - b->len || uv_now(n->loop) - b->start > HTTP_BODY_MS) {
        char addr[64];
        net__client_address(n, wsi, addr, sizeof addr);
        log_event(LOG_INFO, &(struct log_fields){.addr = addr},
                  "http %s %s: the body came too slowly; connection closed", b->method, b->path);
        http_in_free(c);
        return -1;
    }
    memcpy(b->body + b->len, in, len);
    b->len += len;
    return 0;
}

int net__http_body_done(struct net *n, struct lws *wsi, struct conn *c)
{
    if (c == NULL || c->http.in == NULL)
        return 0;
    account_route(n, c, c->http.in);
    http_in_free(c);
    if (c->http.reply.deferred) {
        c->http.pending = HTTP_WAITING;
        return 0;
    }
    /* Written when writable, as a deferred reply is. */
    c->http.pending = HTTP_HEADERS;
    lws_callback_on_writable(wsi);
    return 0;
}

int net__http_request(struct net *n, struct lws *wsi, struct conn *c, const char *path, size_t len)
{
    struct api_reply *r = &c->http.reply;
    api_reply_free(r);
    http_in_free(c);
    c->kind = CONN_HTTP;
    c->http.wsi = wsi;
    if (!c->has_fd) { /* for net_rx_forget when the connection goes */
        c->fd = (int)lws_get_socket_fd(wsi);
        c->has_fd = c->fd >= 0;
    }
    size_t body = 0;
    int refused = http_refusal(wsi, path, len, &body);
    if (refused != 0) {
        char addr[64];
        net__client_address(n, wsi, addr, sizeof addr);
        log_event(LOG_INFO, &(struct log_fields){.addr = addr}, "http %s: refused with %d",
                  method_name(wsi), refused);
        return http_refuse(wsi, c, refused);
    }
    /* The only query arguments any route reads: page=N, status=S (GET /api/games,
     * GET /api/me/games) and pool=P (GET /api/ladder). */
    char query[112] = "", page[24], status[24], pool[24];
    const char *pg = lws_get_urlarg_by_name(wsi, "page=", page, (int)sizeof page);
    const char *stt = lws_get_urlarg_by_name(wsi, "status=", status, (int)sizeof status);
    const char *pl = lws_get_urlarg_by_name(wsi, "pool=", pool, (int)sizeof pool);
    snprintf(query, sizeof query, "%s%s&%s%s&%s%s", pg != NULL ? "page=" : "", pg != NULL ? pg : "",
             stt != NULL ? "status=" : "", stt != NULL ? stt : "", pl != NULL ? "pool=" : "",
             pl != NULL ? pl : "");
    if (net__from_metrics(n, wsi)) {
        api_route_metrics_port(n->api, method_name(wsi), path, r);
        return http_headers(wsi, c);
    }
    if (strcmp(path, "/metrics") == 0) {
        /* The token is a secret: read it for this route only, never logged. */
        char auth[256] = "";
        int has_auth = lws_hdr_copy(wsi, auth, sizeof auth, WSI_TOKEN_HTTP_AUTHORIZATION) > 0;
        api_route_metrics(n->api, method_name(wsi), has_auth ? auth : NULL, r);
        memset(auth, 0, sizeof auth);
        return http_headers(wsi, c);
    }
    char unsub[64]; /* GET or POST /unsubscribe?token=T: the link of an e-mail */
    if (strcmp(path, "/unsubscribe") == 0) {
        const char *t = lws_get_urlarg_by_name(wsi, "token=", unsub, (int)sizeof unsub);
        snprintf(query, sizeof query, "token=%s", t != NULL ? t : "");
    }
    if (account_path(path))
        return account_request(n, wsi, c, path, query, body);
    char enc[128] = "", inm[128] = "";
    int has_enc = lws_hdr_copy(wsi, enc, sizeof enc, WSI_TOKEN_HTTP_ACCEPT_ENCODING) > 0;
    int has_inm = lws_hdr_copy(wsi, inm, sizeof inm, WSI_TOKEN_HTTP_IF_NONE_MATCH) > 0;
    struct api_request rq = {.method = method_name(wsi),
                             .path = path,
                             .query = query,
                             .accept_encoding = has_enc ? enc : NULL,
                             .if_none_match = has_inm ? inm : NULL};
    if (strcmp(rq.method, "POST") == 0) /* POST /api/games/{id}/analysis refuses other sites */
        rq.origin = origin_judge(n, wsi);
    /* The admin API (POST without a body: http_refusal() above) reads its
     * token, a notice's ?text= and the test clock's ?seconds=, decoded by lws. */
    char auth[512], text[HTTP_URI_MAX], peer[64], secs[24];
    if (strncmp(path, "/admin/", 7) == 0) {
        if (lws_hdr_copy(wsi, auth, sizeof auth, WSI_TOKEN_HTTP_AUTHORIZATION) > 0)
            rq.authorization = auth;
        rq.text = lws_get_urlarg_by_name(wsi, "text=", text, (int)sizeof text);
        rq.seconds = lws_get_urlarg_by_name(wsi, "seconds=", secs, (int)sizeof secs);
        net__client_address(n, wsi, peer, sizeof peer);
        rq.peer = peer;
    }
    api_route_request(n->api, &rq, r, http_ready, c);
    if (rq.authorization != NULL)
        memset(auth, 0, sizeof auth);
    if (r->deferred) {
        c->http.pending = HTTP_WAITING;
        return 0;
    }

    return http_headers(wsi, c);
}

int net__http_writeable(struct lws *wsi, struct conn *c)
{
    if (c->http.pending == HTTP_HEADERS)
        return http_headers(wsi, c);
    if (c->http.pending != HTTP_BODY)
        return 0;
    static unsigned char buf[LWS_PRE + HTTP_CHUNK];
    struct api_reply *r = &c->http.reply;
    size_t left = r->len - c->http.off, chunk = left < HTTP_CHUNK ? left : HTTP_CHUNK;
    int final = chunk == left;
    memcpy(buf + LWS_PRE, r->body + c->http.off, chunk);
    if (lws_write(wsi, buf + LWS_PRE, chunk, final ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) !=
        (int)chunk)
        return -1;
    c->http.off += chunk;
    if (final)
        return http_done(wsi, c);
    lws_callback_on_writable(wsi);
    return 0;
}

void net__http_closed(struct conn *c)
{
    if (c != NULL && c->kind == CONN_HTTP) {
        api_reply_free(&c->http.reply);
        http_in_free(c);
        c->kind = CONN_NONE;
    }
}

/* ---- answers given before lws routes a request ---- */

static const char *status_text(int status)
{
    return status == 403   ? "Forbidden"
           : status == 414 ? "URI Too Long"
           : status == 431 ? "Request Header Fields Too Large"
                           : "Bad Request";
}

/* A whole answer, status line to body, for a request carcd refuses before
 * lws would route it (no struct conn exists yet): text/plain, the headers
 * every answer carries, `connection: close`. Its length (< size), or 0. */
static size_t answer_format(char *text, size_t size, int status, const char *body)
{
    int k = snprintf(text, size,
                     "HTTP/1.1 %d %s\r\nserver: carcd\r\ncontent-type: text/plain; "
                     "charset=utf-8\r\ncontent-length: %zu\r\nconnection: close\r\n",
                     status, status_text(status), strlen(body));
    for (const struct lws_protocol_vhost_options *h = net__headers; h != NULL; h = h->next)
        if (k > 0 && (size_t)k < size)
            k += snprintf(text + k, size - (size_t)k, "%s %s\r\n", h->name, h->value);
    if (k > 0 && (size_t)k < size)
        k += snprintf(text + k, size - (size_t)k, "\r\n%s", body);
    return k > 0 && (size_t)k < size ? (size_t)k : 0;
}

/* ---- the upgrade's Origin ---- */

#define ORIGIN_LOG_MS 10000 /* at most one "origin not allowed" line per 10 s */

/* LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: a page of another origin may not open a
 * websocket (origin.h). Refused with 403 and a line of text, counted, and
 * logged at most once per ORIGIN_LOG_MS with how many went unlogged: a
 * hostile page can make every visitor try. 0 lets the upgrade go on. */
int net__origin_check(struct net *n, struct lws *wsi)
{
    if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) == 0)
        return 0; /* no Origin: not a browser's page (bots, tools) */
    char origin[ORIGIN_HOST_MAX + 32], host[ORIGIN_HOST_MAX + 8];
    origin_header(wsi, WSI_TOKEN_ORIGIN, origin, sizeof origin);
    origin_header(wsi, WSI_TOKEN_HOST, host, sizeof host);
    if (origin[0] != '\0' && origin_allowed(&n->origins, origin, host[0] != '\0' ? host : NULL))
        return 0;
    metrics_upgrade_refused_count(METRICS_REFUSED_ORIGIN);
    uint64_t now = uv_now(n->loop);
    if (n->origin_logged == 0 || now - n->origin_logged >= ORIGIN_LOG_MS) {
        char addr[64];
        net__client_address(n, wsi, addr, sizeof addr);
        log_event(LOG_INFO, &(struct log_fields){.addr = addr},
                  "websocket refused: origin not allowed (origin %.100s; %lu more since the last "
                  "line)",
                  origin[0] != '\0' ? origin : "(too long)", n->origin_quiet);
        n->origin_logged = now != 0 ? now : 1;
        n->origin_quiet = 0;
    } else {
        n->origin_quiet++;
    }
    static unsigned char buf[LWS_PRE + 2048];
    size_t k = answer_format((char *)buf + LWS_PRE, sizeof buf - LWS_PRE, 403,
                             "origin not allowed: this server's pages, or allowed-origins\n");
    if (k > 0)
        (void)lws_write(wsi, buf + LWS_PRE, k, LWS_WRITE_HTTP_HEADERS);
    return -1; /* the connection closes after it */
}

/* ---- requests net_rx refuses from the raw bytes ---- */

/* net_rx's refuse hook: the answer lws would never give (it drops such a
 * request), written whole on the socket, with the headers every answer
 * carries. The peer's own address is logged: the head, where a proxy's
 * forwarded address would be, was not read. */
void net__http_refuse_raw(int fd, int status, const char *why)
{
    char text[2048], body[128];
    snprintf(body, sizeof body, "%s\n", why);
    size_t k = answer_format(text, sizeof text, status, body);
    if (k > 0)
        (void)send(fd, text, k, MSG_DONTWAIT | MSG_NOSIGNAL);
    struct sockaddr_storage sa;
    socklen_t salen = sizeof sa;
    char addr[INET6_ADDRSTRLEN] = "";
    if (getpeername(fd, (struct sockaddr *)&sa, &salen) == 0) {
        const void *a = sa.ss_family == AF_INET
                            ? (const void *)&((struct sockaddr_in *)&sa)->sin_addr
                            : (const void *)&((struct sockaddr_in6 *)&sa)->sin6_addr;
        if (inet_ntop(sa.ss_family, a, addr, sizeof addr) == NULL)
            addr[0] = '\0';
        if (strncmp(addr, "::ffff:", 7) == 0 && strchr(addr + 7, ':') == NULL)
            memmove(addr, addr + 7, strlen(addr + 7) + 1);
    }
    log_event(LOG_INFO, &(struct log_fields){.addr = addr}, "http: refused with %d (%s)", status,
              why);
}

/* The bounds of request heads, and the names of the headers lws keeps in a
 * fragment of their own (the others' values are "unknown" to rxguard). Static:
 * net_rx may look at them for as long as the process reads. */
static struct rxguard_http_limits rx_limits;
static uint64_t rx_known[WSI_TOKEN_COUNT];

static int hash_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

const struct rxguard_http_limits *net__rx_limits(void)
{
    size_t k = 0;
    for (int t = 0; t < WSI_TOKEN_COUNT; t++) {
        const char *name = (const char *)lws_token_to_string((enum lws_token_indexes)t);
        size_t len = name != NULL ? strlen(name) : 0;
        if (len >= 2 && name[len - 1] == ':' && name[0] != ':')
            rx_known[k++] = rxguard_name_hash(name, len - 1);
    }
    qsort(rx_known, k, sizeof *rx_known, hash_cmp);
    rx_limits = (struct rxguard_http_limits){HTTP_URI_MAX,
                                             HTTP_PARAMS_MAX,
                                             HTTP_FIELDS_MAX,
                                             HTTP_HEADER_MAX,
                                             HTTP_HEAD_MAX,
                                             rx_known,
                                             k};
    return &rx_limits;
}
