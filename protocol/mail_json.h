/* mail_json.h: the body of PUT /api/me/email (server/http/mail_routes.c,
 * PROTOCOL.md "Notifications", "E-mail"):
 *
 *   {"address": "ann@example.org", "digest": true, "reminders": false}
 *
 * Strict as account_json.h (an object, no key twice, no other key).
 * "address" is required: 3 to 254 bytes of printable ASCII (no spaces, no
 * '<', '>', '"', '\\', ',' or ';'), exactly one '@' with text on both sides.
 * "digest" and "reminders" are booleans, true when left out. Plain C
 * structs, no allocation. */
#ifndef PROTO_MAIL_JSON_H
#define PROTO_MAIL_JSON_H

#include <stddef.h>

#include "perror.h"

#define PROTO_MAIL_BODY_MAX 1024
#define PROTO_MAIL_ADDRESS_MAX 254

struct proto_mail_body {
    char address[PROTO_MAIL_ADDRESS_MAX + 1];
    int digest, reminders;
};

/* Decode text[0..len) into *out (zeroed first). 0, or CARC_E_TOO_BIG (over
 * PROTO_MAIL_BODY_MAX), CARC_E_JSON (not JSON, a key twice), CARC_E_INVAL
 * (not an object, a key missing or unknown, a value of the wrong type, an
 * address that is not one), with err (may be NULL) naming the field. */
int proto_mail_decode(const char *text, size_t len, struct proto_mail_body *out,
                      struct proto_error *err);

/* 1 when s is an address as above. */
int proto_mail_address_ok(const char *s);

#endif
