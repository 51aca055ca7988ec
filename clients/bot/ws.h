/* ws.h: a small RFC 6455 WebSocket client over one TCP socket, for the bot
 * and the load generator (clients/ may not use the server's libraries).
 *
 * The handshake is blocking. After it, input is explicit: ws_fill() reads what
 * the socket has (blocking or not, as the fd is), ws_next() takes one complete
 * message out of what was read. Fragmented messages are reassembled (capped
 * at WS_MAX_MESSAGE), pings are answered with pongs, a close frame is
 * answered and reported. Every frame sent is one masked final frame, written
 * whole (a blocking write loop even on a non-blocking fd).
 *
 * A struct ws_conn is owned by the caller; ws_close() frees what it holds. */
#ifndef CARC_WS_H
#define CARC_WS_H

#include <stddef.h>
#include <stdint.h>

#define WS_MAX_MESSAGE (16u << 20) /* largest inbound message accepted */

enum ws_status {
    WS_OK = 0,
    WS_AGAIN = -1,  /* no complete message yet; ws_fill: nothing to read now */
    WS_CLOSED = -2, /* the peer closed (close frame or end of stream): see close_code */
    WS_ERROR = -3   /* I/O or protocol error: see err */
};

struct ws_conn {
    int fd;
    unsigned char *in; /* bytes read, not yet parsed: in[ipos..ilen) */
    size_t ipos, ilen, icap;
    char *msg; /* message being reassembled */
    size_t mlen, mcap;
    int mop;        /* opcode of the message being reassembled, 0: none */
    int delivered;  /* msg was returned by ws_next: reset it on the next call */
    int close_code; /* from the peer's close frame; 1006 when the stream just ended */
    int close_sent;
    uint64_t rng; /* masking keys */
    char err[128];
};

/* Connect to ws://HOST:PORT/PATH and complete the handshake (its answer waited
 * for 10 s at most). source (may be
 * NULL) is a local address to bind first ("127.0.0.2"), for spreading many
 * loopback connections over addresses. Returns WS_OK, or WS_ERROR with c->err
 * set (c is then closed). */
int ws_connect(struct ws_conn *c, const char *url, const char *source);

/* Split ws://HOST:PORT/PATH into its parts (an IPv6 host without its brackets,
 * port "80" when absent, path "/" when absent). Returns 0, or -1 when url is
 * not of that form or a part does not fit. */
int ws_url_split(const char *url, char *host, size_t hostlen, char *port, size_t portlen,
                 char *path, size_t pathlen);

/* The URL of path on url's host and port (ws://HOST:PORT + path): where a
 * `redirect` leads (PROTOCOL.md "Redirects between nodes"). path must start
 * with '/'. Returns 0, or -1 when url or path is malformed or out is too short. */
int ws_url_with_path(const char *url, const char *path, char *out, size_t outlen);

/* Make the socket non-blocking (for poll/epoll loops). Returns WS_OK or WS_ERROR. */
int ws_set_nonblocking(struct ws_conn *c);

/* Read once from the socket into the input buffer. Returns the number of bytes
 * read (> 0), WS_AGAIN (non-blocking and nothing there), WS_CLOSED (end of
 * stream) or WS_ERROR. */
int ws_fill(struct ws_conn *c);

/* The next complete text or binary message from bytes already read: *data
 * points into c (valid until the next call) and is NUL-terminated. Answers
 * pings and close frames on the way. Returns the opcode (1 text, 2 binary),
 * WS_AGAIN when more input is needed, WS_CLOSED after a close frame, or
 * WS_ERROR on a protocol violation (c->err says which). */
int ws_next(struct ws_conn *c, const char **data, size_t *len);

/* Blocking convenience: the next message, reading as needed, waiting at most
 * timeout_ms (-1: forever). Returns like ws_next, WS_AGAIN meaning timeout. */
int ws_recv(struct ws_conn *c, const char **data, size_t *len, int timeout_ms);

/* Send one text message (opcode 1) or a control frame. Returns WS_OK or WS_ERROR. */
int ws_send_text(struct ws_conn *c, const char *text, size_t len);
int ws_send_frame(struct ws_conn *c, int opcode, const void *data, size_t len);

/* Send a close frame with code (once), then close the socket and free buffers. */
void ws_close(struct ws_conn *c, int code);

#endif
