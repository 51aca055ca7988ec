/* rxguard.h: what libwebsockets 4.1.6 does not check on a client's bytes.
 *
 * RFC 6455 5.1: a server must close the connection when a client frame is
 * not masked. lws 4.1.6 (Debian 12) accepts such frames and hides the mask
 * bit from its callbacks (later lws refuse them), so carcd watches the raw
 * bytes the way lws reads them (server/net/net_rx.c) and runs them through this
 * scanner, a plain-data state machine that only skips over payloads: it
 * never copies or changes a byte, and lws still parses everything itself.
 *
 * A connection starts in HTTP mode, where the scanner only notes where each
 * request's header block ends ("\r\n\r\n"). When lws has completed the
 * websocket handshake, rxguard_ws_start switches it to frames; bytes the
 * client sent after its upgrade request and before the server's answer are
 * refused too (RFC 6455 4.1: the client must wait for the answer), since
 * they could not be told apart from a frame the scanner did not see start.
 * Owned by whoever holds the connection (net_rx.c's table, or a test). */
#ifndef CARCD_RXGUARD_H
#define CARCD_RXGUARD_H

#include <stddef.h>
#include <stdint.h>

enum rxguard_mode { RXGUARD_HTTP = 0, RXGUARD_WS, RXGUARD_DONE };

struct rxguard {
    uint64_t total;    /* bytes seen */
    uint64_t head_end; /* HTTP: total just after the last "\r\n\r\n" */
    uint64_t skip;     /* WS: payload bytes of the current frame still to come */
    uint64_t len;      /* WS: the payload length being read */
    uint8_t mode;      /* enum rxguard_mode */
    uint8_t crlf;      /* HTTP: bytes of "\r\n\r\n" matched so far */
    uint8_t pos;       /* WS: header bytes of the current frame seen (0: none) */
    uint8_t need;      /* WS: that header's length, once its second byte came */
};

/* A new connection: HTTP mode, nothing seen. */
void rxguard_http_start(struct rxguard *g);

/* The handshake is done: frames from here on. 0, or CARC_E_INVAL when bytes
 * came after the upgrade request's headers (then g is done). */
int rxguard_ws_start(struct rxguard *g);

/* Bytes read from the client, in order. 0, or CARC_E_INVAL at the first
 * unmasked frame (then g is done: later bytes are not looked at). */
int rxguard_bytes_scan(struct rxguard *g, const uint8_t *p, size_t n);

#endif
