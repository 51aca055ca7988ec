/* net_rx.h: the bytes libwebsockets reads, seen on their way in.
 *
 * lws 4.1.6 reads every plain (non-TLS) connection with recv(2). carcd defines
 * recv itself (net_rx.c), so the dynamic linker binds lws's calls to it; it
 * reads with recvfrom(2), exactly as glibc's recv does, and hands what the
 * loop's own connections got to rxguard (rxguard.h), which tells when a client
 * breaks a rule lws does not enforce, and counts the control frames lws
 * answers unseen. Nothing is copied or changed.
 *
 * Only calls on the loop's thread, for descriptors net.c registered, are
 * looked at; every other call (the thread pool, other libraries' sockets) only
 * passes through. The table is the loop thread's alone; it lives for the
 * process. */
#ifndef CARCD_NET_RX_H
#define CARCD_NET_RX_H

#include <stdint.h>

#include "conn/rxguard.h"

/* What net_rx reports, on the loop, from inside lws's read: none of these may
 * close a connection from there (they schedule). */
struct net_rx_hooks {
    /* The websocket behind ctx sent an unmasked frame. */
    void (*unmasked)(void *ctx);
    /* The websocket behind ctx sent n more control frames (ping, pong, close). */
    void (*controls)(void *ctx, uint64_t n);
    /* A request head on fd passed a bound (rxguard.h) while every earlier
     * request of the connection was answered: write the answer, status and
     * why, on fd at once (a few hundred bytes into an idle socket). net_rx
     * then hands lws the end of the stream, so lws, which would have dropped
     * the connection without a word, closes it after the answer. */
    void (*refuse)(int fd, int status, const char *why);
};

/* On the loop's thread, before the first connection. hooks and lim (the
 * bounds of request heads, or NULL for none) must live as long as the
 * process reads. */
void net_rx_init(const struct net_rx_hooks *hooks, const struct rxguard_http_limits *lim);

/* A connection was accepted on fd: watch it from its first byte. */
void net_rx_accept(int fd);

/* Its websocket handshake is done: frames from here on, reported with ctx.
 * 0, or CARC_E_INVAL when the client sent bytes before the server's answer. */
int net_rx_ws(int fd, void *ctx);

/* A request on fd was answered whole (nothing of it left in lws's buffer):
 * a head refused after it may be answered at once. */
void net_rx_http_answered(int fd);

/* The connection on fd was closed for abuse (flooding): from now on what it
 * sends is read and thrown away, without lws parsing it (a flooder does not
 * stop when its close frame goes out), until it ends the stream or lws's
 * close times out. Its close frame still goes out. */
void net_rx_discard(int fd);

/* The connection on fd is gone (before its number can be reused). */
void net_rx_forget(int fd);

#endif
