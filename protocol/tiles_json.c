/* tiles_json.c: the tile catalogue as JSON for GET /api/tiles (see msg.h and
 * PROTOCOL.md "The tile catalogue"): everything a browser needs to draw a
 * tile and name its features, with the masks of tiles.h spelled out as edge
 * and half-edge names so that clients need not know our bit layout. */
#include <jansson.h>

#include "msg.h"
#include "patch.h"

static const char *const edge_names[4] = {"N", "E", "S", "W"};
/* Half-edges clockwise from the north edge's west half (tiles.h: Nw = bit 0). */
static const char *const half_names[8] = {"Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn"};

static const char *seg_kind_name(int kind)
{
    switch (kind) {
    case CARC_SEG_CITY:
        return "city";
    case CARC_SEG_ROAD:
        return "road";
    case CARC_SEG_FIELD:
        return "field";
    default:
        return "cloister";
    }
}

static json_t *road_end(int end)
{
    static const char *const names[] = {NULL, "city", "cloister", "junction", "village", "barn"};
    return end > 0 && end < 6 ? json_string(names[end]) : json_null();
}

static json_t *flag_list(unsigned flags, int *ok)
{
    static const struct {
        unsigned flag;
        const char *name;
    } names[] = {{CARC_SF_INN, "inn"},
                 {CARC_SF_CATHEDRAL, "cathedral"},
                 {CARC_SF_SIEGE, "siege"},
                 {CARC_SF_APOTHECARY, "apothecary"},
                 {CARC_SF_BARN, "barn"}};
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (flags & names[i].flag)
            proto__add(a, json_string(names[i].name), ok);
    return a;
}

static json_t *mask_list(unsigned mask, const char *const *names, int n, int *ok)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        if (mask & (1u << i))
            proto__add(a, json_string(names[i]), ok);
    return a;
}

static json_t *segment_new(const struct carc_tile *t, const struct carc_seg *s, int *ok)
{
    json_t *o = json_object();
    proto__set(o, "name", json_string(s->name), ok);
    proto__set(o, "kind", json_string(seg_kind_name(s->kind)), ok);
    if (s->kind == CARC_SEG_CITY || s->kind == CARC_SEG_ROAD)
        proto__set(o, "edges", mask_list(s->mask, edge_names, 4, ok), ok);
    if (s->kind == CARC_SEG_FIELD) {
        proto__set(o, "halves", mask_list(s->mask, half_names, 8, ok), ok);
        json_t *touches = json_array();
        for (int i = 0; i < t->nsegs && i < 8; i++)
            if (s->touches & (1u << i))
                proto__add(touches, json_string(t->segs[i].name), ok);
        proto__set(o, "touches", touches, ok);
    }
    if (s->kind == CARC_SEG_CITY)
        proto__set(o, "pennants", json_integer(s->pennants), ok);
    if (s->kind == CARC_SEG_ROAD)
        proto__set(o, "end", road_end(s->end), ok);
    proto__set(o, "flags", flag_list(s->flags, ok), ok);
    return o;
}

static json_t *tile_new(const struct carc_tile *t, int *ok)
{
    static const char kinds[4] = {'?', 'F', 'R', 'C'}; /* enum carc_edge */
    char edges[5];
    for (int d = 0; d < 4; d++)
        edges[d] = kinds[(t->edges >> (2 * d)) & 3];
    edges[4] = '\0';
    json_t *o = json_object();
    proto__set(o, "set", json_string(carc_set_name(t->set)), ok);
    proto__set(o, "count", json_integer(t->count), ok);
    proto__set(o, "edges", json_string(edges), ok);
    proto__set(o, "cloister", json_boolean(t->flags & CARC_TF_CLOISTER), ok);
    proto__set(o, "barn", json_boolean(t->flags & CARC_TF_BARN), ok);
    proto__set(o, "start", json_boolean(t->flags & CARC_TF_START), ok);
    proto__set(o, "what", proto__string_or(t->what, ""), ok);
    json_t *segs = json_array();
    for (int i = 0; i < t->nsegs; i++)
        proto__add(segs, segment_new(t, &t->segs[i], ok), ok);
    proto__set(o, "segments", segs, ok);
    return o;
}

char *proto_encode_tiles(void)
{
    int ok = 1;
    json_t *root = json_object();
    json_t *tiles = json_object();
    proto__set(root, "format", json_string("carcd-tiles/1"), &ok);
    proto__set(root, "sets", proto__sets_new((1u << CARC_SET_COUNT) - 1), &ok);
    for (int i = 0; i < carc_tiles_count; i++)
        proto__set(tiles, carc_tiles[i].id, tile_new(&carc_tiles[i], &ok), &ok);
    proto__set(root, "tiles", tiles, &ok);
    return proto__dump_take(root, ok);
}
