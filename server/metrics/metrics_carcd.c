/* metrics_carcd.c: carcd's metric families (server/README.md "Metrics"), the
 * calls that count into them, and the exposition built when /metrics is
 * scraped.
 *
 * Every label value comes from a fixed table: message types from the
 * protocol's (msg_types.h), error codes from common/err.h, close codes from
 * the one below. Nothing a client sends (room ids, names, tokens, passwords)
 * can become a label. */
#include "metrics/metrics.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "msg.h"
#include "util/clock.h"
#include "util/loopstat.h"

#define N_ERRORS (CARC__EPOS_COUNT - 1) /* the codes of err.h, then "other" */

/* ---- label tables ---- */

static const char *recv_names[PROTO_T_COUNT + 1]; /* proto_type_name, then "invalid" */
static const char *error_names[N_ERRORS + 1];     /* carc_err_name, then "other" */
static int names_ready;

/* The server's messages (msg_types.h): series i is enum proto_server_type
 * i + 1, then "other" for a text that is not one. */
static const char *const sent_names[] = {
#define X(name, wire) wire,
    PROTO_SERVER_TYPES(X)
#undef X
        "other"};
#define N_SENT ((int)(sizeof sent_names / sizeof sent_names[0]))
_Static_assert(N_SENT == PROTO_S_COUNT, "a series per server type, then other");

/* By number, as the label says them: conn/session.h (same floor, not
 * included) names them SESSION_CLOSE_GOING_AWAY, _POLICY, _TOO_BIG,
 * _TAKEOVER, _OVERFLOW, _IDLE and _MOVED; tests/test_metrics.c checks that
 * each has its series. */
static const int close_codes[] = {1001, 1008, 1009, 4000, 4001, 4002, 4003};
static const char *const close_names[] = {"1001", "1008", "1009", "4000",
                                          "4001", "4002", "4003", "other"};
#define N_CLOSES ((int)(sizeof close_names / sizeof close_names[0]))
_Static_assert(sizeof close_codes / sizeof close_codes[0] == N_CLOSES - 1, "a name per code");

static const char *const refusal_names[METRICS_REFUSED_COUNT] = {"origin"};
static const char *const phase_names[METRICS_PHASES] = {"lobby", "playing", "ended"};
static const char *const conn_names[METRICS_CONN_COUNT] = {"player", "spectator", "lobby"};

/* Seconds: from half a millisecond (a commit without fsync) to 10 s (a disk
 * that stalls). */
static const double latency_bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                        0.1,    0.25,  0.5,    1,     2.5,  5,     10};
#define N_BOUNDS ((int)(sizeof latency_bounds / sizeof latency_bounds[0]))

/* carcd_loop_turn_seconds' bounds: loopstat's, in seconds (names_init). */
static double loop_turn_bounds[LOOPSTAT_TURN_BOUNDS];

static void names_init(void)
{
    if (names_ready)
        return;
    for (int i = 0; i < LOOPSTAT_TURN_BOUNDS; i++)
        loop_turn_bounds[i] = (double)loopstat_turn_bounds_ns[i] / 1e9;
    for (int i = 0; i < PROTO_T_COUNT; i++)
        recv_names[i] = proto_type_name(i);
    recv_names[PROTO_T_COUNT] = "invalid";
    for (int i = 0; i < N_ERRORS; i++)
        error_names[i] = carc_err_name(-(i + 1));
    error_names[N_ERRORS] = "other";
    names_ready = 1;
}

/* ---- the families ---- */

static double v_recv[PROTO_T_COUNT + 1], v_sent[N_SENT], v_errors[N_ERRORS + 1], v_closes[N_CLOSES],
    v_resumes, v_moves, v_commit_fail, v_redirects, v_takeovers, v_given_up, v_conns_refused,
    v_accept_pauses;
static uint64_t b_bcast[N_BOUNDS + 1], b_commit[N_BOUNDS + 1];
static double s_bcast, s_commit;
static double v_refused[METRICS_REFUSED_COUNT];
static double v_rooms[METRICS_PHASES], v_conns[METRICS_CONN_COUNT];
static double v_loop_busy, v_loop_turns, v_loop_longest;
static uint64_t b_loop_turn[LOOPSTAT_TURN_BOUNDS + 1];
static double s_loop_turn;
static double v_rss, v_vsize, v_fds, v_max_fds, v_cpu, v_start;
/* Healthy until a commit fails (and with storage off, which has no commits). */
static double v_store_healthy = 1, v_store_failing_since;
static double v_signins[METRICS_ACCOUNT_RESULTS], v_signups[METRICS_ACCOUNT_RESULTS], v_rating_fail,
    v_acct_refused, v_acct_waiting;
static const char *const account_results[METRICS_ACCOUNT_RESULTS] = {"ok", "refused", "limited",
                                                                     "failed"};
static const char *const push_results[] = {"sent", "gone", "retry", "failed"};
static double v_push[4];
static const char *const mail_kinds[] = {"digest", "reminder"};
static const char *const mail_results[] = {"sent", "failed"};
static double v_mail[4]; /* kind x result */
static const char *const analysis_results[] = {"done", "failed"};
static double v_analyses[2], v_analysis_seconds, v_analysis_queue;

#define COUNTER(n, h, var)                                                                         \
    {                                                                                              \
        .name = n, .help = h, .kind = METRICS_COUNTER, .nseries = 1, .v = &var                     \
    }
#define GAUGE(n, h, var)                                                                           \
    {                                                                                              \
        .name = n, .help = h, .kind = METRICS_GAUGE, .nseries = 1, .v = &var                       \
    }
#define LABELLED(n, h, k, l, names, var)                                                           \
    {                                                                                              \
        .name = n, .help = h, .kind = k, .label = l, .values = names,                              \
        .nseries = (int)(sizeof var / sizeof var[0]), .v = var                                     \
    }
#define HISTOGRAM(n, h, b, total)                                                                  \
    {                                                                                              \
        .name = n, .help = h, .kind = METRICS_HISTOGRAM, .nseries = 1, .bounds = latency_bounds,   \
        .nbounds = N_BOUNDS, .buckets = b, .sum = &total                                           \
    }

static struct metrics_family f_recv =
    LABELLED("carcd_messages_received_total",
             "Whole messages received from clients, by type (invalid: not decoded).",
             METRICS_COUNTER, "type", recv_names, v_recv);
static struct metrics_family f_sent =
    LABELLED("carcd_messages_sent_total",
             "Messages queued to clients, by type (one per receiving connection).", METRICS_COUNTER,
             "type", sent_names, v_sent);
static struct metrics_family f_errors =
    LABELLED("carcd_errors_total", "Error messages sent to clients, by code.", METRICS_COUNTER,
             "code", error_names, v_errors);
static struct metrics_family f_closes =
    LABELLED("carcd_closes_total", "Connections the server closed, by websocket close code.",
             METRICS_COUNTER, "code", close_names, v_closes);
static struct metrics_family f_refused =
    LABELLED("carcd_upgrades_refused_total", "Websocket upgrades refused, by reason.",
             METRICS_COUNTER, "reason", refusal_names, v_refused);
static struct metrics_family f_resumes =
    COUNTER("carcd_resumes_total", "Seats resumed with their token.", v_resumes);
static struct metrics_family f_redirects =
    COUNTER("carcd_cluster_redirects_total",
            "Requests answered with a redirect to the room's node (cluster).", v_redirects);
static struct metrics_family f_takeovers =
    COUNTER("carcd_cluster_takeovers_total",
            "Rooms this node took over from the database (cluster).", v_takeovers);
static struct metrics_family f_given_up =
    COUNTER("carcd_cluster_rooms_given_up_total",
            "Rooms this node gave up: lease lost or write fenced (cluster).", v_given_up);
static struct metrics_family f_conns_refused = COUNTER(
    "carcd_connections_refused_total",
    "New connections closed at once because carcd was out of file descriptors.", v_conns_refused);
static struct metrics_family f_accept_pauses = COUNTER(
    "carcd_accept_pauses_total",
    "Times carcd stopped accepting connections for a moment after accept failed.", v_accept_pauses);
static struct metrics_family f_moves =
    COUNTER("carcd_moves_total", "Moves accepted (people's and bots').", v_moves);
static struct metrics_family f_bcast = HISTOGRAM(
    "carcd_move_broadcast_seconds",
    "Time from a move's acceptance to its delta being queued to the room (after its commit).",
    b_bcast, s_bcast);
static struct metrics_family f_commit =
    HISTOGRAM("carcd_store_commit_seconds",
              "Time one storage batch's transaction took on the thread pool.", b_commit, s_commit);
static struct metrics_family f_commit_fail = COUNTER(
    "carcd_store_commit_failures_total",
    "Storage batches that failed to commit (moves are refused until one works).", v_commit_fail);
static struct metrics_family f_store_healthy =
    GAUGE("carcd_store_healthy",
          "1 while storage commits work, 0 since a commit failed (until one works again).",
          v_store_healthy);
static struct metrics_family f_store_failing_since =
    GAUGE("carcd_store_failing_since_timestamp_seconds",
          "When the commits now failing began to fail, since unix epoch in seconds; 0 while they"
          " work.",
          v_store_failing_since);
static struct metrics_family f_signins = LABELLED(
    "carcd_account_signins_total",
    "Sign-ins answered, by result (refused: wrong name or password; limited: too many failures;"
    " failed: the database).",
    METRICS_COUNTER, "result", account_results, v_signins);
static struct metrics_family f_signups = LABELLED(
    "carcd_account_signups_total",
    "Sign-ups answered, by result (refused: the name, password or invite; limited: too many"
    " attempts; failed: the database).",
    METRICS_COUNTER, "result", account_results, v_signups);
static struct metrics_family f_rating_fail = COUNTER(
    "carcd_rating_failures_total",
    "Rated games whose rating could not be written (retried from the database).", v_rating_fail);
static struct metrics_family f_acct_refused =
    COUNTER("carcd_account_jobs_refused_total",
            "Account requests refused because the accounts service's queue was full (503 busy).",
            v_acct_refused);
static struct metrics_family f_acct_waiting =
    GAUGE("carcd_account_jobs_waiting",
          "Account requests (password hashes, database reads) waiting for the thread pool.",
          v_acct_waiting);
static struct metrics_family f_push =
    LABELLED("carcd_push_deliveries_total",
             "Web Push deliveries by what the push service answered (sent; gone: 404 or 410, the"
             " subscription dropped; retry: 429, 5xx or no answer; failed: any other).",
             METRICS_COUNTER, "result", push_results, v_push);
static struct metrics_family f_mail = {
    .name = "carcd_mail_sent_total",
    .help =
        "E-mail handed to the relay of smtp-url (sent: it answered 2xx) or not (failed: refused,"
        " unreachable, or not queued), by kind (the daily digest, a low-clock reminder).",
    .kind = METRICS_COUNTER,
    .label = "kind",
    .values = mail_kinds,
    .nseries = 4,
    .label2 = "result",
    .values2 = mail_results,
    .nvalues2 = 2,
    .v = v_mail};
static struct metrics_family f_analyses =
    LABELLED("carcd_analyses_total",
             "Game analyses finished on the thread pool, by result (done: stored; failed: the"
             " record could not be read or analysed).",
             METRICS_COUNTER, "result", analysis_results, v_analyses);
static struct metrics_family f_analysis_seconds =
    COUNTER("carcd_analysis_seconds_total",
            "Thread-pool time spent analysing games (seconds of one core).", v_analysis_seconds);
static struct metrics_family f_analysis_queue =
    GAUGE("carcd_analysis_queue", "Games waiting for their analysis or being analysed.",
          v_analysis_queue);
static struct metrics_family f_rooms = LABELLED("carcd_rooms", "Rooms on the server, by phase.",
                                                METRICS_GAUGE, "phase", phase_names, v_rooms);
static struct metrics_family f_conns =
    LABELLED("carcd_connections",
             "Open websocket connections: seated players, spectators, in no room (lobby).",
             METRICS_GAUGE, "kind", conn_names, v_conns);
static struct metrics_family f_loop_busy =
    COUNTER("carcd_loop_busy_seconds_total",
            "Time the event loop spent working (not waiting for events).", v_loop_busy);
static struct metrics_family f_loop_turns =
    COUNTER("carcd_loop_turns_total", "Event loop turns measured.", v_loop_turns);
static struct metrics_family f_loop_longest =
    GAUGE("carcd_loop_longest_turn_seconds", "The longest busy time of one loop turn since start.",
          v_loop_longest);
static struct metrics_family f_loop_turn = {
    .name = "carcd_loop_turn_seconds",
    .help = "Busy time of each event loop turn (not waiting for events): its p99 is the loop's"
            " latency that everything on the server shares.",
    .kind = METRICS_HISTOGRAM,
    .nseries = 1,
    .bounds = loop_turn_bounds,
    .nbounds = LOOPSTAT_TURN_BOUNDS,
    .buckets = b_loop_turn,
    .sum = &s_loop_turn};
static struct metrics_family f_rss =
    GAUGE("process_resident_memory_bytes", "Resident memory size in bytes.", v_rss);
static struct metrics_family f_vsize =
    GAUGE("process_virtual_memory_bytes", "Virtual memory size in bytes.", v_vsize);
static struct metrics_family f_fds =
    GAUGE("process_open_fds", "Number of open file descriptors.", v_fds);
static struct metrics_family f_max_fds =
    GAUGE("process_max_fds", "Maximum number of open file descriptors.", v_max_fds);
static struct metrics_family f_cpu =
    COUNTER("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", v_cpu);
static struct metrics_family f_start =
    GAUGE("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
          v_start);

static struct metrics_family *const families[] = {
    &f_rooms,
    &f_conns,
    &f_recv,
    &f_sent,
    &f_errors,
    &f_closes,
    &f_resumes,
    &f_moves,
    &f_bcast,
    &f_commit,
    &f_commit_fail,
    &f_loop_busy,
    &f_loop_turns,
    &f_loop_longest,
    &f_loop_turn,
    &f_rss,
    &f_vsize,
    &f_fds,
    &f_max_fds,
    &f_cpu,
    &f_start,
    &f_redirects,
    &f_takeovers,
    &f_given_up,
    &f_refused,
    &f_store_healthy,
    &f_store_failing_since,
    &f_conns_refused,
    &f_accept_pauses,
    &f_signins,
    &f_signups,
    &f_rating_fail,
    &f_acct_refused,
    &f_acct_waiting,
    &f_push,
    &f_mail,
    &f_analyses,
    &f_analysis_seconds,
    &f_analysis_queue,
};
#define N_FAMILIES ((int)(sizeof families / sizeof families[0]))

/* ---- counting ---- */

uint64_t metrics_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void metrics_init(void)
{
    names_init();
    v_start = (double)clock_wall_ms() / 1000.0;
}

void metrics_received_count(int type)
{
    metrics_family_add(&f_recv, type >= 0 && type < PROTO_T_COUNT ? type : PROTO_T_COUNT, 1);
}

void metrics_sent_count(int type, int code)
{
    metrics_family_add(&f_sent,
                       type > PROTO_S_UNKNOWN && type < PROTO_S_COUNT ? type - 1 : N_SENT - 1, 1);
    if (type == PROTO_S_ERROR)
        metrics_family_add(&f_errors, code < 0 && -code <= N_ERRORS ? -code - 1 : N_ERRORS, 1);
}

void metrics_close_count(int code)
{
    int i = 0;
    while (i < N_CLOSES - 1 && close_codes[i] != code)
        i++;
    metrics_family_add(&f_closes, i, 1);
}

void metrics_upgrade_refused_count(int reason)
{
    if (reason >= 0 && reason < METRICS_REFUSED_COUNT)
        metrics_family_add(&f_refused, reason, 1);
}

void metrics_resume_count(void)
{
    v_resumes += 1;
}

void metrics_redirect_count(void)
{
    v_redirects += 1;
}

void metrics_takeover_count(void)
{
    v_takeovers += 1;
}

void metrics_given_up_count(void)
{
    v_given_up += 1;
}

void metrics_conn_refused_count(void)
{
    v_conns_refused += 1;
}

void metrics_accept_pause_count(void)
{
    v_accept_pauses += 1;
}

void metrics_move_count(void)
{
    v_moves += 1;
}

void metrics_broadcast_observe(uint64_t ns)
{
    metrics_family_observe(&f_bcast, 0, (double)ns / 1e9);
}

void metrics_commit_observe(uint64_t ns, int ok)
{
    metrics_family_observe(&f_commit, 0, (double)ns / 1e9);
    if (!ok)
        v_commit_fail += 1;
}

void metrics_store_health_set(int healthy, uint64_t failing_since_ms)
{
    v_store_healthy = healthy ? 1 : 0;
    v_store_failing_since = healthy ? 0 : (double)failing_since_ms / 1e3;
}

void metrics_account_count(int kind, int result)
{
    metrics_family_add(kind == METRICS_ACCOUNT_SIGNIN ? &f_signins : &f_signups, result, 1);
}

void metrics_push_count(int outcome)
{
    metrics_family_add(&f_push, outcome, 1);
}

void metrics_mail_count(int kind, int ok)
{
    if (kind == METRICS_MAIL_DIGEST || kind == METRICS_MAIL_REMINDER)
        metrics_family_add(&f_mail, kind * 2 + (ok ? 0 : 1), 1);
}

void metrics_analysis_count(int ok, double seconds)
{
    metrics_family_add(&f_analyses, ok ? 0 : 1, 1);
    v_analysis_seconds += seconds;
}

void metrics_analysis_queue_set(int n)
{
    v_analysis_queue = n;
}

void metrics_rating_failure_count(void)
{
    v_rating_fail += 1;
}

void metrics_account_refused_count(void)
{
    v_acct_refused += 1;
}

void metrics_account_waiting_set(int n)
{
    v_acct_waiting = n;
}

/* ---- read when scraped ---- */

static void collect_gauges(const struct metrics_gauges *g)
{
    for (int i = 0; i < METRICS_PHASES; i++)
        v_rooms[i] = g != NULL ? g->rooms[i] : 0;
    for (int i = 0; i < METRICS_CONN_COUNT; i++)
        v_conns[i] = g != NULL ? g->conns[i] : 0;
}

static void collect_loop(const struct loopstat *ls)
{
    v_loop_busy = (double)ls->busy_total / 1e9;
    v_loop_turns = (double)ls->iter.count;
    v_loop_longest = (double)ls->iter.max / 1e9;
    memcpy(b_loop_turn, ls->turn_le, sizeof b_loop_turn);
    s_loop_turn = (double)ls->busy_total / 1e9;
}

/* /proc is in memory: reading it does not wait for a disk. */
static void collect_process(void)
{
    long page = sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f != NULL) {
        if (fscanf(f, "%lu %lu", &size, &resident) != 2)
            size = resident = 0;
        fclose(f);
    }
    v_vsize = (double)size * (double)page;
    v_rss = (double)resident * (double)page;
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (d != NULL) {
        for (struct dirent *e; (e = readdir(d)) != NULL;)
            n += e->d_name[0] != '.';
        closedir(d);
        n--; /* the directory's own descriptor */
    }
    v_fds = n;
    struct rlimit rl;
    v_max_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                    ? (double)rl.rlim_cur
                    : 0;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        v_cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

char *metrics_exposition(const struct metrics_gauges *g, const struct loopstat *ls)
{
    names_init();
    collect_gauges(g);
    if (ls != NULL)
        collect_loop(ls);
    collect_process();
    struct metrics_text t = {0};
    for (int i = 0; i < N_FAMILIES; i++) {
        const struct metrics_family *f = families[i];
        if (ls == NULL &&
            (f == &f_loop_busy || f == &f_loop_turns || f == &f_loop_longest || f == &f_loop_turn))
            continue;
        metrics_text_family(&t, f);
    }
    return metrics_text_take(&t);
}

double metrics_value(const char *name, const char *label_value)
{
    names_init();
    for (int i = 0; i < N_FAMILIES; i++) {
        const struct metrics_family *f = families[i];
        if (strcmp(f->name, name) != 0)
            continue;
        for (int k = 0; k < f->nseries; k++) {
            if (f->label != NULL && (label_value == NULL || strcmp(f->values[k], label_value) != 0))
                continue;
            if (f->label == NULL && label_value != NULL)
                return -1;
            if (f->kind != METRICS_HISTOGRAM)
                return f->v[k];
            uint64_t n = 0;
            for (int b = 0; b <= f->nbounds; b++)
                n += f->buckets[(size_t)k * (size_t)(f->nbounds + 1) + (size_t)b];
            return (double)n;
        }
        return -1;
    }
    return -1;
}
