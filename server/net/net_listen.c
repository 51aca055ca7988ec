/* net_listen.c: carcd's own listening sockets (net_int.h, struct
 * net_listener). Each is polled on the loop (uv_poll, readable); every
 * connection accepted is handed to libwebsockets as an HTTP connection of the
 * listener's vhost (lws_adopt_descriptor_vhost_via_info), as lws's own
 * listener would.
 *
 * Why not lws's listener: lws 4.1.6 accepts on its level-triggered listening
 * socket and, when accept(2) fails, logs and returns; the pending connection
 * stays queued, the socket stays readable, and the loop spins (out of
 * descriptors: 2.9 million "accept: errno 24" lines in 56 s). Here a failure
 * stops polling for a pause (PAUSE_FIRST_MS, doubling up to PAUSE_MAX_MS,
 * back to the first after a connection is accepted), and when the process is
 * out of descriptors the pending connections are refused rather than left in
 * the queue: the spare descriptor (/dev/null, held from the start) is closed,
 * the connection accepted into its number, answered 503 and closed at once,
 * and the spare reopened. */
#define _GNU_SOURCE /* accept4 */
#include "net/net_int.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "metrics/metrics.h"
#include "net/net_rx.h"
#include "util/log.h"

#define ACCEPT_BATCH 64 /* connections taken per readable event: bounded work per event */
#define PAUSE_FIRST_MS 100
#define PAUSE_MAX_MS 1000

/* What a refused connection reads, when it reads before the close (the
 * request it sent first is drained, so that the close is a FIN, not a reset). */
static const char busy_reply[] = "HTTP/1.1 503 Service Unavailable\r\n"
                                 "Content-Type: text/plain; charset=utf-8\r\n"
                                 "Content-Length: 27\r\n"
                                 "Retry-After: 1\r\n"
                                 "Connection: close\r\n"
                                 "\r\n"
                                 "server busy: retry shortly\n";

/* ---- the socket ---- */

/* spec as a socket address: "localhost" (127.0.0.1), "0.0.0.0" or "*" (every
 * IPv4 interface), a numeric IPv4 or IPv6 address (an IPv6 one with a %scope),
 * or the name of a network interface (its IPv4 address), as lws took it. No
 * DNS: this never waits. 0, or -1. */
static int listen_addr(const char *spec, int port, struct sockaddr_storage *sa, socklen_t *len)
{
    memset(sa, 0, sizeof *sa);
    struct sockaddr_in *in4 = (struct sockaddr_in *)sa;
    if (strcmp(spec, "0.0.0.0") == 0 || strcmp(spec, "*") == 0 || strcmp(spec, "localhost") == 0) {
        in4->sin_family = AF_INET;
        in4->sin_addr.s_addr = htonl(spec[0] == 'l' ? INADDR_LOOPBACK : INADDR_ANY);
        in4->sin_port = htons((uint16_t)port);
        *len = sizeof *in4;
        return 0;
    }
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_PASSIVE, .ai_socktype = SOCK_STREAM};
    struct addrinfo *ai = NULL;
    if (getaddrinfo(spec, NULL, &hints, &ai) == 0 && ai != NULL && ai->ai_addrlen <= sizeof *sa) {
        memcpy(sa, ai->ai_addr, ai->ai_addrlen);
        *len = ai->ai_addrlen;
        freeaddrinfo(ai);
    } else {
        if (ai != NULL)
            freeaddrinfo(ai);
        if (strchr(spec, ':') != NULL ||
            lws_interface_to_sa(0, spec, in4, sizeof *in4) != LWS_ITOSA_USABLE)
            return -1;
        in4->sin_family = AF_INET;
        *len = sizeof *in4;
    }
    if (sa->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)sa)->sin6_port = htons((uint16_t)port);
    else
        in4->sin_port = htons((uint16_t)port);
    return 0;
}

int net__listen_open(struct net_listener *l, const char *spec, int port, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    struct sockaddr_storage sa;
    socklen_t len;
    if (listen_addr(spec, port, &sa, &len) != 0) {
        snprintf(err, errlen, "not an address of this host");
        return -1;
    }
    int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&sa, len) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    l->fd = fd;
    l->port = ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
                                             : ((struct sockaddr_in *)&sa)->sin_port);
    return 0;
}

/* ---- accepting ---- */

static void spare_open(struct net *n)
{
    if (n->spare < 0)
        n->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* Out of descriptors: the oldest pending connection, accepted into the
 * spare's number, answered 503 and closed. 1 when one was refused, 0 when
 * none could be (no spare, or none pending). */
static int refuse_one(struct net_listener *l)
{
    struct net *n = l->net;
    if (n->spare < 0)
        return 0;
    close(n->spare);
    n->spare = -1;
    int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
        char drain[1024];
        (void)recv(fd, drain, sizeof drain, MSG_DONTWAIT);
        (void)send(fd, busy_reply, sizeof busy_reply - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        close(fd);
        metrics_conn_refused_count();
    }
    spare_open(n);
    return fd >= 0;
}

/* fd to lws, as its own listener does it: no Nagle, then adopted as HTTP,
 * with l as the connection's opaque user data (net__from_metrics). 0, or -1
 * when lws refused it (its table of connections, sized by the descriptor
 * limit at start, is full); lws has then closed fd. */
static int adopt(struct net_listener *l, int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    net_rx_accept(fd); /* before lws reads its first byte */
    lws_adopt_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.vh = l->vh;
    desc.type = LWS_ADOPT_SOCKET | LWS_ADOPT_HTTP;
    desc.fd.sockfd = fd;
    desc.opaque = l;
    if (lws_adopt_descriptor_vhost_via_info(&desc) != NULL)
        return 0;
    net_rx_forget(fd);
    metrics_conn_refused_count();
    return -1;
}

static void on_readable(uv_poll_t *p, int status, int events);

static void on_resume(uv_timer_t *t)
{
    struct net_listener *l = t->data;
    spare_open(l->net);
    if (!l->net->stopping)
        uv_poll_start(&l->poll, UV_READABLE, on_readable);
}

/* Stop accepting for a while after err (0: lws could not take a connection),
 * having refused `refused` connections; one line in the log (rate-limited
 * with the rest, log.h). */
static void pause_accepting(struct net_listener *l, int err, int refused)
{
    l->pause_ms = l->pause_ms == 0                 ? PAUSE_FIRST_MS
                  : l->pause_ms * 2 > PAUSE_MAX_MS ? PAUSE_MAX_MS
                                                   : l->pause_ms * 2;
    uv_poll_stop(&l->poll);
    uv_timer_start(&l->pause, on_resume, l->pause_ms, 0);
    metrics_accept_pause_count();
    if (err == EMFILE || err == ENFILE || err == 0)
        log_event(LOG_ERROR, NULL,
                  "out of file descriptors (%s): %d new connection(s) on port %d refused; "
                  "accepting again in %u ms",
                  err != 0 ? strerror(err) : "libwebsockets' table is full", refused, l->port,
                  l->pause_ms);
    else
        log_event(LOG_ERROR, NULL, "accept on port %d failed (%s); accepting again in %u ms",
                  l->port, strerror(err), l->pause_ms);
}

/* Errors of one connection that died in the queue (accept(2) "Error
 * handling"): the next one may be fine. */
static int err_transient(int err)
{
    return err == ECONNABORTED || err == EINTR || err == EPROTO || err == ENETDOWN ||
           err == ENOPROTOOPT || err == EHOSTDOWN || err == ENONET || err == EHOSTUNREACH ||
           err == EOPNOTSUPP || err == ENETUNREACH || err == EPERM;
}

static void on_readable(uv_poll_t *p, int status, int events)
{
    struct net_listener *l = p->data;
    (void)events;
    if (l->net->stopping)
        return;
    int refused = 0, err = status < 0 ? -status : -1; /* a uv error is -errno */
    for (int i = 0; i < ACCEPT_BATCH && err < 0; i++) {
        int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0 && adopt(l, fd) == 0) {
            l->pause_ms = 0; /* the pauses start again from the shortest */
            continue;
        }
        if (fd >= 0) { /* lws closed it */
            refused++;
            err = 0;
            continue;
        }
        int e = errno;
        if (e == EAGAIN || e == EWOULDBLOCK)
            break;
        if (err_transient(e))
            continue;
        if ((e == EMFILE || e == ENFILE) && refuse_one(l)) {
            refused++;
            continue;
        }
        err = e;
    }
    if (err < 0 && refused > 0)
        err = EMFILE; /* every one of them was refused for want of a descriptor */
    if (err >= 0)
        pause_accepting(l, err, refused);
}

int net__listen_start(struct net_listener *l, struct net *n, struct lws_vhost *vh)
{
    l->net = n;
    l->vh = vh;
    spare_open(n);
    int rc = uv_poll_init_socket(n->loop, &l->poll, l->fd);
    if (rc != 0) {
        log_error("cannot poll the socket of port %d: %s", l->port, uv_strerror(rc));
        return -1;
    }
    uv_timer_init(n->loop, &l->pause);
    l->poll.data = l->pause.data = l;
    l->started = 1;
    uv_poll_start(&l->poll, UV_READABLE, on_readable);
    return 0;
}

static void on_poll_closed(uv_handle_t *h)
{
    struct net_listener *l = h->data;
    close(l->fd); /* after libuv let go of it */
    l->fd = -1;
}

void net__listen_stop(struct net_listener *l)
{
    if (l->fd < 0)
        return;
    if (!l->started) {
        close(l->fd);
        l->fd = -1;
        return;
    }
    if (uv_is_closing((uv_handle_t *)&l->poll))
        return;
    uv_close((uv_handle_t *)&l->pause, NULL);
    uv_close((uv_handle_t *)&l->poll, on_poll_closed);
}
