/* sha256.h: SHA-256 (FIPS 180-4): seat tokens and room passwords kept in
 * storage as hashes only, and the fair draw's commitment and seed (fair.h).
 * Pure computation, so it lives in the engine library that every tool links. */
#ifndef CARCD_SHA256_H
#define CARCD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_HEX (SHA256_LEN * 2 + 1) /* lowercase hex, NUL included */

/* out[SHA256_LEN] = SHA-256 of data[0..len). */
void sha256(const void *data, size_t len, uint8_t out[SHA256_LEN]);

/* hex[SHA256_HEX] = the digest of a NUL-terminated string, as lowercase hex. */
void sha256_hex(const char *text, char hex[SHA256_HEX]);

#endif
