/* test_tithes.c: Apothecaries and Tithes (RULES.md section 6); the other
 * expansions are in test_expansions.c.
 *
 * Boards are built with carc_game_setup_place (board_util.h) at x >= 8, clear of the
 * start tile. Players: RED = 0, BLUE = 1, GREEN = 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_util.h"
#include "tests.h"

enum { RED = 0, BLUE = 1, GREEN = 2 };
#define RB (1u << RED)
#define BB (1u << BLUE)

#define AT_SETS (BU_BASE | BU_SET(APOTHECARIES_TITHES))

/* --- apothecaries ----------------------------------------------------------------------- */

/* Red 2 knights vs Blue 1; Blue completes: Red gets city + 10 and the herb. */
START_TEST(apothecary_single_majority)
{
    struct carc_game *g = bu_game_new(2, AT_SETS);
    put(g, RED, "BA.E", 10, 0, 90, "c1", 0);
    put(g, RED, "BA.E", 12, 0, 270, "c1", 0);
    put(g, BLUE, "BA.E", 11, -1, 180, "c1", 0);
    put(g, BLUE, "AT.04", 11, 0, 0, NULL, 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 4, 0, 8, RB);
    ck_assert_uint_ne(e->flags & CARC_EVF_APOTHECARY, 0);
    ck_assert_int_eq(e->delta[RED], 18);
    ck_assert_int_eq(e->delta[BLUE], 0);
    ck_assert_int_eq(e->herbs_to, RED);
    ck_assert_int_eq(e->herbs, 1);
    ck_assert_int_eq(g->players[RED].score, 18);
    ck_assert_int_eq(g->players[RED].herbs, 1);
    ck_assert_int_eq(g->players[BLUE].herbs, 0);
    ck_assert_int_eq(g->herbs_left, CARC_HERBS - 1);
    carc_game_finish(g);
    ck_assert_int_eq(bu_ev_delta_sum(g, CARC_EV_HERBS, RED), 5);
    ck_assert_int_eq(bu_ev_delta_sum(g, CARC_EV_HERBS, BLUE), 0);
    ck_assert_int_eq(g->players[RED].score, 23);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    bu_game_free(g);
}
END_TEST

/* Red and Blue tie; the herb goes to whoever placed the completing tile. */
static void apothecary_tie(int completer)
{
    struct carc_game *g = bu_game_new(3, AT_SETS);
    put(g, RED, "BA.E", 10, 0, 90, "c1", 0);
    put(g, BLUE, "BA.E", 12, 0, 270, "c1", 0);
    put(g, completer, "AT.05", 11, 0, 0, NULL, 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 3, 0, 6, RB | BB);
    ck_assert_uint_ne(e->flags & CARC_EVF_APOTHECARY, 0);
    ck_assert_int_eq(e->delta[RED], 16);
    ck_assert_int_eq(e->delta[BLUE], 16);
    ck_assert_int_eq(e->delta[GREEN], 0);
    ck_assert_int_eq(e->herbs_to, completer);
    ck_assert_int_eq(e->herbs, 1);
    for (int p = 0; p < 3; p++)
        ck_assert_int_eq(g->players[p].herbs, p == completer);
    carc_game_finish(g);
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_HERBS, 0) > 0, 1);
    ck_assert_int_eq(g->players[RED].score, 16 + (completer == RED ? 5 : 0));
    ck_assert_int_eq(g->players[BLUE].score, 16 + (completer == BLUE ? 5 : 0));
    ck_assert_int_eq(g->players[GREEN].score, completer == GREEN ? 5 : 0);
    bu_game_free(g);
}

START_TEST(apothecary_tie_herbs_to_completer)
{
    apothecary_tie(BLUE);
    apothecary_tie(GREEN);
}
END_TEST

/* 4 marks, then 2 (only 1 herb left), then 2 (none left): the bonus stays. */
START_TEST(apothecary_herbs_run_out)
{
    struct carc_game *g = bu_game_new(2, AT_SETS);
    put(g, RED, "AT.01", 9, 0, 90, "c1", 0);
    put(g, BLUE, "AT.05", 10, 0, 0, NULL, 0);
    put(g, BLUE, "AT.05", 11, 0, 0, NULL, 0);
    put(g, BLUE, "AT.01", 12, 0, 270, NULL, 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 9, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 4, 0, 8, RB);
    ck_assert_int_eq(e->herbs_to, RED);
    ck_assert_int_eq(e->herbs, 4);
    ck_assert_int_eq(g->herbs_left, 1);
    ck_assert_int_eq(g->players[RED].score, 18);

    put(g, BLUE, "AT.01", 9, 5, 90, "c1", 0);
    put(g, RED, "AT.01", 10, 5, 270, NULL, 0);
    e = ev_at(g, CARC_EV_SCORE, 9, 5, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 2, 0, 4, BB);
    ck_assert_int_eq(e->delta[BLUE], 14);
    ck_assert_int_eq(e->herbs_to, BLUE);
    ck_assert_int_eq(e->herbs, 1);
    ck_assert_int_eq(g->herbs_left, 0);

    put(g, BLUE, "AT.01", 9, 10, 90, "c1", 0);
    put(g, RED, "AT.01", 10, 10, 270, NULL, 0);
    e = ev_at(g, CARC_EV_SCORE, 9, 10, "c1");
    ck_assert_int_eq(e->delta[BLUE], 14);
    ck_assert_int_eq(e->herbs, 0);
    ck_assert_int_eq(g->herbs_left, 0);
    ck_assert_int_eq(g->players[RED].herbs, 4);
    ck_assert_int_eq(g->players[BLUE].herbs, 1);
    ck_assert_int_eq(g->players[BLUE].score, 28);

    carc_game_finish(g);
    ck_assert_int_eq(bu_ev_delta_sum(g, CARC_EV_HERBS, RED), 20);
    ck_assert_int_eq(bu_ev_delta_sum(g, CARC_EV_HERBS, BLUE), 5);
    for (int i = 0; i < g->nevents; i++) /* herbs = tokens held, 5 points each */
        if (g->events[i].type == CARC_EV_HERBS)
            ck_assert_int_eq(g->events[i].delta[RED] + g->events[i].delta[BLUE],
                             5 * g->events[i].herbs);
    ck_assert_int_eq(g->players[RED].score, 38);
    ck_assert_int_eq(g->players[BLUE].score, 33);
    bu_game_free(g);
}
END_TEST

START_TEST(apothecary_open_at_end_no_bonus)
{
    struct carc_game *g = bu_game_new(2, AT_SETS);
    put(g, RED, "AT.01", 10, 0, 0, "c1", 0);
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 1, 0, 1, RB);
    ck_assert_int_eq(e->flags & CARC_EVF_APOTHECARY, 0);
    ck_assert_int_eq(e->delta[RED], 1);
    ck_assert_int_eq(g->herbs_left, CARC_HERBS);
    ck_assert_int_eq(g->players[RED].herbs, 0);
    ck_assert_int_eq(g->players[RED].score, 1);
    bu_game_free(g);
}
END_TEST

/* --- tithe barns ------------------------------------------------------------------------ */

START_TEST(barn_is_not_a_meeple_spot)
{
    struct carc_game *g = bu_game_new(2, AT_SETS);
    int t6 = bu_tile("AT.06"), t8 = bu_tile("AT.08");
    ck_assert_int_eq(carc_tile_seg_find(t6, "barn"), -1);
    ck_assert_uint_eq(carc_game_meeple_spots(g, t6, 10, 0, 0), BU_BIT("AT.06", "f1"));
    ck_assert_uint_eq(carc_game_meeple_spots(g, t8, 12, 0, 0),
                      BU_BIT("AT.08", "r1") | BU_BIT("AT.08", "r2") | BU_BIT("AT.08", "f1") |
                          BU_BIT("AT.08", "f2"));
    struct carc_error err = {0};
    ck_assert_int_eq(carc_game_setup_place(g, RED, t6, 10, 0, 0, carc_tiles[t6].nsegs, 0, &err),
                     CARC_E_FEATURE);
    ck_assert_int_eq(carc_game_tile_at(g, 10, 0), 0);
    bu_game_free(g);
}
END_TEST

/* AT.06 at (10,0) and three of its orthogonal BA.B neighbours (N, W, S), the barn tile
 * placed first or (barn_last) after them; player pn's meeple goes on segment seg_n of the
 * N neighbour. The E neighbour (11,0) is the caller's: placed before, the barn placed
 * last completes the barn; placed after, that tile completes it. */
static void barn_ring(struct carc_game *g, int barn_last, const char *seg_n, int pn, int large_n)
{
    if (!barn_last)
        put(g, BLUE, "AT.06", 10, 0, 0, NULL, 0);
    put(g, pn, "BA.B", 10, -1, 0, seg_n, large_n);
    put(g, BLUE, "BA.B", 9, 0, 0, NULL, 0);
    put(g, BLUE, "BA.B", 10, 1, 0, NULL, 0);
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_BARN, 0), 0);
    if (barn_last)
        put(g, BLUE, "AT.06", 10, 0, 0, NULL, 0);
}

START_TEST(barn_single_majority_ten)
{
    struct carc_game *g = bu_game_new(2, AT_SETS);
    barn_ring(g, 0, "cloister", RED, 0);
    put(g, BLUE, "BA.B", 11, 0, 0, NULL, 0); /* fourth neighbour: complete */
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_BARN, 0), 1);
    const struct carc_event *e = bu_ev_nth(g, CARC_EV_BARN, 0, 0);
    ck_assert_int_eq(e->flags & CARC_EVF_TITHE, 0);
    ck_assert_int_eq(e->tiles, 5);
    ck_assert_int_eq(e->farms, 1);
    ck_assert_int_eq(e->delta[RED], 10);
    ck_assert_int_eq(e->delta[BLUE], 0);
    ck_assert_int_eq(e->returned[RED], 0);
    ck_assert_int_eq(g->players[RED].score, 10);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES - 1); /* the monk stays */
    ck_assert_int_ne(bu_meeple_on(g, 10, -1, "cloister"), 0);
    put(g, BLUE, "BA.B", 12, 0, 0, NULL, 0); /* scored once only */
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_BARN, 0), 0);
    ck_assert_int_eq(g->players[RED].score, 10);
    carc_game_finish(g);
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_BARN, 0), 0);
    bu_game_free(g);
}
END_TEST

/* Red's farmer on the barn tile itself is in the barn's farm: +10 +4. */
START_TEST(barn_majority_with_farm_fourteen)
{
    struct carc_game *g = bu_game_new(2, AT_SETS);
    put(g, RED, "AT.06", 10, 0, 0, "f1", 0);
    put(g, BLUE, "BA.B", 10, -1, 0, NULL, 0);
    put(g, BLUE, "BA.B", 9, 0, 0, NULL, 0);
    put(g, BLUE, "BA.B", 10, 1, 0, NULL, 0);
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_BARN, 0), 0);
    put(g, BLUE, "BA.B", 11, 0, 0, NULL, 0);
    const struct carc_event *e = bu_ev_nth(g, CARC_EV_BARN, 0, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->flags & CARC_EVF_TITHE, 0);
    ck_assert_int_eq(e->delta[RED], 14);
    ck_assert_int_eq(e->delta[BLUE], 0);
    ck_assert_int_eq(g->players[RED].score, 14);
    ck_assert_int_ne(bu_meeple_on(g, 10, 0, "f1"), 0);
    bu_game_free(g);
}
END_TEST

/* Nobody on the five tiles; Blue's farmer outside controls the barn's farm: -14. */
START_TEST(barn_no_followers_tithe)
{
    struct carc_game *g = bu_game_new(2, AT_SETS);
    put(g, BLUE, "BA.B", 12, 0, 0, "f1", 0);
    barn_ring(g, 0, NULL, BLUE, 0);
    put(g, RED, "BA.B", 11, 0, 0, NULL, 0);
    const struct carc_event *e = bu_ev_nth(g, CARC_EV_BARN, 0, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_ne(e->flags & CARC_EVF_TITHE, 0);
    ck_assert_int_eq(e->farms, 1);
    ck_assert_int_eq(e->delta[BLUE], -14);
    ck_assert_int_eq(e->delta[RED], 0);
    ck_assert_int_eq(g->players[BLUE].score, -14);
    ck_assert_int_eq(g->players[RED].score, 0);
    ck_assert_int_eq(g->players[BLUE].meeples, CARC_MEEPLES - 1);
    bu_game_free(g);
}
END_TEST

/* One monk each on the five tiles (tie); one farmer each outside (both control): -14 each. */
START_TEST(barn_tie_tithe_both_controllers)
{
    struct carc_game *g = bu_game_new(2, AT_SETS);
    put(g, RED, "BA.B", 12, 0, 0, "f1", 0);
    put(g, BLUE, "BA.B", 8, 0, 0, "f1", 0);
    put(g, BLUE, "BA.B", 11, 0, 0, "cloister", 0);
    barn_ring(g, 1, "cloister", RED, 0);
    const struct carc_event *e = bu_ev_nth(g, CARC_EV_BARN, 0, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_ne(e->flags & CARC_EVF_TITHE, 0);
    ck_assert_int_eq(e->delta[RED], -14);
    ck_assert_int_eq(e->delta[BLUE], -14);
    ck_assert_int_eq(g->players[RED].score, -14);
    ck_assert_int_eq(g->players[BLUE].score, -14);
    bu_game_free(g);
}
END_TEST

/* AT.08 lies in two farms; Red controls both from outside the area: -28. */
START_TEST(barn_tithe_two_farms)
{
    struct carc_game *g = bu_game_new(2, AT_SETS);
    put(g, RED, "BA.B", 10, -2, 0, "f1", 0);
    put(g, RED, "BA.B", 10, 2, 0, "f1", 0);
    put(g, BLUE, "AT.08", 10, 0, 0, NULL, 0);
    put(g, BLUE, "BA.B", 10, -1, 0, NULL, 0);
    put(g, BLUE, "BA.B", 10, 1, 0, NULL, 0);
    put(g, BLUE, "BA.U", 9, 0, 0, NULL, 0);
    ck_assert_int_ne(bu_root(g, 10, 0, "f1"), bu_root(g, 10, 0, "f2"));
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_BARN, 0), 0);
    put(g, BLUE, "BA.U", 11, 0, 0, NULL, 0);
    const struct carc_event *e = bu_ev_nth(g, CARC_EV_BARN, 0, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_ne(e->flags & CARC_EVF_TITHE, 0);
    ck_assert_int_eq(e->farms, 2);
    ck_assert_int_eq(e->delta[RED], -28);
    ck_assert_int_eq(e->delta[BLUE], 0);
    ck_assert_int_eq(g->players[RED].score, -28);
    bu_game_free(g);
}
END_TEST

/* A large monk (2) beats Blue's monk (1); counted as 1 it would be a tie (tithe, no farmers). */
START_TEST(barn_large_counts_two)
{
    struct carc_game *g = bu_game_new(2, AT_SETS | BU_IC);
    put(g, BLUE, "BA.B", 11, 0, 0, "cloister", 0);
    barn_ring(g, 1, "cloister", RED, 1);
    const struct carc_event *e = bu_ev_nth(g, CARC_EV_BARN, 0, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->flags & CARC_EVF_TITHE, 0);
    ck_assert_int_eq(e->delta[RED], 10);
    ck_assert_int_eq(g->players[RED].score, 10);
    ck_assert_int_eq(g->players[RED].large, 0);
    bu_game_free(g);
}
END_TEST

START_TEST(barn_open_at_end_scores_nothing)
{
    struct carc_game *g = bu_game_new(2, AT_SETS);
    put(g, RED, "AT.06", 10, 0, 0, "f1", 0);
    put(g, BLUE, "BA.B", 10, -1, 0, "cloister", 0);
    put(g, BLUE, "BA.B", 11, 0, 0, NULL, 0);
    put(g, BLUE, "BA.B", 9, 0, 0, NULL, 0);
    carc_game_finish(g);
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_BARN, 0), 0);
    ck_assert_int_eq(g->players[RED].score, 0);
    ck_assert_int_eq(g->players[BLUE].score, 1 + 3); /* the monk: itself + 3 neighbours */
    bu_game_free(g);
}
END_TEST

Suite *suite_tithes(void)
{
    Suite *s = suite_create("tithes");
    TCase *tc = tcase_create("apothecaries_tithes");
    tcase_add_test(tc, apothecary_single_majority);
    tcase_add_test(tc, apothecary_tie_herbs_to_completer);
    tcase_add_test(tc, apothecary_herbs_run_out);
    tcase_add_test(tc, apothecary_open_at_end_no_bonus);
    tcase_add_test(tc, barn_is_not_a_meeple_spot);
    tcase_add_test(tc, barn_single_majority_ten);
    tcase_add_test(tc, barn_majority_with_farm_fourteen);
    tcase_add_test(tc, barn_no_followers_tithe);
    tcase_add_test(tc, barn_tie_tithe_both_controllers);
    tcase_add_test(tc, barn_tithe_two_farms);
    tcase_add_test(tc, barn_large_counts_two);
    tcase_add_test(tc, barn_open_at_end_scores_nothing);
    suite_add_tcase(s, tc);
    return s;
}
