/* push_json.h: the bodies of the Web Push subscription routes
 * (server/http/push_routes.c, PROTOCOL.md "Notifications").
 *
 *   POST   /api/push/subscriptions  a PushSubscription as the browser's toJSON() gives it:
 *          {"endpoint": URL, "expirationTime": null or a number, "keys": {"p256dh", "auth"}}
 *   DELETE /api/push/subscriptions  {"endpoint": URL}
 *   POST   /api/me/webhook          {"url": URL}  (into endpoint)
 *
 * Decoding is strict as in account_json.h (an object, no key twice, no key
 * the route does not list, strings of bounded length); what the strings must
 * hold (an https URL, a point of P-256, 16 bytes) is notify/push.h's check.
 * "expirationTime" is accepted and ignored: a push service that ends a
 * subscription answers 404 or 410, and carcd drops it then. Plain C structs,
 * no allocation. */
#ifndef PROTO_PUSH_JSON_H
#define PROTO_PUSH_JSON_H

#include <stddef.h>

#include "perror.h"

#define PROTO_PUSH_BODY_MAX 4096
#define PROTO_PUSH_ENDPOINT_MAX 1024
#define PROTO_PUSH_KEY_MAX 96

struct proto_push_body {
    char endpoint[PROTO_PUSH_ENDPOINT_MAX + 1];
    char p256dh[PROTO_PUSH_KEY_MAX + 1]; /* "" for a DELETE */
    char auth[PROTO_PUSH_KEY_MAX + 1];
};

enum { PROTO_PUSH_SUBSCRIBE = 0, PROTO_PUSH_UNSUBSCRIBE, PROTO_PUSH_WEBHOOK };

/* Decode text[0..len), the body of kind, into *out (zeroed first). 0, or
 * CARC_E_TOO_BIG (over PROTO_PUSH_BODY_MAX), CARC_E_JSON (not JSON, a key
 * twice), CARC_E_INVAL (not an object, a key missing or unknown, a value of
 * the wrong type or too long), with err (may be NULL) naming the field. */
int proto_push_decode(int kind, const char *text, size_t len, struct proto_push_body *out,
                      struct proto_error *err);

#endif
