/* record.c: game record JSON <-> struct carc_record (see record.h).
 *
 * Loading walks the document once, checking every object's keys against the
 * list of keys it may have before reading any value, so that a typo is
 * reported as the unknown key rather than as a missing default. */
#include "record_json.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "fair.h"
#include "patch.h"
#include "record_int.h"

#define PATH_MAX_LEN 64

static const char *const escape_rules[] = {"siege-tile", "any-tile"}; /* enum carc_escape_rule */

/* Join a parent path and a key: "" + "moves" -> "moves", "moves[3]" + "x" -> "moves[3].x".
 * Our paths are at most ~30 bytes; a longer one (an unknown key) is cut short. */
static void path_key(char *out, const char *base, const char *key)
{
    int n = snprintf(out, PATH_MAX_LEN, "%s%s%s", base, base[0] != '\0' ? "." : "", key);
    if (n < 0)
        out[0] = '\0';
}

static void path_index(char *out, const char *base, size_t i)
{
    int n = snprintf(out, PATH_MAX_LEN, "%s[%zu]", base, i);
    if (n < 0)
        out[0] = '\0';
}

struct loader {
    struct proto_error *err;
    int move; /* index of the move being read, -1 outside moves */
};

static int bad(struct loader *ld, int code, const char *field, const char *what)
{
    return proto_error_set(ld->err, code, ld->move, field, "%s: %s", field[0] ? field : "record",
                           what);
}

/* An object whose keys are all in `allowed` (NULL-terminated). */
static int check_object(struct loader *ld, const json_t *obj, const char *path,
                        const char *const *allowed)
{
    if (!json_is_object(obj))
        return bad(ld, CARC_E_RECORD, path, "must be an object");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        int known = 0;
        for (const char *const *a = allowed; *a != NULL && !known; a++)
            known = strcmp(*a, key) == 0;
        if (!known) {
            char field[PATH_MAX_LEN];
            path_key(field, path, key);
            return bad(ld, CARC_E_RECORD, field, "unknown key");
        }
    }
    return 0;
}

/* Member `key` of obj; *v is NULL when absent and not required. */
static int member(struct loader *ld, const json_t *obj, const char *path, const char *key,
                  int required, json_t **v, char *field)
{
    path_key(field, path, key);
    *v = json_object_get(obj, key);
    if (*v == NULL && required)
        return bad(ld, CARC_E_RECORD, field, "missing");
    return 0;
}

static int get_int(struct loader *ld, const json_t *v, const char *field, long long min,
                   long long max, long long *out)
{
    if (!json_is_integer(v))
        return bad(ld, CARC_E_RECORD, field, "must be an integer");
    long long n = json_integer_value(v);
    if (n < min || n > max)
        return proto_error_set(ld->err, CARC_E_RECORD, ld->move, field, "%s: must be in %lld..%lld",
                               field, min, max);
    *out = n;
    return 0;
}

static int get_string(struct loader *ld, const json_t *v, const char *field, const char **out)
{
    if (!json_is_string(v))
        return bad(ld, CARC_E_RECORD, field, "must be a string");
    *out = json_string_value(v);
    return 0;
}

static int get_tile(struct loader *ld, const json_t *v, const char *field, int code, int *out)
{
    const char *id = NULL;
    int rc = get_string(ld, v, field, &id);
    if (rc != 0)
        return rc;
    *out = carc_tile_find(id);
    if (*out < 0)
        return proto_error_set(ld->err, code, ld->move, field, "%s: unknown tile id \"%.40s\"",
                               field, id);
    return 0;
}

static int load_sets(struct loader *ld, const json_t *v, const char *field, unsigned *sets)
{
    if (!json_is_array(v) || json_array_size(v) == 0)
        return bad(ld, CARC_E_SETS, field, "must be a non-empty list of set names");
    *sets = 0;
    size_t i;
    json_t *s;
    json_array_foreach(v, i, s)
    {
        char f[PATH_MAX_LEN];
        const char *name = NULL;
        path_index(f, field, i);
        int rc = get_string(ld, s, f, &name);
        if (rc != 0)
            return rc;
        int set = carc_set_find(name);
        if (set < 0)
            return proto_error_set(ld->err, CARC_E_SETS, ld->move, f, "%s: unknown set \"%.40s\"",
                                   f, name);
        if (*sets & (1u << set))
            return bad(ld, CARC_E_SETS, f, "set named twice");
        *sets |= 1u << set;
    }
    return 0;
}

/* options.farms, small_city and seat_order (RULES.md 2.8); absent: the defaults. */
static int load_variants(struct loader *ld, const json_t *v, struct carc_record *rec)
{
    char field[PATH_MAX_LEN];
    json_t *m = NULL;
    const char *name = NULL;
    int rc = member(ld, v, "options", "farms", 0, &m, field);
    if (rc == 0 && m != NULL && (rc = get_string(ld, m, field, &name)) == 0) {
        rec->farm_rule = proto__farm_rule_find(name);
        if (rec->farm_rule < 0)
            return bad(ld, CARC_E_RECORD, field, "must be \"third\", \"second\" or \"first\"");
    }
    if (rc == 0)
        rc = member(ld, v, "options", "small_city", 0, &m, field);
    if (rc == 0 && m != NULL) {
        if (!json_is_integer(m) || (json_integer_value(m) != 4 && json_integer_value(m) != 2))
            return bad(ld, CARC_E_RECORD, field, "must be 4 or 2");
        rec->small_city = json_integer_value(m) == 2;
    }
    if (rc == 0)
        rc = member(ld, v, "options", "seat_order", 0, &m, field);
    if (rc == 0 && m != NULL && (rc = get_string(ld, m, field, &name)) == 0) {
        rec->seat_random = proto__seat_order_find(name);
        if (rec->seat_random < 0)
            return bad(ld, CARC_E_RECORD, field, "must be \"seated\" or \"random\"");
    }
    return rc;
}

static int load_options(struct loader *ld, const json_t *v, struct carc_record *rec)
{
    static const char *const keys[] = {"siege_escape", "farmers",    "farms",
                                       "small_city",   "seat_order", NULL};
    char field[PATH_MAX_LEN];
    json_t *m = NULL;
    int rc = check_object(ld, v, "options", keys);
    if (rc == 0)
        rc = member(ld, v, "options", "siege_escape", 0, &m, field);
    if (rc == 0 && m != NULL) {
        const char *name = NULL;
        rc = get_string(ld, m, field, &name);
        if (rc != 0)
            return rc;
        rec->escape_rule = -1;
        for (int i = 0; i < 2; i++)
            if (strcmp(name, escape_rules[i]) == 0)
                rec->escape_rule = i;
        if (rec->escape_rule < 0)
            return bad(ld, CARC_E_RECORD, field, "must be \"siege-tile\" or \"any-tile\"");
    }
    if (rc == 0)
        rc = member(ld, v, "options", "farmers", 0, &m, field);
    if (rc == 0 && m != NULL) {
        if (!json_is_boolean(m))
            return bad(ld, CARC_E_RECORD, field, "must be true or false");
        rec->no_farmers = !json_is_true(m);
    }
    return rc == 0 ? load_variants(ld, v, rec) : rc;
}

/* A player's optional "bot" (a level name, or null) and "forfeited" (bool). */
static int load_player_marks(struct loader *ld, const json_t *p, const char *path,
                             struct carc_record *rec, int i)
{
    char field[PATH_MAX_LEN];
    json_t *m = NULL;
    int rc = member(ld, p, path, "bot", 0, &m, field);
    if (rc == 0 && m != NULL && !json_is_null(m)) {
        const char *level = NULL;
        rc = get_string(ld, m, field, &level);
        if (rc != 0)
            return rc;
        if (carc_bot_level_find(level) < 0)
            return bad(ld, CARC_E_RECORD, field, "must be \"random\", \"greedy\" or \"strong\"");
        snprintf(rec->bots[i], sizeof rec->bots[i], "%s", level);
    }
    if (rc == 0)
        rc = member(ld, p, path, "forfeited", 0, &m, field);
    if (rc == 0 && m != NULL) {
        if (!json_is_boolean(m))
            return bad(ld, CARC_E_RECORD, field, "must be true or false");
        rec->forfeited[i] = json_is_true(m);
    }
    return rc;
}

static int load_players(struct loader *ld, const json_t *v, struct carc_record *rec)
{
    static const char *const keys[] = {"name", "bot", "forfeited", NULL};
    if (!json_is_array(v))
        return bad(ld, CARC_E_RECORD, "players", "must be a list");
    size_t n = json_array_size(v);
    if (n < 1 || n > CARC_MAX_PLAYERS)
        return bad(ld, CARC_E_PLAYERS, "players", "must list 1 to 6 players");
    rec->nplayers = (int)n;
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX_LEN], field[PATH_MAX_LEN];
        const json_t *p = json_array_get(v, i);
        json_t *m = NULL;
        const char *name = NULL;
        path_index(path, "players", i);
        int rc = check_object(ld, p, path, keys);
        if (rc == 0)
            rc = member(ld, p, path, "name", 1, &m, field);
        if (rc == 0)
            rc = get_string(ld, m, field, &name);
        if (rc != 0)
            return rc;
        size_t len = json_string_length(m);
        if (len == 0 || len >= CARC_NAME_MAX || strlen(name) != len)
            return bad(ld, CARC_E_RECORD, field, "must be 1 to 63 bytes without NUL");
        memcpy(rec->names[i], name, len + 1);
        rc = load_player_marks(ld, p, path, rec, (int)i);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int load_deck(struct loader *ld, const json_t *v, struct carc_record *rec)
{
    if (!json_is_array(v))
        return bad(ld, CARC_E_DECK, "deck", "must be a list of tile ids");
    if (json_array_size(v) > CARC_MAX_DECK)
        return bad(ld, CARC_E_DECK, "deck", "holds at most 125 tiles (CARC_MAX_DECK)");
    size_t i;
    json_t *t;
    json_array_foreach(v, i, t)
    {
        char field[PATH_MAX_LEN];
        int type;
        path_index(field, "deck", i);
        int rc = get_tile(ld, t, field, CARC_E_DECK, &type);
        if (rc != 0)
            return rc;
        rec->deck[i] = (uint8_t)type;
    }
    rec->has_deck = 1;
    rec->deck_len = (int)json_array_size(v);
    return 0;
}

int proto_record_tile_at(const struct carc_record *rec, int upto, int x, int y)
{
    if (x == 0 && y == 0)
        return rec->start;
    for (int j = 0; j <= upto && j < rec->nmoves; j++)
        if (!rec->moves[j].skip && rec->moves[j].x == x && rec->moves[j].y == y)
            return rec->moves[j].tile;
    return -1;
}

/* Read x and y of obj (a move or an escape) into *x, *y. */
static int load_xy(struct loader *ld, const json_t *obj, const char *path, int *x, int *y)
{
    const char *names[2] = {"x", "y"};
    int *outs[2] = {x, y};
    for (int k = 0; k < 2; k++) {
        char field[PATH_MAX_LEN];
        json_t *m = NULL;
        long long n = 0;
        int rc = member(ld, obj, path, names[k], 1, &m, field);
        if (rc == 0)
            rc = get_int(ld, m, field, -CARC_COORD_MAX, CARC_COORD_MAX, &n);
        if (rc != 0)
            return rc;
        *outs[k] = (int)n;
    }
    return 0;
}

/* A feature name on tile type t into a segment index. */
static int load_feature(struct loader *ld, const json_t *obj, const char *path, int t, int *seg)
{
    char field[PATH_MAX_LEN];
    json_t *m = NULL;
    const char *name = NULL;
    int rc = member(ld, obj, path, "feature", 1, &m, field);
    if (rc == 0)
        rc = get_string(ld, m, field, &name);
    if (rc != 0)
        return rc;
    *seg = carc_tile_seg_find(t, name);
    if (*seg < 0)
        return proto_error_set(ld->err, CARC_E_FEATURE, ld->move, field,
                               "%s: tile %s has no feature \"%.20s\"", field, carc_tiles[t].id,
                               name);
    return 0;
}

static int load_meeple(struct loader *ld, const json_t *v, const char *path, struct carc_move *mv)
{
    static const char *const keys[] = {"feature", "kind", NULL};
    char field[PATH_MAX_LEN];
    json_t *m = NULL;
    int rc = check_object(ld, v, path, keys);
    if (rc == 0)
        rc = load_feature(ld, v, path, mv->tile, &mv->seg);
    if (rc == 0)
        rc = member(ld, v, path, "kind", 0, &m, field);
    if (rc == 0 && m != NULL) {
        const char *kind = NULL;
        rc = get_string(ld, m, field, &kind);
        if (rc != 0)
            return rc;
        if (strcmp(kind, "large") == 0)
            mv->large = 1;
        else if (strcmp(kind, "normal") != 0)
            return bad(ld, CARC_E_RECORD, field, "must be \"normal\" or \"large\"");
    }
    return rc;
}

static int load_escape(struct loader *ld, const json_t *v, const char *path,
                       const struct carc_record *rec, int i, struct carc_move *mv)
{
    static const char *const keys[] = {"x", "y", "feature", NULL};
    int rc = check_object(ld, v, path, keys);
    if (rc == 0)
        rc = load_xy(ld, v, path, &mv->ex, &mv->ey);
    if (rc != 0)
        return rc;
    int t = proto_record_tile_at(rec, i, mv->ex, mv->ey);
    if (t < 0)
        return proto_error_set(ld->err, CARC_E_ESCAPE, ld->move, path,
                               "%s: the record puts no tile at (%d,%d) by this move", path, mv->ex,
                               mv->ey);
    mv->escape = 1;
    return load_feature(ld, v, path, t, &mv->eseg);
}

static int load_move(struct loader *ld, const json_t *v, struct carc_record *rec, int i)
{
    static const char *const keys[] = {"tile", "x", "y", "rot", "meeple", "escape", "skip", NULL};
    struct carc_move *mv = &rec->moves[i];
    char path[PATH_MAX_LEN], field[PATH_MAX_LEN];
    json_t *m = NULL;
    long long rot = 0;
    path_index(path, "moves", (size_t)i);
    ld->move = i;
    mv->seg = -1;
    /* nmoves covers this move already so that an escape may name its own tile. */
    rec->nmoves = i + 1;
    int rc = check_object(ld, v, path, keys);
    if (rc == 0)
        rc = member(ld, v, path, "tile", 1, &m, field);
    if (rc == 0)
        rc = get_tile(ld, m, field, CARC_E_RECORD, &mv->tile);
    if (rc == 0)
        rc = member(ld, v, path, "skip", 0, &m, field);
    if (rc == 0 && m != NULL) {
        /* {"tile": id, "skip": true}: nothing else may be given. */
        static const char *const skip_keys[] = {"tile", "skip", NULL};
        if (!json_is_true(m))
            return bad(ld, CARC_E_RECORD, field, "must be true (or left out)");
        rc = check_object(ld, v, path, skip_keys);
        mv->skip = 1;
        ld->move = -1;
        return rc;
    }
    if (rc == 0)
        rc = load_xy(ld, v, path, &mv->x, &mv->y);
    if (rc == 0)
        rc = member(ld, v, path, "rot", 1, &m, field);
    if (rc == 0) {
        if (!json_is_integer(m) || (rot = json_integer_value(m)) < 0 || rot > 270 || rot % 90 != 0)
            return bad(ld, CARC_E_ROT, field, "must be 0, 90, 180 or 270");
        mv->rot = (int)(rot / 90);
    }
    if (rc == 0)
        rc = member(ld, v, path, "meeple", 0, &m, field);
    if (rc == 0 && m != NULL && !json_is_null(m))
        rc = load_meeple(ld, m, field, mv);
    if (rc == 0)
        rc = member(ld, v, path, "escape", 0, &m, field);
    if (rc == 0 && m != NULL && !json_is_null(m))
        rc = load_escape(ld, m, field, rec, i, mv);
    ld->move = -1;
    return rc;
}

static int load_moves(struct loader *ld, const json_t *v, struct carc_record *rec)
{
    if (!json_is_array(v))
        return bad(ld, CARC_E_RECORD, "moves", "must be a list");
    if (json_array_size(v) > CARC_MAX_MOVES)
        return bad(ld, CARC_E_RECORD, "moves", "more moves than a game record holds (256)");
    for (size_t i = 0; i < json_array_size(v); i++) {
        int rc = load_move(ld, json_array_get(v, i), rec, (int)i);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* "fair": {"scheme", "commitment", "secret", "entropy": [hex or null per player]}. The values
 * are only read here; carc_fair_verify (fair.h) checks that they agree. */
static int load_fair_hex(struct loader *ld, const json_t *v, const char *field, char *out)
{
    const char *s = NULL;
    int rc = get_string(ld, v, field, &s);
    if (rc == 0 && !carc_fair_hex_ok(s))
        return bad(ld, CARC_E_RECORD, field, "must be 64 lowercase hex digits");
    if (rc == 0)
        snprintf(out, CARC_FAIR_HEX, "%s", s);
    return rc;
}

static int load_fair(struct loader *ld, const json_t *v, struct carc_record *rec)
{
    static const char *const keys[] = {"scheme", "commitment", "secret", "entropy", NULL};
    char field[PATH_MAX_LEN];
    json_t *m = NULL;
    const char *s = NULL;
    int rc = check_object(ld, v, "fair", keys);
    if (rc == 0)
        rc = member(ld, v, "fair", "scheme", 1, &m, field);
    if (rc == 0)
        rc = get_string(ld, m, field, &s);
    if (rc == 0 && strcmp(s, CARC_FAIR_SCHEME) != 0)
        return bad(ld, CARC_E_RECORD, field, "must be \"" CARC_FAIR_SCHEME "\"");
    if (rc == 0)
        rc = member(ld, v, "fair", "commitment", 1, &m, field);
    if (rc == 0)
        rc = load_fair_hex(ld, m, field, rec->fair_commitment);
    if (rc == 0)
        rc = member(ld, v, "fair", "secret", 1, &m, field);
    if (rc == 0)
        rc = load_fair_hex(ld, m, field, rec->fair_secret);
    if (rc == 0)
        rc = member(ld, v, "fair", "entropy", 1, &m, field);
    if (rc == 0 &&
        (!json_is_array(m) || json_array_size(m) < 1 || json_array_size(m) > CARC_MAX_PLAYERS))
        return bad(ld, CARC_E_RECORD, field, "must be a list of 1 to 6 entries");
    for (size_t i = 0; rc == 0 && i < json_array_size(m); i++) {
        char f[PATH_MAX_LEN];
        path_index(f, field, i);
        const json_t *e = json_array_get(m, i);
        if (!json_is_null(e))
            rc = load_fair_hex(ld, e, f, rec->fair_entropy[i]);
    }
    if (rc == 0) {
        rec->fair_n = (int)json_array_size(m);
        rec->has_fair = 1;
    }
    return rc;
}

static int load_root(struct loader *ld, const json_t *root, struct carc_record *rec)
{
    static const char *const keys[] = {"format", "sets",  "options", "players", "start", "seed",
                                       "deck",   "moves", "closed",  "fair",    NULL};
    char field[PATH_MAX_LEN];
    json_t *m = NULL;
    const char *s = NULL;
    long long n = 0;
    int rc = check_object(ld, root, "", keys);
    if (rc == 0)
        rc = member(ld, root, "", "format", 1, &m, field);
    if (rc == 0)
        rc = get_string(ld, m, field, &s);
    if (rc == 0 && strcmp(s, PROTO_RECORD_FORMAT) != 0)
        return bad(ld, CARC_E_RECORD, field, "must be \"" PROTO_RECORD_FORMAT "\"");
    if (rc == 0)
        rc = member(ld, root, "", "sets", 0, &m, field);
    if (rc == 0 && m != NULL)
        rc = load_sets(ld, m, field, &rec->sets);
    if (rc == 0)
        rc = member(ld, root, "", "options", 0, &m, field);
    if (rc == 0 && m != NULL)
        rc = load_options(ld, m, rec);
    if (rc == 0)
        rc = member(ld, root, "", "players", 1, &m, field);
    if (rc == 0)
        rc = load_players(ld, m, rec);
    if (rc == 0)
        rc = member(ld, root, "", "start", 0, &m, field);
    if (rc == 0 && m != NULL)
        rc = get_tile(ld, m, field, CARC_E_RECORD, &rec->start);
    if (rc == 0)
        rc = member(ld, root, "", "seed", 0, &m, field);
    if (rc == 0 && m != NULL) {
        rc = get_int(ld, m, field, 0, INT64_MAX, &n);
        rec->seed = (uint64_t)n;
        rec->has_seed = 1;
    }
    if (rc == 0)
        rc = member(ld, root, "", "fair", 0, &m, field);
    if (rc == 0 && m != NULL)
        rc = load_fair(ld, m, rec);
    if (rc == 0)
        rc = member(ld, root, "", "deck", 0, &m, field);
    if (rc == 0 && m != NULL)
        rc = load_deck(ld, m, rec);
    if (rc == 0)
        rc = member(ld, root, "", "moves", 1, &m, field);
    if (rc == 0)
        rc = load_moves(ld, m, rec);
    if (rc == 0)
        rc = member(ld, root, "", "closed", 0, &m, field);
    if (rc == 0 && m != NULL) {
        rc = get_string(ld, m, field, &s);
        if (rc == 0 && strcmp(s, "room-ttl") != 0 && strcmp(s, "stale-room") != 0 &&
            strcmp(s, "admin") != 0)
            return bad(ld, CARC_E_RECORD, field,
                       "must be \"room-ttl\", \"stale-room\" or \"admin\"");
        if (rc == 0)
            snprintf(rec->closed, sizeof rec->closed, "%s", s);
    }
    return rc;
}

int proto_record_load(const char *text, size_t len, size_t max_len, struct carc_record *rec,
                      struct proto_error *err)
{
    struct loader ld = {err, -1};
    memset(rec, 0, sizeof *rec);
    rec->sets = 1u << CARC_SET_BASE;
    rec->escape_rule = CARC_ESCAPE_SIEGE_TILE;
    rec->start = carc_tile_find("BA.D");
    if (max_len == 0)
        max_len = PROTO_RECORD_MAX_BYTES;
    if (len > max_len)
        return proto_error_set(err, CARC_E_RECORD, -1, "", "record: larger than %zu bytes",
                               max_len);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL)
        return proto_error_set(err, CARC_E_JSON, -1, "", "line %d column %d: %.120s", jerr.line,
                               jerr.column, jerr.text);
    int rc = load_root(&ld, root, rec);
    json_decref(root);
    return rc;
}

/* ---- dump ---- */

struct dumper {
    struct proto_error *err;
    int code; /* first failure, 0 while none */
};

/* Record the first failure of the dump (err keeps its own first one). */
static void dump_fail(struct dumper *d, int code, int move, const char *field, const char *text)
{
    if (d->code == 0)
        d->code = code;
    proto_error_set(d->err, code, move, field, "%s%s%s", field, field[0] ? ": " : "",
                    text != NULL ? text : carc_err_str(code));
}

/* Take a new reference into obj; a NULL value (failed constructor) marks failure. */
static void put(struct dumper *d, json_t *obj, const char *key, json_t *v)
{
    if (v == NULL || json_object_set_new(obj, key, v) != 0)
        dump_fail(d, CARC_E_NOMEM, -1, key, NULL);
}

static void append(struct dumper *d, json_t *arr, json_t *v)
{
    if (v == NULL || json_array_append_new(arr, v) != 0)
        dump_fail(d, CARC_E_NOMEM, -1, "", NULL);
}

static int tile_ok(int t)
{
    return t >= 0 && t < carc_tiles_count;
}

static int seg_ok(int t, int seg)
{
    return seg >= 0 && seg < carc_tiles[t].nsegs;
}

static int coord_ok(int c)
{
    return c >= -CARC_COORD_MAX && c <= CARC_COORD_MAX;
}

static json_t *dump_move(struct dumper *d, const struct carc_record *rec, int i)
{
    const struct carc_move *mv = &rec->moves[i];
    char field[PATH_MAX_LEN];
    path_index(field, "moves", (size_t)i);
    if (mv->skip && tile_ok(mv->tile)) {
        json_t *s = json_object();
        if (s != NULL) {
            put(d, s, "tile", json_string(carc_tiles[mv->tile].id));
            put(d, s, "skip", json_true());
        }
        return s;
    }
    if (!tile_ok(mv->tile) || !coord_ok(mv->x) || !coord_ok(mv->y) || mv->rot < 0 || mv->rot > 3 ||
        (mv->seg != -1 && !seg_ok(mv->tile, mv->seg))) {
        dump_fail(d, CARC_E_INVAL, i, field, "tile, position, rotation or meeple out of range");
        return NULL;
    }
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    put(d, o, "tile", json_string(carc_tiles[mv->tile].id));
    put(d, o, "x", json_integer(mv->x));
    put(d, o, "y", json_integer(mv->y));
    put(d, o, "rot", json_integer(mv->rot * 90));
    if (mv->seg < 0) {
        put(d, o, "meeple", json_null());
    } else {
        json_t *m = json_object();
        if (m != NULL) {
            put(d, m, "feature", json_string(carc_tiles[mv->tile].segs[mv->seg].name));
            put(d, m, "kind", json_string(mv->large ? "large" : "normal"));
        }
        put(d, o, "meeple", m);
    }
    if (mv->escape) {
        int t = proto_record_tile_at(rec, i, mv->ex, mv->ey);
        if (t < 0 || !seg_ok(t, mv->eseg)) {
            dump_fail(d, CARC_E_INVAL, i, field, "the escape names no feature of a record tile");
            json_decref(o);
            return NULL;
        }
        json_t *e = json_object();
        if (e != NULL) {
            put(d, e, "x", json_integer(mv->ex));
            put(d, e, "y", json_integer(mv->ey));
            put(d, e, "feature", json_string(carc_tiles[t].segs[mv->eseg].name));
        }
        put(d, o, "escape", e);
    }
    return o;
}

/* Check what the dump cannot write; returns 0 or CARC_E_INVAL. */
static int dump_check(struct dumper *d, const struct carc_record *rec)
{
    const char *field = NULL;
    if (rec->sets == 0 || (rec->sets & ~CARC_SETS_ALL) != 0)
        field = "sets";
    else if (rec->escape_rule != CARC_ESCAPE_SIEGE_TILE && rec->escape_rule != CARC_ESCAPE_ANY_TILE)
        field = "options.siege_escape";
    else if (rec->farm_rule < CARC_FARMS_THIRD || rec->farm_rule > CARC_FARMS_FIRST)
        field = "options.farms";
    else if (rec->nplayers < 1 || rec->nplayers > CARC_MAX_PLAYERS)
        field = "players";
    else if (!tile_ok(rec->start))
        field = "start";
    else if (rec->has_seed && rec->seed > (uint64_t)INT64_MAX)
        field = "seed";
    else if (rec->has_fair &&
             (!carc_fair_hex_ok(rec->fair_commitment) || !carc_fair_hex_ok(rec->fair_secret) ||
              rec->fair_n < 1 || rec->fair_n > CARC_MAX_PLAYERS))
        field = "fair";
    else if (rec->has_deck && (rec->deck_len < 0 || rec->deck_len > CARC_MAX_DECK))
        field = "deck";
    else if (rec->nmoves < 0 || rec->nmoves > CARC_MAX_MOVES)
        field = "moves";
    for (int i = 0; field == NULL && rec->has_deck && i < rec->deck_len; i++)
        if (!tile_ok(rec->deck[i]))
            field = "deck";
    for (int i = 0; field == NULL && rec->has_fair && i < rec->fair_n; i++)
        if (rec->fair_entropy[i][0] != '\0' && !carc_fair_hex_ok(rec->fair_entropy[i]))
            field = "fair";
    for (int i = 0; field == NULL && i < rec->nplayers; i++)
        if (memchr(rec->names[i], '\0', CARC_NAME_MAX) == NULL || rec->names[i][0] == '\0')
            field = "players";
    if (field == NULL)
        return 0;
    dump_fail(d, CARC_E_INVAL, -1, field, "value out of range");
    return d->code;
}

/* Arrays are filled after being put into their parent, so every loop stops at
 * the first failure: a failed put has already released the array. */
static json_t *dump_root(struct dumper *d, const struct carc_record *rec)
{
    json_t *root = json_object(), *a;
    if (root == NULL)
        return NULL;
    put(d, root, "format", json_string(PROTO_RECORD_FORMAT));
    put(d, root, "sets", a = json_array());
    for (int s = 0; a != NULL && d->code == 0 && s < CARC_SET_COUNT; s++)
        if (rec->sets & (1u << s))
            append(d, a, json_string(carc_set_name(s)));
    json_t *o = json_object();
    if (o != NULL) {
        put(d, o, "siege_escape", json_string(escape_rules[rec->escape_rule]));
        put(d, o, "farmers", json_boolean(!rec->no_farmers));
        put(d, o, "farms", json_string(proto__farm_rule_name(rec->farm_rule)));
        put(d, o, "small_city", json_integer(rec->small_city ? 2 : 4));
        put(d, o, "seat_order", json_string(proto__seat_order_name(rec->seat_random)));
    }
    put(d, root, "options", o);
    put(d, root, "players", a = json_array());
    for (int i = 0; a != NULL && d->code == 0 && i < rec->nplayers; i++) {
        json_t *p = json_object();
        /* json_string() refuses invalid UTF-8: reported as the players field. */
        json_t *name = json_string(rec->names[i]);
        if (p != NULL && name == NULL)
            dump_fail(d, CARC_E_INVAL, -1, "players", "a name is not UTF-8");
        if (p != NULL)
            put(d, p, "name", name);
        if (p != NULL && rec->bots[i][0] != '\0')
            put(d, p, "bot", json_string(rec->bots[i]));
        if (p != NULL && rec->forfeited[i])
            put(d, p, "forfeited", json_true());
        append(d, a, p);
    }
    put(d, root, "start", json_string(carc_tiles[rec->start].id));
    if (rec->has_seed)
        put(d, root, "seed", json_integer((json_int_t)rec->seed));
    if (rec->has_fair) {
        json_t *f = json_object();
        if (f != NULL) {
            put(d, f, "scheme", json_string(CARC_FAIR_SCHEME));
            put(d, f, "commitment", json_string(rec->fair_commitment));
            put(d, f, "secret", json_string(rec->fair_secret));
        }
        put(d, root, "fair", f);
        put(d, f, "entropy", a = json_array());
        for (int i = 0; a != NULL && d->code == 0 && i < rec->fair_n; i++)
            append(d, a,
                   rec->fair_entropy[i][0] != '\0' ? json_string(rec->fair_entropy[i])
                                                   : json_null());
    }
    if (rec->has_deck) {
        put(d, root, "deck", a = json_array());
        for (int i = 0; a != NULL && d->code == 0 && i < rec->deck_len; i++)
            append(d, a, json_string(carc_tiles[rec->deck[i]].id));
    }
    if (rec->closed[0] != '\0')
        put(d, root, "closed", json_string(rec->closed));
    put(d, root, "moves", a = json_array());
    for (int i = 0; a != NULL && i < rec->nmoves && d->code == 0; i++) {
        json_t *m = dump_move(d, rec, i);
        if (m == NULL)
            dump_fail(d, CARC_E_NOMEM, i, "moves", NULL); /* dump_move named its own failure */
        else
            append(d, a, m);
    }
    return root;
}

int proto_record_dump(const struct carc_record *rec, unsigned flags, char **out,
                      struct proto_error *err)
{
    struct dumper d = {err, 0};
    *out = NULL;
    int rc = dump_check(&d, rec);
    if (rc != 0)
        return rc;
    json_t *root = dump_root(&d, rec);
    if (root == NULL)
        dump_fail(&d, CARC_E_NOMEM, -1, "", NULL);
    if (d.code != 0) {
        json_decref(root);
        return d.code;
    }
    size_t fl = JSON_PRESERVE_ORDER | ((flags & PROTO_DUMP_PRETTY) ? JSON_INDENT(2) : JSON_COMPACT);
    *out = json_dumps(root, fl);
    json_decref(root);
    if (*out == NULL)
        return proto_error_set(err, CARC_E_NOMEM, -1, "", NULL);
    return 0;
}

int proto_record_move(const struct carc_record *rec, int i, const struct carc_game *g,
                      struct carc_move *out, struct proto_error *err)
{
    if (i < 0 || i >= rec->nmoves)
        return proto_error_set(err, CARC_E_INVAL, -1, "moves", "moves: no move %d", i);
    char field[PATH_MAX_LEN];
    path_index(field, "moves", (size_t)i);
    if (g->phase == CARC_PHASE_OVER)
        return proto_error_set(err, CARC_E_OVER, i, field, "%s: the game is already over", field);
    *out = rec->moves[i];
    out->player = g->current;
    if (out->escape) {
        /* The feature name was read against the tile the record puts there; the
         * board must agree or the name meant something else. */
        int at = carc_game_tile_at(g, out->ex, out->ey);
        int own = out->ex == out->x && out->ey == out->y; /* placed by this very move */
        int type = at != 0 ? g->placed[at - 1].type : own ? out->tile : -1;
        if (type < 0 || type != proto_record_tile_at(rec, i, out->ex, out->ey))
            return proto_error_set(err, CARC_E_ESCAPE, i, field,
                                   "%s.escape: no such tile at (%d,%d)", field, out->ex, out->ey);
    }
    return 0;
}

/* ---- one move at a time, for record_move.c (record_int.h) ---- */

int proto__record_move_read(const json_t *v, struct carc_record *rec, int i,
                            struct proto_error *err)
{
    struct loader ld = {err, -1};
    memset(&rec->moves[i], 0, sizeof rec->moves[i]);
    return load_move(&ld, v, rec, i);
}

json_t *proto__record_move_write(const struct carc_record *rec, int i, struct proto_error *err)
{
    struct dumper d = {err, 0};
    json_t *o = dump_move(&d, rec, i);
    if (o != NULL && d.code == 0)
        return o;
    json_decref(o);
    if (d.code == 0)
        proto_error_set(err, CARC_E_NOMEM, i, "moves", NULL);
    return NULL;
}
