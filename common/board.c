/* board.c: the grid, the frontier of empty cells next to placed tiles with
 * their edge constraints (kept incrementally), and placement legality. */
#include <stddef.h>

#include "internal.h"

/* The bounds of game.h that the grid's encoding relies on. */
_Static_assert((CARC_GRID & (CARC_GRID - 1)) == 0, "positions wrap by masking");
_Static_assert(CARC_GRID_STEP % 2 == 1, "an odd step: the probe sequence visits every slot");
_Static_assert(CARC_MAX_TILES + CARC_MAX_FRONTIER < CARC_GRID * CARC_GRID,
               "an empty slot always ends a probe sequence");
_Static_assert(CARC_COORD_MAX + 1 <= 127, "frontier coordinates must fit int8_t");
_Static_assert(CARC_CELL_FRONT < CARC_CELL_FRONT_FAR, "cell bytes: tiles, then frontier marks");
_Static_assert(offsetof(struct carc_placed, y) == offsetof(struct carc_placed, x) + 1 &&
                   offsetof(struct carc_front, y) == offsetof(struct carc_front, x) + 1,
               "carc__slot_near_holds reads x, y as a pair");
_Static_assert(CARC_MAX_FRONTIER <= 0xFFFF && CARC_MAX_NODES <= 0xFFFF, "uint16_t counts");
_Static_assert(CARC_MAX_TILES <= 255, "uint8_t placed indexes (node_tile, special)");

static const char side_names[4] = {'N', 'E', 'S', 'W'};
static const char *const edge_names[4] = {"nothing", "field", "road", "city"};

static inline uint8_t edges_rot(int t, int rot)
{
    return carc_rot8(carc_tiles[t].edges, rot);
}

/* Checks (x, y, rot) for tile t: free, next to a tile (when need_front) and every
 * touching edge matching. Pure. */
int carc__board_check(const struct carc_game *g, int t, int x, int y, int rot, int need_front,
                      struct carc_error *err)
{
    if (rot < 0 || rot > 3)
        return carc_error_set(err, CARC_E_ROT, NULL);
    if (x < -CARC_COORD_MAX || x > CARC_COORD_MAX || y < -CARC_COORD_MAX || y > CARC_COORD_MAX)
        return carc_error_set(err, CARC_E_ADJACENT, "(%d,%d) is off the board", x, y);
    if (carc__at(g, x, y) >= 0)
        return carc_error_set(err, CARC_E_TAKEN, "a tile already lies at (%d,%d)", x, y);
    if (need_front && carc__front_find(g, x, y) < 0)
        return carc_error_set(err, CARC_E_ADJACENT, "(%d,%d) touches no placed tile along an edge",
                              x, y);
    int home = carc__near(g, x, y);
    for (int d = 0; d < 4; d++) {
        int n = carc__at_near(g, home, x + carc__dx[d], y + carc__dy[d]);
        if (n < 0)
            continue;
        int mine = carc_tile_edge(t, rot, d);
        int theirs = carc_tile_edge(g->placed[n].type, g->placed[n].rot, (d + 2) & 3);
        if (mine != theirs)
            return carc_error_set(err, CARC_E_EDGE,
                                  "edge mismatch on the %c side: %s against the neighbour's %s",
                                  side_names[d], edge_names[mine], edge_names[theirs]);
    }
    return 0;
}

/* The k-th rotation set in a 4-bit rotation mask, and how many are set: lets the
 * loop below write candidates without a data-dependent branch per cell. */
static const uint8_t rot_nth[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0},
    {1, 2, 0, 0}, {0, 1, 2, 0}, {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3},
};
static const uint8_t rot_count[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

int carc_game_placements(const struct carc_game *g, int t, struct carc_placement *out, int max)
{
    if (t < 0 || t >= carc_tiles_count)
        return 0;
    const uint8_t *fits = carc_tile_fits[carc_tiles[t].sig];
    int n = 0;
    if (out == NULL || max <= 0) {
        for (int i = 0; i < g->nfront; i++)
            n += rot_count[fits[g->front[i].need]];
        return n;
    }
    for (int i = 0; i < g->nfront; i++) {
        const struct carc_front *f = &g->front[i];
        unsigned rots = fits[f->need];
        const uint8_t *r = rot_nth[rots];
        if (n + 4 <= max) {
            for (int k = 0; k < 4; k++)
                out[n + k] = (struct carc_placement){f->x, f->y, r[k]};
        } else {
            for (int k = 0; k < rot_count[rots] && n + k < max; k++)
                out[n + k] = (struct carc_placement){f->x, f->y, r[k]};
        }
        n += rot_count[rots];
    }
    return n;
}

int carc_game_placement_nth(const struct carc_game *g, int t, int k, struct carc_placement *out)
{
    if (t < 0 || t >= carc_tiles_count || k < 0)
        return CARC_E_INVAL;
    const uint8_t *fits = carc_tile_fits[carc_tiles[t].sig];
    for (int i = 0; i < g->nfront; i++) {
        unsigned rots = fits[g->front[i].need];
        if (k < rot_count[rots]) {
            *out = (struct carc_placement){g->front[i].x, g->front[i].y, rot_nth[rots][k]};
            return 0;
        }
        k -= rot_count[rots];
    }
    return CARC_E_INVAL;
}

/* Does tile t fit anywhere? */
int carc__board_fits(const struct carc_game *g, int t)
{
    const uint8_t *fits = carc_tile_fits[carc_tiles[t].sig];
    for (int i = 0; i < g->nfront; i++)
        if (fits[g->front[i].need])
            return 1;
    return 0;
}

unsigned carc__slot_probe(const struct carc_game *g, unsigned s, int x, int y)
{
    /* Entries past CARC_CELL_FRONT_DIRECT are compared after the walk, by one scan.
     * The walk is bounded by a full cycle: a broken game (carc_game_check) may have
     * no empty slot left. */
    int far = 0;
    for (int k = 0; k < CARC__SLOTS; k++, s = (s + CARC_GRID_STEP) & (CARC__SLOTS - 1)) {
        int v = g->cells[s];
        if (v == 0)
            break;
        if (v < CARC_CELL_FRONT_FAR ? carc__slot_near_holds(g, s, x, y) : (far = 1, 0))
            return s;
    }
    for (int i = CARC_CELL_FRONT_DIRECT; far && i < g->nfront; i++)
        if (g->front[i].x == x && g->front[i].y == y)
            return g->front[i].cell;
    return s;
}

int carc__at_probe(const struct carc_game *g, unsigned s, int x, int y)
{
    /* A tile at (x, y) lies before the first empty slot of the sequence: compare
     * the tiles on the way only. */
    for (int k = 1; k < CARC__SLOTS; k++) {
        s = (s + CARC_GRID_STEP) & (CARC__SLOTS - 1);
        int i = g->cells[s] - 1;
        if (i < 0)
            return -1;
        if (i < CARC_MAX_TILES && g->placed[i].x == x && g->placed[i].y == y)
            return i;
    }
    return -1;
}

int carc_game_tile_at(const struct carc_game *g, int x, int y)
{
    return carc__at(g, x, y) + 1;
}

/* Frontier entry i leaves the frontier: the last entry takes its index. */
static void front_remove(struct carc_game *g, int i)
{
    g->cells[g->front[i].cell] = 0;
    int last = --g->nfront;
    if (i != last) {
        g->front[i] = g->front[last];
        g->cells[g->front[i].cell] = carc__front_mark(i);
    }
}

/* Puts tile idx (type t) in its slot at (x, y) and grows the frontier around
 * it. The tile and its neighbours lie within 1 of the box: on a board that is
 * not wide their home slots hold them or nothing, and only a wide one needs the
 * search. Called with a constant `wide`, so each board gets its own copy. */
static inline void board_link(struct carc_game *g, int idx, int t, int x, int y, int rot, int wide)
{
    /* The tile's slot: its frontier entry's, or (a setup tile apart from the
     * board) an empty one, which may lie past its home. */
    unsigned home = CARC__CELL(x, y), cell = wide ? carc__slot_probe(g, home, x, y) : home;
    if (g->cells[cell] != 0)
        front_remove(g, carc__front_of(g, cell));
    else if (cell != home)
        g->displaced++;
    g->cells[cell] = (uint8_t)(idx + 1);
    uint8_t edges = edges_rot(t, rot);
    for (int d = 0; d < 4; d++) {
        int nx = x + carc__dx[d], ny = y + carc__dy[d];
        /* Off the board: no move may name it, so it is no frontier cell. */
        if (nx < -CARC_COORD_MAX || nx > CARC_COORD_MAX || ny < -CARC_COORD_MAX ||
            ny > CARC_COORD_MAX)
            continue;
        unsigned nhome = CARC__CELL(nx, ny), nc = wide ? carc__slot_probe(g, nhome, nx, ny) : nhome;
        if (carc__cell_tile(g, nc))
            continue;
        struct carc_front *f;
        if (g->cells[nc] == 0) {
            int fi = g->nfront++;
            f = &g->front[fi];
            *f = (struct carc_front){(uint16_t)nc, (int8_t)nx, (int8_t)ny, 0};
            g->cells[nc] = carc__front_mark(fi);
            if (nc != nhome)
                g->displaced++;
        } else {
            f = &g->front[carc__front_of(g, nc)];
        }
        int opp = (d + 2) & 3;
        f->need |= (uint8_t)(((edges >> (2 * d)) & 3u) << (2 * opp));
    }
}

/* Puts tile t on the grid and updates the frontier. Returns the placed index.
 * The caller has checked the placement. */
int carc__board_put(struct carc_game *g, int t, int x, int y, int rot, int player)
{
    int idx = g->ntiles++;
    g->placed[idx] = (struct carc_placed){
        (uint8_t)t, (uint8_t)rot, (int8_t)x, (int8_t)y, (uint8_t)player, 0, g->nnodes};
    for (int s = 0; s < carc_tiles[t].nsegs; s++)
        g->node_tile[g->nnodes + s] = (uint8_t)idx;
    g->nnodes = (uint16_t)(g->nnodes + carc_tiles[t].nsegs);
    if (carc_tiles[t].flags & (CARC_TF_CLOISTER | CARC_TF_BARN))
        g->special[g->nspecial++] = (uint8_t)idx;
    /* Grow the box without a branch: which way it grows is the game's chance. */
    int x0 = x < g->xmin ? x : g->xmin, x1 = x > g->xmax ? x : g->xmax;
    int y0 = y < g->ymin ? y : g->ymin, y1 = y > g->ymax ? y : g->ymax;
    g->xmin = (int8_t)x0;
    g->xmax = (int8_t)x1;
    g->ymin = (int8_t)y0;
    g->ymax = (int8_t)y1;
    g->wide = (uint8_t)((x1 - x0 > CARC_GRID - 5) | (y1 - y0 > CARC_GRID - 5));
    if (g->wide)
        board_link(g, idx, t, x, y, rot, 1);
    else
        board_link(g, idx, t, x, y, rot, 0);
    return idx;
}

/* Tiles among the 8 cells around placed tile position (x, y). */
int carc__neighbours8(const struct carc_game *g, int x, int y)
{
    int n = 0, home = !g->wide;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            if ((dx || dy) && carc__at_near(g, home, x + dx, y + dy) >= 0)
                n++;
    return n;
}
