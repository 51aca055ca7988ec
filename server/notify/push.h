/* push.h: one Web Push message (RFC 8030) to one subscription. The payload is
 * encrypted (webpush.h) and the request signed (vapid.h) on the outbound
 * client's thread (outbound_post_prepared), never on the loop; the answer is
 * sorted into what the caller does with the subscription next.
 *
 * Calls on the loop of the struct outbound given. A struct push_subscription
 * is plain data, copied by push_send. */
#ifndef CARCD_NOTIFY_PUSH_H
#define CARCD_NOTIFY_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "notify/outbound.h"
#include "notify/vapid.h"
#include "notify/webpush.h"

#define PUSH_ENDPOINT_MAX 1024
#define PUSH_SUBJECT_MAX 200

/* A browser's PushSubscription: its endpoint and its keys. */
struct push_subscription {
    char endpoint[PUSH_ENDPOINT_MAX + 1];
    uint8_t p256dh[WEBPUSH_POINT_BYTES];
    uint8_t auth[WEBPUSH_AUTH_BYTES];
};

/* The subscription of a PushSubscription's JSON fields (endpoint, keys.p256dh,
 * keys.auth, both keys base64url): 0, or -1 with *why saying what is wrong
 * (not an https:// URL of at most PUSH_ENDPOINT_MAX characters with a host and
 * no spaces or control characters; a p256dh that is not a P-256 point; an
 * auth that is not 16 bytes). */
int push_subscription_make(const char *endpoint, const char *p256dh, const char *auth,
                           struct push_subscription *out, const char **why);

/* The same for a subscription push_subscription_make accepted before (one
 * read from the store), on the hot path of every notice: everything but the
 * check that p256dh is on the curve, which costs OpenSSL ~100 us of the
 * loop's time per subscription (measured: tests/bench/README.md "Dead push
 * endpoints") while a base64url decode costs ~1 us. A point that is not on
 * the curve is still caught, off the loop, when push_send's encryption needs
 * it: that push is answered PUSH_GONE (error WEBPUSH_E_KEY) without being
 * sent. */
int push_subscription_decode(const char *endpoint, const char *p256dh, const char *auth,
                             struct push_subscription *out, const char **why);

/* The origin of an endpoint ("https://host[:port]"), the audience of its
 * VAPID token, into out: 0, or -1 when it does not fit. */
int push_origin(const char *endpoint, char *out, size_t size);

/* What the caller does next with the subscription. */
enum push_outcome {
    PUSH_SENT = 0, /* 2xx: the push service took it */
    PUSH_GONE,     /* 404 or 410: the subscription has expired or was removed, or its
                      endpoint is at a private address (OUTBOUND_E_PRIVATE), or its p256dh
                      is not a P-256 point (WEBPUSH_E_KEY): drop it */
    PUSH_RETRY,    /* 429, 5xx, or no answer (timeout, connection, TLS): later, with
                      backoff (retry_after_s when the service gave one) */
    PUSH_FAILED    /* any other answer (400, 403: another key, 413...): not again as is */
};
struct push_result {
    int outcome;        /* enum push_outcome */
    long status;        /* the HTTP status, 0 without an answer */
    long retry_after_s; /* -1: none given */
    int error;          /* 0, or the OUTBOUND_E_* / WEBPUSH_E_* that stopped it */
};
typedef void (*push_cb)(void *arg, const struct push_result *res);

/* Who sends: carcd's key and the contact of its VAPID tokens ("mailto:..."
 * or an https URL). Both must outlive every push sent with them. */
struct push_sender {
    struct outbound *out;
    const struct vapid *vapid;
    const char *subject;
};

/* Send payload[0..len) (at most WEBPUSH_PAYLOAD_MAX bytes) to sub, kept by
 * the push service ttl_s seconds at most, with urgency "very-low", "low",
 * "normal" or "high". 0: cb(arg, ...) comes once, on the loop. Else a status
 * (OUTBOUND_E_FULL, OUTBOUND_E_CLOSED, OUTBOUND_E_URL, WEBPUSH_E_SIZE) and cb is
 * never called. */
int push_send(const struct push_sender *s, const struct push_subscription *sub, const void *payload,
              size_t len, int ttl_s, const char *urgency, push_cb cb, void *arg);

#endif
