/* outbound.h: outbound HTTPS requests (Web Push, webhooks) off the event loop.
 *
 * libcurl's multi interface runs on a thread of its own with a libuv loop of
 * its own (curl_multi_socket_action driven by uv_poll and a uv_timer): name
 * resolution (curl's threaded resolver), TLS handshakes and every byte sent
 * or read happen there, never on carcd's loop. The caller's loop only
 * copies a request into a bounded queue and wakes that thread
 * (uv_async_send), and gets each answer through its callback on its own loop,
 * woken the same way. A request that cannot be queued is refused at once;
 * every queued one is answered exactly once (OUTBOUND_E_CLOSED when the
 * client closes first).
 *
 * Only https:// URLs to public addresses (private_ok), no redirects followed, a total and a connect
 * timeout, at most `response_max` bytes of an answer's body kept (the rest read and dropped).
 * `ca_file`: PEM certificates trusted besides the system's (at most 16; tests trust their local
 * endpoints with it).
 *
 * Owned by whoever made it (main); outbound_close ends it. All calls on the
 * loop given to outbound_new. */
#ifndef CARCD_NOTIFY_OUTBOUND_H
#define CARCD_NOTIFY_OUTBOUND_H

#include <stddef.h>
#include <uv.h>

struct outbound_config {
    int queue_max;          /* requests queued or running at once (256) */
    int timeout_ms;         /* a whole request (10000) */
    int connect_timeout_ms; /* its connection, TLS included (5000) */
    size_t response_max;    /* bytes of a body kept (4096) */
    const char *ca_file;    /* NULL: the system's CAs only; copied */
    const char *user_agent; /* NULL: "carcd"; copied */
    /* 0 (the default): an https request whose host resolves to a loopback,
     * private, link-local, shared (100.64/10) or multicast address is refused
     * before it connects (OUTBOUND_E_PRIVATE), so that a URL a user gave (a
     * push endpoint) cannot reach carcd's own network; e-mail to the
     * configured relay is never refused so. 1: allowed (tests, a LAN). */
    int private_ok;
};
void outbound_config_defaults(struct outbound_config *c);

/* What happened to one request. */
struct outbound_result {
    int error;           /* 0: an answer came (any status); else OUTBOUND_E_* */
    long status;         /* the HTTP status, 0 without an answer */
    long retry_after_s;  /* a Retry-After in seconds, -1 without one */
    const char *message; /* error != 0: libcurl's words, for the log */
    const char *body;    /* the answer's body (NUL-terminated), at most response_max bytes */
    size_t body_len;
};
typedef void (*outbound_cb)(void *arg, const struct outbound_result *res);

struct outbound;

/* A client on loop: NULL with err set when libcurl, the thread or ca_file
 * cannot be had (ca_file is read here: call it at start). */
struct outbound *outbound_new(uv_loop_t *loop, const struct outbound_config *cfg, char *err,
                              size_t errlen);

/* POST body[0..len) to url with the given header lines ("Name: value",
 * nheaders of them), all copied. 0: queued, cb(arg, ...) will be called once,
 * on the loop, never from inside this call. OUTBOUND_E_FULL (queue_max
 * requests under way), OUTBOUND_E_URL (not https://, or too long),
 * OUTBOUND_E_CLOSED (closing): nothing queued, cb never called. */
int outbound_post(struct outbound *o, const char *url, const char *const *headers, int nheaders,
                  const void *body, size_t len, outbound_cb cb, void *arg);

/* A request whose body and headers are made on the client's thread, for work
 * that must stay off the loop (Web Push's encryption and signature):
 * prepare(parg, p) runs there once, before the request starts, and fills p
 * (a malloc'd body, which the client frees; up to OUTBOUND_HEADERS_MAX
 * malloc'd header lines). It returns 0, or a status that answers the request
 * at once (res.error) without sending anything. parg stays the caller's: it
 * must live, untouched by the loop, until cb is called. Returns as
 * outbound_post. */
#define OUTBOUND_HEADERS_MAX 8
struct outbound_prep {
    char *body;
    size_t len;
    char *headers[OUTBOUND_HEADERS_MAX];
    int nheaders;
};
typedef int (*outbound_prepare)(void *parg, struct outbound_prep *p);
int outbound_post_prepared(struct outbound *o, const char *url, outbound_prepare prepare,
                           void *parg, outbound_cb cb, void *arg);

/* One e-mail through the relay at smtp_url ("smtp://host[:port]" with STARTTLS
 * when the relay offers it, or "smtps://..."; "user:password@" in it when the
 * relay wants a login), envelope from `from` to `to`, message the whole RFC
 * 5322 text (headers, a blank line, the body; CRLF line ends), all copied.
 * The result's status is the relay's last reply code (250). Returns as
 * outbound_post; OUTBOUND_E_URL for a URL that is neither smtp:// nor
 * smtps:// or an address with a character outside the printable ASCII,
 * spaces, '<' or '>'. */
int outbound_mail(struct outbound *o, const char *smtp_url, const char *from, const char *to,
                  const char *message, size_t len, outbound_cb cb, void *arg);

/* Requests queued or running now. */
int outbound_pending(const struct outbound *o);

/* Stop: the requests under way are abandoned and answered OUTBOUND_E_CLOSED,
 * the thread ends, then done(arg) is called on the loop (after which o is
 * freed). No call on o after this one. */
void outbound_close(struct outbound *o, void (*done)(void *arg), void *arg);

#endif
