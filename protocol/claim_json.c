/* claim_json.c: see claim_json.h. */
#include "claim_json.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"

void proto_claim_wipe(struct proto_claim_body *b)
{
    volatile unsigned char *p = (volatile unsigned char *)b;
    for (size_t i = 0; i < sizeof *b; i++)
        p[i] = 0;
}

/* The string v into dst (size bytes, NUL included) when it is 1 .. size - 1
 * bytes of chars alone. */
static int read_word(json_t *v, const char *chars, size_t min, char *dst, size_t size)
{
    if (!json_is_string(v))
        return -1;
    size_t n = json_string_length(v);
    const char *s = json_string_value(v);
    if (n < min || n >= size || strlen(s) != n || strspn(s, chars) != n)
        return -1;
    memcpy(dst, s, n + 1);
    return 0;
}

static int read_seat(json_t *e, int i, struct proto_claim_seat *out, struct proto_error *err)
{
    static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    char field[32];
    snprintf(field, sizeof field, "seats[%d]", i);
    if (!json_is_object(e) || json_object_size(e) != 2)
        return proto_error_set(err, CARC_E_INVAL, -1, field,
                               "must be an object of \"room\" and \"token\"");
    json_t *room = json_object_get(e, "room"), *token = json_object_get(e, "token");
    if (room == NULL || token == NULL)
        return proto_error_set(err, CARC_E_INVAL, -1, field,
                               "must be an object of \"room\" and \"token\"");
    snprintf(field, sizeof field, "seats[%d].room", i);
    if (read_word(room, alnum, 1, out->room, sizeof out->room) != 0)
        return proto_error_set(err, CARC_E_INVAL, -1, field,
                               "must be a room id (1 to %d letters and digits)",
                               PROTO_ROOM_MAX - 1);
    snprintf(field, sizeof field, "seats[%d].token", i);
    if (read_word(token, "0123456789abcdef", PROTO_TOKEN_MAX - 1, out->token, sizeof out->token) !=
        0)
        return proto_error_set(err, CARC_E_INVAL, -1, field,
                               "must be a seat token (%d lower-case hex digits)",
                               PROTO_TOKEN_MAX - 1);
    return 0;
}

static int read_body(json_t *root, struct proto_claim_body *out, struct proto_error *err)
{
    if (!json_is_object(root))
        return proto_error_set(err, CARC_E_INVAL, -1, "", "the body must be a JSON object");
    json_t *seats = json_object_get(root, "seats");
    if (json_object_size(root) != 1 || seats == NULL)
        return proto_error_set(err, CARC_E_INVAL, -1, "seats", "is required, and is the only key");
    if (!json_is_array(seats) || json_array_size(seats) < 1 ||
        json_array_size(seats) > PROTO_CLAIM_MAX)
        return proto_error_set(err, CARC_E_INVAL, -1, "seats", "must be an array of 1 to %d seats",
                               PROTO_CLAIM_MAX);
    size_t i;
    json_t *e;
    json_array_foreach(seats, i, e)
    {
        int rc = read_seat(e, (int)i, &out->seats[i], err);
        if (rc != 0)
            return rc;
        out->n = (int)i + 1;
    }
    return 0;
}

/* The tokens in the document: wiped before it is freed. */
static void doc_wipe(json_t *root)
{
    json_t *seats = json_is_object(root) ? json_object_get(root, "seats") : NULL;
    size_t i;
    json_t *e;
    if (!json_is_array(seats))
        return;
    json_array_foreach(seats, i, e)
    {
        json_t *t = json_is_object(e) ? json_object_get(e, "token") : NULL;
        if (json_is_string(t)) {
            volatile char *p = (char *)json_string_value(t);
            for (size_t k = 0; k < json_string_length(t); k++)
                p[k] = 0;
        }
    }
}

int proto_claim_decode(const char *text, size_t len, struct proto_claim_body *out,
                       struct proto_error *err)
{
    memset(out, 0, sizeof *out);
    if (len > PROTO_CLAIM_BODY_MAX)
        return proto_error_set(err, CARC_E_TOO_BIG, -1, "", "the body is larger than %d bytes",
                               PROTO_CLAIM_BODY_MAX);
    json_error_t jerr;
    /* jansson's own text may quote the input (a token): only the position is kept. */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL)
        return proto_error_set(err, CARC_E_JSON, -1, "",
                               "not a JSON text, or a key twice (line %d column %d)", jerr.line,
                               jerr.column);
    int rc = read_body(root, out, err);
    doc_wipe(root);
    json_decref(root);
    if (rc != 0)
        proto_claim_wipe(out);
    return rc;
}

char *proto_claim_answer_encode(const struct proto_claim_outcome *o, int n)
{
    size_t size = 64;
    for (int i = 0; i < n; i++)
        size += 48 + PROTO_JSON_ESCAPE_MAX(strlen(o[i].room)) +
                (o[i].reason != NULL ? PROTO_JSON_ESCAPE_MAX(strlen(o[i].reason)) : 0);
    char *out = malloc(size);
    if (out == NULL)
        return NULL;
    size_t len = (size_t)snprintf(out, size, "{\"claimed\":[");
    for (int pass = 0; pass < 2; pass++) {
        int k = 0;
        for (int i = 0; i < n; i++) {
            if ((o[i].reason == NULL) != (pass == 0))
                continue;
            len += (size_t)snprintf(out + len, size - len, k++ ? ",{\"room\":" : "{\"room\":");
            proto_json_str_append(out, size, &len, o[i].room);
            if (pass == 0) {
                len += (size_t)snprintf(out + len, size - len, ",\"seat\":%d}", o[i].seat);
            } else {
                len += (size_t)snprintf(out + len, size - len, ",\"reason\":");
                proto_json_str_append(out, size, &len, o[i].reason);
                len += (size_t)snprintf(out + len, size - len, "}");
            }
        }
        len += (size_t)snprintf(out + len, size - len, pass == 0 ? "],\"skipped\":[" : "]}");
    }
    return out;
}
