/* webpush.h: the message encryption of Web Push (RFC 8291: ECDH on P-256, HKDF
 * with the subscription's auth secret, one aes128gcm record of RFC 8188).
 *
 * Pure computation over OpenSSL's libcrypto: no I/O, no clock, no shared
 * state, so it is safe on any thread (carcd calls it on the thread pool,
 * never on the loop: an ECDH costs about 0.1 ms). Signing the request (VAPID,
 * RFC 8292) is vapid.h's job. */
#ifndef CARCD_NOTIFY_WEBPUSH_H
#define CARCD_NOTIFY_WEBPUSH_H

#include <stddef.h>
#include <stdint.h>

#define WEBPUSH_POINT_BYTES 65 /* an uncompressed P-256 point: 0x04, x, y */
#define WEBPUSH_AUTH_BYTES 16  /* a subscription's auth secret */
#define WEBPUSH_SALT_BYTES 16
#define WEBPUSH_PRIVATE_BYTES 32
#define WEBPUSH_TAG_BYTES 16
#define WEBPUSH_RECORD 4096 /* the record size written in the header (rs) */
/* salt, rs, idlen, keyid (the sender's public point) */
#define WEBPUSH_HEADER_BYTES (WEBPUSH_SALT_BYTES + 4 + 1 + WEBPUSH_POINT_BYTES)
/* Push services take bodies of up to 4096 bytes: header, payload, the padding
 * delimiter and the tag. */
#define WEBPUSH_PAYLOAD_MAX (4096 - WEBPUSH_HEADER_BYTES - 1 - WEBPUSH_TAG_BYTES)
/* The body of a payload of n bytes. */
#define WEBPUSH_BODY_BYTES(n) (WEBPUSH_HEADER_BYTES + (n) + 1 + WEBPUSH_TAG_BYTES)

/* The sender's side of one message. webpush_encrypt makes a fresh one for
 * every message; tests pass a fixed one to reproduce RFC 8291's example. */
struct webpush_sender {
    uint8_t private_key[WEBPUSH_PRIVATE_BYTES];
    uint8_t public_key[WEBPUSH_POINT_BYTES];
    uint8_t salt[WEBPUSH_SALT_BYTES];
};

/* Encrypt plain[0..len) for the subscription whose keys are ua_public (its
 * "p256dh") and auth (its "auth"), into out (size bytes): the whole request
 * body, WEBPUSH_BODY_BYTES(len) bytes, its length in *outlen. sender: NULL
 * for a fresh key pair and salt (the normal case), or fixed values.
 * 0, or WEBPUSH_E_KEY (ua_public is not a point of P-256, or the sender's
 * key pair does not match), WEBPUSH_E_SIZE (len > WEBPUSH_PAYLOAD_MAX or
 * out too small), WEBPUSH_E_CRYPTO (libcrypto failed; out's content is then
 * undefined). */
int webpush_encrypt(const uint8_t ua_public[WEBPUSH_POINT_BYTES],
                    const uint8_t auth[WEBPUSH_AUTH_BYTES], const void *plain, size_t len,
                    const struct webpush_sender *sender, uint8_t *out, size_t size, size_t *outlen);

#endif
