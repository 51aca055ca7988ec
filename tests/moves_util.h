/* moves_util.h: helpers shared by the move tests (test_moves.c, test_perft.c).
 * Every helper fails the running Check test instead of returning an error. */
#ifndef CARC_MOVES_UTIL_H
#define CARC_MOVES_UTIL_H

#include <check.h>

#include "game.h"

/* Tile type of id / segment of tile t named name (NULL: -1); fail if unknown. */
int tt(const char *id);
int seg_of(int t, const char *name);
/* A config of nplayers and sets, default start, the siege-tile escape rule. */
void cfg_base(struct carc_config *c, int nplayers, unsigned sets);
/* A move of the drawn tile by the current player, meeple on seg (NULL: none). */
struct carc_move mv(const struct carc_game *g, int x, int y, int rot, const char *seg, int large);
/* Events of type in g->events. */
int count_events(const struct carc_game *g, int type);

/* A brute-force oracle: does tile t fit at (x, y) with rot (an empty cell, at
 * least one neighbour, every edge matching), and how many such placements has
 * t on the board (every cell around the placed tiles, every rotation). */
int brute_fits(const struct carc_game *g, int t, int x, int y, int rot);
int brute_count(const struct carc_game *g, int t);

#endif
