/* net_rx.h: the bytes libwebsockets reads, seen on their way in.
 *
 * lws 4.1.6 reads every plain (non-TLS) connection with recv(2). carcd defines
 * recv itself (net_rx.c), so the dynamic linker binds lws's calls to it; it
 * reads with recvfrom(2), exactly as glibc's recv does, and hands what the
 * loop's own connections got to rxguard (rxguard.h), which tells when a client
 * breaks a websocket rule lws does not enforce. Nothing is copied or changed.
 *
 * Only calls on the loop's thread, for descriptors net.c registered, are
 * looked at; every other call (the thread pool, other libraries' sockets) only
 * passes through. The table is the loop thread's alone; it lives for the
 * process. */
#ifndef CARCD_NET_RX_H
#define CARCD_NET_RX_H

/* Called (on the loop, from inside lws's read) when the client behind ctx sent
 * an unmasked frame. It must not close the connection from there. */
typedef void (*net_rx_bad_fn)(void *ctx);

/* On the loop's thread, before the first connection. */
void net_rx_init(net_rx_bad_fn bad);

/* A connection was accepted on fd: watch it from its first byte. */
void net_rx_accept(int fd);

/* Its websocket handshake is done: frames from here on, reported with ctx.
 * 0, or CARC_E_INVAL when the client sent bytes before the server's answer. */
int net_rx_ws(int fd, void *ctx);

/* The connection on fd is gone (before its number can be reused). */
void net_rx_forget(int fd);

#endif
