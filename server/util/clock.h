/* clock.h: the server's one wall clock, and a monotonic one for code off the
 * loop.
 *
 * Wall time is for what people and records read (log lines, chat times, the
 * turn's start in the state, a room's last update). Durations and timeouts
 * use the loop's monotonic clock (uv_now, uv_hrtime) instead: the wall clock
 * jumps when the host's time is set. */
#ifndef CARCD_UTIL_CLOCK_H
#define CARCD_UTIL_CLOCK_H

#include <stdint.h>

/* Milliseconds since the Unix epoch (CLOCK_REALTIME). */
int64_t clock_wall_ms(void);
/* Milliseconds of CLOCK_MONOTONIC: durations where no loop's uv_now is at
 * hand (another thread, or code below the loop). */
int64_t clock_mono_ms(void);

#endif
