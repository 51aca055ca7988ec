/* vapid.c: see vapid.h. */
#include "notify/vapid.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "notify/ec.h"
#include "util/b64url.h"
#include "util/mem.h"

#define PEM_MAX 4096

struct vapid {
    EVP_PKEY *key;
    uint8_t pub[VAPID_PUBLIC_BYTES];
    char pub_b64[VAPID_PUBLIC_B64_LEN + 1];
};

static struct vapid *wrap(EVP_PKEY *k)
{
    struct vapid *v = mem_zalloc(1, sizeof *v);
    v->key = k;
    if (ec_public_get(k, v->pub) != 0 ||
        b64url_encode(v->pub, sizeof v->pub, v->pub_b64, sizeof v->pub_b64) < 0) {
        vapid_free(v);
        return NULL;
    }
    return v;
}

struct vapid *vapid_generate(void)
{
    EVP_PKEY *k = ec_pair_new();
    return k != NULL ? wrap(k) : NULL;
}

struct vapid *vapid_from_pem(const char *pem, size_t len, char *err, size_t errlen)
{
    BIO *b = BIO_new_mem_buf(pem, (int)len);
    EVP_PKEY *k = b != NULL ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    if (k == NULL) {
        snprintf(err, errlen, "not a PEM private key");
        return NULL;
    }
    if (!ec_is_p256(k)) {
        EVP_PKEY_free(k);
        snprintf(err, errlen, "not a P-256 (prime256v1) key");
        return NULL;
    }
    struct vapid *v = wrap(k);
    if (v == NULL)
        snprintf(err, errlen, "the key has no usable public point");
    return v;
}

int vapid_pem(const struct vapid *v, char *out, size_t size)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *data = NULL;
    long n = -1;
    if (b != NULL && PEM_write_bio_PrivateKey(b, v->key, NULL, NULL, 0, NULL, NULL) == 1)
        n = BIO_get_mem_data(b, &data);
    int rc = -1;
    if (n > 0 && (size_t)n < size) {
        memcpy(out, data, (size_t)n);
        out[n] = '\0';
        rc = (int)n;
    }
    BIO_free(b); /* a memory BIO cleans its buffer when freed */
    return rc;
}

/* Write pem to path through path.tmp: 0, or -1 with err set. */
static int pem_write(const char *path, const char *pem, size_t len, char *err, size_t errlen)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    int ok = write(fd, pem, len) == (ssize_t)len && fsync(fd) == 0;
    int saved = errno;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", ok ? path : tmp, strerror(ok ? errno : saved));
        unlink(tmp);
        return -1;
    }
    return 0;
}

struct vapid *vapid_load(const char *path, int *made, char *err, size_t errlen)
{
    *made = 0;
    char pem[PEM_MAX];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, pem, sizeof pem - 1);
        int saved = errno;
        close(fd);
        if (n < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(saved));
            return NULL;
        }
        char why[128];
        struct vapid *v = vapid_from_pem(pem, (size_t)n, why, sizeof why);
        if (v == NULL)
            snprintf(err, errlen, "%s: %s", path, why);
        return v;
    }
    if (errno != ENOENT) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct vapid *v = vapid_generate();
    int n = v != NULL ? vapid_pem(v, pem, sizeof pem) : -1;
    if (n < 0) {
        snprintf(err, errlen, "could not make a P-256 key pair");
        vapid_free(v);
        return NULL;
    }
    if (pem_write(path, pem, (size_t)n, err, errlen) != 0) {
        vapid_free(v);
        v = NULL;
    } else {
        *made = 1;
    }
    memset(pem, 0, sizeof pem);
    return v;
}

const uint8_t *vapid_public(const struct vapid *v)
{
    return v->pub;
}

const char *vapid_public_b64(const struct vapid *v)
{
    return v->pub_b64;
}

/* Whether s can go into a JSON string as it is. */
static int json_plain(const char *s)
{
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 || *s == '"' || *s == '\\')
            return 0;
    return 1;
}

/* ES256 of data: the raw r || s into sig. 0, or -1. */
static int sign(EVP_PKEY *k, const char *data, size_t len, uint8_t sig[64])
{
    uint8_t der[80];
    size_t dlen = sizeof der;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md != NULL && EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, k) == 1 &&
             EVP_DigestSign(md, der, &dlen, (const uint8_t *)data, len) == 1;
    EVP_MD_CTX_free(md);
    if (!ok)
        return -1;
    const uint8_t *p = der;
    ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)dlen);
    if (es == NULL)
        return -1;
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(es, &r, &s);
    ok = BN_bn2binpad(r, sig, 32) == 32 && BN_bn2binpad(s, sig + 32, 32) == 32;
    ECDSA_SIG_free(es);
    return ok ? 0 : -1;
}

int vapid_header(const struct vapid *v, const char *aud, long long exp, const char *sub, char *out,
                 size_t size)
{
    static const char header[] = "{\"typ\":\"JWT\",\"alg\":\"ES256\"}";
    char claims[600], jwt[VAPID_TOKEN_MAX];
    if (!json_plain(aud) || !json_plain(sub))
        return -1;
    int n = snprintf(claims, sizeof claims, "{\"aud\":\"%s\",\"exp\":%lld,\"sub\":\"%s\"}", aud,
                     exp, sub);
    if (n < 0 || (size_t)n >= sizeof claims)
        return -1;
    int h = b64url_encode((const uint8_t *)header, sizeof header - 1, jwt, sizeof jwt);
    if (h < 0 || (size_t)h + 1 >= sizeof jwt)
        return -1;
    jwt[h] = '.';
    int c =
        b64url_encode((const uint8_t *)claims, (size_t)n, jwt + h + 1, sizeof jwt - (size_t)h - 1);
    if (c < 0)
        return -1;
    size_t signed_len = (size_t)h + 1 + (size_t)c;
    uint8_t sig[64];
    if (signed_len + 2 + B64URL_LEN(64) > sizeof jwt || sign(v->key, jwt, signed_len, sig) != 0)
        return -1;
    jwt[signed_len] = '.';
    b64url_encode(sig, sizeof sig, jwt + signed_len + 1, sizeof jwt - signed_len - 1);
    n = snprintf(out, size, "vapid t=%s, k=%s", jwt, v->pub_b64);
    return n < 0 || (size_t)n >= size ? -1 : n;
}

void vapid_free(struct vapid *v)
{
    if (v == NULL)
        return;
    EVP_PKEY_free(v->key);
    free(v);
}
