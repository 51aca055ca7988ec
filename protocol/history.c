/* history.c: see history.h. */
#include "history.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "patch.h"

/* The "placed" (or "skip") event of m, as the move's delta carried it; g is
 * the game after the move (it names the escaping knight's feature). */
static json_t *move_event(const struct carc_game *g, const struct carc_move *m, int *ok)
{
    const struct carc_tile *t = &carc_tiles[m->tile];
    json_t *o = json_object();
    proto__set(o, "type", json_string(m->skip ? "skip" : "placed"), ok);
    proto__set(o, "player", json_integer(m->player), ok);
    proto__set(o, "tile", json_string(t->id), ok);
    if (m->skip)
        return o;
    proto__set(o, "x", json_integer(m->x), ok);
    proto__set(o, "y", json_integer(m->y), ok);
    proto__set(o, "rot", json_integer(m->rot * 90), ok);
    json_t *meeple = json_null();
    if (m->seg >= 0 && m->seg < t->nsegs) {
        meeple = json_object();
        proto__set(meeple, "feature", json_string(t->segs[m->seg].name), ok);
        proto__set(meeple, "kind", json_string(m->large ? "large" : "normal"), ok);
    }
    proto__set(o, "meeple", meeple, ok);
    json_t *escape = json_null();
    int at = m->escape ? carc_game_tile_at(g, m->ex, m->ey) : 0;
    if (at != 0 && m->eseg >= 0 && m->eseg < carc_tiles[g->placed[at - 1].type].nsegs) {
        escape = json_object();
        proto__set(escape, "x", json_integer(m->ex), ok);
        proto__set(escape, "y", json_integer(m->ey), ok);
        proto__set(escape, "feature",
                   json_string(carc_tiles[g->placed[at - 1].type].segs[m->eseg].name), ok);
    }
    proto__set(o, "escape", escape, ok);
    return o;
}

char *proto_history_encode(const struct carc_config *cfg, const struct carc_move *moves, int nmoves,
                           const struct proto_chat_line *chat, int nchat, const char *ref)
{
    int ok = 1;
    json_t *o = proto__frame_new("history", ref);
    json_t *turns = json_array();
    struct carc_game *g = NULL;
    if (cfg != NULL) {
        /* Zeroed: the engine reads its scratch marks before writing them. */
        g = calloc(1, sizeof *g);
        struct carc_error err = {0, ""};
        if (g == NULL || carc_game_init(g, cfg, &err) != 0)
            ok = 0;
    }
    for (int i = 0; ok && g != NULL && i < nmoves; i++) {
        struct carc_move m = moves[i];
        m.player = g->current;
        struct carc_error err = {0, ""};
        if (carc_game_play(g, &m, &err) != 0) {
            ok = 0;
            break;
        }
        json_t *t = json_object(), *evs = json_array();
        proto__add(evs, move_event(g, &m, &ok), &ok);
        for (int e = 0; e < g->nevents && e < CARC_MAX_EVENTS; e++) {
            json_t *ev = proto_event_new(g, &g->events[e]);
            if (ev == NULL)
                ok = 0;
            else
                proto__add(evs, ev, &ok);
        }
        proto__set(t, "move", json_integer(i), &ok);
        proto__set(t, "player", json_integer(m.player), &ok);
        proto__set(t, "events", evs, &ok);
        proto__add(turns, t, &ok);
    }
    free(g);
    proto__set(o, "turns", turns, &ok);
    json_t *lines = json_array();
    for (int i = 0; i < nchat; i++) {
        json_t *c = json_object();
        proto__set(c, "seat", chat[i].seat >= 0 ? json_integer(chat[i].seat) : json_null(), &ok);
        proto__set(c, "name", proto__string_or(chat[i].name, "?"), &ok);
        proto__set(c, "text", proto__string_or(chat[i].text, ""), &ok);
        proto__set(c, "time", json_integer(chat[i].time), &ok);
        proto__add(lines, c, &ok);
    }
    proto__set(o, "chat", lines, &ok);
    return proto__dump_take(o, ok);
}
