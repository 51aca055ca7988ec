/* state_events.c: the events a delta carries (PROTOCOL.md "Events"): the
 * room's own (a seat taken or left, the start, a timeout, a bot taking over
 * or giving back a seat) and a move's ("placed" or "skip", then the engine's
 * scoring events), written as text in the order state.c's delta lists them.
 * Game records and replays write a move's events with the same functions, so
 * that they are the very bytes its delta carried. */
#include <jansson.h>

#include "bot.h"
#include "event_json.h"
#include "state_int.h"

static json_t *extra_event_new(const struct proto_extra_event *e, const struct proto_state *to,
                               int *ok)
{
    json_t *o = json_object();
    if (e->kind == PROTO_EV_START) {
        json_t *players = json_array();
        for (int i = 0; i < to->nseats; i++)
            proto__add(players,
                       to->seats[i].null_name ? json_null() : json_string(to->seats[i].name), ok);
        proto__set(o, "type", json_string("start"), ok);
        proto__set(o, "players", players, ok);
        return o;
    }
    if (e->kind == PROTO_EV_TIMEOUT) {
        proto__set(o, "type", json_string("timeout"), ok);
        proto__set(o, "seat", json_integer(e->seat), ok);
        proto__set(o, "on_timeout", proto__string_or(proto_timeout_name(e->value), "bot"), ok);
        return o;
    }
    if (e->kind == PROTO_EV_AUTOPLAY) {
        const char *why = proto_autoplay_name(e->value);
        proto__set(o, "type", json_string("autoplay"), ok);
        proto__set(o, "seat", json_integer(e->seat), ok);
        proto__set(o, "reason", why != NULL ? json_string(why) : json_null(), ok);
        return o;
    }
    const char *bot = e->bot > 0 ? carc_bot_level_name(e->bot - 1) : NULL;
    proto__set(o, "type", json_string("seat"), ok);
    proto__set(o, "seat", json_integer(e->seat), ok);
    proto__set(o, "name",
               e->name != NULL && e->name[0] != '\0' ? proto__string_or(e->name, "?") : json_null(),
               ok);
    proto__set(o, "taken", json_boolean(e->taken), ok);
    proto__set(o, "connected", json_boolean(e->connected), ok);
    proto__set(o, "bot", bot != NULL ? json_string(bot) : json_null(), ok);
    return o;
}

/* The "meeple" and "escape" members of a placing move m, read against g after the move. */
void proto__put_meeple_escape(struct proto__out *b, const struct carc_game *g,
                              const struct carc_move *m)
{
    const struct carc_tile *t = &carc_tiles[m->tile];
    PUT(b, ",\"meeple\":");
    if (m->seg >= 0 && m->seg < t->nsegs) {
        PUT(b, "{\"feature\":");
        put_name(b, t->segs[m->seg].name);
        if (m->large)
            PUT(b, ",\"kind\":\"large\"}");
        else
            PUT(b, ",\"kind\":\"normal\"}");
    } else {
        PUT(b, "null");
    }
    PUT(b, ",\"escape\":");
    int at = m->escape ? carc_game_tile_at(g, m->ex, m->ey) : 0;
    if (at != 0 && m->eseg >= 0 && m->eseg < carc_tiles[g->placed[at - 1].type].nsegs) {
        PUT(b, "{\"x\":");
        put_int(b, m->ex);
        PUT(b, ",\"y\":");
        put_int(b, m->ey);
        PUT(b, ",\"feature\":");
        put_name(b, carc_tiles[g->placed[at - 1].type].segs[m->eseg].name);
        PUT(b, "}");
    } else {
        PUT(b, "null");
    }
}

/* The "placed" event of move, read against g after the move (for the knight's tile). */
static void put_placed_event(struct proto__out *b, const struct carc_game *g,
                             const struct carc_move *m)
{
    const struct carc_tile *t = &carc_tiles[m->tile];
    PUT(b, "{\"type\":\"placed\",\"player\":");
    put_int(b, m->player);
    PUT(b, ",\"tile\":");
    put_name(b, t->id);
    PUT(b, ",\"x\":");
    put_int(b, m->x);
    PUT(b, ",\"y\":");
    put_int(b, m->y);
    PUT(b, ",\"rot\":");
    put_int(b, m->rot * 90);
    proto__put_meeple_escape(b, g, m);
    PUT(b, "}");
}

void proto__put_move_events(struct proto__out *b, const struct carc_game *g,
                            const struct carc_move *m)
{
    if (m->skip) {
        PUT(b, "{\"type\":\"skip\",\"player\":");
        put_int(b, m->player);
        PUT(b, ",\"tile\":");
        put_name(b, carc_tiles[m->tile].id);
        PUT(b, "}");
    } else {
        put_placed_event(b, g, m);
    }
    for (int i = 0; i < g->nevents && i < CARC_MAX_EVENTS; i++) {
        json_t *e = proto_event_new(g, &g->events[i]);
        PUT(b, ",");
        if (e == NULL)
            b->ok = 0;
        else
            proto__out_value(b, e);
        json_decref(e);
    }
}

int proto__put_extra_events(struct proto__out *b, const struct proto_extra_event *extra, int nextra,
                            const struct proto_state *to)
{
    int nev = 0;
    for (int i = 0; i < nextra; i++) {
        if (extra[i].kind <= PROTO_EV_NONE || extra[i].kind > PROTO_EV_AUTOPLAY)
            continue;
        int ok = 1;
        json_t *e = extra_event_new(&extra[i], to, &ok);
        if (nev++ > 0)
            PUT(b, ",");
        if (!ok || e == NULL)
            b->ok = 0;
        else
            proto__out_value(b, e);
        json_decref(e);
    }
    return nev;
}
