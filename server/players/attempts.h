/* attempts.h: how many sign-ins failed lately, per key (an address, an
 * account), in a table of fixed size: the memory an attacker can make carcd
 * spend is bounded whatever the number of keys.
 *
 * A key may try while it has fewer than `max` failures in the current window
 * of `window_ms`; a window starts at its first failure. Keys are hashed with a
 * random key (SipHash), so nobody can choose names that share a slot; when
 * all four slots a key may use are taken, the one whose window started
 * first gives way. Loop thread only; owned by its creator. */
#ifndef CARCD_PLAYERS_ATTEMPTS_H
#define CARCD_PLAYERS_ATTEMPTS_H

#include <stdint.h>

struct attempts;

/* A table of `slots` (rounded up to a power of two, at least 4). NULL only if
 * account_crypto_init was not called. */
struct attempts *attempts_new(int slots, int max, int64_t window_ms);
void attempts_free(struct attempts *a);

/* 0 if `key` may try now; otherwise the milliseconds until it may. */
int64_t attempts_wait_ms(struct attempts *a, const char *key, int64_t now_ms);

/* A failed try of `key` at now_ms. */
void attempts_fail(struct attempts *a, const char *key, int64_t now_ms);

/* A successful sign-in forgets the key's failures. */
void attempts_clear(struct attempts *a, const char *key);

#endif
