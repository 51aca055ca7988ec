/* load_idle.h: carc-load --idle N: what an idle connection costs the server.
 * N WebSocket connections are opened (each through its handshake and the
 * server's welcome) and held without a message; the server's resident memory
 * before and after, divided by N, is the cost of one. Blocking: it runs alone,
 * before or instead of the rooms. */
#ifndef CARC_LOAD_IDLE_H
#define CARC_LOAD_IDLE_H

#include <sys/types.h>

/* Open n idle connections to url (ws://127.x.y.z:PORT/ws; with spread, from
 * 127.0.a.b source addresses, 250 per address), sample pid's VmRSS, print
 * `idle_connections: ...` and `idle_conn_kib: X` lines, close them. Returns 0,
 * or -1 when a connection failed (how many were opened is printed). */
int load_idle_run(const char *url, pid_t pid, int n, int spread);

#endif
