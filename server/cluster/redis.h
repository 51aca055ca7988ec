/* cluster/redis.h: one connection to a Redis server on the libuv loop
 * (hiredis's asynchronous API and its libuv adapter), for the cluster's
 * shared state (leases, the room directory).
 *
 * The loop never waits for Redis: the host name is resolved with
 * uv_getaddrinfo (hiredis would call getaddrinfo on the loop), the connect is
 * non-blocking, and every command has a deadline. A connection that does not
 * come up within connect_ms, or whose oldest command has no reply within
 * command_ms (a Redis that is paused, or a network that drops packets), is
 * dropped: its pending commands complete with REDIS_E_DOWN / REDIS_E_TIMEOUT.
 * A dropped or refused connection is tried again with backoff (100 ms
 * doubling to 5 s), without end, until redis_close.
 *
 * Only this file's .c includes hiredis; replies are handed over as struct
 * redis_reply, a borrowed view valid during the callback.
 *
 * Owner: the struct redis belongs to whoever called redis_new (main.c, a
 * test); it is freed after redis_close, in the close callbacks of its
 * handles. Not thread-safe: the loop's thread only. */
#ifndef CARCD_CLUSTER_REDIS_H
#define CARCD_CLUSTER_REDIS_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

struct uv_loop_s;
struct redis;

/* Status codes: 0 or a negative code of util/status.h (REDIS_E_DOWN,
 * REDIS_E_TIMEOUT, REDIS_E_CLOSED, REDIS_E_URL, REDIS_E_ARGS); srv_status_name
 * and srv_status_str name them. */

#define REDIS_CONNECT_MS 2000 /* default connect deadline */
#define REDIS_COMMAND_MS 1000 /* default reply deadline */
#define REDIS_ARGS_MAX 16     /* arguments of one command */

/* A reply, as Redis sent it (RESP2). Borrowed: valid during the callback. */
enum redis_type {
    REDIS_T_STRING = 1,
    REDIS_T_ARRAY = 2,
    REDIS_T_INTEGER = 3,
    REDIS_T_NIL = 4,
    REDIS_T_STATUS = 5, /* +OK */
    REDIS_T_ERROR = 6,  /* -ERR ...: the command ran and failed (status is still 0) */
};
struct redis_reply {
    int type;
    long long integer;
    const char *str; /* STRING, STATUS, ERROR: NUL-terminated, len bytes */
    size_t len;
    size_t elements; /* ARRAY */
    const struct redis_reply *const *element;
};

/* status 0 with the reply, or a negative status with rep NULL. */
typedef void (*redis_cb)(void *arg, int status, const struct redis_reply *rep);

/* The connection coming up (up 1: connected, authenticated, database
 * selected, and a PING answered) or going down (up 0). Called on the loop. */
typedef void (*redis_state_cb)(void *arg, int up);

struct redis_opts {
    int connect_ms; /* 0: REDIS_CONNECT_MS */
    int command_ms; /* 0: REDIS_COMMAND_MS */
    redis_state_cb state;
    void *arg;
};

/* A client for url: redis://[[user]:password@]host[:port][/db] (port 6379,
 * db 0). NULL with a sentence in err (never the password) when url is not
 * one. Nothing is connected before redis_start. */
struct redis *redis_new(struct uv_loop_s *loop, const char *url, const struct redis_opts *opts,
                        char *err, size_t errlen);
/* Begin connecting (and reconnecting for ever). */
void redis_start(struct redis *r);
/* From inside the loop: pending commands complete with REDIS_E_CLOSED, the
 * connection and the handles close, r is freed once they have (uv_run then
 * returns with nothing of r left). r may be NULL. */
void redis_close(struct redis *r);

/* 1 while connected and ready for commands. */
int redis_up(const struct redis *r);

/* Send a command of argc arguments (binary safe, lens may be NULL for C
 * strings). Returns 0: cb will be called exactly once, on the loop, later
 * (never from inside this call). Returns REDIS_E_DOWN (not connected),
 * REDIS_E_CLOSED or REDIS_E_ARGS: cb will never be called. */
int redis_command(struct redis *r, redis_cb cb, void *arg, int argc, const char *const *argv,
                  const size_t *lens);

/* For logs and metrics: commands sent, replies received, commands that
 * failed (down, timeout), connections made. */
struct redis_stats {
    unsigned long long sent, replies, failed, connects;
};
void redis_stats_get(const struct redis *r, struct redis_stats *out);

/* The host and port the client connects to, for log lines ("host:port"). */
const char *redis_where(const struct redis *r);

#endif
