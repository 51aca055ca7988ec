/* test_score.c: base-game scoring (RULES.md section 2) and worked examples X07, X08, X10.
 *
 * Boards are built with carc_game_setup_place (board_util.h) at x >= 9 so that the
 * start tile BA.D at (0,0) and its neighbours stay clear; worked examples are the
 * RULES.md layouts shifted by +10 in x. Players: RED = 0, BLUE = 1. */
#include <stdlib.h>
#include <string.h>

#include "board_util.h"
#include "tests.h"

enum { RED = 0, BLUE = 1 };
#define RB (1u << RED)
#define BB (1u << BLUE)

/* --- during the game -------------------------------------------------------------------- */

START_TEST(road_completed_one_per_tile)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.W", 10, 0, 0, NULL, 0);
    put(g, RED, "BA.U", 11, 0, 0, "r1", 0);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES - 1);
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_SCORE, 0), 0);
    put(g, BLUE, "BA.W", 12, 0, 0, NULL, 0); /* closes the east end: scored for Red */
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_SCORE, CARC_SEG_ROAD), 1);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "r1");
    BU_EV_CHECK(e, CARC_SEG_ROAD, 3, 0, 3, RB);
    ck_assert_int_eq(e->flags & CARC_EVF_FINAL, 0);
    ck_assert_int_eq(e->delta[RED], 3);
    ck_assert_int_eq(e->delta[BLUE], 0);
    ck_assert_int_eq(e->returned[RED], 1);
    ck_assert_int_eq(e->returned[BLUE], 0);
    ck_assert_int_eq(g->players[RED].score, 3);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    ck_assert_int_eq(bu_meeple_on(g, 11, 0, "r1"), 0);
    bu_game_free(g);
}
END_TEST

START_TEST(city_completed_two_per_tile_and_pennant)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.E", 10, 0, 90, "c1", 0);   /* cap on E */
    put(g, BLUE, "BA.F", 11, 0, 0, NULL, 0);   /* band W-E, pennant */
    put(g, BLUE, "BA.M", 12, 0, 270, NULL, 0); /* corner W+S, pennant */
    ck_assert_int_eq(g->players[RED].score, 0);
    put(g, BLUE, "BA.E", 12, 1, 0, NULL, 0); /* cap on N closes it */
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 4, 2, 12, RB);
    ck_assert_int_eq(e->delta[RED], 12);
    ck_assert_int_eq(e->returned[RED], 1);
    ck_assert_int_eq(g->players[RED].score, 12);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    bu_game_free(g);
}
END_TEST

/* BA.H's two caps joined into one ring city: the H tile counts once (6 tiles, not 7). */
START_TEST(city_ring_counts_tile_once)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.H", 10, 0, 0, "c1", 0);
    put(g, BLUE, "BA.N", 10, -1, 180, NULL, 0); /* city S+E */
    put(g, BLUE, "BA.N", 11, -1, 270, NULL, 0); /* city W+S */
    put(g, BLUE, "BA.G", 11, 0, 90, NULL, 0);   /* city N-S */
    put(g, BLUE, "BA.N", 11, 1, 0, NULL, 0);    /* city N+W */
    ck_assert_int_ne(bu_root(g, 10, 0, "c1"), bu_root(g, 10, 0, "c2"));
    ck_assert_int_eq(g->players[RED].score, 0);
    put(g, BLUE, "BA.N", 10, 1, 90, NULL, 0); /* city E+N: joins the S cap, closes the ring */
    ck_assert_int_eq(bu_root(g, 10, 0, "c1"), bu_root(g, 10, 0, "c2"));
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c2");
    BU_EV_CHECK(e, CARC_SEG_CITY, 6, 0, 12, RB);
    ck_assert_int_eq(g->players[RED].score, 12);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    bu_game_free(g);
}
END_TEST

/* IC.17 carries two separate road curves; joined elsewhere, the road crosses the tile
 * twice and the tile counts once (6 tiles, not 7). */
START_TEST(road_through_tile_twice_counts_once)
{
    struct carc_game *g = bu_game_new(2, BU_BASE | BU_IC);
    put(g, RED, "IC.17", 10, 0, 0, "r1", 0);    /* r1 N-W, r2 E-S */
    put(g, BLUE, "BA.V", 10, -1, 270, NULL, 0); /* E-S */
    put(g, BLUE, "BA.V", 11, -1, 0, NULL, 0);   /* W-S */
    put(g, BLUE, "BA.V", 11, 0, 90, NULL, 0);   /* N-W: joins r1 and r2 */
    ck_assert_int_eq(bu_root(g, 10, 0, "r1"), bu_root(g, 10, 0, "r2"));
    put(g, BLUE, "BA.W", 9, 0, 0, NULL, 0); /* closes the W end */
    ck_assert_int_eq(g->players[RED].score, 0);
    put(g, BLUE, "BA.W", 10, 1, 180, NULL, 0); /* closes the S end */
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "r2");
    BU_EV_CHECK(e, CARC_SEG_ROAD, 6, 0, 6, RB);
    ck_assert_int_eq(g->players[RED].score, 6);
    bu_game_free(g);
}
END_TEST

START_TEST(road_loop_is_complete)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.V", 10, 0, 270, "r1", 0);  /* E-S */
    put(g, BLUE, "BA.V", 11, 0, 0, NULL, 0);   /* W-S */
    put(g, BLUE, "BA.V", 10, 1, 180, NULL, 0); /* N-E */
    ck_assert_int_eq(g->players[RED].score, 0);
    put(g, BLUE, "BA.V", 11, 1, 90, NULL, 0); /* N-W closes the loop */
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "r1");
    BU_EV_CHECK(e, CARC_SEG_ROAD, 4, 0, 4, RB);
    ck_assert_int_eq(g->players[RED].score, 4);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    bu_game_free(g);
}
END_TEST

START_TEST(cloister_nine_and_monk_back)
{
    static const int around[8][2] = {{-1, -1}, {0, -1}, {1, -1}, {1, 0},
                                     {1, 1},   {0, 1},  {-1, 1}, {-1, 0}};
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.B", 10, 0, 0, "cloister", 0);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES - 1);
    for (int i = 0; i < 8; i++) {
        ck_assert_int_eq(g->players[RED].score, 0);
        put(g, BLUE, "BA.B", 10 + around[i][0], around[i][1], 0, NULL, 0);
    }
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "cloister");
    ck_assert_int_eq(e->kind, CARC_SEG_CLOISTER);
    ck_assert_int_eq(e->points, 9);
    ck_assert_int_eq(e->scorers, RB);
    ck_assert_int_eq(e->returned[RED], 1);
    ck_assert_int_eq(g->players[RED].score, 9);
    ck_assert_int_eq(g->players[BLUE].score, 0); /* the empty cloisters around score nothing */
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    ck_assert_int_eq(bu_meeple_on(g, 10, 0, "cloister"), 0);
    bu_game_free(g);
}
END_TEST

/* Explicit decks may repeat tiles: a cloister placed after 32 others still scores. */
START_TEST(cloister_scores_after_many_cloisters)
{
    /* A short deck: 50 setup tiles, most of them apart, leave the frontier no room
     * for a full deck to come (carc_game_setup_place, game.h). */
    struct carc_game *g = bu_game_deck(2, 0, 0, CARC_ESCAPE_SIEGE_TILE, "BA.U BA.U");
    for (int i = 0; i < 40; i++)
        put(g, BLUE, "BA.B", -36 + 3 * (i % 10), -36 + 3 * (i / 10), 0, NULL, 0);
    put(g, RED, "BA.B", 20, 20, 0, "cloister", 0);
    for (int i = 0; i < 9; i++)
        if (i != 4)
            put(g, BLUE, "BA.B", 19 + i % 3, 19 + i / 3, 0, NULL, 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 20, 20, "cloister");
    ck_assert_int_eq(e->points, 9);
    ck_assert_int_eq(g->players[RED].score, 9);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    bu_game_free(g);
}
END_TEST

/* An empty supply: no meeple can be placed, not even one that comes back this turn;
 * the returned meeple is usable on the next placement. */
START_TEST(meeple_back_is_reusable_next_turn)
{
    struct carc_game *g = bu_game_new(2, 0);
    for (int i = 0; i < CARC_MEEPLES; i++)
        put(g, RED, "BA.E", 10 + 2 * i, 0, 0, "c1", 0);
    ck_assert_int_eq(g->players[RED].meeples, 0);
    ck_assert_int_eq(bu_put_rc(g, RED, "BA.E", 10, 5, 0, "c1", 0), CARC_E_NO_MEEPLE);
    /* completes Red's city at (10,0): the knight comes back only after placement */
    ck_assert_int_eq(bu_put_rc(g, RED, "BA.E", 10, -1, 180, "f1", 0), CARC_E_NO_MEEPLE);
    ck_assert_int_eq(g->players[RED].score, 0);
    put(g, RED, "BA.E", 10, -1, 180, NULL, 0);
    ck_assert_int_eq(g->players[RED].score, 4);
    ck_assert_int_eq(g->players[RED].meeples, 1);
    put(g, RED, "BA.E", 10, 5, 0, "c1", 0);
    ck_assert_int_eq(g->players[RED].meeples, 0);
    bu_game_free(g);
}
END_TEST

START_TEST(meeple_back_is_reusable_in_play)
{
    struct carc_game *g = bu_game_deck(2, 0, 0, 0, "BA.U BA.W BA.W BA.U BA.U");
    ck_assert_int_eq(g->current, RED);
    play(g, 1, 0, 0, "r1", 0); /* extends the start road */
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES - 1);
    ck_assert_int_eq(g->current, BLUE);
    play(g, 2, 0, 0, NULL, 0); /* BA.W closes the east end */
    ck_assert_int_eq(g->players[RED].score, 0);
    play(g, -1, 0, 0, NULL, 0); /* BA.W closes the west end: 4 tiles */
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 0, 0, "r1");
    BU_EV_CHECK(e, CARC_SEG_ROAD, 4, 0, 4, RB);
    ck_assert_int_eq(e->returned[RED], 1);
    ck_assert_int_eq(g->players[RED].score, 4);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    play(g, 3, 0, 0, NULL, 0);
    ck_assert_int_eq(g->current, RED);
    play(g, -2, 0, 0, "r1", 0); /* the meeple is used again; last tile: game over */
    ck_assert_int_eq(g->phase, CARC_PHASE_OVER);
    ck_assert_int_eq(g->players[RED].meeples + bu_board_meeples(g, RED, 0), CARC_MEEPLES);
    /* final: the open road (-2,0)-(-1,0) gives Red 2 */
    ck_assert_int_eq(g->players[RED].score, 6);
    bu_game_free(g);
}
END_TEST

START_TEST(one_tile_completes_city_and_road)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.E", 11, -1, 180, "c1", 0); /* cap on S */
    put(g, BLUE, "BA.W", 10, 0, 0, "r1", 0);   /* junction, r1 goes E */
    put(g, BLUE, "BA.W", 12, 0, 0, NULL, 0);   /* junction, r3 goes W */
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_SCORE, 0), 0);
    put(g, RED, "BA.D", 11, 0, 0, NULL, 0); /* city N, road W-E: both close */
    const struct carc_event *c = ev_at(g, CARC_EV_SCORE, 11, -1, "c1");
    BU_EV_CHECK(c, CARC_SEG_CITY, 2, 0, 4, RB);
    const struct carc_event *r = ev_at(g, CARC_EV_SCORE, 10, 0, "r1");
    BU_EV_CHECK(r, CARC_SEG_ROAD, 3, 0, 3, BB);
    ck_assert_int_eq(g->players[RED].score, 4);
    ck_assert_int_eq(g->players[BLUE].score, 3);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    ck_assert_int_eq(g->players[BLUE].meeples, CARC_MEEPLES);
    bu_game_free(g);
}
END_TEST

START_TEST(majority_larger_wins)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.E", 10, 0, 90, "c1", 0);
    put(g, BLUE, "BA.E", 12, 0, 270, "c1", 0);
    put(g, RED, "BA.E", 11, -1, 180, "c1", 0);
    put(g, BLUE, "BA.R", 11, 0, 0, NULL, 0); /* city N, E, W joins all three caps */
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 4, 0, 8, RB);
    ck_assert_int_eq(e->delta[RED], 8);
    ck_assert_int_eq(e->delta[BLUE], 0);
    ck_assert_int_eq(e->returned[RED], 2);
    ck_assert_int_eq(e->returned[BLUE], 1);
    ck_assert_int_eq(g->players[RED].score, 8);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    ck_assert_int_eq(g->players[BLUE].meeples, CARC_MEEPLES);
    bu_game_free(g);
}
END_TEST

START_TEST(unoccupied_feature_scores_nothing)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.E", 10, 0, 90, NULL, 0);
    put(g, BLUE, "BA.E", 12, 0, 270, NULL, 0);
    put(g, RED, "BA.F", 11, 0, 0, NULL, 0); /* closes an empty city */
    for (int i = 0; i < g->nevents; i++) {
        ck_assert_int_eq(g->events[i].scorers, 0);
        ck_assert_int_eq(g->events[i].delta[RED], 0);
        ck_assert_int_eq(g->events[i].delta[BLUE], 0);
    }
    carc_game_finish(g);
    ck_assert_int_eq(g->players[RED].score, 0);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    bu_game_free(g);
}
END_TEST

START_TEST(meeple_on_feature_completed_by_same_tile)
{
    struct carc_game *g = bu_game_new(2, 0);
    int f = bu_tile("BA.F");
    put(g, BLUE, "BA.E", 10, 0, 90, NULL, 0);
    put(g, BLUE, "BA.E", 12, 0, 270, NULL, 0);
    ck_assert_uint_ne(carc_game_meeple_spots(g, f, 11, 0, 0) & BU_BIT("BA.F", "c1"), 0);
    put(g, RED, "BA.F", 11, 0, 0, "c1", 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 3, 1, 8, RB);
    ck_assert_int_eq(e->returned[RED], 1);
    ck_assert_int_eq(g->players[RED].score, 8);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    ck_assert_int_eq(bu_meeple_on(g, 11, 0, "c1"), 0);
    bu_game_free(g);
}
END_TEST

START_TEST(meeple_not_on_occupied_feature)
{
    struct carc_game *g = bu_game_deck(2, 0, 0, 0, "BA.U BA.U BA.U");
    struct carc_game *copy = malloc(sizeof *copy);
    ck_assert_ptr_nonnull(copy);
    int u = bu_tile("BA.U");
    play(g, 1, 0, 0, "r1", 0); /* Red thief on the start road */
    unsigned spots = carc_game_meeple_spots(g, u, 2, 0, 0);
    ck_assert_uint_eq(spots & BU_BIT("BA.U", "r1"), 0);
    ck_assert_uint_ne(spots & BU_BIT("BA.U", "f1"), 0);
    ck_assert_uint_ne(spots & BU_BIT("BA.U", "f2"), 0);
    memcpy(copy, g, sizeof *g);
    ck_assert_int_eq(bu_play_rc(g, 2, 0, 0, "r1", 0), CARC_E_OCCUPIED); /* Blue */
    ck_assert(bu_game_same(g, copy));
    ck_assert_int_eq(bu_put_rc(g, BLUE, "BA.U", 2, 0, 0, "r1", 0), CARC_E_OCCUPIED);
    ck_assert(bu_game_same(g, copy));
    play(g, 2, 0, 0, "f1", 0);
    ck_assert_int_eq(g->current, RED);
    ck_assert_int_eq(bu_play_rc(g, 3, 0, 0, "r1", 0), CARC_E_OCCUPIED); /* own thief too */
    ck_assert_int_eq(bu_play_rc(g, 3, 0, 0, "f1", 0), CARC_E_OCCUPIED); /* Blue's farmer */
    play(g, 3, 0, 0, "f2", 0);
    bu_game_free(copy);
    bu_game_free(g);
}
END_TEST

/* A farm X (cloisters N and NE, BA.A whose field wraps its road end, E) touches both
 * fields of a BA.U placed at (10,0); Blue's farmer stands south of it. The north field
 * f1 faces only X, yet after placement it is one farm with Blue's farmer: occupied. */
START_TEST(meeple_not_on_field_occupied_through_other_segment)
{
    struct carc_game *g = bu_game_new(2, 0);
    int u = bu_tile("BA.U");
    put(g, BLUE, "BA.B", 10, -1, 0, NULL, 0);
    put(g, BLUE, "BA.B", 11, -1, 0, NULL, 0);
    put(g, BLUE, "BA.A", 11, 0, 90, NULL, 0); /* road end on W, one field all round */
    put(g, BLUE, "BA.B", 10, 1, 0, "f1", 0);
    ck_assert_int_ne(bu_root(g, 11, 0, "f1"), bu_root(g, 10, 1, "f1"));
    unsigned spots = carc_game_meeple_spots(g, u, 10, 0, 0);
    ck_assert_uint_eq(spots & BU_BIT("BA.U", "f2"), 0);
    ck_assert_uint_eq(spots & BU_BIT("BA.U", "f1"), 0);
    ck_assert_int_eq(bu_put_rc(g, RED, "BA.U", 10, 0, 0, "f1", 0), CARC_E_OCCUPIED);
    put(g, RED, "BA.U", 10, 0, 0, NULL, 0);
    ck_assert_int_eq(bu_root(g, 10, 0, "f1"), bu_root(g, 10, 1, "f1"));
    bu_game_free(g);
}
END_TEST

/* Same with roads: an empty road X joins IC.17's two curves; Blue's thief is on the road
 * south of it. r1 faces only X but ends up in Blue's road. */
START_TEST(meeple_not_on_road_occupied_through_other_segment)
{
    struct carc_game *g = bu_game_new(2, BU_BASE | BU_IC);
    int t = bu_tile("IC.17");
    put(g, BLUE, "BA.V", 10, -1, 270, NULL, 0); /* E-S */
    put(g, BLUE, "BA.V", 11, -1, 0, NULL, 0);   /* W-S */
    put(g, BLUE, "BA.V", 11, 0, 90, NULL, 0);   /* N-W */
    put(g, BLUE, "BA.U", 10, 1, 90, "r1", 0);   /* N-S */
    unsigned spots = carc_game_meeple_spots(g, t, 10, 0, 0);
    ck_assert_uint_eq(spots & BU_BIT("IC.17", "r2"), 0);
    ck_assert_uint_eq(spots & BU_BIT("IC.17", "r1"), 0);
    ck_assert_int_eq(bu_put_rc(g, RED, "IC.17", 10, 0, 0, "r1", 0), CARC_E_OCCUPIED);
    put(g, RED, "IC.17", 10, 0, 0, NULL, 0);
    ck_assert_int_eq(bu_root(g, 10, 0, "r1"), bu_root(g, 10, 1, "r1"));
    bu_game_free(g);
}
END_TEST

/* X07 (RULES.md 7), shifted +10 in x: two knights joined by the last tile, tie. */
START_TEST(x07_joined_knights_tie)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, BLUE, "BA.E", 10, 0, 90, "c1", 0);
    put(g, RED, "BA.G", 11, 0, 0, NULL, 0);
    put(g, RED, "BA.E", 13, 0, 270, "c1", 0);
    ck_assert_int_ne(bu_root(g, 10, 0, "c1"), bu_root(g, 13, 0, "c1"));
    put(g, RED, "BA.F", 12, 0, 0, NULL, 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 13, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 4, 1, 10, RB | BB);
    ck_assert_int_eq(e->delta[RED], 10);
    ck_assert_int_eq(e->delta[BLUE], 10);
    ck_assert_int_eq(e->returned[RED], 1);
    ck_assert_int_eq(e->returned[BLUE], 1);
    ck_assert_int_eq(g->players[RED].score, 10);
    ck_assert_int_eq(g->players[BLUE].score, 10);
    bu_game_free(g);
}
END_TEST

/* X08 (RULES.md 7), shifted +10 in x: monk 9, thief 8 on the ring, farms 0. */
START_TEST(x08_cloister_in_ring)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, BLUE, "BA.U", 10, -1, 0, "r1", 0);
    put(g, RED, "BA.U", 9, 0, 90, "f1", 0);  /* farmer inside the ring */
    put(g, BLUE, "BA.U", 10, 1, 0, "f2", 0); /* farmer outside the ring */
    put(g, RED, "BA.V", 9, -1, 270, NULL, 0);
    put(g, RED, "BA.V", 11, -1, 0, NULL, 0);
    put(g, RED, "BA.U", 11, 0, 90, NULL, 0);
    put(g, RED, "BA.V", 9, 1, 180, NULL, 0);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    put(g, RED, "BA.V", 11, 1, 90, NULL, 0); /* closes the ring */
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, -1, "r1");
    BU_EV_CHECK(e, CARC_SEG_ROAD, 8, 0, 8, BB);
    ck_assert_int_eq(g->players[BLUE].score, 8);
    put(g, RED, "BA.B", 10, 0, 0, "cloister", 0);
    e = ev_at(g, CARC_EV_SCORE, 10, 0, "cloister");
    ck_assert_int_eq(e->kind, CARC_SEG_CLOISTER);
    ck_assert_int_eq(e->points, 9);
    ck_assert_int_eq(e->scorers, RB);
    ck_assert_int_eq(g->players[RED].score, 9);
    ck_assert_int_ne(bu_root(g, 9, 0, "f1"), bu_root(g, 10, 1, "f2"));
    ck_assert_int_eq(bu_root(g, 9, 0, "f1"), bu_root(g, 10, 0, "f1"));
    carc_game_finish(g);
    for (int i = 0; i < g->nevents; i++) {
        if (g->events[i].kind != CARC_SEG_FIELD)
            continue;
        ck_assert_int_eq(g->events[i].points, 0);
        ck_assert_int_eq(g->events[i].cities, 0);
    }
    ck_assert_int_eq(g->players[RED].score, 9);
    ck_assert_int_eq(g->players[BLUE].score, 8);
    bu_game_free(g);
}
END_TEST

/* --- end of game ------------------------------------------------------------------------ */

START_TEST(final_road_one_per_tile)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.W", 10, 0, 0, NULL, 0);
    put(g, RED, "BA.U", 11, 0, 0, "r1", 0);
    put(g, RED, "BA.U", 12, 0, 0, NULL, 0);
    carc_game_finish(g);
    ck_assert_int_eq(g->phase, CARC_PHASE_OVER);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 12, 0, "r1");
    BU_EV_CHECK(e, CARC_SEG_ROAD, 3, 0, 3, RB);
    ck_assert_uint_ne(e->flags & CARC_EVF_FINAL, 0);
    ck_assert_int_eq(e->flags & CARC_EVF_VOID, 0);
    ck_assert_int_eq(e->delta[RED], 3);
    ck_assert_int_eq(g->players[RED].score, 3);
    bu_game_free(g);
}
END_TEST

/* X10 (RULES.md 7), shifted +10 in x: 2 tiles + 1 pennant = 3. */
START_TEST(x10_final_city_one_per_tile_and_pennant)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.M", 10, 0, 0, "c1", 0);
    put(g, BLUE, "BA.E", 9, 0, 90, NULL, 0);
    ck_assert_int_eq(g->players[RED].score, 0);
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 2, 1, 3, RB);
    ck_assert_uint_ne(e->flags & CARC_EVF_FINAL, 0);
    ck_assert_int_eq(g->players[RED].score, 3);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    bu_game_free(g);
}
END_TEST

/* Cloister with neighbours N and two diagonals: 1 + 3. */
START_TEST(final_cloister_counts_diagonals)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.B", 10, 0, 0, "cloister", 0);
    put(g, BLUE, "BA.B", 10, -1, 0, NULL, 0);
    put(g, BLUE, "BA.B", 11, 1, 0, NULL, 0);
    put(g, BLUE, "BA.B", 9, 1, 0, NULL, 0);
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "cloister");
    ck_assert_int_eq(e->kind, CARC_SEG_CLOISTER);
    ck_assert_int_eq(e->points, 4);
    ck_assert_int_eq(e->scorers, RB);
    ck_assert_uint_ne(e->flags & CARC_EVF_FINAL, 0);
    ck_assert_int_eq(g->players[RED].score, 4);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    bu_game_free(g);
}
END_TEST

/* Two thieves on separate roads joined later: an open road at the end, tie. */
START_TEST(final_joined_road_two_players)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.U", 10, 0, 0, "r1", 0);
    put(g, BLUE, "BA.U", 12, 0, 0, "r1", 0);
    put(g, RED, "BA.U", 11, 0, 0, NULL, 0);
    ck_assert_int_eq(bu_root(g, 10, 0, "r1"), bu_root(g, 12, 0, "r1"));
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "r1");
    BU_EV_CHECK(e, CARC_SEG_ROAD, 3, 0, 3, RB | BB);
    ck_assert_int_eq(g->players[RED].score, 3);
    ck_assert_int_eq(g->players[BLUE].score, 3);
    bu_game_free(g);
}
END_TEST

/* Farm between the two caps of BA.H, both closed, plus an open city: 2 x 3. */
START_TEST(farm_three_per_completed_city)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.H", 10, 0, 0, "f1", 0);
    put(g, BLUE, "BA.E", 10, -1, 180, NULL, 0);
    put(g, BLUE, "BA.E", 10, 1, 0, NULL, 0);
    put(g, BLUE, "BA.E", 11, 0, 0, NULL, 0); /* its city stays open; its field joins Red's */
    ck_assert_int_eq(bu_root(g, 10, 0, "f1"), bu_root(g, 11, 0, "f1"));
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "f1");
    ck_assert_int_eq(e->kind, CARC_SEG_FIELD);
    ck_assert_int_eq(e->cities, 2);
    ck_assert_int_eq(e->besieged, 0);
    ck_assert_int_eq(e->points, 6);
    ck_assert_int_eq(e->scorers, RB);
    ck_assert_uint_ne(e->flags & CARC_EVF_FINAL, 0);
    ck_assert_int_eq(g->players[RED].score, 6);
    bu_game_free(g);
}
END_TEST

START_TEST(farm_incomplete_city_gives_nothing)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.E", 10, 0, 0, "f1", 0);
    put(g, BLUE, "BA.E", 11, 0, 0, NULL, 0);
    carc_game_finish(g);
    ck_assert_int_eq(g->players[RED].score, 0);
    if (bu_ev_count_at(g, CARC_EV_SCORE, 10, 0, "f1") > 0) {
        const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "f1");
        ck_assert_int_eq(e->cities, 0);
        ck_assert_int_eq(e->points, 0);
    }
    bu_game_free(g);
}
END_TEST

/* A 3-tile city band, with cloisters around it so that one farm touches the city
 * through four segments on three tiles (X11-like): still 3 points. */
START_TEST(farm_counts_city_once)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, BLUE, "BA.E", 10, 0, 90, NULL, 0);
    put(g, RED, "BA.F", 11, 0, 0, "f1", 0);
    put(g, BLUE, "BA.E", 12, 0, 270, NULL, 0);
    for (int x = 10; x <= 12; x++)
        put(g, BLUE, "BA.B", x, -1, 0, NULL, 0);
    put(g, BLUE, "BA.B", 10, 1, 0, NULL, 0);
    put(g, BLUE, "BA.B", 11, 1, 0, NULL, 0);
    ck_assert_int_eq(bu_root(g, 11, 0, "f1"), bu_root(g, 11, 0, "f2"));
    ck_assert_int_eq(bu_root(g, 11, 0, "f1"), bu_root(g, 12, 0, "f1"));
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "f1");
    ck_assert_int_eq(e->kind, CARC_SEG_FIELD);
    ck_assert_int_eq(e->cities, 1);
    ck_assert_int_eq(e->points, 3);
    ck_assert_int_eq(e->scorers, RB);
    ck_assert_int_eq(g->players[RED].score, 3);
    bu_game_free(g);
}
END_TEST

/* One city, two farms (north of the band, around the east cap), each scoring it
 * (X13-like). */
START_TEST(farm_city_counted_by_two_farms)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.F", 11, 0, 0, "f1", 0);
    put(g, BLUE, "BA.E", 10, 0, 90, NULL, 0);
    put(g, BLUE, "BA.E", 12, 0, 270, "f1", 0);
    ck_assert_int_ne(bu_root(g, 11, 0, "f1"), bu_root(g, 11, 0, "f2"));
    ck_assert_int_ne(bu_root(g, 11, 0, "f1"), bu_root(g, 12, 0, "f1"));
    carc_game_finish(g);
    const struct carc_event *n = ev_at(g, CARC_EV_SCORE, 11, 0, "f1");
    ck_assert_int_eq(n->kind, CARC_SEG_FIELD);
    ck_assert_int_eq(n->cities, 1);
    ck_assert_int_eq(n->points, 3);
    ck_assert_int_eq(n->scorers, RB);
    const struct carc_event *s = ev_at(g, CARC_EV_SCORE, 12, 0, "f1");
    ck_assert_int_eq(s->cities, 1);
    ck_assert_int_eq(s->points, 3);
    ck_assert_int_eq(s->scorers, BB);
    ck_assert_int_eq(g->players[RED].score, 3);
    ck_assert_int_eq(g->players[BLUE].score, 3);
    bu_game_free(g);
}
END_TEST

/* Farmers placed apart, joined by the cloisters north of the band. */
static struct carc_game *farm_two_farmers(void)
{
    struct carc_game *g = bu_game_new(2, 0);
    put(g, RED, "BA.E", 10, 0, 90, "f1", 0);
    put(g, BLUE, "BA.F", 11, 0, 0, "f1", 0);
    ck_assert_int_ne(bu_root(g, 10, 0, "f1"), bu_root(g, 11, 0, "f1"));
    return g;
}

START_TEST(farm_tie_both_score)
{
    struct carc_game *g = farm_two_farmers();
    put(g, BLUE, "BA.E", 12, 0, 270, NULL, 0);
    put(g, BLUE, "BA.B", 10, -1, 0, NULL, 0);
    put(g, BLUE, "BA.B", 11, -1, 0, NULL, 0);
    ck_assert_int_eq(bu_root(g, 10, 0, "f1"), bu_root(g, 11, 0, "f1"));
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "f1");
    ck_assert_int_eq(e->cities, 1);
    ck_assert_int_eq(e->points, 3);
    ck_assert_int_eq(e->scorers, RB | BB);
    ck_assert_int_eq(g->players[RED].score, 3);
    ck_assert_int_eq(g->players[BLUE].score, 3);
    bu_game_free(g);
}
END_TEST

START_TEST(farm_majority_wins)
{
    struct carc_game *g = farm_two_farmers();
    put(g, RED, "BA.E", 12, 0, 270, "f1", 0);
    for (int x = 10; x <= 12; x++)
        put(g, BLUE, "BA.B", x, -1, 0, NULL, 0);
    ck_assert_int_eq(bu_root(g, 10, 0, "f1"), bu_root(g, 12, 0, "f1"));
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "f1");
    ck_assert_int_eq(e->cities, 1);
    ck_assert_int_eq(e->points, 3);
    ck_assert_int_eq(e->scorers, RB);
    ck_assert_int_eq(e->delta[BLUE], 0);
    ck_assert_int_eq(g->players[RED].score, 3);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    bu_game_free(g);
}
END_TEST

/* IC.03's enclosed field takes a farmer and touches its four caps. */
START_TEST(farm_enclosed_field)
{
    struct carc_game *g = bu_game_new(2, BU_BASE | BU_IC);
    int t = bu_tile("IC.03");
    ck_assert_uint_ne(carc_game_meeple_spots(g, t, 10, 0, 0) & BU_BIT("IC.03", "f1"), 0);
    put(g, RED, "IC.03", 10, 0, 0, "f1", 0);
    put(g, BLUE, "BA.E", 10, -1, 180, NULL, 0);
    put(g, BLUE, "BA.E", 11, 0, 270, NULL, 0);
    put(g, BLUE, "BA.E", 10, 1, 0, NULL, 0);
    put(g, BLUE, "BA.E", 9, 0, 90, NULL, 0);
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "f1");
    ck_assert_int_eq(e->kind, CARC_SEG_FIELD);
    ck_assert_int_eq(e->cities, 4);
    ck_assert_int_eq(e->points, 12);
    ck_assert_int_eq(e->scorers, RB);
    ck_assert_int_eq(g->players[RED].score, 12);
    bu_game_free(g);
}
END_TEST

START_TEST(empty_supply_still_places)
{
    struct carc_game *g = bu_game_deck(2, 0, 0, 0, "BA.U BA.U BA.U");
    for (int i = 0; i < CARC_MEEPLES; i++)
        put(g, RED, "BA.E", 10 + 2 * i, 10, 0, "c1", 0);
    ck_assert_int_eq(g->players[RED].meeples, 0);
    ck_assert_int_eq(g->current, RED);
    ck_assert_int_gt(carc_game_placements(g, g->tile, NULL, 0), 0);
    ck_assert_int_eq(bu_play_rc(g, 1, 0, 0, "r1", 0), CARC_E_NO_MEEPLE);
    play(g, 1, 0, 0, NULL, 0);
    ck_assert_int_eq(g->current, BLUE);
    ck_assert_int_eq(g->turn, 1);
    play(g, 2, 0, 0, "r1", 0);
    play(g, -1, 0, 0, NULL, 0); /* Red again, still without meeples */
    ck_assert_int_eq(g->phase, CARC_PHASE_OVER);
    bu_game_free(g);
}
END_TEST

START_TEST(farmers_off)
{
    struct carc_game *g = bu_game_deck(2, 0, 1, 0, "BA.U BA.U");
    int e = bu_tile("BA.E");
    ck_assert_uint_eq(carc_game_meeple_spots(g, e, 10, 0, 0), BU_BIT("BA.E", "c1"));
    ck_assert_uint_eq(carc_game_meeple_spots(g, g->tile, 1, 0, 0), BU_BIT("BA.U", "r1"));
    ck_assert_int_eq(bu_put_rc(g, RED, "BA.E", 10, 0, 0, "f1", 0), CARC_E_NO_FARMERS);
    ck_assert_int_eq(bu_play_rc(g, 1, 0, 0, "f1", 0), CARC_E_NO_FARMERS);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    put(g, RED, "BA.E", 10, 0, 0, "c1", 0);
    put(g, BLUE, "BA.E", 10, -1, 180, NULL, 0);
    ck_assert_int_eq(g->players[RED].score, 4);
    carc_game_finish(g);
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_SCORE, CARC_SEG_FIELD), 0);
    ck_assert_int_eq(g->players[RED].score, 4);
    bu_game_free(g);
}
END_TEST

Suite *suite_score(void)
{
    Suite *s = suite_create("score");
    TCase *tc = tcase_create("during");
    tcase_add_test(tc, road_completed_one_per_tile);
    tcase_add_test(tc, city_completed_two_per_tile_and_pennant);
    tcase_add_test(tc, city_ring_counts_tile_once);
    tcase_add_test(tc, road_through_tile_twice_counts_once);
    tcase_add_test(tc, road_loop_is_complete);
    tcase_add_test(tc, cloister_nine_and_monk_back);
    tcase_add_test(tc, cloister_scores_after_many_cloisters);
    tcase_add_test(tc, meeple_back_is_reusable_next_turn);
    tcase_add_test(tc, meeple_back_is_reusable_in_play);
    tcase_add_test(tc, one_tile_completes_city_and_road);
    tcase_add_test(tc, majority_larger_wins);
    tcase_add_test(tc, unoccupied_feature_scores_nothing);
    tcase_add_test(tc, meeple_on_feature_completed_by_same_tile);
    tcase_add_test(tc, meeple_not_on_occupied_feature);
    tcase_add_test(tc, meeple_not_on_field_occupied_through_other_segment);
    tcase_add_test(tc, meeple_not_on_road_occupied_through_other_segment);
    tcase_add_test(tc, x07_joined_knights_tie);
    tcase_add_test(tc, x08_cloister_in_ring);
    suite_add_tcase(s, tc);
    tc = tcase_create("final");
    tcase_add_test(tc, final_road_one_per_tile);
    tcase_add_test(tc, x10_final_city_one_per_tile_and_pennant);
    tcase_add_test(tc, final_cloister_counts_diagonals);
    tcase_add_test(tc, final_joined_road_two_players);
    tcase_add_test(tc, farm_three_per_completed_city);
    tcase_add_test(tc, farm_incomplete_city_gives_nothing);
    tcase_add_test(tc, farm_counts_city_once);
    tcase_add_test(tc, farm_city_counted_by_two_farms);
    tcase_add_test(tc, farm_tie_both_score);
    tcase_add_test(tc, farm_majority_wins);
    tcase_add_test(tc, farm_enclosed_field);
    tcase_add_test(tc, empty_supply_still_places);
    tcase_add_test(tc, farmers_off);
    suite_add_tcase(s, tc);
    return s;
}
