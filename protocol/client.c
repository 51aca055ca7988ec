/* client.c: the client side of protocol v1 (see client.h): server messages
 * classified and the state document kept up to date by its deltas, plain C
 * views of the document, and an engine position rebuilt from it. The client
 * messages are encoded in client_encode.c.
 *
 * Accessors re-read the jansson document on every call: bots call them a few
 * times per turn, and the document is the only copy of the truth, so there is
 * no cache to fall out of step with it. */
#include "client.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch.h"

struct proto_client_doc {
    json_t *doc; /* the state document, or NULL */
    long long seq;
    int seat;
    json_t *legal;                            /* the list of the last `legal` message, or NULL */
    int legal_turn, legal_player, legal_tile; /* what it is the list for */
};

struct proto_client_doc *proto_client_doc_new(void)
{
    struct proto_client_doc *d = malloc(sizeof *d);
    if (d != NULL)
        *d = (struct proto_client_doc){NULL, -1, -1, NULL, -1, -1, -1};
    return d;
}

void proto_client_doc_free(struct proto_client_doc *d)
{
    if (d == NULL)
        return;
    json_decref(d->doc);
    json_decref(d->legal);
    free(d);
}

long long proto_client_doc_seq(const struct proto_client_doc *d)
{
    return d != NULL && d->doc != NULL ? d->seq : -1;
}

char *proto_client_doc_dump(const struct proto_client_doc *d)
{
    if (d == NULL || d->doc == NULL)
        return NULL;
    return proto__dump(d->doc);
}

void proto_client_seat_set(struct proto_client_doc *d, int seat)
{
    if (d != NULL)
        d->seat = seat;
}

int proto_client_seat(const struct proto_client_doc *d)
{
    return d != NULL ? d->seat : -1;
}

/* ---- handling server messages ---- */

/* Copy string member key of o into out (size bytes, truncated); 0 when absent,
 * -1 when present but not a string. */
static int copy_text(const json_t *o, const char *key, char *out, size_t size)
{
    const json_t *v = json_object_get(o, key);
    if (v == NULL)
        return 0;
    if (!json_is_string(v))
        return -1;
    snprintf(out, size, "%s", json_string_value(v));
    return 0;
}

/* Integer member into *out when present (keeps *out otherwise); -1 on a wrong type. */
static int copy_int(const json_t *o, const char *key, long long *out)
{
    const json_t *v = json_object_get(o, key);
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_integer(v))
        return -1;
    *out = json_integer_value(v);
    return 0;
}

/* Like copy_text, but a value that does not fit is -1 (a cut path would lead elsewhere). */
static int copy_whole(const json_t *o, const char *key, char *out, size_t size)
{
    const json_t *v = json_object_get(o, key);
    if (v != NULL && json_is_string(v) && json_string_length(v) >= size)
        return -1;
    return copy_text(o, key, out, size);
}

static int copy_small(const json_t *o, const char *key, int *out)
{
    long long n = *out;
    int rc = copy_int(o, key, &n);
    *out = (int)n;
    return rc;
}

static void event_init(struct proto_client_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->type = PROTO_S_UNKNOWN;
    ev->ref_num = -1;
    ev->seq = -1;
    ev->seat = -1;
    ev->message_bytes = ev->messages_per_second = ev->chat_bytes = -1;
    ev->nrooms = -1;
    ev->nevents = -1;
    ev->retry_ms = -1;
}

static void read_ref(const json_t *root, struct proto_client_event *ev)
{
    const json_t *ref = json_object_get(root, "ref");
    if (ref == NULL)
        return;
    char *s = json_dumps(ref, JSON_COMPACT | JSON_ENCODE_ANY);
    if (s != NULL && strlen(s) < sizeof ev->ref)
        memcpy(ev->ref, s, strlen(s) + 1);
    free(s);
    if (json_is_integer(ref) && json_integer_value(ref) >= 0)
        ev->ref_num = json_integer_value(ref);
}

/* Apply a delta to d. Returns 0 or CARC_E_INVAL (the document is then dropped). */
static int delta_apply(struct proto_client_doc *d, const json_t *root,
                       struct proto_client_event *ev)
{
    if (d->doc == NULL || ev->seq > d->seq + 1) {
        ev->gap = 1;
        return 0;
    }
    if (ev->seq <= d->seq)
        return 0; /* already applied: a resent delta after a sync */
    char why[160];
    if (proto__patch_apply(&d->doc, json_object_get(root, "patch"), why, sizeof why) != 0) {
        json_decref(d->doc);
        d->doc = NULL;
        d->seq = -1;
        snprintf(ev->message, sizeof ev->message, "patch: %.140s", why);
        return CARC_E_INVAL;
    }
    d->seq = ev->seq;
    ev->applied = 1;
    return 0;
}

static int handle_root(struct proto_client_doc *d, const json_t *root,
                       struct proto_client_event *ev)
{
    const json_t *limits = json_object_get(root, "limits"), *events;
    int bad = 0;
    switch (ev->type) {
    case PROTO_S_WELCOME:
        bad |= copy_small(limits, "message_bytes", &ev->message_bytes);
        bad |= copy_small(limits, "messages_per_second", &ev->messages_per_second);
        bad |= copy_small(limits, "chat_bytes", &ev->chat_bytes);
        break;
    case PROTO_S_ROOMS:
        ev->nrooms = (int)json_array_size(json_object_get(root, "rooms"));
        break;
    case PROTO_S_JOINED:
    case PROTO_S_WATCHING:
        bad |= copy_text(root, "room", ev->room, sizeof ev->room);
        bad |= copy_small(root, "seat", &ev->seat);
        bad |= copy_text(root, "token", ev->token, sizeof ev->token);
        break;
    case PROTO_S_REDIRECT:
        bad |= copy_text(root, "room", ev->room, sizeof ev->room);
        bad |= copy_whole(root, "node", ev->node, sizeof ev->node);
        bad |= copy_whole(root, "path", ev->path, sizeof ev->path);
        bad |= copy_small(root, "retry_ms", &ev->retry_ms);
        if (!bad && ev->path[0] != '/')
            return CARC_E_INVAL;
        break;
    case PROTO_S_CHAT:
        bad |= copy_small(root, "seat", &ev->seat);
        bad |= copy_text(root, "name", ev->name, sizeof ev->name);
        bad |= copy_text(root, "text", ev->text, sizeof ev->text);
        break;
    case PROTO_S_ERROR:
        bad |= copy_text(root, "code", ev->code_name, sizeof ev->code_name);
        bad |= copy_text(root, "message", ev->message, sizeof ev->message);
        ev->code = carc_err_from_name(ev->code_name);
        break;
    case PROTO_S_ACK:
    case PROTO_S_SYNCED:
    case PROTO_S_STATE:
    case PROTO_S_DELTA:
        bad |= copy_int(root, "seq", &ev->seq);
        if (ev->seq < 0)
            return CARC_E_INVAL;
        break;
    case PROTO_S_LEGAL: {
        int turn = -1, player = -1;
        char tile[16] = "";
        json_t *list = json_object_get(root, "legal");
        bad |= copy_int(root, "seq", &ev->seq) | copy_small(root, "turn", &turn) |
               copy_small(root, "player", &player) | copy_text(root, "tile", tile, sizeof tile);
        if (bad || ev->seq < 0 || !json_is_array(list) || carc_tile_find(tile) < 0)
            return CARC_E_INVAL;
        if (d != NULL) {
            json_decref(d->legal);
            d->legal = json_incref(list);
            d->legal_turn = turn;
            d->legal_player = player;
            d->legal_tile = carc_tile_find(tile);
        }
        break;
    }
    default:
        break;
    }
    if (bad)
        return CARC_E_INVAL;
    if (ev->type == PROTO_S_STATE) {
        json_t *doc = json_object_get(root, "state");
        if (!json_is_object(doc))
            return CARC_E_INVAL;
        if (d != NULL) {
            json_decref(d->doc);
            d->doc = json_incref(doc);
            d->seq = ev->seq;
        }
        ev->applied = d != NULL;
    }
    if (ev->type == PROTO_S_DELTA) {
        events = json_object_get(root, "events");
        if (!json_is_array(events) || !json_is_array(json_object_get(root, "patch")))
            return CARC_E_INVAL;
        ev->nevents = (int)json_array_size(events);
        size_t i;
        json_t *e;
        json_array_foreach(events, i, e)
        {
            const char *t = json_string_value(json_object_get(e, "type"));
            ev->turn_over |= t != NULL && strcmp(t, "placed") == 0;
        }
        if (d != NULL)
            return delta_apply(d, root, ev);
    }
    return 0;
}

int proto_client_handle(struct proto_client_doc *d, const char *text, size_t len,
                        struct proto_client_event *ev)
{
    event_init(ev);
    json_t *root = json_loadb(text, len, 0, NULL);
    const char *type = json_string_value(json_object_get(root, "type"));
    if (!json_is_object(root) || type == NULL) {
        json_decref(root);
        return CARC_E_JSON;
    }
    ev->type = proto_server_type_find(type);
    read_ref(root, ev);
    int rc = ev->type == PROTO_S_UNKNOWN ? CARC_E_TYPE : handle_root(d, root, ev);
    json_decref(root);
    return rc;
}

/* ---- accessors ---- */

static const json_t *doc_get(const struct proto_client_doc *d, const char *key)
{
    return d != NULL && d->doc != NULL ? json_object_get(d->doc, key) : NULL;
}

static int doc_int(const struct proto_client_doc *d, const char *key)
{
    const json_t *v = doc_get(d, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

int proto_client_phase(const struct proto_client_doc *d)
{
    const char *s = json_string_value(doc_get(d, "phase"));
    return s != NULL ? proto__phase_find(s) : -1;
}

int proto_client_current(const struct proto_client_doc *d)
{
    return doc_int(d, "current");
}

int proto_client_tile(const struct proto_client_doc *d)
{
    const char *s = json_string_value(doc_get(d, "tile"));
    return s != NULL ? carc_tile_find(s) : -1;
}

int proto_client_turn(const struct proto_client_doc *d)
{
    return doc_int(d, "turn");
}

int proto_client_tiles_left(const struct proto_client_doc *d)
{
    return doc_int(d, "tiles_left");
}

int proto_client_host(const struct proto_client_doc *d)
{
    return doc_int(d, "host");
}

int proto_client_my_turn(const struct proto_client_doc *d)
{
    return proto_client_phase(d) == PROTO_PHASE_PLAYING && d->seat >= 0 &&
           proto_client_current(d) == d->seat;
}

int proto_client_options(const struct proto_client_doc *d, unsigned *sets, int *no_farmers,
                         int *escape_rule)
{
    if (d == NULL || d->doc == NULL)
        return -1;
    unsigned mask = 1u << CARC_SET_BASE;
    size_t i;
    json_t *s;
    json_array_foreach(doc_get(d, "sets"), i, s)
    {
        int set = json_is_string(s) ? carc_set_find(json_string_value(s)) : -1;
        if (set >= 0)
            mask |= 1u << set;
    }
    const json_t *o = doc_get(d, "options");
    const char *rule = json_string_value(json_object_get(o, "siege_escape"));
    if (sets != NULL)
        *sets = mask;
    if (no_farmers != NULL)
        *no_farmers = json_is_false(json_object_get(o, "farmers"));
    if (escape_rule != NULL)
        *escape_rule = rule != NULL && proto__escape_rule_find(rule) > 0 ? CARC_ESCAPE_ANY_TILE
                                                                         : CARC_ESCAPE_SIEGE_TILE;
    return 0;
}

int proto_client_variants(const struct proto_client_doc *d, int *farm_rule, int *small_city)
{
    if (d == NULL || d->doc == NULL)
        return -1;
    const json_t *o = doc_get(d, "options");
    const char *farms = json_string_value(json_object_get(o, "farms"));
    int rule = farms != NULL ? proto__farm_rule_find(farms) : -1;
    *farm_rule = rule > 0 ? rule : CARC_FARMS_THIRD;
    *small_city = json_integer_value(json_object_get(o, "small_city")) == 2;
    return 0;
}

int proto_client_nseats(const struct proto_client_doc *d)
{
    return (int)json_array_size(doc_get(d, "seats"));
}

int proto_client_seat_get(const struct proto_client_doc *d, int i, struct proto_client_seat *out)
{
    const json_t *s = i >= 0 ? json_array_get(doc_get(d, "seats"), (size_t)i) : NULL;
    if (s == NULL)
        return -1;
    memset(out, 0, sizeof *out);
    copy_text(s, "name", out->name, sizeof out->name);
    out->taken = json_is_true(json_object_get(s, "taken"));
    out->connected = json_is_true(json_object_get(s, "connected"));
    copy_small(s, "score", &out->score);
    copy_small(s, "meeples", &out->meeples);
    copy_small(s, "large", &out->large);
    copy_small(s, "herbs", &out->herbs);
    return 0;
}

int proto_client_remaining(const struct proto_client_doc *d, int *count, int n)
{
    const json_t *r = doc_get(d, "remaining");
    if (!json_is_object(r))
        return -1;
    for (int t = 0; count != NULL && t < n; t++)
        count[t] = 0;
    int total = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)r, key, v)
    {
        int t = carc_tile_find(key), c = (int)json_integer_value(v);
        total += c;
        if (count != NULL && t >= 0 && t < n)
            count[t] = c;
    }
    return total;
}

/* Tile type at "x,y" of the board, or -1. */
static int board_tile(const struct proto_client_doc *d, int x, int y)
{
    char key[24];
    snprintf(key, sizeof key, "%d,%d", x, y);
    const json_t *cell = json_object_get(doc_get(d, "board"), key);
    const char *id = json_string_value(json_object_get(cell, "tile"));
    return id != NULL ? carc_tile_find(id) : -1;
}

static void spot_fill(struct proto_client_spot *s, int x, int y, int tile, const char *feature)
{
    s->x = x;
    s->y = y;
    snprintf(s->feature, sizeof s->feature, "%s", feature != NULL ? feature : "");
    s->seg = carc_tile_seg_find(tile, s->feature);
}

/* The list of the last `legal` message while it is the document's turn's:
 * same turn, mover and tile; else NULL (not received yet, or stale). */
static const json_t *legal_current(const struct proto_client_doc *d)
{
    if (d == NULL || d->legal == NULL || proto_client_phase(d) != PROTO_PHASE_PLAYING ||
        d->legal_turn != proto_client_turn(d) || d->legal_player != proto_client_current(d) ||
        d->legal_tile != proto_client_tile(d))
        return NULL;
    return d->legal;
}

int proto_client_legal_ready(const struct proto_client_doc *d)
{
    return legal_current(d) != NULL;
}

int proto_client_legal(const struct proto_client_doc *d, struct proto_client_legal *out, int max)
{
    const json_t *legal = legal_current(d);
    int tile = proto_client_tile(d), n = (int)json_array_size(legal);
    for (int i = 0; out != NULL && i < n && i < max; i++) {
        const json_t *p = json_array_get(legal, (size_t)i), *v;
        struct proto_client_legal *l = &out[i];
        size_t k;
        memset(l, 0, sizeof *l);
        copy_small(p, "x", &l->x);
        copy_small(p, "y", &l->y);
        copy_small(p, "rot", &l->rot);
        l->rot /= 90;
        json_array_foreach(json_object_get(p, "meeples"), k,
                           v) if (l->nmeeples < PROTO_CLIENT_SPOTS)
            spot_fill(&l->meeples[l->nmeeples++], l->x, l->y, tile, json_string_value(v));
        json_array_foreach(json_object_get(p, "escapes"), k, v)
        {
            int ex = 0, ey = 0;
            if (l->nescapes >= PROTO_CLIENT_ESCAPES)
                break;
            copy_small(v, "x", &ex);
            copy_small(v, "y", &ey);
            spot_fill(&l->escapes[l->nescapes++], ex, ey, board_tile(d, ex, ey),
                      json_string_value(json_object_get(v, "feature")));
        }
    }
    return n;
}

int proto_client_board(const struct proto_client_doc *d, struct proto_client_cell *out, int max)
{
    const json_t *board = doc_get(d, "board");
    int n = 0;
    const char *key;
    json_t *cell;
    json_object_foreach((json_t *)board, key, cell)
    {
        if (out != NULL && n < max) {
            struct proto_client_cell *c = &out[n];
            const json_t *m = json_object_get(cell, "meeple");
            const char *id = json_string_value(json_object_get(cell, "tile"));
            memset(c, 0, sizeof *c);
            if (sscanf(key, "%d,%d", &c->x, &c->y) != 2)
                c->x = c->y = 0;
            c->tile = id != NULL ? carc_tile_find(id) : -1;
            copy_small(cell, "rot", &c->rot);
            c->rot /= 90;
            c->player = -1;
            c->meeple.seg = -1;
            c->meeple.x = c->x;
            c->meeple.y = c->y;
            if (json_is_object(m)) {
                copy_small(m, "player", &c->player);
                c->large = strcmp(json_string_value(json_object_get(m, "kind")) != NULL
                                      ? json_string_value(json_object_get(m, "kind"))
                                      : "",
                                  "large") == 0;
                spot_fill(&c->meeple, c->x, c->y, c->tile,
                          json_string_value(json_object_get(m, "feature")));
            }
        }
        n++;
    }
    return n;
}

/* ---- engine position ---- */

int proto_client_game(const struct proto_client_doc *d, struct carc_game *g, struct carc_error *err)
{
    struct carc_config cfg = {0};
    uint8_t deck[CARC_MAX_TILES];
    int count[256], tile = proto_client_tile(d);
    struct proto_client_cell *cells = malloc(CARC_MAX_TILES * sizeof *cells);
    if (proto_client_phase(d) != PROTO_PHASE_PLAYING || tile < 0 || cells == NULL) {
        free(cells);
        return cells == NULL && proto_client_phase(d) == PROTO_PHASE_PLAYING ? CARC_E_NOMEM : -1;
    }
    int ncells = proto_client_board(d, cells, CARC_MAX_TILES);
    int left = proto_client_remaining(d, count, carc_tiles_count < 256 ? carc_tiles_count : 256);
    int rc = 0, n = 0;
    if (ncells < 1 || ncells > CARC_MAX_TILES || cells[0].x != 0 || cells[0].y != 0 ||
        cells[0].tile < 0 || left + ncells + 1 > CARC_MAX_TILES)
        rc = carc_error_set(err, CARC_E_INVAL, "the document's board or draw pile is malformed");
    deck[n++] = (uint8_t)tile;
    for (int t = 0; rc == 0 && t < carc_tiles_count && t < 256; t++)
        for (int c = 0; c < count[t]; c++)
            deck[n++] = (uint8_t)t;
    cfg.nplayers = proto_client_nseats(d);
    proto_client_options(d, &cfg.sets, &cfg.no_farmers, &cfg.escape_rule);
    proto_client_variants(d, &cfg.farm_rule, &cfg.small_city);
    cfg.start = rc == 0 ? cells[0].tile : -1;
    cfg.deck = deck;
    cfg.deck_len = n;
    if (rc == 0)
        rc = carc_game_init(g, &cfg, err);
    /* In placement order with today's meeples: at each step a feature holds a
     * subset of the meeples it held in the real game, so every meeple fits. */
    for (int i = 1; rc == 0 && i < ncells; i++) {
        const struct proto_client_cell *c = &cells[i];
        int p = c->player >= 0 && c->player < g->nplayers ? c->player : 0;
        g->players[p].meeples = CARC_MEEPLES;
        g->players[p].large = 1;
        rc = carc_game_setup_place(g, p, c->tile, c->x, c->y, c->rot, c->meeple.seg, c->large, err);
    }
    for (int p = 0; rc == 0 && p < g->nplayers; p++) {
        struct proto_client_seat s;
        proto_client_seat_get(d, p, &s);
        g->players[p] =
            (struct carc_player){s.score, (uint8_t)s.meeples, (uint8_t)s.large, (uint8_t)s.herbs};
    }
    if (rc == 0) {
        int herbs = doc_int(d, "herbs_left");
        g->herbs_left = (uint8_t)(herbs >= 0 ? herbs : CARC_HERBS);
        g->turn = (uint16_t)proto_client_turn(d);
        g->current = (uint8_t)proto_client_current(d);
        g->phase = CARC_PHASE_PLACE;
        g->tile = (int16_t)tile;
        memcpy(g->deck, deck, (size_t)n);
        g->deck_len = (uint16_t)n;
        g->deck_pos = 1;
        g->nevents = 0;
    }
    free(cells);
    return rc;
}

/* ---- rooms ---- */

int proto_client_rooms(const char *text, size_t len, struct proto_client_room *out, int max)
{
    json_t *root = json_loadb(text, len, 0, NULL);
    const json_t *list = json_is_array(root) ? root : json_object_get(root, "rooms");
    if (!json_is_array(list)) {
        json_decref(root);
        return CARC_E_JSON;
    }
    int n = (int)json_array_size(list);
    for (int i = 0; out != NULL && i < n && i < max; i++) {
        const json_t *r = json_array_get(list, (size_t)i), *v;
        struct proto_client_room *o = &out[i];
        const char *phase = json_string_value(json_object_get(r, "phase"));
        size_t k;
        memset(o, 0, sizeof *o);
        copy_text(r, "room", o->room, sizeof o->room);
        copy_small(r, "seats", &o->seats);
        copy_small(r, "taken", &o->taken);
        o->phase = phase != NULL ? proto__phase_find(phase) : -1;
        o->sets = 1u << CARC_SET_BASE;
        json_array_foreach(json_object_get(r, "sets"), k, v)
        {
            int set = json_is_string(v) ? carc_set_find(json_string_value(v)) : -1;
            if (set >= 0)
                o->sets |= 1u << set;
        }
        o->password = json_is_true(json_object_get(r, "password"));
        copy_text(r, "host", o->host, sizeof o->host);
    }
    json_decref(root);
    return n;
}
