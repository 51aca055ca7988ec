/* test_bot.c: the built-in bots' search (common/bot.h): every level plays
 * whole games of legal moves in every configuration, the same inputs give
 * the same move, a raised stop flag still gives a legal move, and the
 * search never reads the hidden draw order. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "board_util.h"
#include "bot.h"
#include "tests.h"

static struct carc_bot_search *work(void)
{
    struct carc_bot_search *w = malloc(sizeof *w);
    ck_assert_ptr_nonnull(w);
    return w;
}

static void deal(struct carc_game *g, int np, unsigned sets, uint64_t seed)
{
    struct carc_config cfg = {.nplayers = np, .sets = sets, .start = -1, .seed = seed};
    struct carc_error err = {0, ""};
    memset(g, 0, sizeof *g);
    ck_assert_int_eq(carc_game_init(g, &cfg, &err), 0);
}

START_TEST(levels_round_trip)
{
    for (int l = 0; l < CARC_BOT_LEVELS; l++)
        ck_assert_int_eq(carc_bot_level_find(carc_bot_level_name(l)), l);
    ck_assert_int_eq(carc_bot_level_find("expert"), -1);
    ck_assert_ptr_null(carc_bot_level_name(CARC_BOT_LEVELS));
}
END_TEST

/* Whole games: every move a level returns is accepted by the engine. */
START_TEST(every_level_plays_legal_games)
{
    static const unsigned sets[] = {1u << CARC_SET_BASE, CARC_SETS_ALL};
    struct carc_bot_search *w = work();
    struct carc_game *g = malloc(sizeof *g);
    int level = _i % CARC_BOT_LEVELS, np = 2 + _i % 5;
    unsigned set = sets[_i % 2];
    if (np == 6)
        set = CARC_SETS_ALL;
    deal(g, np, set, 100 + (uint64_t)_i);
    int moves = 0;
    while (g->phase != CARC_PHASE_OVER) {
        struct carc_move m;
        /* A small budget keeps the strong level quick here. */
        ck_assert_int_eq(carc_bot_choose(w, g, level, (uint64_t)moves, 40, NULL, &m), 0);
        ck_assert_int_eq(m.player, g->current);
        struct carc_error err = {0, ""};
        ck_assert_msg(carc_game_play(g, &m, &err) == 0, "level %d move %d: %s", level, moves,
                      err.text);
        moves++;
    }
    struct carc_move m;
    ck_assert_int_eq(carc_bot_choose(w, g, level, 1, 40, NULL, &m), CARC_E_OVER);
    ck_assert_int_gt(moves, 10);
    free(g);
    free(w);
}
END_TEST

START_TEST(same_inputs_same_move_and_no_peeking)
{
    struct carc_bot_search *w = work();
    struct carc_game *g = malloc(sizeof *g), *h = malloc(sizeof *h);
    deal(g, 2, CARC_SETS_ALL, 5);
    for (int level = 0; level < CARC_BOT_LEVELS; level++) {
        struct carc_move a, b;
        ck_assert_int_eq(carc_bot_choose(w, g, level, 9, 60, NULL, &a), 0);
        ck_assert_int_eq(carc_bot_choose(w, g, level, 9, 60, NULL, &b), 0);
        ck_assert(memcmp(&a, &b, sizeof a) == 0);
        /* The same position with the unseen tiles in another order: the same move. */
        *h = *g;
        for (int i = h->deck_pos, j = h->deck_len - 1; i < j; i++, j--) {
            uint8_t t = h->deck[i];
            h->deck[i] = h->deck[j];
            h->deck[j] = t;
        }
        ck_assert_int_eq(carc_bot_choose(w, h, level, 9, 60, NULL, &b), 0);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "level %d read the hidden order", level);
    }
    free(h);
    free(g);
    free(w);
}
END_TEST

START_TEST(stop_flag_still_gives_a_legal_move)
{
    struct carc_bot_search *w = work();
    struct carc_game *g = malloc(sizeof *g);
    deal(g, 3, CARC_SETS_ALL, 11);
    atomic_int stop;
    atomic_init(&stop, 1);
    struct carc_move m;
    ck_assert_int_eq(carc_bot_choose(w, g, CARC_BOT_STRONG, 3, 1000000, &stop, &m), 0);
    struct carc_error err = {0, ""};
    ck_assert_int_eq(carc_game_play(g, &m, &err), 0);
    free(g);
    free(w);
}
END_TEST

/* Red's knight on a city cap at (10,0) facing east; the drawn tile is another
 * cap: greedy closes the city at (11,0) for 4 points rather than anything else. */
START_TEST(greedy_takes_a_scoring_completion)
{
    struct carc_bot_search *w = work();
    struct carc_game *g = bu_game_deck(2, BU_BASE, 0, CARC_ESCAPE_SIEGE_TILE, "BA.E BA.U BA.U");
    put(g, 0, "BA.E", 10, 0, 90, "c1", 0);
    ck_assert_int_eq(g->current, 0);
    ck_assert_int_eq(g->tile, bu_tile("BA.E"));
    for (uint64_t seed = 0; seed < 4; seed++) {
        struct carc_move m;
        ck_assert_int_eq(carc_bot_choose(w, g, CARC_BOT_GREEDY, seed, 0, NULL, &m), 0);
        ck_assert_int_eq(m.x, 11);
        ck_assert_int_eq(m.y, 0);
        ck_assert_int_eq(m.rot, 3);
        struct carc_game *h = malloc(sizeof *h);
        *h = *g;
        struct carc_error err = {0, ""};
        ck_assert_int_eq(carc_game_play(h, &m, &err), 0);
        ck_assert_int_eq(h->players[0].score, 4);
        free(h);
    }
    bu_game_free(g);
    free(w);
}
END_TEST

/* Budget 0 means CARC_BOT_STRONG_BUDGET; a raised flag is read during the search too. */
START_TEST(strong_default_budget_and_over)
{
    struct carc_bot_search *w = work();
    struct carc_game *g = malloc(sizeof *g);
    deal(g, 2, 1u << CARC_SET_BASE, 21);
    struct carc_move a, b;
    ck_assert_int_eq(carc_bot_choose(w, g, CARC_BOT_STRONG, 4, 0, NULL, &a), 0);
    ck_assert_int_eq(carc_bot_choose(w, g, CARC_BOT_STRONG, 4, CARC_BOT_STRONG_BUDGET, NULL, &b),
                     0);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    ck_assert_int_eq(carc_bot_choose(w, g, CARC_BOT_LEVELS, 4, 0, NULL, &a), CARC_E_INVAL);
    carc_game_finish(g);
    ck_assert_int_eq(carc_bot_choose(w, g, CARC_BOT_STRONG, 4, 0, NULL, &a), CARC_E_OVER);
    free(g);
    free(w);
}
END_TEST

Suite *suite_bot(void)
{
    Suite *s = suite_create("bot");
    TCase *tc = tcase_create("search");
    tcase_add_test(tc, levels_round_trip);
    tcase_add_loop_test(tc, every_level_plays_legal_games, 0, 12);
    tcase_add_test(tc, same_inputs_same_move_and_no_peeking);
    tcase_add_test(tc, stop_flag_still_gives_a_legal_move);
    tcase_add_test(tc, greedy_takes_a_scoring_completion);
    tcase_add_test(tc, strong_default_budget_and_over);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
