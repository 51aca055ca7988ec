/* vacation_json.h: the body of POST /api/me/vacation (server/http/
 * vacation_routes.c, PROTOCOL.md "Vacations"): {"days": N}, N a whole number
 * of days 1..366. Strict as push_json.h: an object, that one key, no key
 * twice. */
#ifndef PROTO_VACATION_JSON_H
#define PROTO_VACATION_JSON_H

#include <stddef.h>

#include "perror.h"

#define PROTO_VACATION_BODY_MAX 256
#define PROTO_VACATION_DAYS_MAX 366

/* Decode text[0..len) into *days. 0, or CARC_E_TOO_BIG, CARC_E_JSON,
 * CARC_E_INVAL, with err (may be NULL) naming the field. */
int proto_vacation_decode(const char *text, size_t len, int *days, struct proto_error *err);

#endif
