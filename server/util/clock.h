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

/* Milliseconds since the Unix epoch (CLOCK_REALTIME), plus the test offset. */
int64_t clock_wall_ms(void);
/* Milliseconds of CLOCK_MONOTONIC: durations where no loop's uv_now is at
 * hand (another thread, or code below the loop). */
int64_t clock_mono_ms(void);

/* The test clock (setting test-clock, tests only): the wall clock and the
 * loop's clock as the lobby reads it (stall_now) both run ms ahead from now
 * on, so that tests see days pass on correspondence clocks. The server
 * only moves it forward (unit tests also set the wall clock back); any
 * thread. 0 unless moved. */
void clock_test_advance(int64_t ms);
int64_t clock_test_offset(void);

#endif
