/* check.c: carc_game_check, the invariants of a struct carc_game (game.h).
 *
 * Slow on purpose (it reads every cell and node): for tests and the fuzzing
 * build (-DCARC_FUZZ makes carc_game_init and carc_game_play call it after
 * every success), never for the move path. An overflow that lands inside the
 * struct, where no sanitizer sees it, shows up here as a broken count, a
 * frontier entry that is not where its cell says, or a node outside its tile. */
#include <stddef.h>

#include "internal.h"

#define BAD(...) carc_error_set(err, CARC_E_INVAL, __VA_ARGS__)

static int counts_check(const struct carc_game *g, struct carc_error *err)
{
    if (g->nplayers < 2 || g->nplayers > CARC_MAX_PLAYERS || g->current >= g->nplayers)
        return BAD("players: %d, current %d", g->nplayers, g->current);
    if (g->phase != CARC_PHASE_PLACE && g->phase != CARC_PHASE_OVER)
        return BAD("phase %d", g->phase);
    if (g->ntiles < 1 || g->ntiles > CARC_MAX_TILES || g->deck_len > CARC_MAX_DECK + 1 ||
        g->deck_pos > g->deck_len || g->ntiles + carc_game_tiles_left(g) > CARC_MAX_TILES ||
        g->nfront > CARC_MAX_FRONTIER || g->nevents > CARC_MAX_EVENTS ||
        g->nnodes > CARC_MAX_NODES || g->nspecial > g->ntiles || g->herbs_left > CARC_HERBS)
        return BAD("counts: tiles %d, deck %d/%d, frontier %d, events %d, nodes %d, special %d",
                   g->ntiles, g->deck_pos, g->deck_len, g->nfront, g->nevents, g->nnodes,
                   g->nspecial);
    if (g->phase == CARC_PHASE_PLACE
            ? (g->tile < 0 || g->tile >= carc_tiles_count || !carc__board_fits(g, g->tile))
            : g->tile != -1)
        return BAD("the drawn tile %d in phase %d", g->tile, g->phase);
    for (int i = 0; i < g->deck_len; i++)
        if (g->deck[i] >= carc_tiles_count)
            return BAD("deck[%d] = %d", i, g->deck[i]);
    return 0;
}

/* Placed tiles, their cells and their nodes. */
static int tiles_check(const struct carc_game *g, struct carc_error *err)
{
    int node = 0, special = 0;
    for (int i = 0; i < g->ntiles; i++) {
        const struct carc_placed *p = &g->placed[i];
        if (p->type >= carc_tiles_count || p->rot > 3 || p->x < -CARC_COORD_MAX ||
            p->x > CARC_COORD_MAX || p->y < -CARC_COORD_MAX || p->y > CARC_COORD_MAX ||
            p->spare != 0 || (p->player >= g->nplayers && p->player != 0xFF))
            return BAD("placed[%d] is malformed", i);
        if (g->cells[carc__slot(g, p->x, p->y)] != i + 1 || carc__at(g, p->x, p->y) != i)
            return BAD("placed[%d] at (%d,%d) is not in its slot", i, p->x, p->y);
        if (p->node != node)
            return BAD("placed[%d] starts at node %d, not %d", i, p->node, node);
        int nsegs = carc_tiles[p->type].nsegs;
        if (node + nsegs > g->nnodes)
            return BAD("placed[%d] has nodes past nnodes", i);
        for (int s = 0; s < nsegs; s++)
            if (g->node_tile[node + s] != i)
                return BAD("node %d belongs to tile %d, not %d", node + s, g->node_tile[node + s],
                           i);
        node += nsegs;
        if (carc_tiles[p->type].flags & (CARC_TF_CLOISTER | CARC_TF_BARN)) {
            if (special >= g->nspecial || g->special[special] != i)
                return BAD("placed[%d] is missing from special[]", i);
            special++;
        }
    }
    if (node != g->nnodes || special != g->nspecial)
        return BAD("nnodes %d for %d, nspecial %d for %d", g->nnodes, node, g->nspecial, special);
    int tiles = 0;
    for (unsigned c = 0; c < CARC__SLOTS; c++)
        tiles += carc__cell_tile(g, c);
    if (tiles != g->ntiles)
        return BAD("%d cells hold a tile, %d tiles are placed", tiles, g->ntiles);
    return 0;
}

/* Every taken slot holds a tile or frontier entry that names it, g->displaced
 * counts those away from their home slot, and the box is the placed tiles'. */
static int slots_check(const struct carc_game *g, struct carc_error *err)
{
    int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    for (int i = 0; i < g->ntiles; i++) {
        const struct carc_placed *p = &g->placed[i];
        x0 = p->x < x0 ? p->x : x0;
        x1 = p->x > x1 ? p->x : x1;
        y0 = p->y < y0 ? p->y : y0;
        y1 = p->y > y1 ? p->y : y1;
    }
    int wide = x1 - x0 > CARC_GRID - 5 || y1 - y0 > CARC_GRID - 5;
    if (x0 != g->xmin || x1 != g->xmax || y0 != g->ymin || y1 != g->ymax || wide != g->wide)
        return BAD("box (%d..%d, %d..%d) wide %d, the tiles say (%d..%d, %d..%d) %d", g->xmin,
                   g->xmax, g->ymin, g->ymax, g->wide, x0, x1, y0, y1, wide);
    int displaced = 0;
    for (unsigned c = 0; c < CARC__SLOTS; c++) {
        int v = g->cells[c], x, y;
        if (v == 0)
            continue;
        if (v <= CARC_MAX_TILES) {
            if (v > g->ntiles)
                return BAD("slot %u holds tile %d of %d", c, v - 1, g->ntiles);
            x = g->placed[v - 1].x;
            y = g->placed[v - 1].y;
        } else {
            int i =
                v >= CARC_CELL_FRONT && v - CARC_CELL_FRONT < g->nfront ? carc__front_of(g, c) : -1;
            if (i < 0 || g->front[i].cell != c)
                return BAD("slot %u is marked frontier, no entry names it", c);
            x = g->front[i].x;
            y = g->front[i].y;
        }
        if (carc__slot(g, x, y) != c)
            return BAD("slot %u holds (%d,%d), which its probe sequence does not reach", c, x, y);
        displaced += c != CARC__CELL(x, y);
    }
    if (displaced != g->displaced || (displaced && !wide))
        return BAD("%d positions lie away from their home slot, displaced says %d", displaced,
                   g->displaced);
    return 0;
}

/* The constraint an empty cell at (x, y) gets from its neighbours. */
static uint8_t need_at(const struct carc_game *g, int x, int y, int *touching)
{
    uint8_t need = 0;
    *touching = 0;
    for (int d = 0; d < 4; d++) {
        int n = carc__at(g, x + carc__dx[d], y + carc__dy[d]);
        if (n < 0)
            continue;
        (*touching)++;
        int opp = (d + 2) & 3;
        need |= (uint8_t)((unsigned)carc_tile_edge(g->placed[n].type, g->placed[n].rot, opp)
                          << (2 * d));
    }
    return need;
}

/* The frontier is exactly the empty cells on the board next to a placed tile. */
static int front_check(const struct carc_game *g, struct carc_error *err)
{
    for (int i = 0; i < g->nfront; i++) {
        const struct carc_front *f = &g->front[i];
        int touching;
        if (f->cell >= CARC__SLOTS || g->cells[f->cell] < CARC_CELL_FRONT ||
            carc__front_of(g, f->cell) != i || carc__front_find(g, f->x, f->y) != i)
            return BAD("front[%d] at (%d,%d) is not in its slot", i, f->x, f->y);
        if (f->x < -CARC_COORD_MAX || f->x > CARC_COORD_MAX || f->y < -CARC_COORD_MAX ||
            f->y > CARC_COORD_MAX)
            return BAD("front[%d] at (%d,%d) is off the board", i, f->x, f->y);
        if (need_at(g, f->x, f->y, &touching) != f->need || touching == 0)
            return BAD("front[%d] at (%d,%d): constraint 0x%02x, neighbours say 0x%02x", i, f->x,
                       f->y, f->need, need_at(g, f->x, f->y, &touching));
    }
    int want = 0;
    for (unsigned c = 0; c < CARC__SLOTS; c++)
        if (g->cells[c] >= CARC_CELL_FRONT)
            want++;
    if (want != g->nfront)
        return BAD("%d cells are marked frontier, nfront is %d", want, g->nfront);
    for (int i = 0; i < g->ntiles; i++)
        for (int d = 0; d < 4; d++) {
            int x = g->placed[i].x + carc__dx[d], y = g->placed[i].y + carc__dy[d];
            if (x < -CARC_COORD_MAX || x > CARC_COORD_MAX || y < -CARC_COORD_MAX ||
                y > CARC_COORD_MAX || carc__at(g, x, y) >= 0)
                continue;
            if (carc__front_find(g, x, y) < 0)
                return BAD("(%d,%d) next to placed[%d] is missing from the frontier", x, y, i);
        }
    return 0;
}

/* Union-find: parents within the nodes, roots' summaries, meeples against supplies. */
static int nodes_check(const struct carc_game *g, struct carc_error *err)
{
    int on_board[CARC_MAX_PLAYERS] = {0}, large_on[CARC_MAX_PLAYERS] = {0};
    int strength[CARC_MAX_PLAYERS];
    for (int n = 0; n < g->nnodes; n++) {
        const struct carc_node *nd = &g->nodes[n];
        if (nd->parent >= g->nnodes || nd->next >= g->nnodes)
            return BAD("node %d links outside the nodes", n);
        int r = n, steps = 0;
        while (g->nodes[r].parent != r && steps++ <= g->nnodes)
            r = g->nodes[r].parent;
        if (steps > g->nnodes)
            return BAD("node %d: a cycle of parents", n);
        if (nd->meeple) {
            int p = (nd->meeple & ~CARC_MEEPLE_LARGE) - 1;
            if (p < 0 || p >= g->nplayers)
                return BAD("node %d: meeple of player %d", n, p);
            on_board[p]++;
            large_on[p] += (nd->meeple & CARC_MEEPLE_LARGE) != 0;
        }
        if (nd->parent != n)
            continue;
        /* A root: walk its member list, which must close within its size, and
         * count its road or city edges with no tile across. */
        for (int p = 0; p < CARC_MAX_PLAYERS; p++)
            strength[p] = 0;
        int m = n, count = 0, open = 0;
        do {
            if (g->nodes[m].meeple) {
                int p = (g->nodes[m].meeple & ~CARC_MEEPLE_LARGE) - 1;
                if (p < 0 || p >= g->nplayers)
                    return BAD("node %d: meeple of player %d", m, p);
                strength[p] += (g->nodes[m].meeple & CARC_MEEPLE_LARGE) ? 2 : 1;
            }
            const struct carc_placed *pl = &g->placed[g->node_tile[m]];
            const struct carc_seg *sg = &carc_tiles[pl->type].segs[carc__node_seg(g, m)];
            if (sg->kind == CARC_SEG_CITY || sg->kind == CARC_SEG_ROAD)
                for (int d = 0; d < 4; d++)
                    if (carc_rot4(sg->mask, pl->rot) >> d & 1)
                        open += carc__at(g, pl->x + carc__dx[d], pl->y + carc__dy[d]) < 0;
            m = g->nodes[m].next;
        } while (m != n && ++count <= g->nnodes);
        if (count + 1 != nd->size)
            return BAD("root %d: %d members listed, size %d", n, count + 1, nd->size);
        if (open != nd->open)
            return BAD("root %d: %d open edges, open says %d", n, open, nd->open);
        for (int p = 0; p < CARC_MAX_PLAYERS; p++)
            if (strength[p] != carc_node_strength(nd, p))
                return BAD("root %d: player %d's strength %d, meeples say %d", n, p,
                           carc_node_strength(nd, p), strength[p]);
    }
    for (int p = 0; p < g->nplayers; p++) {
        const struct carc_player *pl = &g->players[p];
        int large = (g->sets & (1u << CARC_SET_INNS_CATHEDRALS)) != 0;
        if (on_board[p] - large_on[p] + pl->meeples != CARC_MEEPLES ||
            large_on[p] + pl->large != large)
            return BAD("player %d: %d meeples on the board, %d + %d in the supply", p, on_board[p],
                       pl->meeples, pl->large);
    }
    int herbs = g->herbs_left;
    for (int p = 0; p < g->nplayers; p++)
        herbs += g->players[p].herbs;
    if (herbs != CARC_HERBS)
        return BAD("%d herb tokens in the game", herbs);
    return 0;
}

/* Event types, and the three parts of CARC_MAX_EVENTS (game.h) each within its bound. */
static int events_check(const struct carc_game *g, struct carc_error *err)
{
    int meeples_pile = 0, barns = 0, herbs = 0, first = 0;
    for (int i = 0; i < g->nevents; i++) {
        const struct carc_event *ev = &g->events[i];
        if (ev->type < CARC_EV_SCORE || ev->type > CARC_EV_HERBS)
            return BAD("events[%d] has type %d", i, ev->type);
        if (ev->type == CARC_EV_DISCARD && ev->tile >= carc_tiles_count)
            return BAD("events[%d] discards tile %d", i, ev->tile);
        int city_farm = g->farm_rule == CARC_FARMS_FIRST && ev->type == CARC_EV_SCORE &&
                        ev->kind == CARC_SEG_FIELD;
        herbs += ev->type == CARC_EV_HERBS;
        barns += ev->type == CARC_EV_BARN;
        first += city_farm;
        meeples_pile += ev->type != CARC_EV_HERBS && ev->type != CARC_EV_BARN && !city_farm;
    }
    if (meeples_pile > CARC_MAX_TILES - 1 || barns > CARC_MAX_BARN_EVENTS || herbs > CARC_HERBS ||
        first > CARC_MAX_PLAYERS)
        return BAD("events: %d scorings, escapes and discards, %d barns, %d herbs, %d first-edition"
                   " farm scorings",
                   meeples_pile, barns, herbs, first);
    return 0;
}

int carc_game_check(const struct carc_game *g, struct carc_error *err)
{
    int rc = counts_check(g, err);
    if (rc == 0)
        rc = tiles_check(g, err);
    if (rc == 0)
        rc = slots_check(g, err);
    if (rc == 0)
        rc = front_check(g, err);
    if (rc == 0)
        rc = nodes_check(g, err);
    if (rc == 0)
        rc = events_check(g, err);
    return rc;
}
