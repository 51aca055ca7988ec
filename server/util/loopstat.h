/* loopstat.h: how long the event loop is busy per turn, and latency
 * histograms that other modules fill (the storage's time on the loop and its
 * commits), reported as JSON for GET /api/stats and `make bench-load`.
 *
 * A histogram is a plain value of fixed arrays: adding never allocates, so it
 * can sit in a hot path. Buckets are log-linear (HdrHistogram's layout): each
 * power of two from 1 us (2^10 ns) to 16 s (2^34 ns) is cut into
 * LOOPSTAT_SUBS equal sub-buckets, so a reported quantile is at most 1/16
 * (6.25%) above the true value. Everything under 1 us shares bucket 0;
 * everything from 16 s up shares the last one (reported as the max).
 *
 * Not thread safe: add and read on the loop thread only. A duration measured
 * on the thread pool (a commit in uv_queue_work's work callback) is added in
 * the after-work callback, which runs on the loop. */
#ifndef CARCD_LOOPSTAT_H
#define CARCD_LOOPSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define LOOPSTAT_MIN_SHIFT 10 /* 2^10 ns ~ 1 us: the first bucket boundary */
#define LOOPSTAT_MAX_SHIFT 34 /* 2^34 ns ~ 17 s: the overflow bucket from here */
#define LOOPSTAT_SUB_BITS 4
#define LOOPSTAT_SUBS (1 << LOOPSTAT_SUB_BITS)
/* underflow + (powers of two x sub-buckets) + overflow */
#define LOOPSTAT_BUCKETS (2 + (LOOPSTAT_MAX_SHIFT - LOOPSTAT_MIN_SHIFT) * LOOPSTAT_SUBS)

struct loopstat_hist {
    uint64_t counts[LOOPSTAT_BUCKETS];
    uint64_t count;
    uint64_t max; /* ns */
    uint64_t sum; /* ns */
};

/* The same busy times in fixed buckets, for a Prometheus histogram
 * (carcd_loop_turn_seconds) from which a p99 over any window is the
 * difference of two scrapes: the bounds in ns, ascending, from 50 us (an idle
 * turn: a timer, one message) to 1 s (a stall). */
#define LOOPSTAT_TURN_BOUNDS 17
extern const uint64_t loopstat_turn_bounds_ns[LOOPSTAT_TURN_BOUNDS];

struct loopstat {
    struct loopstat_hist iter; /* busy ns of each loop turn (loopstat.c) */
    /* iter again in loopstat_turn_bounds_ns' buckets, not cumulative: turn_le[i]
     * counts the turns above bound i - 1 and at most bound i, the last those
     * above every bound. Their sum is iter.count, their busy time busy_total. */
    uint64_t turn_le[LOOPSTAT_TURN_BOUNDS + 1];
    struct loopstat_hist store_loop;   /* storage work done on the loop (store.c fills it) */
    struct loopstat_hist store_commit; /* one batch's commit on the thread pool (store.c) */
    uv_prepare_t prep;
    uv_loop_t *loop;
    uint64_t last_wall, last_idle; /* ns at the previous prepare callback */
    uint64_t busy_total, wall_total;
    int primed; /* last_* hold a sample */
    int running;
};

/* Count one duration of ns nanoseconds. */
void loopstat_hist_add(struct loopstat_hist *h, uint64_t ns);

/* The q-quantile (0 <= q <= 1) in ns: the upper bound of the bucket holding
 * the ceil(q * count)-th smallest value, never above the max. 0 when empty.
 * q = 1 is the max. */
uint64_t loopstat_hist_quantile(const struct loopstat_hist *h, double q);

/* Count one loop turn that was busy ns nanoseconds: iter, turn_le and
 * busy_total (the prepare callback does it for every measured turn; tests
 * may too). */
void loopstat_turn_add(struct loopstat *ls, uint64_t ns);

/* Start measuring loop's turns (ls zeroed beforehand: static or calloc'd; the
 * loop figures are reset here, store_loop and store_commit are left as they
 * are, so storage may add to them before). Call before uv_run: it turns on
 * libuv's idle-time metric (uv_loop_configure, UV_METRICS_IDLE_TIME), which
 * only counts from then on. The handle is unreferenced, so it never keeps the
 * loop alive. Returns 0 or a negative libuv error (ls is then not running and
 * needs no loopstat_stop). */
int loopstat_start(struct loopstat *ls, uv_loop_t *loop);

/* Close the handle (from inside the loop, or before uv_run returns for the
 * last time). The figures stay readable. Safe to call twice or unstarted. */
void loopstat_stop(struct loopstat *ls);

/* The figures as malloc'd JSON text, all durations in microseconds:
 *   {"loop":{"iterations":N,"busy_p50_us":X,"busy_p99_us":X,"busy_max_us":X,
 *            "busy_mean_us":X,"busy_ratio":X},
 *    "store_loop":{"count":N,"p50_us":X,"p99_us":X,"max_us":X,"mean_us":X},
 *    "store_commit":{...the same keys...}}
 * busy_ratio: busy time over wall time of the measured turns (0..1). Never NULL
 * (out of memory aborts). */
char *loopstat_json(const struct loopstat *ls);

/* One line for the log, into out (truncated to size, always terminated):
 * "loop: N turns, busy p50 X us, p99 X us, max X us (R% busy); store_loop: ...". */
void loopstat_summary(const struct loopstat *ls, char *out, size_t size);

#endif
