/* rand.h: secrets and identifiers from the operating system's randomness
 * (getrandom(2)); never from the engine's seeded PRNG. */
#ifndef CARCD_RAND_H
#define CARCD_RAND_H

#include <stddef.h>
#include <stdint.h>

#define RAND_ROOM_LEN 8   /* room id: 8 base62 characters (~47.6 bits) */
#define RAND_TOKEN_LEN 32 /* seat token: 128 bits as 32 lowercase hex digits */

/* Fill buf with n random bytes. Aborts if the kernel cannot provide them
 * (getrandom only fails that way on broken systems). */
void rand_bytes(void *buf, size_t n);

/* out[RAND_ROOM_LEN + 1]: a room id, uniform over base62 (no modulo bias). */
void rand_room_id(char *out);

/* out[RAND_TOKEN_LEN + 1]: a seat token. */
void rand_token(char *out);

uint64_t rand_u64(void);

#endif
