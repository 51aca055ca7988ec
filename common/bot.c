/* bot.c: the built-in bots (see bot.h): move options, the random and greedy
 * levels, and the strong level's flat UCB search over determinized playouts. */
#include <limits.h>
#include <stddef.h>

#include "bot.h"
#include "bot_int.h"

/* Tuning of the strong level (overridable with -D for experiments). */
#ifndef BOT_WITH
#define BOT_WITH 16 /* candidates taken first from the best options with a meeple or escape */
#endif
#ifndef BOT_UCB_C
#define BOT_UCB_C 0.35 /* UCB1 exploration constant, rewards in [0, 1] */
#endif
#ifndef BOT_WIN_WEIGHT
#define BOT_WIN_WEIGHT 0.5 /* reward = this x win + the rest x squashed score margin */
#endif
#ifndef BOT_MARGIN_SCALE
#define BOT_MARGIN_SCALE 20.0 /* points at which the squashed margin is 3/4 */
#endif
#ifndef BOT_DEPTH
#define BOT_DEPTH 0 /* playout turns before the board is scored as is; 0: to the end */
#endif
#ifndef BOT_MEEPLE_PCT
#define BOT_MEEPLE_PCT 50 /* playouts: chance (percent) of trying a meeple at all */
#endif

#define MAX_OPTIONS CARC__BOT_MAX_OPTIONS
#define SIEGE_SETS ((1u << CARC_SET_BESIEGERS) | (1u << CARC_SET_CATHARS) | (1u << CARC_SET_SIEGE))

static const char *const level_names[CARC_BOT_LEVELS] = {"random", "greedy", "strong"};

const char *carc_bot_level_name(int level)
{
    return level >= 0 && level < CARC_BOT_LEVELS ? level_names[level] : NULL;
}

int carc_bot_level_find(const char *name)
{
    for (int i = 0; name != NULL && i < CARC_BOT_LEVELS; i++) {
        const char *a = name, *b = level_names[i];
        while (*a != '\0' && *a == *b)
            a++, b++;
        if (*a == '\0' && *b == '\0')
            return i;
    }
    return -1;
}

/* ---- shared helpers ---------------------------------------------------------------------- */

static int stopped(const atomic_int *stop)
{
    return stop != NULL && atomic_load_explicit(stop, memory_order_relaxed) != 0;
}

/* Fisher-Yates over the tiles still to draw: the only view of the pile a player has.
 * The pile is put in catalogue order first, so that the result depends on the
 * multiset of the unseen tiles alone, never on their secret order. */
void carc__bot_pile_shuffle(struct carc_game *g, struct carc_rng *rng)
{
    for (int i = g->deck_pos + 1; i < g->deck_len; i++) /* insertion sort: at most ~115 tiles */
        for (int k = i; k > g->deck_pos && g->deck[k - 1] > g->deck[k]; k--) {
            uint8_t t = g->deck[k];
            g->deck[k] = g->deck[k - 1];
            g->deck[k - 1] = t;
        }
    for (int i = g->deck_len - 1; i > g->deck_pos; i--) {
        int j = g->deck_pos + (int)carc_rng_below(rng, (uint32_t)(i - g->deck_pos + 1));
        uint8_t t = g->deck[i];
        g->deck[i] = g->deck[j];
        g->deck[j] = t;
    }
}

static int large_allowed(const struct carc_game *g, int p)
{
    return (g->sets & (1u << CARC_SET_INNS_CATHEDRALS)) && g->players[p].large > 0;
}

/* The knights of g->current (candidates for an escape) into w->knight_*. */
void carc__bot_knights_find(struct carc_bot_search *w, const struct carc_game *g)
{
    w->nknights = 0;
    if (!(g->sets & SIEGE_SETS))
        return;
    for (int n = 0; n < g->nnodes && w->nknights < CARC_MEEPLES + 1; n++) {
        if ((g->nodes[n].meeple & ~CARC_MEEPLE_LARGE) != g->current + 1)
            continue;
        int seg, idx = carc_game_node_tile(g, n, &seg);
        if (carc_tiles[g->placed[idx].type].segs[seg].kind != CARC_SEG_CITY)
            continue;
        w->knight_x[w->nknights] = g->placed[idx].x;
        w->knight_y[w->nknights] = g->placed[idx].y;
        w->knight_seg[w->nknights++] = seg;
    }
}

static void move_base(const struct carc_game *g, const struct carc_placement *pl,
                      struct carc_move *m)
{
    *m = (struct carc_move){
        .player = g->current, .tile = g->tile, .x = pl->x, .y = pl->y, .rot = pl->rot, .seg = -1};
}

/* Every option of one placement: no meeple, a normal and a large meeple on
 * each free spot (as the supply allows), and without a meeple each escape the
 * engine allows. Fills out (MAX_OPTIONS) and returns the count. */
int carc__bot_options(const struct carc_bot_search *w, const struct carc_game *g,
                      const struct carc_placement *pl, struct carc_move *out)
{
    int n = 0, me = g->current;
    move_base(g, pl, &out[n++]);
    unsigned spots = carc_game_meeple_spots(g, g->tile, pl->x, pl->y, pl->rot);
    for (int s = 0; spots != 0 && s < CARC_MAX_SEGS; s++) {
        if (!(spots >> s & 1))
            continue;
        if (g->players[me].meeples > 0) {
            move_base(g, pl, &out[n]);
            out[n++].seg = s;
        }
        if (large_allowed(g, me)) {
            move_base(g, pl, &out[n]);
            out[n].seg = s;
            out[n++].large = 1;
        }
    }
    for (int k = 0; k < w->nknights; k++) {
        move_base(g, pl, &out[n]);
        out[n].escape = 1;
        out[n].ex = w->knight_x[k];
        out[n].ey = w->knight_y[k];
        out[n].eseg = w->knight_seg[k];
        if (carc_game_escape_check(g, &out[n], NULL) == 0)
            n++;
    }
    return n;
}

/* ---- random ------------------------------------------------------------------------------ */

static int choose_random(struct carc_bot_search *w, const struct carc_game *g,
                         struct carc_move *out)
{
    int n = carc_game_placements(g, g->tile, NULL, 0);
    if (n <= 0)
        return CARC_E_OVER;
    struct carc_placement pl;
    carc_game_placement_nth(g, g->tile, (int)carc_rng_below(&w->rng, (uint32_t)n), &pl);
    move_base(g, &pl, out);
    /* Choices: 0 = none, then (segment, large) pairs, as carc-sim does. */
    int segs[2 * CARC_MAX_SEGS + 1], large[2 * CARC_MAX_SEGS + 1], k = 1, me = g->current;
    unsigned spots = carc_game_meeple_spots(g, g->tile, pl.x, pl.y, pl.rot);
    for (int s = 0; s < CARC_MAX_SEGS; s++) {
        if (!(spots >> s & 1))
            continue;
        if (g->players[me].meeples > 0)
            segs[k] = s, large[k++] = 0;
        if (large_allowed(g, me))
            segs[k] = s, large[k++] = 1;
    }
    uint32_t c = carc_rng_below(&w->rng, (uint32_t)k);
    if (c > 0) {
        out->seg = segs[c];
        out->large = large[c];
    }
    /* Half the time with a siege set, take a knight back when the engine allows. */
    if (!(g->sets & SIEGE_SETS) || carc_rng_below(&w->rng, 2) == 0)
        return 0;
    carc__bot_knights_find(w, g);
    struct carc_move esc[CARC_MEEPLES + 1];
    int ne = 0;
    for (int i = 0; i < w->nknights; i++) {
        esc[ne] = *out;
        esc[ne].escape = 1;
        esc[ne].ex = w->knight_x[i];
        esc[ne].ey = w->knight_y[i];
        esc[ne].eseg = w->knight_seg[i];
        if (carc_game_escape_check(g, &esc[ne], NULL) == 0)
            ne++;
    }
    if (ne > 0)
        *out = esc[carc_rng_below(&w->rng, (uint32_t)ne)];
    return 0;
}

/* ---- greedy ------------------------------------------------------------------------------ */

/* Greedy value of m on w->root: immediate own gain first (x 100000), then the
 * end-of-game value gained over the best opponent (the board scored as if the
 * game ended after m). LLONG_MIN when the engine refuses m. Uses w->sim. */
static long long option_value(struct carc_bot_search *w, const struct carc_move *m)
{
    const struct carc_game *g = &w->root;
    int me = g->current;
    w->sim = *g;
    if (carc_game_play(&w->sim, m, NULL) < 0)
        return LLONG_MIN;
    long long gain = w->sim.players[me].score - g->players[me].score;
    carc_game_finish(&w->sim);
    long long mine = 0, best_other = g->nplayers < 2 ? 0 : -1000000;
    for (int p = 0; p < g->nplayers; p++) {
        long long proj = w->sim.players[p].score - g->players[p].score;
        if (p == me)
            mine = proj;
        else if (proj > best_other)
            best_other = proj;
    }
    return gain * 100000 + (mine - best_other);
}

/* Insert (m, v) into the list (best first, at most CARC_BOT_CANDIDATES); an
 * equal value goes after the ones already there, so the order is the
 * enumeration order among ties. */
static void top_insert(struct carc_bot_cand *list, int *n, const struct carc_move *m, long long v)
{
    int i = *n < CARC_BOT_CANDIDATES ? (*n)++ : CARC_BOT_CANDIDATES;
    if (i == CARC_BOT_CANDIDATES && list[i - 1].prior >= v)
        return;
    if (i == CARC_BOT_CANDIDATES)
        i--;
    while (i > 0 && list[i - 1].prior < v) {
        list[i] = list[i - 1];
        i--;
    }
    list[i] = (struct carc_bot_cand){.move = *m, .prior = v};
}

/* Evaluate every option of w->root. With keep, fill w->with / w->without (the
 * best options with and without a meeple or escape); the greedy choice (ties
 * broken at random) goes to *best either way. Stops early, keeping what it
 * has, when stop is raised. Returns the number of options evaluated. */
int carc__bot_options_rank(struct carc_bot_search *w, int keep, const atomic_int *stop,
                           struct carc_move *best)
{
    const struct carc_game *g = &w->root;
    int n = carc_game_placements(g, g->tile, NULL, 0), found = 0, ties = 0;
    long long best_v = 0;
    w->nwith = w->nwithout = 0;
    carc__bot_knights_find(w, g);
    for (int i = 0; i < n; i++) {
        struct carc_placement pl;
        struct carc_move opt[MAX_OPTIONS];
        if (found > 0 && stopped(stop))
            break;
        carc_game_placement_nth(g, g->tile, i, &pl);
        int no = carc__bot_options(w, g, &pl, opt);
        for (int o = 0; o < no; o++) {
            long long v = option_value(w, &opt[o]);
            if (v == LLONG_MIN)
                continue;
            if (keep) {
                if (opt[o].seg >= 0 || opt[o].escape)
                    top_insert(w->with, &w->nwith, &opt[o], v);
                else
                    top_insert(w->without, &w->nwithout, &opt[o], v);
            }
            if (!found++ || v > best_v) {
                best_v = v;
                *best = opt[o];
                ties = 1;
            } else if (v == best_v && carc_rng_below(&w->rng, (uint32_t)++ties) == 0) {
                *best = opt[o];
            }
        }
    }
    return found;
}

/* ---- strong ------------------------------------------------------------------------------ */

/* One move of the playout policy: a uniform placement; a meeple on a uniform
 * free spot BOT_MEEPLE_PCT percent of the time, when the supply allows. */
void carc__bot_playout_move(const struct carc_game *g, struct carc_rng *rng, struct carc_move *m)
{
    int n = carc_game_placements(g, g->tile, NULL, 0);
    struct carc_placement pl;
    carc_game_placement_nth(g, g->tile, (int)carc_rng_below(rng, (uint32_t)n), &pl);
    move_base(g, &pl, m);
    int me = g->current, large = large_allowed(g, me);
    if ((g->players[me].meeples == 0 && !large) || (int)carc_rng_below(rng, 100) >= BOT_MEEPLE_PCT)
        return;
    unsigned spots = carc_game_meeple_spots(g, g->tile, pl.x, pl.y, pl.rot);
    int segs[CARC_MAX_SEGS], k = 0;
    for (int s = 0; s < CARC_MAX_SEGS; s++)
        if (spots >> s & 1)
            segs[k++] = s;
    if (k == 0)
        return;
    m->seg = segs[carc_rng_below(rng, (uint32_t)k)];
    m->large = large && (g->players[me].meeples == 0 || carc_rng_below(rng, 4) == 0);
}

/* Reward in [0, 1] of a finished game for player me: a win (half for a tie)
 * and the margin over the best opponent, squashed. */
double carc__bot_reward(const struct carc_game *g, int me)
{
    long best_other = LONG_MIN;
    for (int p = 0; p < g->nplayers; p++)
        if (p != me && g->players[p].score > best_other)
            best_other = g->players[p].score;
    double margin = (double)(g->players[me].score - best_other);
    double win = margin > 0 ? 1.0 : margin < 0 ? 0.0 : 0.5;
    double abs_margin = margin < 0 ? -margin : margin;
    double squashed = 0.5 + 0.5 * margin / (abs_margin + BOT_MARGIN_SCALE / 2.0 + 1e-9);
    return BOT_WIN_WEIGHT * win + (1.0 - BOT_WIN_WEIGHT) * squashed;
}

/* One determinized playout of candidate c: the pile reshuffled, c played,
 * then the playout policy to the end (or BOT_DEPTH turns, then scored). */
static double playout(struct carc_bot_search *w, const struct carc_move *c)
{
    struct carc_game *s = &w->sim;
    int me = w->root.current;
    *s = w->root;
    carc__bot_pile_shuffle(s, &w->rng);
    if (carc_game_play(s, c, NULL) < 0)
        return 0.0;
    for (int turns = 0; s->phase != CARC_PHASE_OVER; turns++) {
        struct carc_move m;
        if (BOT_DEPTH > 0 && turns >= BOT_DEPTH)
            break;
        carc__bot_playout_move(s, &w->rng, &m);
        if (carc_game_play(s, &m, NULL) < 0)
            break;
    }
    carc_game_finish(s);
    return carc__bot_reward(s, me);
}

/* Square root by Newton's method (common/ links no libm). */
static double sqrt_pos(double x)
{
    if (x <= 0)
        return 0;
    double r = x > 1 ? x : 1;
    for (int i = 0; i < 40; i++) {
        double next = 0.5 * (r + x / r);
        if (next >= r)
            break;
        r = next;
    }
    return r;
}

/* Natural logarithm of x >= 1 (for UCB1's exploration term). */
static double log_pos(double x)
{
    double k = 0;
    while (x > 2.0) {
        x /= 2.718281828459045;
        k += 1;
    }
    double y = (x - 1) / (x + 1), y2 = y * y, term = y, sum = 0;
    for (int i = 1; i < 30; i += 2) {
        sum += term / i;
        term *= y2;
    }
    return k + 2 * sum;
}

static int choose_strong(struct carc_bot_search *w, long budget, const atomic_int *stop,
                         struct carc_move *out)
{
    if (carc__bot_options_rank(w, 1, stop, out) == 0)
        return CARC_E_OVER;
    /* Candidates: up to BOT_WITH of the best options with a meeple or escape,
     * then the best without, then the rest of those with. */
    w->ncand = 0;
    int iw = 0, io = 0;
    while (iw < w->nwith && iw < BOT_WITH && w->ncand < CARC_BOT_CANDIDATES)
        w->cand[w->ncand++] = w->with[iw++];
    while (io < w->nwithout && w->ncand < CARC_BOT_CANDIDATES)
        w->cand[w->ncand++] = w->without[io++];
    while (iw < w->nwith && w->ncand < CARC_BOT_CANDIDATES)
        w->cand[w->ncand++] = w->with[iw++];
    if (w->ncand <= 1 || stopped(stop)) {
        if (w->ncand == 1)
            *out = w->cand[0].move;
        return 0;
    }
    long total = 0;
    for (long it = 0; it < budget && !stopped(stop); it++) {
        int pick = -1;
        if (total < w->ncand) {
            pick = (int)total; /* each candidate once, best prior first */
        } else {
            double best = -1, lt = log_pos((double)total);
            for (int i = 0; i < w->ncand; i++) {
                const struct carc_bot_cand *c = &w->cand[i];
                double u = c->sum / c->visits + BOT_UCB_C * sqrt_pos(lt / c->visits);
                if (u > best) {
                    best = u;
                    pick = i;
                }
            }
        }
        w->cand[pick].sum += playout(w, &w->cand[pick].move);
        w->cand[pick].visits++;
        total++;
    }
    if (total == 0)
        return 0; /* stopped before any playout: the greedy choice */
    int best = 0;
    for (int i = 1; i < w->ncand; i++) {
        const struct carc_bot_cand *a = &w->cand[i], *b = &w->cand[best];
        if (a->visits > b->visits ||
            (a->visits == b->visits && a->visits > 0 && a->sum / a->visits > b->sum / b->visits))
            best = i;
    }
    *out = w->cand[best].move;
    return 0;
}

/* ---- entry point ------------------------------------------------------------------------- */

int carc_bot_choose(struct carc_bot_search *w, const struct carc_game *g, int level, uint64_t seed,
                    long budget, const atomic_int *stop, struct carc_move *out)
{
    if (level < 0 || level >= CARC_BOT_LEVELS)
        return CARC_E_INVAL;
    if (g->phase == CARC_PHASE_OVER || g->tile < 0)
        return CARC_E_OVER;
    carc_rng_seed(&w->rng, seed ^ 0xB07B07B07B07B07Bull);
    if (level == CARC_BOT_RANDOM)
        return choose_random(w, g, out);
    w->root = *g;
    carc__bot_pile_shuffle(&w->root, &w->rng);
    if (level == CARC_BOT_GREEDY)
        return carc__bot_options_rank(w, 0, NULL, out) > 0 ? 0 : CARC_E_OVER;
    return choose_strong(w, budget > 0 ? budget : CARC_BOT_STRONG_BUDGET, stop, out);
}
