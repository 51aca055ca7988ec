/* vacation_json.c: see vacation_json.h. */
#include "vacation_json.h"

#include <jansson.h>
#include <string.h>

#include "err.h"

int proto_vacation_decode(const char *text, size_t len, int *days, struct proto_error *err)
{
    *days = 0;
    if (len > PROTO_VACATION_BODY_MAX)
        return proto_error_set(err, CARC_E_TOO_BIG, -1, "", "the body is larger than %d bytes",
                               PROTO_VACATION_BODY_MAX);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL)
        return proto_error_set(err, CARC_E_JSON, -1, "",
                               "not a JSON text, or a key twice (line %d column %d)", jerr.line,
                               jerr.column);
    int rc = 0;
    json_t *d = json_object_get(root, "days");
    if (!json_is_object(root))
        rc = proto_error_set(err, CARC_E_INVAL, -1, "", "must be an object");
    else if (json_object_size(root) != (d != NULL ? 1u : 0u))
        rc = proto_error_set(err, CARC_E_INVAL, -1, "", "unknown key (only \"days\")");
    else if (d == NULL)
        rc = proto_error_set(err, CARC_E_INVAL, -1, "days", "days: missing");
    else if (!json_is_integer(d) || json_integer_value(d) < 1 ||
             json_integer_value(d) > PROTO_VACATION_DAYS_MAX)
        rc = proto_error_set(err, CARC_E_INVAL, -1, "days", "days: must be an integer in 1..%d",
                             PROTO_VACATION_DAYS_MAX);
    else
        *days = (int)json_integer_value(d);
    json_decref(root);
    return rc;
}
