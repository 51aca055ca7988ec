/* clock.c: see clock.h. */
#include "util/clock.h"

#include <stdatomic.h>
#include <time.h>

/* The one process-wide setting of util/: tests' time travel (clock.h). */
static _Atomic int64_t test_offset;

void clock_test_advance(int64_t ms)
{
    atomic_fetch_add(&test_offset, ms);
}

int64_t clock_test_offset(void)
{
    return atomic_load(&test_offset);
}

int64_t clock_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + atomic_load(&test_offset);
}

int64_t clock_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
