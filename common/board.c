/* board.c: the grid, the frontier of empty cells next to placed tiles with
 * their edge constraints (kept incrementally), and placement legality. */
#include <stddef.h>

#include "internal.h"

/* The bounds of game.h that the grid's encoding relies on. */
_Static_assert(CARC_MAX_TILES + 2 <= CARC_GRID, "a line of tiles and its frontier must not wrap");
_Static_assert(CARC_COORD_MAX + 1 <= 127, "frontier coordinates must fit int8_t");
_Static_assert(CARC_CELL_FRONT < CARC_CELL_FRONT_FAR, "cell bytes: tiles, then frontier marks");
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
    unsigned cell = CARC__CELL(x, y);
    if (need_front) {
        int fi = carc__front_find(g, cell);
        const struct carc_front *f = fi >= 0 ? &g->front[fi] : NULL;
        if (f == NULL || f->x != x || f->y != y)
            return carc_error_set(err, CARC_E_ADJACENT,
                                  "(%d,%d) touches no placed tile along an edge", x, y);
    } else if (carc__cell_tile(g, cell)) {
        return carc_error_set(err, CARC_E_INVAL, "(%d,%d) is too far from the other tiles", x, y);
    }
    for (int d = 0; d < 4; d++) {
        int n = carc__at(g, x + carc__dx[d], y + carc__dy[d]);
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

static void front_remove(struct carc_game *g, unsigned cell)
{
    int i = carc__front_find(g, cell);
    if (i < 0)
        return;
    g->cells[cell] = 0;
    int last = --g->nfront;
    if (i != last) {
        g->front[i] = g->front[last];
        g->cells[g->front[i].cell] = carc__front_mark(i);
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
    unsigned cell = CARC__CELL(x, y);
    front_remove(g, cell);
    g->cells[cell] = (uint8_t)(idx + 1);
    if (carc_tiles[t].flags & (CARC_TF_CLOISTER | CARC_TF_BARN))
        g->special[g->nspecial++] = (uint8_t)idx;
    uint8_t edges = edges_rot(t, rot);
    for (int d = 0; d < 4; d++) {
        int nx = x + carc__dx[d], ny = y + carc__dy[d];
        unsigned nc = CARC__CELL(nx, ny);
        /* Off the board: no move may name it, so it is no frontier cell. */
        if (nx < -CARC_COORD_MAX || nx > CARC_COORD_MAX || ny < -CARC_COORD_MAX ||
            ny > CARC_COORD_MAX || carc__cell_tile(g, nc))
            continue;
        struct carc_front *f;
        int fi = carc__front_find(g, nc);
        if (fi < 0) {
            fi = g->nfront++;
            f = &g->front[fi];
            *f = (struct carc_front){(uint16_t)nc, (int8_t)nx, (int8_t)ny, 0};
            g->cells[nc] = carc__front_mark(fi);
        } else {
            f = &g->front[fi];
        }
        int opp = (d + 2) & 3;
        f->need |= (uint8_t)(((edges >> (2 * d)) & 3u) << (2 * opp));
    }
    return idx;
}

/* Tiles among the 8 cells around (x, y). */
int carc__neighbours8(const struct carc_game *g, int x, int y)
{
    int n = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            if ((dx || dy) && carc__at(g, x + dx, y + dy) >= 0)
                n++;
    return n;
}
