/* metrics.h: carcd's figures for Prometheus (GET /metrics), in the text
 * exposition format 0.0.4.
 *
 * Two layers. The registry is plain data: a family (one metric name) has a
 * fixed table of label values chosen at compile time and caller-provided
 * arrays for its values, so counting is an array increment that never
 * allocates, and no label ever carries a value from the outside (a room id, a
 * token, a name). The writer turns families into text.
 *
 * On top of it, carcd's own families live in one process-wide registry
 * (metrics_carcd.c) that the modules which see an event feed with one call
 * each (metrics_*_count, metrics_*_observe). Not thread safe: every call runs
 * on the loop thread (a commit measured on the thread pool is counted in its
 * after-work callback).
 *
 * A leaf: others push into it; it walks nothing. It includes util/ and the
 * protocol's and engine's tables (message types, error codes) only, never
 * the connections, rooms, storage or HTTP above it, and calls nothing back.
 * What only a walk of the lobby can tell (rooms by phase, connections by
 * kind) the scraper counts and hands over (struct metrics_gauges, see
 * http/metrics_page.c); the exposition's own work is bounded by the number
 * of families. */
#ifndef CARCD_METRICS_H
#define CARCD_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* ---- the registry ---- */

enum metrics_kind { METRICS_COUNTER, METRICS_GAUGE, METRICS_HISTOGRAM };

struct metrics_family {
    const char *name; /* [a-zA-Z_:][a-zA-Z0-9_:]*; a counter's ends in _total */
    const char *help;
    int kind;                  /* enum metrics_kind */
    const char *label;         /* the one label's name, or NULL: a single series */
    const char *const *values; /* label != NULL: the label's value of each series */
    int nseries;               /* series (1 without a label) */
    /* A second label (NULL: none): series i is values[i / nvalues2] and
     * values2[i % nvalues2]; values then names nseries / nvalues2 of them. */
    const char *label2;
    const char *const *values2;
    int nvalues2;
    const double *bounds; /* histogram: bucket upper bounds (le), ascending; +Inf is added */
    int nbounds;
    /* Storage, owned by whoever defines the family (static arrays): */
    double *v;         /* counter, gauge: nseries values */
    uint64_t *buckets; /* histogram: nseries x (nbounds + 1) counts, not cumulative: the
                          last of a series counts what lies above every bound */
    double *sum;       /* histogram: nseries sums */
};

/* Add d to series i of a counter or gauge (i out of range: nothing). */
static inline void metrics_family_add(struct metrics_family *f, int i, double d)
{
    if (i >= 0 && i < f->nseries)
        f->v[i] += d;
}

static inline void metrics_family_set(struct metrics_family *f, int i, double x)
{
    if (i >= 0 && i < f->nseries)
        f->v[i] = x;
}

/* Count one observation x in series i of a histogram: the first bucket whose
 * bound is >= x (Prometheus' le), or the last. */
void metrics_family_observe(struct metrics_family *f, int i, double x);

/* ---- the writer ---- */

/* Growing text. On allocation failure the text is dropped and failed set:
 * metrics_text_take then returns NULL. */
struct metrics_text {
    char *p;
    size_t len, cap;
    int failed;
};

/* Append the family: "# HELP", "# TYPE", then each series; a histogram's
 * buckets cumulative with le="+Inf" last, then _sum and _count. Label values
 * are escaped (backslash, double quote, newline) and so is the help text
 * (backslash, newline). Numbers: integers below 2^53 as integers, others in
 * the shortest form that reads back the same, +Inf, -Inf, NaN. */
void metrics_text_family(struct metrics_text *t, const struct metrics_family *f);
/* Append formatted text (printf). */
void metrics_text_printf(struct metrics_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The text, malloc'd and NUL-terminated (the caller frees it), or NULL after
 * a failure; t is empty afterwards. */
char *metrics_text_take(struct metrics_text *t);

/* A number as the exposition writes it, into out (32 bytes are enough). */
void metrics_number_format(double x, char *out, size_t size);

/* ---- carcd's families (metrics_carcd.c) ---- */

struct loopstat;

/* Read when scraped, by whoever can walk the rooms and connections. */
enum metrics_conn_kind {
    METRICS_CONN_PLAYER = 0, /* seated in a room */
    METRICS_CONN_SPECTATOR,  /* in a room without a seat */
    METRICS_CONN_LOBBY,      /* in no room */
    METRICS_CONN_COUNT
};
#define METRICS_PHASES 3 /* enum proto_phase: lobby, playing, over (labelled "ended") */
struct metrics_gauges {
    double rooms[METRICS_PHASES];     /* rooms by phase */
    double conns[METRICS_CONN_COUNT]; /* open connections (not closing) by kind */
};

/* Note the process' start time (process_start_time_seconds). Call once at
 * start; counting works without it. */
void metrics_init(void);

/* A whole inbound message was decoded as type (enum proto_type), or could not
 * be (-1: counted as type "invalid"). carcd_messages_received_total{type} */
void metrics_received_count(int type);
/* A server message of this type (enum proto_server_type; PROTO_S_UNKNOWN or
 * out of range: "other") was queued to one connection:
 * carcd_messages_sent_total{type}. An error (PROTO_S_ERROR) also counts
 * carcd_errors_total{code} (code: CARC_E_*; 0 or unknown: "other"). The
 * caller knows both from where the message was encoded (struct sbuf). */
void metrics_sent_count(int type, int code);
/* The server asked to close a connection with this close code:
 * carcd_closes_total{code}: one series for each code conn/session.h's enum
 * session_close asks for but 1002 (lws' protocol errors), "other" for the rest. */
void metrics_close_count(int code);
/* Why a websocket upgrade was refused: carcd_upgrades_refused_total{reason}. */
enum metrics_refusal {
    METRICS_REFUSED_ORIGIN = 0, /* a page of another origin (allowed-origins) */
    METRICS_REFUSED_COUNT
};
void metrics_upgrade_refused_count(int reason);
/* A seat was resumed with its token: carcd_resumes_total. */
void metrics_resume_count(void);
/* Cluster (roomnode.c): a redirect sent, a room taken over from the
 * database, a room given up (carcd_cluster_*_total). */
void metrics_redirect_count(void);
void metrics_takeover_count(void);
void metrics_given_up_count(void);
/* Out of file descriptors, a new connection was accepted and closed at once
 * (net/net_listen.c): carcd_connections_refused_total. */
void metrics_conn_refused_count(void);
/* Accepting stopped for a pause after accept(2) failed:
 * carcd_accept_pauses_total. */
void metrics_accept_pause_count(void);
/* A move (a person's or a bot's) was accepted: carcd_moves_total. */
void metrics_move_count(void);
/* A move's delta went to the room's members ns nanoseconds after the move
 * was accepted (after its commit when storage is on):
 * carcd_move_broadcast_seconds. */
void metrics_broadcast_observe(uint64_t ns);
/* A storage batch committed (ok) or failed after ns nanoseconds on the thread
 * pool: carcd_store_commit_seconds, carcd_store_commit_failures_total. */
void metrics_commit_observe(uint64_t ns, int ok);
/* Whether storage commits work now (store.c, after every commit):
 * carcd_store_healthy (1 or 0) and carcd_store_failing_since_timestamp_seconds
 * (failing_since_ms, the wall clock of the first failure of this run, in
 * seconds; 0 while healthy). Both stay 1 and 0 with storage off. */
void metrics_store_health_set(int healthy, uint64_t failing_since_ms);

/* The accounts service (players/accounts.c) answered a request. Sign-ins and
 * sign-ups count by result: carcd_account_signins_total{result} and
 * carcd_account_signups_total{result}; a rated game's rating that failed
 * counts carcd_rating_failures_total. Requests refused because its queue was
 * full count carcd_account_jobs_refused_total; metrics_account_waiting_set
 * gives the queue's length now (carcd_account_jobs_waiting). */
enum metrics_account_kind { METRICS_ACCOUNT_SIGNIN = 0, METRICS_ACCOUNT_SIGNUP };
enum metrics_account_result {
    METRICS_ACCOUNT_OK = 0,  /* signed in, signed up */
    METRICS_ACCOUNT_WRONG,   /* wrong name or password; a sign-up refused (name, invite...) */
    METRICS_ACCOUNT_LIMITED, /* too many failures: 429 */
    METRICS_ACCOUNT_FAILED,  /* the database failed */
    METRICS_ACCOUNT_RESULTS
};
void metrics_account_count(int kind, int result);
void metrics_rating_failure_count(void);
void metrics_account_refused_count(void);
void metrics_account_waiting_set(int n);

/* A Web Push delivery ended so (notify/push.h enum push_outcome: sent, gone,
 * retry, failed): carcd_push_deliveries_total{result}. */
void metrics_push_count(int outcome);

/* An e-mail (notify/mail.h) of kind was handed to the relay (ok) or not:
 * carcd_mail_sent_total{kind="digest"|"reminder",result="sent"|"failed"}. */
enum { METRICS_MAIL_DIGEST = 0, METRICS_MAIL_REMINDER };
void metrics_mail_count(int kind, int ok);

/* A game's analysis (analysis/analysis.h) ended: stored (ok) or failed, after
 * seconds on the thread pool: carcd_analyses_total{result},
 * carcd_analysis_seconds_total. */
void metrics_analysis_count(int ok, double seconds);
/* Games queued or being analysed: carcd_analysis_queue. */
void metrics_analysis_queue_set(int n);

/* A monotonic clock in nanoseconds (for metrics_broadcast_observe). */
uint64_t metrics_now_ns(void);

/* The whole exposition, malloc'd (the caller frees it), or NULL when out of
 * memory: the counters above, then what is read now: the rooms and
 * connections the caller counted in g (NULL: all 0), the loop's figures
 * from ls (NULL: left out), and the process' memory, open files, CPU time
 * and start time. */
char *metrics_exposition(const struct metrics_gauges *g, const struct loopstat *ls);

/* A series' current value by family name and label value (NULL for a family
 * without a label); a histogram gives its count. -1 when there is no such
 * series. For tests. */
double metrics_value(const char *name, const char *label_value);

#endif
