/* replay_json.c: a record played through the engine as a replay document
 * (see replay_json.h). Written with the buffer writer of the state files, and
 * each move's events with proto__put_move_events, so that they are the very
 * objects its delta carried. */
#include "replay_json.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "patch.h"
#include "record_json.h"
#include "state_int.h"

static const char *const escape_rules[] = {"siege-tile", "any-tile"}; /* enum carc_escape_rule */

/* The engine state of one replay: both are large, so they live on the heap. */
struct replay {
    struct carc_record rec;
    struct carc_game g;
    struct carc_event saved[CARC_MAX_EVENTS]; /* g.events while only a part is shown */
};

static void put_scores(struct proto__out *b, const int32_t *scores, int n)
{
    PUT(b, "[");
    for (int p = 0; p < n; p++) {
        if (p > 0)
            PUT(b, ",");
        put_int(b, scores[p]);
    }
    PUT(b, "]");
}

/* Every meeple on the board, in the order their tiles were placed (a meeple
 * only ever stands on the tile it came with, so there is one a tile at most). */
static void put_meeples(struct proto__out *b, const struct carc_game *g)
{
    int first = 1;
    PUT(b, "[");
    for (int i = 0; i < g->ntiles; i++) {
        const struct carc_placed *p = &g->placed[i];
        const struct carc_tile *t = &carc_tiles[p->type];
        for (int s = 0; s < t->nsegs; s++) {
            uint8_t mp = g->nodes[carc_game_node(g, i, s)].meeple;
            if (mp == 0)
                continue;
            if (!first)
                PUT(b, ",");
            first = 0;
            PUT(b, "{\"x\":");
            put_int(b, p->x);
            PUT(b, ",\"y\":");
            put_int(b, p->y);
            PUT(b, ",\"player\":");
            put_int(b, (mp & ~CARC_MEEPLE_LARGE) - 1);
            PUT(b, ",\"feature\":");
            put_name(b, t->segs[s].name);
            if (mp & CARC_MEEPLE_LARGE)
                PUT(b, ",\"kind\":\"large\"}");
            else
                PUT(b, ",\"kind\":\"normal\"}");
            break;
        }
    }
    PUT(b, "]");
}

/* Engine events of the last call that are end-game ones (final != 0) or the
 * others, comma-separated, each preceded by a comma when lead is set. */
static void put_events(struct proto__out *b, const struct carc_game *g, int final, int lead)
{
    for (int i = 0; i < g->nevents && i < CARC_MAX_EVENTS; i++) {
        const struct carc_event *ev = &g->events[i];
        int is_final = ev->type != CARC_EV_DISCARD && proto_event_is_final(ev);
        if (is_final != final)
            continue;
        if (lead)
            PUT(b, ",");
        lead = 1;
        json_t *e = proto_event_new(g, ev);
        if (e == NULL)
            b->ok = 0;
        else
            proto__out_value(b, e);
        json_decref(e);
    }
}

/* A move's events as its delta has them, end-game scoring left out: g's
 * events are narrowed to the others for the call, then put back. */
static void put_turn_events(struct proto__out *b, struct replay *r, const struct carc_move *m)
{
    struct carc_game *g = &r->g;
    int n = g->nevents < CARC_MAX_EVENTS ? g->nevents : CARC_MAX_EVENTS, k = 0;
    memcpy(r->saved, g->events, (size_t)n * sizeof g->events[0]);
    for (int i = 0; i < n; i++)
        if (r->saved[i].type == CARC_EV_DISCARD || !proto_event_is_final(&r->saved[i]))
            g->events[k++] = r->saved[i];
    g->nevents = (uint16_t)k;
    proto__put_move_events(b, g, m);
    memcpy(g->events, r->saved, (size_t)n * sizeof g->events[0]);
    g->nevents = (uint16_t)n;
}

static void put_head(struct proto__out *b, const struct replay *r, const char *id)
{
    const struct carc_record *rec = &r->rec;
    PUT(b, "{\"format\":\"" PROTO_REPLAY_FORMAT "\",\"id\":");
    put_string(b, id);
    PUT(b, ",\"players\":[");
    for (int p = 0; p < rec->nplayers; p++) {
        if (p > 0)
            PUT(b, ",");
        put_string(b, rec->names[p]);
    }
    PUT(b, "],\"sets\":[");
    for (int s = 0, first = 1; s < CARC_SET_COUNT; s++)
        if (rec->sets & (1u << s)) {
            if (!first)
                PUT(b, ",");
            first = 0;
            put_name(b, carc_set_name(s));
        }
    PUT(b, "],\"options\":{\"siege_escape\":");
    put_name(b, escape_rules[rec->escape_rule == CARC_ESCAPE_ANY_TILE]);
    if (rec->no_farmers)
        PUT(b, ",\"farmers\":false,\"farms\":");
    else
        PUT(b, ",\"farmers\":true,\"farms\":");
    put_name(b, proto__farm_rule_name(rec->farm_rule));
    if (rec->small_city)
        PUT(b, ",\"small_city\":2,\"seat_order\":");
    else
        PUT(b, ",\"small_city\":4,\"seat_order\":");
    put_name(b, proto__seat_order_name(rec->seat_random));
    PUT(b, "},\"closed\":");
    if (rec->closed[0] != '\0')
        put_string(b, rec->closed);
    else
        PUT(b, "null");
    PUT(b, ",\"start\":{\"tile\":");
    put_name(b, carc_tiles[rec->start].id);
    PUT(b, ",\"x\":0,\"y\":0,\"rot\":0,\"events\":[");
    put_events(b, &r->g, 0, 0);
    PUT(b, "]}");
}

/* Move i, just played as m: its object (a comma before it unless first). */
static void put_move(struct proto__out *b, struct replay *r, int i, const struct carc_move *m)
{
    struct carc_game *g = &r->g;
    if (i > 0)
        PUT(b, ",");
    PUT(b, "{\"move\":");
    put_int(b, i);
    PUT(b, ",\"player\":");
    put_int(b, m->player);
    PUT(b, ",\"tile\":");
    put_name(b, carc_tiles[m->tile].id);
    if (m->skip) {
        PUT(b, ",\"skip\":true,\"x\":null,\"y\":null,\"rot\":null,\"meeple\":null,\"escape\":null");
    } else {
        PUT(b, ",\"skip\":false,\"x\":");
        put_int(b, m->x);
        PUT(b, ",\"y\":");
        put_int(b, m->y);
        PUT(b, ",\"rot\":");
        put_int(b, m->rot * 90);
        proto__put_meeple_escape(b, g, m);
    }
    PUT(b, ",\"events\":[");
    put_turn_events(b, r, m);
    int32_t scores[CARC_MAX_PLAYERS];
    proto_event_turn_scores(g, scores);
    PUT(b, "],\"scores\":");
    put_scores(b, scores, g->nplayers);
    PUT(b, ",\"meeples\":");
    put_meeples(b, g);
    PUT(b, "}");
}

static void put_final(struct proto__out *b, const struct carc_game *g)
{
    int32_t scores[CARC_MAX_PLAYERS];
    for (int p = 0; p < g->nplayers; p++)
        scores[p] = g->players[p].score;
    if (g->phase == CARC_PHASE_OVER)
        PUT(b, "],\"final\":{\"over\":true,\"scores\":");
    else
        PUT(b, "],\"final\":{\"over\":false,\"scores\":");
    put_scores(b, scores, g->nplayers);
    PUT(b, ",\"events\":[");
    /* Only the game's last call ran end-game scoring; a stopped game has none. */
    if (g->phase == CARC_PHASE_OVER)
        put_events(b, g, 1, 0);
    PUT(b, "]}}");
}

int proto_replay_encode(const char *id, const char *text, size_t len, char **out,
                        struct proto_error *err)
{
    *out = NULL;
    struct replay *r = calloc(1, sizeof *r); /* zeroed: the engine reads its scratch marks */
    if (r == NULL)
        return proto_error_set(err, CARC_E_NOMEM, -1, "", NULL);
    int rc = proto_record_load(text, len, PROTO_RECORD_MAX_BYTES, &r->rec, err);
    struct carc_error cerr = {0, ""};
    if (rc == 0) {
        rc = carc_record_start(&r->rec, &r->g, &cerr);
        if (rc != 0)
            proto_error_set(err, rc, -1, "", "the game does not start: %s", cerr.text);
    }
    struct proto__out b;
    if (rc == 0 && proto__out_init(&b, 8192 + (size_t)r->rec.nmoves * 1024) != 0)
        rc = proto_error_set(err, CARC_E_NOMEM, -1, "", NULL);
    if (rc != 0) {
        free(r);
        return rc;
    }
    put_head(&b, r, id);
    PUT(&b, ",\"moves\":[");
    for (int i = 0; i < r->rec.nmoves && rc == 0; i++) {
        struct carc_move m;
        rc = proto_record_move(&r->rec, i, &r->g, &m, err);
        if (rc == 0) {
            rc = carc_game_play(&r->g, &m, &cerr);
            if (rc != 0)
                proto_error_set(err, rc, i, "", "move %d does not replay: %s", i, cerr.text);
        }
        if (rc == 0)
            put_move(&b, r, i, &m);
    }
    put_final(&b, &r->g);
    free(r);
    char *s = proto__out_finish(&b);
    if (rc != 0) {
        free(s);
        return rc;
    }
    if (s == NULL)
        return proto_error_set(err, CARC_E_NOMEM, -1, "", NULL);
    *out = s;
    return 0;
}
