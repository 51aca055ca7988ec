/* push.c: see push.h. */
#include "notify/push.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "notify/ec.h"
#include "util/b64url.h"
#include "util/mem.h"
#include "util/status.h"

/* A VAPID token lasts this long (RFC 8292 allows at most 24 hours). */
#define TOKEN_S (12 * 3600)

int push_origin(const char *endpoint, char *out, size_t size)
{
    if (strncasecmp(endpoint, "https://", 8) != 0)
        return -1;
    size_t host = strcspn(endpoint + 8, "/?#");
    size_t n = 8 + host;
    if (host == 0 || n + 1 > size)
        return -1;
    memcpy(out, endpoint, n);
    out[n] = '\0';
    return 0;
}

/* push_subscription_make and _decode: the point checked on the curve when
 * check_point. */
static int sub_read(const char *endpoint, const char *p256dh, const char *auth,
                    struct push_subscription *out, const char **why, int check_point)
{
    memset(out, 0, sizeof *out);
    char origin[PUSH_ENDPOINT_MAX + 1];
    size_t len = endpoint != NULL ? strlen(endpoint) : 0;
    int plain = 1;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)endpoint[i] <= 0x20 || endpoint[i] == 0x7f)
            plain = 0;
    if (len == 0 || len > PUSH_ENDPOINT_MAX || !plain ||
        push_origin(endpoint, origin, sizeof origin) != 0) {
        *why = "endpoint: not an https:// URL with a host, of at most 1024 characters";
        return -1;
    }
    if (p256dh == NULL || b64url_decode(p256dh, out->p256dh, sizeof out->p256dh) != 65) {
        *why = "keys.p256dh: not 65 bytes of base64url";
        return -1;
    }
    EVP_PKEY *k = check_point ? ec_public_from(out->p256dh) : NULL;
    if (check_point && k == NULL) {
        *why = "keys.p256dh: not an uncompressed P-256 point";
        return -1;
    }
    EVP_PKEY_free(k);
    if (auth == NULL || b64url_decode(auth, out->auth, sizeof out->auth) != 16) {
        *why = "keys.auth: not 16 bytes of base64url";
        return -1;
    }
    memcpy(out->endpoint, endpoint, len + 1);
    return 0;
}

int push_subscription_make(const char *endpoint, const char *p256dh, const char *auth,
                           struct push_subscription *out, const char **why)
{
    return sub_read(endpoint, p256dh, auth, out, why, 1);
}

int push_subscription_decode(const char *endpoint, const char *p256dh, const char *auth,
                             struct push_subscription *out, const char **why)
{
    return sub_read(endpoint, p256dh, auth, out, why, 0);
}

struct job {
    struct push_subscription sub;
    const struct vapid *vapid;
    char subject[PUSH_SUBJECT_MAX + 1];
    char urgency[16];
    int ttl_s;
    size_t len;
    push_cb cb;
    void *arg;
    uint8_t payload[]; /* len bytes */
};

/* "name: value" in a new string. */
static char *line(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 3;
    char *s = mem_alloc(n);
    snprintf(s, n, "%s: %s", name, value);
    return s;
}

/* On the outbound client's thread: the body and the headers. */
static int prepare(void *parg, struct outbound_prep *p)
{
    struct job *j = parg;
    size_t size = WEBPUSH_BODY_BYTES(j->len);
    uint8_t *body = mem_alloc(size);
    size_t n = 0;
    int rc = webpush_encrypt(j->sub.p256dh, j->sub.auth, j->payload, j->len, NULL, body, size, &n);
    char origin[PUSH_ENDPOINT_MAX + 1], auth[VAPID_TOKEN_MAX + 128];
    if (rc == 0 && (push_origin(j->sub.endpoint, origin, sizeof origin) != 0 ||
                    vapid_header(j->vapid, origin, (long long)time(NULL) + TOKEN_S, j->subject,
                                 auth, sizeof auth) < 0))
        rc = WEBPUSH_E_CRYPTO;
    if (rc != 0) {
        free(body);
        return rc;
    }
    p->body = (char *)body;
    p->len = n;
    char ttl[24];
    snprintf(ttl, sizeof ttl, "%d", j->ttl_s);
    p->headers[p->nheaders++] = line("TTL", ttl);
    p->headers[p->nheaders++] = line("Urgency", j->urgency);
    p->headers[p->nheaders++] = line("Content-Encoding", "aes128gcm");
    p->headers[p->nheaders++] = line("Content-Type", "application/octet-stream");
    p->headers[p->nheaders++] = line("Authorization", auth);
    return 0;
}

static int outcome_of(const struct outbound_result *r)
{
    /* Never deliverable, as if gone: a private address, or a p256dh that is
     * not a P-256 point (push_subscription_decode does not check it; the
     * encryption, on the client's thread, did). */
    if (r->error == OUTBOUND_E_PRIVATE || r->error == WEBPUSH_E_KEY)
        return PUSH_GONE;
    if (r->error != 0)
        return r->error == OUTBOUND_E_TIMEOUT || r->error == OUTBOUND_E_CONNECT ||
                       r->error == OUTBOUND_E_TLS || r->error == OUTBOUND_E_FAILED
                   ? PUSH_RETRY
                   : PUSH_FAILED;
    if (r->status >= 200 && r->status < 300)
        return PUSH_SENT;
    if (r->status == 404 || r->status == 410)
        return PUSH_GONE;
    if (r->status == 429 || r->status >= 500)
        return PUSH_RETRY;
    return PUSH_FAILED;
}

static void on_answer(void *arg, const struct outbound_result *r)
{
    struct job *j = arg;
    struct push_result res = {outcome_of(r), r->status, r->retry_after_s, r->error};
    push_cb cb = j->cb;
    void *cb_arg = j->arg;
    free(j);
    cb(cb_arg, &res);
}

int push_send(const struct push_sender *s, const struct push_subscription *sub, const void *payload,
              size_t len, int ttl_s, const char *urgency, push_cb cb, void *arg)
{
    if (len > WEBPUSH_PAYLOAD_MAX)
        return WEBPUSH_E_SIZE;
    struct job *j = mem_alloc(sizeof *j + len);
    memset(j, 0, sizeof *j);
    j->sub = *sub;
    j->vapid = s->vapid;
    snprintf(j->subject, sizeof j->subject, "%s", s->subject);
    snprintf(j->urgency, sizeof j->urgency, "%s", urgency != NULL ? urgency : "normal");
    j->ttl_s = ttl_s < 0 ? 0 : ttl_s;
    j->len = len;
    memcpy(j->payload, payload, len);
    j->cb = cb;
    j->arg = arg;
    int rc = outbound_post_prepared(s->out, sub->endpoint, prepare, j, on_answer, j);
    if (rc != 0)
        free(j);
    return rc;
}
