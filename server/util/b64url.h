/* b64url.h: base64url without padding (RFC 4648 section 5), the alphabet of
 * Web Push keys, JWTs and push subscriptions. Pure functions. */
#ifndef CARCD_UTIL_B64URL_H
#define CARCD_UTIL_B64URL_H

#include <stddef.h>
#include <stdint.h>

/* Characters b64url_encode writes for n bytes (without the NUL). */
#define B64URL_LEN(n) (((n) / 3) * 4 + ((n) % 3 == 0 ? 0 : (n) % 3 + 1))

/* in[0..n) as base64url into out (size includes the NUL): the length
 * written, or -1 (out untouched) when it does not fit. */
int b64url_encode(const uint8_t *in, size_t n, char *out, size_t size);

/* The NUL-terminated text s decoded into out: the number of bytes, or -1 when
 * s is not base64url (a character outside the alphabet, "=" padding is
 * accepted at the end only, a length of 1 mod 4, non-zero trailing bits) or
 * out is too small. Standard base64's '+' and '/' are refused. */
int b64url_decode(const char *s, uint8_t *out, size_t size);

#endif
