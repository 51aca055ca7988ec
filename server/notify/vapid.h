/* vapid.h: carcd's application server key pair for Web Push and the signed
 * token that identifies carcd to a push service (VAPID, RFC 8292: a JWT
 * signed with ES256).
 *
 * One struct vapid per process, owned by whoever made it (main), freed with
 * vapid_free; after it is made it is only read, so the thread pool may sign
 * with it while the loop reads its public key. The key lives in the data
 * directory as a PKCS#8 PEM file (mode 0600) made at the first start, or is
 * given in the configuration (a cluster's nodes share one): vapid_load. */
#ifndef CARCD_NOTIFY_VAPID_H
#define CARCD_NOTIFY_VAPID_H

#include <stddef.h>
#include <stdint.h>

#define VAPID_PUBLIC_BYTES 65
/* The public key as base64url (applicationServerKey, the "k" of the header). */
#define VAPID_PUBLIC_B64_LEN 87
/* A token's length: its audience and subject are bounded by the caller. */
#define VAPID_TOKEN_MAX 1024

struct vapid;

/* The key pair in the PEM text pem[0..len): NULL when it is not a P-256
 * private key (err says why). */
struct vapid *vapid_from_pem(const char *pem, size_t len, char *err, size_t errlen);
/* A fresh key pair, or NULL. */
struct vapid *vapid_generate(void);
/* The key of the file at path, made and written there (mode 0600, through a
 * temporary file and a rename) when there is none. At start only: it reads
 * and writes the disk. NULL with err set when the file cannot be read,
 * written or is not a P-256 private key. *made is set to 1 when it was made. */
struct vapid *vapid_load(const char *path, int *made, char *err, size_t errlen);
/* v's private key as PKCS#8 PEM into out (size includes the NUL): its
 * length, or -1. */
int vapid_pem(const struct vapid *v, char *out, size_t size);
/* The public point (65 bytes, uncompressed) and its base64url text. */
const uint8_t *vapid_public(const struct vapid *v);
const char *vapid_public_b64(const struct vapid *v);
/* The Authorization header's value for a push to a service of origin aud
 * ("https://host[:port]", no path), valid until exp (seconds since 1970),
 * with contact sub ("mailto:..." or an https URL):
 * "vapid t=<JWT>, k=<public key>" into out. The JWT's header is
 * {"typ":"JWT","alg":"ES256"}, its claims {"aud","exp","sub"}, its signature
 * the raw r || s (64 bytes). Its length, or -1 when aud or sub holds a
 * character that needs escaping in JSON, or out is too small, or signing
 * failed. Thread safe. */
int vapid_header(const struct vapid *v, const char *aud, long long exp, const char *sub, char *out,
                 size_t size);
void vapid_free(struct vapid *v);

#endif
