/* feature.c: features as union-find over (placed tile, segment) nodes.
 * Each root summarises its feature: open edges, pennants, flags, apothecary
 * marks and meeple strength per player; members form a circular list so a
 * feature can be walked when it is scored. */
#include <string.h>

#include "internal.h"

/* The bounds of struct carc_node's narrow fields (game.h). */
_Static_assert(2 * CARC_MAX_TILES + 2 <= 255, "uint8_t open edges");
_Static_assert(CARC_MEEPLES + 2 <= 15 && CARC_MAX_PLAYERS % 2 == 0, "4-bit strengths, two a byte");

int carc_game_feature(const struct carc_game *g, int n)
{
    while (g->nodes[n].parent != n)
        n = g->nodes[n].parent;
    return n;
}

/* Find with path halving: used only on the mutating path. */
int carc__find(struct carc_game *g, int n)
{
    struct carc_node *nodes = g->nodes;
    while (nodes[n].parent != n) {
        nodes[n].parent = nodes[nodes[n].parent].parent;
        n = nodes[n].parent;
    }
    return n;
}

static int feature_union(struct carc_game *g, int a, int b)
{
    a = carc__find(g, a);
    b = carc__find(g, b);
    if (a == b)
        return a;
    struct carc_node *A = &g->nodes[a], *B = &g->nodes[b];
    if (A->size < B->size) {
        struct carc_node *t = A;
        A = B;
        B = t;
        int ti = a;
        a = b;
        b = ti;
    }
    B->parent = (uint16_t)a;
    A->size = (uint16_t)(A->size + B->size);
    A->open = (uint8_t)(A->open + B->open);
    A->flags |= B->flags;
    A->pennants = (uint8_t)(A->pennants + B->pennants);
    A->apothecaries = (uint8_t)(A->apothecaries + B->apothecaries);
    for (int k = 0; k < CARC_MAX_PLAYERS / 2; k++)
        A->strength[k] = (uint8_t)(A->strength[k] + B->strength[k]);
    uint16_t t = A->next;
    A->next = B->next;
    B->next = t;
    return a;
}

static int popcount4(unsigned m)
{
    return (int)((m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1));
}

/* Creates the nodes of freshly placed tile idx and joins them to the features
 * of its orthogonal neighbours (RULES.md 1.3). */
void carc__tile_join(struct carc_game *g, int idx)
{
    const struct carc_placed *p = &g->placed[idx];
    const struct carc_tile *T = &carc_tiles[p->type];
    for (int s = 0; s < T->nsegs; s++) {
        const struct carc_seg *sg = &T->segs[s];
        int n = carc__node(g, idx, s);
        struct carc_node *nd = &g->nodes[n];
        memset(nd, 0, sizeof *nd);
        nd->parent = nd->next = (uint16_t)n;
        nd->size = 1;
        if (sg->kind == CARC_SEG_CITY || sg->kind == CARC_SEG_ROAD)
            nd->open = (uint8_t)popcount4(sg->mask);
        nd->flags = sg->flags;
        nd->pennants = sg->pennants;
        nd->apothecaries = (sg->flags & CARC_SF_APOTHECARY) ? 1 : 0;
    }
    int home = !g->wide;
    for (int d = 0; d < 4; d++) {
        int nb = carc__at_near(g, home, p->x + carc__dx[d], p->y + carc__dy[d]);
        if (nb < 0)
            continue;
        int opp = (d + 2) & 3;
        int s = carc__edge_seg(g, idx, d);
        if (s != CARC_SEG_NONE) {
            int r = feature_union(g, carc__node(g, idx, s),
                                  carc__node(g, nb, carc__edge_seg(g, nb, opp)));
            g->nodes[r].open = (uint8_t)(g->nodes[r].open - 2);
        }
        if (carc_tile_edge(p->type, p->rot, d) == CARC_EDGE_CITY)
            continue;
        for (int h = 2 * d; h < 2 * d + 2; h++) {
            int hs = carc__half_seg(g, idx, h);
            int ns = carc__half_seg(g, nb, carc__facing(h));
            feature_union(g, carc__node(g, idx, hs), carc__node(g, nb, ns));
        }
    }
}

void carc__meeple_put(struct carc_game *g, int node, int player, int large)
{
    g->nodes[node].meeple = (uint8_t)((player + 1) | (large ? CARC_MEEPLE_LARGE : 0));
    int r = carc__find(g, node);
    g->nodes[r].strength[player >> 1] += carc__strength_unit(player, large);
    if (large)
        g->players[player].large--;
    else
        g->players[player].meeples--;
}

static int root_occupied(const struct carc_game *g, int root)
{
    const uint8_t *s = g->nodes[root].strength;
    /* Unused players' strengths stay 0, so all six can be or-ed without a loop. */
    return (s[0] | s[1] | s[2]) != 0;
}

/* Segments of tile t at (x, y, rot) whose feature would hold a meeple once the
 * tile is placed, as a bitmask. Two segments of the new tile end up in one
 * feature when they touch the same existing feature, so occupancy spreads
 * between them: e.g. a road's north field can join, through a wrap-around field
 * beside it, the farm a farmer holds south of the road. Pure. */
unsigned carc__busy_segs(const struct carc_game *g, int t, int x, int y, int rot)
{
    int roots[12], segs[12], n = 0, home = carc__near(g, x, y);
    for (int d = 0; d < 4; d++) {
        int nb = carc__at_near(g, home, x + carc__dx[d], y + carc__dy[d]);
        if (nb < 0)
            continue;
        int kind = carc_tile_edge(t, rot, d), opp = (d + 2) & 3;
        if (kind != CARC_EDGE_FIELD) {
            roots[n] = carc_game_feature(g, carc__node(g, nb, carc__edge_seg(g, nb, opp)));
            segs[n++] = carc_tiles[t].edge_seg[(d - rot) & 3];
        }
        if (kind == CARC_EDGE_CITY)
            continue;
        /* Both halves of a field edge face one field and belong to one segment. */
        for (int h = 2 * d; h < 2 * d + (kind == CARC_EDGE_FIELD ? 1 : 2); h++) {
            roots[n] =
                carc_game_feature(g, carc__node(g, nb, carc__half_seg(g, nb, carc__facing(h))));
            segs[n++] = carc_tiles[t].half_seg[(h - 2 * rot) & 7];
        }
    }
    /* Group the new tile's segments that share a neighbouring feature. */
    int group[CARC_MAX_SEGS];
    for (int s = 0; s < CARC_MAX_SEGS; s++)
        group[s] = s;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            if (roots[i] != roots[j])
                continue;
            int a = group[segs[i]], b = group[segs[j]];
            if (a == b)
                continue;
            for (int s = 0; s < CARC_MAX_SEGS; s++)
                if (group[s] == b)
                    group[s] = a;
        }
    unsigned busy_groups = 0;
    for (int i = 0; i < n; i++)
        if (root_occupied(g, roots[i]))
            busy_groups |= 1u << group[segs[i]];
    unsigned busy = 0;
    for (int s = 0; s < carc_tiles[t].nsegs; s++)
        if (busy_groups >> group[s] & 1)
            busy |= 1u << s;
    return busy;
}

unsigned carc_game_meeple_spots(const struct carc_game *g, int t, int x, int y, int rot)
{
    if (t < 0 || t >= carc_tiles_count)
        return 0;
    const struct carc_tile *T = &carc_tiles[t];
    unsigned spots = ~carc__busy_segs(g, t, x, y, rot) & ((1u << T->nsegs) - 1);
    if (!g->farmers)
        for (int s = 0; s < T->nsegs; s++)
            if (T->segs[s].kind == CARC_SEG_FIELD)
                spots &= ~(1u << s);
    return spots;
}
