/* account_json.c: see account_json.h. */
#include "account_json.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"

/* The keys each body takes, NULL-terminated; required ones first, count in need. */
static const struct {
    const char *keys[4];
    int need;
} kinds[] = {
    [PROTO_ACCOUNT_SIGNUP] = {{"name", "password", "invite", NULL}, 2},
    [PROTO_ACCOUNT_SIGNIN] = {{"name", "password", NULL}, 2},
    [PROTO_ACCOUNT_PASSWORD] = {{"password", "new_password", NULL}, 2},
    [PROTO_ACCOUNT_DELETE] = {{"password", NULL}, 1},
};

void proto_account_wipe(struct proto_account_body *b)
{
    /* volatile: the compiler may not drop a store to memory about to die. */
    volatile unsigned char *p = (volatile unsigned char *)b;
    for (size_t i = 0; i < sizeof *b; i++)
        p[i] = 0;
}

/* The string at key into dst (size cap + 1) and *len. nul_ok: U+0000 may be
 * in it (a password). */
static int read_string(json_t *v, const char *key, char *dst, size_t cap, size_t *len, int nul_ok,
                       struct proto_error *err)
{
    if (!json_is_string(v))
        return proto_error_set(err, CARC_E_INVAL, -1, key, "must be a string");
    size_t n = json_string_length(v);
    if (n > cap)
        return proto_error_set(err, CARC_E_INVAL, -1, key, "must be at most %zu bytes", cap);
    const char *s = json_string_value(v);
    if (!nul_ok && memchr(s, '\0', n) != NULL)
        return proto_error_set(err, CARC_E_INVAL, -1, key, "must not contain U+0000");
    memcpy(dst, s, n);
    dst[n] = '\0';
    if (len != NULL)
        *len = n;
    return 0;
}

static int read_key(json_t *v, const char *key, struct proto_account_body *out,
                    struct proto_error *err)
{
    if (strcmp(key, "name") == 0)
        return read_string(v, key, out->name, PROTO_ACCOUNT_NAME_MAX, NULL, 0, err);
    if (strcmp(key, "invite") == 0) {
        out->has_invite = 1;
        return read_string(v, key, out->invite, PROTO_ACCOUNT_INVITE_MAX, NULL, 0, err);
    }
    if (strcmp(key, "password") == 0)
        return read_string(v, key, out->password, PROTO_ACCOUNT_PASSWORD_MAX, &out->password_len, 1,
                           err);
    return read_string(v, key, out->new_password, PROTO_ACCOUNT_PASSWORD_MAX,
                       &out->new_password_len, 1, err);
}

static int read_body(json_t *root, int kind, struct proto_account_body *out,
                     struct proto_error *err)
{
    if (!json_is_object(root))
        return proto_error_set(err, CARC_E_INVAL, -1, "", "the body must be a JSON object");
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        int known = 0;
        for (const char *const *k = kinds[kind].keys; *k != NULL && !known; k++)
            known = strcmp(*k, key) == 0;
        if (!known)
            /* The key is not echoed either: it could be anything the client typed. */
            return proto_error_set(err, CARC_E_INVAL, -1, "", "unknown key");
        int rc = read_key(v, key, out, err);
        if (rc != 0)
            return rc;
    }
    for (int i = 0; i < kinds[kind].need; i++)
        if (json_object_get(root, kinds[kind].keys[i]) == NULL)
            return proto_error_set(err, CARC_E_INVAL, -1, kinds[kind].keys[i], "is required");
    return 0;
}

int proto_account_decode(int kind, const char *text, size_t len, struct proto_account_body *out,
                         struct proto_error *err)
{
    memset(out, 0, sizeof *out);
    if (kind < PROTO_ACCOUNT_SIGNUP || kind > PROTO_ACCOUNT_DELETE)
        return proto_error_set(err, CARC_E_INVAL, -1, "", "unknown body");
    if (len > PROTO_ACCOUNT_BODY_MAX)
        return proto_error_set(err, CARC_E_TOO_BIG, -1, "", "the body is larger than %d bytes",
                               PROTO_ACCOUNT_BODY_MAX);
    json_error_t jerr;
    /* jansson's own text may quote the input (a password): only the position is kept. */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (root == NULL)
        return proto_error_set(err, CARC_E_JSON, -1, "",
                               "not a JSON text, or a key twice (line %d column %d)", jerr.line,
                               jerr.column);
    int rc = read_body(root, kind, out, err);
    /* The document held the passwords too: wipe its strings before freeing it. */
    const char *key;
    json_t *v;
    if (json_is_object(root))
        json_object_foreach(root, key, v) if (json_is_string(v))
        {
            char *s = (char *)json_string_value(v);
            volatile char *p = s;
            for (size_t i = 0; i < json_string_length(v); i++)
                p[i] = 0;
        }
    json_decref(root);
    if (rc != 0)
        proto_account_wipe(out);
    return rc;
}

char *proto_account_encode(const char *name, long long created_ms, const char *csrf)
{
    size_t size = 64 + PROTO_JSON_ESCAPE_MAX(strlen(name)) + PROTO_JSON_ESCAPE_MAX(strlen(csrf));
    char *out = malloc(size);
    if (out == NULL)
        return NULL;
    size_t len = 0;
    memcpy(out, "{\"name\":", 9);
    len = 8;
    proto_json_str_append(out, size, &len, name);
    if (created_ms >= 0)
        len += (size_t)snprintf(out + len, size - len, ",\"created\":%lld", created_ms);
    len += (size_t)snprintf(out + len, size - len, ",\"csrf\":");
    proto_json_str_append(out, size, &len, csrf);
    snprintf(out + len, size - len, "}");
    return out;
}

char *proto_account_invite_encode(const char *code, long long expires_ms)
{
    size_t size = 64 + PROTO_JSON_ESCAPE_MAX(strlen(code));
    char *out = malloc(size);
    if (out == NULL)
        return NULL;
    size_t len = 0;
    memcpy(out, "{\"code\":", 9);
    len = 8;
    proto_json_str_append(out, size, &len, code);
    snprintf(out + len, size - len, ",\"expires\":%lld}", expires_ms);
    return out;
}

char *proto_account_error_encode(const char *code, const char *message)
{
    size_t size = 64 + PROTO_JSON_ESCAPE_MAX(strlen(code)) +
                  (message != NULL ? PROTO_JSON_ESCAPE_MAX(strlen(message)) : 0);
    char *out = malloc(size);
    if (out == NULL)
        return NULL;
    size_t len = 0;
    memcpy(out, "{\"error\":", 10);
    len = 9;
    proto_json_str_append(out, size, &len, code);
    if (message != NULL) {
        len += (size_t)snprintf(out + len, size - len, ",\"message\":");
        proto_json_str_append(out, size, &len, message);
    }
    snprintf(out + len, size - len, "}");
    return out;
}
