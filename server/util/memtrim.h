/* memtrim.h: give memory freed by closed rooms and connections back to the
 * system. glibc keeps freed heap pages mapped, so after a busy hour a quiet
 * server would keep its peak RSS for good; malloc_trim(0) returns them.
 *
 * The trim walks the free lists and takes the allocator's locks, so it runs
 * on libuv's thread pool, never on the loop, and only when something big was
 * freed: when the number of rooms plus sessions has dropped by at least
 * `min_drop` below the highest count seen since the last trim, at most once
 * per `interval_ms`; and once more when the count has fallen at all since
 * the last trim and then stayed still for `interval_ms` (a settle trim: what
 * was freed after a trim, say the last rooms of a crowd that left, is given
 * back once things are quiet, not only at the next big drop). The caller (main.c's once-a-second
 * tick) passes the counts to memtrim_due, a plain-data decision testable without a loop, and then
 * starts memtrim_run (after the store let go of its cache). Owned by the server struct; it must
 * outlive a trim in flight (the loop's end). */
#ifndef CARCD_MEMTRIM_H
#define CARCD_MEMTRIM_H

#include <stdint.h>
#include <uv.h>

struct memtrim {
    int peak;             /* highest count since the last trim */
    int last_live;        /* the count at the previous call */
    int dropped;          /* what it fell by since the last trim, drop by drop */
    uint64_t changed_ms;  /* when it last fell */
    uint64_t last_ms;     /* when it last trimmed */
    int min_drop;         /* default 16 */
    uint64_t interval_ms; /* default 10000 */
    unsigned long trims;  /* how many times it was due */
    uv_work_t work;       /* the trim on the thread pool */
    int busy;
};

void memtrim_init(struct memtrim *m);

/* Note the live count (rooms, sessions, address entries) at time now.
 * Returns 1 when it is time to trim (and records it), 0 otherwise. */
int memtrim_due(struct memtrim *m, int live, uint64_t now);

/* malloc_trim(0) on loop's thread pool (nothing off glibc); a no-op while
 * one is in flight. */
void memtrim_run(struct memtrim *m, uv_loop_t *loop);

#endif
