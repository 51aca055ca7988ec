/* test_bot.c: the built-in bots' search (common/bot.h): every level plays
 * whole games of legal moves in every configuration, the same inputs give
 * the same move, a raised stop flag still gives a legal move, and the
 * search never reads the hidden draw order. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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

Suite *suite_bot(void)
{
    Suite *s = suite_create("bot");
    TCase *tc = tcase_create("search");
    tcase_add_test(tc, levels_round_trip);
    tcase_add_loop_test(tc, every_level_plays_legal_games, 0, 12);
    tcase_add_test(tc, same_inputs_same_move_and_no_peeking);
    tcase_add_test(tc, stop_flag_still_gives_a_legal_move);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
