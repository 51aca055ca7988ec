/* rxguard.c: see rxguard.h. */
#include "conn/rxguard.h"

#include "err.h"

#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

static uint8_t lower(uint8_t c)
{
    return c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
}

uint64_t rxguard_name_hash(const char *name, size_t len)
{
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < len; i++)
        h = (h ^ lower((uint8_t)name[i])) * FNV_PRIME;
    return h;
}

static void head_reset(struct rxguard *g)
{
    g->target = g->params = g->fields = g->unknown = g->head = 0;
    g->state = RXH_METHOD;
    g->counted = g->started = g->cl = 0;
    g->clen = 0;
}

void rxguard_http_start(struct rxguard *g, const struct rxguard_http_limits *lim)
{
    *g = (struct rxguard){.mode = RXGUARD_HTTP, .lim = lim};
    head_reset(g);
}

int rxguard_ws_start(struct rxguard *g)
{
    if (g->mode != RXGUARD_HTTP || g->total != g->head_end) {
        g->mode = RXGUARD_DONE;
        return CARC_E_INVAL;
    }
    g->mode = RXGUARD_WS;
    g->pos = g->need = 0;
    g->skip = 0;
    return 0;
}

static int known(const struct rxguard_http_limits *l, uint64_t h)
{
    size_t lo = 0, hi = l->nknown;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->known[mid] == h)
            return 1;
        if (l->known[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static int refuse(struct rxguard *g, int status, const char *why)
{
    g->status = (uint16_t)status;
    g->why = why;
    g->mode = RXGUARD_DONE;
    return CARC_E_TOO_BIG;
}

/* The request line: the method (CR and LF before it are skipped, as RFC 9112
 * 2.2 allows), the target up to a space (each '&' and ';' in it starts a new
 * fragment in lws, in the path too, as in the query), then the version. */
static int line_byte(struct rxguard *g, const struct rxguard_http_limits *l, uint8_t c)
{
    if (g->state == RXH_METHOD) {
        if (c == ' ')
            g->state = RXH_TARGET;
        else if (c == '\n' && g->started)
            g->state = RXH_LINE;
        else if (c != '\r' && c != '\n')
            g->started = 1;
        return 0;
    }
    if (g->state == RXH_VERSION) {
        if (c == '\n')
            g->state = RXH_LINE;
        return 0;
    }
    if (c == ' ' || c == '\r' || c == '\n') {
        g->state = c == '\n' ? RXH_LINE : RXH_VERSION;
        return 0;
    }
    if (++g->target >= l->target_max)
        return refuse(g, 414, "request target too long");
    if ((c == '&' || c == ';') && ++g->params >= l->params_max)
        return refuse(g, 400, "too many query parameters");
    return 0;
}

/* A header line: its name is hashed until the colon; the value of a field
 * lws does not know (no fragment of its own) is counted, from its first
 * byte that is not a space. A blank line ends the head. */
static void name_byte(struct rxguard *g, const struct rxguard_http_limits *l, uint8_t c)
{
    if (c == ':') {
        g->counted = !known(l, g->name);
        if (g->name == rxguard_name_hash("content-length", 14)) {
            g->cl = 1;
            g->clen = 0;
        }
        g->started = 0;
        g->state = RXH_VALUE;
    } else if (c == '\n') {
        g->state = RXH_LINE; /* a line without a colon: lws skips it */
    } else {
        g->name = (g->name ^ lower(c)) * FNV_PRIME;
    }
}

static int field_byte(struct rxguard *g, const struct rxguard_http_limits *l, uint8_t c)
{
    if (g->state == RXH_LINE) {
        if (c == '\r')
            return 0;
        if (c == '\n') {
            g->heads++;
            uint64_t body = g->cl == 3 ? g->clen : 0;
            head_reset(g);
            g->skip = body;
            return 0;
        }
        if (++g->fields > l->fields_max)
            return refuse(g, 431, "too many header fields");
        g->name = FNV_OFFSET;
        g->state = RXH_NAME;
        name_byte(g, l, c);
    } else if (g->state == RXH_NAME) {
        name_byte(g, l, c);
    } else if (c == '\n') {
        g->state = RXH_LINE;
        if (g->cl == 1)
            g->cl = 3; /* a whole Content-Length */
    } else if (c != '\r' && (g->started || (c != ' ' && c != '\t'))) {
        g->started = 1;
        if (g->cl == 1 && c >= '0' && c <= '9' && g->clen < (1ull << 40))
            g->clen = g->clen * 10 + (uint64_t)(c - '0');
        else if (g->cl == 1 && c != ' ' && c != '\t')
            g->cl = 2; /* not a length: lws or carcd refuses it, and closes */
        if (g->counted && ++g->unknown >= l->unknown_max)
            return refuse(g, 431, "unknown header fields too large");
    }
    return 0;
}

static int head_byte(struct rxguard *g, uint8_t c)
{
    const struct rxguard_http_limits *l = g->lim;
    if (g->state != RXH_METHOD || g->started || (c != '\r' && c != '\n'))
        if (++g->head >= l->head_max)
            return refuse(g, 431, "request head too large");
    if (g->state <= RXH_VERSION)
        return line_byte(g, l, c);
    return field_byte(g, l, c);
}

static int http_scan(struct rxguard *g, const uint8_t *p, size_t n)
{
    static const uint8_t end[4] = {'\r', '\n', '\r', '\n'};
    for (size_t i = 0; i < n; i++) {
        if (g->skip > 0) { /* a body */
            size_t take = g->skip < n - i ? (size_t)g->skip : n - i;
            g->skip -= take;
            i += take - 1;
            g->crlf = 0;
            continue;
        }
        if (p[i] == end[g->crlf])
            g->crlf++;
        else
            g->crlf = p[i] == '\r';
        if (g->crlf == 4) {
            g->crlf = 0;
            g->head_end = g->total + i + 1;
        }
        if (g->lim != NULL && head_byte(g, p[i]) != 0)
            return CARC_E_TOO_BIG;
    }
    return 0;
}

/* A frame header is 2 bytes, then 2 or 8 of extended length (a first length
 * of 126 or 127), then the 4-byte mask key: 6 to 14 bytes for a client. A
 * control frame (opcode 8 and up: close, ping, pong) is counted once its
 * header is whole. */
static int ws_scan(struct rxguard *g, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (g->skip > 0) {
            size_t take = g->skip < n - i ? (size_t)g->skip : n - i;
            g->skip -= take;
            i += take;
            continue;
        }
        uint8_t c = p[i++];
        if (g->pos == 0) {
            g->op = c & 0x0f;
        } else if (g->pos == 1) {
            if (!(c & 0x80)) {
                g->mode = RXGUARD_DONE;
                return CARC_E_INVAL;
            }
            uint8_t len7 = c & 0x7f;
            g->need = (uint8_t)(2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + 4);
            g->len = len7 < 126 ? len7 : 0;
        } else if (g->pos < g->need - 4) {
            g->len = g->len << 8 | c;
        }
        if (++g->pos == g->need) {
            if (g->op & 0x08)
                g->controls++;
            g->skip = g->len;
            g->pos = g->need = 0;
        }
    }
    return 0;
}

int rxguard_bytes_scan(struct rxguard *g, const uint8_t *p, size_t n)
{
    int rc = 0;
    if (g->mode == RXGUARD_HTTP)
        rc = http_scan(g, p, n);
    else if (g->mode == RXGUARD_WS)
        rc = ws_scan(g, p, n);
    g->total += n;
    return rc;
}
