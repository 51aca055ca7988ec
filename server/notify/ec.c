/* ec.c: see ec.h. */
#include "notify/ec.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <string.h>

#define GROUP "prime256v1"

static EVP_PKEY *from_params(const uint8_t *priv, const uint8_t point[65])
{
    EVP_PKEY *k = NULL;
    BIGNUM *d = NULL;
    OSSL_PARAM *params = NULL;
    OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (b == NULL || ctx == NULL)
        goto out;
    if (!OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_GROUP_NAME, GROUP, 0) ||
        !OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, point, 65))
        goto out;
    if (priv != NULL) {
        d = BN_bin2bn(priv, 32, NULL);
        if (d == NULL || !OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PRIV_KEY, d))
            goto out;
    }
    params = OSSL_PARAM_BLD_to_param(b);
    if (params == NULL || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &k, priv != NULL ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) <=
            0) {
        k = NULL;
        goto out;
    }
    /* fromdata takes the bytes as given: check the point (and the pair). */
    EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, k, NULL);
    int ok = check != NULL &&
             (priv != NULL ? EVP_PKEY_pairwise_check(check) : EVP_PKEY_public_check(check)) == 1;
    EVP_PKEY_CTX_free(check);
    if (!ok) {
        EVP_PKEY_free(k);
        k = NULL;
    }
out:
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(b);
    BN_clear_free(d);
    EVP_PKEY_CTX_free(ctx);
    return k;
}

EVP_PKEY *ec_public_from(const uint8_t point[65])
{
    if (point[0] != 0x04) /* only the uncompressed form is a subscription's key */
        return NULL;
    return from_params(NULL, point);
}

EVP_PKEY *ec_pair_from(const uint8_t priv[32], const uint8_t point[65])
{
    if (point[0] != 0x04)
        return NULL;
    return from_params(priv, point);
}

EVP_PKEY *ec_pair_new(void)
{
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", GROUP);
}

int ec_public_get(EVP_PKEY *k, uint8_t point[65])
{
    size_t len = 0;
    /* EC keys encode their public point uncompressed unless told otherwise. */
    if (EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_PUB_KEY, point, 65, &len) != 1 ||
        len != 65 || point[0] != 0x04)
        return -1;
    return 0;
}

int ec_is_p256(EVP_PKEY *k)
{
    char name[32];
    size_t len = 0;
    return EVP_PKEY_is_a(k, "EC") &&
           EVP_PKEY_get_utf8_string_param(k, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &len) ==
               1 &&
           strcmp(name, GROUP) == 0;
}
