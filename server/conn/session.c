#include "conn/session.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/mem.h"

void bucket_fill(struct bucket *b, int burst, int64_t period, uint64_t now)
{
    b->level = (int64_t)burst * period;
    b->last = now;
}

int bucket_take(struct bucket *b, uint64_t now, int rate, int burst, int64_t period)
{
    int64_t cap = (int64_t)burst * period;
    if (now > b->last) {
        uint64_t dt = now - b->last;
        /* dt * rate cannot overflow before the cap is reached for any sane dt. */
        if (dt > (uint64_t)cap)
            b->level = cap;
        else
            b->level += (int64_t)dt * rate;
        if (b->level > cap)
            b->level = cap;
        b->last = now;
    }
    if (b->level < period)
        return -1;
    b->level -= period;
    return 0;
}

void session_init(struct session *s, const struct session_sink *sink, void *conn,
                  const struct lobby_limits *lim, uint64_t now)
{
    memset(s, 0, sizeof *s);
    s->sink = sink;
    s->conn = conn;
    s->seat = -1;
    s->qmax = (unsigned)lim->queue_messages;
    s->qmax_bytes = (size_t)lim->queue_bytes;
    s->rxmax = (size_t)lim->message_bytes;
    s->last_ms = now;
    bucket_fill(&s->msg, lim->burst, 1000, now);
    bucket_fill(&s->flood, lim->flood_burst, 1000, now);
    bucket_fill(&s->chat, lim->chat_burst, 60000, now);
    bucket_fill(&s->create, lim->create_rate, 60000, now);
}

static void queue_clear(struct session *s)
{
    while (s->qlen > 0)
        session_pop(s);
}

void session_fini(struct session *s)
{
    queue_clear(s);
    free(s->q);
    s->q = NULL;
    s->qcap = 0;
    free(s->rx);
    s->rx = NULL;
    s->rxcap = s->rxlen = 0;
}

void session_close(struct session *s, int code, const char *reason, int flush)
{
    if (s->closing)
        return;
    s->closing = 1;
    if (s->tally != NULL)
        s->tally->closed(code);
    s->close_code = code;
    s->close_flush = flush;
    size_t n = strlen(reason);
    if (n >= sizeof s->close_reason)
        n = sizeof s->close_reason - 1;
    memcpy(s->close_reason, reason, n);
    s->close_reason[n] = '\0';
    if (!flush)
        queue_clear(s);
    if (s->sink != NULL && s->sink->close != NULL)
        s->sink->close(s);
}

void session_send(struct session *s, struct sbuf *b)
{
    if (s->closing)
        return;
    if (s->qlen >= s->qmax || s->qbytes + s->unsent + b->len > s->qmax_bytes) {
        log_event(LOG_INFO,
                  &(struct log_fields){
                      .addr = s->peer, .session = s->id, .close = SESSION_CLOSE_OVERFLOW},
                  "connection closed: outbound queue overflow");
        session_close(s, SESSION_CLOSE_OVERFLOW, "outbound queue overflow", 0);
        return;
    }
    if (s->qlen == s->qcap) {
        unsigned ncap = s->qcap == 0 ? 8 : s->qcap * 2;
        if (ncap > s->qmax)
            ncap = s->qmax;
        struct sbuf **nq = mem_alloc(ncap * sizeof *nq);
        for (unsigned i = 0; i < s->qlen; i++)
            nq[i] = s->q[(s->qhead + i) % s->qcap];
        free(s->q);
        s->q = nq;
        s->qcap = ncap;
        s->qhead = 0;
    }
    s->q[(s->qhead + s->qlen) % s->qcap] = sbuf_ref(b);
    s->qlen++;
    s->qbytes += b->len;
    if (s->tally != NULL)
        s->tally->sent(b->type, b->code);
    if (s->qlen == 1 && s->sink != NULL && s->sink->wake != NULL)
        s->sink->wake(s);
}

void session_send_text(struct session *s, char *text)
{
    struct sbuf *b = sbuf_take(text);
    session_send(s, b);
    sbuf_unref(b);
}

void session_pop(struct session *s)
{
    if (s->qlen == 0)
        return;
    struct sbuf *b = s->q[s->qhead];
    s->qbytes -= b->len;
    s->qhead = (s->qhead + 1) % s->qcap;
    s->qlen--;
    s->sent++;
    sbuf_unref(b);
}

int session_flush(struct session *s, session_write_fn write)
{
    struct sbuf *b;
    while ((b = session_peek(s)) != NULL) {
        int r = write(s->conn, b);
        if (r < 0)
            return -1;
        session_pop(s);
        if (r > 0)
            break;
    }
    return s->qlen > 0 ? 1 : 0;
}

void session_rx_reset(struct session *s)
{
    s->rxlen = 0;
    s->rx_skip = 0;
    /* Give back a large buffer; keep a small one for the next message. */
    if (s->rxcap > 4096) {
        free(s->rx);
        s->rx = NULL;
        s->rxcap = 0;
    }
}

int session_rx_charge(struct session *s, const struct lobby_limits *l, uint64_t now, int msg)
{
    if (bucket_take(&s->flood, now, l->flood_rate, l->flood_burst, 1000) != 0) {
        session_close(s, SESSION_CLOSE_POLICY, "flooding: too many messages", 1);
        return -1;
    }
    return msg && bucket_take(&s->msg, now, l->rate, l->burst, 1000) != 0 ? 1 : 0;
}

int session_rx_append(struct session *s, const void *data, size_t len, size_t remaining, int final)
{
    size_t want = s->rxlen + len;
    if (want > s->rxmax || remaining > s->rxmax - want)
        return -1;
    if (want + 1 > s->rxcap) {
        /* A move is about 150 bytes: start small, six connections a room. */
        size_t ncap = s->rxcap == 0 ? 256 : s->rxcap;
        while (ncap < want + remaining + 1)
            ncap *= 2;
        if (ncap > s->rxmax + 1)
            ncap = s->rxmax + 1;
        char *n = mem_resize(s->rx, ncap);
        s->rx = n;
        s->rxcap = ncap;
    }
    memcpy(s->rx + s->rxlen, data, len);
    s->rxlen = want;
    s->rx[s->rxlen] = '\0';
    return final ? 1 : 0;
}

void session_peer_key(const char *peer, int ipv6_prefix, char *key, size_t size)
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    unsigned char a[16];
    char text[INET6_ADDRSTRLEN];
    if (size == 0)
        return;
    if (inet_pton(AF_INET, peer, a) == 1 && inet_ntop(AF_INET, a, text, sizeof text) != NULL) {
        snprintf(key, size, "%s", text);
        return;
    }
    if (inet_pton(AF_INET6, peer, a) != 1) {
        snprintf(key, size, "%s", peer);
        return;
    }
    if (memcmp(a, mapped, sizeof mapped) == 0) {
        inet_ntop(AF_INET, a + 12, text, sizeof text);
        snprintf(key, size, "%s", text);
        return;
    }
    int bits = ipv6_prefix < 32 ? 32 : ipv6_prefix > 128 ? 128 : ipv6_prefix;
    for (int i = 0; i < 16; i++) {
        int keep = bits - 8 * i; /* bits of byte i inside the prefix */
        if (keep <= 0)
            a[i] = 0;
        else if (keep < 8)
            a[i] &= (unsigned char)(0xff << (8 - keep));
    }
    inet_ntop(AF_INET6, a, text, sizeof text);
    if (bits == 128)
        snprintf(key, size, "%s", text);
    else
        snprintf(key, size, "%s/%d", text, bits);
}
