/* bot_int.h: the bots' building blocks (bot.c), shared with the analysis
 * (analysis.c); not part of libcarc's API. Same purity as bot.h. */
#ifndef CARC_BOT_INT_H
#define CARC_BOT_INT_H

#include "bot.h"
#include "rng.h"

/* Options of one placement (no meeple, each meeple, each legal escape) */
#define CARC__BOT_MAX_OPTIONS (1 + 2 * CARC_MAX_SEGS + CARC_MEEPLES + 1)

/* The unseen pile g->deck[deck_pos..] put in catalogue order, then shuffled by
 * rng: the result depends on the multiset of the unseen tiles alone. */
void carc__bot_pile_shuffle(struct carc_game *g, struct carc_rng *rng);
/* g->current's knights, candidates for an escape, into w->knight_*. */
void carc__bot_knights_find(struct carc_bot_search *w, const struct carc_game *g);
/* Every option of placement pl of g->tile (w's knights found first) into
 * out (CARC__BOT_MAX_OPTIONS); returns the count. */
int carc__bot_options(const struct carc_bot_search *w, const struct carc_game *g,
                      const struct carc_placement *pl, struct carc_move *out);
/* Every option of w->root ranked by the greedy value; keep: fill w->with and
 * w->without. The greedy's choice to *best; returns the options evaluated. */
int carc__bot_options_rank(struct carc_bot_search *w, int keep, const atomic_int *stop,
                           struct carc_move *best);
/* One move of the playout policy on g (uniform placement, meeple half the time). */
void carc__bot_playout_move(const struct carc_game *g, struct carc_rng *rng, struct carc_move *m);
/* The strong level's reward in [0, 1] of a finished game for seat me. */
double carc__bot_reward(const struct carc_game *g, int me);

#endif
