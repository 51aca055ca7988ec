/* event_json.c: engine events and carc-replay lines as JSON (see event_json.h).
 *
 * Constructors are chained without checking each one: json_object_set_new()
 * and json_array_append_new() take (and on failure release) their value and
 * fail on NULL, so one `ok` flag per object catches any out-of-memory. */
#include "event_json.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

static void set(json_t *o, const char *key, json_t *v, int *ok)
{
    if (o == NULL) {
        json_decref(v);
        *ok = 0;
    } else if (json_object_set_new(o, key, v) != 0) {
        *ok = 0;
    }
}

static void add(json_t *a, json_t *v, int *ok)
{
    if (a == NULL) {
        json_decref(v);
        *ok = 0;
    } else if (json_array_append_new(a, v) != 0) {
        *ok = 0;
    }
}

/* Players whose bit is set in mask, as a list of indexes. */
static json_t *player_list(unsigned mask, int n, int *ok)
{
    json_t *a = json_array();
    for (int p = 0; p < n; p++)
        if (mask & (1u << p))
            add(a, json_integer(p), ok);
    return a;
}

static json_t *int16_list(const int16_t *v, int n, int *ok)
{
    json_t *a = json_array();
    for (int p = 0; p < n; p++)
        add(a, json_integer(v[p]), ok);
    return a;
}

static json_t *uint8_list(const uint8_t *v, int n, int *ok)
{
    json_t *a = json_array();
    for (int p = 0; p < n; p++)
        add(a, json_integer(v[p]), ok);
    return a;
}

static json_t *scores_list(const int32_t *v, int n, int *ok)
{
    json_t *a = json_array();
    for (int p = 0; p < n; p++)
        add(a, json_integer(v[p]), ok);
    return a;
}

static const char *type_name(int type)
{
    switch (type) {
    case CARC_EV_SCORE:
        return "score";
    case CARC_EV_BARN:
        return "barn";
    case CARC_EV_ESCAPE:
        return "escape";
    case CARC_EV_DISCARD:
        return "discard";
    case CARC_EV_HERBS:
        return "herbs";
    default:
        return "unknown";
    }
}

/* Scoring speaks of farms; a field is one farm's piece on one tile. */
static const char *kind_name(int kind)
{
    switch (kind) {
    case CARC_SEG_CITY:
        return "city";
    case CARC_SEG_ROAD:
        return "road";
    case CARC_SEG_FIELD:
        return "farm";
    case CARC_SEG_CLOISTER:
        return "cloister";
    default:
        return "unknown";
    }
}

/* x, y and the segment's name, when a tile lies there (it always should). */
static void put_position(json_t *o, const struct carc_game *g, const struct carc_event *ev, int *ok)
{
    set(o, "x", json_integer(ev->x), ok);
    set(o, "y", json_integer(ev->y), ok);
    int at = carc_game_tile_at(g, ev->x, ev->y);
    if (at != 0) {
        const struct carc_tile *t = &carc_tiles[g->placed[at - 1].type];
        if (ev->seg < t->nsegs)
            set(o, "segment", json_string(t->segs[ev->seg].name), ok);
    }
}

/* Expansion flags, only when true; a farm's "besieged" is a count instead. */
static void put_flags(json_t *o, const struct carc_event *ev, int *ok)
{
    static const struct {
        uint8_t flag;
        const char *name;
    } flags[] = {{CARC_EVF_INN, "inn"},
                 {CARC_EVF_CATHEDRAL, "cathedral"},
                 {CARC_EVF_BESIEGED, "besieged"},
                 {CARC_EVF_APOTHECARY, "apothecary"},
                 {CARC_EVF_VOID, "void"}};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        int farm_count = flags[i].flag == CARC_EVF_BESIEGED && ev->type == CARC_EV_SCORE &&
                         ev->kind == CARC_SEG_FIELD;
        if ((ev->flags & flags[i].flag) && !farm_count)
            set(o, flags[i].name, json_true(), ok);
    }
}

void proto_event_turn_scores(const struct carc_game *g, int32_t *scores)
{
    for (int p = 0; p < g->nplayers; p++)
        scores[p] = g->players[p].score;
    for (int e = 0; e < g->nevents && e < CARC_MAX_EVENTS; e++)
        if (g->events[e].type != CARC_EV_DISCARD && proto_event_is_final(&g->events[e]))
            for (int p = 0; p < g->nplayers; p++)
                scores[p] -= g->events[e].delta[p];
}

int proto_event_is_final(const struct carc_event *ev)
{
    return (ev->flags & CARC_EVF_FINAL) != 0 || ev->type == CARC_EV_HERBS;
}

json_t *proto_event_new(const struct carc_game *g, const struct carc_event *ev)
{
    int ok = 1, n = g->nplayers;
    json_t *o = json_object();
    set(o, "type", json_string(type_name(ev->type)), &ok);
    if (ev->type == CARC_EV_DISCARD) {
        set(o, "tile", json_string(ev->tile < carc_tiles_count ? carc_tiles[ev->tile].id : "?"),
            &ok);
        goto done;
    }
    if (ev->type == CARC_EV_SCORE)
        set(o, "feature", json_string(kind_name(ev->kind)), &ok);
    if (ev->type == CARC_EV_SCORE || ev->type == CARC_EV_BARN) {
        /* A farm's value does not depend on its tiles: the engine does not count them. */
        if (!(ev->type == CARC_EV_SCORE && ev->kind == CARC_SEG_FIELD))
            set(o, "tiles", json_integer(ev->tiles), &ok);
        if (ev->kind == CARC_SEG_CITY && ev->type == CARC_EV_SCORE)
            set(o, "pennants", json_integer(ev->pennants), &ok);
        if (ev->kind == CARC_SEG_FIELD && ev->type == CARC_EV_SCORE) {
            set(o, "cities", json_integer(ev->cities), &ok);
            set(o, "besieged", json_integer(ev->besieged), &ok);
        }
        if (ev->type == CARC_EV_BARN) {
            set(o, "farms", json_integer(ev->farms), &ok);
            set(o, "tithe", json_boolean(ev->flags & CARC_EVF_TITHE), &ok);
        }
        set(o, "points", json_integer(ev->points), &ok);
        set(o, "scorers", player_list(ev->scorers, n, &ok), &ok);
    }
    if (ev->type != CARC_EV_HERBS)
        put_position(o, g, ev, &ok);
    set(o, "delta", int16_list(ev->delta, n, &ok), &ok);
    if (ev->type == CARC_EV_SCORE || ev->type == CARC_EV_ESCAPE)
        set(o, "returned", uint8_list(ev->returned, n, &ok), &ok);
    if (ev->large_back != 0)
        set(o, "large_back", player_list(ev->large_back, n, &ok), &ok);
    set(o, "final", json_boolean(ev->flags & CARC_EVF_FINAL), &ok);
    put_flags(o, ev, &ok);
    if (ev->type == CARC_EV_HERBS) {
        set(o, "herbs", json_integer(ev->herbs), &ok);
    } else if (ev->herbs_to != 0xFF) {
        set(o, "herbs_to", json_integer(ev->herbs_to), &ok);
        set(o, "herbs", json_integer(ev->herbs), &ok);
    }
done:
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Compact text of v, which is released; NULL when v is NULL or no memory. */
static char *dump_take(json_t *v, int ok)
{
    char *s = ok && v != NULL ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(v);
    return s;
}

char *proto_event_dump(const struct carc_game *g, const struct carc_event *ev)
{
    return dump_take(proto_event_new(g, ev), 1);
}

/* g->events of the last call that are end-game ones (final != 0) or turn ones. */
static json_t *event_list(const struct carc_game *g, int final, int *ok)
{
    json_t *a = json_array();
    for (int i = 0; i < g->nevents; i++) {
        const struct carc_event *ev = &g->events[i];
        if (ev->type != CARC_EV_DISCARD && proto_event_is_final(ev) == final)
            add(a, proto_event_new(g, ev), ok);
    }
    return a;
}

char *proto_replay_move_line(const struct carc_game *g, int move, int player, int tile,
                             const int32_t *scores)
{
    int ok = 1;
    json_t *o = json_object();
    set(o, "move", json_integer(move), &ok);
    set(o, "player", json_integer(player), &ok);
    set(o, "tile", json_string(tile >= 0 && tile < carc_tiles_count ? carc_tiles[tile].id : "?"),
        &ok);
    set(o, "scores", scores_list(scores, g->nplayers, &ok), &ok);
    set(o, "events", event_list(g, 0, &ok), &ok);
    return dump_take(o, ok);
}

char *proto_replay_skip_line(int move, int player, int tile)
{
    int ok = 1;
    json_t *o = json_object();
    set(o, "move", json_integer(move), &ok);
    set(o, "player", json_integer(player), &ok);
    set(o, "skip", json_string(tile >= 0 && tile < carc_tiles_count ? carc_tiles[tile].id : "?"),
        &ok);
    return dump_take(o, ok);
}

char *proto_replay_discard_line(int tile)
{
    int ok = 1;
    json_t *o = json_object();
    set(o, "discard", json_string(tile >= 0 && tile < carc_tiles_count ? carc_tiles[tile].id : "?"),
        &ok);
    return dump_take(o, ok);
}

char *proto_replay_end_line(const struct carc_game *g)
{
    int ok = 1, over = g->phase == CARC_PHASE_OVER;
    int32_t scores[CARC_MAX_PLAYERS];
    for (int p = 0; p < g->nplayers; p++)
        scores[p] = g->players[p].score;
    json_t *o = json_object();
    set(o, "final", json_boolean(over), &ok);
    set(o, "scores", scores_list(scores, g->nplayers, &ok), &ok);
    if (over) {
        set(o, "events", event_list(g, 1, &ok), &ok);
    } else {
        json_t *next = json_object();
        set(next, "player", json_integer(g->current), &ok);
        set(next, "tile",
            json_string(g->tile >= 0 && g->tile < carc_tiles_count ? carc_tiles[g->tile].id : "?"),
            &ok);
        set(o, "next", next, &ok);
    }
    return dump_take(o, ok);
}

char *proto_replay_error_line(int move, const char *field, int code, const char *message)
{
    int ok = 1;
    json_t *e = json_object();
    if (move >= 0)
        set(e, "move", json_integer(move), &ok);
    if (field != NULL && field[0] != '\0')
        set(e, "field", json_string(field), &ok);
    set(e, "code", json_string(carc_err_name(code)), &ok);
    /* A message may hold bytes of the input; json_string refuses bad UTF-8. */
    json_t *m = json_string(message);
    set(e, "message", m != NULL ? m : json_string(carc_err_str(code)), &ok);
    json_t *o = json_object();
    set(o, "error", e, &ok);
    return dump_take(o, ok);
}

/* ---- readers ---- */

/* The value at path inside root (borrowed), or NULL. */
static json_t *path_get(json_t *root, const char *path)
{
    json_t *v = root;
    const char *p = path;
    while (v != NULL && *p != '\0') {
        size_t n = strcspn(p, ".");
        char key[128];
        if (n >= sizeof key)
            return NULL;
        memcpy(key, p, n);
        key[n] = '\0';
        if (json_is_array(v)) {
            char *end;
            unsigned long i = strtoul(key, &end, 10);
            v = (*end == '\0' && n > 0) ? json_array_get(v, i) : NULL;
        } else {
            v = json_object_get(v, key);
        }
        p += n;
        if (*p == '.')
            p++;
    }
    return v;
}

static json_t *load(const char *text, size_t len)
{
    return json_loadb(text, len, JSON_DECODE_ANY, NULL);
}

char *proto_json_path_dump(const char *text, size_t len, const char *path)
{
    json_t *root = load(text, len);
    json_t *v = root != NULL ? path_get(root, path) : NULL;
    char *s =
        v != NULL ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;
    json_decref(root);
    return s;
}

int proto_json_path_ints(const char *text, size_t len, const char *path, long long *out, int max)
{
    json_t *root = load(text, len);
    if (root == NULL)
        return CARC_E_JSON;
    json_t *v = path_get(root, path);
    int rc = json_is_array(v) ? (int)json_array_size(v) : CARC_E_RECORD;
    for (int i = 0; rc >= 0 && i < rc; i++) {
        json_t *x = json_array_get(v, (size_t)i);
        if (!json_is_integer(x))
            rc = CARC_E_RECORD;
        else if (i < max)
            out[i] = json_integer_value(x);
    }
    json_decref(root);
    return rc;
}

int proto_json_path_int(const char *text, size_t len, const char *path, long long *out)
{
    json_t *root = load(text, len);
    if (root == NULL)
        return CARC_E_JSON;
    json_t *v = path_get(root, path);
    int rc = json_is_integer(v) ? 0 : CARC_E_RECORD;
    if (rc == 0)
        *out = json_integer_value(v);
    json_decref(root);
    return rc;
}

int proto_json_path_string(const char *text, size_t len, const char *path, char *buf, size_t size)
{
    json_t *root = load(text, len);
    if (root == NULL)
        return CARC_E_JSON;
    json_t *v = path_get(root, path);
    int rc = json_is_string(v) ? 0 : CARC_E_RECORD;
    if (rc == 0 && size > 0)
        snprintf(buf, size, "%s", json_string_value(v));
    json_decref(root);
    return rc;
}
