/* bot.h: the built-in bots' move choice, pure computation beside the engine.
 *
 * carc_bot_choose() picks a move for the player to move at one of three
 * levels. Like the engine it does no I/O, reads no clock, has no globals and
 * allocates nothing: the caller owns the workspace (struct carc_bot_search)
 * and may run several searches at once on different threads, one workspace
 * each. The result depends only on (position, level, seed, budget) unless the
 * stop flag is raised: the strong search counts playouts, never time.
 *
 * A bot sees what a player sees: the order of g->deck[g->deck_pos..] is
 * secret, so every level works on copies whose remaining pile is reshuffled
 * with the bot's own generator (determinization). Only the multiset of the
 * remaining tiles is used, so a position rebuilt from the public state
 * (proto_client_game, pile in catalogue order) gives the same choices as the
 * server's own game. */
#ifndef CARC_BOT_H
#define CARC_BOT_H

#include <stdatomic.h>
#include <stdint.h>

#include "game.h"

enum carc_bot_level {
    CARC_BOT_RANDOM = 0, /* a uniform legal placement, meeple and escape */
    CARC_BOT_GREEDY = 1, /* best immediate own gain, then end-of-game margin */
    CARC_BOT_STRONG = 2, /* flat UCB over the greedy's best options, determinized playouts */
    CARC_BOT_LEVELS = 3
};

/* "random", "greedy", "strong"; NULL when level is out of range. */
const char *carc_bot_level_name(int level);
/* The level named name, or -1. */
int carc_bot_level_find(const char *name);

/* Playouts of the strong level when carc_bot_choose gets budget 0. One move
 * then takes about 30 ms on one core of the reference machine (2-player game,
 * every set), under 200 ms at most: the first moves, whose playouts are the
 * longest (see `make bench-bots`). */
#define CARC_BOT_STRONG_BUDGET 1500

/* Options the strong level searches: the greedy's best ones with a meeple (or
 * an escape) and its best ones without. */
#define CARC_BOT_CANDIDATES 24

/* One candidate of the strong search (private). */
struct carc_bot_cand {
    struct carc_move move;
    long long prior; /* the greedy value */
    double sum;      /* reward sum over the visits */
    unsigned visits;
};

/* The caller-owned workspace: fixed size (about 37 KiB), no pointers; fields
 * are private. Allocate it with malloc(sizeof) or calloc; it needs no
 * initialization and no cleanup, and one workspace serves any number of calls,
 * one at a time. */
struct carc_bot_search {
    struct carc_game root; /* the position with its pile reshuffled */
    struct carc_game sim;  /* one option played, or one playout */
    struct carc_rng rng;
    int ncand, nwith, nwithout;
    struct carc_bot_cand cand[CARC_BOT_CANDIDATES];
    struct carc_bot_cand with[CARC_BOT_CANDIDATES];    /* best options with a meeple/escape */
    struct carc_bot_cand without[CARC_BOT_CANDIDATES]; /* best options without */
    int nknights;
    int knight_x[CARC_MEEPLES + 1], knight_y[CARC_MEEPLES + 1], knight_seg[CARC_MEEPLES + 1];
};

/* Choose a move for g->current. Returns 0 with *out a move carc_game_play
 * accepts on g (out->player = g->current), or CARC_E_OVER when the game is
 * over or no tile is drawn, CARC_E_INVAL for a level out of range.
 *   level   enum carc_bot_level.
 *   seed    the call's randomness: the same g, level, seed and budget (and no
 *           stop) give the same move, bit for bit.
 *   budget  playouts of the strong level, 0 for CARC_BOT_STRONG_BUDGET;
 *           ignored by random and greedy.
 *   stop    NULL, or a flag another thread may set to nonzero: the strong
 *           search then returns its best move so far at once (still legal).
 *   w       the workspace, not shared between concurrent calls.
 * g is only read: the search works on copies in w. */
int carc_bot_choose(struct carc_bot_search *w, const struct carc_game *g, int level, uint64_t seed,
                    long budget, const atomic_int *stop, struct carc_move *out);

#endif
