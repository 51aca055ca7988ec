/* account_json.h: the bodies of the account routes (server/http/account_routes.c,
 * PROTOCOL.md "Accounts") and their answers.
 *
 *   POST /api/account      {"name", "password"[, "invite"]}
 *   POST /api/session      {"name", "password"}
 *   POST /api/me/password  {"password", "new_password"}
 *   POST /api/me/delete    {"password"}
 *   POST /api/me/invites   no body; answered {"code", "expires"}
 *
 * Decoding is strict, as for client messages (PROTOCOL.md "Conventions"): a
 * JSON object, no key twice, no key its route does not list, every value a
 * string of bounded length. What a string may hold beyond that (a name's
 * characters, a password's length) is the accounts service's rule, not the
 * codec's: a name is passed on as sent, a password as its bytes (any UTF-8,
 * U+0000 included). An error never quotes a value: a password must not come
 * back in an answer nor reach a log line.
 *
 * Plain C structs, no allocation; the caller wipes them after use (they hold
 * passwords). */
#ifndef PROTO_ACCOUNT_JSON_H
#define PROTO_ACCOUNT_JSON_H

#include <stddef.h>

#include "perror.h"

#define PROTO_ACCOUNT_BODY_MAX 4096     /* bytes of a request body */
#define PROTO_ACCOUNT_NAME_MAX 64       /* bytes of a name as sent (the service allows 24) */
#define PROTO_ACCOUNT_PASSWORD_MAX 1024 /* bytes of a password as sent (the service: 256) */
#define PROTO_ACCOUNT_INVITE_MAX 64     /* bytes of an invite code */

/* One decoded body; a field the route does not take stays empty. has_invite:
 * "invite" was given. */
struct proto_account_body {
    char name[PROTO_ACCOUNT_NAME_MAX + 1];
    char invite[PROTO_ACCOUNT_INVITE_MAX + 1];
    int has_invite;
    char password[PROTO_ACCOUNT_PASSWORD_MAX + 1];
    size_t password_len;
    char new_password[PROTO_ACCOUNT_PASSWORD_MAX + 1];
    size_t new_password_len;
};

/* Which route's body. */
enum proto_account_kind {
    PROTO_ACCOUNT_SIGNUP = 0, /* name, password, optional invite */
    PROTO_ACCOUNT_SIGNIN,     /* name, password */
    PROTO_ACCOUNT_PASSWORD,   /* password, new_password */
    PROTO_ACCOUNT_DELETE,     /* password */
};

/* Decode text[0..len) as the body of kind into *out (zeroed first). 0, or
 * CARC_E_TOO_BIG (over PROTO_ACCOUNT_BODY_MAX), CARC_E_JSON (not JSON, a key
 * twice), CARC_E_INVAL (not an object, an unknown or missing key, a value
 * that is not a string, too long, or a name or invite holding U+0000), with
 * err (may be NULL) naming the field. *out is wiped on error. */
int proto_account_decode(int kind, const char *text, size_t len, struct proto_account_body *out,
                         struct proto_error *err);

/* Overwrite the passwords of b (and everything else) with zeros. */
void proto_account_wipe(struct proto_account_body *b);

/* {"name":NAME,"created":CREATED,"csrf":CSRF} (created: ms since 1970; < 0
 * leaves it out). Malloc'd, NUL-terminated; NULL when out of memory. */
char *proto_account_encode(const char *name, long long created_ms, const char *csrf);

/* {"code":CODE,"expires":EXPIRES}: a new invite (POST /api/me/invites;
 * expires: ms since 1970). Malloc'd, NUL-terminated; NULL when out of memory. */
char *proto_account_invite_encode(const char *code, long long expires_ms);

/* {"error":CODE,"message":MESSAGE} (message NULL: no "message"). Malloc'd,
 * NUL-terminated; NULL when out of memory. */
char *proto_account_error_encode(const char *code, const char *message);

#endif
