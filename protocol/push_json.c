/* push_json.c: see push_json.h. */
#include "push_json.h"

#include <jansson.h>
#include <string.h>

#include "err.h"

static int read_str(json_t *obj, const char *key, const char *field, char *dst, size_t size,
                    struct proto_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (v == NULL)
        return proto_error_set(err, CARC_E_INVAL, -1, field, "is required");
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= size)
        return proto_error_set(err, CARC_E_INVAL, -1, field,
                               "must be a string of 1 to %zu characters", size - 1);
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
    if (strlen(dst) != json_string_length(v))
        return proto_error_set(err, CARC_E_INVAL, -1, field, "must not hold U+0000");
    return 0;
}

/* Whether obj has only keys of the NULL-terminated list allowed. */
static const char *unknown_key(json_t *obj, const char *const *allowed)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        (void)v;
        int ok = 0;
        for (const char *const *a = allowed; *a != NULL; a++)
            ok |= strcmp(k, *a) == 0;
        if (!ok)
            return k;
    }
    return NULL;
}

static int read_body(int kind, json_t *root, struct proto_push_body *out, struct proto_error *err)
{
    static const char *const sub_keys[] = {"endpoint", "expirationTime", "keys", NULL};
    static const char *const unsub_keys[] = {"endpoint", NULL};
    static const char *const hook_keys[] = {"url", NULL};
    if (kind == PROTO_PUSH_WEBHOOK) {
        if (!json_is_object(root))
            return proto_error_set(err, CARC_E_INVAL, -1, "", "the body must be a JSON object");
        if (unknown_key(root, hook_keys) != NULL)
            return proto_error_set(err, CARC_E_INVAL, -1, "", "only url is taken");
        return read_str(root, "url", "url", out->endpoint, sizeof out->endpoint, err);
    }
    static const char *const key_keys[] = {"p256dh", "auth", NULL};
    if (!json_is_object(root))
        return proto_error_set(err, CARC_E_INVAL, -1, "", "the body must be a JSON object");
    if (unknown_key(root, kind == PROTO_PUSH_SUBSCRIBE ? sub_keys : unsub_keys) != NULL)
        return proto_error_set(err, CARC_E_INVAL, -1, "",
                               kind == PROTO_PUSH_SUBSCRIBE
                                   ? "only endpoint, expirationTime and keys are taken"
                                   : "only endpoint is taken");
    int rc = read_str(root, "endpoint", "endpoint", out->endpoint, sizeof out->endpoint, err);
    if (rc != 0 || kind == PROTO_PUSH_UNSUBSCRIBE)
        return rc;
    json_t *exp = json_object_get(root, "expirationTime");
    if (exp != NULL && !json_is_null(exp) && !json_is_number(exp))
        return proto_error_set(err, CARC_E_INVAL, -1, "expirationTime", "must be null or a number");
    json_t *keys = json_object_get(root, "keys");
    if (!json_is_object(keys))
        return proto_error_set(err, CARC_E_INVAL, -1, "keys",
                               "must be an object of p256dh and auth");
    if (unknown_key(keys, key_keys) != NULL)
        return proto_error_set(err, CARC_E_INVAL, -1, "keys", "only p256dh and auth are taken");
    rc = read_str(keys, "p256dh", "keys.p256dh", out->p256dh, sizeof out->p256dh, err);
    if (rc == 0)
        rc = read_str(keys, "auth", "keys.auth", out->auth, sizeof out->auth, err);
    return rc;
}

int proto_push_decode(int kind, const char *text, size_t len, struct proto_push_body *out,
                      struct proto_error *err)
{
    memset(out, 0, sizeof *out);
    if (len > PROTO_PUSH_BODY_MAX)
        return proto_error_set(err, CARC_E_TOO_BIG, -1, "", "the body is larger than %d bytes",
                               PROTO_PUSH_BODY_MAX);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL)
        return proto_error_set(err, CARC_E_JSON, -1, "",
                               "not a JSON text, or a key twice (line %d column %d)", jerr.line,
                               jerr.column);
    int rc = read_body(kind, root, out, err);
    json_decref(root);
    if (rc != 0)
        memset(out, 0, sizeof *out);
    return rc;
}
