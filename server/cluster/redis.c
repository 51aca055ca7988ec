/* cluster/redis.c: the Redis client of redis.h (hiredis 0.14 on the loop).
 *
 * States: IDLE (before redis_start), WAIT (backoff before the next try),
 * RESOLVING (uv_getaddrinfo), CONNECTING (socket, then AUTH, SELECT and a
 * PING, all answered within connect_ms),
 * UP, CLOSING. One uv_timer_t serves the backoff and the connect deadline;
 * another checks, while connected, the age of the oldest command (Redis
 * answers a connection's commands in order, so the head of the FIFO is the
 * oldest one waiting).
 *
 * hiredis owns the redisAsyncContext: it frees it itself after a disconnect
 * (the disconnect callback then runs) or a failed connect (the connect
 * callback with REDIS_ERR); we free it (redisAsyncFree) only to drop a
 * connection, which calls every pending callback with a NULL reply first.
 *
 * The glue between hiredis and the loop is ours, not hiredis 0.14's
 * adapters/libuv.h: when a socket fails (a refused connect), libuv stops the
 * poll and calls it with a negative status, which that adapter ignores, so
 * hiredis never learnt of the failure and the client waited for ever. Ours
 * hands the failure to hiredis as the events it was waiting for. */
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "cluster/redis.h"
#include "util/log.h"
#include "util/mem.h"

#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000

enum { S_IDLE, S_WAIT, S_RESOLVING, S_CONNECTING, S_UP, S_CLOSING };

struct rcmd {
    struct redis *r;
    redis_cb cb; /* NULL: an internal command (AUTH, SELECT) */
    void *arg;
    uint64_t sent;
    struct rcmd *prev, *next;
};

struct redis {
    uv_loop_t *loop;
    char host[256], port[8], where[272];
    char *user, *password;
    int db;
    int connect_ms, command_ms;
    redis_state_cb state_cb;
    void *state_arg;
    int state;
    int setup_left; /* AUTH / SELECT replies still awaited while CONNECTING */
    int drop_status;
    int backoff;
    int said_down; /* logged the loss once until it comes back */
    redisAsyncContext *ac;
    uv_getaddrinfo_t gai;
    int gai_busy;
    uv_timer_t retry, watch;
    int open_handles;
    struct rcmd *head, *tail;
    struct redis_stats stats;
};

/* ---- hiredis on the loop ---- */

struct glue {
    redisAsyncContext *ac; /* NULL once hiredis cleaned up */
    uv_poll_t poll;
    int events;
};

static void glue_poll(uv_poll_t *h, int status, int events)
{
    struct glue *g = h->data;
    int ev = status < 0 ? g->events : events; /* an error: let hiredis read it */
    if (g->ac != NULL && (ev & UV_READABLE))
        redisAsyncHandleRead(g->ac);
    if (g->ac != NULL && (ev & UV_WRITABLE))
        redisAsyncHandleWrite(g->ac);
}

static void glue_set(struct glue *g, int events)
{
    g->events = events;
    if (events != 0)
        uv_poll_start(&g->poll, events, glue_poll);
    else
        uv_poll_stop(&g->poll);
}

static void glue_add_read(void *p)
{
    glue_set(p, ((struct glue *)p)->events | UV_READABLE);
}

static void glue_del_read(void *p)
{
    glue_set(p, ((struct glue *)p)->events & ~UV_READABLE);
}

static void glue_add_write(void *p)
{
    glue_set(p, ((struct glue *)p)->events | UV_WRITABLE);
}

static void glue_del_write(void *p)
{
    glue_set(p, ((struct glue *)p)->events & ~UV_WRITABLE);
}

static void glue_closed(uv_handle_t *h)
{
    free(h->data);
}

static void glue_cleanup(void *p)
{
    struct glue *g = p;
    g->ac = NULL;
    uv_close((uv_handle_t *)&g->poll, glue_closed);
}

static int glue_attach(redisAsyncContext *ac, uv_loop_t *loop)
{
    struct glue *g = mem_zalloc(1, sizeof *g);
    if (uv_poll_init(loop, &g->poll, ac->c.fd) != 0) {
        free(g);
        return -1;
    }
    g->ac = ac;
    g->poll.data = g;
    ac->ev.data = g;
    ac->ev.addRead = glue_add_read;
    ac->ev.delRead = glue_del_read;
    ac->ev.addWrite = glue_add_write;
    ac->ev.delWrite = glue_del_write;
    ac->ev.cleanup = glue_cleanup;
    return 0;
}

/* ---- the client ---- */

static uint64_t now_ms(struct redis *r)
{
    return uv_now(r->loop);
}

/* redis://[[user]:password@]host[:port][/db] */
static int url_parse(struct redis *r, const char *url, char *err, size_t errlen)
{
    const char *p = url;
    if (strncmp(p, "redis://", 8) != 0) {
        snprintf(err, errlen, "the Redis URL must start with redis://");
        return -1;
    }
    p += 8;
    const char *end = p + strcspn(p, "/");
    const char *at = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == '@')
            at = q;
    if (at != NULL) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        if (colon == NULL) {
            snprintf(err, errlen, "the Redis URL's user part must be [user]:password");
            return -1;
        }
        if (colon > p)
            r->user = mem_strndup(p, (size_t)(colon - p));
        r->password = mem_strndup(colon + 1, (size_t)(at - colon - 1));
        p = at + 1;
    }
    const char *hend;
    if (*p == '[') {
        hend = memchr(p, ']', (size_t)(end - p));
        if (hend == NULL) {
            snprintf(err, errlen, "the Redis URL has an unclosed [");
            return -1;
        }
        p++;
    } else {
        hend = p;
        while (hend < end && *hend != ':')
            hend++;
    }
    size_t hlen = (size_t)(hend - p);
    if (hlen == 0 || hlen >= sizeof r->host) {
        snprintf(err, errlen, "the Redis URL has no host");
        return -1;
    }
    memcpy(r->host, p, hlen);
    r->host[hlen] = '\0';
    const char *q = hend + (*hend == ']');
    long port = 6379;
    if (q < end && *q == ':') {
        char *e;
        port = strtol(q + 1, &e, 10);
        if (e != end || port < 1 || port > 65535) {
            snprintf(err, errlen, "the Redis URL's port must be 1 to 65535");
            return -1;
        }
    } else if (q != end) {
        snprintf(err, errlen, "the Redis URL has junk after the host");
        return -1;
    }
    snprintf(r->port, sizeof r->port, "%ld", port);
    if (*end == '/' && end[1] != '\0') {
        char *e;
        long db = strtol(end + 1, &e, 10);
        if (*e != '\0' || db < 0 || db > 1000000) {
            snprintf(err, errlen, "the Redis URL's database must be a number");
            return -1;
        }
        r->db = (int)db;
    }
    snprintf(r->where, sizeof r->where, "%s:%s", r->host, r->port);
    return 0;
}

struct redis *redis_new(uv_loop_t *loop, const char *url, const struct redis_opts *opts, char *err,
                        size_t errlen)
{
    struct redis *r = mem_zalloc(1, sizeof *r);
    r->loop = loop;
    if (url_parse(r, url, err, errlen) != 0) {
        free(r->user);
        free(r->password);
        free(r);
        return NULL;
    }
    r->connect_ms = opts != NULL && opts->connect_ms > 0 ? opts->connect_ms : REDIS_CONNECT_MS;
    r->command_ms = opts != NULL && opts->command_ms > 0 ? opts->command_ms : REDIS_COMMAND_MS;
    if (opts != NULL) {
        r->state_cb = opts->state;
        r->state_arg = opts->arg;
    }
    uv_timer_init(loop, &r->retry);
    uv_timer_init(loop, &r->watch);
    r->retry.data = r->watch.data = r;
    r->open_handles = 2;
    return r;
}

const char *redis_where(const struct redis *r)
{
    return r->where;
}

int redis_up(const struct redis *r)
{
    return r != NULL && r->state == S_UP;
}

void redis_stats_get(const struct redis *r, struct redis_stats *out)
{
    *out = r->stats;
}

static void try_connect(struct redis *r);
static void on_retry(uv_timer_t *t);

/* Wait the backoff, then connect again. */
static void schedule(struct redis *r)
{
    if (r->state == S_CLOSING)
        return;
    r->state = S_WAIT;
    r->backoff = r->backoff ? r->backoff * 2 : BACKOFF_MIN_MS;
    if (r->backoff > BACKOFF_MAX_MS)
        r->backoff = BACKOFF_MAX_MS;
    uv_timer_start(&r->retry, on_retry, (uint64_t)r->backoff, 0);
}

static void went_down(struct redis *r, int was_up, const char *why)
{
    uv_timer_stop(&r->watch);
    if (r->state == S_CLOSING)
        return;
    if (!r->said_down)
        log_warn("cluster: Redis at %s is unreachable (%s); trying again with backoff", r->where,
                 why);
    r->said_down = 1;
    schedule(r);
    if (was_up && r->state_cb != NULL)
        r->state_cb(r->state_arg, 0);
}

/* Drop the connection at once: pending commands complete with status (the
 * state is no longer UP while they run, so a command they send is refused). */
static void drop(struct redis *r, int status)
{
    if (r->ac == NULL)
        return;
    int was_up = r->state == S_UP;
    redisAsyncContext *ac = r->ac;
    r->ac = NULL;
    ac->data = NULL; /* on_disconnect: nothing more to do */
    r->drop_status = status;
    if (r->state != S_CLOSING)
        r->state = S_WAIT;
    redisAsyncFree(ac); /* (deferred by hiredis when inside one of its callbacks) */
    went_down(r, was_up, srv_status_str(status));
}

static struct redis_reply *reply_view(const redisReply *x)
{
    struct redis_reply *v = mem_zalloc(1, sizeof *v);
    switch (x->type) {
    case REDIS_REPLY_STRING:
        v->type = REDIS_T_STRING;
        break;
    case REDIS_REPLY_ARRAY:
        v->type = REDIS_T_ARRAY;
        break;
    case REDIS_REPLY_INTEGER:
        v->type = REDIS_T_INTEGER;
        break;
    case REDIS_REPLY_STATUS:
        v->type = REDIS_T_STATUS;
        break;
    case REDIS_REPLY_ERROR:
        v->type = REDIS_T_ERROR;
        break;
    default:
        v->type = REDIS_T_NIL;
    }
    v->integer = x->integer;
    v->str = x->str;
    v->len = x->len;
    if (x->type == REDIS_REPLY_ARRAY && x->elements > 0) {
        struct redis_reply **el = mem_zalloc(x->elements, sizeof *el);
        for (size_t i = 0; i < x->elements; i++)
            el[i] = reply_view(x->element[i]);
        v->elements = x->elements;
        v->element = (const struct redis_reply *const *)el;
    }
    return v;
}

static void reply_free(struct redis_reply *v)
{
    for (size_t i = 0; i < v->elements; i++)
        reply_free((struct redis_reply *)v->element[i]);
    free((void *)v->element);
    free(v);
}

static void cmd_unlink(struct redis *r, struct rcmd *c)
{
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        r->head = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    else
        r->tail = c->prev;
}

static void setup_done(struct redis *r);

static void on_reply(redisAsyncContext *ac, void *reply, void *priv)
{
    (void)ac;
    struct rcmd *c = priv;
    struct redis *r = c->r;
    cmd_unlink(r, c);
    const redisReply *x = reply;
    if (c->cb == NULL) { /* AUTH or SELECT while connecting */
        if (x != NULL && x->type == REDIS_REPLY_ERROR && r->state == S_CONNECTING) {
            log_error("cluster: Redis at %s refused the connection's setup: %s", r->where, x->str);
            drop(r, REDIS_E_DOWN);
        } else if (x != NULL && r->state == S_CONNECTING && --r->setup_left == 0)
            setup_done(r);
        free(c);
        return;
    }
    if (x != NULL) {
        r->stats.replies++;
        struct redis_reply *v = reply_view(x);
        c->cb(c->arg, 0, v);
        reply_free(v);
    } else {
        r->stats.failed++;
        c->cb(c->arg,
              r->state == S_CLOSING ? REDIS_E_CLOSED
              : r->drop_status != 0 ? r->drop_status
                                    : REDIS_E_DOWN,
              NULL);
    }
    free(c);
}

static int send_argv(struct redis *r, redis_cb cb, void *arg, int argc, const char *const *argv,
                     const size_t *lens)
{
    if (argc < 1 || argc > REDIS_ARGS_MAX)
        return REDIS_E_ARGS;
    size_t l[REDIS_ARGS_MAX];
    for (int i = 0; i < argc; i++)
        l[i] = lens != NULL ? lens[i] : strlen(argv[i]);
    struct rcmd *c = mem_zalloc(1, sizeof *c);
    c->r = r;
    c->cb = cb;
    c->arg = arg;
    c->sent = now_ms(r);
    if (redisAsyncCommandArgv(r->ac, on_reply, c, argc, (const char **)argv, l) != REDIS_OK) {
        free(c);
        return REDIS_E_DOWN;
    }
    c->prev = r->tail;
    if (r->tail != NULL)
        r->tail->next = c;
    else
        r->head = c;
    r->tail = c;
    return 0;
}

int redis_command(struct redis *r, redis_cb cb, void *arg, int argc, const char *const *argv,
                  const size_t *lens)
{
    if (r->state == S_CLOSING)
        return REDIS_E_CLOSED;
    if (r->state != S_UP || r->ac == NULL)
        return REDIS_E_DOWN;
    int rc = send_argv(r, cb, arg, argc, argv, lens);
    if (rc == 0)
        r->stats.sent++;
    return rc;
}

/* While up: the oldest command waited too long? */
static void on_watch(uv_timer_t *t)
{
    struct redis *r = t->data;
    if (r->head != NULL && now_ms(r) - r->head->sent >= (uint64_t)r->command_ms) {
        log_warn("cluster: Redis at %s did not answer within %d ms; reconnecting", r->where,
                 r->command_ms);
        drop(r, REDIS_E_TIMEOUT);
    }
}

static void setup_done(struct redis *r)
{
    uv_timer_stop(&r->retry);
    r->state = S_UP;
    r->backoff = 0;
    r->drop_status = 0;
    r->stats.connects++;
    if (r->said_down)
        log_info("cluster: Redis at %s is back", r->where);
    else
        log_info("cluster: connected to Redis at %s", r->where);
    r->said_down = 0;
    uint64_t every = (uint64_t)(r->command_ms / 4 > 0 ? r->command_ms / 4 : 1);
    uv_timer_start(&r->watch, on_watch, every, every);
    if (r->state_cb != NULL)
        r->state_cb(r->state_arg, 1);
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    struct redis *r = ac->data;
    if (r == NULL || r->ac != ac)
        return;
    if (status != REDIS_OK) {
        /* hiredis frees ac after this callback */
        char why[160];
        snprintf(why, sizeof why, "%s", ac->errstr[0] ? ac->errstr : "connect failed");
        r->ac = NULL;
        went_down(r, 0, why);
        return;
    }
    r->setup_left = 0;
    if (r->password != NULL) {
        const char *a[] = {"AUTH", r->user != NULL ? r->user : r->password, r->password};
        if (send_argv(r, NULL, NULL, r->user != NULL ? 3 : 2, a, NULL) == 0)
            r->setup_left++;
    }
    if (r->db != 0) {
        char db[16];
        snprintf(db, sizeof db, "%d", r->db);
        const char *a[] = {"SELECT", db};
        if (send_argv(r, NULL, NULL, 2, a, NULL) == 0)
            r->setup_left++;
    }
    /* Up only once Redis answers: a paused server still accepts connections
     * (the kernel does), and a client that counted that as up would send
     * into the void until each command's deadline. */
    const char *ping[] = {"PING"};
    if (send_argv(r, NULL, NULL, 1, ping, NULL) == 0)
        r->setup_left++;
    else
        drop(r, REDIS_E_DOWN);
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    (void)status;
    struct redis *r = ac->data;
    if (r == NULL)
        return;
    char why[160];
    snprintf(why, sizeof why, "%s",
             r->drop_status != 0 ? srv_status_str(r->drop_status)
             : ac->errstr[0]     ? ac->errstr
                                 : "connection closed");
    int was_up = r->state == S_UP;
    if (r->ac == ac)
        r->ac = NULL;
    went_down(r, was_up, why);
}

/* The connect deadline, or the end of a backoff. */
static void on_retry(uv_timer_t *t)
{
    struct redis *r = t->data;
    if (r->state == S_WAIT) {
        try_connect(r);
    } else if (r->state == S_CONNECTING) {
        if (r->ac != NULL) {
            redisAsyncContext *ac = r->ac;
            r->ac = NULL;
            ac->data = NULL; /* not connected: no disconnect callback; ours is done here */
            redisAsyncFree(ac);
        }
        char why[64];
        snprintf(why, sizeof why, "no connection within %d ms", r->connect_ms);
        went_down(r, 0, why);
    }
}

static void handle_closed(uv_handle_t *h)
{
    struct redis *r = h->data;
    if (--r->open_handles == 0 && !r->gai_busy) {
        free(r->user);
        free(r->password);
        free(r);
    }
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    struct redis *r = req->data;
    r->gai_busy = 0;
    if (r->state == S_CLOSING) {
        uv_freeaddrinfo(res);
        if (r->open_handles == 0) {
            free(r->user);
            free(r->password);
            free(r);
        }
        return;
    }
    if (status != 0 || res == NULL) {
        char why[400];
        snprintf(why, sizeof why, "cannot resolve %s: %s", r->host, uv_strerror(status));
        uv_freeaddrinfo(res);
        went_down(r, 0, why);
        return;
    }
    char ip[64] = "";
    if (res->ai_family == AF_INET6)
        uv_ip6_name((const struct sockaddr_in6 *)res->ai_addr, ip, sizeof ip);
    else
        uv_ip4_name((const struct sockaddr_in *)res->ai_addr, ip, sizeof ip);
    uv_freeaddrinfo(res);
    r->state = S_CONNECTING;
    /* ip is numeric: hiredis's own getaddrinfo does no lookup */
    redisAsyncContext *ac = redisAsyncConnect(ip, atoi(r->port));
    if (ac == NULL)
        mem_oom("redis");
    if (ac->err != 0) {
        char why[160];
        snprintf(why, sizeof why, "%s", ac->errstr);
        redisAsyncFree(ac);
        went_down(r, 0, why);
        return;
    }
    ac->data = r;
    if (glue_attach(ac, r->loop) != 0) {
        redisAsyncFree(ac);
        went_down(r, 0, "cannot watch the socket");
        return;
    }
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    r->ac = ac;
    uv_timer_start(&r->retry, on_retry, (uint64_t)r->connect_ms, 0);
}

static void try_connect(struct redis *r)
{
    r->state = S_RESOLVING;
    r->drop_status = 0;
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    r->gai.data = r;
    r->gai_busy = 1;
    int rc = uv_getaddrinfo(r->loop, &r->gai, on_resolved, r->host, r->port, &hints);
    if (rc != 0) {
        r->gai_busy = 0;
        r->state = S_CONNECTING;
        went_down(r, 0, uv_strerror(rc));
    }
}

void redis_start(struct redis *r)
{
    if (r->state == S_IDLE)
        try_connect(r);
}

void redis_close(struct redis *r)
{
    if (r == NULL || r->state == S_CLOSING)
        return;
    r->state = S_CLOSING;
    if (r->gai_busy)
        uv_cancel((uv_req_t *)&r->gai); /* on_resolved still runs (UV_ECANCELED) */
    if (r->ac != NULL) {
        redisAsyncContext *ac = r->ac;
        r->ac = NULL;
        redisAsyncFree(ac); /* pending commands: REDIS_E_CLOSED */
    }
    uv_close((uv_handle_t *)&r->retry, handle_closed);
    uv_close((uv_handle_t *)&r->watch, handle_closed);
}
