/* test_webpush.c: Web Push's cryptography (server/notify/webpush.h, vapid.h)
 * and base64url (util/b64url.h).
 *
 * The encryption must give RFC 8291's worked example (Appendix A) byte for
 * byte; a message made with a fresh key pair and salt must open with the
 * receiver's keys, decrypted here as a browser does (RFC 8291 3.4, RFC 8188),
 * through OpenSSL's HKDF rather than the module's own HMACs, so a mistake in
 * both derivations cannot hide. VAPID tokens are verified with the public key
 * alone, and their claims read back. */
#include <check.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "notify/ec.h"
#include "notify/vapid.h"
#include "notify/webpush.h"
#include "tests.h"
#include "util/b64url.h"
#include "util/status.h"

/* RFC 8291, Appendix A. */
static const char rfc_plain[] = "When I grow up, I want to be a watermelon";
static const char rfc_as_private[] = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
static const char rfc_as_public[] =
    "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
static const char rfc_ua_private[] = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
static const char rfc_ua_public[] =
    "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
static const char rfc_salt[] = "DGv6ra1nlYgDCS1FRnbzlw";
static const char rfc_auth[] = "BTBZMqHH6r4Tts7J_aSIgg";
static const char rfc_body[] =
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_"
    "c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6Tlz"
    "AC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-"
    "fN";

static void dec(const char *s, uint8_t *out, size_t n)
{
    ck_assert_int_eq(b64url_decode(s, out, n), (int)n);
}

/* ---- base64url ---- */

START_TEST(b64url_round_trips)
{
    uint8_t in[70], back[70];
    char text[128];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(i * 37 + 11);
    for (size_t n = 0; n <= sizeof in; n++) {
        int len = b64url_encode(in, n, text, sizeof text);
        ck_assert_int_eq(len, (int)B64URL_LEN(n));
        ck_assert_uint_eq(strlen(text), (size_t)len);
        ck_assert(
            strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
            (size_t)len);
        ck_assert_int_eq(b64url_decode(text, back, sizeof back), (int)n);
        ck_assert(memcmp(in, back, n) == 0);
    }
    ck_assert_int_eq(b64url_encode((const uint8_t *)"\xfb\xff", 2, text, sizeof text), 3);
    ck_assert_str_eq(text, "-_8");
    ck_assert_int_eq(b64url_encode(in, 3, text, 4), -1); /* no room for the NUL */
}
END_TEST

START_TEST(b64url_refuses)
{
    uint8_t out[16];
    ck_assert_int_eq(b64url_decode("ab+c", out, sizeof out), -1); /* standard base64 */
    ck_assert_int_eq(b64url_decode("ab/c", out, sizeof out), -1);
    ck_assert_int_eq(b64url_decode("abcde", out, sizeof out), -1); /* 1 mod 4 */
    ck_assert_int_eq(b64url_decode("ab c", out, sizeof out), -1);
    ck_assert_int_eq(b64url_decode("aB", out, sizeof out), -1);  /* stray low bits */
    ck_assert_int_eq(b64url_decode("aA==", out, sizeof out), 1); /* padding accepted */
    ck_assert_int_eq(b64url_decode("a=A", out, sizeof out), -1); /* padding inside */
    ck_assert_int_eq(b64url_decode(rfc_auth, out, 15), -1);      /* too small */
    ck_assert_int_eq(b64url_decode("", out, sizeof out), 0);
}
END_TEST

/* ---- decryption, as a browser does ---- */

static EVP_PKEY *pair(const char *priv_b64, const char *pub_b64)
{
    uint8_t d[32], q[65];
    dec(priv_b64, d, sizeof d);
    dec(pub_b64, q, sizeof q);
    EVP_PKEY *k = ec_pair_from(d, q);
    ck_assert_ptr_nonnull(k);
    return k;
}

static void hkdf(const uint8_t *salt, size_t slen, const uint8_t *ikm, size_t ilen,
                 const uint8_t *info, size_t nlen, uint8_t *out, size_t olen)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(EVP_PKEY_derive_init(c), 1);
    ck_assert_int_eq(EVP_PKEY_CTX_set_hkdf_md(c, EVP_sha256()), 1);
    ck_assert_int_eq(EVP_PKEY_CTX_set1_hkdf_salt(c, salt, (int)slen), 1);
    ck_assert_int_eq(EVP_PKEY_CTX_set1_hkdf_key(c, ikm, (int)ilen), 1);
    ck_assert_int_eq(EVP_PKEY_CTX_add1_hkdf_info(c, info, (int)nlen), 1);
    size_t n = olen;
    ck_assert_int_eq(EVP_PKEY_derive(c, out, &n), 1);
    ck_assert_uint_eq(n, olen);
    EVP_PKEY_CTX_free(c);
}

/* The plaintext of body (its length), or -1 when it does not open. */
static int open_body(const uint8_t *body, size_t len, EVP_PKEY *ua, const uint8_t ua_pub[65],
                     const uint8_t auth[16], uint8_t *plain)
{
    ck_assert_uint_ge(len, WEBPUSH_HEADER_BYTES + 17);
    const uint8_t *salt = body;
    uint32_t rs = (uint32_t)body[16] << 24 | (uint32_t)body[17] << 16 | body[18] << 8 | body[19];
    ck_assert_uint_eq(rs, 4096);
    ck_assert_uint_eq(body[20], 65);
    const uint8_t *as_pub = body + 21;
    EVP_PKEY *as = ec_public_from(as_pub);
    ck_assert_ptr_nonnull(as);
    uint8_t secret[32];
    size_t slen = sizeof secret;
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, ua, NULL);
    ck_assert_int_eq(EVP_PKEY_derive_init(c), 1);
    ck_assert_int_eq(EVP_PKEY_derive_set_peer(c, as), 1);
    ck_assert_int_eq(EVP_PKEY_derive(c, secret, &slen), 1);
    EVP_PKEY_CTX_free(c);
    EVP_PKEY_free(as);
    uint8_t info[14 + 130], ikm[32], cek[16], nonce[12];
    memcpy(info, "WebPush: info", 14);
    memcpy(info + 14, ua_pub, 65);
    memcpy(info + 79, as_pub, 65);
    hkdf(auth, 16, secret, 32, info, sizeof info, ikm, 32);
    hkdf(salt, 16, ikm, 32, (const uint8_t *)"Content-Encoding: aes128gcm", 28, cek, 16);
    hkdf(salt, 16, ikm, 32, (const uint8_t *)"Content-Encoding: nonce", 24, nonce, 12);
    const uint8_t *ct = body + WEBPUSH_HEADER_BYTES;
    size_t n = len - WEBPUSH_HEADER_BYTES - 16;
    int out = 0, fin = 0;
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int ok = EVP_DecryptInit_ex(x, EVP_aes_128_gcm(), NULL, cek, nonce) == 1 &&
             EVP_DecryptUpdate(x, plain, &out, ct, (int)n) == 1 &&
             EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_TAG, 16, (void *)(ct + n)) == 1 &&
             EVP_DecryptFinal_ex(x, plain + out, &fin) == 1;
    EVP_CIPHER_CTX_free(x);
    if (!ok)
        return -1;
    /* The last record: the text, 0x02, then only zeros. */
    int end = out + fin;
    while (end > 0 && plain[end - 1] == 0)
        end--;
    ck_assert_int_gt(end, 0);
    ck_assert_uint_eq(plain[end - 1], 2);
    return end - 1;
}

/* ---- encryption ---- */

START_TEST(rfc8291_example)
{
    struct webpush_sender s;
    uint8_t ua_pub[65], auth[16], body[4096];
    dec(rfc_as_private, s.private_key, 32);
    dec(rfc_as_public, s.public_key, 65);
    dec(rfc_salt, s.salt, 16);
    dec(rfc_ua_public, ua_pub, 65);
    dec(rfc_auth, auth, 16);
    size_t len = 0;
    ck_assert_int_eq(
        webpush_encrypt(ua_pub, auth, rfc_plain, strlen(rfc_plain), &s, body, sizeof body, &len),
        0);
    ck_assert_uint_eq(len, WEBPUSH_BODY_BYTES(strlen(rfc_plain)));
    char text[256];
    ck_assert_int_gt(b64url_encode(body, len, text, sizeof text), 0);
    ck_assert_str_eq(text, rfc_body);
    /* And the browser's side opens it. */
    EVP_PKEY *ua = pair(rfc_ua_private, rfc_ua_public);
    uint8_t plain[4096];
    int n = open_body(body, len, ua, ua_pub, auth, plain);
    ck_assert_int_eq(n, (int)strlen(rfc_plain));
    ck_assert(memcmp(plain, rfc_plain, (size_t)n) == 0);
    EVP_PKEY_free(ua);
}
END_TEST

START_TEST(fresh_keys_open_and_differ)
{
    EVP_PKEY *ua = ec_pair_new();
    ck_assert_ptr_nonnull(ua);
    uint8_t ua_pub[65], auth[16] = "0123456789abcdef";
    ck_assert_int_eq(ec_public_get(ua, ua_pub), 0);
    static uint8_t big[WEBPUSH_PAYLOAD_MAX];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    static uint8_t a[4096], b[4096], plain[4096];
    size_t alen = 0, blen = 0;
    const char msg[] = "{\"event\":\"your_turn\",\"room\":\"AB12\"}";
    ck_assert_int_eq(webpush_encrypt(ua_pub, auth, msg, sizeof msg - 1, NULL, a, sizeof a, &alen),
                     0);
    ck_assert_int_eq(webpush_encrypt(ua_pub, auth, msg, sizeof msg - 1, NULL, b, sizeof b, &blen),
                     0);
    ck_assert_uint_eq(alen, blen);
    ck_assert(memcmp(a, b, 16) != 0);           /* a new salt */
    ck_assert(memcmp(a + 21, b + 21, 65) != 0); /* a new key pair */
    ck_assert_int_eq(open_body(a, alen, ua, ua_pub, auth, plain), (int)sizeof msg - 1);
    ck_assert(memcmp(plain, msg, sizeof msg - 1) == 0);
    /* The largest payload fills a 4096-byte body exactly; one byte more is refused. */
    ck_assert_int_eq(webpush_encrypt(ua_pub, auth, big, sizeof big, NULL, a, sizeof a, &alen), 0);
    ck_assert_uint_eq(alen, 4096);
    ck_assert_int_eq(open_body(a, alen, ua, ua_pub, auth, plain), (int)sizeof big);
    ck_assert(memcmp(plain, big, sizeof big) == 0);
    static uint8_t bigger[WEBPUSH_PAYLOAD_MAX + 1];
    ck_assert_int_eq(webpush_encrypt(ua_pub, auth, bigger, sizeof bigger, NULL, a, sizeof a, &alen),
                     WEBPUSH_E_SIZE);
    ck_assert_int_eq(webpush_encrypt(ua_pub, auth, msg, sizeof msg - 1, NULL, a, 100, &alen),
                     WEBPUSH_E_SIZE);
    /* A flipped byte, or the wrong auth secret, does not open. */
    ck_assert_int_eq(webpush_encrypt(ua_pub, auth, msg, sizeof msg - 1, NULL, a, sizeof a, &alen),
                     0);
    a[alen - 20] ^= 1;
    ck_assert_int_eq(open_body(a, alen, ua, ua_pub, auth, plain), -1);
    uint8_t other[16] = "fedcba9876543210";
    ck_assert_int_eq(webpush_encrypt(ua_pub, auth, msg, sizeof msg - 1, NULL, a, sizeof a, &alen),
                     0);
    ck_assert_int_eq(open_body(a, alen, ua, ua_pub, other, plain), -1);
    EVP_PKEY_free(ua);
}
END_TEST

START_TEST(bad_keys_refused)
{
    uint8_t ua_pub[65], auth[16], out[512];
    size_t len = 0;
    dec(rfc_ua_public, ua_pub, 65);
    dec(rfc_auth, auth, 16);
    uint8_t off[65];
    memcpy(off, ua_pub, 65);
    off[64] ^= 1; /* no longer on the curve */
    ck_assert_int_eq(webpush_encrypt(off, auth, "x", 1, NULL, out, sizeof out, &len),
                     WEBPUSH_E_KEY);
    off[64] ^= 1;
    off[0] = 0x02; /* a compressed form's tag: not what subscriptions hold */
    ck_assert_int_eq(webpush_encrypt(off, auth, "x", 1, NULL, out, sizeof out, &len),
                     WEBPUSH_E_KEY);
    uint8_t zero[65] = {4};
    ck_assert_int_eq(webpush_encrypt(zero, auth, "x", 1, NULL, out, sizeof out, &len),
                     WEBPUSH_E_KEY);
    /* A sender whose private key is not its public key's. */
    struct webpush_sender s;
    dec(rfc_ua_private, s.private_key, 32);
    dec(rfc_as_public, s.public_key, 65);
    dec(rfc_salt, s.salt, 16);
    ck_assert_int_eq(webpush_encrypt(ua_pub, auth, "x", 1, &s, out, sizeof out, &len),
                     WEBPUSH_E_KEY);
    ck_assert_str_eq(srv_status_name(WEBPUSH_E_KEY), "WEBPUSH_E_KEY");
}
END_TEST

/* ---- VAPID ---- */

/* Split "vapid t=H.C.S, k=K" and check S over "H.C" with the key K alone. */
static void token_check(const char *header, const struct vapid *v, char *claims, size_t csize)
{
    ck_assert(strncmp(header, "vapid t=", 8) == 0);
    const char *t = header + 8;
    const char *comma = strstr(t, ", k=");
    ck_assert_ptr_nonnull(comma);
    ck_assert_str_eq(comma + 4, vapid_public_b64(v));
    ck_assert_uint_eq(strlen(comma + 4), VAPID_PUBLIC_B64_LEN);
    char jwt[VAPID_TOKEN_MAX];
    size_t jlen = (size_t)(comma - t);
    memcpy(jwt, t, jlen);
    jwt[jlen] = '\0';
    char *dot1 = strchr(jwt, '.');
    char *dot2 = dot1 != NULL ? strchr(dot1 + 1, '.') : NULL;
    ck_assert_ptr_nonnull(dot2);
    *dot1 = '\0';
    uint8_t buf[600];
    int n = b64url_decode(jwt, buf, sizeof buf);
    ck_assert_int_gt(n, 0);
    ck_assert(memcmp(buf, "{\"typ\":\"JWT\",\"alg\":\"ES256\"}", (size_t)n) == 0);
    *dot1 = '.';
    *dot2 = '\0';
    n = b64url_decode(dot1 + 1, (uint8_t *)claims, csize - 1);
    ck_assert_int_gt(n, 0);
    claims[n] = '\0';
    uint8_t raw[64], k[65];
    ck_assert_int_eq(b64url_decode(dot2 + 1, raw, sizeof raw), 64);
    ck_assert_int_eq(b64url_decode(comma + 4, k, sizeof k), 65);
    /* raw r || s to DER, then verify over "H.C". */
    ECDSA_SIG *es = ECDSA_SIG_new();
    ck_assert_int_eq(ECDSA_SIG_set0(es, BN_bin2bn(raw, 32, NULL), BN_bin2bn(raw + 32, 32, NULL)),
                     1);
    uint8_t der[80], *p = der;
    int dlen = i2d_ECDSA_SIG(es, &p);
    ck_assert_int_gt(dlen, 0);
    ECDSA_SIG_free(es);
    EVP_PKEY *pub = ec_public_from(k);
    ck_assert_ptr_nonnull(pub);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    ck_assert_int_eq(EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pub), 1);
    ck_assert_int_eq(EVP_DigestVerify(md, der, (size_t)dlen, (const uint8_t *)jwt, strlen(jwt)), 1);
    /* and not over anything else */
    jwt[3] ^= 1;
    ck_assert_int_eq(EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pub), 1);
    ck_assert_int_ne(EVP_DigestVerify(md, der, (size_t)dlen, (const uint8_t *)jwt, strlen(jwt)), 1);
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(pub);
}

START_TEST(vapid_token_verifies)
{
    struct vapid *v = vapid_generate();
    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(vapid_public(v)[0], 4);
    char h[VAPID_TOKEN_MAX + 128], claims[600];
    int n = vapid_header(v, "https://push.example.net:8443", 1764633600, "mailto:admin@example.org",
                         h, sizeof h);
    ck_assert_int_gt(n, 0);
    ck_assert_uint_eq(strlen(h), (size_t)n);
    token_check(h, v, claims, sizeof claims);
    ck_assert_str_eq(claims, "{\"aud\":\"https://push.example.net:8443\",\"exp\":1764633600,"
                             "\"sub\":\"mailto:admin@example.org\"}");
    /* Each signature is new (ECDSA draws a nonce), each verifies. */
    char h2[VAPID_TOKEN_MAX + 128];
    ck_assert_int_gt(vapid_header(v, "https://push.example.net:8443", 1764633600,
                                  "mailto:admin@example.org", h2, sizeof h2),
                     0);
    ck_assert_str_ne(h, h2);
    token_check(h2, v, claims, sizeof claims);
    /* What JSON would need escaped, and a short buffer, are refused. */
    ck_assert_int_eq(vapid_header(v, "https://a\"b", 1, "mailto:x@y", h, sizeof h), -1);
    ck_assert_int_eq(vapid_header(v, "https://a", 1, "mailto:x\\@y", h, sizeof h), -1);
    ck_assert_int_eq(vapid_header(v, "https://a", 1, "mailto:x\n", h, sizeof h), -1);
    ck_assert_int_eq(vapid_header(v, "https://a", 1, "mailto:x@y", h, 50), -1);
    vapid_free(v);
}
END_TEST

START_TEST(vapid_key_kept_in_a_file)
{
    char dir[] = "/tmp/carc-vapid-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64], err[256];
    snprintf(path, sizeof path, "%s/vapid.pem", dir);
    int made = 0;
    struct vapid *a = vapid_load(path, &made, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    ck_assert_int_eq(made, 1);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
    struct vapid *b = vapid_load(path, &made, err, sizeof err);
    ck_assert_msg(b != NULL, "%s", err);
    ck_assert_int_eq(made, 0);
    ck_assert_str_eq(vapid_public_b64(a), vapid_public_b64(b));
    /* A token of the reloaded key verifies with the first one's public key. */
    char h[VAPID_TOKEN_MAX + 128], claims[600];
    ck_assert_int_gt(vapid_header(b, "https://p.example", 2, "mailto:a@b.c", h, sizeof h), 0);
    token_check(h, a, claims, sizeof claims);
    vapid_free(b);
    /* A damaged file or another kind of key is an error that names the file. */
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n", f);
    fclose(f);
    ck_assert_ptr_null(vapid_load(path, &made, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, path));
    EVP_PKEY *ed = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    ck_assert_ptr_nonnull(ed);
    f = fopen(path, "w");
    ck_assert_int_eq(PEM_write_PrivateKey(f, ed, NULL, NULL, 0, NULL, NULL), 1);
    fclose(f);
    EVP_PKEY_free(ed);
    ck_assert_ptr_null(vapid_load(path, &made, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "P-256"));
    /* PEM out and in again keeps the key. */
    char pem[4096];
    ck_assert_int_gt(vapid_pem(a, pem, sizeof pem), 0);
    struct vapid *c = vapid_from_pem(pem, strlen(pem), err, sizeof err);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(vapid_public_b64(a), vapid_public_b64(c));
    vapid_free(c);
    vapid_free(a);
    unlink(path);
    rmdir(dir);
}
END_TEST

Suite *suite_webpush(void)
{
    Suite *s = suite_create("webpush");
    TCase *tc = tcase_create("webpush");
    tcase_add_test(tc, b64url_round_trips);
    tcase_add_test(tc, b64url_refuses);
    tcase_add_test(tc, rfc8291_example);
    tcase_add_test(tc, fresh_keys_open_and_differ);
    tcase_add_test(tc, bad_keys_refused);
    tcase_add_test(tc, vapid_token_verifies);
    tcase_add_test(tc, vapid_key_kept_in_a_file);
    suite_add_tcase(s, tc);
    return s;
}
