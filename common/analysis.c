/* analysis.c: rating a record's moves (analysis.h): candidates, the race of
 * sequential halving over determinized playouts, luck, and the players' sums. */
#include <stddef.h>

#include "analysis.h"
#include "bot_int.h"

#define BOT_WITH 16 /* as the strong level: candidates with a meeple or escape first */

static const char *const class_names[CARC_AN_CLASSES] = {"best", "good", "inaccuracy", "mistake",
                                                         "blunder"};

const char *carc_analysis_class_name(int cls)
{
    return cls >= 0 && cls < CARC_AN_CLASSES ? class_names[cls] : NULL;
}

long carc_analysis_playouts(long ms)
{
    if (ms < 1)
        ms = 1;
    if (ms > 600000)
        ms = 600000;
    return ms * CARC_AN_PLAYOUTS_PER_MS;
}

/* splitmix64's finalizer: seeds of samples and moves from (seed, index). */
static uint64_t mix(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t carc_analysis_move_seed(uint64_t seed, int i)
{
    return mix(seed ^ 0xA11A11A11A11A11Aull, (uint64_t)i);
}

static int stopped(const atomic_int *stop)
{
    return stop != NULL && atomic_load_explicit(stop, memory_order_relaxed) != 0;
}

static int move_same(const struct carc_move *a, const struct carc_move *b)
{
    if (a->x != b->x || a->y != b->y || a->rot != b->rot || a->seg != b->seg ||
        a->escape != b->escape)
        return 0;
    if (a->seg >= 0 && (a->large != 0) != (b->large != 0))
        return 0;
    return !a->escape || (a->ex == b->ex && a->ey == b->ey && a->eseg == b->eseg);
}

/* Final margin of seat me over the best other seat. */
static long margin_of(const struct carc_game *g, int me)
{
    long best = g->nplayers < 2 ? 0 : -1000000;
    for (int p = 0; p < g->nplayers; p++)
        if (p != me && g->players[p].score > best)
            best = g->players[p].score;
    return g->players[me].score - best;
}

/* ---- luck -------------------------------------------------------------------------------- */

/* The greedy value of drawing tile t in position g, in points: the best over
 * its options of the gain in projected margin (the board scored as if the
 * game ended after the move) over the best opponent. 0 with *ok = 0 when t
 * fits nowhere (it would be discarded and another drawn). Uses w->bot. */
static double tile_value(struct carc_analysis_work *w, const struct carc_game *g, int t, int *ok)
{
    struct carc_game *root = &w->bot.root, *s = &w->bot.sim;
    *root = *g;
    root->tile = t;
    int me = root->current, n = carc_game_placements(root, t, NULL, 0);
    long before = margin_of(root, me), best = 0;
    *ok = 0;
    carc__bot_knights_find(&w->bot, root);
    for (int i = 0; i < n; i++) {
        struct carc_placement pl;
        struct carc_move opt[CARC__BOT_MAX_OPTIONS];
        carc_game_placement_nth(root, t, i, &pl);
        int no = carc__bot_options(&w->bot, root, &pl, opt);
        for (int o = 0; o < no; o++) {
            *s = *root;
            if (carc_game_play(s, &opt[o], NULL) < 0)
                continue;
            carc_game_finish(s);
            long v = margin_of(s, me) - before;
            if (!*ok || v > best)
                best = v;
            *ok = 1;
        }
    }
    return (double)best;
}

/* out->tile_value, tile_mean and luck: the drawn tile against every tile that
 * could have been drawn (the drawn one and the unseen pile, each copy once;
 * a tile that fits nowhere is left out: it would have been discarded). */
static void luck_rate(struct carc_analysis_work *w, const struct carc_game *g,
                      struct carc_analysis_move *out)
{
    int count[CARC_MAX_TILES] = {0}, ok;
    count[g->tile]++;
    for (int i = g->deck_pos; i < g->deck_len; i++)
        count[g->deck[i]]++;
    double sum = 0, drawn = tile_value(w, g, g->tile, &ok);
    long weight = 0;
    for (int t = 0; t < CARC_MAX_TILES; t++) {
        if (count[t] == 0)
            continue;
        double v = t == g->tile ? drawn : tile_value(w, g, t, &ok);
        if (t == g->tile || ok) {
            sum += v * count[t];
            weight += count[t];
        }
    }
    out->tile_value = drawn;
    out->tile_mean = weight > 0 ? sum / (double)weight : drawn;
    out->luck = out->tile_value - out->tile_mean;
}

/* ---- the race ---------------------------------------------------------------------------- */

/* Candidates: the strong level's (up to BOT_WITH of the best with a meeple or
 * escape, then the best without, then the rest), and the move played. Returns
 * the options of the position, 0 when none. */
static int cands_make(struct carc_analysis_work *w, const struct carc_move *played)
{
    struct carc_bot_search *b = &w->bot;
    struct carc_move greedy;
    int found = carc__bot_options_rank(b, 1, NULL, &greedy);
    if (found == 0)
        return 0;
    int max = CARC_BOT_CANDIDATES, iw = 0, io = 0;
    w->ncand = 0;
    while (iw < b->nwith && iw < BOT_WITH && w->ncand < max)
        w->cand[w->ncand++].move = b->with[iw++].move;
    while (io < b->nwithout && w->ncand < max)
        w->cand[w->ncand++].move = b->without[io++].move;
    while (iw < b->nwith && w->ncand < max)
        w->cand[w->ncand++].move = b->with[iw++].move;
    int have = -1;
    for (int i = 0; played != NULL && i < w->ncand; i++)
        if (move_same(&w->cand[i].move, played))
            have = i;
    if (played != NULL && have < 0) {
        have = w->ncand++;
        w->cand[have].move = *played;
    }
    for (int i = 0; i < w->ncand; i++) {
        struct carc_analysis_cand *c = &w->cand[i];
        c->sum_win = c->sum_margin = c->sum_reward = 0;
        c->n = 0;
        c->alive = 1;
        c->played = i == have;
    }
    return found;
}

/* One sample of c: the pile of sample c->n (the same for every candidate),
 * c played, then the playout policy to the end. */
static void sample(struct carc_analysis_work *w, struct carc_analysis_cand *c, uint64_t seed)
{
    struct carc_game *s = &w->bot.sim;
    int me = w->bot.root.current;
    struct carc_rng rng;
    *s = w->bot.root;
    carc_rng_seed(&rng, mix(seed, (uint64_t)c->n));
    carc__bot_pile_shuffle(s, &rng);
    carc_rng_seed(&rng, mix(seed ^ 0x5EED5EED5EED5EEDull, (uint64_t)c->n));
    c->n++;
    if (carc_game_play(s, &c->move, NULL) < 0)
        return; /* never: every candidate was played once already */
    while (s->phase != CARC_PHASE_OVER) {
        struct carc_move m;
        carc__bot_playout_move(s, &rng, &m);
        if (carc_game_play(s, &m, NULL) < 0)
            break;
    }
    carc_game_finish(s);
    long margin = margin_of(s, me);
    c->sum_margin += (double)margin;
    c->sum_win += margin > 0 ? 1.0 : margin < 0 ? 0.0 : 0.5;
    c->sum_reward += carc__bot_reward(s, me);
}

static double mean_reward(const struct carc_analysis_cand *c)
{
    return c->n > 0 ? c->sum_reward / (double)c->n : 0;
}

/* c ranks before d: the higher mean reward, then the earlier (the greedy's order). */
static int ranks_before(const struct carc_analysis_work *w, int c, int d)
{
    double a = mean_reward(&w->cand[c]), b = mean_reward(&w->cand[d]);
    return a > b || (a == b && c < d);
}

/* Sequential halving: rounds of equal shares, the better half of the options
 * still in the race kept after each; the move played is sampled in every round
 * (its figures and the best's come from the same samples). Returns the best's
 * index, or -1 when stopped. */
static int race(struct carc_analysis_work *w, uint64_t seed, long playouts, const atomic_int *stop)
{
    int rounds = 1;
    while ((1 << rounds) < w->ncand)
        rounds++;
    for (int r = 0; r < rounds; r++) {
        int nrun = 0, nalive = 0;
        for (int i = 0; i < w->ncand; i++) {
            nrun += w->cand[i].alive || w->cand[i].played;
            nalive += w->cand[i].alive;
        }
        long per = playouts / ((long)rounds * nrun);
        if (per < 1)
            per = 1;
        for (int i = 0; i < w->ncand; i++) {
            struct carc_analysis_cand *c = &w->cand[i];
            for (long k = 0; k < per && (c->alive || c->played); k++) {
                if (stopped(stop))
                    return -1;
                sample(w, c, seed);
            }
        }
        if (r == rounds - 1)
            break;
        int keep = (nalive + 1) / 2;
        for (int i = 0; i < w->ncand; i++) {
            if (!w->cand[i].alive)
                continue;
            int better = 0;
            for (int j = 0; j < w->ncand; j++)
                better += j != i && w->cand[j].alive && ranks_before(w, j, i);
            if (better >= keep)
                w->cand[i].alive = 2; /* out after this pass */
        }
        for (int i = 0; i < w->ncand; i++)
            if (w->cand[i].alive == 2)
                w->cand[i].alive = 0;
    }
    /* The move played ran every round: measured on the finalists' samples, it
     * may still come out best. */
    int best = -1;
    for (int i = 0; i < w->ncand; i++)
        if ((w->cand[i].alive || w->cand[i].played) && (best < 0 || ranks_before(w, i, best)))
            best = i;
    return best;
}

static int class_of(const struct carc_analysis_move *m, int nplayers)
{
    double p = m->loss_points, v = nplayers == 2 ? m->loss : 0;
    if (m->best_is_played || (p < CARC_AN_BEST_POINTS && v < CARC_AN_BEST_WIN))
        return CARC_AN_BEST;
    int by_points = p >= CARC_AN_BLUNDER_POINTS      ? CARC_AN_BLUNDER
                    : p >= CARC_AN_MISTAKE_POINTS    ? CARC_AN_MISTAKE
                    : p >= CARC_AN_INACCURACY_POINTS ? CARC_AN_INACCURACY
                                                     : CARC_AN_GOOD;
    int by_win = v >= CARC_AN_BLUNDER_WIN      ? CARC_AN_BLUNDER
                 : v >= CARC_AN_MISTAKE_WIN    ? CARC_AN_MISTAKE
                 : v >= CARC_AN_INACCURACY_WIN ? CARC_AN_INACCURACY
                                               : CARC_AN_GOOD;
    return by_points > by_win ? by_points : by_win;
}

int carc_analysis_move_rate(struct carc_analysis_work *w, const struct carc_game *g,
                            const struct carc_move *played, uint64_t seed, long playouts,
                            const atomic_int *stop, struct carc_analysis_move *out)
{
    if (g->phase == CARC_PHASE_OVER || g->tile < 0)
        return CARC_E_OVER;
    if (playouts <= 0)
        playouts = carc_analysis_playouts(CARC_AN_DEFAULT_MS);
    if (played != NULL) {
        w->bot.sim = *g;
        struct carc_move m = *played;
        m.player = g->current;
        if (m.skip || carc_game_play(&w->bot.sim, &m, NULL) < 0)
            return CARC_E_INVAL;
    }
    struct carc_analysis_move r = {.player = g->current, .rated = 1, .cls = CARC_AN_NONE};
    if (played != NULL) /* a bot's question needs no luck */
        luck_rate(w, g, &r);
    w->bot.root = *g;
    carc_rng_seed(&w->bot.rng, seed);
    r.options = cands_make(w, played);
    if (r.options == 0)
        return CARC_E_OVER;
    int best = race(w, seed, playouts, stop);
    if (best < 0)
        return CARC_E_LIMIT;
    int me_played = -1;
    for (int i = 0; i < w->ncand; i++) {
        r.playouts += w->cand[i].n;
        if (w->cand[i].played)
            me_played = i;
    }
    const struct carc_analysis_cand *b = &w->cand[best];
    const struct carc_analysis_cand *p = me_played >= 0 ? &w->cand[me_played] : b;
    r.best = b->move;
    r.best.player = g->current;
    r.best_is_played = p == b;
    r.best_win = b->sum_win / (double)b->n;
    r.best_margin = b->sum_margin / (double)b->n;
    r.win = p->sum_win / (double)p->n;
    r.margin = p->sum_margin / (double)p->n;
    r.value = g->nplayers == 2 ? r.win : r.margin;
    r.best_value = g->nplayers == 2 ? r.best_win : r.best_margin;
    r.loss = r.best_value > r.value ? r.best_value - r.value : 0;
    r.loss_points = r.best_margin > r.margin ? r.best_margin - r.margin : 0;
    r.cls = class_of(&r, g->nplayers);
    *out = r;
    return 0;
}

/* ---- a whole record ---------------------------------------------------------------------- */

/* e^-x for x >= 0 without libm: x halved until small, a Taylor series, then
 * squared back (exact to ~1e-12, the same on every IEEE machine). */
static double exp_neg(double x)
{
    int k = 0;
    while (x > 0.125 && k < 60) {
        x /= 2;
        k++;
    }
    double term = 1, sum = 1;
    for (int i = 1; i < 12; i++) {
        term *= -x / i;
        sum += term;
    }
    while (k-- > 0)
        sum *= sum;
    return sum;
}

void carc_analysis_players_sum(struct carc_analysis *out)
{
    double acc[CARC_MAX_PLAYERS] = {0};
    for (int p = 0; p < CARC_MAX_PLAYERS; p++)
        out->players[p] = (struct carc_analysis_player){0};
    for (int i = 0; i < out->nmoves; i++) {
        const struct carc_analysis_move *m = &out->moves[i];
        if (!m->rated || m->player < 0 || m->player >= out->nplayers)
            continue;
        struct carc_analysis_player *pl = &out->players[m->player];
        pl->rated++;
        pl->classes[m->cls]++;
        pl->luck += m->luck;
        pl->loss_points += m->loss_points;
        acc[m->player] += 100.0 * exp_neg(m->loss_points / CARC_AN_ACCURACY_SCALE);
    }
    for (int p = 0; p < out->nplayers; p++)
        out->players[p].accuracy =
            out->players[p].rated > 0 ? acc[p] / out->players[p].rated : 100.0;
}

int carc_analysis_record_run(struct carc_analysis_work *w, const struct carc_record *rec,
                             uint64_t seed, long playouts, const atomic_int *stop,
                             atomic_int *progress, struct carc_analysis *out,
                             struct carc_error *err)
{
    int rc = carc_record_start(rec, &w->game, err);
    if (rc < 0)
        return rc;
    if (playouts <= 0)
        playouts = carc_analysis_playouts(CARC_AN_DEFAULT_MS);
    out->nplayers = w->game.nplayers;
    out->nmoves = 0;
    out->playouts = playouts;
    out->seed = seed;
    for (int i = 0; i < rec->nmoves; i++) {
        struct carc_analysis_move *m = &out->moves[i];
        struct carc_move played = rec->moves[i];
        played.player = w->game.current;
        if (played.skip) {
            *m = (struct carc_analysis_move){.player = w->game.current, .cls = CARC_AN_NONE};
        } else {
            rc = carc_analysis_move_rate(w, &w->game, &played, carc_analysis_move_seed(seed, i),
                                         playouts, stop, m);
            if (rc < 0) {
                if (rc != CARC_E_LIMIT)
                    carc_error_set(err, rc, "move %d cannot be rated", i);
                return rc;
            }
        }
        rc = carc_record_step(rec, i, &w->game, err);
        if (rc < 0)
            return rc;
        out->nmoves = i + 1;
        if (progress != NULL)
            atomic_store_explicit(progress, i + 1, memory_order_relaxed);
    }
    carc_analysis_players_sum(out);
    return 0;
}
