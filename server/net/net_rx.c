/* net_rx.c: see net_rx.h. */
#include "net/net_rx.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "conn/rxguard.h"
#include "err.h"

struct slot {
    struct rxguard g;
    void *ctx;   /* net.c's struct conn, once a websocket */
    int watched; /* net_rx_accept was called and net_rx_forget not yet */
};

static struct {
    pthread_t loop;
    int ready;
    net_rx_bad_fn bad;
    struct slot *slots; /* indexed by descriptor */
    int nslots;
} rx;

void net_rx_init(net_rx_bad_fn bad)
{
    rx.loop = pthread_self();
    rx.bad = bad;
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
    rxguard_http_start(&s->g);
    s->ctx = NULL;
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

void net_rx_forget(int fd)
{
    struct slot *s = slot_of(fd, 0);
    if (s != NULL)
        *s = (struct slot){0};
}

static void seen(int fd, const void *buf, size_t n)
{
    struct slot *s = slot_of(fd, 0);
    if (s == NULL || !s->watched || s->g.mode == RXGUARD_DONE)
        return;
    if (rxguard_bytes_scan(&s->g, buf, n) < 0 && s->ctx != NULL && rx.bad != NULL)
        rx.bad(s->ctx);
}

/* glibc's recv is recvfrom with no address; MSG_PEEK reads nothing. */
ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    ssize_t n = recvfrom(fd, buf, len, flags, NULL, NULL);
    if (n > 0 && !(flags & MSG_PEEK) && rx.ready && pthread_equal(pthread_self(), rx.loop))
        seen(fd, buf, (size_t)n);
    return n;
}
