/* state.c: the public state document of a room, and deltas between two of
 * them (see state.h and PROTOCOL.md "The public state document").
 *
 * A document is built whole from a room view each time the room changes and
 * kept as a jansson value; a delta is the generic JSON diff of the previous
 * and the new document. Building whole and diffing keeps one source of truth
 * for what a client sees: the diff cannot disagree with a fresh snapshot. */
#include "state.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "patch.h"

#define MAX_LEGAL (CARC_MAX_FRONTIER * 4)
#define MAX_KNIGHTS 16

struct proto_state {
    json_t *doc;
};

static int has_set(unsigned sets, int set)
{
    return (sets & (1u << set)) != 0;
}

static json_t *seats_new(const struct proto_room_view *v, int *ok)
{
    const struct carc_game *g = v->game;
    json_t *a = json_array();
    for (int i = 0; i < v->nseats && i < CARC_MAX_PLAYERS; i++) {
        const struct proto_seat *s = &v->seats[i];
        struct carc_player p = {0, CARC_MEEPLES,
                                (uint8_t)has_set(v->sets, CARC_SET_INNS_CATHEDRALS), 0};
        if (g != NULL && i < g->nplayers)
            p = g->players[i];
        json_t *o = json_object();
        proto__set(o, "name", s->name[0] != '\0' ? proto__string_or(s->name, "?") : json_null(),
                   ok);
        proto__set(o, "taken", json_boolean(s->taken), ok);
        proto__set(o, "connected", json_boolean(s->connected), ok);
        proto__set(o, "score", json_integer(p.score), ok);
        proto__set(o, "meeples", json_integer(p.meeples), ok);
        proto__set(o, "large", json_integer(p.large), ok);
        proto__set(o, "herbs", json_integer(p.herbs), ok);
        proto__add(a, o, ok);
    }
    return a;
}

/* Counts of the undrawn tiles by type, in catalogue order, zero counts left out. */
static json_t *remaining_new(const struct carc_game *g, int *ok)
{
    int count[256] = {0};
    json_t *o = json_object();
    for (int i = g != NULL ? g->deck_pos : 0; g != NULL && i < g->deck_len; i++)
        count[g->deck[i]]++;
    for (int t = 0; t < carc_tiles_count && t < 256; t++)
        if (count[t] > 0)
            proto__set(o, carc_tiles[t].id, json_integer(count[t]), ok);
    return o;
}

/* The meeple on placed tile idx (there is at most one: it came with the
 * tile): its node's meeple byte, and the segment in *seg. 0 when none. */
static uint8_t meeple_at(const struct carc_game *g, int idx, int *seg)
{
    const struct carc_tile *t = &carc_tiles[g->placed[idx].type];
    for (int s = 0; s < t->nsegs; s++) {
        uint8_t mp = g->nodes[idx * CARC_MAX_SEGS + s].meeple;
        if (mp != 0) {
            *seg = s;
            return mp;
        }
    }
    return 0;
}

static json_t *meeple_new(const struct carc_game *g, int idx, int *ok)
{
    int s = 0;
    uint8_t mp = meeple_at(g, idx, &s);
    if (mp == 0)
        return json_null();
    json_t *o = json_object();
    proto__set(o, "player", json_integer((mp & ~CARC_MEEPLE_LARGE) - 1), ok);
    proto__set(o, "feature", json_string(carc_tiles[g->placed[idx].type].segs[s].name), ok);
    proto__set(o, "kind", json_string(mp & CARC_MEEPLE_LARGE ? "large" : "normal"), ok);
    return o;
}

/* 1 when cell (of an earlier document) says what placed tile idx says now. */
static int cell_same(const struct carc_game *g, int idx, const json_t *cell)
{
    const struct carc_placed *p = &g->placed[idx];
    const char *id = json_string_value(json_object_get(cell, "tile"));
    const json_t *m = json_object_get(cell, "meeple");
    if (id == NULL || strcmp(id, carc_tiles[p->type].id) != 0 ||
        json_integer_value(json_object_get(cell, "rot")) != p->rot * 90)
        return 0;
    int s = 0;
    uint8_t mp = meeple_at(g, idx, &s);
    if (mp == 0 || !json_is_object(m))
        return mp == 0 && json_is_null(m);
    const char *feature = json_string_value(json_object_get(m, "feature"));
    const char *kind = json_string_value(json_object_get(m, "kind"));
    return json_integer_value(json_object_get(m, "player")) == (mp & ~CARC_MEEPLE_LARGE) - 1 &&
           feature != NULL && strcmp(feature, carc_tiles[p->type].segs[s].name) == 0 &&
           kind != NULL && strcmp(kind, mp & CARC_MEEPLE_LARGE ? "large" : "normal") == 0;
}

/* "x,y" without snprintf, which showed in profiles. */
static void cell_key(char *out, int x, int y)
{
    int v[2] = {x, y};
    for (int k = 0; k < 2; k++) {
        int n = v[k];
        if (n < 0) {
            *out++ = '-';
            n = -n;
        }
        if (n >= 100)
            *out++ = (char)('0' + n / 100);
        if (n >= 10)
            *out++ = (char)('0' + n / 10 % 10);
        *out++ = (char)('0' + n % 10);
        *out++ = k == 0 ? ',' : '\0';
    }
}

/* Tiles keyed "x,y", in the order they were placed (clients rely on it). A
 * cell that the previous document already holds as it is now is shared with
 * it: cheaper to build, and the diff skips it by pointer. */
static json_t *board_new(const struct carc_game *g, const json_t *prev, int *ok)
{
    json_t *o = json_object();
    for (int i = 0; g != NULL && i < g->ntiles; i++) {
        const struct carc_placed *p = &g->placed[i];
        char key[16];
        cell_key(key, p->x, p->y);
        json_t *old = prev != NULL ? json_object_get(prev, key) : NULL;
        if (old != NULL && cell_same(g, i, old)) {
            proto__set(o, key, json_incref(old), ok);
            continue;
        }
        json_t *cell = json_object();
        proto__set(cell, "tile", json_string(carc_tiles[p->type].id), ok);
        proto__set(cell, "rot", json_integer(p->rot * 90), ok);
        proto__set(cell, "meeple", meeple_new(g, i, ok), ok);
        proto__set(o, key, cell, ok);
    }
    return o;
}

struct knight {
    int x, y, seg;
};

/* The mover's knights that could ever escape: on a city not yet completed.
 * Whether its city is besieged after the placement is the engine's question
 * (a placement can join a plain city to a besieged one). None at all unless
 * the sets hold a siege tile. */
static int knights_find(const struct carc_game *g, struct knight *out)
{
    int siege = 0, n = 0;
    for (int t = 0; t < carc_tiles_count && !siege; t++)
        if (g->sets & (1u << carc_tiles[t].set))
            for (int s = 0; s < carc_tiles[t].nsegs; s++)
                siege |= (carc_tiles[t].segs[s].flags & CARC_SF_SIEGE) != 0;
    for (int i = 0; siege && i < g->ntiles; i++) {
        const struct carc_tile *t = &carc_tiles[g->placed[i].type];
        for (int s = 0; s < t->nsegs && n < MAX_KNIGHTS; s++) {
            int node = i * CARC_MAX_SEGS + s;
            uint8_t mp = g->nodes[node].meeple & ~CARC_MEEPLE_LARGE;
            if (t->segs[s].kind != CARC_SEG_CITY || mp != g->current + 1 ||
                (g->nodes[carc_game_feature(g, node)].flags & CARC_NF_DONE))
                continue;
            out[n++] = (struct knight){g->placed[i].x, g->placed[i].y, s};
        }
    }
    return n;
}

static json_t *legal_new(const struct carc_game *g, int *ok)
{
    json_t *a = json_array();
    struct carc_placement *pl = malloc(MAX_LEGAL * sizeof *pl);
    if (pl == NULL) {
        *ok = 0;
        return a;
    }
    const struct carc_tile *t = &carc_tiles[g->tile];
    const struct carc_player *me = &g->players[g->current];
    struct knight kn[MAX_KNIGHTS];
    int nk = knights_find(g, kn);
    int n = carc_game_placements(g, g->tile, pl, MAX_LEGAL);
    for (int i = 0; i < n && i < MAX_LEGAL; i++) {
        const struct carc_placement p = pl[i];
        json_t *o = json_object(), *spots = json_array(), *escapes = json_array();
        proto__set(o, "x", json_integer(p.x), ok);
        proto__set(o, "y", json_integer(p.y), ok);
        proto__set(o, "rot", json_integer(p.rot * 90), ok);
        unsigned mask = me->meeples > 0 || me->large > 0
                            ? carc_game_meeple_spots(g, g->tile, p.x, p.y, p.rot)
                            : 0;
        for (int s = 0; s < t->nsegs; s++)
            if (mask & (1u << s))
                proto__add(spots, json_string(t->segs[s].name), ok);
        for (int k = 0; k < nk; k++) {
            struct carc_move m = {g->current, g->tile, p.x,     p.y,     p.rot,    -1,
                                  0,          1,       kn[k].x, kn[k].y, kn[k].seg};
            if (carc_game_escape_check(g, &m, NULL) != 0)
                continue;
            const struct carc_tile *kt =
                &carc_tiles[g->placed[carc_game_tile_at(g, kn[k].x, kn[k].y) - 1].type];
            json_t *e = json_object();
            proto__set(e, "x", json_integer(kn[k].x), ok);
            proto__set(e, "y", json_integer(kn[k].y), ok);
            proto__set(e, "feature", json_string(kt->segs[kn[k].seg].name), ok);
            proto__add(escapes, e, ok);
        }
        proto__set(o, "meeples", spots, ok);
        proto__set(o, "escapes", escapes, ok);
        proto__add(a, o, ok);
    }
    free(pl);
    return a;
}

struct proto_state *proto_state_build(const struct proto_room_view *v)
{
    return proto_state_build_next(NULL, v);
}

struct proto_state *proto_state_build_next(const struct proto_state *prev,
                                           const struct proto_room_view *v)
{
    const struct carc_game *g = v->game;
    int ok = 1;
    int moving = v->phase == PROTO_PHASE_PLAYING && g != NULL && g->phase == CARC_PHASE_PLACE &&
                 g->tile >= 0 && g->tile < carc_tiles_count;
    unsigned sets = v->sets | (1u << CARC_SET_BASE);
    int herbs = !has_set(sets, CARC_SET_APOTHECARIES_TITHES) ? 0
                : g != NULL                                  ? g->herbs_left
                                                             : CARC_HERBS;
    json_t *doc = json_object(), *options = json_object();
    proto__set(doc, "room", proto__string_or(v->room != NULL ? v->room : "", ""), &ok);
    proto__set(doc, "phase", json_string(proto__phase_name(v->phase)), &ok);
    proto__set(doc, "sets", proto__sets_new(sets), &ok);
    proto__set(options, "farmers", json_boolean(!v->no_farmers), &ok);
    proto__set(options, "siege_escape", json_string(proto__escape_rule_name(v->escape_rule)), &ok);
    proto__set(doc, "options", options, &ok);
    proto__set(doc, "host", json_integer(v->host), &ok);
    proto__set(doc, "seats", seats_new(v, &ok), &ok);
    proto__set(doc, "turn", json_integer(g != NULL ? g->turn : 0), &ok);
    proto__set(doc, "current", moving ? json_integer(g->current) : json_null(), &ok);
    proto__set(doc, "tile", moving ? json_string(carc_tiles[g->tile].id) : json_null(), &ok);
    proto__set(doc, "tiles_left", json_integer(g != NULL ? carc_game_tiles_left(g) : 0), &ok);
    proto__set(doc, "remaining", remaining_new(g, &ok), &ok);
    proto__set(doc, "herbs_left", json_integer(herbs), &ok);
    proto__set(doc, "board",
               board_new(g, prev != NULL ? json_object_get(prev->doc, "board") : NULL, &ok), &ok);
    proto__set(doc, "legal", moving ? legal_new(g, &ok) : json_array(), &ok);
    struct proto_state *s = ok ? malloc(sizeof *s) : NULL;
    if (s == NULL) {
        json_decref(doc);
        return NULL;
    }
    s->doc = doc;
    return s;
}

void proto_state_free(struct proto_state *s)
{
    if (s == NULL)
        return;
    json_decref(s->doc);
    free(s);
}

char *proto_state_encode(const struct proto_state *s, long long seq, const char *ref)
{
    int ok = 1;
    json_t *o = proto__frame_new("state", ref);
    proto__set(o, "seq", json_integer(seq), &ok);
    /* Borrow the document: the frame's reference goes away with the frame. */
    proto__set(o, "state", json_incref(s->doc), &ok);
    return proto__dump_take(o, ok);
}

/* ---- deltas ---- */

static json_t *extra_event_new(const struct proto_extra_event *e, const struct proto_state *to,
                               int *ok)
{
    json_t *o = json_object();
    if (e->kind == PROTO_EV_START) {
        json_t *players = json_array();
        size_t i;
        json_t *seat;
        json_array_foreach(json_object_get(to->doc, "seats"), i, seat)
            proto__add(players, json_deep_copy(json_object_get(seat, "name")), ok);
        proto__set(o, "type", json_string("start"), ok);
        proto__set(o, "players", players, ok);
        return o;
    }
    proto__set(o, "type", json_string("seat"), ok);
    proto__set(o, "seat", json_integer(e->seat), ok);
    proto__set(o, "name",
               e->name != NULL && e->name[0] != '\0' ? proto__string_or(e->name, "?") : json_null(),
               ok);
    proto__set(o, "taken", json_boolean(e->taken), ok);
    proto__set(o, "connected", json_boolean(e->connected), ok);
    return o;
}

/* The "placed" event of move, read against g after the move (for the knight's tile). */
static json_t *placed_event_new(const struct carc_game *g, const struct carc_move *m, int *ok)
{
    const struct carc_tile *t = &carc_tiles[m->tile];
    json_t *o = json_object();
    proto__set(o, "type", json_string("placed"), ok);
    proto__set(o, "player", json_integer(m->player), ok);
    proto__set(o, "tile", json_string(t->id), ok);
    proto__set(o, "x", json_integer(m->x), ok);
    proto__set(o, "y", json_integer(m->y), ok);
    proto__set(o, "rot", json_integer(m->rot * 90), ok);
    json_t *meeple = json_null(), *escape = json_null();
    if (m->seg >= 0 && m->seg < t->nsegs) {
        meeple = json_object();
        proto__set(meeple, "feature", json_string(t->segs[m->seg].name), ok);
        proto__set(meeple, "kind", json_string(m->large ? "large" : "normal"), ok);
    }
    int at = m->escape ? carc_game_tile_at(g, m->ex, m->ey) : 0;
    if (at != 0 && m->eseg >= 0 && m->eseg < carc_tiles[g->placed[at - 1].type].nsegs) {
        escape = json_object();
        proto__set(escape, "x", json_integer(m->ex), ok);
        proto__set(escape, "y", json_integer(m->ey), ok);
        proto__set(escape, "feature",
                   json_string(carc_tiles[g->placed[at - 1].type].segs[m->eseg].name), ok);
    }
    proto__set(o, "meeple", meeple, ok);
    proto__set(o, "escape", escape, ok);
    return o;
}

char *proto_delta_encode(const struct proto_state *from, const struct proto_state *to,
                         long long seq, const struct proto_extra_event *extra, int nextra,
                         const struct carc_game *g, const struct carc_move *move)
{
    int ok = 1;
    json_t *o = proto__frame_new("delta", NULL);
    json_t *events = json_array();
    proto__set(o, "seq", json_integer(seq), &ok);
    for (int i = 0; i < nextra; i++)
        if (extra[i].kind == PROTO_EV_SEAT || extra[i].kind == PROTO_EV_START)
            proto__add(events, extra_event_new(&extra[i], to, &ok), &ok);
    if (move != NULL && g != NULL && move->tile >= 0 && move->tile < carc_tiles_count) {
        proto__add(events, placed_event_new(g, move, &ok), &ok);
        for (int i = 0; i < g->nevents && i < CARC_MAX_EVENTS; i++)
            proto__add(events, proto_event_new(g, &g->events[i]), &ok);
    }
    proto__set(o, "events", events, &ok);
    proto__set(o, "patch", proto__diff(from->doc, to->doc), &ok);
    return proto__dump_take(o, ok);
}

/* ---- test helper ---- */

/* The "state" member of a state message (new reference), or NULL. */
static json_t *state_of(const char *msg, long long *seq)
{
    json_t *root = json_loads(msg, 0, NULL);
    json_t *doc = json_incref(json_object_get(root, "state"));
    *seq = json_integer_value(json_object_get(root, "seq"));
    json_decref(root);
    return doc;
}

int proto_patch_check(const char *state_msg, const char *const *delta_msgs, int ndeltas,
                      const char *expected_state_msg, struct proto_error *err)
{
    long long seq = 0, want_seq = 0;
    json_t *doc = state_of(state_msg, &seq);
    json_t *want = state_of(expected_state_msg, &want_seq);
    int rc = 0;
    if (doc == NULL || want == NULL)
        rc = proto_error_set(err, CARC_E_JSON, -1, "state", "a state message has no document");
    for (int i = 0; rc == 0 && i < ndeltas; i++) {
        char why[160], field[32];
        snprintf(field, sizeof field, "deltas[%d]", i);
        json_t *d = json_loads(delta_msgs[i], 0, NULL);
        long long s = json_integer_value(json_object_get(d, "seq"));
        if (d == NULL || !json_is_array(json_object_get(d, "events")))
            rc = proto_error_set(err, CARC_E_JSON, -1, field, "not a delta message");
        else if (s != seq + 1)
            rc = proto_error_set(err, CARC_E_INVAL, -1, field, "seq %lld after %lld", s, seq);
        else if (proto__patch_apply(&doc, json_object_get(d, "patch"), why, sizeof why) != 0)
            rc = proto_error_set(err, CARC_E_INVAL, -1, field, "patch: %s", why);
        seq = s;
        json_decref(d);
    }
    if (rc == 0 && seq != want_seq)
        rc = proto_error_set(err, CARC_E_INVAL, -1, "seq", "deltas end at seq %lld, state is %lld",
                             seq, want_seq);
    if (rc == 0 && !json_equal(doc, want)) {
        char *a = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
        char *b = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS);
        size_t k = 0;
        while (a != NULL && b != NULL && a[k] != '\0' && a[k] == b[k])
            k++;
        rc = proto_error_set(err, CARC_E_INVAL, -1, "state",
                             "documents differ at byte %zu: ...%.50s... vs ...%.50s...", k,
                             a != NULL ? a + (k > 20 ? k - 20 : 0) : "?",
                             b != NULL ? b + (k > 20 ? k - 20 : 0) : "?");
        free(a);
        free(b);
    }
    json_decref(doc);
    json_decref(want);
    return rc;
}
