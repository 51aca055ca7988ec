/* rxguard.h: what libwebsockets 4.1.6 does not check on a client's bytes.
 *
 * RFC 6455 5.1: a server must close the connection when a client frame is
 * not masked. lws 4.1.6 (Debian 12) accepts such frames and hides the mask
 * bit from its callbacks (later lws refuse them), so carcd watches the raw
 * bytes the way lws reads them (server/net/net_rx.c) and runs them through this
 * scanner, a plain-data state machine that only skips over payloads: it
 * never copies or changes a byte, and lws still parses everything itself.
 *
 * A connection starts in HTTP mode, where the scanner follows each request
 * head (request line, header fields, the blank line) and notes where it ends.
 * A head with a Content-Length is followed by that many bytes of body, which
 * are skipped, not taken for the next head (carcd reads a body on a few
 * routes only, and closes the connection after refusing any other).
 * With bounds (rxguard_http_start), it also finds the heads lws would drop
 * without an answer: lws keeps a head's fragments (the path, each query
 * parameter, each header field it knows) in a fixed table and its bytes in one
 * buffer, and gives up on a head that overflows either. The scanner says so
 * first, with the status to answer: 414 for a long request target, 400 for
 * too many query parameters, 431 for too many header fields, unknown header
 * fields whose values add up to too much, or a head too long.
 *
 * When lws has completed the websocket handshake, rxguard_ws_start switches
 * it to frames; bytes the client sent after its upgrade request and before
 * the server's answer are refused too (RFC 6455 4.1: the client must wait for
 * the answer), since they could not be told apart from a frame the scanner did
 * not see start. In frames, it counts the control frames (ping, pong, close),
 * which lws answers itself and never shows carcd, so that they can pay the
 * flood bucket like data frames.
 * Owned by whoever holds the connection (net_rx.c's table, or a test). */
#ifndef CARCD_RXGUARD_H
#define CARCD_RXGUARD_H

#include <stddef.h>
#include <stdint.h>

enum rxguard_mode { RXGUARD_HTTP = 0, RXGUARD_WS, RXGUARD_DONE };

/* Bounds on a request head, in bytes as sent (before any percent-decoding).
 * The caller keeps it alive as long as the guards that point to it. known:
 * rxguard_name_hash() of every header name (lower case, no colon) whose
 * value lws keeps in a fragment of its own, sorted ascending: the others'
 * values add up to unknown_max at most. */
struct rxguard_http_limits {
    unsigned target_max;  /* request target (path and query): at most this - 1 */
    unsigned params_max;  /* parameters ('&' and ';' in the target, plus one): at most this */
    unsigned fields_max;  /* header fields: at most this many */
    unsigned unknown_max; /* unknown fields' values added up: at most this - 1 */
    unsigned head_max;    /* the whole head: at most this - 1 */
    const uint64_t *known;
    size_t nknown;
};

/* Where the HTTP scanner is in a head. */
enum rxguard_http_state {
    RXH_METHOD = 0, /* the request line's method */
    RXH_TARGET,     /* its target */
    RXH_VERSION,    /* the rest of the request line */
    RXH_LINE,       /* the start of a header line (or the blank line) */
    RXH_NAME,       /* a header's name */
    RXH_VALUE,      /* its value */
};

struct rxguard {
    uint64_t total;    /* bytes seen */
    uint64_t head_end; /* HTTP: total just after the last "\r\n\r\n" */
    uint64_t skip;     /* WS: payload bytes of the current frame still to come; HTTP: body
                          bytes (the head's Content-Length) still to come, not a head */
    uint64_t clen;     /* HTTP: the Content-Length of the head being read */
    uint64_t len;      /* WS: the payload length being read */
    uint64_t controls; /* WS: control frames whose header came whole */
    uint8_t mode;      /* enum rxguard_mode */
    uint8_t crlf;      /* HTTP: bytes of "\r\n\r\n" matched so far */
    uint8_t pos;       /* WS: header bytes of the current frame seen (0: none) */
    uint8_t need;      /* WS: that header's length, once its second byte came */
    uint8_t op;        /* WS: the current frame's opcode */

    /* HTTP: the head being read, and the verdict on it. */
    const struct rxguard_http_limits *lim;          /* NULL: no bounds */
    uint64_t name;                                  /* the current field name's hash so far */
    uint32_t heads;                                 /* heads that ended (blank line) */
    uint16_t target, params, fields, unknown, head; /* params: '&' and ';' of the target */
    uint8_t state;                                  /* enum rxguard_http_state */
    uint8_t counted;                                /* RXH_VALUE: the value is an unknown field's */
    uint8_t cl;      /* Content-Length: 1 in its value, 2 not digits, 3 read */
    uint8_t started; /* RXH_METHOD: a byte of it came; RXH_VALUE: past the spaces */
    uint16_t status; /* the head was refused: the HTTP status to answer */
    const char *why; /* ... and a short sentence for the body (static) */
};

/* A new connection: HTTP mode, nothing seen. lim: the bounds of request
 * heads, or NULL for none (it must outlive g). */
void rxguard_http_start(struct rxguard *g, const struct rxguard_http_limits *lim);

/* The handshake is done: frames from here on. 0, or CARC_E_INVAL when bytes
 * came after the upgrade request's headers (then g is done). */
int rxguard_ws_start(struct rxguard *g);

/* Bytes read from the client, in order. 0; CARC_E_INVAL at the first
 * unmasked frame; CARC_E_TOO_BIG when a request head passed a bound of g->lim
 * (g->status and g->why say which; g->heads heads ended before it). After
 * either, g is done: later bytes are not looked at. g->controls counts the
 * control frames as they come. */
int rxguard_bytes_scan(struct rxguard *g, const uint8_t *p, size_t n);

/* The hash the scanner gives a header name: FNV-1a over its bytes in lower
 * case. */
uint64_t rxguard_name_hash(const char *name, size_t len);

#endif
