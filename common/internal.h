/* internal.h: helpers shared by the engine's files; not part of libcarc's API. */
#ifndef CARC_INTERNAL_H
#define CARC_INTERNAL_H

#include "game.h"

/* The home slot of position (x, y) (game.h, CARC_GRID). */
#define CARC__CELL(x, y)                                                                           \
    ((((unsigned)(y) & (CARC_GRID - 1)) * CARC_GRID) | ((unsigned)(x) & (CARC_GRID - 1)))
#define CARC__SLOTS (CARC_GRID * CARC_GRID)

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

/* The cell holds a placed tile (of whatever position). */
static inline int carc__cell_tile(const struct carc_game *g, unsigned cell)
{
    return g->cells[cell] != 0 && g->cells[cell] <= CARC_MAX_TILES;
}

/* Frontier index of the entry in slot s, whose byte marks a frontier entry, or -1
 * when no entry names that slot (only in a broken game: carc_game_check). */
static inline int carc__front_of(const struct carc_game *g, unsigned s)
{
    int v = g->cells[s];
    if (v < CARC_CELL_FRONT_FAR)
        return v - CARC_CELL_FRONT;
    for (int i = CARC_CELL_FRONT_DIRECT; i < g->nfront; i++)
        if (g->front[i].cell == s)
            return i;
    return -1;
}

/* Does slot s, which holds a tile or a frontier entry below CARC_CELL_FRONT_FAR,
 * hold position (x, y)? */
static inline int carc__slot_near_holds(const struct carc_game *g, unsigned s, int x, int y)
{
    int v = g->cells[s];
    const int8_t *p = v <= CARC_MAX_TILES ? &g->placed[v - 1].x : &g->front[v - CARC_CELL_FRONT].x;
    return p[0] == x && p[1] == y;
}

/* board.c: the slot of (x, y) from slot s of its probe sequence on, and the tile
 * at (x, y) past its home slot s (game.h, CARC_GRID). */
unsigned carc__slot_probe(const struct carc_game *g, unsigned s, int x, int y);
int carc__at_probe(const struct carc_game *g, unsigned s, int x, int y);

/* The slot of position (x, y): the one that holds it, or else the empty slot it
 * would take. */
static inline unsigned carc__slot(const struct carc_game *g, int x, int y)
{
    unsigned s = CARC__CELL(x, y);
    int v = g->cells[s];
    if (v == 0 || (v < CARC_CELL_FRONT_FAR && carc__slot_near_holds(g, s, x, y)))
        return s;
    return carc__slot_probe(g, s, x, y);
}

/* Placed index at (x, y), or -1. Any x, y may be asked: the position stored in
 * the home slot is compared, and the probe sequence followed only when some
 * position is displaced (game.h, CARC_GRID). */
static inline int carc__at(const struct carc_game *g, int x, int y)
{
    unsigned s = CARC__CELL(x, y);
    int i = g->cells[s] - 1;
    if (i >= 0 && i < CARC_MAX_TILES && g->placed[i].x == x && g->placed[i].y == y)
        return i;
    if (g->displaced == 0 || i < 0)
        return -1;
    return carc__at_probe(g, s, x, y);
}

/* carc__at for (x, y) within 2 of the placed tiles' box (a tile's neighbours, a
 * frontier cell's) on a board that is not wide: no two such positions share a
 * home slot (game.h, CARC_GRID), so a tile there is the one at (x, y). */
static inline int carc__at_home(const struct carc_game *g, int x, int y)
{
    int i = g->cells[CARC__CELL(x, y)] - 1;
    return (unsigned)i < CARC_MAX_TILES ? i : -1;
}

/* carc__at for (x, y) within 2 of the placed tiles' box, where home is !g->wide
 * (read once by the caller, for all its lookups). */
static inline int carc__at_near(const struct carc_game *g, int home, int x, int y)
{
    return home ? carc__at_home(g, x, y) : carc__at(g, x, y);
}

/* (x, y) lies within 1 of the placed tiles' box on a board that is not wide: its
 * neighbours may use carc__at_home. */
static inline int carc__near(const struct carc_game *g, int x, int y)
{
    return !g->wide && x >= g->xmin - 1 && x <= g->xmax + 1 && y >= g->ymin - 1 && y <= g->ymax + 1;
}

/* Frontier index of the entry at (x, y), or -1. */
static inline int carc__front_find(const struct carc_game *g, int x, int y)
{
    unsigned s = CARC__CELL(x, y);
    int v = g->cells[s];
    if (v == 0)
        return -1;
    if (v >= CARC_CELL_FRONT) {
        int i = carc__front_of(g, s);
        if (i >= 0 && g->front[i].x == x && g->front[i].y == y)
            return i;
    } else if (g->placed[v - 1].x == x && g->placed[v - 1].y == y) {
        return -1;
    }
    if (g->displaced == 0)
        return -1;
    s = carc__slot_probe(g, s, x, y);
    return g->cells[s] >= CARC_CELL_FRONT ? carc__front_of(g, s) : -1;
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

/* What one meeple of player p adds to strength[p / 2] (game.h, struct carc_node). */
static inline uint8_t carc__strength_unit(int p, int large)
{
    return (uint8_t)((large ? 2 : 1) << ((p & 1) * 4));
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
