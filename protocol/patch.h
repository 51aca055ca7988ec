/* patch.h: protocol/-internal helpers (never included outside protocol/, since
 * it exposes jansson): RFC 6902 JSON Patch between two documents and its
 * application, RFC 6901 pointers, and the message frame every encoder shares. */
#ifndef PROTO_PATCH_H
#define PROTO_PATCH_H

#include <jansson.h>
#include <stddef.h>

/* A new array of patch operations turning `from` into `to` (both borrowed), or
 * NULL when out of memory. Deterministic: objects are walked in byte order of
 * their keys (removals, replacements and additions interleaved in that
 * order), so the same two documents always give the same text. Arrays of the
 * same length are patched per element unless more than half of the elements
 * differ, when (like arrays of another length, and values of another type)
 * they are replaced whole. */
json_t *proto__diff(const json_t *from, const json_t *to);

/* Apply a patch (an array of operations: add, remove, replace, move, copy,
 * test) to *doc in place; a root "add"/"replace" swaps *doc. Returns 0, or -1
 * with a reason in why: *doc may then be half patched and should be dropped. */
int proto__patch_apply(json_t **doc, const json_t *patch, char *why, size_t whylen);

/* Append "/" and the RFC 6901 escape of key ("~" -> "~0", "/" -> "~1") to the
 * pointer in buf[0..size), NUL-terminated. Returns 0, or -1 (buf unchanged)
 * when it would not fit. */
int proto__pointer_push(char *buf, size_t size, const char *key);

/* {"v":2,"type":NAME} of a server message type (enum proto_server_type),
 * plus "ref" when ref is the compact JSON of an id (a string or an integer;
 * anything else is left out). NULL when out of memory or type is not one
 * (frame.c, which also writes the same head as text: proto__put_frame). */
json_t *proto__frame_new(int type, const char *ref);

/* Set o[key] = v, taking v; on failure (o or v NULL, no memory) clear *ok. */
void proto__set(json_t *o, const char *key, json_t *v, int *ok);
/* Append v to a, taking v; on failure clear *ok. */
void proto__add(json_t *a, json_t *v, int *ok);

/* A growing buffer of JSON text, written without building jansson values. The
 * first failure (no memory) clears ok and makes later writes no-ops. */
struct proto__out {
    char *p;
    size_t n, cap;
    int ok;
};
/* Start with cap bytes; 0, or -1 (ok cleared) when out of memory. */
int proto__out_init(struct proto__out *b, size_t cap);
/* The NUL-terminated text (the caller frees it), or NULL after a failure (freed). */
char *proto__out_finish(struct proto__out *b);
void proto__out_put(struct proto__out *b, const char *s, size_t n);
/* s[0..n) as a JSON string, escaped as jansson escapes it. */
void proto__out_string(struct proto__out *b, const char *s, size_t n);
void proto__out_int(struct proto__out *b, long long x);
/* v in compact form, as proto__dump writes it. */
void proto__out_value(struct proto__out *b, const json_t *v);

/* Compact text of v (malloc'd), exactly as json_dumps(v, JSON_COMPACT |
 * JSON_ENCODE_ANY) writes it but faster; NULL when out of memory. */
char *proto__dump(const json_t *v);
/* Compact text of v (released), or NULL when !ok, v is NULL, or no memory. */
char *proto__dump_take(json_t *v, int ok);

/* A JSON string of s, or of `fallback` when s is not valid UTF-8. */
json_t *proto__string_or(const char *s, const char *fallback);

/* Wire names of enum proto_phase and enum carc_escape_rule values. */
const char *proto__phase_name(int phase);
int proto__phase_find(const char *name);
const char *proto__escape_rule_name(int rule);
int proto__escape_rule_find(const char *name);
/* options.farms (enum carc_farm_rule) and options.seat_order (0 seated, 1 random). */
const char *proto__farm_rule_name(int rule);
int proto__farm_rule_find(const char *name);
const char *proto__seat_order_name(int random);
int proto__seat_order_find(const char *name);

/* The `options` object of a room (PROTOCOL.md create), every key written; NULL out of memory. */
json_t *proto__options_new(int no_farmers, int escape_rule, int farm_rule, int small_city,
                           int seat_random);

/* A JSON array of the names of the sets in mask (1 << enum carc_set). */
json_t *proto__sets_new(unsigned mask);

/* Test hooks on JSON text, declared again in tests/test_protocol.c (which may
 * not include jansson.h): the patch from one document to another, and a
 * document with a patch applied (keys sorted), or NULL with why filled. */
char *proto__diff_text(const char *from, const char *to);
char *proto__patch_text(const char *doc, const char *patch, char *why, size_t whylen);
/* 1 when text is what both proto__dump and json_dumps write for its document. */
int proto__dump_same(const char *text);

#endif
