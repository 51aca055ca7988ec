/* ws.c: the RFC 6455 client of ws.h: handshake (with SHA-1 for the accept
 * key), masked frames out, frames in with reassembly and control frames. */
#include "ws.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#define WS_HEAD_MAX 8192      /* bytes of the handshake response */
#define WS_HANDSHAKE_MS 10000 /* the longest wait for the handshake's answer */

static int fail(struct ws_conn *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return WS_ERROR;
}

/* ---- SHA-1 (FIPS 180-4), only for Sec-WebSocket-Accept ---- */

static uint32_t rol(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

static void sha1_block(uint32_t h[5], const unsigned char *p)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDC;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6;
        }
        uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

/* SHA-1 of a short text (under 1 KiB) into out[20]. */
static void sha1(const char *text, size_t len, unsigned char out[20])
{
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    unsigned char buf[1024 + 128];
    memcpy(buf, text, len);
    size_t n = len;
    buf[n++] = 0x80;
    while (n % 64 != 56)
        buf[n++] = 0;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 7; i >= 0; i--)
        buf[n++] = (unsigned char)(bits >> (8 * i));
    for (size_t off = 0; off < n; off += 64)
        sha1_block(h, buf + off);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (unsigned char)(h[i] >> (24 - 8 * j));
}

static void base64(const unsigned char *in, size_t n, char *out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = tab[(v >> 18) & 63];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    out[o] = '\0';
}

static uint64_t next_rand(struct ws_conn *c)
{
    /* splitmix64 */
    uint64_t z = (c->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void os_random(void *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY);
    size_t got = 0;
    if (fd >= 0) {
        while (got < n) {
            ssize_t r = read(fd, (char *)buf + got, n - got);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        close(fd);
    }
    if (got < n) { /* no /dev/urandom: still unique per process and call */
        static uint64_t ctr;
        uint64_t x = (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)buf ^ ++ctr;
        for (size_t i = got; i < n; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            ((unsigned char *)buf)[i] = (unsigned char)(x >> 56);
        }
    }
}

/* ---- connection ---- */

int ws_url_split(const char *url, char *host, size_t hostlen, char *port, size_t portlen,
                 char *path, size_t pathlen)
{
    if (strncmp(url, "ws://", 5) != 0)
        return -1;
    const char *p = url + 5, *hend, *pstart;
    if (*p == '[') {
        hend = strchr(p, ']');
        if (hend == NULL)
            return -1;
        p++;
        pstart = hend + 1;
    } else {
        hend = p + strcspn(p, ":/");
        pstart = hend;
    }
    if (hend == p || (size_t)(hend - p) >= hostlen)
        return -1;
    memcpy(host, p, (size_t)(hend - p));
    host[hend - p] = '\0';
    const char *slash = strchr(pstart, '/');
    if (*pstart == ':') {
        size_t n = slash ? (size_t)(slash - pstart - 1) : strlen(pstart + 1);
        if (n == 0 || n >= portlen)
            return -1;
        memcpy(port, pstart + 1, n);
        port[n] = '\0';
    } else {
        snprintf(port, portlen, "80");
    }
    snprintf(path, pathlen, "%s", slash ? slash : "/");
    return 0;
}

int ws_url_with_path(const char *url, const char *path, char *out, size_t outlen)
{
    char host[256], port[16], old[512];
    if (path == NULL || path[0] != '/' ||
        ws_url_split(url, host, sizeof host, port, sizeof port, old, sizeof old) < 0)
        return -1;
    int ipv6 = strchr(host, ':') != NULL;
    int n = snprintf(out, outlen, "ws://%s%s%s:%s%s", ipv6 ? "[" : "", host, ipv6 ? "]" : "", port,
                     path);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

static int write_all(struct ws_conn *c, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pf = {.fd = c->fd, .events = POLLOUT};
            if (poll(&pf, 1, 10000) <= 0)
                return fail(c, "write timed out");
            continue;
        }
        return fail(c, "write: %s", strerror(errno));
    }
    return WS_OK;
}

static int reserve(void **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 4096;
    while (n < need)
        n *= 2;
    void *p = realloc(*buf, n);
    if (p == NULL)
        return -1;
    *buf = p;
    *cap = n;
    return 0;
}

/* Binds fd to the numeric address source (of the family), so that a load
 * test can spread its connections over several local addresses. 0, or -1
 * when the bind failed; a source that does not parse is ignored. */
static int bind_source(int fd, int family, const char *source)
{
    struct addrinfo *src;
    struct addrinfo sh = {
        .ai_family = family, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST};
    if (getaddrinfo(source, NULL, &sh, &src) != 0)
        return 0;
    int ok = bind(fd, src->ai_addr, src->ai_addrlen);
    freeaddrinfo(src);
    return ok < 0 ? -1 : 0;
}

/* c->fd connected to the first address of host:port that takes it (from
 * source when not NULL), with TCP_NODELAY. WS_OK, or WS_ERROR with c->err
 * and c->fd -1. */
static int tcp_connect(struct ws_conn *c, const char *host, const char *port, const char *source)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0)
        return fail(c, "%s: %s", host, gai_strerror(rc));
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        c->fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (c->fd < 0)
            continue;
        if (source != NULL && bind_source(c->fd, ai->ai_family, source) < 0) {
            close(c->fd);
            c->fd = -1;
            continue;
        }
        if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(c->fd);
        c->fd = -1;
    }
    freeaddrinfo(res);
    if (c->fd < 0)
        return fail(c, "cannot connect to %s:%s: %s", host, port, strerror(errno));
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return WS_OK;
}

/* Sends the upgrade request for path on host:port with a fresh key; want
 * gets the Sec-WebSocket-Accept the server must answer. WS_OK, or WS_ERROR
 * with c closed. */
static int handshake_send(struct ws_conn *c, const char *host, const char *port, const char *path,
                          char want[32])
{
    unsigned char nonce[16], digest[20];
    char key[32], req[1024], both[128];
    os_random(nonce, sizeof nonce);
    base64(nonce, sizeof nonce, key);
    snprintf(both, sizeof both, "%s%s", key, WS_GUID);
    sha1(both, strlen(both), digest);
    base64(digest, sizeof digest, want);
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n",
                     path, host, port, key);
    if (write_all(c, (const unsigned char *)req, (size_t)n) < 0) {
        ws_close(c, 0);
        return WS_ERROR;
    }
    return WS_OK;
}

/* Reads into c->in up to the end of the response head; *end points at its
 * "\r\n\r\n" (what follows it is already frames). WS_OK, or WS_ERROR with
 * c closed. */
static int head_read(struct ws_conn *c, char **end)
{
    *end = NULL;
    while (*end == NULL) {
        if (reserve((void **)&c->in, &c->icap, c->ilen + 1025) < 0 || c->ilen > WS_HEAD_MAX) {
            ws_close(c, 0);
            return fail(c, "handshake response too long");
        }
        /* A proxy may hold the request while the node behind it is stopped: give up
         * rather than wait for ever (a client then tries again, PROTOCOL.md). */
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        int pr = poll(&pf, 1, WS_HANDSHAKE_MS);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0) {
            ws_close(c, 0);
            return fail(c, "handshake: no answer in %d ms", WS_HANDSHAKE_MS);
        }
        ssize_t r = recv(c->fd, c->in + c->ilen, 1024, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            ws_close(c, 0);
            return fail(c, "handshake: connection closed");
        }
        c->ilen += (size_t)r;
        c->in[c->ilen] = '\0';
        *end = strstr((char *)c->in, "\r\n\r\n");
    }
    return WS_OK;
}

/* The response head (its end cut off) must be a 101 with the accept key
 * want. WS_OK, or WS_ERROR with c closed. */
static int head_check(struct ws_conn *c, const char *head, const char *want)
{
    if (strncmp(head, "HTTP/1.1 101", 12) != 0) {
        char line[80];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(head, "\r\n"), head);
        ws_close(c, 0);
        return fail(c, "handshake refused: %s", line);
    }
    int accepted = 0;
    for (const char *l = strstr(head, "\r\n"); l != NULL; l = strstr(l, "\r\n")) {
        l += 2;
        if (strncasecmp(l, "Sec-WebSocket-Accept:", 21) == 0) {
            const char *v = l + 21;
            while (*v == ' ' || *v == '\t')
                v++;
            size_t vl = strcspn(v, "\r\n \t");
            accepted = vl == strlen(want) && memcmp(v, want, vl) == 0;
        }
    }
    if (!accepted) {
        ws_close(c, 0);
        return fail(c, "handshake: bad Sec-WebSocket-Accept");
    }
    return WS_OK;
}

int ws_connect(struct ws_conn *c, const char *url, const char *source)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->close_code = 0;
    os_random(&c->rng, sizeof c->rng);
    char host[256], port[16], path[512], want[32], *end;
    if (ws_url_split(url, host, sizeof host, port, sizeof port, path, sizeof path) < 0)
        return fail(c, "bad url %s (want ws://HOST:PORT/PATH)", url);
    if (tcp_connect(c, host, port, source) != WS_OK ||
        handshake_send(c, host, port, path, want) != WS_OK || head_read(c, &end) != WS_OK)
        return WS_ERROR;
    *end = '\0';
    char *head = (char *)c->in;
    if (head_check(c, head, want) != WS_OK)
        return WS_ERROR;
    c->ipos = (size_t)(end + 4 - head);
    return WS_OK;
}

int ws_set_nonblocking(struct ws_conn *c)
{
    int fl = fcntl(c->fd, F_GETFL);
    if (fl < 0 || fcntl(c->fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return fail(c, "fcntl: %s", strerror(errno));
    return WS_OK;
}

int ws_fill(struct ws_conn *c)
{
    if (c->fd < 0)
        return WS_CLOSED;
    if (c->ipos > 0) { /* compact */
        memmove(c->in, c->in + c->ipos, c->ilen - c->ipos);
        c->ilen -= c->ipos;
        c->ipos = 0;
    }
    if (reserve((void **)&c->in, &c->icap, c->ilen + 65536) < 0)
        return fail(c, "out of memory");
    for (;;) {
        ssize_t r = recv(c->fd, c->in + c->ilen, c->icap - c->ilen, 0);
        if (r > 0) {
            c->ilen += (size_t)r;
            return (int)r;
        }
        if (r == 0) {
            if (c->close_code == 0)
                c->close_code = 1006;
            return WS_CLOSED;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return WS_AGAIN;
        if (c->close_code == 0)
            c->close_code = 1006;
        return errno == ECONNRESET ? WS_CLOSED : fail(c, "read: %s", strerror(errno));
    }
}

int ws_send_frame(struct ws_conn *c, int opcode, const void *data, size_t len)
{
    if (c->fd < 0)
        return fail(c, "not connected");
    unsigned char stackbuf[1024], *buf = stackbuf;
    size_t need = len + 14;
    if (need > sizeof stackbuf && (buf = malloc(need)) == NULL)
        return fail(c, "out of memory");
    size_t h = 0;
    buf[h++] = (unsigned char)(0x80 | (opcode & 0x0F));
    if (len < 126) {
        buf[h++] = (unsigned char)(0x80 | len);
    } else if (len < 65536) {
        buf[h++] = 0x80 | 126;
        buf[h++] = (unsigned char)(len >> 8);
        buf[h++] = (unsigned char)len;
    } else {
        buf[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            buf[h++] = (unsigned char)((uint64_t)len >> (8 * i));
    }
    uint32_t k32 = (uint32_t)next_rand(c);
    unsigned char key[4] = {(unsigned char)(k32 >> 24), (unsigned char)(k32 >> 16),
                            (unsigned char)(k32 >> 8), (unsigned char)k32};
    memcpy(buf + h, key, 4);
    h += 4;
    const unsigned char *src = data;
    for (size_t i = 0; i < len; i++)
        buf[h + i] = src[i] ^ key[i & 3];
    int rc = write_all(c, buf, h + len);
    if (buf != stackbuf)
        free(buf);
    return rc;
}

int ws_send_text(struct ws_conn *c, const char *text, size_t len)
{
    return ws_send_frame(c, 1, text, len);
}

int ws_next(struct ws_conn *c, const char **data, size_t *len)
{
    if (c->delivered) {
        c->delivered = 0;
        c->mlen = 0;
        c->mop = 0;
    }
    for (;;) {
        size_t avail = c->ilen - c->ipos;
        const unsigned char *p = c->in + c->ipos;
        if (avail < 2)
            return WS_AGAIN;
        int fin = p[0] & 0x80, op = p[0] & 0x0F;
        if (p[0] & 0x70)
            return fail(c, "frame with reserved bits set");
        if (p[1] & 0x80)
            return fail(c, "masked frame from the server");
        uint64_t n = p[1] & 0x7F;
        size_t h = 2;
        if (n == 126) {
            if (avail < 4)
                return WS_AGAIN;
            n = (uint64_t)p[2] << 8 | p[3];
            h = 4;
        } else if (n == 127) {
            if (avail < 10)
                return WS_AGAIN;
            n = 0;
            for (int i = 0; i < 8; i++)
                n = n << 8 | p[2 + i];
            h = 10;
        }
        if (op >= 8 && (!fin || n > 125))
            return fail(c, "bad control frame");
        if (n > WS_MAX_MESSAGE || c->mlen + n > WS_MAX_MESSAGE)
            return fail(c, "message over %u bytes", WS_MAX_MESSAGE);
        if (avail < h + n)
            return WS_AGAIN;
        const unsigned char *payload = p + h;
        c->ipos += h + (size_t)n;
        switch (op) {
        case 0x8: { /* close */
            int code = n >= 2 ? (payload[0] << 8 | payload[1]) : 1005;
            c->close_code = code;
            if (!c->close_sent) {
                unsigned char b[2] = {(unsigned char)(code >> 8), (unsigned char)code};
                ws_send_frame(c, 0x8, b, n >= 2 ? 2 : 0);
                c->close_sent = 1;
            }
            return WS_CLOSED;
        }
        case 0x9: /* ping */
            if (ws_send_frame(c, 0xA, payload, (size_t)n) < 0)
                return WS_ERROR;
            continue;
        case 0xA: /* pong */
            continue;
        case 0x0:
            if (c->mop == 0)
                return fail(c, "continuation frame without a message");
            break;
        case 0x1:
        case 0x2:
            if (c->mop != 0)
                return fail(c, "new message inside a fragmented one");
            c->mop = op;
            break;
        default:
            return fail(c, "unknown opcode %d", op);
        }
        if (reserve((void **)&c->msg, &c->mcap, c->mlen + (size_t)n + 1) < 0)
            return fail(c, "out of memory");
        memcpy(c->msg + c->mlen, payload, (size_t)n);
        c->mlen += (size_t)n;
        if (!fin)
            continue;
        c->msg[c->mlen] = '\0';
        *data = c->msg;
        *len = c->mlen;
        c->delivered = 1;
        return c->mop;
    }
}

int ws_recv(struct ws_conn *c, const char **data, size_t *len, int timeout_ms)
{
    for (;;) {
        int rc = ws_next(c, data, len);
        if (rc != WS_AGAIN)
            return rc;
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        int pr = poll(&pf, 1, timeout_ms);
        if (pr == 0)
            return WS_AGAIN;
        if (pr < 0 && errno != EINTR)
            return fail(c, "poll: %s", strerror(errno));
        rc = ws_fill(c);
        if (rc == WS_CLOSED || rc == WS_ERROR)
            return rc;
    }
}

void ws_close(struct ws_conn *c, int code)
{
    if (c->fd >= 0) {
        if (code > 0 && !c->close_sent) {
            unsigned char b[2] = {(unsigned char)(code >> 8), (unsigned char)code};
            ws_send_frame(c, 0x8, b, 2);
            c->close_sent = 1;
        }
        close(c->fd);
        c->fd = -1;
    }
    free(c->in);
    free(c->msg);
    c->in = NULL;
    c->msg = NULL;
    c->ilen = c->ipos = c->icap = c->mlen = c->mcap = 0;
}
