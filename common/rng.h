/* rng.h: the engine's seeded PRNG (xoshiro256** seeded through splitmix64).
 * Plain value, owned by whoever embeds it; same seed, same sequence on every platform. */
#ifndef CARC_RNG_H
#define CARC_RNG_H

#include <stdint.h>

struct carc_rng {
    uint64_t s[4];
};

void carc_rng_seed(struct carc_rng *r, uint64_t seed);
uint64_t carc_rng_next(struct carc_rng *r);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint32_t carc_rng_below(struct carc_rng *r, uint32_t n);

#endif
