/* net_rx.c: see net_rx.h. */
#include "net/net_rx.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "err.h"

/* After a refused head: at most this many reads of what the client sent
 * behind it, so that closing the socket does not reset the connection (and
 * take the answer with it) over unread bytes; and per read of a discarded
 * connection. Bounded work, never a wait. */
#define DRAIN_READS 16

struct slot {
    struct rxguard g;
    void *ctx;         /* net.c's struct conn, once a websocket */
    uint32_t answered; /* requests answered whole (net_rx_http_answered) */
    int watched;       /* net_rx_accept was called and net_rx_forget not yet */
    int discard;       /* net_rx_discard: input is thrown away */
};

static struct {
    pthread_t loop;
    int ready;
    const struct net_rx_hooks *hooks;
    const struct rxguard_http_limits *lim;
    struct slot *slots; /* indexed by descriptor */
    int nslots;
} rx;

void net_rx_init(const struct net_rx_hooks *hooks, const struct rxguard_http_limits *lim)
{
    rx.loop = pthread_self();
    rx.hooks = hooks;
    rx.lim = lim;
    rx.ready = 1;
}

static struct slot *slot_of(int fd, int grow)
{
    if (fd < 0)
        return NULL;
    if (fd >= rx.nslots) {
        if (!grow)
            return NULL;
        int n = rx.nslots ? rx.nslots : 1024;
        while (n <= fd)
            n *= 2;
        struct slot *s = realloc(rx.slots, (size_t)n * sizeof *s);
        if (s == NULL)
            return NULL; /* not watched: lws alone judges this connection */
        memset(s + rx.nslots, 0, (size_t)(n - rx.nslots) * sizeof *s);
        rx.slots = s;
        rx.nslots = n;
    }
    return &rx.slots[fd];
}

void net_rx_accept(int fd)
{
    struct slot *s = slot_of(fd, 1);
    if (s == NULL)
        return;
    rxguard_http_start(&s->g, rx.lim);
    s->ctx = NULL;
    s->answered = 0;
    s->watched = 1;
}

int net_rx_ws(int fd, void *ctx)
{
    struct slot *s = slot_of(fd, 0);
    if (s == NULL || !s->watched)
        return 0;
    s->ctx = ctx;
    return rxguard_ws_start(&s->g);
}

void net_rx_http_answered(int fd)
{
    struct slot *s = slot_of(fd, 0);
    if (s != NULL && s->watched)
        s->answered++;
}

void net_rx_discard(int fd)
{
    struct slot *s = slot_of(fd, 0);
    if (s != NULL && s->watched)
        s->discard = 1;
}

void net_rx_forget(int fd)
{
    struct slot *s = slot_of(fd, 0);
    if (s != NULL)
        *s = (struct slot){0};
}

/* A refused head: answered now when nothing the client sent before it waits
 * for an answer; else lws goes on as it would have. 1 when answered. */
static int refused(int fd, struct slot *s, void *buf, size_t len)
{
    if (rx.hooks == NULL || rx.hooks->refuse == NULL || s->g.heads != s->answered)
        return 0;
    rx.hooks->refuse(fd, s->g.status, s->g.why);
    for (int i = 0; i < DRAIN_READS; i++)
        if (recvfrom(fd, buf, len, MSG_DONTWAIT, NULL, NULL) <= 0)
            break;
    *s = (struct slot){0}; /* lws closes it now */
    return 1;
}

/* What n bytes just read on fd (into buf, of len bytes) show; 1 when the read
 * is to end the stream. */
static int seen(int fd, void *buf, size_t n, size_t len)
{
    struct slot *s = slot_of(fd, 0);
    if (s == NULL || !s->watched || s->g.mode == RXGUARD_DONE)
        return 0;
    uint64_t controls = s->g.controls;
    int rc = rxguard_bytes_scan(&s->g, buf, n);
    if (s->ctx != NULL && rx.hooks != NULL) {
        if (s->g.controls > controls && rx.hooks->controls != NULL)
            rx.hooks->controls(s->ctx, s->g.controls - controls);
        if (rc == CARC_E_INVAL && rx.hooks->unmasked != NULL)
            rx.hooks->unmasked(s->ctx);
    }
    return rc == CARC_E_TOO_BIG && refused(fd, s, buf, len);
}

/* A discarded connection's read: what came is thrown away (a few reads at
 * most, bounded work), and lws hears "nothing yet" (EAGAIN), or the end of
 * the stream when the client has ended it. */
static ssize_t discarded(int fd, void *buf, size_t len)
{
    for (int i = 0; i < DRAIN_READS; i++) {
        ssize_t n = recvfrom(fd, buf, len, MSG_DONTWAIT, NULL, NULL);
        if (n == 0) {
            net_rx_forget(fd);
            return 0;
        }
        if (n < 0)
            break;
    }
    errno = EAGAIN;
    return -1;
}

/* glibc's recv is recvfrom with no address; MSG_PEEK reads nothing. The end
 * of a stream ends its watch too: lws closes such a connection, and one it
 * drops without a callback that says so (a head it cannot parse) leaves no
 * watched slot behind once the client has gone. */
ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    int ours = !(flags & MSG_PEEK) && rx.ready && pthread_equal(pthread_self(), rx.loop);
    if (ours && fd >= 0 && fd < rx.nslots && rx.slots[fd].watched && rx.slots[fd].discard)
        return discarded(fd, buf, len);
    ssize_t n = recvfrom(fd, buf, len, flags, NULL, NULL);
    if (!ours)
        return n;
    if (n == 0)
        net_rx_forget(fd);
    else if (n > 0 && seen(fd, buf, (size_t)n, len))
        return 0; /* the end of the stream: lws closes after the answer */
    return n;
}
