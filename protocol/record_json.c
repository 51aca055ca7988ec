/* record_json.c: game record JSON -> struct carc_record (see record_json.h),
 * and a loaded record's moves into a game; record_dump.c writes records.
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
#include "record_json_int.h"

const char *const proto__escape_rules[2] = {"siege-tile", "any-tile"};

/* Join a parent path and a key: "" + "moves" -> "moves", "moves[3]" + "x" -> "moves[3].x".
 * Our paths are at most ~30 bytes; a longer one (an unknown key) is cut short. */
static void path_key(char *out, const char *base, const char *key)
{
    int n = snprintf(out, PATH_MAX_LEN, "%s%s%s", base, base[0] != '\0' ? "." : "", key);
    if (n < 0)
        out[0] = '\0';
}

void proto__path_index(char *out, const char *base, size_t i)
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
        proto__path_index(f, field, i);
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
            if (strcmp(name, proto__escape_rules[i]) == 0)
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
        proto__path_index(path, "players", i);
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
        proto__path_index(field, "deck", i);
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
    proto__path_index(path, "moves", (size_t)i);
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
        proto__path_index(f, field, i);
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

int proto_record_move(const struct carc_record *rec, int i, const struct carc_game *g,
                      struct carc_move *out, struct proto_error *err)
{
    if (i < 0 || i >= rec->nmoves)
        return proto_error_set(err, CARC_E_INVAL, -1, "moves", "moves: no move %d", i);
    char field[PATH_MAX_LEN];
    proto__path_index(field, "moves", (size_t)i);
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

/* ---- one move at a time, for record_move.c (record_json_int.h) ---- */

int proto__record_move_read(const json_t *v, struct carc_record *rec, int i,
                            struct proto_error *err)
{
    struct loader ld = {err, -1};
    memset(&rec->moves[i], 0, sizeof rec->moves[i]);
    return load_move(&ld, v, rec, i);
}
