/* webpush.c: see webpush.h. The steps and names follow RFC 8291 section 3.4
 * (HKDF written out as its two HMACs: each output here is one block). */
#include "notify/webpush.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <string.h>

#include "notify/ec.h"
#include "util/status.h"

#define SHA256_BYTES 32

/* HMAC-SHA-256 of a || b (b may be NULL) with key: 0, or -1. */
static int hmac2(const uint8_t *key, size_t klen, const uint8_t *a, size_t alen, const uint8_t *b,
                 size_t blen, uint8_t out[SHA256_BYTES])
{
    uint8_t buf[256];
    if (alen + blen > sizeof buf)
        return -1;
    memcpy(buf, a, alen);
    if (blen > 0)
        memcpy(buf + alen, b, blen);
    unsigned int len = 0;
    int ok = HMAC(EVP_sha256(), key, (int)klen, buf, alen + blen, out, &len) != NULL &&
             len == SHA256_BYTES;
    OPENSSL_cleanse(buf, sizeof buf);
    return ok ? 0 : -1;
}

/* HKDF-Expand's first block: HMAC(prk, info || 0x01). */
static int expand1(const uint8_t prk[SHA256_BYTES], const uint8_t *info, size_t ilen,
                   uint8_t out[SHA256_BYTES])
{
    static const uint8_t one = 1;
    return hmac2(prk, SHA256_BYTES, info, ilen, &one, 1, out);
}

/* The shared secret of ours and theirs (32 bytes): 0, or -1. */
static int ecdh(EVP_PKEY *ours, EVP_PKEY *theirs, uint8_t secret[32])
{
    size_t len = 32;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, ours, NULL);
    int ok = ctx != NULL && EVP_PKEY_derive_init(ctx) == 1 &&
             EVP_PKEY_derive_set_peer(ctx, theirs) == 1 &&
             EVP_PKEY_derive(ctx, secret, &len) == 1 && len == 32;
    EVP_PKEY_CTX_free(ctx);
    return ok ? 0 : -1;
}

/* AES-128-GCM of in[0..n) with key and nonce, the tag after the text. */
static int seal(const uint8_t key[16], const uint8_t nonce[12], const uint8_t *in, size_t n,
                uint8_t *out)
{
    int len = 0, fin = 0;
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int ok = c != NULL && EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), NULL, NULL, NULL) == 1 &&
             EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
             EVP_EncryptInit_ex(c, NULL, NULL, key, nonce) == 1 &&
             EVP_EncryptUpdate(c, out, &len, in, (int)n) == 1 &&
             EVP_EncryptFinal_ex(c, out + len, &fin) == 1 && (size_t)(len + fin) == n &&
             EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, WEBPUSH_TAG_BYTES, out + n) == 1;
    EVP_CIPHER_CTX_free(c);
    return ok ? 0 : -1;
}

/* The content key and nonce of a message (RFC 8291 3.4, RFC 8188 2.2). */
static int keys_derive(const uint8_t secret[32], const uint8_t auth[WEBPUSH_AUTH_BYTES],
                       const uint8_t ua_public[WEBPUSH_POINT_BYTES],
                       const uint8_t as_public[WEBPUSH_POINT_BYTES],
                       const uint8_t salt[WEBPUSH_SALT_BYTES], uint8_t cek[16], uint8_t nonce[12])
{
    static const char key_label[] = "WebPush: info"; /* its NUL is part of key_info */
    static const char cek_info[] = "Content-Encoding: aes128gcm";
    static const char nonce_info[] = "Content-Encoding: nonce";
    uint8_t prk_key[SHA256_BYTES], ikm[SHA256_BYTES], prk[SHA256_BYTES], t[SHA256_BYTES];
    uint8_t key_info[sizeof key_label + 2 * WEBPUSH_POINT_BYTES];
    memcpy(key_info, key_label, sizeof key_label);
    memcpy(key_info + sizeof key_label, ua_public, WEBPUSH_POINT_BYTES);
    memcpy(key_info + sizeof key_label + WEBPUSH_POINT_BYTES, as_public, WEBPUSH_POINT_BYTES);
    int rc = -1;
    if (hmac2(auth, WEBPUSH_AUTH_BYTES, secret, 32, NULL, 0, prk_key) != 0 ||
        expand1(prk_key, key_info, sizeof key_info, ikm) != 0 ||
        hmac2(salt, WEBPUSH_SALT_BYTES, ikm, SHA256_BYTES, NULL, 0, prk) != 0 ||
        expand1(prk, (const uint8_t *)cek_info, sizeof cek_info, t) != 0)
        goto out;
    memcpy(cek, t, 16);
    if (expand1(prk, (const uint8_t *)nonce_info, sizeof nonce_info, t) != 0)
        goto out;
    memcpy(nonce, t, 12);
    rc = 0;
out:
    OPENSSL_cleanse(prk_key, sizeof prk_key);
    OPENSSL_cleanse(ikm, sizeof ikm);
    OPENSSL_cleanse(prk, sizeof prk);
    OPENSSL_cleanse(t, sizeof t);
    return rc;
}

/* The sender's key pair and salt: the fixed ones, or fresh. */
static EVP_PKEY *sender_make(const struct webpush_sender *fixed, uint8_t as_public[65],
                             uint8_t salt[WEBPUSH_SALT_BYTES], int *status)
{
    EVP_PKEY *k;
    if (fixed != NULL) {
        k = ec_pair_from(fixed->private_key, fixed->public_key);
        *status = k == NULL ? WEBPUSH_E_KEY : 0;
        if (k != NULL) {
            memcpy(as_public, fixed->public_key, WEBPUSH_POINT_BYTES);
            memcpy(salt, fixed->salt, WEBPUSH_SALT_BYTES);
        }
        return k;
    }
    k = ec_pair_new();
    if (k == NULL || ec_public_get(k, as_public) != 0 ||
        RAND_bytes(salt, WEBPUSH_SALT_BYTES) != 1) {
        EVP_PKEY_free(k);
        *status = WEBPUSH_E_CRYPTO;
        return NULL;
    }
    *status = 0;
    return k;
}

int webpush_encrypt(const uint8_t ua_public[WEBPUSH_POINT_BYTES],
                    const uint8_t auth[WEBPUSH_AUTH_BYTES], const void *plain, size_t len,
                    const struct webpush_sender *sender, uint8_t *out, size_t size, size_t *outlen)
{
    if (len > WEBPUSH_PAYLOAD_MAX || size < WEBPUSH_BODY_BYTES(len))
        return WEBPUSH_E_SIZE;
    EVP_PKEY *ua = ec_public_from(ua_public);
    if (ua == NULL)
        return WEBPUSH_E_KEY;
    uint8_t as_public[WEBPUSH_POINT_BYTES], salt[WEBPUSH_SALT_BYTES];
    int rc = 0;
    EVP_PKEY *as = sender_make(sender, as_public, salt, &rc);
    if (as == NULL) {
        EVP_PKEY_free(ua);
        return rc;
    }
    uint8_t secret[32], cek[16], nonce[12];
    uint8_t record[WEBPUSH_PAYLOAD_MAX + 1];
    rc = WEBPUSH_E_CRYPTO;
    if (ecdh(as, ua, secret) != 0 ||
        keys_derive(secret, auth, ua_public, as_public, salt, cek, nonce) != 0)
        goto out;
    /* The header: salt, rs (big-endian), idlen, keyid. */
    uint8_t *h = out;
    memcpy(h, salt, WEBPUSH_SALT_BYTES);
    h += WEBPUSH_SALT_BYTES;
    *h++ = WEBPUSH_RECORD >> 24 & 0xff;
    *h++ = WEBPUSH_RECORD >> 16 & 0xff;
    *h++ = WEBPUSH_RECORD >> 8 & 0xff;
    *h++ = WEBPUSH_RECORD & 0xff;
    *h++ = WEBPUSH_POINT_BYTES;
    memcpy(h, as_public, WEBPUSH_POINT_BYTES);
    /* One record, the last: the text, then the delimiter 0x02, no padding. */
    if (len > 0)
        memcpy(record, plain, len);
    record[len] = 0x02;
    if (seal(cek, nonce, record, len + 1, out + WEBPUSH_HEADER_BYTES) != 0)
        goto out;
    *outlen = WEBPUSH_BODY_BYTES(len);
    rc = 0;
out:
    OPENSSL_cleanse(secret, sizeof secret);
    OPENSSL_cleanse(cek, sizeof cek);
    OPENSSL_cleanse(record, len + 1);
    EVP_PKEY_free(as);
    EVP_PKEY_free(ua);
    return rc;
}
