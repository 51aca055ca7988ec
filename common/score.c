/* score.c: the scoring step of a turn (roads, cities, cloisters, tithe barns)
 * and end-of-game scoring (RULES.md 2.4-2.7, 4, 5, 6.1). Every score change
 * goes through emit(), so the events of a turn always add up to the scores. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void emit(struct carc_game *g, const struct carc_event *ev)
{
    for (int p = 0; p < g->nplayers; p++)
        g->players[p].score += ev->delta[p];
    if (g->nevents < CARC_MAX_EVENTS)
        g->events[g->nevents++] = *ev;
}

struct carc_event *carc__event_new(struct carc_game *g, int type)
{
    if (g->nevents >= CARC_MAX_EVENTS)
        return NULL;
    struct carc_event *ev = &g->events[g->nevents++];
    memset(ev, 0, sizeof *ev);
    ev->type = (uint8_t)type;
    ev->herbs_to = 0xFF;
    return ev;
}

static void event_init(struct carc_event *ev, int type, int kind, int x, int y, int seg)
{
    memset(ev, 0, sizeof *ev);
    ev->type = (uint8_t)type;
    ev->kind = (uint8_t)kind;
    ev->herbs_to = 0xFF;
    ev->x = (int8_t)x;
    ev->y = (int8_t)y;
    ev->seg = (uint8_t)seg;
}

/* Players holding the majority of strength[] (4 bits a player, as in struct
 * carc_node), as a bitmask (0 when nobody). */
static unsigned majority(const uint8_t *strength, int nplayers, int *single)
{
    int m = 0;
    unsigned who = 0;
    for (int p = 0; p < nplayers; p++) {
        int s = strength[p >> 1] >> ((p & 1) * 4) & 15;
        if (s > m) {
            m = s;
            who = 1u << p;
        } else if (m > 0 && s == m) {
            who |= 1u << p;
        }
    }
    if (single != NULL) {
        *single = -1;
        if (who != 0 && (who & (who - 1)) == 0)
            for (int p = 0; p < nplayers; p++)
                if (who == 1u << p)
                    *single = p;
    }
    return who;
}

static void give(struct carc_event *ev, unsigned who, int points, int nplayers)
{
    ev->scorers = (uint8_t)who;
    for (int p = 0; p < nplayers; p++)
        if (who >> p & 1)
            ev->delta[p] = (int16_t)(ev->delta[p] + points);
}

/* Counts the distinct tiles of feature `root` and, during the game, sends its
 * meeples back to their supplies (recording them in ev). */
static int feature_walk(struct carc_game *g, int root, int give_back, struct carc_event *ev)
{
    uint64_t seen[(CARC_MAX_TILES + 63) / 64] = {0}; /* placed indexes met so far */
    int tiles = 0, n = root;
    do {
        int idx = g->node_tile[n];
        uint64_t bit = 1ull << (idx & 63);
        tiles += (seen[idx >> 6] & bit) == 0;
        seen[idx >> 6] |= bit;
        uint8_t m = g->nodes[n].meeple;
        if (give_back && m) {
            int p = (m & ~CARC_MEEPLE_LARGE) - 1;
            if (m & CARC_MEEPLE_LARGE) {
                g->players[p].large++;
                ev->large_back |= (uint8_t)(1u << p);
            } else {
                g->players[p].meeples++;
            }
            ev->returned[p]++;
            g->nodes[n].meeple = 0;
        }
        n = g->nodes[n].next;
    } while (n != root);
    if (give_back)
        memset(g->nodes[root].strength, 0, sizeof g->nodes[root].strength);
    return tiles;
}

static void node_anchor(const struct carc_game *g, int node, int *x, int *y, int *seg)
{
    const struct carc_placed *p = &g->placed[g->node_tile[node]];
    *x = p->x;
    *y = p->y;
    *seg = carc__node_seg(g, node);
}

/* Herb tokens of an apothecary city: single majority, else the completing player. */
static void apothecary(struct carc_game *g, struct carc_event *ev, const struct carc_node *R,
                       unsigned who, int single, int mover)
{
    ev->flags |= CARC_EVF_APOTHECARY;
    give(ev, who, 10, g->nplayers);
    int n = R->apothecaries < g->herbs_left ? R->apothecaries : g->herbs_left;
    if (n == 0)
        return;
    int to = single >= 0 ? single : mover;
    g->herbs_left = (uint8_t)(g->herbs_left - n);
    g->players[to].herbs = (uint8_t)(g->players[to].herbs + n);
    ev->herbs_to = (uint8_t)to;
    ev->herbs = (uint8_t)n;
}

/* Scores road or city `root`: completed during the game (final = 0, meeples
 * return) or incomplete at the end (final = 1). */
static void score_feature(struct carc_game *g, int root, int mover, int final)
{
    struct carc_node *R = &g->nodes[root];
    int x, y, seg, single;
    node_anchor(g, root, &x, &y, &seg);
    int kind = carc__tile_of(g, g->node_tile[root])->segs[seg].kind;
    unsigned who = majority(R->strength, g->nplayers, &single);
    if (who == 0)
        return;
    struct carc_event ev;
    event_init(&ev, CARC_EV_SCORE, kind, x, y, seg);
    if (final)
        ev.flags |= CARC_EVF_FINAL;
    int tiles = feature_walk(g, root, !final, &ev);
    int points;
    ev.tiles = (uint8_t)tiles;
    if (kind == CARC_SEG_ROAD) {
        int inn = (R->flags & CARC_SF_INN) != 0;
        if (inn)
            ev.flags |= CARC_EVF_INN;
        points = final ? (inn ? 0 : tiles) : tiles * (inn ? 2 : 1);
        if (final && inn)
            ev.flags |= CARC_EVF_VOID;
    } else {
        int cathedral = (R->flags & CARC_SF_CATHEDRAL) != 0;
        int besieged = (R->flags & CARC_SF_SIEGE) != 0;
        if (cathedral)
            ev.flags |= CARC_EVF_CATHEDRAL;
        if (besieged)
            ev.flags |= CARC_EVF_BESIEGED;
        ev.pennants = R->pennants;
        int units = tiles + R->pennants;
        if (final) {
            points = (cathedral || besieged) ? 0 : units;
            if (cathedral || besieged)
                ev.flags |= CARC_EVF_VOID;
        } else {
            points = units * (cathedral ? (besieged ? 2 : 3) : (besieged ? 1 : 2));
            /* First edition's small city (RULES.md 2.8): 1 a unit, as besieged. No 2-tile
             * city can hold a cathedral (its tile has city on all four edges). */
            if (g->small_city && tiles == 2)
                points = units * (cathedral ? 2 : 1);
        }
    }
    ev.points = (int16_t)points;
    give(&ev, who, points, g->nplayers);
    if (!final && kind == CARC_SEG_CITY && R->apothecaries > 0)
        apothecary(g, &ev, R, who, single, mover);
    emit(g, &ev);
}

static int cloister_node(const struct carc_game *g, int idx)
{
    const struct carc_tile *T = carc__tile_of(g, idx);
    if (!(T->flags & CARC_TF_CLOISTER))
        return -1;
    return carc__node(g, idx, T->nsegs - 1);
}

static void score_cloister(struct carc_game *g, int idx, int final)
{
    int n = cloister_node(g, idx);
    uint8_t m = n >= 0 ? g->nodes[n].meeple : 0;
    if (!m)
        return;
    const struct carc_placed *pl = &g->placed[idx];
    int p = (m & ~CARC_MEEPLE_LARGE) - 1;
    struct carc_event ev;
    event_init(&ev, CARC_EV_SCORE, CARC_SEG_CLOISTER, pl->x, pl->y, carc__node_seg(g, n));
    ev.tiles = (uint8_t)(1 + carc__neighbours8(g, pl->x, pl->y));
    ev.points = ev.tiles;
    give(&ev, 1u << p, ev.points, g->nplayers);
    if (final) {
        ev.flags |= CARC_EVF_FINAL;
    } else {
        feature_walk(g, n, 1, &ev);
    }
    emit(g, &ev);
}

/* Tithe barn on placed tile idx, just completed (RULES.md 6.1). */
static void score_barn(struct carc_game *g, int idx, int mover)
{
    (void)mover;
    const struct carc_placed *pl = &g->placed[idx];
    const struct carc_tile *T = carc__tile_of(g, idx);
    uint8_t strength[CARC_MAX_PLAYERS / 2] = {0}; /* as in struct carc_node */
    for (int d = -1; d < 4; d++) {
        int t = d < 0 ? idx : carc__at_near(g, !g->wide, pl->x + carc__dx[d], pl->y + carc__dy[d]);
        for (int s = 0; s < carc__tile_of(g, t)->nsegs; s++) {
            uint8_t m = g->nodes[carc__node(g, t, s)].meeple;
            if (m) {
                int p = (m & ~CARC_MEEPLE_LARGE) - 1;
                strength[p >> 1] += carc__strength_unit(p, m & CARC_MEEPLE_LARGE);
            }
        }
    }
    /* The distinct farms the barn lies in. */
    int farms[CARC_MAX_SEGS], nfarms = 0;
    for (int s = 0; s < T->nsegs; s++) {
        if (!(T->segs[s].flags & CARC_SF_BARN))
            continue;
        int r = carc__find(g, carc__node(g, idx, s)), dup = 0;
        for (int i = 0; i < nfarms; i++)
            dup |= farms[i] == r;
        if (!dup)
            farms[nfarms++] = r;
    }
    struct carc_event ev;
    event_init(&ev, CARC_EV_BARN, CARC_SEG_FIELD, pl->x, pl->y, CARC_SEG_NONE);
    ev.tiles = 5;
    ev.farms = (uint8_t)nfarms;
    int single;
    majority(strength, g->nplayers, &single);
    if (single >= 0) {
        int bonus = 10;
        for (int i = 0; i < nfarms; i++)
            if (majority(g->nodes[farms[i]].strength, g->nplayers, NULL) >> single & 1)
                bonus = 14;
        ev.points = (int16_t)bonus;
        give(&ev, 1u << single, bonus, g->nplayers);
    } else {
        ev.flags |= CARC_EVF_TITHE;
        ev.points = -14;
        unsigned payers = 0;
        for (int i = 0; i < nfarms; i++) {
            unsigned who = majority(g->nodes[farms[i]].strength, g->nplayers, NULL);
            give(&ev, who, -14, g->nplayers);
            payers |= who;
        }
        ev.scorers = (uint8_t)payers;
    }
    emit(g, &ev);
}

static int barn_complete(const struct carc_game *g, int idx)
{
    if (!(carc__tile_of(g, idx)->flags & CARC_TF_BARN))
        return 0;
    const struct carc_placed *pl = &g->placed[idx];
    for (int d = 0; d < 4; d++)
        if (carc__at_near(g, !g->wide, pl->x + carc__dx[d], pl->y + carc__dy[d]) < 0)
            return 0;
    return 1;
}

/* The scoring step after tile idx was placed by `mover` (RULES.md 2.2 step 3).
 * Roads and cities first, then cloisters, then tithe barns, which therefore count
 * the followers still standing after the other features returned theirs. */
void carc__score_turn(struct carc_game *g, int idx, int mover)
{
    const struct carc_placed *pl = &g->placed[idx];
    const struct carc_tile *T = carc__tile_of(g, idx);
    for (int s = 0; s < T->nsegs; s++) {
        int k = T->segs[s].kind;
        if (k != CARC_SEG_CITY && k != CARC_SEG_ROAD)
            continue;
        int r = carc__find(g, carc__node(g, idx, s));
        struct carc_node *R = &g->nodes[r];
        if (R->open != 0 || (R->flags & CARC_NF_DONE))
            continue;
        R->flags |= CARC_NF_DONE;
        score_feature(g, r, mover, 0);
    }
    /* A cloister completes when its 8th neighbour arrives, a barn its 4th
     * orthogonal one: only those within reach of the new tile can change. */
    for (int i = 0; i < g->nspecial; i++) {
        int t = g->special[i];
        const struct carc_placed *sp = &g->placed[t];
        int dx = sp->x - pl->x, dy = sp->y - pl->y;
        if (dx < -1 || dx > 1 || dy < -1 || dy > 1)
            continue;
        if (cloister_node(g, t) >= 0 && carc__neighbours8(g, sp->x, sp->y) == 8)
            score_cloister(g, t, 0);
    }
    for (int i = 0; i < g->nspecial; i++) {
        int t = g->special[i];
        const struct carc_placed *sp = &g->placed[t];
        int dist = abs(sp->x - pl->x) + abs(sp->y - pl->y);
        if (dist <= 1 && barn_complete(g, t))
            score_barn(g, t, mover);
    }
}

/* A set of node ids (city roots), one bit each. */
struct node_set {
    uint64_t w[(CARC_MAX_NODES + 63) / 64];
};

static int node_set_add(struct node_set *s, int n)
{
    uint64_t bit = 1ull << (n & 63);
    if (s->w[n >> 6] & bit)
        return 0;
    s->w[n >> 6] |= bit;
    return 1;
}

/* Farm `root` at the end: 3 per completed city it touches, 6 if besieged.
 * scored (CARC_FARMS_SECOND, else NULL): per player, the cities already
 * scored through an earlier farm; each scorer gets only the cities not in
 * it, and ev.points stays the farm's full value. */
static void score_farm(struct carc_game *g, int root, struct node_set *scored)
{
    struct carc_node *R = &g->nodes[root];
    unsigned who = majority(R->strength, g->nplayers, NULL);
    if (who == 0)
        return;
    struct node_set seen = {{0}}; /* city roots counted so far */
    int cities = 0, besieged = 0, n = root;
    int16_t own[CARC_MAX_PLAYERS] = {0}; /* CARC_FARMS_SECOND: each scorer's new cities */
    do {
        int idx = g->node_tile[n];
        const struct carc_tile *T = carc__tile_of(g, idx);
        uint8_t touches = T->segs[carc__node_seg(g, n)].touches;
        for (int s = 0; touches; s++, touches >>= 1) {
            if (!(touches & 1))
                continue;
            int c = carc__find(g, carc__node(g, idx, s));
            if (!(g->nodes[c].flags & CARC_NF_DONE) || !node_set_add(&seen, c))
                continue;
            int siege = (g->nodes[c].flags & CARC_SF_SIEGE) != 0;
            cities++;
            besieged += siege;
            for (int p = 0; scored != NULL && p < g->nplayers; p++)
                if ((who >> p & 1) && node_set_add(&scored[p], c))
                    own[p] = (int16_t)(own[p] + (siege ? 6 : 3));
        }
        n = g->nodes[n].next;
    } while (n != root);
    struct carc_event ev;
    int x, y, seg;
    node_anchor(g, root, &x, &y, &seg);
    event_init(&ev, CARC_EV_SCORE, CARC_SEG_FIELD, x, y, seg);
    ev.flags = CARC_EVF_FINAL;
    ev.cities = (uint8_t)cities;
    ev.besieged = (uint8_t)besieged;
    ev.points = (int16_t)(3 * (cities - besieged) + 6 * besieged);
    if (scored == NULL) {
        give(&ev, who, ev.points, g->nplayers);
    } else {
        ev.scorers = (uint8_t)who;
        memcpy(ev.delta, own, sizeof own);
    }
    emit(g, &ev);
}

/* First edition (CARC_FARMS_FIRST): every completed city gives 4 (8
 * besieged) to the players with the most farmers over all the distinct farms
 * touching it. One event per player who scores any (in player order, so at
 * most CARC_MAX_PLAYERS: game.h), its cities and points that player's total
 * and x, y, seg the first of those cities (kind field). A player's farmers
 * stand in distinct farms, so the summed strengths stay within 4 bits as in
 * struct carc_node. */
static void score_cities_first(struct carc_game *g)
{
    uint16_t mark[CARC_MAX_NODES]; /* farm root -> 1 + the city it was last counted for */
    memset(mark, 0, sizeof mark);
    int cities[CARC_MAX_PLAYERS] = {0}, besieged[CARC_MAX_PLAYERS] = {0};
    int first[CARC_MAX_PLAYERS];
    for (int c = 0; c < g->nnodes; c++) {
        int idx = g->node_tile[c], cs = carc__node_seg(g, c);
        if (carc__tile_of(g, idx)->segs[cs].kind != CARC_SEG_CITY || g->nodes[c].parent != c ||
            !(g->nodes[c].flags & CARC_NF_DONE))
            continue;
        uint8_t strength[CARC_MAX_PLAYERS / 2] = {0};
        int n = c;
        do {
            int t = g->node_tile[n], s = carc__node_seg(g, n);
            const struct carc_tile *T = carc__tile_of(g, t);
            for (int f = 0; f < T->nsegs; f++) {
                if (T->segs[f].kind != CARC_SEG_FIELD || !(T->segs[f].touches >> s & 1))
                    continue;
                int r = carc__find(g, carc__node(g, t, f));
                if (mark[r] == c + 1)
                    continue;
                mark[r] = (uint16_t)(c + 1);
                for (int k = 0; k < CARC_MAX_PLAYERS / 2; k++)
                    strength[k] = (uint8_t)(strength[k] + g->nodes[r].strength[k]);
            }
            n = g->nodes[n].next;
        } while (n != c);
        unsigned who = majority(strength, g->nplayers, NULL);
        for (int p = 0; p < g->nplayers; p++) {
            if (!(who >> p & 1))
                continue;
            if (cities[p]++ == 0)
                first[p] = c;
            besieged[p] += (g->nodes[c].flags & CARC_SF_SIEGE) != 0;
        }
    }
    for (int p = 0; p < g->nplayers; p++) {
        if (cities[p] == 0)
            continue;
        struct carc_event ev;
        int x, y, seg;
        node_anchor(g, first[p], &x, &y, &seg);
        event_init(&ev, CARC_EV_SCORE, CARC_SEG_FIELD, x, y, seg);
        ev.flags = CARC_EVF_FINAL;
        ev.cities = (uint8_t)cities[p];
        ev.besieged = (uint8_t)besieged[p];
        ev.points = (int16_t)(4 * (cities[p] - besieged[p]) + 8 * besieged[p]);
        give(&ev, 1u << p, ev.points, g->nplayers);
        emit(g, &ev);
    }
}

/* End-of-game scoring (RULES.md 2.5): every occupied incomplete road, city and
 * cloister, then farms, then herb tokens. Meeples stay where they stand. */
void carc__score_final(struct carc_game *g)
{
    /* At most 8 meeples per player stand on the board: a linear dedupe is enough. */
    int seen[CARC_MAX_PLAYERS * 8], nseen = 0;
    int farms[CARC_MAX_PLAYERS * 8], nfarms = 0;
    for (int idx = 0; idx < g->ntiles; idx++) {
        const struct carc_tile *T = carc__tile_of(g, idx);
        for (int s = 0; s < T->nsegs; s++) {
            int n = carc__node(g, idx, s);
            if (!g->nodes[n].meeple)
                continue;
            int k = T->segs[s].kind;
            if (k == CARC_SEG_CLOISTER) {
                score_cloister(g, idx, 1);
                continue;
            }
            int r = carc__find(g, n), dup = 0;
            for (int i = 0; i < nseen && !dup; i++)
                dup = seen[i] == r;
            if (dup || nseen == CARC_MAX_PLAYERS * 8)
                continue;
            seen[nseen++] = r;
            if (k == CARC_SEG_FIELD)
                farms[nfarms++] = r;
            else
                score_feature(g, r, -1, 1);
        }
    }
    if (g->farmers && g->farm_rule == CARC_FARMS_FIRST) {
        score_cities_first(g);
    } else if (g->farmers) {
        struct node_set scored[CARC_MAX_PLAYERS];
        memset(scored, 0, sizeof scored);
        for (int i = 0; i < nfarms; i++)
            score_farm(g, farms[i], g->farm_rule == CARC_FARMS_SECOND ? scored : NULL);
    }
    for (int p = 0; p < g->nplayers; p++) {
        if (g->players[p].herbs == 0)
            continue;
        struct carc_event ev;
        event_init(&ev, CARC_EV_HERBS, 0, 0, 0, CARC_SEG_NONE);
        ev.flags = CARC_EVF_FINAL;
        ev.herbs = g->players[p].herbs;
        ev.points = (int16_t)(5 * ev.herbs);
        give(&ev, 1u << p, ev.points, g->nplayers);
        emit(g, &ev);
    }
}
