/* loopstat.c: loop busy time per turn and the histograms of loopstat.h.
 *
 * How a turn is measured. libuv runs, per turn: timers, pending, idle,
 * prepare, poll (block in epoll_wait, then the I/O callbacks), check,
 * closing. Timestamps in a prepare and a check callback would not do: the
 * I/O callbacks (every WebSocket message, every after-work callback of the
 * thread pool) run inside the poll phase after the wait, so check - prepare
 * mixes waiting with working. libuv's idle-time metric (>= 1.39, here 1.44)
 * adds up exactly the time spent blocked in the kernel's poll. So one prepare
 * handle samples wall clock (uv_hrtime, the metric's own clock) and idle time;
 * between two consecutive prepare callbacks lies one whole turn, and
 *   busy = delta wall - delta idle
 * is everything it ran: I/O callbacks, check and close callbacks, timers,
 * pending and idle work. The turn in which loopstat_start ran, and the last
 * one (cut short by the stop), are not counted. */
#include "util/loopstat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* Index of the highest set bit of v (v > 0). */
static int msb(uint64_t v)
{
#if defined(__GNUC__)
    return 63 - __builtin_clzll(v);
#else
    int b = 0;
    while (v >>= 1)
        b++;
    return b;
#endif
}

static int bucket_of(uint64_t ns)
{
    if (ns < (1ull << LOOPSTAT_MIN_SHIFT))
        return 0;
    int b = msb(ns);
    if (b >= LOOPSTAT_MAX_SHIFT)
        return LOOPSTAT_BUCKETS - 1;
    /* The LOOPSTAT_SUB_BITS bits under the top one pick the sub-bucket. */
    int sub = (int)(ns >> (b - LOOPSTAT_SUB_BITS)) & (LOOPSTAT_SUBS - 1);
    return 1 + (b - LOOPSTAT_MIN_SHIFT) * LOOPSTAT_SUBS + sub;
}

/* Largest value bucket i holds (the overflow bucket has none: UINT64_MAX). */
static uint64_t bucket_upper(int i)
{
    if (i == 0)
        return (1ull << LOOPSTAT_MIN_SHIFT) - 1;
    if (i == LOOPSTAT_BUCKETS - 1)
        return UINT64_MAX;
    int b = LOOPSTAT_MIN_SHIFT + (i - 1) / LOOPSTAT_SUBS;
    uint64_t sub = (uint64_t)((i - 1) % LOOPSTAT_SUBS);
    return ((LOOPSTAT_SUBS + sub + 1) << (b - LOOPSTAT_SUB_BITS)) - 1;
}

void loopstat_hist_add(struct loopstat_hist *h, uint64_t ns)
{
    h->counts[bucket_of(ns)]++;
    h->count++;
    h->sum += ns;
    if (ns > h->max)
        h->max = ns;
}

uint64_t loopstat_hist_quantile(const struct loopstat_hist *h, double q)
{
    if (h->count == 0)
        return 0;
    if (!(q > 0)) /* also NaN */
        q = 0;
    if (q > 1)
        q = 1;
    /* The rank of the value wanted, 1-based: ceil(q * count), at least 1. */
    double r = q * (double)h->count;
    uint64_t rank = (uint64_t)r;
    if ((double)rank < r)
        rank++;
    if (rank < 1)
        rank = 1;
    if (rank > h->count)
        rank = h->count;
    uint64_t seen = 0;
    for (int i = 0; i < LOOPSTAT_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t up = bucket_upper(i);
            return up < h->max ? up : h->max;
        }
    }
    return h->max; /* not reached: the counts add up to count */
}

const uint64_t loopstat_turn_bounds_ns[LOOPSTAT_TURN_BOUNDS] = {
    50000,   100000,   200000,   300000,   500000,    750000,    1000000,   2000000,   3000000,
    5000000, 10000000, 25000000, 50000000, 100000000, 250000000, 500000000, 1000000000};

void loopstat_turn_add(struct loopstat *ls, uint64_t ns)
{
    loopstat_hist_add(&ls->iter, ns);
    ls->busy_total += ns;
    /* Prometheus' le: the first bound at or above ns. 17 compares at most,
     * once per turn. */
    int i = 0;
    while (i < LOOPSTAT_TURN_BOUNDS && ns > loopstat_turn_bounds_ns[i])
        i++;
    ls->turn_le[i]++;
}

static void on_prepare(uv_prepare_t *p)
{
    struct loopstat *ls = p->data;
    uint64_t wall = uv_hrtime(), idle = uv_metrics_idle_time(ls->loop);
    if (ls->primed) {
        uint64_t dw = wall - ls->last_wall, di = idle - ls->last_idle;
        uint64_t busy = dw > di ? dw - di : 0; /* the clocks are read apart: never negative */
        loopstat_turn_add(ls, busy);
        ls->wall_total += dw;
    }
    ls->last_wall = wall;
    ls->last_idle = idle;
    ls->primed = 1;
}

int loopstat_start(struct loopstat *ls, uv_loop_t *loop)
{
    /* Reset the loop's side only: storage may have added to its histograms
     * already (they start zeroed with ls, a static or calloc'd struct). */
    memset(&ls->iter, 0, sizeof ls->iter);
    memset(ls->turn_le, 0, sizeof ls->turn_le);
    ls->loop = loop;
    ls->last_wall = ls->last_idle = ls->busy_total = ls->wall_total = 0;
    ls->primed = ls->running = 0;
    int rc = uv_loop_configure(loop, UV_METRICS_IDLE_TIME);
    if (rc != 0)
        return rc;
    rc = uv_prepare_init(loop, &ls->prep);
    if (rc != 0)
        return rc;
    ls->prep.data = ls;
    uv_prepare_start(&ls->prep, on_prepare); /* cannot fail once initialised */
    /* A measurement must not keep the loop running when nothing else does. */
    uv_unref((uv_handle_t *)&ls->prep);
    ls->running = 1;
    return 0;
}

void loopstat_stop(struct loopstat *ls)
{
    if (!ls->running)
        return;
    ls->running = 0;
    uv_close((uv_handle_t *)&ls->prep, NULL);
}

static double us(uint64_t ns)
{
    return (double)ns / 1000.0;
}

/* ,"p50_us":X,"p99_us":X,"max_us":X,"mean_us":X with a key prefix. */
static int hist_json(char *out, size_t size, const char *prefix, const struct loopstat_hist *h)
{
    double mean = h->count > 0 ? (double)h->sum / (double)h->count : 0;
    return snprintf(out, size,
                    "\"%sp50_us\":%.1f,\"%sp99_us\":%.1f,\"%smax_us\":%.1f,\"%smean_us\":%.1f",
                    prefix, us(loopstat_hist_quantile(h, 0.50)), prefix,
                    us(loopstat_hist_quantile(h, 0.99)), prefix, us(h->max), prefix, mean / 1000.0);
}

char *loopstat_json(const struct loopstat *ls)
{
    /* Three objects of a few numbers each: their size is bounded well below this. */
    enum { PART = 256, SIZE = 1024 };
    char loop[PART], sloop[PART], scommit[PART];
    hist_json(loop, sizeof loop, "busy_", &ls->iter);
    hist_json(sloop, sizeof sloop, "", &ls->store_loop);
    hist_json(scommit, sizeof scommit, "", &ls->store_commit);
    double ratio = ls->wall_total > 0 ? (double)ls->busy_total / (double)ls->wall_total : 0;
    char *out = mem_alloc(SIZE);
    snprintf(out, SIZE,
             "{\"loop\":{\"iterations\":%llu,%s,\"busy_ratio\":%.4f},"
             "\"store_loop\":{\"count\":%llu,%s},"
             "\"store_commit\":{\"count\":%llu,%s}}",
             (unsigned long long)ls->iter.count, loop, ratio,
             (unsigned long long)ls->store_loop.count, sloop,
             (unsigned long long)ls->store_commit.count, scommit);
    return out;
}

/* " p50 X us, p99 X us, max X us (N)" of one storage histogram. */
static void hist_line(char *out, size_t size, const struct loopstat_hist *h)
{
    snprintf(out, size, "p50 %.1f us, p99 %.1f us, max %.1f us (%llu)",
             us(loopstat_hist_quantile(h, 0.50)), us(loopstat_hist_quantile(h, 0.99)), us(h->max),
             (unsigned long long)h->count);
}

void loopstat_summary(const struct loopstat *ls, char *out, size_t size)
{
    char sloop[128], scommit[128];
    hist_line(sloop, sizeof sloop, &ls->store_loop);
    hist_line(scommit, sizeof scommit, &ls->store_commit);
    double ratio = ls->wall_total > 0 ? (double)ls->busy_total / (double)ls->wall_total : 0;
    snprintf(out, size,
             "loop: %llu turns, busy p50 %.1f us, p99 %.1f us, max %.1f us (%.1f%% busy); "
             "store_loop: %s; store_commit: %s",
             (unsigned long long)ls->iter.count, us(loopstat_hist_quantile(&ls->iter, 0.50)),
             us(loopstat_hist_quantile(&ls->iter, 0.99)), us(ls->iter.max), 100.0 * ratio, sloop,
             scommit);
}
