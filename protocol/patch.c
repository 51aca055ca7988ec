/* patch.c: JSON Patch (RFC 6902) diff and apply, JSON Pointer (RFC 6901), and
 * the small helpers every protocol encoder shares (see patch.h).
 *
 * The diff only ever emits add, remove and replace; apply also implements
 * move, copy and test so that any standard patch can be checked in tests. */
#include "patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "state.h"
#include "tiles.h"

#define PTR_MAX 512 /* longest pointer the diff builds; deeper changes replace the parent */

void proto__set(json_t *o, const char *key, json_t *v, int *ok)
{
    if (o == NULL) {
        json_decref(v);
        *ok = 0;
    } else if (json_object_set_new(o, key, v) != 0) {
        *ok = 0;
    }
}

void proto__add(json_t *a, json_t *v, int *ok)
{
    if (a == NULL) {
        json_decref(v);
        *ok = 0;
    } else if (json_array_append_new(a, v) != 0) {
        *ok = 0;
    }
}

/* ---- compact dump ----
 * jansson's dumper goes through a callback per token and snprintf per number,
 * and was the largest cost of a delta; this one appends to one buffer. Its
 * output is byte for byte json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) (the
 * tests check that on every message they see). */

#define outbuf proto__out
#define out_put proto__out_put
#define out_string proto__out_string
#define out_value proto__out_value

/* Room for n more bytes and a NUL; 0, or -1 (b->ok cleared) when out of
 * memory. */
static int out_reserve(struct outbuf *b, size_t n)
{
    if (!b->ok)
        return -1;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap * 2 > b->n + n + 1 ? b->cap * 2 : b->n + n + 1;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->ok = 0;
            return -1;
        }
        b->p = p;
        b->cap = cap;
    }
    return 0;
}

void out_put(struct outbuf *b, const char *s, size_t n)
{
    if (out_reserve(b, n) != 0)
        return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

void out_string(struct outbuf *b, const char *s, size_t n)
{
    size_t max = PROTO_JSON_ESCAPE_MAX(n);
    if (out_reserve(b, max + 2) != 0)
        return;
    b->p[b->n++] = '"';
    b->n += proto_json_escape(b->p + b->n, max, s, n, NULL, 0);
    b->p[b->n++] = '"';
}

void out_value(struct outbuf *b, const json_t *v)
{
    char num[24];
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *key;
        json_t *m;
        int first = 1;
        out_put(b, "{", 1);
        json_object_foreach((json_t *)v, key, m)
        {
            if (!first)
                out_put(b, ",", 1);
            first = 0;
            out_string(b, key, strlen(key));
            out_put(b, ":", 1);
            out_value(b, m);
        }
        out_put(b, "}", 1);
        break;
    }
    case JSON_ARRAY:
        out_put(b, "[", 1);
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i > 0)
                out_put(b, ",", 1);
            out_value(b, json_array_get(v, i));
        }
        out_put(b, "]", 1);
        break;
    case JSON_STRING:
        out_string(b, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER: {
        long long x = json_integer_value(v);
        unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
        char *p = num + sizeof num;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u != 0);
        if (x < 0)
            *--p = '-';
        out_put(b, p, (size_t)(num + sizeof num - p));
        break;
    }
    case JSON_TRUE:
        out_put(b, "true", 4);
        break;
    case JSON_FALSE:
        out_put(b, "false", 5);
        break;
    case JSON_NULL:
        out_put(b, "null", 4);
        break;
    default: { /* reals: none in our documents; jansson knows their format */
        char *r = json_dumps(v, JSON_ENCODE_ANY);
        if (r == NULL)
            b->ok = 0;
        else
            out_put(b, r, strlen(r));
        free(r);
    }
    }
}

void proto__out_int(struct outbuf *b, long long x)
{
    char num[24];
    unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
    char *p = num + sizeof num;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (x < 0)
        *--p = '-';
    out_put(b, p, (size_t)(num + sizeof num - p));
}

int proto__out_init(struct outbuf *b, size_t cap)
{
    b->p = malloc(cap);
    b->n = 0;
    b->cap = cap;
    b->ok = b->p != NULL;
    if (!b->ok)
        b->cap = 0;
    return b->ok ? 0 : -1;
}

char *proto__out_finish(struct outbuf *b)
{
    if (!b->ok || b->p == NULL) {
        free(b->p);
        return NULL;
    }
    b->p[b->n] = '\0';
    return b->p;
}

char *proto__dump(const json_t *v)
{
    struct outbuf b = {malloc(1024), 0, 1024, 1};
    if (b.p == NULL)
        return NULL;
    out_value(&b, v);
    if (!b.ok) {
        free(b.p);
        return NULL;
    }
    b.p[b.n] = '\0';
    return b.p;
}

char *proto__dump_take(json_t *v, int ok)
{
    char *s = ok && v != NULL ? proto__dump(v) : NULL;
    json_decref(v);
    return s;
}

json_t *proto__string_or(const char *s, const char *fallback)
{
    json_t *v = s != NULL ? json_string(s) : NULL;
    return v != NULL ? v : json_string(fallback);
}

static const char *const phase_names[] = {"lobby", "playing", "over"};
static const char *const escape_rules[] = {"siege-tile", "any-tile"};

const char *proto__phase_name(int phase)
{
    return phase >= 0 && phase < 3 ? phase_names[phase] : "lobby";
}

int proto__phase_find(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, phase_names[i]) == 0)
            return i;
    return -1;
}

const char *proto__escape_rule_name(int rule)
{
    return rule == CARC_ESCAPE_ANY_TILE ? escape_rules[1] : escape_rules[0];
}

int proto__escape_rule_find(const char *name)
{
    for (int i = 0; i < 2; i++)
        if (strcmp(name, escape_rules[i]) == 0)
            return i;
    return -1;
}

static const char *const farm_rules[] = {"third", "second", "first"}; /* enum carc_farm_rule */
static const char *const seat_orders[] = {"seated", "random"};

const char *proto__farm_rule_name(int rule)
{
    return rule > 0 && rule < 3 ? farm_rules[rule] : farm_rules[0];
}

int proto__farm_rule_find(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, farm_rules[i]) == 0)
            return i;
    return -1;
}

const char *proto__seat_order_name(int random)
{
    return seat_orders[random != 0];
}

int proto__seat_order_find(const char *name)
{
    for (int i = 0; i < 2; i++)
        if (strcmp(name, seat_orders[i]) == 0)
            return i;
    return -1;
}

json_t *proto__options_new(int no_farmers, int escape_rule, int farm_rule, int small_city,
                           int seat_random)
{
    int ok = 1;
    json_t *o = json_object();
    proto__set(o, "farmers", json_boolean(!no_farmers), &ok);
    proto__set(o, "siege_escape", json_string(proto__escape_rule_name(escape_rule)), &ok);
    proto__set(o, "farms", json_string(proto__farm_rule_name(farm_rule)), &ok);
    proto__set(o, "small_city", json_integer(small_city ? 2 : 4), &ok);
    proto__set(o, "seat_order", json_string(proto__seat_order_name(seat_random)), &ok);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *proto__sets_new(unsigned mask)
{
    int ok = 1;
    json_t *a = json_array();
    for (int s = 0; s < CARC_SET_COUNT; s++)
        if (mask & (1u << s))
            proto__add(a, json_string(carc_set_name(s)), &ok);
    if (!ok) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* ---- pointers ---- */

int proto__pointer_push(char *buf, size_t size, const char *key)
{
    size_t n = strlen(buf), need = 1;
    for (const char *k = key; *k != '\0'; k++)
        need += (*k == '~' || *k == '/') ? 2 : 1;
    if (n + need + 1 > size)
        return -1;
    char *p = buf + n;
    *p++ = '/';
    for (const char *k = key; *k != '\0'; k++) {
        if (*k == '~' || *k == '/') {
            *p++ = '~';
            *p++ = *k == '~' ? '0' : '1';
        } else {
            *p++ = *k;
        }
    }
    *p = '\0';
    return 0;
}

/* ---- diff ---- */

struct differ {
    json_t *ops;
    int ok;
};

static void op_emit(struct differ *d, const char *op, const char *path, const json_t *value)
{
    json_t *o = json_object();
    proto__set(o, "op", json_string(op), &d->ok);
    proto__set(o, "path", json_string(path), &d->ok);
    /* Shared, not copied: documents are immutable once built, and the ops
     * live only until they are dumped. */
    if (value != NULL)
        proto__set(o, "value", json_incref((json_t *)value), &d->ok);
    proto__add(d->ops, o, &d->ok);
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void diff_value(struct differ *d, const json_t *from, const json_t *to, char *path);

/* Insertion sort for the small objects of a state document, qsort for big ones. */
static void keys_sort(const char **keys, size_t n)
{
    if (n > 16) {
        qsort(keys, n, sizeof *keys, key_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        const char *k = keys[i];
        size_t j = i;
        for (; j > 0 && strcmp(keys[j - 1], k) > 0; j--)
            keys[j] = keys[j - 1];
        keys[j] = k;
    }
}

static void diff_object(struct differ *d, const json_t *from, const json_t *to, char *path)
{
    const char *small[32];
    size_t n = json_object_size(from) + json_object_size(to), k = 0;
    const char **keys = n <= 32 ? small : malloc(n * sizeof *keys);
    if (keys == NULL) {
        d->ok = 0;
        return;
    }
    const char *key;
    json_t *v;
    /* Only keys whose values are not shared need a look (and a sort). */
    json_object_foreach((json_t *)from, key, v) if (json_object_get(to, key) != v) keys[k++] = key;
    json_object_foreach((json_t *)to, key, v) if (json_object_get(from, key) == NULL) keys[k++] =
        key;
    keys_sort(keys, k);
    size_t len = strlen(path);
    for (size_t i = 0; i < k && d->ok; i++) {
        const json_t *a = json_object_get(from, keys[i]), *b = json_object_get(to, keys[i]);
        if (proto__pointer_push(path, PTR_MAX, keys[i]) != 0) {
            /* Too deep for our buffer: replacing the parent is still a correct patch. */
            path[len] = '\0';
            op_emit(d, "replace", path, to);
            break;
        }
        if (b == NULL)
            op_emit(d, "remove", path, NULL);
        else if (a == NULL)
            op_emit(d, "add", path, b);
        else
            diff_value(d, a, b, path);
        path[len] = '\0';
    }
    if (keys != small)
        free(keys);
}

static void diff_array(struct differ *d, const json_t *from, const json_t *to, char *path)
{
    size_t n = json_array_size(from), differ = 0;
    if (n != json_array_size(to)) {
        op_emit(d, "replace", path, to);
        return;
    }
    for (size_t i = 0; i < n; i++)
        differ += !json_equal(json_array_get(from, i), json_array_get(to, i));
    /* A list that changed almost everywhere (the legal placements) is smaller whole. */
    if (differ * 2 > n) {
        op_emit(d, "replace", path, to);
        return;
    }
    size_t len = strlen(path);
    for (size_t i = 0; i < n && d->ok; i++) {
        char idx[24];
        snprintf(idx, sizeof idx, "%zu", i);
        if (proto__pointer_push(path, PTR_MAX, idx) != 0) {
            path[len] = '\0';
            op_emit(d, "replace", path, to);
            break;
        }
        diff_value(d, json_array_get(from, i), json_array_get(to, i), path);
        path[len] = '\0';
    }
}

static void diff_value(struct differ *d, const json_t *from, const json_t *to, char *path)
{
    if (from == to)
        return; /* a subtree shared between the two documents */
    if (json_typeof(from) != json_typeof(to))
        op_emit(d, "replace", path, to);
    else if (json_is_object(from))
        diff_object(d, from, to, path);
    else if (json_is_array(from))
        diff_array(d, from, to, path);
    else if (!json_equal(from, to))
        op_emit(d, "replace", path, to);
}

json_t *proto__diff(const json_t *from, const json_t *to)
{
    char path[PTR_MAX] = "";
    struct differ d = {json_array(), 1};
    if (d.ops == NULL)
        return NULL;
    diff_value(&d, from, to, path);
    if (!d.ok) {
        json_decref(d.ops);
        return NULL;
    }
    return d.ops;
}

/* ---- apply ---- */

/* Unescape one reference token of ptr (which starts at a '/') into tok;
 * returns a pointer past it, or NULL on a bad escape or an overlong token. */
static const char *token_next(const char *ptr, char *tok, size_t size)
{
    size_t n = 0;
    for (ptr++; *ptr != '\0' && *ptr != '/'; ptr++) {
        char c = *ptr;
        if (c == '~') {
            if (ptr[1] != '0' && ptr[1] != '1')
                return NULL;
            c = ptr[1] == '0' ? '~' : '/';
            ptr++;
        }
        if (n + 1 >= size)
            return NULL;
        tok[n++] = c;
    }
    tok[n] = '\0';
    return ptr;
}

/* An array index token: digits without a leading zero; -1 when it is not one. */
static long array_index(const char *tok)
{
    size_t n = strlen(tok);
    if (n == 0 || n > 9 || (n > 1 && tok[0] == '0') || strspn(tok, "0123456789") != n)
        return -1;
    return strtol(tok, NULL, 10);
}

/* Resolve ptr: *parent is the container of the last token (NULL for the root),
 * tok its last token, and the result the value there (NULL when missing). */
static json_t *resolve(json_t *doc, const char *ptr, json_t **parent, char *tok, size_t size)
{
    json_t *cur = doc;
    *parent = NULL;
    tok[0] = '\0';
    if (ptr[0] != '\0' && ptr[0] != '/')
        return NULL;
    while (*ptr != '\0') {
        ptr = token_next(ptr, tok, size);
        if (cur == NULL || ptr == NULL) {
            *parent = NULL; /* a missing container, not a missing last member */
            return NULL;
        }
        *parent = cur;
        if (json_is_object(cur)) {
            cur = json_object_get(cur, tok);
        } else if (json_is_array(cur)) {
            long i = array_index(tok);
            cur = i >= 0 ? json_array_get(cur, (size_t)i) : NULL;
        } else {
            *parent = NULL;
            return NULL;
        }
    }
    return cur;
}

static int fail(char *why, size_t whylen, const char *what, const char *path)
{
    snprintf(why, whylen, "%s at \"%.80s\"", what, path);
    return -1;
}

/* add (insert for arrays), taking a reference to v. */
static int op_add(json_t **doc, const char *path, json_t *v, char *why, size_t whylen)
{
    json_t *parent;
    char tok[256];
    resolve(*doc, path, &parent, tok, sizeof tok);
    if (path[0] == '\0') {
        json_decref(*doc);
        *doc = v;
        return 0;
    }
    int rc = -1;
    if (json_is_object(parent)) {
        rc = json_object_set_new(parent, tok, v);
    } else if (json_is_array(parent)) {
        long i = strcmp(tok, "-") == 0 ? (long)json_array_size(parent) : array_index(tok);
        if (i >= 0 && (size_t)i <= json_array_size(parent))
            rc = json_array_insert_new(parent, (size_t)i, v);
        else
            json_decref(v);
    } else {
        json_decref(v);
    }
    return rc == 0 ? 0 : fail(why, whylen, "add: no parent", path);
}

static int op_remove(json_t **doc, const char *path, char *why, size_t whylen)
{
    json_t *parent;
    char tok[256];
    json_t *cur = resolve(*doc, path, &parent, tok, sizeof tok);
    if (cur == NULL || parent == NULL)
        return fail(why, whylen, "remove: no such value", path);
    if (json_is_object(parent))
        return json_object_del(parent, tok) == 0 ? 0 : fail(why, whylen, "remove", path);
    return json_array_remove(parent, (size_t)array_index(tok)) == 0
               ? 0
               : fail(why, whylen, "remove", path);
}

static int op_one(json_t **doc, const json_t *op, char *why, size_t whylen)
{
    const char *name = json_string_value(json_object_get(op, "op"));
    const char *path = json_string_value(json_object_get(op, "path"));
    const char *from = json_string_value(json_object_get(op, "from"));
    json_t *value = json_object_get(op, "value"), *parent;
    char tok[256];
    if (name == NULL || path == NULL)
        return fail(why, whylen, "operation without op or path", "");
    if (strcmp(name, "add") == 0 || strcmp(name, "replace") == 0) {
        if (value == NULL)
            return fail(why, whylen, "operation without value", path);
        if (name[0] == 'a' || path[0] == '\0')
            return op_add(doc, path, json_deep_copy(value), why, whylen);
        if (resolve(*doc, path, &parent, tok, sizeof tok) == NULL)
            return fail(why, whylen, "replace: no such value", path);
        /* Set in place: an object member keeps its position (clients show the
         * board in placement order). */
        int rc = json_is_object(parent)
                     ? json_object_set_new(parent, tok, json_deep_copy(value))
                     : json_array_set_new(parent, (size_t)array_index(tok), json_deep_copy(value));
        return rc == 0 ? 0 : fail(why, whylen, "replace", path);
    }
    if (strcmp(name, "remove") == 0)
        return op_remove(doc, path, why, whylen);
    if (strcmp(name, "test") == 0) {
        json_t *cur = resolve(*doc, path, &parent, tok, sizeof tok);
        return value != NULL && cur != NULL && json_equal(cur, value)
                   ? 0
                   : fail(why, whylen, "test failed", path);
    }
    if (strcmp(name, "move") == 0 || strcmp(name, "copy") == 0) {
        if (from == NULL)
            return fail(why, whylen, "operation without from", path);
        json_t *src = resolve(*doc, from, &parent, tok, sizeof tok);
        if (src == NULL)
            return fail(why, whylen, "no value at from", from);
        size_t fl = strlen(from);
        if (name[0] == 'm' && strncmp(path, from, fl) == 0 && path[fl] == '/')
            return fail(why, whylen, "move into itself", path);
        json_t *v = json_deep_copy(src);
        if (v == NULL)
            return fail(why, whylen, "out of memory", path);
        if (name[0] == 'm' && op_remove(doc, from, why, whylen) != 0) {
            json_decref(v);
            return -1;
        }
        return op_add(doc, path, v, why, whylen);
    }
    return fail(why, whylen, "unknown operation", path);
}

int proto__patch_apply(json_t **doc, const json_t *patch, char *why, size_t whylen)
{
    if (!json_is_array(patch))
        return fail(why, whylen, "patch is not an array", "");
    for (size_t i = 0; i < json_array_size(patch); i++) {
        const json_t *op = json_array_get(patch, i);
        if (!json_is_object(op))
            return fail(why, whylen, "operation is not an object", "");
        if (op_one(doc, op, why, whylen) != 0)
            return -1;
    }
    return 0;
}

/* ---- test hooks on text (tests may not include jansson.h) ---- */

char *proto__diff_text(const char *from, const char *to)
{
    json_t *a = json_loads(from, JSON_DECODE_ANY, NULL), *b = json_loads(to, JSON_DECODE_ANY, NULL);
    json_t *ops = a != NULL && b != NULL ? proto__diff(a, b) : NULL;
    json_decref(a);
    json_decref(b);
    return proto__dump_take(ops, 1);
}

char *proto__patch_text(const char *doc, const char *patch, char *why, size_t whylen)
{
    json_t *d = json_loads(doc, JSON_DECODE_ANY, NULL), *p = json_loads(patch, 0, NULL);
    char *out = NULL;
    snprintf(why, whylen, "not JSON");
    if (d != NULL && p != NULL && proto__patch_apply(&d, p, why, whylen) == 0)
        out = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(d);
    json_decref(p);
    return out;
}

int proto__dump_same(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    char *a = v != NULL ? proto__dump(v) : NULL;
    char *b = v != NULL ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    int same = a != NULL && b != NULL && strcmp(a, b) == 0 && strcmp(a, text) == 0;
    free(a);
    free(b);
    json_decref(v);
    return same;
}
