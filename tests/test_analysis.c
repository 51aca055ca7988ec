/* test_analysis.c: the post-game analysis (common/analysis.h) at its default
 * budget: planted blunders are found, a strong bot's moves are not called
 * blunders, two seeds agree on the classes, the result is deterministic, and
 * luck is measured on hand-built decks. */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_json.h"
#include "bot_int.h"
#include "record_json.h"
#include "tests.h"

static void *zalloc(size_t n)
{
    void *p = calloc(1, n);
    ck_assert_ptr_nonnull(p);
    return p;
}

static void deal(struct carc_game *g, int np, uint64_t seed)
{
    struct carc_config cfg = {
        .nplayers = np, .sets = 1u << CARC_SET_BASE, .start = -1, .seed = seed};
    struct carc_error err = {0, ""};
    ck_assert_int_eq(carc_game_init(g, &cfg, &err), 0);
}

/* A game of the base set between two bots of level into rec (budget: the
 * strong level's playouts, 0 for its default). */
static void bot_game(struct carc_record *rec, struct carc_game *g, int level, uint64_t seed,
                     long budget)
{
    struct carc_bot_search *w = zalloc(sizeof *w);
    memset(rec, 0, sizeof *rec);
    rec->sets = 1u << CARC_SET_BASE;
    rec->nplayers = 2;
    strcpy(rec->names[0], "Ann");
    strcpy(rec->names[1], "Bob");
    deal(g, 2, seed);
    rec->start = g->placed[0].type;
    rec->has_deck = 1;
    rec->deck_len = g->deck_len;
    memcpy(rec->deck, g->deck, g->deck_len);
    while (g->phase != CARC_PHASE_OVER) {
        struct carc_move m;
        ck_assert_int_eq(
            carc_bot_choose(w, g, level, seed * 977 + (uint64_t)g->turn, budget, NULL, &m), 0);
        rec->moves[rec->nmoves++] = m;
        ck_assert_int_eq(carc_game_play(g, &m, NULL), 0);
    }
    free(w);
}

/* Seat me's margin over the best other seat of g. */
static long margin(const struct carc_game *g, int me)
{
    long other = LONG_MIN;
    for (int p = 0; p < g->nplayers; p++)
        if (p != me && g->players[p].score > other)
            other = g->players[p].score;
    return g->players[me].score - other;
}

/* A planted blunder on g. Every option is played once on a copy: its
 * immediate margin gain (the points it scores at once for the mover less the
 * best opponent's) and its projected margin (the board then scored as if the
 * game ended). When the best gain G is at least 8 (a city or road of the
 * mover's closed at once), the plant is the option with the best projection
 * among those that gain at most G - 8, kept only when the best projection
 * stands at least 8 above it too: the points are left on the table, not won
 * back elsewhere. 0 when there is none such. */
static int blunder_plant(struct carc_bot_search *w, const struct carc_game *g,
                         struct carc_move *out)
{
    enum { MAX = 4096 };
    struct carc_move *opt = zalloc(MAX * sizeof *opt);
    long *gain = zalloc(MAX * sizeof *gain), *proj = zalloc(MAX * sizeof *proj);
    struct carc_game *sim = zalloc(sizeof *sim);
    int me = g->current, n = 0, np = carc_game_placements(g, g->tile, NULL, 0);
    long before = margin(g, me), top_gain = LONG_MIN, top_proj = LONG_MIN;
    carc__bot_knights_find(w, g);
    for (int i = 0; i < np; i++) {
        struct carc_placement pl;
        carc_game_placement_nth(g, g->tile, i, &pl);
        ck_assert_int_le(n + CARC__BOT_MAX_OPTIONS, MAX);
        int no = carc__bot_options(w, g, &pl, opt + n);
        for (int o = n; o < n + no; o++) {
            *sim = *g;
            if (carc_game_play(sim, &opt[o], NULL) < 0)
                continue;
            opt[n] = opt[o];
            gain[n] = margin(sim, me) - before;
            carc_game_finish(sim);
            proj[n] = margin(sim, me);
            top_gain = gain[n] > top_gain ? gain[n] : top_gain;
            top_proj = proj[n] > top_proj ? proj[n] : top_proj;
            n++;
        }
    }
    int plant = -1;
    for (int k = 0; top_gain >= 8 && k < n; k++)
        if (gain[k] <= top_gain - 8 && (plant < 0 || proj[k] > proj[plant]))
            plant = k;
    int found = plant >= 0 && top_proj - proj[plant] >= 8;
    if (found)
        *out = opt[plant];
    free(sim);
    free(proj);
    free(gain);
    free(opt);
    return found;
}

static int bad(int cls)
{
    return cls == CARC_AN_MISTAKE || cls == CARC_AN_BLUNDER;
}

/* Finished games (greedy bots: they take the points, so chances to leave
 * some are many) with single moves replaced by planted blunders: at least 90%
 * of 30 are rated mistake or blunder at the default budget. */
START_TEST(planted_blunders_are_found)
{
    struct carc_record *rec = zalloc(sizeof *rec);
    struct carc_game *g = zalloc(sizeof *g);
    struct carc_analysis_work *w = zalloc(sizeof *w);
    int planted = 0, found = 0;
    for (uint64_t seed = 1; seed <= 200 && planted < 30; seed++) {
        bot_game(rec, g, CARC_BOT_GREEDY, seed, 0);
        struct carc_error err = {0, ""};
        ck_assert_int_eq(carc_record_start(rec, g, &err), 0);
        for (int i = 0; i < rec->nmoves && planted < 30; i++) {
            struct carc_move m;
            if (blunder_plant(&w->bot, g, &m)) {
                struct carc_analysis_move r;
                ck_assert_int_eq(
                    carc_analysis_move_rate(w, g, &m, carc_analysis_move_seed(1, i), 0, NULL, &r),
                    0);
                planted++;
                found += bad(r.cls);
                fprintf(stderr, "planted: game %d move %d: %s, %.2f points, %.3f win\n", (int)seed,
                        i, carc_analysis_class_name(r.cls), r.loss_points, r.loss);
            }
            ck_assert_int_eq(carc_record_step(rec, i, g, &err), 0);
        }
    }
    fprintf(stderr, "planted blunders: %d of %d rated mistake or blunder\n", found, planted);
    ck_assert_int_eq(planted, 30);
    ck_assert_msg(found * 10 >= planted * 9, "%d of %d", found, planted);
    free(w);
    free(g);
    free(rec);
}
END_TEST

/* A game of the strong bot against itself, analysed with two seeds at the
 * default budget: at most 5% of its moves are blunders, and the two seeds give
 * at least 85% of the moves the same class. */
START_TEST(strong_moves_are_rarely_blunders_and_seeds_agree)
{
    struct carc_record *rec = zalloc(sizeof *rec);
    struct carc_game *g = zalloc(sizeof *g);
    struct carc_analysis_work *w = zalloc(sizeof *w);
    struct carc_analysis *a = zalloc(sizeof *a), *b = zalloc(sizeof *b);
    struct carc_error err = {0, ""};
    bot_game(rec, g, CARC_BOT_STRONG, 7, 0);
    ck_assert_int_eq(carc_analysis_record_run(w, rec, 1, 0, NULL, NULL, a, &err), 0);
    ck_assert_int_eq(carc_analysis_record_run(w, rec, 2, 0, NULL, NULL, b, &err), 0);
    ck_assert_int_eq(a->nmoves, rec->nmoves);
    int blunders = 0, same = 0, hist[CARC_AN_CLASSES] = {0};
    for (int i = 0; i < a->nmoves; i++) {
        blunders += a->moves[i].cls == CARC_AN_BLUNDER;
        same += a->moves[i].cls == b->moves[i].cls;
        hist[a->moves[i].cls]++;
    }
    fprintf(stderr,
            "strong game: %d moves, %d blunders, %d same class with two seeds; "
            "best %d good %d inaccuracy %d mistake %d blunder %d\n",
            a->nmoves, blunders, same, hist[0], hist[1], hist[2], hist[3], hist[4]);
    ck_assert_msg(blunders * 20 <= a->nmoves, "%d blunders in %d moves", blunders, a->nmoves);
    ck_assert_msg(same * 100 >= a->nmoves * 85, "%d of %d", same, a->nmoves);
    free(b);
    free(a);
    free(w);
    free(g);
    free(rec);
}
END_TEST

/* A record of the base set whose deck is deck[0..n) (tile ids), played by
 * greedy bots to its end. */
static void deck_game(struct carc_record *rec, struct carc_game *g, const char *const *deck, int n)
{
    struct carc_bot_search *w = zalloc(sizeof *w);
    memset(rec, 0, sizeof *rec);
    rec->sets = 1u << CARC_SET_BASE;
    rec->nplayers = 2;
    strcpy(rec->names[0], "Ann");
    strcpy(rec->names[1], "Bob");
    rec->start = carc_tile_find("BA.D");
    rec->has_deck = 1;
    rec->deck_len = n;
    for (int i = 0; i < n; i++) {
        int t = carc_tile_find(deck[i]);
        ck_assert_int_ge(t, 0);
        rec->deck[i] = (uint8_t)t;
    }
    struct carc_error err = {0, ""};
    ck_assert_int_eq(carc_record_start(rec, g, &err), 0);
    while (g->phase != CARC_PHASE_OVER) {
        struct carc_move m;
        ck_assert_int_eq(carc_bot_choose(w, g, CARC_BOT_GREEDY, (uint64_t)g->turn, 0, NULL, &m), 0);
        rec->moves[rec->nmoves++] = m;
        ck_assert_int_eq(carc_game_play(g, &m, NULL), 0);
    }
    free(w);
}

static double luck_sum(const struct carc_analysis *a, int p)
{
    double sum = 0;
    for (int i = 0; i < a->nmoves; i++)
        if (a->moves[i].player == p) {
            ck_assert(a->moves[i].luck == a->moves[i].tile_value - a->moves[i].tile_mean);
            sum += a->moves[i].luck;
        }
    return sum;
}

/* Luck on hand-built decks: one kind of tile only, nobody is lucky; Ann draws
 * only straight roads that close nothing while Bob draws the city pieces that
 * close cities: Ann's luck is below zero and 3 points below Bob's, and each player's
 * luck is the sum of their moves'. */
START_TEST(luck_on_hand_built_decks)
{
    struct carc_record *rec = zalloc(sizeof *rec);
    struct carc_game *g = zalloc(sizeof *g);
    struct carc_analysis_work *w = zalloc(sizeof *w);
    struct carc_analysis *a = zalloc(sizeof *a);
    struct carc_error err = {0, ""};
    static const char *const same[] = {"BA.U", "BA.U", "BA.U", "BA.U", "BA.U", "BA.U"};
    deck_game(rec, g, same, 6);
    ck_assert_int_eq(carc_analysis_record_run(w, rec, 1, 40, NULL, NULL, a, &err), 0);
    for (int i = 0; i < a->nmoves; i++)
        ck_assert_msg(a->moves[i].luck == 0, "move %d: luck %f", i, a->moves[i].luck);
    /* Ann (seat 0) draws the even tiles: straight roads; Bob the odd ones: city caps
     * (BA.E), which close the start tile's city and each other's. */
    static const char *const unfair[] = {"BA.U", "BA.E", "BA.U", "BA.E", "BA.U", "BA.E",
                                         "BA.U", "BA.E", "BA.U", "BA.E", "BA.U", "BA.E"};
    deck_game(rec, g, unfair, 12);
    ck_assert_int_eq(carc_analysis_record_run(w, rec, 1, 40, NULL, NULL, a, &err), 0);
    carc_analysis_players_sum(a);
    double ann = luck_sum(a, 0), bob = luck_sum(a, 1);
    fprintf(stderr, "luck: Ann %.2f, Bob %.2f\n", ann, bob);
    ck_assert(a->players[0].luck == ann && a->players[1].luck == bob);
    ck_assert_msg(ann < 0 && bob - ann > 3, "Ann %.2f, Bob %.2f", ann, bob);
    free(a);
    free(w);
    free(g);
    free(rec);
}
END_TEST

/* The same record, seed and budget give the same document; another seed
 * another one; a stop flag raised stops the run; an illegal move is refused. */
START_TEST(deterministic_and_errors)
{
    struct carc_record *rec = zalloc(sizeof *rec);
    struct carc_game *g = zalloc(sizeof *g);
    struct carc_analysis_work *w = zalloc(sizeof *w);
    struct carc_analysis *a = zalloc(sizeof *a);
    bot_game(rec, g, CARC_BOT_GREEDY, 5, 0);
    char *text = NULL, *one = NULL, *two = NULL, *other = NULL;
    ck_assert_int_eq(proto_record_dump(rec, 0, &text, NULL), 0);
    struct proto_analysis_progress progress;
    ck_assert_int_eq(
        proto_analysis_run("g1", text, strlen(text), 1, 2, NULL, &progress, &one, NULL), 0);
    ck_assert_int_eq(atomic_load(&progress.done), rec->nmoves);
    ck_assert_int_eq(atomic_load(&progress.total), rec->nmoves);
    ck_assert_int_eq(proto_analysis_run("g1", text, strlen(text), 1, 2, NULL, NULL, &two, NULL), 0);
    ck_assert_int_eq(proto_analysis_run("g1", text, strlen(text), 2, 2, NULL, NULL, &other, NULL),
                     0);
    ck_assert_str_eq(one, two);
    ck_assert_str_ne(one, other);
    ck_assert_ptr_nonnull(
        strstr(one, "{\"format\":\"carcd-analysis/1\",\"id\":\"g1\",\"seed\":1,"));

    atomic_int stop = 1;
    struct carc_error err = {0, ""};
    ck_assert_int_eq(carc_analysis_record_run(w, rec, 1, 40, &stop, NULL, a, &err), CARC_E_LIMIT);
    char *none = NULL;
    struct proto_error perr;
    proto_error_init(&perr);
    ck_assert_int_eq(proto_analysis_run("g1", "{\"format\":1}", 12, 1, 2, NULL, NULL, &none, &perr),
                     CARC_E_RECORD);
    ck_assert_ptr_null(none);

    ck_assert_int_eq(carc_record_start(rec, g, &err), 0);
    struct carc_move bad = rec->moves[0];
    bad.x += 40; /* nowhere near the start tile */
    struct carc_analysis_move r;
    ck_assert_int_eq(carc_analysis_move_rate(w, g, &bad, 1, 40, NULL, &r), CARC_E_INVAL);
    ck_assert_int_eq(carc_analysis_move_rate(w, g, &rec->moves[0], 1, 40, NULL, &r), 0);
    ck_assert(r.rated && r.cls >= CARC_AN_BEST && r.cls < CARC_AN_CLASSES && r.options > 0);
    ck_assert_str_eq(carc_analysis_class_name(CARC_AN_BLUNDER), "blunder");
    ck_assert_ptr_null(carc_analysis_class_name(CARC_AN_NONE));
    free(text);
    free(one);
    free(two);
    free(other);
    free(a);
    free(w);
    free(g);
    free(rec);
}
END_TEST

Suite *suite_analysis(void)
{
    Suite *s = suite_create("analysis");
    TCase *tc = tcase_create("default budget");
    tcase_add_test(tc, planted_blunders_are_found);
    tcase_add_test(tc, strong_moves_are_rarely_blunders_and_seeds_agree);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    TCase *quick = tcase_create("small budget");
    tcase_add_test(quick, luck_on_hand_built_decks);
    tcase_add_test(quick, deterministic_and_errors);
    tcase_set_timeout(quick, 120);
    suite_add_tcase(s, quick);
    return s;
}
