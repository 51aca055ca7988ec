/* msg.c: client messages from JSON text into struct proto_msg, and the small
 * server messages into text (see msg.h and PROTOCOL.md).
 *
 * Decoding checks, in order: size, JSON syntax (duplicate keys refused), the
 * top-level object, "id" (kept first so an error can still carry "ref"), "v",
 * "type", then every key against the type's list before any value is read,
 * so that a misspelt key is reported as itself rather than as a missing one. */
#include "msg.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "name.h"
#include "msg_int.h"
#include "patch.h"

#define FIELD_MAX 64
#define ID_ABS_MAX 9007199254740992LL /* 2^53: integers a JavaScript client keeps exactly */

static const char *const type_names[PROTO_T_COUNT] = {
#define X(name, wire) wire,
    PROTO_CLIENT_TYPES(X)
#undef X
};

const char *proto_type_name(int type)
{
    return type >= 0 && type < PROTO_T_COUNT ? type_names[type] : NULL;
}

/* ---- decoding helpers ---- */

int msg__bad(struct proto_error *err, int code, const char *field, const char *what)
{
    return proto_error_set(err, code, -1, field, "%s: %s", field, what);
}

static void path_key(char *out, const char *base, const char *key)
{
    snprintf(out, FIELD_MAX, "%s%s%s", base, base[0] != '\0' ? "." : "", key);
}

/* Every key of obj is in allowed (NULL-terminated) or in extra (may be NULL). */
int msg__check_keys(const json_t *obj, const char *path, const char *const *allowed,
                    const char *const *extra, struct proto_error *err)
{
    if (!json_is_object(obj))
        return msg__bad(err, CARC_E_INVAL, path[0] ? path : "message", "must be an object");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        int known = 0;
        for (const char *const *a = allowed; *a != NULL && !known; a++)
            known = strcmp(*a, key) == 0;
        for (const char *const *a = extra; a != NULL && *a != NULL && !known; a++)
            known = strcmp(*a, key) == 0;
        if (!known) {
            char field[FIELD_MAX];
            path_key(field, path, key);
            return msg__bad(err, CARC_E_INVAL, field, "unknown key");
        }
    }
    return 0;
}

/* obj[key] into *v; missing is an error when required. field receives the path. */
static int member(const json_t *obj, const char *path, const char *key, int required, json_t **v,
                  char *field, struct proto_error *err)
{
    path_key(field, path, key);
    *v = json_object_get(obj, key);
    if (*v == NULL && required)
        return msg__bad(err, CARC_E_INVAL, field, "missing");
    return 0;
}

/* An integer value into *out: a JSON integer, or a number written with a zero
 * fraction or an exponent (1.0, 1e2), which JSON (and JSON Schema's
 * "integer") count as the same number. 0 when v is anything else. */
static int int_of(const json_t *v, long long *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 1;
    }
    if (!json_is_real(v))
        return 0;
    double d = json_real_value(v);
    if (!(d >= -(double)ID_ABS_MAX && d <= (double)ID_ABS_MAX) || d != (double)(long long)d)
        return 0;
    *out = (long long)d;
    return 1;
}

/* The text of a string value, or NULL when v is not a string or holds U+0000
 * (decoded with JSON_ALLOW_NUL so that it is refused as a bad value, not as
 * malformed JSON; C strings cannot carry it). */
const char *msg__str_of(const json_t *v)
{
    const char *s = json_string_value(v);
    return s != NULL && strlen(s) == json_string_length(v) ? s : NULL;
}

int msg__get_int(const json_t *obj, const char *path, const char *key, int required, long long min,
                 long long max, long long *out, struct proto_error *err)
{
    char field[FIELD_MAX];
    json_t *v;
    int rc = member(obj, path, key, required, &v, field, err);
    if (rc != 0 || v == NULL)
        return rc;
    long long n;
    if (!int_of(v, &n))
        return msg__bad(err, CARC_E_INVAL, field, "must be an integer");
    if (n < min || n > max)
        return proto_error_set(err, CARC_E_INVAL, -1, field, "%s: must be in %lld..%lld", field,
                               min, max);
    *out = n;
    return 0;
}

static int get_bool(const json_t *obj, const char *path, const char *key, int *out,
                    struct proto_error *err)
{
    char field[FIELD_MAX];
    json_t *v;
    int rc = member(obj, path, key, 0, &v, field, err);
    if (rc != 0 || v == NULL)
        return rc;
    if (!json_is_boolean(v))
        return msg__bad(err, CARC_E_INVAL, field, "must be true or false");
    *out = json_is_true(v);
    return 0;
}

/* Text kinds: what a string may hold besides its length. */
enum text_kind { TEXT_NAME, TEXT_CHAT, TEXT_PASSWORD, TEXT_ROOM, TEXT_TOKEN, TEXT_FEATURE };

/* C0 and C1 control characters, and DEL. A chat keeps newlines. jansson has
 * already checked UTF-8; get_text has refused U+0000. */
static int has_control(const char *s, int allow_newline)
{
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if ((*p < 0x20 && !(allow_newline && *p == '\n')) || *p == 0x7F)
            return 1;
        if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
            return 1;
    }
    return 0;
}

static int text_ok(const char *s, size_t len, enum text_kind kind)
{
    switch (kind) {
    case TEXT_NAME:
        return len >= 1 && len <= PROTO_NAME_MAX - 1 && !has_control(s, 0);
    case TEXT_CHAT:
        return len >= 1 && len <= PROTO_CHAT_MAX && !has_control(s, 1);
    case TEXT_PASSWORD:
        return len <= PROTO_PASSWORD_MAX - 1 && !has_control(s, 0);
    case TEXT_ROOM:
        return len >= 1 && len <= PROTO_ROOM_MAX - 1 &&
               strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == len;
    case TEXT_TOKEN:
        return len == PROTO_TOKEN_MAX - 1 && strspn(s, "0123456789abcdef") == len;
    case TEXT_FEATURE:
        return len >= 1 && len <= PROTO_FEATURE_MAX - 1 &&
               strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789") == len;
    }
    return 0;
}

static const char *const text_rules[] = {
    "must be 1 to 32 bytes without control characters",
    "must be 1 to 280 bytes without control characters other than newline",
    "must be at most 64 bytes without control characters",
    "must be 1 to 16 letters or digits",
    "must be 32 lowercase hex digits",
    "must be a feature name such as \"c1\"",
};

/* A string member copied into out (size bytes, large enough for the kind). */
static int get_text(const json_t *obj, const char *path, const char *key, int required,
                    enum text_kind kind, char *out, size_t size, struct proto_error *err)
{
    char field[FIELD_MAX];
    json_t *v;
    int rc = member(obj, path, key, required, &v, field, err);
    if (rc != 0 || v == NULL)
        return rc;
    if (!json_is_string(v))
        return msg__bad(err, CARC_E_INVAL, field, "must be a string");
    const char *s = msg__str_of(v);
    if (s == NULL)
        return msg__bad(err, CARC_E_INVAL, field, "must not contain U+0000");
    size_t len = json_string_length(v);
    if (len >= size || !text_ok(s, len, kind))
        return msg__bad(err, CARC_E_INVAL, field, text_rules[kind]);
    memcpy(out, s, len + 1);
    if (kind != TEXT_NAME)
        return 0;
    /* A name is shown alone: nothing in it may make it pass for another
     * (name.h). It is kept without the white space around it. */
    char why[96];
    size_t n = proto_name_trim(out);
    memset(out + n, 0, len + 1 - n); /* nothing of the untrimmed text stays behind */
    if (n == 0)
        return msg__bad(err, CARC_E_INVAL, field, "must not be blank");
    if (proto_name_check(out, why, sizeof why) != 0)
        return msg__bad(err, CARC_E_INVAL, field, why);
    return 0;
}

/* ---- per-type readers ---- */

typedef int (*reader_fn)(const json_t *root, struct proto_msg *m, struct proto_error *err);

static int read_none(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    (void)root, (void)m, (void)err;
    return 0;
}

static int read_sets(const json_t *v, unsigned *sets, struct proto_error *err)
{
    *sets = 1u << CARC_SET_BASE;
    if (v == NULL)
        return 0;
    if (!json_is_array(v))
        return msg__bad(err, CARC_E_INVAL, "sets", "must be a list of set names");
    unsigned seen = 0;
    for (size_t i = 0; i < json_array_size(v); i++) {
        char field[FIELD_MAX];
        snprintf(field, sizeof field, "sets[%zu]", i);
        const json_t *s = json_array_get(v, i);
        if (msg__str_of(s) == NULL)
            return msg__bad(err, CARC_E_INVAL, field, "must be a set name");
        int set = carc_set_find(msg__str_of(s));
        if (set < 0)
            return proto_error_set(err, CARC_E_SETS, -1, field, "%s: unknown set \"%.40s\"", field,
                                   json_string_value(s));
        if (seen & (1u << set))
            return msg__bad(err, CARC_E_SETS, field, "set named twice");
        seen |= 1u << set;
    }
    *sets |= seen;
    return 0;
}

static int read_options(const json_t *v, struct proto_msg *m, struct proto_error *err)
{
    static const char *const keys[] = {"farmers",    "siege_escape", "farms",
                                       "small_city", "seat_order",   NULL};
    int farmers = 1;
    if (v == NULL)
        return 0;
    int rc = msg__check_keys(v, "options", keys, NULL, err);
    if (rc == 0)
        rc = get_bool(v, "options", "farmers", &farmers, err);
    if (rc != 0)
        return rc;
    m->u.create.no_farmers = !farmers;
    const json_t *e = json_object_get(v, "siege_escape");
    if (e != NULL) {
        int rule = msg__str_of(e) != NULL ? proto__escape_rule_find(msg__str_of(e)) : -1;
        if (rule < 0)
            return msg__bad(err, CARC_E_INVAL, "options.siege_escape",
                            "must be \"siege-tile\" or \"any-tile\"");
        m->u.create.escape_rule = rule;
    }
    const json_t *f = json_object_get(v, "farms");
    if (f != NULL) {
        int rule = msg__str_of(f) != NULL ? proto__farm_rule_find(msg__str_of(f)) : -1;
        if (rule < 0)
            return msg__bad(err, CARC_E_INVAL, "options.farms",
                            "must be \"third\", \"second\" or \"first\"");
        m->u.create.farm_rule = rule;
    }
    const json_t *c = json_object_get(v, "small_city");
    if (c != NULL) {
        if (!json_is_integer(c) || (json_integer_value(c) != 4 && json_integer_value(c) != 2))
            return msg__bad(err, CARC_E_INVAL, "options.small_city", "must be 4 or 2");
        m->u.create.small_city = json_integer_value(c) == 2;
    }
    const json_t *o = json_object_get(v, "seat_order");
    if (o != NULL) {
        int order = msg__str_of(o) != NULL ? proto__seat_order_find(msg__str_of(o)) : -1;
        if (order < 0)
            return msg__bad(err, CARC_E_INVAL, "options.seat_order",
                            "must be \"seated\" or \"random\"");
        m->u.create.seat_random = order;
    }
    return 0;
}

static const char *const timeout_names[] = {"bot", "skip", "forfeit"};

const char *proto_timeout_name(int policy)
{
    return policy >= 0 && policy <= PROTO_TIMEOUT_FORFEIT ? timeout_names[policy] : NULL;
}

static int read_create(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    long long seats = 0;
    int rc = get_text(root, "", "name", 1, TEXT_NAME, m->u.create.name, PROTO_NAME_MAX, err);
    if (rc == 0)
        rc = msg__get_int(root, "", "seats", 1, -ID_ABS_MAX, ID_ABS_MAX, &seats, err);
    /* Out of range is the player count's own code, as for 6 without the set. */
    if (rc == 0 && (seats < 2 || seats > CARC_MAX_PLAYERS))
        rc = msg__bad(err, CARC_E_PLAYERS, "seats",
                      "must be 2 to 6 (a 6th seat needs inns-cathedrals)");
    if (rc == 0)
        rc = read_sets(json_object_get(root, "sets"), &m->u.create.sets, err);
    if (rc == 0)
        rc = read_options(json_object_get(root, "options"), m, err);
    if (rc == 0)
        rc = get_bool(root, "", "private", &m->u.create.private_room, err);
    if (rc == 0)
        rc = get_bool(root, "", "rated", &m->u.create.rated, err);
    if (rc == 0)
        rc = get_text(root, "", "password", 0, TEXT_PASSWORD, m->u.create.password,
                      PROTO_PASSWORD_MAX, err);
    if (rc == 0)
        rc = msg__read_clock(json_object_get(root, "clock"), m, err);
    if (rc != 0)
        return rc;
    m->u.create.seats = (int)seats;
    /* The engine's rule, checked here so the room is never made unplayable. */
    if (seats == CARC_MAX_PLAYERS && !(m->u.create.sets & (1u << CARC_SET_INNS_CATHEDRALS)))
        return msg__bad(err, CARC_E_PLAYERS, "seats", "6 seats need the inns-cathedrals set");
    return 0;
}

static int read_join(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    int rc = get_text(root, "", "room", 1, TEXT_ROOM, m->u.join.room, PROTO_ROOM_MAX, err);
    if (rc == 0)
        rc = get_text(root, "", "name", 1, TEXT_NAME, m->u.join.name, PROTO_NAME_MAX, err);
    if (rc == 0)
        rc = get_text(root, "", "password", 0, TEXT_PASSWORD, m->u.join.password,
                      PROTO_PASSWORD_MAX, err);
    return rc;
}

static int read_resume(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    int rc = get_text(root, "", "room", 1, TEXT_ROOM, m->u.resume.room, PROTO_ROOM_MAX, err);
    if (rc == 0)
        rc = get_text(root, "", "token", 0, TEXT_TOKEN, m->u.resume.token, PROTO_TOKEN_MAX, err);
    if (rc == 0)
        rc = msg__get_int(root, "", "seq", 0, 0, ID_ABS_MAX, &m->u.resume.seq, err);
    return rc;
}

static int read_watch(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    int rc = get_text(root, "", "room", 1, TEXT_ROOM, m->u.watch.room, PROTO_ROOM_MAX, err);
    if (rc == 0)
        rc = msg__get_int(root, "", "seq", 0, 0, ID_ABS_MAX, &m->u.watch.seq, err);
    return rc;
}

static int read_sync(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    return msg__get_int(root, "", "seq", 0, 0, ID_ABS_MAX, &m->u.sync.seq, err);
}

static int read_chat(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    return get_text(root, "", "text", 1, TEXT_CHAT, m->u.chat.text, sizeof m->u.chat.text, err);
}

static int read_xy(const json_t *obj, const char *path, int *x, int *y, struct proto_error *err)
{
    long long a = 0, b = 0;
    int rc = msg__get_int(obj, path, "x", 1, -CARC_COORD_MAX, CARC_COORD_MAX, &a, err);
    if (rc == 0)
        rc = msg__get_int(obj, path, "y", 1, -CARC_COORD_MAX, CARC_COORD_MAX, &b, err);
    *x = (int)a;
    *y = (int)b;
    return rc;
}

static int read_meeple(const json_t *v, struct proto_msg *m, struct proto_error *err)
{
    static const char *const keys[] = {"feature", "kind", NULL};
    int rc = msg__check_keys(v, "meeple", keys, NULL, err);
    if (rc == 0)
        rc = get_text(v, "meeple", "feature", 1, TEXT_FEATURE, m->u.play.feature, PROTO_FEATURE_MAX,
                      err);
    if (rc != 0)
        return rc;
    if (carc_tile_seg_find(m->u.play.tile, m->u.play.feature) < 0)
        return proto_error_set(err, CARC_E_FEATURE, -1, "meeple.feature",
                               "meeple.feature: tile %s has no feature \"%s\"",
                               carc_tiles[m->u.play.tile].id, m->u.play.feature);
    const json_t *k = json_object_get(v, "kind");
    if (k == NULL)
        return 0;
    const char *kind = msg__str_of(k);
    if (kind != NULL && strcmp(kind, "large") == 0)
        m->u.play.large = 1;
    else if (kind == NULL || strcmp(kind, "normal") != 0)
        return msg__bad(err, CARC_E_INVAL, "meeple.kind", "must be \"normal\" or \"large\"");
    return 0;
}

static int read_escape(const json_t *v, struct proto_msg *m, struct proto_error *err)
{
    static const char *const keys[] = {"x", "y", "feature", NULL};
    int rc = msg__check_keys(v, "escape", keys, NULL, err);
    if (rc == 0)
        rc = read_xy(v, "escape", &m->u.play.ex, &m->u.play.ey, err);
    /* The feature is named on the knight's tile, which only the room knows. */
    if (rc == 0)
        rc = get_text(v, "escape", "feature", 1, TEXT_FEATURE, m->u.play.efeature,
                      PROTO_FEATURE_MAX, err);
    if (rc == 0)
        m->u.play.escape = 1;
    return rc;
}

static int read_play(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    const json_t *t = json_object_get(root, "tile");
    if (t == NULL)
        return msg__bad(err, CARC_E_INVAL, "tile", "missing");
    if (msg__str_of(t) == NULL)
        return msg__bad(err, CARC_E_INVAL, "tile", "must be a tile id such as \"BA.D\"");
    m->u.play.tile = carc_tile_find(msg__str_of(t));
    if (m->u.play.tile < 0)
        return proto_error_set(err, CARC_E_TILE, -1, "tile", "tile: unknown tile id \"%.40s\"",
                               json_string_value(t));
    int rc = read_xy(root, "", &m->u.play.x, &m->u.play.y, err);
    if (rc != 0)
        return rc;
    const json_t *r = json_object_get(root, "rot");
    long long rot = -1;
    if (r != NULL && !int_of(r, &rot))
        rot = -1;
    if (r == NULL)
        return msg__bad(err, CARC_E_INVAL, "rot", "missing");
    if (rot < 0 || rot > 270 || rot % 90 != 0)
        return msg__bad(err, CARC_E_ROT, "rot", "must be 0, 90, 180 or 270");
    m->u.play.rot = (int)(rot / 90);
    const json_t *v = json_object_get(root, "meeple");
    if (v != NULL && !json_is_null(v))
        rc = read_meeple(v, m, err);
    v = json_object_get(root, "escape");
    if (rc == 0 && v != NULL && !json_is_null(v))
        rc = read_escape(v, m, err);
    return rc;
}

static int read_add_bot(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    const json_t *v = json_object_get(root, "level");
    int level = msg__str_of(v) != NULL ? carc_bot_level_find(msg__str_of(v)) : -1;
    if (level < 0)
        return msg__bad(err, CARC_E_INVAL, "level", "must be \"random\", \"greedy\" or \"strong\"");
    m->u.add_bot.level = level;
    return 0;
}

static int read_remove_bot(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    long long seat = 0;
    int rc = msg__get_int(root, "", "seat", 1, 0, CARC_MAX_PLAYERS - 1, &seat, err);
    m->u.remove_bot.seat = (int)seat;
    return rc;
}

/* 32 bytes as 64 lowercase hex digits: the size and the spelling are the whole check. */
static int read_entropy(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    const char *s = msg__str_of(json_object_get(root, "data"));
    if (json_object_get(root, "data") == NULL)
        return msg__bad(err, CARC_E_INVAL, "data", "missing");
    if (s == NULL || strlen(s) != PROTO_ENTROPY_MAX - 1 ||
        strspn(s, "0123456789abcdef") != PROTO_ENTROPY_MAX - 1)
        return msg__bad(err, CARC_E_INVAL, "data", "must be 64 lowercase hex digits (32 bytes)");
    memcpy(m->u.entropy.data, s, PROTO_ENTROPY_MAX);
    return 0;
}

static const char *const keys_none[] = {NULL};
static const char *const keys_entropy[] = {"data", NULL};
static const char *const keys_create[] = {"name",     "seats", "sets",  "options", "private",
                                          "password", "clock", "rated", NULL};
static const char *const keys_add_bot[] = {"level", NULL};
static const char *const keys_remove_bot[] = {"seat", NULL};
static const char *const keys_join[] = {"room", "name", "password", NULL};
static const char *const keys_resume[] = {"room", "token", "seq", NULL};
static const char *const keys_watch[] = {"room", "seq", NULL};
static const char *const keys_play[] = {"tile", "x", "y", "rot", "meeple", "escape", NULL};
static const char *const keys_chat[] = {"text", NULL};
static const char *const keys_sync[] = {"seq", NULL};
static const char *const keys_frame[] = {"v", "type", "id", NULL};

static const struct {
    const char *const *keys;
    reader_fn read;
} readers[PROTO_T_COUNT] = {
    [PROTO_T_LIST] = {keys_none, read_none},
    [PROTO_T_CREATE] = {keys_create, read_create},
    [PROTO_T_JOIN] = {keys_join, read_join},
    [PROTO_T_RESUME] = {keys_resume, read_resume},
    [PROTO_T_WATCH] = {keys_watch, read_watch},
    [PROTO_T_LEAVE] = {keys_none, read_none},
    [PROTO_T_START] = {keys_none, read_none},
    [PROTO_T_PLAY] = {keys_play, read_play},
    [PROTO_T_CHAT] = {keys_chat, read_chat},
    [PROTO_T_SYNC] = {keys_sync, read_sync},
    [PROTO_T_PING] = {keys_none, read_none},
    [PROTO_T_ADD_BOT] = {keys_add_bot, read_add_bot},
    [PROTO_T_REMOVE_BOT] = {keys_remove_bot, read_remove_bot},
    [PROTO_T_HISTORY] = {keys_none, read_none},
    [PROTO_T_ENTROPY] = {keys_entropy, read_entropy},
    [PROTO_T_REMATCH] = {keys_none, read_none},
};

/* "id": a string or an integer with |n| <= 2^53, kept as compact JSON (an
 * integer as its digits, however the client spelt it). */
static int read_id(const json_t *root, struct proto_msg *m, struct proto_error *err)
{
    const json_t *id = json_object_get(root, "id");
    if (id == NULL)
        return 0;
    long long n = 0;
    if (json_is_integer(id)) {
        n = json_integer_value(id);
        if (n < -ID_ABS_MAX || n > ID_ABS_MAX)
            return msg__bad(err, CARC_E_INVAL, "id", "must be an integer of at most 2^53");
    } else if (!json_is_string(id) && !int_of(id, &n)) {
        return msg__bad(err, CARC_E_INVAL, "id", "must be a string or an integer");
    }
    if (!json_is_string(id)) {
        /* Any spelling of an integer (24, 24.0, 2.4e1) is that integer, and
         * the reply's ref is it as an integer: 24. */
        snprintf(m->id, sizeof m->id, "%lld", n);
        return 0;
    }
    char *s = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);
    if (s == NULL)
        return msg__bad(err, CARC_E_NOMEM, "id", "out of memory");
    size_t len = strlen(s);
    if (len < sizeof m->id)
        memcpy(m->id, s, len + 1);
    free(s);
    if (len >= sizeof m->id)
        return msg__bad(err, CARC_E_INVAL, "id", "must be at most 63 bytes as JSON");
    return 0;
}

int proto_msg_decode(const char *text, size_t len, struct proto_msg *m, struct proto_error *err)
{
    memset(m, 0, sizeof *m);
    m->type = -1;
    if (len > PROTO_MSG_MAX)
        return proto_error_set(err, CARC_E_TOO_BIG, -1, "", "the message is larger than %d bytes",
                               PROTO_MSG_MAX);
    json_error_t jerr;
    /* JSON_ALLOW_NUL: "\u0000" is valid JSON, refused later as a bad value. */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (root == NULL)
        return proto_error_set(err, CARC_E_JSON, -1, "", "line %d column %d: %.120s", jerr.line,
                               jerr.column, jerr.text);
    int rc = 0;
    if (!json_is_object(root))
        rc = msg__bad(err, CARC_E_INVAL, "message", "must be an object");
    if (rc == 0)
        rc = read_id(root, m, err);
    long long v = 0;
    if (rc == 0 && (!int_of(json_object_get(root, "v"), &v) || v != PROTO_VERSION))
        rc = msg__bad(err, CARC_E_VERSION, "v", "must be 2");
    const char *type = msg__str_of(json_object_get(root, "type"));
    if (rc == 0 && type == NULL)
        rc = msg__bad(err, CARC_E_INVAL, "type", "must be a message type such as \"play\"");
    for (int t = 0; rc == 0 && t < PROTO_T_COUNT && m->type < 0; t++)
        if (strcmp(type, type_names[t]) == 0)
            m->type = t;
    if (rc == 0 && m->type < 0)
        rc = proto_error_set(err, CARC_E_TYPE, -1, "type", "type: unknown message type \"%.40s\"",
                             type);
    if (rc == 0) {
        /* The union's only non-zero defaults, set for their own type alone. */
        if (m->type == PROTO_T_RESUME)
            m->u.resume.seq = -1;
        if (m->type == PROTO_T_WATCH)
            m->u.watch.seq = -1;
        if (m->type == PROTO_T_SYNC)
            m->u.sync.seq = -1;
        rc = msg__check_keys(root, "", readers[m->type].keys, keys_frame, err);
    }
    if (rc == 0)
        rc = readers[m->type].read(root, m, err);
    json_decref(root);
    return rc;
}

/* ---- server messages ---- */

char *proto_encode_welcome(const char *server, int message_bytes, int messages_per_second,
                           long long now_ms)
{
    int ok = 1;
    json_t *o = proto__frame_new(PROTO_S_WELCOME, NULL);
    json_t *limits = json_object();
    proto__set(o, "server", proto__string_or(server, "carcd"), &ok);
    proto__set(limits, "message_bytes", json_integer(message_bytes), &ok);
    proto__set(limits, "messages_per_second", json_integer(messages_per_second), &ok);
    proto__set(limits, "chat_bytes", json_integer(PROTO_CHAT_MAX), &ok);
    proto__set(o, "limits", limits, &ok);
    proto__set(o, "time", json_integer(now_ms), &ok);
    return proto__dump_take(o, ok);
}

char *proto_encode_error(int code, const char *message, const char *ref)
{
    int ok = 1;
    json_t *o = proto__frame_new(PROTO_S_ERROR, ref);
    proto__set(o, "code", json_string(carc_err_name(code)), &ok);
    /* A message may quote bytes of the input; fall back to the table's text. */
    const char *text = message != NULL && message[0] != '\0' ? message : carc_err_str(code);
    proto__set(o, "message", proto__string_or(text, carc_err_str(code)), &ok);
    return proto__dump_take(o, ok);
}

char *proto_encode_joined(const char *room, int seat, const char *token, const char *ref)
{
    int ok = 1;
    json_t *o = proto__frame_new(PROTO_S_JOINED, ref);
    proto__set(o, "room", json_string(room), &ok);
    proto__set(o, "seat", json_integer(seat), &ok);
    if (token != NULL)
        proto__set(o, "token", json_string(token), &ok);
    return proto__dump_take(o, ok);
}

char *proto_encode_watching(const char *room, const char *ref)
{
    int ok = 1;
    json_t *o = proto__frame_new(PROTO_S_WATCHING, ref);
    proto__set(o, "room", json_string(room), &ok);
    return proto__dump_take(o, ok);
}

char *proto_encode_left(const char *ref)
{
    return proto__dump_take(proto__frame_new(PROTO_S_LEFT, ref), 1);
}

char *proto_encode_pong(const char *ref)
{
    return proto__dump_take(proto__frame_new(PROTO_S_PONG, ref), 1);
}

char *proto_encode_ack(long long seq, const char *ref)
{
    int ok = 1;
    json_t *o = proto__frame_new(PROTO_S_ACK, ref);
    proto__set(o, "seq", json_integer(seq), &ok);
    return proto__dump_take(o, ok);
}

char *proto_encode_synced(long long seq, const char *ref)
{
    int ok = 1;
    json_t *o = proto__frame_new(PROTO_S_SYNCED, ref);
    proto__set(o, "seq", json_integer(seq), &ok);
    return proto__dump_take(o, ok);
}

char *proto_encode_chat(int seat, const char *name, const char *text)
{
    int ok = 1;
    json_t *o = proto__frame_new(PROTO_S_CHAT, NULL);
    proto__set(o, "seat", seat >= 0 ? json_integer(seat) : json_null(), &ok);
    proto__set(o, "name", proto__string_or(name, "?"), &ok);
    proto__set(o, "text", proto__string_or(text, ""), &ok);
    return proto__dump_take(o, ok);
}

char *proto_encode_notice(const char *text, const char *room)
{
    int ok = 1;
    json_t *o = proto__frame_new(PROTO_S_NOTICE, NULL);
    proto__set(o, "text", json_string(text), &ok);
    if (room != NULL)
        proto__set(o, "room", json_string(room), &ok);
    return proto__dump_take(o, ok);
}

char *proto_encode_rematch(const char *room, const char *host, int seat, const char *ref)
{
    int ok = 1;
    json_t *o = proto__frame_new(PROTO_S_REMATCH, ref);
    proto__set(o, "room", json_string(room), &ok);
    proto__set(o, "host", proto__string_or(host, "?"), &ok);
    proto__set(o, "seat", seat >= 0 ? json_integer(seat) : json_null(), &ok);
    return proto__dump_take(o, ok);
}

char *proto_encode_redirect(const char *room, const char *node, const char *path, int retry_ms,
                            const char *ref)
{
    int ok = 1;
    json_t *o = proto__frame_new(PROTO_S_REDIRECT, ref);
    proto__set(o, "room", json_string(room), &ok);
    proto__set(o, "node", json_string(node), &ok);
    proto__set(o, "path", json_string(path), &ok);
    proto__set(o, "retry_ms", json_integer(retry_ms), &ok);
    return proto__dump_take(o, ok);
}

static json_t *room_entry_new(const struct proto_room_summary *r, int *ok)
{
    json_t *o = json_object();
    proto__set(o, "room", json_string(r->room), ok);
    proto__set(o, "seats", json_integer(r->seats), ok);
    proto__set(o, "taken", json_integer(r->taken), ok);
    proto__set(o, "phase", json_string(proto__phase_name(r->phase)), ok);
    proto__set(o, "sets", proto__sets_new(r->sets | (1u << CARC_SET_BASE)), ok);
    proto__set(o, "options",
               proto__options_new(r->no_farmers, r->escape_rule, r->farm_rule, r->small_city,
                                  r->seat_random),
               ok);
    proto__set(o, "password", json_boolean(r->password), ok);
    if (r->rated)
        proto__set(o, "rated", json_true(), ok);
    proto__set(o, "host", r->host != NULL ? proto__string_or(r->host, "?") : json_null(), ok);
    return o;
}

char *proto_encode_room_entry(const struct proto_room_summary *room)
{
    int ok = 1;
    return proto__dump_take(room_entry_new(room, &ok), ok);
}

char *proto_encode_rooms(const struct proto_room_summary *rooms, int n, const char *ref,
                         int as_message)
{
    int ok = 1;
    json_t *list = json_array();
    for (int i = 0; i < n; i++) {
        const struct proto_room_summary *r = &rooms[i];
        if (r->json == NULL) {
            proto__add(list, room_entry_new(r, &ok), &ok);
            continue;
        }
        /* Another node's entry: whole or not at all. */
        json_t *o = json_loads(r->json, JSON_REJECT_DUPLICATES, NULL);
        if (json_is_object(o))
            proto__add(list, o, &ok);
        else
            json_decref(o);
    }
    if (!as_message)
        return proto__dump_take(list, ok);
    json_t *o = proto__frame_new(PROTO_S_ROOMS, ref);
    proto__set(o, "rooms", list, &ok);
    return proto__dump_take(o, ok);
}
