/* internal.h: helpers shared by the engine's files; not part of libcarc's API. */
#ifndef CARC_INTERNAL_H
#define CARC_INTERNAL_H

#include "game.h"

#define CARC__CELL(x, y)                                                                           \
    ((((unsigned)(y) & (CARC_GRID - 1)) * CARC_GRID) | ((unsigned)(x) & (CARC_GRID - 1)))

static const int carc__dx[4] = {0, 1, 0, -1};
static const int carc__dy[4] = {-1, 0, 1, 0};

static inline int carc__node(const struct carc_game *g, int idx, int seg)
{
    return g->placed[idx].node + seg;
}

/* Segment of node n on its tile (g->node_tile[n]). */
static inline int carc__node_seg(const struct carc_game *g, int n)
{
    return n - g->placed[g->node_tile[n]].node;
}

/* The half-edge across the border from slot h (Nw<->Sw, Ne<->Se, En<->Wn, Es<->Ws). */
static inline int carc__facing(int h)
{
    return (h & 2) ? 9 - h : 5 - h;
}

/* Placed index at (x, y), or -1 (real coordinates checked, so wrapping cannot alias). */
static inline int carc__at(const struct carc_game *g, int x, int y)
{
    int i = g->cells[CARC__CELL(x, y)] - 1;
    if (i < 0 || i >= CARC_MAX_TILES || g->placed[i].x != x || g->placed[i].y != y)
        return -1;
    return i;
}

/* The cell holds a placed tile (of whatever position aliases there). */
static inline int carc__cell_tile(const struct carc_game *g, unsigned cell)
{
    return g->cells[cell] != 0 && g->cells[cell] <= CARC_MAX_TILES;
}

/* Frontier index of the entry at cell, or -1. */
static inline int carc__front_find(const struct carc_game *g, unsigned cell)
{
    int v = g->cells[cell];
    if (v < CARC_CELL_FRONT)
        return -1;
    if (v < CARC_CELL_FRONT_FAR)
        return v - CARC_CELL_FRONT;
    for (int i = CARC_CELL_FRONT_DIRECT; i < g->nfront; i++)
        if (g->front[i].cell == cell)
            return i;
    return -1;
}

/* The cell byte that says "frontier entry i". */
static inline uint8_t carc__front_mark(int i)
{
    return (uint8_t)(i < CARC_CELL_FRONT_DIRECT ? CARC_CELL_FRONT + i : CARC_CELL_FRONT_FAR);
}

static inline const struct carc_tile *carc__tile_of(const struct carc_game *g, int idx)
{
    return &carc_tiles[g->placed[idx].type];
}

/* Segment of placed tile idx on world side d (city/road), or CARC_SEG_NONE. */
static inline int carc__edge_seg(const struct carc_game *g, int idx, int d)
{
    return carc__tile_of(g, idx)->edge_seg[(d - g->placed[idx].rot) & 3];
}

/* Segment of placed tile idx on world half-edge h (field), or CARC_SEG_NONE. */
static inline int carc__half_seg(const struct carc_game *g, int idx, int h)
{
    return carc__tile_of(g, idx)->half_seg[(h - 2 * g->placed[idx].rot) & 7];
}

static inline int carc__strength_max(const struct carc_node *root, int nplayers)
{
    int m = 0;
    for (int p = 0; p < nplayers; p++)
        if (root->strength[p] > m)
            m = root->strength[p];
    return m;
}

/* board.c */
int carc__board_check(const struct carc_game *g, int t, int x, int y, int rot, int need_front,
                      struct carc_error *err);
int carc__board_fits(const struct carc_game *g, int t);
int carc__board_put(struct carc_game *g, int t, int x, int y, int rot, int player);
int carc__neighbours8(const struct carc_game *g, int x, int y);

/* feature.c */
int carc__find(struct carc_game *g, int n);
void carc__tile_join(struct carc_game *g, int idx);
unsigned carc__busy_segs(const struct carc_game *g, int t, int x, int y, int rot);
void carc__meeple_put(struct carc_game *g, int node, int player, int large);

/* score.c */
struct carc_event *carc__event_new(struct carc_game *g, int type);
void carc__score_turn(struct carc_game *g, int idx, int mover);
void carc__score_final(struct carc_game *g);

#endif
