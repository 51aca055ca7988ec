/* ec.h: P-256 keys from and to raw bytes over OpenSSL 3's EVP API, shared by
 * webpush.c and vapid.c. Internal to notify/. */
#ifndef CARCD_NOTIFY_EC_H
#define CARCD_NOTIFY_EC_H

#include <openssl/evp.h>
#include <stdint.h>

/* A public key from an uncompressed point (65 bytes), checked to be on the
 * curve; NULL when it is not one. The caller frees it (EVP_PKEY_free). */
EVP_PKEY *ec_public_from(const uint8_t point[65]);
/* A key pair from its private scalar (32 bytes, big-endian) and public
 * point; NULL when they are not a valid pair. */
EVP_PKEY *ec_pair_from(const uint8_t priv[32], const uint8_t point[65]);
/* A fresh key pair, or NULL. */
EVP_PKEY *ec_pair_new(void);
/* k's public point into point (65 bytes): 0, or -1. */
int ec_public_get(EVP_PKEY *k, uint8_t point[65]);
/* Whether k is a key of P-256 ("prime256v1"). */
int ec_is_p256(EVP_PKEY *k);

#endif
