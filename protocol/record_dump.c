/* record_dump.c: struct carc_record -> game record JSON (see record_json.h),
 * in canonical key order; record_json.c reads records. */
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "fair.h"
#include "patch.h"
#include "record_json.h"
#include "record_json_int.h"

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
    proto__path_index(field, "moves", (size_t)i);
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
        put(d, o, "siege_escape", json_string(proto__escape_rules[rec->escape_rule]));
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

/* ---- one move at a time, for record_move.c (record_json_int.h) ---- */

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
