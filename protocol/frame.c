/* frame.c: the head every server message starts with, {"v":2,"type":NAME
 * then "ref" when it answers a request: the names of the server's types
 * (msg_types.h), the two writers of the head (one for the encoders that build
 * jansson values, one for those that write text), and reading a head back.
 *
 * Both writers put the same bytes first, and no encoder writes a server
 * message any other way, so the type of an encoded text (and an error's code,
 * which comes right after the head) is known from its first bytes without
 * parsing the JSON: the server counts what it sends that way. */
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "state_int.h"

static const char *const server_names[PROTO_S_COUNT] = {NULL,
#define X(name, wire) wire,
                                                        PROTO_SERVER_TYPES(X)
#undef X
};

const char *proto_server_type_name(int type)
{
    return type > PROTO_S_UNKNOWN && type < PROTO_S_COUNT ? server_names[type] : NULL;
}

/* The type named by the n bytes at name, or PROTO_S_UNKNOWN. */
static int type_find(const char *name, size_t n)
{
    for (int t = PROTO_S_UNKNOWN + 1; t < PROTO_S_COUNT; t++)
        if (strlen(server_names[t]) == n && memcmp(server_names[t], name, n) == 0)
            return t;
    return PROTO_S_UNKNOWN;
}

int proto_server_type_find(const char *name)
{
    return type_find(name, strlen(name));
}

json_t *proto__frame_new(int type, const char *ref)
{
    int ok = 1;
    json_t *o = json_object();
    proto__set(o, "v", json_integer(PROTO_VERSION), &ok);
    proto__set(o, "type", json_string(proto_server_type_name(type)), &ok);
    if (ref != NULL && ref[0] != '\0') {
        /* ref comes from proto_msg_decode, which only keeps strings and integers. */
        json_t *r = json_loads(ref, JSON_DECODE_ANY, NULL);
        if (json_is_string(r) || json_is_integer(r))
            proto__set(o, "ref", r, &ok);
        else
            json_decref(r);
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

void proto__put_frame(struct proto__out *b, int type, const char *ref)
{
    const char *name = proto_server_type_name(type);
    if (name == NULL) {
        b->ok = 0; /* a type not in the table: no message rather than an unnamed one */
        return;
    }
    PUT(b, "{\"v\":" PROTO_VERSION_TEXT ",\"type\":");
    put_name(b, name);
    if (ref != NULL && ref[0] != '\0') {
        json_t *r = json_loads(ref, JSON_DECODE_ANY, NULL);
        if (json_is_string(r) || json_is_integer(r)) {
            PUT(b, ",\"ref\":");
            proto__out_value(b, r);
        }
        json_decref(r);
    }
}

/* The CARC_E_* code of an error from the bytes after its head's type,
 * s[0..n): [,"ref":REF],"code":"NAME" as the frame writers and
 * proto_encode_error put them; 0 when they are not that. */
static int error_code(const char *s, size_t n)
{
    static const char ref[] = ",\"ref\":", key[] = ",\"code\":\"";
    size_t i = 0;
    if (n >= sizeof ref - 1 && memcmp(s, ref, sizeof ref - 1) == 0) {
        i = sizeof ref - 1;
        if (i < n && s[i] == '"') { /* a string: to its closing quote, past escapes */
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\')
                    i++;
            i++;
        } else { /* an integer */
            while (i < n && s[i] != ',')
                i++;
        }
    }
    if (i > n || n - i < sizeof key - 1 || memcmp(s + i, key, sizeof key - 1) != 0)
        return 0;
    i += sizeof key - 1;
    const char *end = memchr(s + i, '"', n - i);
    char name[48];
    if (end == NULL || (size_t)(end - (s + i)) >= sizeof name)
        return 0;
    memcpy(name, s + i, (size_t)(end - (s + i)));
    name[end - (s + i)] = '\0';
    return carc_err_from_name(name);
}

int proto_server_type_of(const char *text, size_t len, int *code)
{
    static const char head[] = "{\"v\":" PROTO_VERSION_TEXT ",\"type\":\"";
    const size_t h = sizeof head - 1;
    if (code != NULL)
        *code = 0;
    if (text == NULL || len < h || memcmp(text, head, h) != 0)
        return PROTO_S_UNKNOWN;
    const char *name = text + h;
    const char *end = memchr(name, '"', len - h);
    if (end == NULL)
        return PROTO_S_UNKNOWN;
    int type = type_find(name, (size_t)(end - name));
    if (type == PROTO_S_ERROR && code != NULL)
        *code = error_code(end + 1, (size_t)(text + len - (end + 1)));
    return type;
}
