/* moves_util.c: helpers of the move tests (see moves_util.h). */
#include <string.h>

#include "moves_util.h"

int tt(const char *id)
{
    int t = carc_tile_find(id);
    ck_assert_msg(t >= 0, "unknown tile %s", id);
    return t;
}

int seg_of(int t, const char *name)
{
    if (name == NULL)
        return -1;
    int s = carc_tile_seg_find(t, name);
    ck_assert_msg(s >= 0, "%s has no %s", carc_tiles[t].id, name);
    return s;
}

void cfg_base(struct carc_config *c, int nplayers, unsigned sets)
{
    memset(c, 0, sizeof *c);
    c->nplayers = nplayers;
    c->sets = sets;
    c->start = -1;
    c->escape_rule = CARC_ESCAPE_SIEGE_TILE;
}

struct carc_move mv(const struct carc_game *g, int x, int y, int rot, const char *seg, int large)
{
    struct carc_move m = {
        .player = g->current, .tile = g->tile, .x = x, .y = y, .rot = rot, .large = large};
    m.seg = g->tile >= 0 ? seg_of(g->tile, seg) : -1;
    return m;
}

int count_events(const struct carc_game *g, int type)
{
    int n = 0;
    for (int i = 0; i < g->nevents; i++)
        n += g->events[i].type == type;
    return n;
}

/* ---- a brute-force oracle: every cell around the placed tiles, every rotation ---- */

int brute_fits(const struct carc_game *g, int t, int x, int y, int rot)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    if (carc_game_tile_at(g, x, y) != 0)
        return 0;
    int touching = 0;
    for (int d = 0; d < 4; d++) {
        int n = carc_game_tile_at(g, x + dx[d], y + dy[d]);
        if (n == 0)
            continue;
        const struct carc_placed *p = &g->placed[n - 1];
        ck_assert(p->x == x + dx[d] && p->y == y + dy[d]);
        touching++;
        if (carc_tile_edge(p->type, p->rot, (d + 2) % 4) != carc_tile_edge(t, rot, d))
            return 0;
    }
    return touching > 0;
}

int brute_count(const struct carc_game *g, int t)
{
    int x0 = 0, x1 = 0, y0 = 0, y1 = 0, n = 0;
    for (int i = 0; i < g->ntiles; i++) {
        const struct carc_placed *p = &g->placed[i];
        x0 = p->x < x0 ? p->x : x0;
        x1 = p->x > x1 ? p->x : x1;
        y0 = p->y < y0 ? p->y : y0;
        y1 = p->y > y1 ? p->y : y1;
    }
    for (int y = y0 - 1; y <= y1 + 1; y++)
        for (int x = x0 - 1; x <= x1 + 1; x++)
            for (int rot = 0; rot < 4; rot++)
                n += brute_fits(g, t, x, y, rot);
    return n;
}
