/* memtrim.c: see memtrim.h. */
#include "util/memtrim.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

void memtrim_init(struct memtrim *m)
{
    m->peak = 0;
    m->last_live = 0;
    m->dropped = 0;
    m->changed_ms = 0;
    m->last_ms = 0;
    m->min_drop = 16;
    m->interval_ms = 10000;
    m->trims = 0;
    m->busy = 0;
}

int memtrim_due(struct memtrim *m, int live, uint64_t now)
{
    if (live > m->peak)
        m->peak = live;
    if (live < m->last_live) {
        m->dropped += m->last_live - live;
        m->changed_ms = now;
    }
    m->last_live = live;
    int big = m->peak - live >= m->min_drop;
    int settled = m->dropped > 0 && now - m->changed_ms >= m->interval_ms;
    if (!big && !settled)
        return 0;
    if (m->trims > 0 && now - m->last_ms < m->interval_ms)
        return 0;
    m->peak = live;
    m->dropped = 0;
    m->last_ms = now;
    m->trims++;
    return 1;
}

static void on_trim(uv_work_t *w)
{
    (void)w;
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

static void on_after_trim(uv_work_t *w, int status)
{
    (void)status;
    ((struct memtrim *)w->data)->busy = 0;
}

void memtrim_run(struct memtrim *m, uv_loop_t *loop)
{
    if (m->busy)
        return;
    m->work.data = m;
    m->busy = uv_queue_work(loop, &m->work, on_trim, on_after_trim) == 0;
}
