/* state_build.c: building a room's public state document (state.h): a
 * compact C copy of everything it shows, sharing with the previous document
 * what did not change (the legal list above all), and the legal list as
 * JSON text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "state_int.h"

static const char *const autoplay_names[PROTO_AUTO_COUNT] = {NULL,      "left", "offline",
                                                             "timeout", "idle", "forfeit"};

const char *proto_autoplay_name(int reason)
{
    return reason > 0 && reason < PROTO_AUTO_COUNT ? autoplay_names[reason] : NULL;
}

static int has_set(unsigned sets, int set)
{
    return (sets & (1u << set)) != 0;
}

/* 1 when s is valid UTF-8 as jansson checks it (no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
static int utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p != 0) {
        unsigned c = *p, v;
        int n;
        if (c < 0x80) {
            p++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
            v = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            v = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            v = c & 0x07;
        } else {
            return 0;
        }
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80)
                return 0;
            v = (v << 6) | (p[i] & 0x3F);
        }
        if ((n == 2 && v < 0x800) || (n == 3 && (v < 0x10000 || v > 0x10FFFF)) ||
            (v >= 0xD800 && v <= 0xDFFF))
            return 0;
        p += n + 1;
    }
    return 1;
}

static void copy_valid(char *dst, size_t size, const char *s, const char *fallback)
{
    snprintf(dst, size, "%s", s != NULL && utf8_valid(s) ? s : fallback);
}

/* The meeple on placed tile idx (there is at most one: it came with the
 * tile): its node's meeple byte, and the segment in *seg. 0 when none. */
static uint8_t meeple_at(const struct carc_game *g, int idx, int *seg)
{
    const struct carc_tile *t = &carc_tiles[g->placed[idx].type];
    for (int s = 0; s < t->nsegs; s++) {
        uint8_t mp = g->nodes[carc_game_node(g, idx, s)].meeple;
        if (mp != 0) {
            *seg = s;
            return mp;
        }
    }
    return 0;
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
            int node = carc_game_node(g, i, s);
            uint8_t mp = g->nodes[node].meeple & ~CARC_MEEPLE_LARGE;
            if (t->segs[s].kind != CARC_SEG_CITY || mp != g->current + 1 ||
                (g->nodes[carc_game_feature(g, node)].flags & CARC_NF_DONE))
                continue;
            out[n++] = (struct knight){g->placed[i].x, g->placed[i].y, s};
        }
    }
    return n;
}

/* The legal list of g's current tile ("[]" unless moving) as malloc'd JSON
 * text, its length in *len; NULL when out of memory. */
static char *legal_json(const struct carc_game *g, int moving, size_t *len)
{
    struct proto__out b;
    if (proto__out_init(&b, 2048) != 0)
        return NULL;
    put_raw(&b, "[", 1);
    struct carc_placement *pl = moving ? malloc(MAX_LEGAL * sizeof *pl) : NULL;
    if (moving && pl == NULL)
        b.ok = 0;
    if (pl != NULL) {
        const struct carc_tile *t = &carc_tiles[g->tile];
        const struct carc_player *me = &g->players[g->current];
        struct knight kn[MAX_KNIGHTS];
        int nk = knights_find(g, kn);
        int n = carc_game_placements(g, g->tile, pl, MAX_LEGAL);
        for (int i = 0; i < n && i < MAX_LEGAL; i++) {
            const struct carc_placement p = pl[i];
            if (i > 0)
                PUT(&b, ",");
            PUT(&b, "{\"x\":");
            put_int(&b, p.x);
            PUT(&b, ",\"y\":");
            put_int(&b, p.y);
            PUT(&b, ",\"rot\":");
            put_int(&b, p.rot * 90);
            PUT(&b, ",\"meeples\":[");
            unsigned mask = me->meeples > 0 || me->large > 0
                                ? carc_game_meeple_spots(g, g->tile, p.x, p.y, p.rot)
                                : 0;
            int first = 1;
            for (int s = 0; s < t->nsegs; s++)
                if (mask & (1u << s)) {
                    if (!first)
                        put_raw(&b, ",", 1);
                    first = 0;
                    put_name(&b, t->segs[s].name);
                }
            PUT(&b, "],\"escapes\":[");
            first = 1;
            for (int k = 0; k < nk; k++) {
                struct carc_move m = {.player = g->current,
                                      .tile = g->tile,
                                      .x = p.x,
                                      .y = p.y,
                                      .rot = p.rot,
                                      .seg = -1,
                                      .escape = 1,
                                      .ex = kn[k].x,
                                      .ey = kn[k].y,
                                      .eseg = kn[k].seg};
                if (carc_game_escape_check(g, &m, NULL) != 0)
                    continue;
                const struct carc_tile *kt =
                    &carc_tiles[g->placed[carc_game_tile_at(g, kn[k].x, kn[k].y) - 1].type];
                if (!first)
                    PUT(&b, ",");
                PUT(&b, "{\"x\":");
                first = 0;
                put_int(&b, kn[k].x);
                PUT(&b, ",\"y\":");
                put_int(&b, kn[k].y);
                PUT(&b, ",\"feature\":");
                put_name(&b, kt->segs[kn[k].seg].name);
                put_raw(&b, "}", 1);
            }
            PUT(&b, "]}");
        }
        free(pl);
    }
    put_raw(&b, "]", 1);
    *len = b.n;
    return proto__out_finish(&b);
}

/* The same, shared by the documents of one turn; NULL when out of memory. */
static struct legal_text *legal_new(const struct carc_game *g, int moving)
{
    size_t n = 0;
    char *text = legal_json(g, moving, &n);
    if (text == NULL)
        return NULL;
    struct legal_text *l = malloc(sizeof *l + n + 1);
    if (l != NULL) {
        l->refs = 1;
        l->len = n;
        memcpy(l->text, text, n + 1);
    }
    free(text);
    return l;
}

char *proto_legal_list(const struct carc_game *g)
{
    int moving = g->phase == CARC_PHASE_PLACE && g->tile >= 0 && g->tile < carc_tiles_count;
    size_t n;
    return legal_json(g, moving, &n);
}

struct proto_state *proto_state_build(const struct proto_room_view *v)
{
    return proto_state_build_next(NULL, v);
}

struct proto_state *proto_state_build_next(const struct proto_state *prev,
                                           const struct proto_room_view *v)
{
    const struct carc_game *g = v->game;
    struct proto_state *s = malloc(sizeof *s);
    if (s == NULL)
        return NULL;
    int moving = v->phase == PROTO_PHASE_PLAYING && g != NULL && g->phase == CARC_PHASE_PLACE &&
                 g->tile >= 0 && g->tile < carc_tiles_count;
    unsigned sets = v->sets | (1u << CARC_SET_BASE);
    copy_valid(s->room, sizeof s->room, v->room != NULL ? v->room : "", "");
    s->phase = (uint8_t)v->phase;
    s->sets = sets;
    s->farmers = !v->no_farmers;
    s->escape_rule = (uint8_t)v->escape_rule;
    s->farm_rule = (uint8_t)v->farm_rule;
    s->small_city = v->small_city != 0;
    s->seat_random = v->seat_random != 0;
    s->rated = v->rated != 0;
    s->host = v->host;
    s->nseats = (uint8_t)(v->nseats < CARC_MAX_PLAYERS ? v->nseats : CARC_MAX_PLAYERS);
    for (int i = 0; i < s->nseats; i++) {
        const struct proto_seat *in = &v->seats[i];
        struct seat_view *o = &s->seats[i];
        struct carc_player p = {0, CARC_MEEPLES, (uint8_t)has_set(sets, CARC_SET_INNS_CATHEDRALS),
                                0};
        if (g != NULL && i < g->nplayers)
            p = g->players[i];
        memset(o->name, 0, sizeof o->name);
        o->null_name = in->name[0] == '\0';
        if (!o->null_name) {
            if (prev != NULL && i < prev->nseats && strcmp(prev->seats[i].name, in->name) == 0)
                memcpy(o->name, in->name, sizeof o->name); /* checked before */
            else
                copy_valid(o->name, sizeof o->name, in->name, "?");
        }
        o->taken = in->taken != 0;
        o->connected = in->connected != 0;
        o->bot = (uint8_t)(in->bot > 0 && in->bot <= CARC_BOT_LEVELS ? in->bot : 0);
        o->autoplay =
            (uint8_t)(in->autoplay > 0 && in->autoplay < PROTO_AUTO_COUNT ? in->autoplay : 0);
        o->time_ms = v->clock.initial > 0 && in->time_ms >= 0 ? in->time_ms : -1;
        o->entropy = in->entropy != 0;
        o->score = p.score;
        o->meeples = p.meeples;
        o->large = p.large;
        o->herbs = p.herbs;
    }
    if (v->clock.initial > 0)
        s->clock = v->clock;
    else
        memset(&s->clock, 0, sizeof s->clock);
    /* Only hex digits: written as it is. */
    s->commitment[0] = '\0';
    if (v->commitment != NULL && strlen(v->commitment) == 64 &&
        strspn(v->commitment, "0123456789abcdef") == 64)
        memcpy(s->commitment, v->commitment, 65);
    s->turn_started = v->clock.initial > 0 && moving ? v->turn_started : -1;
    s->deadline = v->clock.initial > 0 && moving ? v->deadline : -1;
    s->turn = g != NULL ? g->turn : 0;
    s->current = moving ? g->current : -1;
    s->tile = moving ? g->tile : -1;
    s->tiles_left = g != NULL ? carc_game_tiles_left(g) : 0;
    s->herbs_left = !has_set(sets, CARC_SET_APOTHECARIES_TITHES) ? 0
                    : g != NULL                                  ? g->herbs_left
                                                                 : CARC_HERBS;
    memset(s->remaining, 0, sizeof s->remaining);
    for (int i = g != NULL ? g->deck_pos : 0; g != NULL && i < g->deck_len; i++)
        s->remaining[g->deck[i]]++;
    s->ntiles = g != NULL ? g->ntiles : 0;
    for (int i = 0; i < s->ntiles; i++) {
        const struct carc_placed *p = &g->placed[i];
        int seg = 0;
        uint8_t mp = meeple_at(g, i, &seg);
        s->board[i] = (struct cell_view){p->type, p->rot, p->x, p->y, mp, (uint8_t)seg};
    }
    memset(&s->lkey, 0, sizeof s->lkey);
    if (moving)
        s->lkey = (struct legal_key){g,
                                     1,
                                     g->turn,
                                     g->deck_pos,
                                     g->ntiles,
                                     g->current,
                                     g->tile,
                                     g->players[g->current].meeples,
                                     g->players[g->current].large};
    if (prev != NULL && memcmp(&prev->lkey, &s->lkey, sizeof s->lkey) == 0) {
        s->legal = prev->legal;
        s->legal->refs++;
    } else {
        s->legal = legal_new(g, moving);
    }
    if (s->legal == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

void proto_state_free(struct proto_state *s)
{
    if (s == NULL)
        return;
    if (--s->legal->refs == 0)
        free(s->legal);
    free(s);
}
