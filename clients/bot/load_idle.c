#include "load_idle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "botlib.h"
#include "load_proc.h"
#include "ws.h"

/* The server's RSS once it has settled: lws and libuv finish a connection's
 * setup on the next loop turns, after the welcome is written. */
static long rss_settled(pid_t pid)
{
    struct timespec tick = {0, 300000000};
    nanosleep(&tick, NULL);
    return load_rss_kib(pid);
}

int load_idle_run(const char *url, pid_t pid, int n, int spread)
{
    struct ws_conn *c = calloc((size_t)n, sizeof *c);
    if (c == NULL) {
        fprintf(stderr, "carc-load: out of memory\n");
        return -1;
    }
    long rss0 = rss_settled(pid), fds0 = load_fd_count(pid);
    uint64_t t0 = bot_now_ns();
    int opened = 0, rc = 0;
    for (; opened < n; opened++) {
        char src[32];
        snprintf(src, sizeof src, "127.0.%d.%d", 1 + opened / 250 % 250, 2 + opened % 250);
        const char *data;
        size_t len;
        if (ws_connect(&c[opened], url, spread ? src : NULL) != WS_OK) {
            fprintf(stderr, "carc-load: idle connection %d: %s\n", opened, c[opened].err);
            rc = -1;
            break;
        }
        int op = ws_recv(&c[opened], &data, &len, 5000);
        if (op != 1 || len < 20 || strstr(data, "\"type\":\"welcome\"") == NULL) {
            fprintf(stderr, "carc-load: idle connection %d: no welcome\n", opened);
            ws_close(&c[opened], 1000);
            rc = -1;
            break;
        }
    }
    double open_s = (double)(bot_now_ns() - t0) / 1e9;
    long rss1 = rss_settled(pid), fds1 = load_fd_count(pid);
    printf("idle_connections: %d opened in %.2f s (server fds %ld -> %ld)\n", opened, open_s, fds0,
           fds1);
    if (opened > 0 && rss0 > 0 && rss1 > 0)
        printf("idle_conn_kib: %.2f (server VmRSS %ld -> %ld KiB)\n",
               (double)(rss1 - rss0) / opened, rss0, rss1);
    fflush(stdout);
    for (int i = 0; i < opened; i++)
        ws_close(&c[i], 1000);
    free(c);
    return rc;
}
