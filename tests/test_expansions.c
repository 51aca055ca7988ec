/* test_expansions.c: Inns & Cathedrals, sieges and escape (RULES.md sections 4
 * and 5, examples X01-X05); test_tithes.c has Apothecaries and Tithes.
 *
 * Boards are built with carc_game_setup_place (board_util.h) at x >= 8, clear of the
 * start tile; worked examples are the RULES.md layouts shifted by +10 in x.
 * Players: RED = 0, BLUE = 1, GREEN = 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_util.h"
#include "tests.h"

enum { RED = 0, BLUE = 1, GREEN = 2 };
#define RB (1u << RED)
#define BB (1u << BLUE)

#define IC_SETS (BU_BASE | BU_IC)
#define SIEGE_SETS (BU_BASE | BU_SET(CATHARS))

/* --- Inns & Cathedrals ------------------------------------------------------------------- */

/* X01: junction, inn, two straights[, junction], Red thief on the inn. */
static struct carc_game *x01(const char *inn_tile, int closed)
{
    struct carc_game *g = bu_game_new(2, IC_SETS);
    put(g, BLUE, "BA.X", 10, 0, 0, NULL, 0);
    put(g, RED, inn_tile, 11, 0, 0, "r1", 0);
    put(g, BLUE, "BA.U", 12, 0, 0, NULL, 0);
    put(g, BLUE, "BA.U", 13, 0, 0, NULL, 0);
    ck_assert_int_eq(g->players[RED].score, 0);
    if (closed)
        put(g, BLUE, "BA.W", 14, 0, 0, NULL, 0);
    return g;
}

START_TEST(x01_inn_road_completed)
{
    struct carc_game *g = x01("IC.15", 1);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "r1");
    BU_EV_CHECK(e, CARC_SEG_ROAD, 5, 0, 10, RB);
    ck_assert_uint_ne(e->flags & CARC_EVF_INN, 0);
    ck_assert_int_eq(e->delta[RED], 10);
    ck_assert_int_eq(g->players[RED].score, 10);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    bu_game_free(g);
}
END_TEST

START_TEST(x01b_inn_road_open_at_end)
{
    struct carc_game *g = x01("IC.15", 0);
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "r1");
    BU_EV_CHECK(e, CARC_SEG_ROAD, 4, 0, 0, e->scorers);
    ck_assert_uint_eq(e->flags & (CARC_EVF_FINAL | CARC_EVF_INN | CARC_EVF_VOID),
                      CARC_EVF_FINAL | CARC_EVF_INN | CARC_EVF_VOID);
    ck_assert_int_eq(e->delta[RED], 0);
    ck_assert_int_eq(g->players[RED].score, 0);
    bu_game_free(g);
}
END_TEST

START_TEST(x01c_plain_road_open_at_end)
{
    struct carc_game *g = x01("BA.U", 0);
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "r1");
    BU_EV_CHECK(e, CARC_SEG_ROAD, 4, 0, 4, RB);
    ck_assert_int_eq(e->flags & (CARC_EVF_INN | CARC_EVF_VOID), 0);
    ck_assert_int_eq(g->players[RED].score, 4);
    bu_game_free(g);
}
END_TEST

/* X02: cathedral centre, two pennant bands, four caps; Red knight on the S cap. */
static struct carc_game *x02(int closed)
{
    struct carc_game *g = bu_game_new(2, IC_SETS);
    put(g, RED, "BA.E", 10, 1, 0, "c1", 0);
    put(g, BLUE, "IC.01", 10, 0, 0, NULL, 0);
    put(g, BLUE, "BA.F", 11, 0, 0, NULL, 0);
    put(g, BLUE, "BA.F", 9, 0, 0, NULL, 0);
    put(g, BLUE, "BA.E", 8, 0, 90, NULL, 0);
    put(g, BLUE, "BA.E", 10, -1, 180, NULL, 0);
    ck_assert_int_eq(g->players[RED].score, 0);
    if (closed)
        put(g, BLUE, "BA.E", 12, 0, 270, NULL, 0);
    return g;
}

START_TEST(x02_cathedral_city_completed)
{
    struct carc_game *g = x02(1);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 1, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 7, 2, 27, RB);
    ck_assert_uint_ne(e->flags & CARC_EVF_CATHEDRAL, 0);
    ck_assert_int_eq(e->flags & CARC_EVF_BESIEGED, 0);
    ck_assert_int_eq(g->players[RED].score, 27);
    bu_game_free(g);
}
END_TEST

START_TEST(x02b_cathedral_city_open_at_end)
{
    struct carc_game *g = x02(0);
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 1, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 6, 2, 0, e->scorers);
    ck_assert_uint_eq(e->flags & (CARC_EVF_FINAL | CARC_EVF_CATHEDRAL | CARC_EVF_VOID),
                      CARC_EVF_FINAL | CARC_EVF_CATHEDRAL | CARC_EVF_VOID);
    ck_assert_int_eq(g->players[RED].score, 0);
    bu_game_free(g);
}
END_TEST

/* X03: large knight (2) against a normal one (1); the large meeple comes back. */
START_TEST(x03_large_meeple_wins)
{
    struct carc_game *g = bu_game_new(2, IC_SETS);
    put(g, RED, "BA.E", 10, 0, 90, "c1", 1);
    ck_assert_int_eq(g->players[RED].large, 0);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    ck_assert_int_eq(bu_meeple_on(g, 10, 0, "c1"), (RED + 1) | CARC_MEEPLE_LARGE);
    ck_assert_int_eq(bu_put_rc(g, RED, "BA.E", 20, 0, 0, "c1", 1), CARC_E_NO_MEEPLE);
    put(g, BLUE, "BA.E", 12, 0, 270, "c1", 0);
    put(g, BLUE, "BA.F", 11, 0, 0, NULL, 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 3, 1, 8, RB);
    ck_assert_int_eq(e->delta[RED], 8);
    ck_assert_int_eq(e->delta[BLUE], 0);
    ck_assert_uint_eq(e->large_back, RB);
    ck_assert_int_eq(e->returned[RED], 1);
    ck_assert_int_eq(e->returned[BLUE], 1);
    ck_assert_int_eq(g->players[RED].score, 8);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    ck_assert_int_eq(g->players[RED].large, 1);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    ck_assert_int_eq(g->players[BLUE].meeples, CARC_MEEPLES);
    put(g, RED, "BA.E", 20, 0, 0, "c1", 1); /* usable again */
    bu_game_free(g);
}
END_TEST

START_TEST(large_meeple_needs_inns_cathedrals)
{
    struct carc_game *g = bu_game_new(2, 0);
    ck_assert_int_eq(g->players[RED].large, 0);
    ck_assert_int_eq(bu_put_rc(g, RED, "BA.E", 10, 0, 0, "c1", 1), CARC_E_LARGE_SET);
    ck_assert_int_eq(carc_game_tile_at(g, 10, 0), 0);
    bu_game_free(g);
}
END_TEST

/* X04: large knight (2) ties two Blue knights (2): 5 tiles + 1 pennant, 12 each. */
START_TEST(x04_large_meeple_ties)
{
    struct carc_game *g = bu_game_new(2, IC_SETS);
    put(g, RED, "BA.E", 8, 0, 90, "c1", 1);
    put(g, RED, "BA.F", 9, 0, 0, NULL, 0);
    put(g, BLUE, "BA.E", 10, -1, 180, "c1", 0);
    put(g, BLUE, "BA.E", 11, 0, 270, "c1", 0);
    put(g, RED, "BA.R", 10, 0, 0, NULL, 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 5, 1, 12, RB | BB);
    ck_assert_uint_eq(e->large_back, RB);
    ck_assert_int_eq(e->returned[RED], 1);
    ck_assert_int_eq(e->returned[BLUE], 2);
    ck_assert_int_eq(g->players[RED].score, 12);
    ck_assert_int_eq(g->players[BLUE].score, 12);
    ck_assert_int_eq(g->players[RED].large, 1);
    bu_game_free(g);
}
END_TEST

/* A large farmer (2) ties two Blue farmers (2); counted as 1 Blue would win alone. */
START_TEST(large_farmer_counts_two)
{
    struct carc_game *g = bu_game_new(2, IC_SETS);
    put(g, RED, "BA.E", 10, 0, 90, "f1", 1);
    put(g, BLUE, "BA.F", 11, 0, 0, "f1", 0);
    put(g, BLUE, "BA.E", 12, 0, 270, "f1", 0);
    for (int x = 10; x <= 12; x++)
        put(g, BLUE, "BA.B", x, -1, 0, NULL, 0);
    ck_assert_int_eq(bu_root(g, 10, 0, "f1"), bu_root(g, 12, 0, "f1"));
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "f1");
    ck_assert_int_eq(e->kind, CARC_SEG_FIELD);
    ck_assert_int_eq(e->cities, 1);
    ck_assert_int_eq(e->points, 3);
    ck_assert_int_eq(e->scorers, RB | BB);
    ck_assert_int_eq(g->players[RED].score, 3);
    ck_assert_int_eq(g->players[BLUE].score, 3);
    bu_game_free(g);
}
END_TEST

/* 6 players, base + I&C, random legal moves to the end (invariants in bu_random_game). */
START_TEST(six_players_random_game)
{
    struct carc_config cfg = {0};
    cfg.nplayers = 6;
    cfg.sets = IC_SETS;
    cfg.start = -1;
    cfg.seed = 1000 + (uint64_t)_i;
    struct carc_game *g = calloc(1, sizeof *g);
    struct carc_error err = {0};
    cfg.sets = BU_BASE; /* a sixth player needs I&C */
    ck_assert_int_eq(carc_game_init(g, &cfg, &err), CARC_E_PLAYERS);
    cfg.sets = IC_SETS;
    ck_assert_int_eq(carc_game_init(g, &cfg, &err), 0);
    int discards, escapes;
    int moves = bu_random_game(g, 77 + (uint64_t)_i, 0, &discards, &escapes);
    ck_assert_int_eq(g->phase, CARC_PHASE_OVER);
    ck_assert_int_eq(g->turn, moves);
    ck_assert_int_eq(g->ntiles, moves + 1);
    ck_assert_int_eq(moves + discards, 71 + 18);
    ck_assert_int_eq(carc_game_tiles_left(g), 0);
    ck_assert_int_eq(g->tile, -1);
    bu_game_free(g);
}
END_TEST

/* Every set, 5 players, random moves and escapes whenever allowed, both escape rules. */
START_TEST(all_sets_random_game)
{
    struct carc_config cfg = {0};
    cfg.nplayers = 5;
    cfg.sets = CARC_SETS_ALL;
    cfg.start = -1;
    cfg.escape_rule = _i & 1;
    cfg.seed = 2000 + (uint64_t)_i;
    struct carc_game *g = bu_game_cfg(&cfg);
    int discards, escapes;
    int moves = bu_random_game(g, 99 + (uint64_t)_i, 1, &discards, &escapes);
    ck_assert_int_eq(moves + discards, 71 + 18 + 6 + 4 + 4 + 12);
    int herbs = g->herbs_left;
    for (int p = 0; p < 5; p++)
        herbs += g->players[p].herbs;
    ck_assert_int_eq(herbs, CARC_HERBS);
    bu_game_free(g);
}
END_TEST

/* --- sieges ----------------------------------------------------------------------------- */

/* X05: besieged 2-tile city closed by Blue's knight (2), Red's farm next to it (6). */
static void x05(const char *cap, int city_points, int farm_points)
{
    struct carc_game *g = bu_game_new(2, SIEGE_SETS);
    put(g, RED, cap, 10, 0, 0, "f1", 0);
    put(g, BLUE, "BA.E", 10, -1, 180, "c1", 0);
    int besieged = strcmp(cap, "BA.E") != 0;
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 2, 0, city_points, BB);
    ck_assert_int_eq((e->flags & CARC_EVF_BESIEGED) != 0, besieged);
    ck_assert_int_eq(g->players[BLUE].score, city_points);
    carc_game_finish(g);
    e = ev_at(g, CARC_EV_SCORE, 10, 0, "f1");
    ck_assert_int_eq(e->kind, CARC_SEG_FIELD);
    ck_assert_int_eq(e->cities, 1);
    ck_assert_int_eq(e->besieged, besieged);
    ck_assert_int_eq(e->points, farm_points);
    ck_assert_int_eq(e->scorers, RB);
    ck_assert_int_eq(g->players[RED].score, farm_points);
    ck_assert_int_eq(g->players[BLUE].score, city_points);
    bu_game_free(g);
}

START_TEST(x05_besieged_city_and_farm)
{
    x05("CA.01", 2, 6);
}
END_TEST

START_TEST(x05b_control_without_siege)
{
    x05("BA.E", 4, 3);
}
END_TEST

START_TEST(besieged_one_per_tile_and_pennant)
{
    struct carc_game *g = bu_game_new(2, SIEGE_SETS);
    put(g, RED, "CA.01", 10, 0, 90, "c1", 0);
    put(g, BLUE, "BA.F", 11, 0, 0, NULL, 0);
    put(g, BLUE, "BA.E", 12, 0, 270, NULL, 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 3, 1, 4, RB);
    ck_assert_uint_ne(e->flags & CARC_EVF_BESIEGED, 0);
    ck_assert_int_eq(g->players[RED].score, 4);
    bu_game_free(g);
}
END_TEST

START_TEST(besieged_with_cathedral)
{
    struct carc_game *g = bu_game_new(2, IC_SETS | SIEGE_SETS);
    put(g, RED, "IC.01", 10, 0, 0, "c1", 0);
    put(g, BLUE, "CA.01", 10, -1, 180, NULL, 0);
    put(g, BLUE, "BA.F", 11, 0, 0, NULL, 0);
    put(g, BLUE, "BA.E", 12, 0, 270, NULL, 0);
    put(g, BLUE, "BA.E", 10, 1, 0, NULL, 0);
    ck_assert_int_eq(g->players[RED].score, 0);
    put(g, BLUE, "BA.E", 9, 0, 90, NULL, 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 6, 1, 14, RB);
    ck_assert_uint_eq(e->flags & (CARC_EVF_BESIEGED | CARC_EVF_CATHEDRAL),
                      CARC_EVF_BESIEGED | CARC_EVF_CATHEDRAL);
    ck_assert_int_eq(g->players[RED].score, 14);
    bu_game_free(g);
}
END_TEST

START_TEST(besieged_open_at_end_is_void)
{
    struct carc_game *g = bu_game_new(2, SIEGE_SETS);
    put(g, RED, "CA.01", 10, 0, 90, "c1", 0);
    put(g, BLUE, "BA.F", 11, 0, 0, NULL, 0);
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c1");
    BU_EV_CHECK(e, CARC_SEG_CITY, 2, 1, 0, e->scorers);
    ck_assert_uint_eq(e->flags & (CARC_EVF_FINAL | CARC_EVF_BESIEGED | CARC_EVF_VOID),
                      CARC_EVF_FINAL | CARC_EVF_BESIEGED | CARC_EVF_VOID);
    ck_assert_int_eq(g->players[RED].score, 0);
    bu_game_free(g);
}
END_TEST

/* --- escape ----------------------------------------------------------------------------- */

/* A game whose draw pile is `first` then a BA.U (so the game is not over after one move). */
static struct carc_game *esc_game(int rule, const char *first)
{
    char deck[32];
    snprintf(deck, sizeof deck, "%s BA.U", first);
    return bu_game_deck(2, SIEGE_SETS | BU_IC, 0, rule, deck);
}

/* Red's large knight in a besieged cap; Red places a cloister diagonal to the siege tile this
 * very turn and escapes: knight back, nothing scored, not even when the city closes. */
START_TEST(escape_next_to_siege_tile)
{
    struct carc_game *g = esc_game(CARC_ESCAPE_SIEGE_TILE, "BA.B");
    put(g, RED, "CA.01", 10, 0, 0, "c1", 1); /* the large knight */
    put(g, BLUE, "BA.E", 10, 1, 180, NULL, 0);
    ck_assert_int_eq(g->players[RED].large, 0);
    ck_assert_int_eq(g->current, RED);
    struct carc_move m = bu_escape_move(g, 11, 1, 0, 10, 0, bu_seg("CA.01", "c1"));
    struct carc_error err = {0};
    ck_assert_int_eq(carc_game_escape_check(g, &m, &err), 0);
    ck_assert_int_eq(carc_game_play(g, &m, &err), 0);
    ck_assert_int_eq(g->players[RED].large, 1);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    ck_assert_int_eq(bu_meeple_on(g, 10, 0, "c1"), 0);
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_ESCAPE, 0), 1);
    const struct carc_event *e = bu_ev_nth(g, CARC_EV_ESCAPE, 0, 0);
    ck_assert_int_eq(e->x, 10);
    ck_assert_int_eq(e->y, 0);
    ck_assert_int_eq(e->seg, bu_seg("CA.01", "c1"));
    ck_assert_int_eq(e->returned[RED], 1);
    ck_assert_uint_eq(e->large_back, RB);
    ck_assert_int_eq(e->delta[RED], 0);
    ck_assert_int_eq(g->players[RED].score, 0);
    ck_assert_int_eq(g->current, BLUE);
    put(g, BLUE, "BA.E", 10, -1, 180, NULL, 0); /* closes the city: nobody in it */
    ck_assert_int_eq(g->players[RED].score, 0);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    bu_game_free(g);
}
END_TEST

/* An escape is an action at the end of the turn, not instead of the meeple (RULES.md 5;
 * PROTOCOL.md "play"): the same move may also put a meeple on the cloister it places. */
START_TEST(escape_with_a_meeple)
{
    struct carc_game *g = esc_game(CARC_ESCAPE_SIEGE_TILE, "BA.B");
    put(g, RED, "CA.01", 10, 0, 0, "c1", 1);
    put(g, BLUE, "BA.E", 10, 1, 180, NULL, 0);
    struct carc_move m = bu_escape_move(g, 11, 1, 0, 10, 0, bu_seg("CA.01", "c1"));
    m.seg = bu_seg("BA.B", "cloister");
    struct carc_error err = {0};
    ck_assert_int_eq(carc_game_play(g, &m, &err), 0);
    ck_assert_int_eq(g->players[RED].large, 1);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES - 1);
    ck_assert_int_eq(bu_meeple_on(g, 11, 1, "cloister"), 1 + RED);
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_ESCAPE, 0), 1);
    bu_game_free(g);
}
END_TEST

/* Red's knight on a band joined to a siege cap; the cloister is diagonal to the band
 * (not to the siege tile): only the any-tile rule allows the escape. */
static struct carc_game *esc_any_board(int rule)
{
    struct carc_game *g = esc_game(rule, "BA.U");
    put(g, BLUE, "CA.01", 10, 0, 90, NULL, 0);
    put(g, RED, "BA.F", 11, 0, 0, "c1", 0);
    put(g, BLUE, "BA.E", 11, 1, 180, NULL, 0);
    put(g, BLUE, "BA.B", 12, 1, 0, NULL, 0);
    return g;
}

START_TEST(escape_any_tile_rule)
{
    int c1 = bu_seg("BA.F", "c1");
    struct carc_game *g = esc_any_board(CARC_ESCAPE_SIEGE_TILE);
    struct carc_move m = bu_escape_move(g, 1, 0, 0, 11, 0, c1);
    bu_escape_refused(g, &m);
    bu_game_free(g);

    g = esc_any_board(CARC_ESCAPE_ANY_TILE);
    m = bu_escape_move(g, 1, 0, 0, 11, 0, c1);
    struct carc_error err = {0};
    ck_assert_int_eq(carc_game_escape_check(g, &m, &err), 0);
    ck_assert_int_eq(carc_game_play(g, &m, &err), 0);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    ck_assert_int_eq(bu_meeple_on(g, 11, 0, "c1"), 0);
    const struct carc_event *e = bu_ev_nth(g, CARC_EV_ESCAPE, 0, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->x, 11);
    ck_assert_int_eq(e->y, 0);
    ck_assert_int_eq(e->seg, c1);
    bu_game_free(g);
}
END_TEST

START_TEST(escape_refused_other_players_knight)
{
    struct carc_game *g = esc_game(CARC_ESCAPE_SIEGE_TILE, "BA.U");
    put(g, BLUE, "CA.01", 10, 0, 0, "c1", 0);
    put(g, BLUE, "BA.E", 10, 1, 180, NULL, 0);
    put(g, BLUE, "BA.B", 11, 1, 0, NULL, 0);
    struct carc_move m = bu_escape_move(g, 1, 0, 0, 10, 0, bu_seg("CA.01", "c1"));
    bu_escape_refused(g, &m);
    ck_assert_int_eq(bu_meeple_on(g, 10, 0, "c1"), BLUE + 1);
    bu_game_free(g);
}
END_TEST

START_TEST(escape_refused_not_besieged)
{
    struct carc_game *g = esc_game(CARC_ESCAPE_ANY_TILE, "BA.U");
    put(g, RED, "BA.E", 10, 0, 0, "c1", 0);
    put(g, BLUE, "BA.E", 10, 1, 180, NULL, 0);
    put(g, BLUE, "BA.B", 11, 1, 0, NULL, 0);
    struct carc_move m = bu_escape_move(g, 1, 0, 0, 10, 0, bu_seg("BA.E", "c1"));
    bu_escape_refused(g, &m);
    bu_game_free(g);
}
END_TEST

START_TEST(escape_refused_no_cloister)
{
    struct carc_game *g = esc_game(CARC_ESCAPE_ANY_TILE, "BA.U");
    put(g, RED, "CA.01", 10, 0, 0, "c1", 0);
    put(g, BLUE, "BA.E", 10, 1, 180, NULL, 0);
    put(g, BLUE, "BA.E", 11, 1, 180, NULL, 0);
    struct carc_move m = bu_escape_move(g, 1, 0, 0, 10, 0, bu_seg("CA.01", "c1"));
    bu_escape_refused(g, &m);
    bu_game_free(g);
}
END_TEST

/* The move's own tile completes the besieged city: its knights are scored, not freed. */
START_TEST(escape_refused_city_completed_this_turn)
{
    struct carc_game *g = esc_game(CARC_ESCAPE_ANY_TILE, "BA.E");
    put(g, RED, "CA.01", 10, 0, 0, "c1", 0);
    put(g, BLUE, "BA.B", 11, -1, 0, NULL, 0);
    struct carc_move m = bu_escape_move(g, 10, -1, 180, 10, 0, bu_seg("CA.01", "c1"));
    bu_escape_refused(g, &m);
    ck_assert_int_eq(g->players[RED].score, 2);
    ck_assert_int_eq(g->players[RED].meeples, CARC_MEEPLES);
    bu_game_free(g);
}
END_TEST

/* A farmer on the siege tile is not a knight. */
START_TEST(escape_refused_farmer)
{
    struct carc_game *g = esc_game(CARC_ESCAPE_ANY_TILE, "BA.U");
    put(g, RED, "CA.01", 10, 0, 0, "f1", 0);
    put(g, BLUE, "BA.B", 11, 1, 0, NULL, 0);
    struct carc_move m = bu_escape_move(g, 1, 0, 0, 10, 0, bu_seg("CA.01", "f1"));
    bu_escape_refused(g, &m);
    bu_game_free(g);
}
END_TEST

Suite *suite_expansions(void)
{
    Suite *s = suite_create("expansions");
    TCase *tc = tcase_create("inns_cathedrals");
    tcase_add_test(tc, x01_inn_road_completed);
    tcase_add_test(tc, x01b_inn_road_open_at_end);
    tcase_add_test(tc, x01c_plain_road_open_at_end);
    tcase_add_test(tc, x02_cathedral_city_completed);
    tcase_add_test(tc, x02b_cathedral_city_open_at_end);
    tcase_add_test(tc, x03_large_meeple_wins);
    tcase_add_test(tc, large_meeple_needs_inns_cathedrals);
    tcase_add_test(tc, x04_large_meeple_ties);
    tcase_add_test(tc, large_farmer_counts_two);
    tcase_add_loop_test(tc, six_players_random_game, 0, 4);
    tcase_add_loop_test(tc, all_sets_random_game, 0, 6);
    suite_add_tcase(s, tc);
    tc = tcase_create("sieges");
    tcase_add_test(tc, x05_besieged_city_and_farm);
    tcase_add_test(tc, x05b_control_without_siege);
    tcase_add_test(tc, besieged_one_per_tile_and_pennant);
    tcase_add_test(tc, besieged_with_cathedral);
    tcase_add_test(tc, besieged_open_at_end_is_void);
    tcase_add_test(tc, escape_next_to_siege_tile);
    tcase_add_test(tc, escape_with_a_meeple);
    tcase_add_test(tc, escape_any_tile_rule);
    tcase_add_test(tc, escape_refused_other_players_knight);
    tcase_add_test(tc, escape_refused_not_besieged);
    tcase_add_test(tc, escape_refused_no_cloister);
    tcase_add_test(tc, escape_refused_farmer);
    tcase_add_test(tc, escape_refused_city_completed_this_turn);
    suite_add_tcase(s, tc);
    return s;
}
