/* escape.c: escaping a besieged city (RULES.md 5), checked before the move is
 * applied by working out, without changing anything, the city the knight will
 * be in once the move's tile is placed. */
#include <stddef.h>

#include "internal.h"

#define MAXR 16

struct city_view {
    int roots[MAXR]; /* existing feature roots that are part of the city */
    int nroots;
    unsigned segs; /* segments of the new tile that are part of the city */
};

static int has_root(const struct city_view *v, int r)
{
    for (int i = 0; i < v->nroots; i++)
        if (v->roots[i] == r)
            return 1;
    return 0;
}

/* Existing roots that city segment s of the new tile joins. */
static int seg_roots(const struct carc_game *g, const struct carc_move *m, int s, int *out)
{
    uint8_t mask = carc_rot4(carc_tiles[m->tile].segs[s].mask, m->rot);
    int n = 0;
    for (int d = 0; d < 4; d++) {
        if (!(mask >> d & 1))
            continue;
        int nb = carc__at(g, m->x + carc__dx[d], m->y + carc__dy[d]);
        if (nb >= 0)
            out[n++] = carc_game_feature(g, carc__node(g, nb, carc__edge_seg(g, nb, (d + 2) & 3)));
    }
    return n;
}

/* Grows the city from its seed until no segment of the new tile joins it further. */
static void city_grow(const struct carc_game *g, const struct carc_move *m, struct city_view *v)
{
    const struct carc_tile *T = &carc_tiles[m->tile];
    for (int changed = 1; changed;) {
        changed = 0;
        for (int s = 0; s < T->nsegs; s++) {
            if (T->segs[s].kind != CARC_SEG_CITY)
                continue;
            int r[4], n = seg_roots(g, m, s, r), in = (v->segs >> s) & 1;
            for (int i = 0; i < n && !in; i++)
                in = has_root(v, r[i]);
            if (!in)
                continue;
            if (!(v->segs >> s & 1)) {
                v->segs |= 1u << s;
                changed = 1;
            }
            for (int i = 0; i < n; i++)
                if (!has_root(v, r[i]) && v->nroots < MAXR) {
                    v->roots[v->nroots++] = r[i];
                    changed = 1;
                }
        }
    }
}

static int cloister_near(const struct carc_game *g, const struct carc_move *m, int x, int y)
{
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            if (!dx && !dy)
                continue;
            int cx = x + dx, cy = y + dy;
            if (cx == m->x && cy == m->y) {
                if (carc_tiles[m->tile].flags & CARC_TF_CLOISTER)
                    return 1;
                continue;
            }
            int t = carc__at(g, cx, cy);
            if (t >= 0 && (carc__tile_of(g, t)->flags & CARC_TF_CLOISTER))
                return 1;
        }
    return 0;
}

int carc_game_escape_check(const struct carc_game *g, const struct carc_move *m,
                           struct carc_error *err)
{
    const struct carc_tile *T = &carc_tiles[m->tile];
    struct city_view v = {{0}, 0, 0};
    if (m->ex == m->x && m->ey == m->y) {
        if (m->seg < 0 || m->eseg != m->seg || T->segs[m->seg].kind != CARC_SEG_CITY)
            return carc_error_set(err, CARC_E_ESCAPE, "no knight of yours stands on %s at (%d,%d)",
                                  m->eseg >= 0 && m->eseg < T->nsegs ? T->segs[m->eseg].name : "?",
                                  m->ex, m->ey);
        v.segs = 1u << m->seg;
    } else {
        int idx = carc__at(g, m->ex, m->ey);
        const struct carc_tile *E = idx >= 0 ? carc__tile_of(g, idx) : NULL;
        if (E == NULL || m->eseg < 0 || m->eseg >= E->nsegs)
            return carc_error_set(err, CARC_E_ESCAPE, "no such knight at (%d,%d)", m->ex, m->ey);
        uint8_t mp = g->nodes[carc__node(g, idx, m->eseg)].meeple;
        if (E->segs[m->eseg].kind != CARC_SEG_CITY || (mp & ~CARC_MEEPLE_LARGE) != m->player + 1)
            return carc_error_set(err, CARC_E_ESCAPE, "no knight of yours stands on %s at (%d,%d)",
                                  E->segs[m->eseg].name, m->ex, m->ey);
        v.roots[v.nroots++] = carc_game_feature(g, carc__node(g, idx, m->eseg));
    }
    city_grow(g, m, &v);

    int open = 0, flags = 0;
    for (int i = 0; i < v.nroots; i++) {
        open += g->nodes[v.roots[i]].open;
        flags |= g->nodes[v.roots[i]].flags;
    }
    for (int s = 0; s < T->nsegs; s++) {
        if (!(v.segs >> s & 1))
            continue;
        flags |= T->segs[s].flags;
        uint8_t mask = carc_rot4(T->segs[s].mask, m->rot);
        for (int d = 0; d < 4; d++)
            if (mask >> d & 1)
                /* A matched edge closes the old side's open edge (counted in the
                 * roots above) and is not open here; a free edge stays open. */
                open += carc__at(g, m->x + carc__dx[d], m->y + carc__dy[d]) >= 0 ? -1 : 1;
    }
    if (!(flags & CARC_SF_SIEGE))
        return carc_error_set(err, CARC_E_ESCAPE, "the knight's city is not besieged");
    if (open <= 0)
        return carc_error_set(err, CARC_E_ESCAPE,
                              "the city is completed this turn: its knights are scored");

    int any = g->escape_rule == CARC_ESCAPE_ANY_TILE;
    for (int s = 0; s < T->nsegs; s++)
        if ((v.segs >> s & 1) && (any || (T->segs[s].flags & CARC_SF_SIEGE)) &&
            cloister_near(g, m, m->x, m->y))
            return 0;
    for (int i = 0; i < v.nroots; i++) {
        int n = v.roots[i];
        do {
            int idx = g->node_tile[n];
            const struct carc_seg *sg = &carc__tile_of(g, idx)->segs[carc__node_seg(g, n)];
            if ((any || (sg->flags & CARC_SF_SIEGE)) &&
                cloister_near(g, m, g->placed[idx].x, g->placed[idx].y))
                return 0;
            n = g->nodes[n].next;
        } while (n != v.roots[i]);
    }
    return carc_error_set(err, CARC_E_ESCAPE, "no cloister lies next to %s of the besieged city",
                          any ? "a tile" : "a siege tile");
}
