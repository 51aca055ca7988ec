/* mail_json.c: see mail_json.h. */
#include "mail_json.h"

#include <jansson.h>
#include <string.h>

#include "err.h"

int proto_mail_address_ok(const char *s)
{
    size_t n = strlen(s);
    const char *at = strchr(s, '@');
    if (n < 3 || n > PROTO_MAIL_ADDRESS_MAX || at == NULL || at == s || at[1] == '\0' ||
        strchr(at + 1, '@') != NULL)
        return 0;
    for (const char *p = s; *p != '\0'; p++)
        if (*p <= 0x20 || *p >= 0x7f || strchr("<>\"\\,;", *p) != NULL)
            return 0;
    return 1;
}

static int read_flag(json_t *root, const char *key, int *out, struct proto_error *err)
{
    json_t *v = json_object_get(root, key);
    *out = 1;
    if (v == NULL)
        return 0;
    if (!json_is_boolean(v))
        return proto_error_set(err, CARC_E_INVAL, -1, key, "must be true or false");
    *out = json_is_true(v);
    return 0;
}

static int read_body(json_t *root, struct proto_mail_body *out, struct proto_error *err)
{
    if (!json_is_object(root))
        return proto_error_set(err, CARC_E_INVAL, -1, "", "the body must be a JSON object");
    const char *k;
    json_t *v;
    json_object_foreach(root, k, v)
    {
        if (strcmp(k, "address") != 0 && strcmp(k, "digest") != 0 && strcmp(k, "reminders") != 0)
            return proto_error_set(err, CARC_E_INVAL, -1, "",
                                   "only address, digest and reminders are taken");
    }
    json_t *a = json_object_get(root, "address");
    if (a == NULL)
        return proto_error_set(err, CARC_E_INVAL, -1, "address", "is required");
    if (!json_is_string(a) || json_string_length(a) > PROTO_MAIL_ADDRESS_MAX ||
        strlen(json_string_value(a)) != json_string_length(a) ||
        !proto_mail_address_ok(json_string_value(a)))
        return proto_error_set(err, CARC_E_INVAL, -1, "address",
                               "must be an e-mail address: one '@', at most %d bytes of printable"
                               " ASCII, no spaces or <>\",;\\",
                               PROTO_MAIL_ADDRESS_MAX);
    memcpy(out->address, json_string_value(a), json_string_length(a) + 1);
    int rc = read_flag(root, "digest", &out->digest, err);
    return rc != 0 ? rc : read_flag(root, "reminders", &out->reminders, err);
}

int proto_mail_decode(const char *text, size_t len, struct proto_mail_body *out,
                      struct proto_error *err)
{
    memset(out, 0, sizeof *out);
    if (len > PROTO_MAIL_BODY_MAX)
        return proto_error_set(err, CARC_E_TOO_BIG, -1, "", "the body is larger than %d bytes",
                               PROTO_MAIL_BODY_MAX);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL)
        return proto_error_set(err, CARC_E_JSON, -1, "",
                               "not a JSON text, or a key twice (line %d column %d)", jerr.line,
                               jerr.column);
    int rc = read_body(root, out, err);
    json_decref(root);
    if (rc != 0)
        memset(out, 0, sizeof *out);
    return rc;
}
