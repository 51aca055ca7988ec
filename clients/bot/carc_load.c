/* carc-load: a load benchmark for carcd on loopback.
 *
 *   carc-load --carcd build/carcd [--rooms 100] [--seconds 60]   start a server of its own
 *   carc-load --url ws://127.0.0.1:PORT/ws --pid PID [...]      use a running one
 *
 * N rooms x 6 clients (sets base + inns-cathedrals). Each room is created by
 * its first client, joined by five more, and started; then the clients play
 * random legal moves as fast as the server answers, one game per room, all
 * rooms at once on one epoll loop. It prints:
 *   moves/s: X          moves played (placed tiles) per second of play
 *   p50_ms: X, p99_ms: X  move-to-all-six latency: from sending `play` until
 *                       all six clients of the room have received its delta
 *   server_cpu: X% of a core, Y us per move, Z moves/s per core   carcd's CPU
 *                       time while the games were played (from /proc), and
 *                       load_cpu: the same for carc-load, which may be the
 *                       limit of moves/s on a small machine
 *   rss_per_room_kib: X server VmRSS growth from before the first room to all
 *                       games started, divided by N (rooms with their six
 *                       connections and running games); rss_per_room_halfway_kib:
 *                       the same once half the game's moves are played
 *   loop_busy_us: p50 X p99 X max X   the server's event loop: busy time per
 *                       turn since it started (GET /api/stats, read once the
 *                       games are over); store_loop_us and store_commit_us:
 *                       the storage's time on the loop and per commit;
 *                       "loop_stats: unavailable" when the server has no such route
 * and a few more lines of detail. --idle N measures idle connections instead
 * (load_idle.h: idle_conn_kib, the server's RSS growth per connection held
 * without a message). make soak adds --report (a `soak` line of
 * server RSS, descriptors and windowed p50/p99 every S seconds) and --settle
 * (after the games every client leaves; the server's RSS then, against its
 * RSS before the first room). Exit 0 when every game finished, 1 when a
 * room failed or the time ran out, 2 on usage. Only loopback addresses are
 * accepted.
 *
 * Against a cluster of carcd nodes (--url of its proxy), every connection
 * starts at --url: a join answered with `redirect` follows it to the room's
 * node, and a seat whose connection ends with 1001, 4003 or no close frame is
 * resumed through --url (route.h); a `redirects: N, resumes: M` line then
 * follows moves/s. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "botlib.h"
#include "client.h"
#include "load_idle.h"
#include "load_legal.h"
#include "load_proc.h"
#include "route.h"
#include "ws.h"

#define SEATS 6
#define RING 16 /* moves in flight per room (one at a time in practice) */
#define MAX_LEGAL 1024
#define MAX_RESUMES 60 /* reconnections of one room's clients before the room fails */

struct room;

struct lclient {
    struct ws_conn ws;
    struct room *room;
    int idx;                     /* seat */
    long long seq;               /* last delta seq seen */
    char token[PROTO_TOKEN_MAX]; /* the seat's, for `resume` (route.h) */
};

struct pending {
    long long seq;
    uint64_t sent_ns;
    int got; /* clients that received the delta */
};

struct room {
    struct lclient c[SEATS];
    struct proto_client_doc *doc; /* the room's document, as client 0 sees it */
    struct load_legal legal;      /* the mover's last `legal`, whichever client got it */
    char id[PROTO_ROOM_MAX];
    long long acted_seq;
    struct pending ring[RING];
    int moves, refused, done, failed, started, resumes;
    char src[32]; /* the local address its clients bind, "" for any */
    uint64_t rng;
    uint64_t next_ns; /* with --rate: not before this time */
};

static struct room *rooms;
static int nrooms = 100;
static uint64_t room_interval_ns; /* with --rate: between two moves of one room */
/* Move latencies in ms: the whole run, and the current --report window. */
struct lat {
    double *v;
    size_t n, cap;
};
static struct lat all_lat, win_lat;

/* --report and --settle (make soak): a line of figures every report_s seconds of play, and
 * after the games the server's memory once every client has gone. */
static double report_s;
static uint64_t report_t0, report_next;
static pid_t server_pid = -1;
static long rss_peak, fds_peak;
static long total_moves, total_errors;
/* A cluster of nodes behind a proxy (route.h): the base URL every connection starts at, the
 * redirects followed to a room's node and the seats resumed after 1001, 4003 or a drop. */
static const char *base_url;
static long total_redirects, total_resumes;
static uint64_t run_deadline; /* the end of --seconds of play; a resume does not wait past it */
static struct proto_client_legal legal_scratch[MAX_LEGAL];

static void usage(FILE *out)
{
    fprintf(out,
            "usage: carc-load (--carcd PATH [--carcd-arg ARG]... | --url ws://127.0.0.1:PORT/ws"
            " --pid PID)\n"
            "                 [--rooms N] [--rate R] [--seconds S] [--no-spread]\n"
            "                 [--report S] [--settle S [--rss-limit F]] [--idle N]\n"
            "  --rooms N     rooms of six clients (default 100)\n"
            "  --rate R      pace the rooms to R moves per second in all (default: as fast\n"
            "                as the server answers)\n"
            "  --seconds S   give up after S seconds of play (default 120)\n"
            "  --no-spread   all clients from 127.0.0.1 (default: one loopback source\n"
            "                address per room, 127.0.0.2 and up)\n"
            "  --report S    every S seconds of play, a `soak` line: server RSS, open\n"
            "                descriptors, moves, and the p50/p99 latency since the last line\n"
            "  --settle S    after the games, close every client, wait S seconds and print\n"
            "                the server's RSS against its RSS before the first room\n"
            "  --rss-limit F with --settle: exit 1 when that RSS is over F times the\n"
            "                baseline (make soak: 1.2)\n"
            "  --idle N      instead of rooms: hold N idle connections (each through its\n"
            "                welcome) and print the server's RSS per connection\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The p quantile of l, sorted first (0 when empty). */
static double percentile(struct lat *l, double p)
{
    if (l->n == 0)
        return 0;
    qsort(l->v, l->n, sizeof *l->v, cmp_double);
    return l->v[(size_t)(p * (double)(l->n - 1) + 0.5)];
}

static void lat_add(struct lat *l, double ms)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4096;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (l->v == NULL) {
            fprintf(stderr, "carc-load: out of memory\n");
            exit(1);
        }
    }
    l->v[l->n++] = ms;
}

static void add_latency(double ms)
{
    lat_add(&all_lat, ms);
    lat_add(&win_lat, ms);
}

/* ---- rooms ---- */

static int is_loopback(const char *url)
{
    return strncmp(url, "ws://127.", 9) == 0 || strncmp(url, "ws://localhost:", 15) == 0 ||
           strncmp(url, "ws://[::1]:", 11) == 0;
}

/* Blocking read of messages on c until one of type `want` arrives; everything
 * read on the way is handled by the document of the room (client 0) or just
 * counted. Returns 0, or -1 with a message. */
static int wait_for(struct lclient *c, int want, struct proto_client_event *ev)
{
    for (;;) {
        const char *text;
        size_t len;
        int rc = ws_recv(&c->ws, &text, &len, 10000);
        if (rc < 0) {
            fprintf(stderr, "carc-load: room %s seat %d: %s\n", c->room->id, c->idx,
                    rc == WS_AGAIN    ? "timed out"
                    : rc == WS_CLOSED ? "closed"
                                      : c->ws.err);
            return -1;
        }
        proto_client_handle(c->idx == 0 ? c->room->doc : NULL, text, len, ev);
        if (ev->type == PROTO_S_DELTA || ev->type == PROTO_S_STATE)
            c->seq = ev->seq;
        if (ev->type == want)
            return 0;
        if (ev->type == PROTO_S_ERROR) {
            fprintf(stderr, "carc-load: room %s seat %d: error %s: %s\n", c->room->id, c->idx,
                    ev->code_name, ev->message);
            return -1;
        }
    }
}

/* Connect c through the base URL and send msg (redirects followed): its answer
 * into *ev. Returns 0 with c connected, or -1 (printed). */
static int client_enter(struct lclient *c, const char *msg, int retry_base,
                        struct proto_client_event *ev)
{
    struct room *r = c->room;
    struct route rt = {
        .base = base_url,
        .source = r->src[0] ? r->src : NULL,
        .retry_base = retry_base,
        .log = stderr, /* a line per redirect (tests/bench/cluster_load.py counts them) */
        .who = "carc-load"};
    if (run_deadline > 0) {
        uint64_t now = bot_now_ns();
        if (now >= run_deadline) {
            fprintf(stderr, "carc-load: room %s seat %d: out of time\n", r->id, c->idx);
            return -1;
        }
        uint64_t left_ms = (run_deadline - now) / 1000000u;
        rt.patience_ms = left_ms < ROUTE_PATIENCE_MS ? (int)left_ms + 1 : ROUTE_PATIENCE_MS;
    }
    int rc = route_enter(&rt, &c->ws, msg, ev);
    total_redirects += rt.redirects;
    if (rc < 0) {
        fprintf(stderr, "carc-load: room %s seat %d: %s\n", r->id, c->idx, c->ws.err);
        return -1;
    }
    if (ev->type == PROTO_S_ERROR) {
        fprintf(stderr, "carc-load: room %s seat %d: error %s: %s\n", r->id, c->idx, ev->code_name,
                ev->message);
        ws_close(&c->ws, 1000);
        return -1;
    }
    if (ev->token[0] != '\0')
        snprintf(c->token, sizeof c->token, "%s", ev->token);
    return 0;
}

static int room_setup(struct room *r, int ri, int spread)
{
    if (spread)
        snprintf(r->src, sizeof r->src, "127.0.%d.%d", 1 + ri / 250, 2 + ri % 250);
    r->doc = proto_client_doc_new();
    r->acted_seq = -1;
    r->rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)ri * 0x100000001B3ull);
    if (r->doc == NULL)
        return -1;
    proto_client_seat_set(r->doc, 0);
    for (int i = 0; i < SEATS; i++) {
        struct lclient *c = &r->c[i];
        c->room = r;
        c->idx = i;
        c->seq = -1;
        char name[16];
        snprintf(name, sizeof name, "P%d", i);
        struct proto_client_event ev;
        char *msg =
            i == 0 ? proto_client_encode_create(
                         name, SEATS, (1u << CARC_SET_BASE) | (1u << CARC_SET_INNS_CATHEDRALS), "1")
                   : proto_client_encode_join(r->id, name, "1");
        int rc = msg != NULL ? client_enter(c, msg, 0, &ev) : -1;
        free(msg);
        if (rc < 0)
            return -1;
        if (ev.seat != i) {
            fprintf(stderr, "carc-load: room %s: expected seat %d, got %d\n", r->id, i, ev.seat);
            return -1;
        }
        if (i == 0)
            snprintf(r->id, sizeof r->id, "%s", ev.room);
        if (wait_for(c, PROTO_S_STATE, &ev) < 0)
            return -1;
    }
    return 0;
}

/* The current player plays when the room's document and its own connection
 * have both reached the latest seq. */
static void room_maybe_play(struct room *r)
{
    if (r->done || !r->started || proto_client_phase(r->doc) != PROTO_PHASE_PLAYING)
        return;
    long long seq = proto_client_doc_seq(r->doc);
    int cur = proto_client_current(r->doc);
    /* The mover's `legal` comes on its own connection, kept as text (load_legal.h)
     * or, in another layout, in the document. */
    int quick = r->legal.text != NULL && r->legal.turn == proto_client_turn(r->doc) &&
                r->legal.player == cur && r->legal.tile == proto_client_tile(r->doc);
    if (seq == r->acted_seq || cur < 0 || cur >= SEATS || r->c[cur].seq < seq ||
        (!quick && !proto_client_legal_ready(r->doc)))
        return;
    uint64_t now = bot_now_ns();
    if (room_interval_ns > 0) {
        if (now < r->next_ns)
            return; /* run_until calls again */
        r->next_ns = (r->next_ns ? r->next_ns : now) + room_interval_ns;
        if (r->next_ns < now)
            r->next_ns = now; /* fell behind: no burst to catch up */
    }
    struct proto_client_seat seat = {0};
    char *msg = quick && proto_client_seat_get(r->doc, cur, &seat) == 0
                    ? load_legal_play(&r->legal, &r->rng, seat.meeples, seat.large)
                    : bot_random_play(r->doc, &r->rng, legal_scratch, MAX_LEGAL, NULL);
    struct pending *p = &r->ring[(seq + 1) % RING];
    p->seq = seq + 1;
    p->got = 0;
    p->sent_ns = now;
    r->acted_seq = seq;
    if (bot_send_take(&r->c[cur].ws, msg) < 0) {
        fprintf(stderr, "carc-load: room %s: send: %s\n", r->id, r->c[cur].ws.err);
        r->failed = r->done = 1;
    }
}

/* The seq of a delta from the head of its text, as carcd writes it
 * ({"v":2,"type":"delta","seq":N,...}), without parsing the rest: five of a
 * room's six clients need nothing more, and parsing every delta six times
 * would make this tool, not the server, the bottleneck. 0 when the text does
 * not start that way (then it is parsed in full). */
static int quick_delta_seq(const char *text, size_t len, long long *seq)
{
    static const char head[] = "{\"v\":2,\"type\":\"delta\",\"seq\":";
    size_t n = sizeof head - 1;
    if (len < n + 1 || memcmp(text, head, n) != 0 || text[n] < '0' || text[n] > '9')
        return 0;
    *seq = strtoll(text + n, NULL, 10);
    return 1;
}

/* 1 when text is a `legal` message as carcd writes it. */
static int is_legal(const char *text, size_t len)
{
    static const char head[] = "{\"v\":2,\"type\":\"legal\"";
    return len > sizeof head && memcmp(text, head, sizeof head - 1) == 0;
}

/* One message for client c. The room's one document is seat 0's; the
 * mover's `legal`, whichever seat's connection it comes on, is kept with it. */
static void client_message(struct lclient *c, const char *text, size_t len)
{
    struct room *r = c->room;
    struct proto_client_event ev;
    long long qseq;
    int took = load_legal_take(&r->legal, text, len);
    if (took != 0) {
        if (took < 0)
            r->failed = r->done = 1;
        room_maybe_play(r);
        return;
    }
    if (c->idx != 0 && quick_delta_seq(text, len, &qseq)) {
        memset(&ev, 0, sizeof ev);
        ev.type = PROTO_S_DELTA;
        ev.seq = qseq;
    } else if (proto_client_handle(c->idx == 0 || is_legal(text, len) ? r->doc : NULL, text, len,
                                   &ev) < 0 &&
               c->idx == 0) {
        ev.gap = 1; /* the document was dropped: ask again */
    }
    if (ev.type == PROTO_S_ERROR) {
        total_errors++;
        fprintf(stderr, "carc-load: room %s seat %d: error %s: %s\n", r->id, c->idx, ev.code_name,
                ev.message);
        if (++r->refused > 20) {
            r->failed = r->done = 1;
            return;
        }
        r->acted_seq = -1; /* another random move */
        room_maybe_play(r);
        return;
    }
    if (ev.type == PROTO_S_LEGAL) {
        room_maybe_play(r);
        return;
    }
    if (ev.type != PROTO_S_DELTA && ev.type != PROTO_S_STATE)
        return;
    if (c->idx == 0 && ev.gap) {
        long long s = proto_client_doc_seq(r->doc);
        bot_send_take(&c->ws, proto_client_encode_sync(s >= 0 ? s : 0, NULL));
        return;
    }
    if (ev.seq > c->seq)
        c->seq = ev.seq;
    if (ev.type == PROTO_S_DELTA) {
        struct pending *p = &r->ring[ev.seq % RING];
        if (p->seq == ev.seq && ++p->got == SEATS) {
            add_latency((double)(bot_now_ns() - p->sent_ns) / 1e6);
            p->seq = -1;
        }
        if (c->idx == 0 && ev.turn_over) {
            r->moves++;
            total_moves++;
        }
    }
    if (c->idx == 0 && ev.applied) {
        int phase = proto_client_phase(r->doc);
        if (phase == PROTO_PHASE_PLAYING)
            r->started = 1;
        if (phase == PROTO_PHASE_OVER) {
            r->done = 1;
            return;
        }
    }
    room_maybe_play(r);
}

/* Handle the messages c has buffered, then read everything the socket has.
 * Returns -1 when the connection ended. */
static int client_readable(struct lclient *c)
{
    for (;;) {
        const char *text;
        size_t len;
        int op;
        while ((op = ws_next(&c->ws, &text, &len)) > 0)
            if (op == 1)
                client_message(c, text, len);
        if (op == WS_CLOSED || op == WS_ERROR)
            return -1;
        int rc = ws_fill(&c->ws);
        if (rc == WS_AGAIN)
            return 0;
        if (rc < 0)
            return -1;
    }
}

/* After c's connection ended in a game: `resume` its seat through the base URL
 * (route.h) when the close code says so, with the last seq it saw. Blocking: the
 * other rooms wait meanwhile (a node's failover is not what the figures measure).
 * A play the mover's old connection carried may be lost, so the mover may play
 * again (a duplicate is refused and counted, and the room goes on).
 * Returns 0 with c connected again, -1 when it may not or could not. */
static int client_resume(struct lclient *c, int code)
{
    struct room *r = c->room;
    if (c->token[0] == '\0' || !route_should_resume(code) || ++r->resumes > MAX_RESUMES)
        return -1;
    long long seq = c->idx == 0 ? proto_client_doc_seq(r->doc) : c->seq;
    char *msg = proto_client_encode_resume(r->id, c->token, seq, "1");
    struct proto_client_event ev;
    int rc = msg != NULL ? client_enter(c, msg, 1, &ev) : -1;
    free(msg);
    if (rc < 0 || ws_set_nonblocking(&c->ws) < 0)
        return -1;
    total_resumes++;
    if (proto_client_current(r->doc) == c->idx)
        r->acted_seq = -1; /* the mover's play may have been lost with its connection */
    return 0;
}

static void client_service(int ep, struct lclient *c)
{
    while (c->ws.fd >= 0 && client_readable(c) != 0) {
        struct room *r = c->room;
        int code = c->ws.close_code;
        epoll_ctl(ep, EPOLL_CTL_DEL, c->ws.fd, NULL);
        ws_close(&c->ws, 0);
        if (r->done)
            return;
        fprintf(stderr, "carc-load: room %s seat %d: connection ended (close %d)\n", r->id, c->idx,
                code);
        if (client_resume(c, code) < 0) {
            r->failed = r->done = 1;
            return;
        }
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, c->ws.fd, &e);
        /* then what the new connection brought with its answer */
    }
}

/* One epoll_wait (at most timeout_ms) and the work it reports. */
static void pump(int ep, int timeout_ms)
{
    struct epoll_event evs[256];
    int n = epoll_wait(ep, evs, 256, timeout_ms);
    if (n < 0 && errno != EINTR) {
        perror("carc-load: epoll_wait");
        exit(1);
    }
    for (int i = 0; i < n; i++)
        client_service(ep, evs[i].data.ptr);
}

static int games_over(void)
{
    int n = 0;
    for (int i = 0; i < nrooms; i++)
        n += rooms[i].done;
    return n;
}

/* With --report: every report_s seconds, the server's memory and descriptors, the moves so far
 * and the latency of the moves since the last line. */
static void report_maybe(void)
{
    uint64_t now = bot_now_ns();
    if (report_s <= 0 || now < report_next)
        return;
    report_next = now + (uint64_t)(report_s * 1e9);
    long rss = server_pid > 0 ? load_rss_kib(server_pid) : -1;
    long fds = server_pid > 0 ? load_fd_count(server_pid) : -1;
    rss_peak = rss > rss_peak ? rss : rss_peak;
    fds_peak = fds > fds_peak ? fds : fds_peak;
    size_t n = win_lat.n;
    double p50 = percentile(&win_lat, 0.50), p99 = percentile(&win_lat, 0.99);
    printf("soak t=%.0fs rss_kib=%ld fds=%ld moves=%ld games_over=%d window_moves=%zu "
           "window_p50_ms=%.2f window_p99_ms=%.2f\n",
           (double)(now - report_t0) / 1e9, rss, fds, total_moves, games_over(), n, p50, p99);
    fflush(stdout);
    win_lat.n = 0;
}

/* Run the loop until pred() over the rooms holds or the deadline passes.
 * Returns 0 when it held. */
static int run_until(int ep, int (*pred)(void), uint64_t deadline)
{
    while (!pred()) {
        if (bot_now_ns() >= deadline)
            return -1;
        pump(ep, room_interval_ns ? 1 : 100);
        report_maybe();
        if (room_interval_ns) /* paced: rooms whose time has come */
            for (int i = 0; i < nrooms; i++)
                room_maybe_play(&rooms[i]);
    }
    return 0;
}

static int all_started(void)
{
    for (int i = 0; i < nrooms; i++)
        if (!rooms[i].started && !rooms[i].done)
            return 0;
    return 1;
}

static int all_done(void)
{
    for (int i = 0; i < nrooms; i++)
        if (!rooms[i].done)
            return 0;
    return 1;
}

/* Half the tiles of a base + inns-cathedrals game (89 moves) played per room. */
static int half_played(void)
{
    return total_moves >= (long)nrooms * 89 / 2 || all_done();
}

int main(int argc, char **argv)
{
    const char *url_arg = NULL, *carcd = NULL;
    char *extra[32];
    int nextra = 0, spread = 1;
    pid_t pid = -1;
    double seconds = 120, rate = 0, settle = 0, rss_limit = 0;
    int idle = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-spread") == 0) {
            spread = 0;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (v == NULL) {
            usage(stderr);
            return 2;
        }
        if (strcmp(a, "--url") == 0)
            url_arg = v;
        else if (strcmp(a, "--pid") == 0)
            pid = atoi(v);
        else if (strcmp(a, "--carcd") == 0)
            carcd = v;
        else if (strcmp(a, "--carcd-arg") == 0 && nextra < 32)
            extra[nextra++] = argv[i + 1];
        else if (strcmp(a, "--rooms") == 0)
            nrooms = atoi(v);
        else if (strcmp(a, "--seconds") == 0)
            seconds = atof(v);
        else if (strcmp(a, "--rate") == 0)
            rate = atof(v);
        else if (strcmp(a, "--report") == 0)
            report_s = atof(v);
        else if (strcmp(a, "--settle") == 0)
            settle = atof(v);
        else if (strcmp(a, "--rss-limit") == 0)
            rss_limit = atof(v);
        else if (strcmp(a, "--idle") == 0)
            idle = atoi(v);
        else {
            fprintf(stderr, "carc-load: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
        i++;
    }
    if ((carcd == NULL) == (url_arg == NULL) || nrooms < 1 || nrooms > 10000 || seconds <= 0 ||
        rate < 0 || report_s < 0 || settle < 0 || rss_limit < 0 || idle < 0 || idle > 100000 ||
        (idle > 0 && pid <= 0 && carcd == NULL)) {
        usage(stderr);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl; /* six sockets per room */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    char url[256];
    if (carcd != NULL) {
        pid = load_server_start(carcd, extra, nextra, idle > 0 ? idle : SEATS * nrooms, nrooms, url,
                                sizeof url);
        if (pid < 0) {
            load_server_stop();
            return 1;
        }
    } else {
        snprintf(url, sizeof url, "%s", url_arg);
    }
    if (!is_loopback(url)) {
        fprintf(stderr, "carc-load: only loopback servers may be loaded: %s\n", url);
        load_server_stop();
        return 2;
    }
    if (strncmp(url, "ws://127.", 9) != 0)
        spread = 0;
    base_url = url;
    if (idle > 0) { /* instead of the rooms */
        int rc = load_idle_run(url, pid, idle, spread);
        load_server_stop();
        return rc < 0 ? 1 : 0;
    }
    rooms = calloc((size_t)nrooms, sizeof *rooms);
    int ep = epoll_create1(0);
    if (rooms == NULL || ep < 0) {
        fprintf(stderr, "carc-load: out of memory\n");
        load_server_stop();
        return 1;
    }
    long rss0 = pid > 0 ? load_rss_kib(pid) : -1, fds0 = pid > 0 ? load_fd_count(pid) : -1;
    server_pid = pid;
    uint64_t t_setup = bot_now_ns();
    int status = 0;
    for (int i = 0; i < nrooms; i++) {
        if (room_setup(&rooms[i], i, spread) < 0) {
            status = 1;
            nrooms = i;
            break;
        }
        /* From now on the room's clients are read by the loop: what they have buffered
         * already, then whatever the socket brings. */
        for (int j = 0; j < SEATS; j++) {
            struct lclient *c = &rooms[i].c[j];
            ws_set_nonblocking(&c->ws);
            struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
            epoll_ctl(ep, EPOLL_CTL_ADD, c->ws.fd, &e);
            client_service(ep, c);
        }
        pump(ep, 0); /* keep the earlier rooms' queues short */
    }
    long rss_lobby = pid > 0 ? load_rss_kib(pid) : -1;
    double setup_s = (double)(bot_now_ns() - t_setup) / 1e9;
    /* Start every room, and wait until each has seen its game begin. */
    for (int i = 0; i < nrooms; i++)
        if (bot_send_take(&rooms[i].c[0].ws, proto_client_encode_simple(PROTO_T_START, NULL)) < 0)
            rooms[i].failed = rooms[i].done = 1;
    uint64_t t0 = bot_now_ns();
    run_deadline = t0 + (uint64_t)(seconds * 1e9);
    report_t0 = t0;
    report_next = t0;
    double cpu0 = pid > 0 ? load_cpu_s(pid) : -1, self0 = load_cpu_s(getpid());
    if (rate > 0) { /* each room moves every N/rate seconds, the rooms evenly staggered */
        room_interval_ns = (uint64_t)((double)nrooms / rate * 1e9);
        for (int i = 0; i < nrooms; i++)
            rooms[i].next_ns = t0 + room_interval_ns * (uint64_t)i / (uint64_t)nrooms;
    }
    run_until(ep, all_started, t0 + 30000000000ull);
    long rss_started = pid > 0 ? load_rss_kib(pid) : -1;
    /* The moves played while we waited for the last room to start are counted too.
     * Memory is sampled again halfway: a running game holds more than a new one
     * (its board, its history of deltas). */
    uint64_t deadline = t0 + (uint64_t)(seconds * 1e9);
    run_until(ep, half_played, deadline);
    long rss_mid = pid > 0 ? load_rss_kib(pid) : -1;
    int ok = run_until(ep, all_done, deadline) == 0;
    double play_s = (double)(bot_now_ns() - t0) / 1e9;
    long rss_end = pid > 0 ? load_rss_kib(pid) : -1;
    double cpu1 = pid > 0 ? load_cpu_s(pid) : -1, self1 = load_cpu_s(getpid());

    int finished = 0, failed = 0;
    for (int i = 0; i < nrooms; i++) {
        finished += rooms[i].done && !rooms[i].failed;
        failed += rooms[i].failed;
    }
    printf("rooms: %d x %d clients, sets base+inns-cathedrals, %s, %s\n", nrooms, SEATS, url,
           rate > 0 ? "paced" : "as fast as the server answers");
    printf("setup_s: %.2f\n", setup_s);
    printf("games_finished: %d of %d (failed %d)\n", finished, nrooms, failed);
    printf("moves: %ld in %.2f s, refused: %ld\n", total_moves, play_s, total_errors);
    printf("moves/s: %.0f\n", play_s > 0 ? (double)total_moves / play_s : 0.0);
    if (total_redirects > 0 || total_resumes > 0) /* only behind a cluster's proxy */
        printf("redirects: %ld, resumes: %ld\n", total_redirects, total_resumes);
    /* Who limits the figure above: this process has one core too. A server at
     * well under one core is not the limit, and its CPU per move says what a
     * core of it could carry. */
    if (cpu0 >= 0 && cpu1 > cpu0 && play_s > 0) {
        printf("server_cpu: %.0f%% of a core, %.1f us per move, %.0f moves/s per core\n",
               100.0 * (cpu1 - cpu0) / play_s, 1e6 * (cpu1 - cpu0) / (double)total_moves,
               (double)total_moves / (cpu1 - cpu0));
    }
    if (self0 >= 0 && self1 >= self0 && play_s > 0)
        printf("load_cpu: %.0f%% of a core (carc-load itself)\n", 100.0 * (self1 - self0) / play_s);
    printf("p50_ms: %.3f\n", percentile(&all_lat, 0.50));
    printf("p99_ms: %.3f\n", percentile(&all_lat, 0.99));
    printf("max_ms: %.3f\n", all_lat.n ? all_lat.v[all_lat.n - 1] : 0.0);
    if (pid > 0 && rss0 > 0) {
        printf("server_rss_kib: %ld before, %ld lobby, %ld started, %ld halfway, %ld at the end\n",
               rss0, rss_lobby, rss_started, rss_mid, rss_end);
        printf("rss_per_room_lobby_kib: %.1f\n", (double)(rss_lobby - rss0) / nrooms);
        printf("rss_per_room_kib: %.1f\n", (double)(rss_started - rss0) / nrooms);
        printf("rss_per_room_halfway_kib: %.1f\n", (double)(rss_mid - rss0) / nrooms);
    } else {
        printf("rss_per_room_kib: unknown (no --pid)\n");
    }
    load_print_loop_stats(url);
    fflush(stdout);
    for (int i = 0; i < nrooms; i++) {
        for (int j = 0; j < SEATS; j++)
            ws_close(&rooms[i].c[j].ws, 1000);
        proto_client_doc_free(rooms[i].doc);
        load_legal_free(&rooms[i].legal);
    }
    free(rooms);
    free(all_lat.v);
    free(win_lat.v);
    close(ep);
    if (settle > 0 && pid > 0 && rss0 > 0) {
        /* Every client is gone: the server drops the rooms after its room-ttl and gives the
         * memory back (server/util/memtrim.h). A client tool may sleep. */
        uint64_t t_end = bot_now_ns() + (uint64_t)(settle * 1e9);
        struct timespec tick = {0, 200000000};
        while (bot_now_ns() < t_end)
            nanosleep(&tick, NULL);
        long rss_after = load_rss_kib(pid), fds_after = load_fd_count(pid);
        double ratio = (double)rss_after / (double)rss0;
        printf("rss_kib: %ld baseline (before the first room), %ld peak, %ld after %.0f s without "
               "clients (%.2fx the baseline)\n",
               rss0, rss_peak > rss_end ? rss_peak : rss_end, rss_after, settle, ratio);
        printf("fds: %ld before, %ld peak, %ld after\n", fds0, fds_peak, fds_after);
        if (rss_limit > 0 && ratio > rss_limit) {
            printf("FAIL: the server kept %.2fx its baseline memory (limit %.2fx)\n", ratio,
                   rss_limit);
            status = 1;
        }
        fflush(stdout);
    }
    load_server_stop();
    if (!ok || failed > 0)
        status = 1;
    return status;
}
